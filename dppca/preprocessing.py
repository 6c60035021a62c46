"""Turn user input into a float matrix with column names; centring and scaling.

``as_matrix`` is the one checking path every public function uses (like
scikit-learn's ``check_array``). Scaling is either public (``scale=`` given by the
user), the sample standard deviation (non-private calls only), or estimated
privately by :func:`private_column_scales` with its own releases on the ledger.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validation import DPPCATypeError, DPPCAValueError
from .privacy import Ledger


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


# ----------------------------------------------------------------------------- private scales

#: Octave bins [2^b, 2^(b+1)), b = -64..63, of the |paired differences| (release 1); values below
#: 2^-64 (zeros included) and from 2^64 up have an end bin each. Public, very wide bounds.
SCALE_OCTAVES = (-64, 64)
#: Shares of the scale budget (of its Gaussian-DP mu^2): octave histograms, pilot, final moment.
SCALE_SHARES = (0.1, 0.45, 0.45)
#: Prior penalty (log-likelihood units) per octave between a column's octave and the octave of
#: the pooled histogram: a column follows the pooled octave unless its own counts say otherwise.
SCALE_OCTAVE_PENALTY = 1.0
#: Prior penalty per octave between the pooled octave and octave 0 of the SD (scale 1): with no
#: evidence in the counts (tiny n or budget) the scales stay near 1, i.e. close to no scaling.
SCALE_UNIT_PENALTY = 0.25
#: Expected relative noise at which the final clip may be raised above the efficient c* (so
#: that heavy-tailed and mostly-zero columns get a scale close to their SD when n allows).
SCALE_HIGH_CLIP_NOISE = 0.05
#: A clipped second moment below this many noise sd cannot be told from 0: the column is
#: (near-)constant to the private estimate and its scale is floored at the detection limit.
SCALE_DETECTION_SD = 2.0


def _gaussian_clip_table():
    """r(c) = E min(Z^2, c^2) / c^2 and E(c) = -d log r / d log c on c = 2^-10..2^10 (Z ~ N(0, 1))."""
    from scipy.special import ndtr

    c = 2.0 ** np.arange(-10.0, 10.0 + 1e-9, 1 / 64)
    tail = 2 * ndtr(-c)  # P(|Z| > c)
    inside = (1 - tail) - 2 * c * np.exp(-c * c / 2) / np.sqrt(2 * np.pi)  # E Z^2 1{|Z| < c}
    r = inside / c ** 2 + tail
    return c, r, 2 * (1 - tail / r)


_CLIP_C, _CLIP_R, _CLIP_ELASTICITY = _gaussian_clip_table()
#: c* = argmax r(c) E(c): the clip (in SDs of the differences) where the Gaussian-consistent
#: clipped second moment has the least noise per unit of budget (c* = 1.37).
SCALE_EFFICIENT_CLIP = float(_CLIP_C[np.argmax(_CLIP_R * _CLIP_ELASTICITY)])
#: Octave profile of |Z| sd for an SD in the middle of octave 0: P(2^(k-1/2) <= |Z| < 2^(k+1/2)).
_PROFILE_OFFSETS = np.arange(-8, 4)


def _octave_profile() -> np.ndarray:
    from scipy.special import ndtr

    edges = 2.0 ** np.append(_PROFILE_OFFSETS - 0.5, _PROFILE_OFFSETS[-1] + 0.5)
    return np.diff(2 * ndtr(edges) - 1)


def private_column_scales(mat: Matrix, eps=None, delta=None, rng=None, *, calibration="analytic",
                          ledger: Ledger | None = None, noise=None) -> np.ndarray:
    """Private column standard deviations that never refuse: three joint Gaussian releases.

    The target is the column SD, estimated from the paired differences D = x_a - x_b of the
    m = floor(n/2) disjoint random pairs of :func:`random_pairs` (E D^2 = 2 Var X, translation
    invariant, no private centre needed). For each column j, with a = |D|:

    1. **Where is the column?** Counts of a in the octave bins [2^b, 2^(b+1)), b = -64..63, plus
       one end bin below (zeros included) and one above, all p columns in one Gaussian release.
       Each column's noisy counts are matched against the octave profile of |N(0, s^2)|; the
       octave b_j maximises that evidence z_j(b)^2 / 2 minus ``SCALE_OCTAVE_PENALTY`` per octave
       of distance to the octave of the pooled counts (a log-prior: with little data the columns
       follow the pooled octave, with much data their own); the pooled octave itself pays
       ``SCALE_UNIT_PENALTY`` per octave of distance to scale 1 (no evidence: no rescaling).
    2. **Pilot.** The clipped second moment v = mean_i min(a_i, C)^2 / C^2 in [0, 1] at
       C = 2^(b_j + 1/2), released jointly. It is inverted to a *Gaussian-consistent* scale:
       s_D solves r(C / s_D) = v, r(c) = E min(Z^2, c^2) / c^2 (Huber 1981, §5.3's consistency
       correction of a winsorized variance); r is decreasing, so the solution is unique.
    3. **Final moment.** The same statistic at C3 = c s_D, c = c* = 1.37 (the clip with the
       least noise per budget for Gaussian data) or, when the public noise level allows it, the
       largest c = c* 2^(k/2) whose predicted relative noise is <= ``SCALE_HIGH_CLIP_NOISE``, so
       that heavy-tailed and mostly-zero columns get close to their SD when n is large.
       Scale = Gaussian-consistent s_D / sqrt(2); at c* the pilot and final estimates are
       averaged (on the log scale, weights 1 / predicted variance), and for p >= 4 the log scales
       are shrunk towards their mean by empirical Bayes (:func:`_shrunk`), which matters only
       when the noise is comparable to the spread of the column scales (small n or budget).

    Why this estimator: private quantiles per column (exponential mechanism, smooth sensitivity)
    cost a budget that grows with p under pure-DP composition, and a Gaussian histogram of
    quantile-resolution bins has noise in every bin; a clipped mean of bounded terms has the
    smallest sensitivity (1/m per column), all p columns share one Gaussian release, and the
    Gaussian releases of the three steps compose in Gaussian DP (Dong, Roth and Su 2022). The
    consistency correction makes a *low* clip unbiased at the Gaussian, and a low clip is what
    keeps the noise small at n ~ 1000 (relative noise of the SD ~ 2.34 / (m mu_j) at c*, with
    mu_j the per-column Gaussian-DP parameter); clipped second moments of paired differences
    are Biswas et al. (2020, CoinPress)'s and Karwa & Vadhan (2018)'s private variance idea
    without their public range.

    What the scale means: for Gaussian columns, the SD. For heavy-tailed or mostly-zero columns
    (adult's capital_gain and capital_loss: 92% and 95% zeros), the Gaussian-consistent SD of
    the differences winsorized at the final clip: never 0 while the non-zero part is detectable
    (the octave step locates the non-zero differences, zeros are not counted there), close to
    the SD when the clip is several SDs (capital_loss: ~0.9-1.0), and below the SD when a few
    extreme rows carry most of the variance (capital_gain's 99999, 0.5% of the rows, make 90%
    of its variance: its scale is ~0.28 SD, the spread of the other non-zero gains). A column whose pilot and final moments are both
    below ``SCALE_DETECTION_SD`` noise sd cannot be told from a constant: its scale is floored at the
    detection limit C3 sqrt(2 sigma_v) / sqrt(2) and a ``UserWarning`` names it (the decision uses
    released numbers only). Dividing a (near-)constant column by any positive number does not
    change the directions of the translation-invariant methods.

    Parameters
    ----------
    mat : Matrix, shape (n, p), n >= 2
    eps, delta : float, optional
        The scale budget, when ``noise`` is not given.
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger, optional
        Receives three releases (shares of the budget in Gaussian-DP terms).
    noise : dppca.robust_mean.GaussianShare, optional
        A share of a call-wide Gaussian-DP group (then eps and delta are ignored).

    Returns
    -------
    ndarray, shape (p,)
        Positive, finite scales (data units).

    Raises
    ------
    DPPCAValueError
        Only for public facts: neither a budget nor ``noise`` given.

    Warns
    -----
    UserWarning
        Columns floored at the detection limit (decided from the releases).

    Notes
    -----
    Privacy (replace-one, n public; the pairing is drawn from ``rng`` independently of the data,
    so a replaced row changes exactly one pair, hence one a_ij per column):

    * Release 1: one a_ij moves from one bin to another, so per column at most two counts change
      by 1: L2 sensitivity sqrt(2 p) for the p histograms. Counts are exact integers.
    * Releases 2 and 3: C_j is a function of earlier releases only (adaptive composition), and
      min(a, C) / C lies in [0, 1] in floating point (min(a, C) <= C, and correctly rounded
      division of a number <= C by C is <= 1), so each term is in [0, 1]; one term changes, so
      the exact mean moves by at most 1/m per column. The sums are correctly rounded
      (``math.fsum``) and divided by m: the computed mean is within 2^-52 of the exact one, so it
      moves by at most 1/m + 2^-51; L2 sensitivity sqrt(p) (1/m + 2^-51) jointly.
    * The three Gaussian releases, with shares ``SCALE_SHARES`` of mu^2 of the budget, compose to
      one mu-GDP mechanism, (eps, delta)-DP (Dong, Roth and Su 2022, Cor. 3.3); the rest is
      post-processing. |x_a - x_b| is computed per pair (a difference, no cancelling sums) and an
      overflow to inf is clamped to the largest double, so every value is finite.

    References
    ----------
    Huber, P. J. (1981). Robust Statistics, §5.3. Dong, J., Roth, A. and Su, W. J. (2022).
    Gaussian differential privacy. JRSS-B 84(1). Karwa, V. and Vadhan, S. (2018). Finite sample
    differentially private confidence intervals. ITCS. Biswas, S., Dong, Y., Kamath, G. and
    Ullman, J. (2020). CoinPress: practical private mean and covariance estimation. NeurIPS.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing import as_matrix, private_column_scales
    >>> X = np.random.default_rng(0).normal(size=(5000, 3)) * [1, 10, 100]
    >>> s = private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(1))
    >>> bool(np.all((s > 0.8 * np.array([1, 10, 100])) & (s < 1.25 * np.array([1, 10, 100]))))
    True
    """
    noise = _scale_noise(noise, eps, delta, calibration)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    first, second = random_pairs(mat.n, rng)
    absdiff = _abs_differences(mat.values, first, second)
    octave = _private_octaves(absdiff, noise.group.share(noise.fraction * SCALE_SHARES[0]),
                                    rng, ledger)
    pilot_clip = np.ldexp(np.sqrt(2.0), octave)  # 2^(b + 1/2)
    pilot = _clipped_moment(absdiff, pilot_clip, noise.group.share(noise.fraction * SCALE_SHARES[1]),
                            rng, ledger, "scale: pilot clipped second moments of |x_a - x_b|")
    final_noise = noise.group.share(noise.fraction * SCALE_SHARES[2])
    final_clip = _final_clip(pilot, final_noise.sigma(_moment_sensitivity(absdiff.shape)))
    final = _clipped_moment(absdiff, final_clip, final_noise, rng, ledger,
                            "scale: final clipped second moments of |x_a - x_b|")
    sd_diff, floored = _combine(pilot, final)
    if floored.any():
        warnings.warn(f"columns {[c for c, f in zip(mat.columns, floored) if f]} look (near-)constant "
                      "to the private scale estimate; their scales are set to its detection limit",
                      UserWarning, stacklevel=2)
    return sd_diff / np.sqrt(2.0)


def _scale_noise(noise, eps, delta, calibration):
    from .robust_mean import GaussianGroup

    if noise is not None:
        return noise
    if eps is None or delta is None:
        raise DPPCAValueError("private column scales need a budget: give `eps` and `delta`")
    return GaussianGroup(eps, delta, calibration).share(1.0)


def _abs_differences(values, first, second) -> np.ndarray:
    """|x_a - x_b| per pair and column, finite (an overflow to inf becomes the largest double)."""
    with np.errstate(over="ignore"):
        absdiff = np.abs(values[first] - values[second])
    return np.minimum(absdiff, np.finfo(float).max)


def _private_octaves(absdiff, noise, rng, ledger) -> np.ndarray:
    """Release 1: per-column octave b_j of the SD of the differences."""
    low, high = SCALE_OCTAVES
    exponent = np.frexp(absdiff)[1] - 1  # floor(log2 a), exact; frexp(0) gives -1 (end bin below)
    bins = np.where(absdiff >= np.ldexp(1.0, low), np.clip(exponent, low - 1, high) - low + 1, 0)
    width = high - low + 2
    counts = np.stack([np.bincount(col, minlength=width) for col in bins.T])
    noisy, sigma = noise.release(counts, np.sqrt(2.0 * absdiff.shape[1]), rng, ledger,
                                 "scale: octave histograms of |x_a - x_b|")
    profile = _octave_profile()
    body = noisy[:, 1:]  # octaves low..high-1 and the end bin above (as octave high)
    padded = np.pad(body, ((0, 0), (-_PROFILE_OFFSETS[0], _PROFILE_OFFSETS[-1])))
    evidence = np.stack([padded[:, b:b + profile.size] @ profile for b in range(body.shape[1])], 1)
    z = evidence / (sigma * np.linalg.norm(profile))
    pooled_z = evidence.sum(axis=0) / (sigma * np.linalg.norm(profile) * np.sqrt(len(z)))
    offsets = np.arange(body.shape[1]) + low
    pooled = int(np.argmax(np.maximum(pooled_z, 0.0) ** 2 / 2 - SCALE_UNIT_PENALTY * np.abs(offsets)))
    score = np.maximum(z, 0.0) ** 2 / 2 - SCALE_OCTAVE_PENALTY * np.abs(np.arange(body.shape[1]) - pooled)
    octave = np.argmax(score, axis=1)
    return octave + low


def _moment_sensitivity(shape) -> float:
    m, p = shape
    return np.sqrt(p) * (1.0 / m + 2.0 ** -51)


def _clipped_moment(absdiff, clip, noise, rng, ledger, step) -> dict:
    """Releases 2 and 3: mean_i min(a_ij, C_j)^2 / C_j^2 per column, noisy; with its clip and sd."""
    terms = (np.minimum(absdiff, clip) / clip) ** 2
    means = np.array([math.fsum(col) for col in terms.T]) / terms.shape[0]
    noisy, sigma = noise.release(means, _moment_sensitivity(absdiff.shape), rng, ledger, step)
    return {"value": noisy, "clip": clip, "sd": sigma}


def _gaussian_scale(moment) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian-consistent SD of the differences, s = C / r^-1(v), and its predicted relative sd."""
    v = np.clip(moment["value"], _CLIP_R[-1], _CLIP_R[0])
    c = np.interp(-v, -_CLIP_R, _CLIP_C)  # r is decreasing in c
    elasticity = np.interp(-v, -_CLIP_R, _CLIP_ELASTICITY)
    relative = moment["sd"] / (v * np.maximum(elasticity, 1e-3))
    return moment["clip"] / c, relative


