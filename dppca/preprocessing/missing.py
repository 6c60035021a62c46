"""Missing values as a declared, public policy: resolution from public arguments and imputation.

A NaN cell is data like any other: no refusal, warning or message may depend on where the NaN
cells are. The ``missing=`` argument of every entry point is therefore a public choice, resolved
from the call's public arguments only (:func:`resolve_missing`) and shown on the ledger:

- ``"pairwise"``: pairwise-present estimation, for the Kendall's tau directions of ``dp_pc_dir``:
  the rank path's elementwise tau (a missing cell is a tie, :mod:`dppca.methods.pairwise_present`)
  and g-DPPCA's spatial-sign matrix (a pair's difference over the coordinates both rows observe,
  :mod:`dppca.stats.present_spatial_kendall`).
- ``"median"``: each missing cell of a column is replaced by the column's private median
  (:func:`private_medians`, joint Gaussian histogram releases in stages on the ledger).
- a number, or a dict ``{column: value}``: declared public imputation values (free); the columns a
  dict leaves out get private medians.
- ``"drop"``: incomplete rows are removed, which changes n: valid only under add/remove
  neighbours (a call with ``neighbouring="add_remove"``), refused otherwise from the arguments.
- ``"auto"`` (default): ``"pairwise"`` for g-DPPCA's directions without private scales,
  ``"median"`` everywhere else: the rank path (its private medians are closer to the complete
  data than its pairwise-present tau, :func:`resolve_missing`) and the statistics that cannot
  skip a cell (private scales, clipped means and variances, scores, frames, the peer methods).

+-inf cells are never missing: they are extreme values, clamped to the public bound
(:func:`dppca.preprocessing.matrix.clamp_values`) or, on the rank path, extreme ranks.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import DPPCATypeError, DPPCAValueError
from ..privacy.budget import DECLARED
from .matrix import Matrix
from .median_stages import MEDIAN_EDGES, MEDIAN_THRESHOLD_SD, median_counts, private_medians

__all__ = ["MEDIAN_EDGES", "MEDIAN_SHARE", "MEDIAN_THRESHOLD_SD", "MISSING_OPTIONS", "MissingPolicy",
           "binary_codes", "binary_dtype", "impute", "median_counts", "missing_arg", "private_medians",
           "resolve_missing", "sample_filled", "sample_medians"]

#: The string values of ``missing=``.
MISSING_OPTIONS = ("auto", "pairwise", "median", "drop")

#: Share of the call's (eps, delta) spent on the private column medians when some are needed
#: (basic composition with the rest of the call). The median is only a fill value: an error of
#: a fraction of a column's spread in it moves a statistic by about that fraction times the share
#: of missing cells, so a tenth of the budget, which leaves 90% to the statistic the call is
#: for, costs the statistic about 5% more noise sd.
MEDIAN_SHARE = 0.1

@dataclass(frozen=True)
class MissingPolicy:
    """The resolved missing-value policy of a call (public: it comes from arguments only).

    Attributes
    ----------
    kind : {"pairwise", "median", "value", "drop"}
        What happens to NaN cells.
    requested : object
        The caller's ``missing=`` argument, as given.
    values : dict of str to float
        Declared imputation values (``kind == "value"``): column -> value; a column absent from
        a dict gets a private median.
    default : float or None
        A declared value for every column (a number given as ``missing=``).
    """

    kind: str
    requested: object = "auto"
    values: dict = field(default_factory=dict)
    default: float | None = None

    @property
    def label(self) -> str:
        """For ledgers and summaries, e.g. ``"median imputation (auto)"``."""
        words = {"pairwise": "pairwise present", "median": "median imputation",
                 "value": "declared value imputation", "drop": "drop incomplete rows"}[self.kind]
        if self.kind == "value" and self.default is None:  # a dict: unnamed columns get medians
            words = "declared values for the named columns, median imputation for the others"
        return f"{words} (auto)" if isinstance(self.requested, str) and \
            self.requested == "auto" else words

    def declared(self, columns) -> np.ndarray:
        """Declared fill value per column, NaN where a private (or sample) median is needed."""
        return np.array([self.default if self.default is not None else
                         self.values.get(str(c), np.nan) for c in columns], dtype=float)

    def record(self, ledger) -> None:
        """The zero-cost "public (declared)" row that states the policy on ``ledger``."""
        if ledger is not None:
            ledger.record(f"missing values: {self.label}", DECLARED, 0.0, "none", 0.0, 0.0, 0.0)


def missing_arg(missing, name: str = "missing"):
    """Check a ``missing=`` argument (the value, not yet resolved).

    Parameters
    ----------
    missing : str, float or dict of str to float
        One of :data:`MISSING_OPTIONS`, a finite number, or a dict of column -> finite number.
    name : str
        Argument name in error messages.

    Returns
    -------
    str, float or dict
        The argument, numbers as float and dict keys as str.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        An unknown string, a non-finite number, or a dict with a non-finite value.

    Examples
    --------
    >>> missing_arg("auto"), missing_arg(0), missing_arg({"a": 1})
    ('auto', 0.0, {'a': 1.0})
    >>> missing_arg("mean")
    Traceback (most recent call last):
    ...
    dppca._validation.DPPCAValueError: `missing` must be one of ('auto', 'pairwise', 'median', 'drop'), a finite number or a dict {column: finite number}; got 'mean'
    """
    rule = f"one of {MISSING_OPTIONS}, a finite number or a dict {{column: finite number}}"
    if isinstance(missing, str):
        if missing not in MISSING_OPTIONS:
            raise DPPCAValueError(f"`{name}` must be {rule}; got {missing!r}")
        return missing
    if isinstance(missing, numbers.Real) and not isinstance(missing, bool):
        if not math.isfinite(float(missing)):
            raise DPPCAValueError(f"`{name}` must be {rule}; got {missing!r}")
        return float(missing)
    if isinstance(missing, (dict, pd.Series)):
        values = {str(k): v for k, v in dict(missing).items()}
        bad = [k for k, v in values.items() if isinstance(v, bool)
               or not isinstance(v, numbers.Real) or not math.isfinite(float(v))]
        if bad:
            raise DPPCAValueError(f"`{name}` must be {rule}; columns {bad} have no finite number")
        return {k: float(v) for k, v in values.items()}
    raise DPPCATypeError(f"`{name}` must be {rule}; got {type(missing).__name__}")


def resolve_missing(missing, *, entry: str, pairwise=False,
                    neighbouring: str = "replace") -> MissingPolicy:
    """The call's policy, from its public arguments only (never from the data).

    Parameters
    ----------
    missing : str, float or dict
        The ``missing=`` argument (:func:`missing_arg`).
    entry : str
        The public function (``"dp_pc_dir"``, ``"dp_scree"``, ``"dp_score"``, ``"DPPCA"``...).
    pairwise : {False, "gdppca", "rank"}
        The call's pairwise-present statistic, from its public arguments: g-DPPCA's spatial-sign
        Kendall matrix (``"gdppca"``), the rank path's elementwise tau (``"rank"``), or none.
    neighbouring : str
        The call's neighbouring relation: ``"replace"`` (n public) or ``"add_remove"``.

    Returns
    -------
    MissingPolicy

    Raises
    ------
    DPPCAValueError
        ``"pairwise"`` where no pairwise-present statistic exists (anything but the rank path's
        or g-DPPCA's directions) or under add/remove neighbours; ``"drop"`` under replace-one
        neighbours (dropping rows changes n, which is public there); a bad ``missing``.

    Notes
    -----
    ``"auto"`` under replace-one neighbours is ``"pairwise"`` for g-DPPCA only and ``"median"``
    everywhere else, the rank path included. The rank path's pairwise-present tau keeps, for
    each entry, the pairs of rows that observe both columns, a share (1 - q)^4 of them at a
    missing rate q (0.52 at q = 0.15), and spends part of the budget on the present-row
    counts; median imputation keeps every pair (a filled cell ties at the median and keeps
    part of its pairs' concordance) and spends a tenth of the budget. On the missing-value
    grid (``benchmarks/results/bench_missing_grid.txt``: adult, randhie and AER/GSS7402; MCAR
    and MAR masks at 5, 15 and 30%; eps 0.5 to 4; 10 seeds; sin-theta to the complete data's
    latent correlation) the medians had the smaller mean error in 60 of its 76 cells (79%), and
    at 15% MCAR, eps >= 1, they were within 1.5 times the complete data's error in 7 of the 9
    rows against 1 of 9 for pairwise-present (pairwise 1.18 to 2.33 times, medians 1.02 to
    2.53, the two misses at eps 4). g-DPPCA stays pairwise: it reads the filled values
    themselves, and its pairwise-present matrix was closer at eps 1 and 2 on all three sets
    (``benchmarks/results/bench_missing_medians2.txt``: on AER/GSS7402 sin-theta 0.16 and 0.11
    against 0.45 and 0.24 with the staged medians of :func:`private_medians`, whose last stages
    read a year near 1990 within a few years; one log-grid stage read it near 1750, 0.999).
    Under add/remove neighbours ``"auto"`` is ``"drop"``.

    Examples
    --------
    >>> resolve_missing("auto", entry="dp_pc_dir", pairwise="gdppca").kind
    'pairwise'
    >>> resolve_missing("auto", entry="dp_pc_dir", pairwise="rank").kind
    'median'
    >>> resolve_missing("pairwise", entry="dp_pc_dir", pairwise="rank").label
    'pairwise present'
    >>> resolve_missing("auto", entry="dp_scree").label
    'median imputation (auto)'
    >>> resolve_missing("auto", entry="dp_pc_dir", pairwise="rank", neighbouring="add_remove").kind
    'drop'
    >>> resolve_missing({"a": 0.0}, entry="dp_score").declared(["a", "b"]).tolist()
    [0.0, nan]
    """
    missing = missing_arg(missing)
    if pairwise not in (False, None, "gdppca", "rank"):
        raise DPPCAValueError(f"`pairwise` must be False, 'gdppca' or 'rank'; got {pairwise!r}")
    pairwise_possible = bool(pairwise)
    if isinstance(missing, float):
        return MissingPolicy("value", missing, default=missing)
    if isinstance(missing, dict):
        return MissingPolicy("value", missing, values=missing)
    if missing == "auto" and neighbouring == "add_remove":
        # n is private there, so dropping incomplete rows (stable under add/remove: a
        # neighbour maps to a neighbour or to the same set) costs nothing and keeps the
        # complete-data estimand; the pairwise-present releases' add/remove sensitivities
        # are not proved.
        return MissingPolicy("drop", missing)
    if missing == "auto":
        # Notes: pairwise for g-DPPCA, medians for the rank path and everything else.
        return MissingPolicy("pairwise" if pairwise == "gdppca" else "median", missing)
    if missing == "pairwise" and neighbouring == "add_remove":
        raise DPPCAValueError(
            "missing='pairwise' is proved under replace-one neighbours only (its present-row "
            "counts and sign sums use a public n); with neighbouring='add_remove' use "
            "missing='drop' (the default there), 'median' or a declared value")
    if missing == "pairwise" and not pairwise_possible:
        raise DPPCAValueError(
            f"missing='pairwise' is available for the Kendall's tau directions of dp_pc_dir "
            f"(g-DPPCA and the rank path), which can skip a cell; this {entry} call needs every "
            "cell: use missing='median' (private column medians) or a declared value")
    if missing == "drop" and neighbouring != "add_remove":
        raise DPPCAValueError(
            "missing='drop' removes incomplete rows, which changes n: it needs add/remove "
            "neighbours (neighbouring='add_remove', n private); under replace-one neighbours "
            "(n public) use missing='median', 'pairwise' (rank path) or a declared value")
    return MissingPolicy(missing, missing)


def sample_medians(values: np.ndarray) -> np.ndarray:
    """Median of each column's observed cells, NON-PRIVATE (0 for a column with none).

    Examples
    --------
    >>> sample_medians(np.array([[1.0, np.nan], [3.0, np.nan], [np.nan, np.nan]])).tolist()
    [2.0, 0.0]
    """
    x = np.asarray(values, dtype=float)
    observed = ~np.isnan(x)
    return np.array([float(np.median(x[observed[:, j], j])) if observed[:, j].any() else 0.0
                     for j in range(x.shape[1])])


def binary_dtype(dtype) -> bool:
    """Whether a column of this dtype is binary with room for a hole: pandas' nullable
    ``boolean`` or a Categorical of 2 categories (the rank path's binary columns,
    :func:`dppca.methods.latent_correlation.rank_columns`; a numpy bool column has no hole).

    Examples
    --------
    >>> binary_dtype(pd.BooleanDtype()), binary_dtype(pd.CategoricalDtype(["a", "b"]))
    (True, True)
    >>> binary_dtype(np.dtype(bool)), binary_dtype(np.dtype(float))
    (False, False)
    """
    return isinstance(dtype, pd.BooleanDtype) or \
        (isinstance(dtype, pd.CategoricalDtype) and len(dtype.categories) == 2)


def binary_codes(column: pd.Series) -> np.ndarray:
    """Float codes of a column: its values for a numeric one, 0/1 for a binary one
    (:func:`binary_dtype`: False/True, first/second category); NaN for a missing cell.

    Examples
    --------
    >>> binary_codes(pd.Series([True, None, False], dtype="boolean")).tolist()
    [1.0, nan, 0.0]
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy().astype(float)
        return np.where(codes < 0, np.nan, codes)
    if isinstance(column.dtype, pd.BooleanDtype):
        column = column.astype("Float64")
    return column.to_numpy(dtype=float, na_value=np.nan)


def impute(frame: pd.DataFrame, columns, fill) -> pd.DataFrame:
    """``frame`` with the NaN cells of ``columns`` replaced by ``fill`` (one value per column).

    Parameters
    ----------
    frame : pandas.DataFrame or dask.dataframe.DataFrame, shape (n, p)
    columns : list of column labels
        The columns to fill: numeric ones (cast to float64 first, so that a nullable integer
        column takes a fractional median, whether or not a cell is missing), or binary ones
        (:func:`binary_dtype`), which take level 1 (True, the second category) for a fill
        value above 0.5 and level 0 otherwise (the rank path's threshold for binary columns)
        and keep their dtype.
    fill : array_like, shape (len(columns),)
        The fill values (public or released).

    Returns
    -------
    pandas.DataFrame
        A copy (lazy for dask); the other columns are unchanged.

    Examples
    --------
    >>> impute(pd.DataFrame({"a": [1.0, np.nan]}), ["a"], [0.5])["a"].tolist()
    [1.0, 0.5]
    >>> impute(pd.DataFrame({"b": pd.Series([True, None], dtype="boolean")}), ["b"],
    ...        [0.7])["b"].tolist()
    [True, True]
    """
    dtypes = {c: frame[c].dtype for c in columns}
    casts = {c: "float64" for c in columns if not binary_dtype(dtypes[c])}
    values = {}
    for c, v in zip(columns, fill):
        level = int(float(v) > 0.5)
        if isinstance(dtypes[c], pd.CategoricalDtype) and binary_dtype(dtypes[c]):
            values[c] = dtypes[c].categories[level]
        elif binary_dtype(dtypes[c]):
            values[c] = bool(level)
        else:
            values[c] = float(v)
    return (frame.astype(casts) if casts else frame).fillna(values)


def sample_filled(mat: Matrix, keep: bool = False) -> Matrix:
    """``mat`` with each NaN cell replaced by its column's sample median, NON-PRIVATE (for the
    NON-PRIVATE reference of a call whose statistic skipped the cells); ``mat`` itself when
    ``keep`` (a reference that skips them too, the rank path) or nothing is missing.

    Examples
    --------
    >>> sample_filled(Matrix(np.array([[1.0], [np.nan], [3.0]]), ["a"])).values.ravel().tolist()
    [1.0, 2.0, 3.0]
    """
    if keep or not np.isnan(mat.values).any():
        return mat
    return Matrix(np.where(np.isnan(mat.values), sample_medians(mat.values), mat.values),
                  mat.columns)
