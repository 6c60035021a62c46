"""Data for the app: example datasets, CSV uploads, provided data, and the group column.

Everything here is plain Python (no Shiny), so it is tested without a browser. Every
problem with the input raises :class:`AppDataError`, whose message the page shows as is.

What is treated as public (like n in the privacy contract): the file's schema (column
names and types), n and p. The group column is inferred from the schema only (R's
``.infer_group_column`` rules 1 and 2); R's third rule, which reads the data's values
(the last integer column with few distinct values), is not used: a choice that depends on
private values would have to be a private release.
"""
from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import datasets

#: Largest CSV upload accepted, in bytes (the page says so next to the file input).
MAX_UPLOAD_BYTES = 20 * 2**20

#: Example datasets: key -> (label shown, loader, group column or None).
EXAMPLES = {
    "gau": ("gau: Gaussian clusters (5000 x 20)", datasets.load_gau, None),
    "gau_g": ("gau_g: Gaussian clusters, 5 groups (5000 x 20)", datasets.load_gau_g, "group"),
    "adult": ("adult: UCI Adult, numeric columns (32561 x 5)", datasets.load_adult, None),
}

#: The label given to rows whose group label is missing (as in ``dppca report``).
MISSING_LABEL = "(missing)"

#: Column names taken as group labels (case-insensitive), R's ``.infer_group_column`` rule 1.
GROUP_COLUMN_NAMES = ("group", "groups", "label", "labels", "class", "cluster", "g", "color",
                      "colour")


class AppDataError(ValueError):
    """A problem with the data the user gave; the message is shown in the page."""


@dataclass(frozen=True)
class AppData:
    """The data of one app session, ready for the private analyses.

    Attributes
    ----------
    key : str
        Identity of the dataset (the session budget and the cache are per key).
    label : str
        What the page calls the data.
    features : pandas.DataFrame, shape (n, p)
        The finite numeric columns the PCA uses (never the group column).
    labels : pandas.Series or None, shape (n,)
        Group labels for the grouped score plot, or None.
    group_name : str or None
        Name of the group column (or "provided labels").
    unused : list of str
        Non-numeric columns that are neither features nor the group column.
    """

    key: str
    label: str
    features: pd.DataFrame
    labels: pd.Series | None = None
    group_name: str | None = None
    unused: list = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.features)

    @property
    def p(self) -> int:
        return self.features.shape[1]

    @property
    def max_pc(self) -> int:
        """Largest PC number the app offers: max(2, min(n - 1, p)) as in R."""
        return max(2, min(self.n - 1, self.p))


def default_delta(n: int) -> float:
    """Default session delta for n rows: 10^-(ceil(log10 n) + 1), below 1/(10 n).

    R's app uses 10^-ceil(log10 n), which is about 1/n (its Observation P10); one more
    decade keeps delta well below 1/n. n is public.
    """
    return 10.0 ** -(math.ceil(math.log10(max(n, 2))) + 1)


def infer_group_column(frame: pd.DataFrame) -> str | None:
    """The group column by R's rules 1-2 (schema only): a group-like name, else the first
    non-numeric column; None if neither exists.

    Examples
    --------
    >>> infer_group_column(pd.DataFrame({"x": [1.0], "Cluster": [2], "kind": ["a"]}))
    'Cluster'
    """
    for column in frame.columns:
        if str(column).lower() in GROUP_COLUMN_NAMES:
            return column
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    return text[0] if text else None


def example_data(name: str) -> AppData:
    """An example dataset by key (``gau``, ``gau_g``, ``adult``).

    Examples
    --------
    >>> data = example_data("gau_g")
    >>> data.n, data.p, data.group_name
    (5000, 20, 'group')
    """
    if name not in EXAMPLES:
        raise AppDataError(f"unknown example dataset {name!r}; choose one of {sorted(EXAMPLES)}")
    label, loader, group = EXAMPLES[name]
    return prepare(loader(), group, key=f"example:{name}", label=label)