def _final_clip(pilot, sigma_v) -> np.ndarray:
    """c* x pilot SD, or the largest multiple of it whose predicted relative noise is small."""
    scale, _ = _gaussian_scale(pilot)
    factors = SCALE_EFFICIENT_CLIP * 2.0 ** np.arange(0.0, 40.5, 0.5)
    rel = sigma_v / (np.interp(factors, _CLIP_C, _CLIP_R) * np.interp(factors, _CLIP_C, _CLIP_ELASTICITY))
    affordable = factors[rel <= SCALE_HIGH_CLIP_NOISE]
    highest = affordable[-1] if affordable.size else SCALE_EFFICIENT_CLIP
    return _clip_range(scale * highest)


def _clip_range(clip) -> np.ndarray:
    low, high = SCALE_OCTAVES
    return np.clip(clip, np.ldexp(1.0, low - 8), np.ldexp(1.0, high + 8))


def _combine(pilot, final) -> tuple[np.ndarray, np.ndarray]:
    """Final Gaussian-consistent SD of the differences (pilot averaged in at c*), floored columns."""
    s3, rel3 = _gaussian_scale(final)
    s2, rel2 = _gaussian_scale(pilot)
    low_clip = final["clip"] <= SCALE_EFFICIENT_CLIP * np.sqrt(2.0) * s2
    w2 = np.where(low_clip, 1 / rel2 ** 2, 0.0)
    w3 = 1 / rel3 ** 2
    log_sd = _shrunk((w2 * np.log(s2) + w3 * np.log(s3)) / (w2 + w3), 1 / np.sqrt(w2 + w3))
    floor = final["clip"] * np.sqrt(SCALE_DETECTION_SD * final["sd"])
    floored = (final["value"] < SCALE_DETECTION_SD * final["sd"]) & \
        (pilot["value"] < SCALE_DETECTION_SD * pilot["sd"])
    return np.where(floored, floor, np.exp(log_sd)), floored


