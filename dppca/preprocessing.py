"""Turn user input into a float matrix with column names; centring and scaling.

``as_matrix`` is the one checking path every public function uses (like
scikit-learn's ``check_array``). Scaling is either public (``scale=`` given by the
user), the sample standard deviation (non-private calls only), or estimated
privately by :func:`private_column_scales` with its own releases on the ledger.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validation import DPPCATypeError, DPPCAValueError
from .privacy import Ledger, gaussian_mechanism

#: Share of the scale budget spent on the clipping thresholds (the rest on the clipped variances).
SCALE_THRESHOLD_SHARE = 0.5
#: Octave bins [2^b, 2^(b+1)) of |paired differences|, 2^-48 .. 2^48, for the clipping threshold.
SCALE_BIN_EDGES = 2.0 ** np.arange(-48, 49)
#: The fullest window of two adjacent octaves must exceed this many noise sd of a window
#: (sqrt(2) sigma), or the column is refused (for an empty histogram the largest of ~100
#: window sums exceeds 4 of their sd with probability ~3e-3). Two octaves, so that skewed
#: columns (adult's capital_gain spreads over ten octaves) pass at eps = 0.5.
SCALE_BIN_THRESHOLD_SD = 4.0
#: Clipping threshold = this multiple of the upper edge of the fuller octave of that window: for
#: Gaussian columns it is [0.5, 1) or [1, 2) sd(D), so the clip is 2-4 sd(D) and removes at most
#: 8% of the variance; heavy tails (adult's capital_gain) are cut, as in a robust scale.
#: A larger multiple would shrink v_j = var/(2 C^2) towards the noise of step 2.
SCALE_CLIP_MULTIPLIER = 2.0


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
        return self.values if scales is None else self.values / np.asarray(scales, dtype=float)


def as_matrix(X, name: str = "X", min_rows: int = 2) -> Matrix:
    """Validate ``X`` and return it as a float64 :class:`Matrix`.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        Numeric data, rows are observations. A 1-D array is one variable.
    name : str
        Argument name used in error messages.
    min_rows : int
        Minimum number of rows.

    Raises
    ------
    DPPCATypeError
        If ``X`` is not numeric (names the offending columns) or not array-like.
    DPPCAValueError
        If ``X`` has NaN or inf (names the column), fewer than ``min_rows`` rows, or no columns.
    """
    if isinstance(X, pd.Series):
        X = X.to_frame()
    if isinstance(X, pd.DataFrame):
        columns = [str(c) for c in X.columns]
        bad = [c for c in X.columns if not _is_numeric(X[c])]
        if bad:
            raise DPPCATypeError(f"`{name}` must have numeric columns only; non-numeric: "
                                 f"{[str(c) for c in bad]}")
        values = X.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = _array_values(X, name)
        columns = [f"V{j + 1}" for j in range(values.shape[1])] if values.ndim == 2 else []
    _check_shape_and_finite(values, columns, name, min_rows)
    return Matrix(np.ascontiguousarray(values), columns)


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
    finite = np.isfinite(values)
    if not finite.all():
        j = int(np.where(~finite.all(axis=0))[0][0])
        kind = "NaN" if np.isnan(values[:, j]).any() else "inf"
        raise DPPCAValueError(f"`{name}` must not contain NaN or inf; column {columns[j]!r} has {kind}")


def random_pairs(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint random pairs of rows: (first, second), each of length m = floor(n/2).

    The pairing is drawn from ``rng`` independently of the data, so a replaced row belongs
    to at most one pair whatever the row order (pairing rows by position, as the R package
    does, biases sorted data such as gau: reference/r-dppca-scree.md §15.3 item 30).
    Every paired-difference statistic of the package uses this one pairing rule.
    """
    order = rng.permutation(n)
    m = n // 2
    return order[:m], order[m:2 * m]


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
    """Column sample standard deviations (n - 1), NON-PRIVATE; constant columns are an error."""
    sd = mat.values.std(axis=0, ddof=1)
    constant = [c for c, s in zip(mat.columns, sd) if not s > 0]
    if constant:
        raise DPPCAValueError(f"cannot standardize constant columns: {constant}")
    return sd