def read_upload(path, name: str, header: bool = True) -> pd.DataFrame:
    """Read an uploaded CSV file, with a clear :class:`AppDataError` for every problem.

    Parameters
    ----------
    path : str or Path
        Where the server stored the upload.
    name : str
        The file name the user chose (checked for the ``.csv`` extension).
    header : bool
        Whether the first row holds the column names (else V1..Vp).

    Raises
    ------
    AppDataError
        Not a .csv name, larger than :data:`MAX_UPLOAD_BYTES`, empty, not text, or not
        parseable as CSV.
    """
    if not str(name).lower().endswith(".csv"):
        raise AppDataError(f"'{name}' is not a CSV file: upload a file whose name ends in .csv")
    size = Path(path).stat().st_size
    if size > MAX_UPLOAD_BYTES:
        raise AppDataError(f"'{name}' is larger than the app's limit for CSV files "
                           f"({size:,} bytes; the app accepts CSV files up to "
                           f"{MAX_UPLOAD_BYTES // 2**20} MB = {MAX_UPLOAD_BYTES:,} bytes)")
    if size == 0:
        raise AppDataError(f"'{name}' is empty")
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AppDataError(f"'{name}' is not a UTF-8 text file; save it as CSV (UTF-8)") from None
    try:
        frame = pd.read_csv(io.StringIO(text), header=0 if header else None)
    except pd.errors.EmptyDataError:
        raise AppDataError(f"'{name}' has no rows or columns") from None
    except (pd.errors.ParserError, ValueError) as err:
        raise AppDataError(f"'{name}' could not be read as CSV: {err}".strip()) from None
    if not header:
        frame.columns = [f"V{i + 1}" for i in range(frame.shape[1])]
    frame.attrs["sha256"] = hashlib.sha256(raw).hexdigest()[:16]
    return frame


def prepare(X, group=None, *, key: str, label: str, infer: bool = True) -> AppData:
    """Split data into numeric features and group labels, and check both.

    Parameters
    ----------
    X : pandas.DataFrame or 2-D array_like, shape (n, p)
    group : None, str or array_like of length n
        None: inferred from the schema (:func:`infer_group_column`) when ``infer``; a column
        name of X; or one label per row.
    key, label : str
        See :class:`AppData`.
    infer : bool
        Whether to infer a group column when ``group`` is None.

    Raises
    ------
    AppDataError
        Fewer than 2 rows, a group column that does not exist, labels of the wrong length or
        with missing values, fewer than 2 numeric columns, or numeric columns with missing or
        non-finite values.

    Examples
    --------
    >>> frame = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [0.5, 0.1, 0.2], "g": ["x", "y", "x"]})
    >>> data = prepare(frame, None, key="mine", label="my data")
    >>> list(data.features.columns), data.group_name
    (['a', 'b'], 'g')
    """
    frame = X if isinstance(X, pd.DataFrame) else _as_frame(X)
    if len(frame) < 2:
        raise AppDataError(f"the data must have at least 2 rows; got {len(frame)}")
    if group is None and infer:
        group = infer_group_column(frame)
    labels, group_name = None, None
    if isinstance(group, str):
        if group not in frame.columns:
            raise AppDataError(f"group column {group!r} is not a column of the data; columns: "
                               f"{list(map(str, frame.columns))}")
        labels, group_name, frame = frame[group], group, frame.drop(columns=group)
    elif group is not None:
        labels, group_name = pd.Series(np.asarray(group, dtype=object)), "provided labels"
        if len(labels) != len(frame):
            raise AppDataError(f"`group` must have one label per row ({len(frame)}); got {len(labels)}")
    if labels is not None:
        # A missing label is a label like any other (no refusal: it would depend on the data).
        labels = labels.astype(object).where(labels.notna(), MISSING_LABEL)
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
               and not pd.api.types.is_bool_dtype(frame[c])]
    unused = [str(c) for c in frame.columns if c not in numeric]
    if len(numeric) < 2:
        raise AppDataError(f"the data must have at least 2 numeric columns; found {len(numeric)}"
                           + (f" (non-numeric: {unused})" if unused else ""))
    features = frame[numeric].astype(float)
    bad = [str(c) for c in numeric if not np.isfinite(features[c].to_numpy()).all()]
    if bad:
        raise AppDataError(f"numeric columns {bad} have missing (NaN) or infinite values; remove "
                           "or impute them before uploading")
    if labels is not None:
        labels = labels.reset_index(drop=True)
    return AppData(key=key, label=label, features=features.reset_index(drop=True), labels=labels,
                   group_name=group_name, unused=unused)


def _as_frame(X) -> pd.DataFrame:
    array = np.asarray(X)
    if array.ndim != 2:
        raise AppDataError(f"the data must be a table (2-D); got {array.ndim} dimension(s)")
    return pd.DataFrame(array, columns=[f"V{i + 1}" for i in range(array.shape[1])])

__all__ = ["AppData", "AppDataError", "default_delta", "example_data", "infer_group_column",
           "prepare", "read_upload"]