def _shrunk(log_sd, noise_sd) -> np.ndarray:
    """Empirical-Bayes (James-Stein) shrinkage of the log scales towards their weighted mean.

    Model: log s_j = theta_j + e_j, e_j ~ N(0, noise_sd_j^2) (the predicted noise), theta_j ~
    N(mean, tau^2); tau^2 = max(0, var(log s) - mean(noise_sd^2)) (method of moments), and
    theta_j is estimated by its posterior mean. Columns on very different scales (tau >> noise)
    are left as they are; at small n the noisy scales are pulled together. Only with p >= 4
    (James-Stein dominates the raw estimates from 3 coordinates on; Efron & Morris 1973).
    Post-processing of the releases.
    """
    if log_sd.size < 4:
        return log_sd
    weights = 1 / noise_sd ** 2
    centre = np.sum(weights * log_sd) / np.sum(weights)
    tau2 = max(0.0, float(np.mean((log_sd - centre) ** 2) - np.mean(noise_sd ** 2)))
    keep = tau2 / (tau2 + noise_sd ** 2)
    return centre + keep * (log_sd - centre)


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

    @property
    def label(self) -> str:
        """For summaries: ``"private (20% of eps)"``, ``"public"``, ``"sample (NON-PRIVATE)"``."""
        return f"private ({self.share:.0%} of eps)" if self.source == "private" else self.source


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
    noise : dppca.robust_mean.GaussianShare
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
    """
    if not standardize:
        return None
    if isinstance(scale, ColumnScales):
        public_scale(scale.values, mat.columns)
        return scale
    if scale is not None:
        return ColumnScales(public_scale(scale, mat.columns), "public")
    if not private:
        return ColumnScales(sample_scale(mat), "sample (NON-PRIVATE)")
    values = private_column_scales(mat, rng=rng, ledger=ledger, noise=noise)
    return ColumnScales(values, "private", float(share))