def private_column_scales(mat: Matrix, eps, delta, rng, *, calibration="analytic",
                          ledger: Ledger | None = None) -> np.ndarray:
    """(eps, delta)-DP estimate of each column's standard deviation.

    Translation invariant: it uses the paired differences D_i = x_a - x_b of the m = floor(n/2)
    disjoint random pairs (a, b) of :func:`random_pairs`, for which E[D_ij^2] / 2 = Var(X_j).

    1. Clipping thresholds: the counts of the non-zero |D_ij| in the octaves [2^b, 2^(b+1)),
       b = -48..47, for all columns together, released with the Gaussian mechanism. A replaced row changes one pair, which moves at most two counts of each
       column by 1: L2 sensitivity sqrt(2 p). Post-processing: find the fullest window of two
       adjacent noisy octaves, and set C_j = 2 x 2^(b+1) for its fuller octave b; a column
       whose fullest window is below 4 noise sd (of a window sum) is refused.
    2. Clipped variances: v_j = mean_i min(D_ij^2, C_j^2) / (2 C_j^2), each in [0, 1/2],
       released jointly with the Gaussian mechanism. A replaced row changes one pair, so
       each v_j moves by at most 1/(2m) and the vector by sqrt(p)/(2m) in L2.
    3. scale_j = C_j sqrt(max(v_j, 0)) (post-processing).

    Budget: basic composition, half of (eps, delta) on each release.

    Parameters
    ----------
    mat : Matrix, n >= 4
    eps, delta : float
        The budget of the whole scale release.
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger, optional

    Returns
    -------
    ndarray, shape (p,)

    Raises
    ------
    DPPCAValueError
        If a column has too few non-zero differences for a private threshold, or its private
        scale is 0, at this budget: pass public scales with ``scale=`` or drop the column.
    """
    if mat.n < 4:
        raise DPPCAValueError(f"private standardization needs at least 4 rows; got {mat.n}")
    first, second = random_pairs(mat.n, rng)
    m = first.size
    absdiff = np.abs(mat.values[first] - mat.values[second])
    eps_t, delta_t = eps * SCALE_THRESHOLD_SHARE, delta * SCALE_THRESHOLD_SHARE
    clip = _private_clip_bounds(absdiff, mat.columns, eps_t, delta_t, rng, calibration, ledger)
    clipped = np.minimum(absdiff, clip) ** 2 / (2 * clip ** 2)
    noisy, _ = gaussian_mechanism(clipped.mean(axis=0), np.sqrt(mat.p) / (2 * m), eps - eps_t,
                                  delta - delta_t, rng, calibration=calibration, ledger=ledger,
                                  step="scale: clipped variances", norm="L2")
    scale = clip * np.sqrt(np.maximum(noisy, 0.0))
    _refuse_zero_scales(scale > 0, mat.columns, "its private scale is 0")
    return scale


def _private_clip_bounds(absdiff, columns, eps, delta, rng, calibration, ledger) -> np.ndarray:
    """SCALE_CLIP_MULTIPLIER x upper edge of the fuller octave of the fullest noisy two-octave window."""
    edges = SCALE_BIN_EDGES
    counts = np.stack([np.histogram(col[col > 0], bins=edges)[0] for col in absdiff.T])
    noisy, sigma = gaussian_mechanism(counts, np.sqrt(2 * absdiff.shape[1]), eps, delta, rng,
                                      calibration=calibration, ledger=ledger,
                                      step="scale: octave histograms of |paired differences|",
                                      norm="L2")
    windows = noisy[:, :-1] + noisy[:, 1:]
    _refuse_zero_scales(windows.max(axis=1) > SCALE_BIN_THRESHOLD_SD * np.sqrt(2) * sigma, columns,
                        "too few non-zero paired differences for a private clipping bound")
    rows = np.arange(noisy.shape[0])
    start = np.argmax(windows, axis=1)
    fuller = start + (noisy[rows, start + 1] > noisy[rows, start])
    return SCALE_CLIP_MULTIPLIER * edges[fuller + 1]


def _refuse_zero_scales(ok, columns, why):
    bad = [c for c, good in zip(columns, ok) if not good]
    if bad:
        raise DPPCAValueError(f"cannot standardize columns {bad} privately ({why} at this budget); "
                              "pass public scales with `scale=` or drop these columns")
