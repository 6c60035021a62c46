"""Group labels of the grouped score histograms: a declared public domain or private selection.

The set of groups a grouped result shows is never read from the private data without a
privacy mechanism (the privacy contract in DESIGN.md):

* **declared domain** (no budget): ``levels=`` (the public list of labels) or, without it, the
  categories of a pandas Categorical (R: the factor levels). Every declared label is a group,
  also one with 0 or 1 rows (it gets a noisy, possibly empty histogram). Rows whose label is
  missing or not in the domain belong to no group: they are left out of every histogram, as
  Google's differential privacy library does with public partitions; how many there are is
  never said (only the private group-size estimates hint at it);
* **no declared domain** (plain strings or numbers): private partition selection
  (:func:`dppca.privacy.partition.select_partitions`) releases the labels whose noisy count
  passes a threshold; rows of labels not released (and missing labels) belong to no group.

No error, warning or message here depends on the labels' values or counts; only on public
facts (n, the declared levels, the dtype) or on the private selection.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import DPPCATypeError, DPPCAValueError
from ..privacy import Ledger
from ..privacy.partition import select_partitions

#: Where the groups of a result came from (``ScoreResult.group_selection``).
SOURCES = ("levels", "categories", "partition selection")


@dataclass(frozen=True)
class GroupLabels:
    """The groups of a grouped release and each row's group.

    Attributes
    ----------
    names : list of str
        Group labels in display order (the declared order, or sorted for selected labels).
    codes : ndarray of int, shape (n,)
        Index of each row's group in ``names``; -1 for a row in no group (missing label,
        label outside the declared domain or not selected). Never released.
    source : {"levels", "categories", "partition selection"}
    """

    names: list
    codes: np.ndarray
    source: str


def label_series(labels, n: int) -> pd.Series:
    """The labels as a Series of length n (a public check on the length only)."""
    labels = pd.Series(labels).reset_index(drop=True)
    if len(labels) != n:
        raise DPPCAValueError(f"`group` must have one label per row of X ({n}); got {len(labels)}")
    return labels


def declared_groups(labels: pd.Series, levels=None) -> GroupLabels | None:
    """Groups from a declared public domain: ``levels``, else a Categorical's categories.

    Returns None when nothing is declared (plain labels: use :func:`selected_groups`).
    Labels are matched to levels by value when both are numeric (1 matches 1.0; string
    levels that all parse as numbers count as numeric), otherwise as text, str(label) ==
    str(level). A label outside the domain puts its row in no group (code -1).

    Parameters
    ----------
    labels : pandas.Series, length n
        One label per row (from :func:`label_series`).
    levels : sequence of labels, optional
        The public domain, in display order.

    Returns
    -------
    GroupLabels or None

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        ``levels`` not a 1-D list, empty, with a missing entry or with duplicates (as text);
        Categorical categories that coincide as text. None of these looks at the data.

    Examples
    --------
    >>> import pandas as pd
    >>> groups = declared_groups(pd.Series(["b", "a", "z", None]), levels=["a", "b", "c"])
    >>> groups.names, groups.codes.tolist()
    (['a', 'b', 'c'], [1, 0, -1, -1])
    """
    if levels is not None:
        names = _levels_arg(levels)
        return GroupLabels(names, _match(labels, levels, names), "levels")
    if isinstance(labels.dtype, pd.CategoricalDtype):
        names = _unique_text(labels.cat.categories, "the categories of `group`")
        return GroupLabels(names, labels.cat.codes.to_numpy(np.int64), "categories")
    return None


def selected_groups(labels: pd.Series, eps: float, delta: float, rng, *,
                    ledger: Ledger | None = None, rows: int | None = None) -> GroupLabels:
    """Groups released by private partition selection over the labels present in the data.

    Numeric labels are ordered by value, others by their text; names are str(label).
    Missing labels form no group. (eps, delta)-DP under replace-one
    (:func:`dppca.privacy.partition.select_partitions` with Delta_0 = 2); only the selected
    names leave this function, the codes stay private. Under add/remove neighbours a row added
    or removed changes one label's count by 1 (Delta_0 = 1 <= 2), so the same release is
    (eps, delta)-DP there too, with ``rows`` a public bound for its sampler's slack.

    Parameters
    ----------
    labels : pandas.Series, length n
    eps, delta : float
        Budget of the selection.
    rng : numpy.random.Generator
    ledger : Ledger, optional
    rows : int, optional
        A public upper bound on the rows, the bound on the partitions with rows that the
        sampler's slack reads: None (replace-one) uses n; add/remove neighbours (n private)
        pass the released count's upper bound n_hi (it holds except on the bounds' failure,
        charged to delta).

    Returns
    -------
    GroupLabels
        ``source`` "partition selection".

    Raises
    ------
    DPPCAValueError
        When no label is released (post-processing of the private selection).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> labels = pd.Series(["x"] * 500 + ["y"] * 400 + ["lonely"])
    >>> selected_groups(labels, 1.0, 1e-6, np.random.default_rng(0)).names
    ['x', 'y']
    """
    text = labels.map(label_key, na_action="ignore")
    present = text.dropna()
    if pd.api.types.is_numeric_dtype(labels.dtype):
        # one value per key (0.0 and -0.0 share the key "0.0"), so the order by value is the labels'
        values = pd.Series(labels[present.index].to_numpy(), index=present.to_numpy())
        keys = list(values[~values.index.duplicated()].sort_values(kind="stable").index)
    else:
        keys = sorted(set(present))
    counts = text.value_counts().reindex(keys).to_numpy()
    bound = len(labels) if rows is None else int(rows)
    kept = select_partitions(counts, eps, delta, rng, ledger=ledger, dimension=max(bound, 1))
    names = [key for key, keep in zip(keys, kept) if keep]
    if not names:
        # Depends only on the private selection (post-processing), never on a count.
        raise DPPCAValueError("private partition selection released no group label: declare the "
                              "labels with `levels=` (or a Categorical) or give more budget")
    return GroupLabels(names, pd.Index(names).get_indexer(text.to_numpy(object)), "partition selection")


def label_key(label) -> str:
    """The text key of one (non-missing) label: the one rule that names groups and counts rows.

    ``str(label)``, except that a floating zero of either sign is "0.0": pandas treats 0.0 and
    -0.0 as one value (``unique``, hashing, ``==``), so a key set and a count that disagreed on
    them would put a group's rows in no group when one row's label flips sign.

    Examples
    --------
    >>> label_key(-0.0), label_key(0.0), label_key("-0.0"), label_key(2), label_key("nan")
    ('0.0', '0.0', '-0.0', '2', 'nan')
    """
    if isinstance(label, (float, np.floating)) and label == 0:
        return "0.0"
    return str(label)


def _levels_arg(levels) -> list:
    if isinstance(levels, (str, bytes, dict)) or np.ndim(levels) != 1:
        raise DPPCATypeError("`levels` must be a list of group labels (the public domain); "
                             f"got {type(levels).__name__}")
    if len(levels) == 0:
        raise DPPCAValueError("`levels` must list at least one group label")
    if any(pd.isna(v) for v in levels):
        raise DPPCAValueError("`levels` must not contain missing values")
    return _unique_text(levels, "`levels`")


def _unique_text(values, what: str) -> list:
    names = [label_key(v) for v in values]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise DPPCAValueError(f"{what} must be distinct labels; repeated {repeated}")
    return names


def _match(labels: pd.Series, levels, names) -> np.ndarray:
    numeric_levels = pd.to_numeric(pd.Series(list(levels), dtype=object), errors="coerce")
    if pd.api.types.is_numeric_dtype(labels.dtype) and numeric_levels.notna().all():
        if numeric_levels.astype(float).duplicated().any():
            raise DPPCAValueError(f"`levels` must be distinct labels; {list(levels)} repeats a value")
        return pd.Index(numeric_levels.astype(float)).get_indexer(labels.astype(float))
    text = labels.astype(object).map(label_key, na_action="ignore")
    return pd.Index(names).get_indexer(text.to_numpy(object))

__all__ = ["reference_scores", "split_group", "GroupLabels", "declared_groups", "label_key", "label_series",
           "selected_groups"]


def split_group(X, group):
    """(features, labels): ``group`` names a column of the DataFrame X, or gives one label per row."""
    if isinstance(group, str):
        if not isinstance(X, pd.DataFrame) or group not in X.columns:
            raise DPPCAValueError(f"`group` must name a column of X (a DataFrame) or give one label "
                                  f"per row; no column {group!r}")
        return X.drop(columns=group), X[group]
    if np.ndim(group) != 1:
        raise DPPCATypeError("`group` must be a column name or a 1-D array of labels; "
                             f"got {type(group).__name__}")
    return X, group


def reference_scores(shown, axes, features, names, codes) -> pd.DataFrame:
    """The NON-PRIVATE scores as a DataFrame (PC<a> columns, the group labels), for references."""
    index = features.index if isinstance(features, pd.DataFrame) else None
    scores = pd.DataFrame(shown, columns=[f"PC{a}" for a in axes], index=index)
    if names is not None:
        scores["group"] = pd.Categorical.from_codes(codes, categories=names)
    return scores
