"""Turn user input into a float matrix with column names; centring and scaling.

``as_matrix`` is the one checking path every public function uses (like
scikit-learn's ``check_array``). :func:`column_scales` is the one standardization path:
scales are public (``scale=`` given by the user), the sample standard deviation
(non-private calls only), or estimated privately, once per call, by
:func:`dppca.preprocessing.scales.private_column_scales` with its releases on the ledger.

The one row-cleaning rule: every finite value is clamped to the public
range [-VALUE_BOUND, VALUE_BOUND] (:func:`clamp_values`), at input and again after division by
the column scales, so no statistic downstream meets a value whose square or sum overflows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import DPPCATypeError, DPPCAValueError
from ..privacy import Ledger
from .codebook import is_named_scale, read_schema
from .scales import private_column_scales


@dataclass(frozen=True)
class Matrix:
    """A validated data matrix.

    Attributes
    ----------
    values : ndarray, shape (n, p), float64
    columns : list of str, length p (DataFrame column names, or V1..Vp for arrays)
    """

    values: np.ndarray
    columns: list

    @property
    def n(self) -> int:
        return self.values.shape[0]

    @property
    def p(self) -> int:
        return self.values.shape[1]

    def to_frame(self) -> pd.DataFrame:
        """The values as a DataFrame with the column names (to hand to another public function)."""
        return pd.DataFrame(self.values, columns=self.columns)

    def scaled(self, scales) -> np.ndarray:
        """The values divided column-wise by ``scales`` (shape (p,), any array-like), or as they
        are when ``scales`` is None (not standardized)."""
        if scales is None:
            return self.values
        with np.errstate(over="ignore"):  # an overflow is inf, clamped to VALUE_BOUND
            return clamp_values(self.values / np.asarray(scales, dtype=float))


#: The public range of every value a statistic sees: 2^400 (about 2.6e120). Squares (2^800)
#: and sums of up to 2^200 of them stay finite, so norms, covariances, Kendall pair sums and
#: scores never overflow; a value beyond it is clamped, never refused or warned about.
VALUE_BOUND = 2.0 ** 400


def clamp_values(values: np.ndarray) -> np.ndarray:
    """Clamp each value to [-VALUE_BOUND, VALUE_BOUND] (the one row-cleaning rule).

    Parameters
    ----------
    values : ndarray or dask array, any shape, float64
        Values (finite, or +-inf from an overflowing division).

    Returns
    -------
    ndarray, same shape: ``values`` itself when nothing exceeds the bound, else a clamped copy.

    Notes
    -----
    Privacy: the clamp is a fixed map of each value alone (it depends on no other value and on
    nothing private), so a replaced row stays one replaced row and every sensitivity proved
    for rows of real numbers holds for the clamped rows. It is exact (no rounding) and changes
    nothing for data within +-2.6e120. Without it, one row of 1e154 or 1.7e308 made a private
    call overflow (inf, NaN, LinAlgError, "overflow encountered" warnings) where its
    neighbour did not: a data-dependent message.

    Examples
    --------
    >>> import numpy as np
    >>> clamp_values(np.array([1.0, -1.7e308, 5e-324])) == [1.0, -VALUE_BOUND, 5e-324]
    array([ True,  True,  True])
    """
    if not isinstance(values, np.ndarray):  # a dask array: clamped lazily, chunk by chunk
        return np.clip(values, -VALUE_BOUND, VALUE_BOUND)
    # Two reductions, no |values| temporary (a copy of the data: 0.19 s at 10^6 x 20).
    if np.max(values, initial=0.0) <= VALUE_BOUND and np.min(values, initial=0.0) >= -VALUE_BOUND:
        return values
    return np.clip(values, -VALUE_BOUND, VALUE_BOUND)


def as_matrix(X, name: str = "X", min_rows: int = 2) -> Matrix:
    """Validate ``X`` and return it as a float64 :class:`Matrix`.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        Numeric data, rows are observations. A 1-D array is one variable.
    name : str
        Argument name used in error messages.
    min_rows : int
        Minimum number of rows (public when n is). 0 accepts any number of rows, an empty frame
        included: the entry points of add/remove calls pass it, since their n is private and
        they refuse too few rows only from the released count
        (:func:`dppca.privacy.neighbouring.refuse_few_rows`).

    Raises
    ------
    DPPCATypeError
        If ``X`` is not numeric (names the offending columns) or not array-like.
    DPPCAValueError
        If ``X`` has fewer than ``min_rows`` rows or no columns.

    Notes
    -----
    NaN cells are kept (missing values: each entry point's ``missing=`` policy,
    :mod:`dppca.preprocessing.missing`, imputes them or skips them); +-inf and finite values beyond +-VALUE_BOUND (2^400) are clamped to it (:func:`clamp_values`, a
    public map of each value alone), so extreme rows reach no data-dependent refusal or warning.
    """
    if isinstance(X, pd.Series):
        X = X.to_frame()
    if isinstance(X, pd.DataFrame):
        columns = check_frame_columns(X, name, min_rows)
        values = X.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = _array_values(X, name)
        columns = [f"V{j + 1}" for j in range(values.shape[1])] if values.ndim == 2 else []
    _check_shape_and_finite(values, columns, name, min_rows)
    return Matrix(np.ascontiguousarray(clamp_values(values)), columns)


def check_frame_columns(X: pd.DataFrame, name: str = "X", min_rows: int = 2) -> list:
    """Check a DataFrame's shape and columns before any conversion; return its column names.

    In this order, so that the error names the first real problem: no rows (a header-only
    frame is not "non-numeric"; ``min_rows`` only words that error), duplicate column names
    (named), non-numeric or boolean columns (named, with their dtypes).

    Parameters
    ----------
    X : pandas.DataFrame, shape (n, p)
    name : str
        Argument name used in error messages.
    min_rows : int
        Minimum number of rows; 0 accepts a frame without rows (its header is still checked).

    Returns
    -------
    list of str, length p

    Raises
    ------
    DPPCAValueError
        No rows, or duplicate column names (fewer than ``min_rows`` rows is checked later,
        with the values, by :func:`as_matrix`).
    DPPCATypeError
        A non-numeric column (text, dates, booleans).

    Examples
    --------
    >>> import pandas as pd
    >>> check_frame_columns(pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4]}))
    ['a', 'b']
    >>> check_frame_columns(pd.DataFrame([[1, 2, 3]] * 2, columns=["a", "a", "b"]))
    Traceback (most recent call last):
    ...
    dppca._validation.DPPCAValueError: `X` has duplicate column names ['a']; every column needs its own name
    """
    if len(X) == 0 and min_rows > 0:
        raise DPPCAValueError(f"`{name}` has no rows ({X.shape[1]} columns, 0 rows); it must "
                              f"have at least {min_rows} rows")
    columns = [str(c) for c in X.columns]
    duplicates = sorted({c for c in columns if columns.count(c) > 1})
    if duplicates:
        raise DPPCAValueError(f"`{name}` has duplicate column names {duplicates}; every column "
                              "needs its own name")
    bad = [j for j in range(len(columns)) if not _is_numeric(X.iloc[:, j])]
    if bad:
        raise DPPCATypeError(f"`{name}` must have numeric columns only; non-numeric: "
                             f"{[columns[j] for j in bad]} (dtypes "
                             f"{[str(X.dtypes.iloc[j]) for j in bad]})")
    return columns


def _is_numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _array_values(X, name: str) -> np.ndarray:
    try:
        arr = np.asarray(X)
    except Exception as err:  # ragged lists and the like
        raise DPPCATypeError(f"`{name}` must be a 2-D numeric array or a DataFrame") from err
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise DPPCATypeError(f"`{name}` must be numeric; got an array of dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise DPPCATypeError(f"`{name}` must be real-valued; got complex numbers")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DPPCAValueError(f"`{name}` must be 2-D (rows = observations); got {arr.ndim} dimensions")
    return arr.astype(float)


def _check_shape_and_finite(values, columns, name, min_rows):
    if values.ndim != 2 or values.shape[1] < 1:
        raise DPPCAValueError(f"`{name}` must have at least one column")
    if values.shape[0] < min_rows:
        raise DPPCAValueError(f"`{name}` must have at least {min_rows} rows; got {values.shape[0]}")
    # NaN cells are missing values (the call's public ``missing=`` policy decides what they
    # mean) and +-inf are extreme values (clamped): neither is refused, so no refusal or
    # message depends on a cell.


def public_scale(scale, columns) -> np.ndarray:
    """Check a user-declared (public) scale vector: one finite positive value per column.

    Accepts a sequence, an ndarray, or a pandas Series indexed by column names.
    """
    if isinstance(scale, pd.Series) and set(scale.index) >= set(columns):
        scale = scale.loc[columns]
    try:
        s = np.asarray(scale, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise DPPCATypeError(f"`scale` must be numeric, one value per column; got {scale!r}") from None
    if s.size != len(columns):
        raise DPPCAValueError(f"`scale` must have one value per column ({len(columns)}); got {s.size}")
    if not (np.isfinite(s).all() and (s > 0).all()):
        raise DPPCAValueError("`scale` must be finite and > 0 in every column")
    return s


def sample_scale(mat: Matrix) -> np.ndarray:
    """Column sample standard deviations (n - 1), NON-PRIVATE; constant columns, and columns
    whose SD overflows or that hold a value at +-VALUE_BOUND (clamped input), are an error."""
    with np.errstate(over="ignore", invalid="ignore"):
        sd = mat.values.std(axis=0, ddof=1)
    at_bound = np.max(np.abs(mat.values), axis=0, initial=0.0) >= VALUE_BOUND  # input clamped
    huge = [c for c, s, b in zip(mat.columns, sd, at_bound) if b or not np.isfinite(s)]
    if huge:
        raise DPPCAValueError(f"cannot standardize columns {huge}: their sample SD overflows "
                              "float64 (or they hold values at the bound +-2^400 beyond which "
                              "input is clamped); divide the data by a public constant first")
    constant = [c for c, s in zip(mat.columns, sd) if not s > 0]
    if constant:
        raise DPPCAValueError(f"cannot standardize constant columns: {constant}")
    return sd


# ----------------------------------------------------------------------------- one scaling path

@dataclass(frozen=True)
class ColumnScales:
    """Column scales and where they came from; what every public function divides by.

    Attributes
    ----------
    values : ndarray, shape (p,)
        Positive scales in data units.
    source : {"public", "private", "sample (NON-PRIVATE)"}
    share : float
        Share of the call's budget spent on them (private scales; 0 otherwise).
    """

    values: np.ndarray
    source: str
    share: float = 0.0
    declared: int = 0

    @property
    def label(self) -> str:
        """For summaries: ``"private (20% of eps)"``, ``"public"``, ``"sample (NON-PRIVATE)"``;
        with some scales declared public, ``"private (20% of eps; 2 public (declared))"``."""
        if self.source != "private":
            return self.source
        extra = f"; {self.declared} public (declared)" if self.declared else ""
        return f"private ({self.share:.0%} of eps{extra})"


def column_scales(mat: Matrix, standardize: bool, scale=None, *, private: bool = True, noise=None,
                  share: float = 0.0, rng=None, ledger: Ledger | None = None) -> ColumnScales | None:
    """The one standardization path of dp_pc_dir, dp_scree, dp_score and dp_score_group.

    Parameters
    ----------
    mat : Matrix
    standardize : bool
        False: None (no scaling).
    scale : array_like of shape (p,), ColumnScales, or None
        Public scales declared by the caller, or scales already released in this call (a
        ``ColumnScales``, reused as they are: nothing is spent again).
    private : bool
        False (non-private calls): the sample SD, NON-PRIVATE.
    noise : dppca.privacy.composition.GaussianShare
        The scale budget (a share of the call's Gaussian-DP group), for private scales.
    share : float
        The share of the call's budget that ``noise`` stands for (shown in summaries).
    rng, ledger
        For :func:`private_column_scales`.

    Returns
    -------
    ColumnScales or None

    Raises
    ------
    DPPCAValueError
        Public scales of the wrong length or not positive; constant columns for the sample SD.

    Notes
    -----
    Privacy: public and already released scales cost nothing; private scales are the releases
    of :func:`dppca.preprocessing.scales.private_column_scales` on ``noise`` (proof there).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing import as_matrix, column_scales
    >>> from dppca.privacy import GaussianGroup
    >>> mat = as_matrix(np.random.default_rng(0).normal(size=(2000, 3)) * [1, 10, 100])
    >>> s = column_scales(mat, True, noise=GaussianGroup(1.0, 1e-5).share(0.2), share=0.2,
    ...                   rng=np.random.default_rng(1))
    >>> s.label
    'private (20% of eps)'
    >>> column_scales(mat, True, [1, 2, 3]).source
    'public'
    """
    if not standardize:
        return None
    if isinstance(scale, ColumnScales):
        public_scale(scale.values, mat.columns)
        return scale
    declared = declared_scale_vector(scale, mat.columns)
    if declared is not None and np.isfinite(declared).all():
        return ColumnScales(declared, "public")
    todo = np.ones(mat.p, bool) if declared is None else ~np.isfinite(declared)
    values = np.where(todo, 1.0, declared if declared is not None else 1.0)
    rest = mat if todo.all() else Matrix(mat.values[:, todo], [c for c, t in zip(mat.columns, todo) if t])
    if not private:
        values[todo] = sample_scale(rest)
        return ColumnScales(values, "sample (NON-PRIVATE)")
    values[todo] = private_column_scales(rest, rng=rng, ledger=ledger, noise=noise)
    return ColumnScales(values, "private", float(share), int(np.sum(~todo)))


def declared_scale_vector(scale, columns) -> np.ndarray | None:
    """Public scales per column, NaN where a named declaration (dict, Series with a subset of
    the columns, DataFrame, codebook path, Schema) leaves a column out; None when ``scale`` is
    None. A plain vector must give all p scales (:func:`public_scale`)."""
    if scale is None:
        return None
    if isinstance(scale, ColumnScales):
        return public_scale(scale.values, columns)
    if is_named_scale(scale, columns):
        return read_schema(scale, kind="scale").declared_scales(columns)
    return public_scale(scale, columns)


def fully_declared(scale, columns) -> bool:
    """Whether ``scale`` declares a public scale for every column (no private scale needed)."""
    declared = declared_scale_vector(scale, columns)
    return declared is not None and bool(np.isfinite(declared).all())

__all__ = ["VALUE_BOUND", "ColumnScales", "Matrix", "as_matrix", "clamp_values", "check_frame_columns", "column_scales", "declared_scale_vector",
           "fully_declared", "public_scale", "sample_scale"]
