"""Smooth-sensitivity order statistics (Nissim, Raskhodnikova & Smith 2007).

The median of unbounded data has unbounded global sensitivity, but its *local*
sensitivity is usually small. NRS release ``f(x) + (2 S*(x) / eps) Z``, Z ~ Laplace(0, 1),
where S* is a beta-smooth upper bound on the local sensitivity; with
beta = eps / (2 ln(2/delta)) this is (eps, delta)-DP (NRS 2007, Lemma 2.6 and
Example 2 with alpha = eps/2). The bound needs a bounded domain [lower, upper]: the
R package drops the windows that leave the sample, which makes its smooth sensitivity
infinite on unbounded data (reference r-dppca-score.md, Observation P5); here the
domain is public (or an earlier private release), the data are clipped to it and the
order statistics beyond the sample are padded with ``lower`` and ``upper``, as in NRS.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError, delta_arg, eps_arg, float_arg
from .budget import Ledger
from .samplers import laplace_noise

#: S* is floored at exp(-600) (upper - lower), far above underflow, so the noise scale is > 0
#: whenever upper > lower (R errors on a zero scale, its Observation B5).
_MIN_EXPONENT = -600.0
#: Each query is also evaluated on this many envelope lines either side (rounding safety).
_NEIGHBOUR_LINES = 2


def smooth_sensitivity_quantile(x, q, eps, delta, rng, lower, upper, *, ledger: Ledger | None = None,
                                step="quantile") -> float:
    """(eps, delta)-DP q-quantile of ``x`` by smooth sensitivity and Laplace noise.

    Parameters
    ----------
    x : array_like, shape (m,)
        Finite values, m >= 1 (m is public). Values outside [lower, upper] are clipped to it.
    q : float
        Quantile level in (0, 1); the released order statistic is x_(r), r = ceil(q m)
        clamped to [1, m] (the lower median for q = 0.5 and even m, as in R).
    eps : float
        Budget of this release, > 0.
    delta : float
        Budget of this release, in (0, 1).
    rng : numpy.random.Generator
    lower, upper : float
        Domain of the data, lower < upper, public (or released privately before this call).
    ledger : Ledger, optional
        Records the release. Its sensitivity and noise scale are data-dependent and are
        not released: the ledger shows ``nan`` for both.
    step : str
        Label for the ledger.

    Returns
    -------
    float
        x_(r) + Laplace(0, 2 S*/eps), in the units of ``x``; may fall outside [lower, upper].

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Empty or non-finite ``x``, q outside (0, 1), eps <= 0, delta outside (0, 1),
        lower >= upper.

    Notes
    -----
    Privacy (replace-one neighbours, m public): clipping to the public domain maps
    neighbours to neighbours. With x_(i) = lower for i < 1 and upper for i > m, changing
    k rows moves x_(r) at most to the window [x_(r-k-1), x_(r+k+1)], so the local
    sensitivity at distance k is A_k = max_{0<=t<=k+1} x_(r+t) - x_(r+t-k-1) (NRS 2007,
    Proposition 3.4, whose proof uses only the rank r). S* = max_k exp(-beta k) A_k is the
    smooth sensitivity, beta-smooth with beta = eps / (2 ln(2/delta)) (the standard constant;
    the R package's ln(1/delta) is not admissible, Observation P6), and Laplace noise of
    scale 2 S*/eps gives (eps, delta)-DP (NRS 2007, Lemma 2.6 / Example 2, alpha = eps/2).
    See :func:`quantile_smooth_sensitivity` for the exact O(m) computation (after the
    O(m log m) sort).

    References
    ----------
    Nissim, K., Raskhodnikova, S. and Smith, A. (2007). Smooth sensitivity and sampling in
    private data analysis. STOC 2007, Sections 2-3.
    """
    q = float_arg(q, "q", open_unit=True)
    eps, delta = eps_arg(eps), delta_arg(delta)
    lower, upper = _domain(lower, upper)
    xs = np.sort(np.clip(_finite_values(x), lower, upper))
    rank = min(xs.size, max(1, math.ceil(q * xs.size)))
    beta = eps / (2.0 * math.log(2.0 / delta))
    sensitivity = quantile_smooth_sensitivity(xs, rank, beta, lower, upper)
    noisy = float(xs[rank - 1] + laplace_noise(2.0 * sensitivity / eps, None, rng))
    if ledger is not None:
        ledger.record(step, "Laplace (smooth sensitivity)", np.nan,
                      f"smooth, beta={beta:.3g}", np.nan, eps, delta)
    return noisy


def quantile_smooth_sensitivity(xs: np.ndarray, rank: int, beta: float, lower: float,
                                upper: float) -> float:
    """beta-smooth upper bound S* on the local sensitivity of the order statistic x_(rank), O(m).

    Parameters
    ----------
    xs : ndarray, shape (m,)
        Sorted values inside [lower, upper].
    rank : int
        1-based rank r of the released order statistic.
    beta : float
        Smoothing parameter, > 0.
    lower, upper : float
        The public domain (padding of the order statistics beyond the sample).

    Returns
    -------
    float
        max(S, exp(-600) (upper - lower)) with S = max_k exp(-beta k) A_k the exact smooth
        sensitivity; > 0 when upper > lower.

    Notes
    -----
    Every window of A_k is a pair of padded indices i <= r <= j with j - i = k + 1 (windows
    reaching past 0 or m + 1 repeat the padding at a larger k, so they never win). Hence
    S = e^beta max_{r <= j <= m+1} b_j max_{0 <= i <= r} a_i (x_j - x_i) with
    a_i = exp(-beta (r - i)) and b_j = exp(-beta (j - r)). For fixed j the inner maximum is the
    upper envelope of the lines y = a_i x - a_i x_i evaluated at x_j: slopes increase with i,
    so the envelope is built in one pass (convex hull trick) and the queries x_j are located by
    binary search. This is the same number as the O(m^2) definition (R scans it in an R loop,
    its Observation S1), tested against it. The floor keeps S* beta-smooth (the maximum of a
    beta-smooth function and a constant is beta-smooth) and an upper bound.
    """
    padded = np.concatenate(([lower], xs, [upper]))
    left = np.arange(rank + 1)
    slopes = np.exp(-beta * (rank - left))
    left = left[slopes > 0]  # lines that underflow to 0 contribute 0
    slopes = slopes[slopes > 0]
    hull = _upper_envelope(slopes, -slopes * padded[left])
    right = np.arange(rank, padded.size)
    weights = np.exp(-beta * (right - rank))
    best = _envelope_lines(hull, slopes, -slopes * padded[left], padded[right])
    candidates = np.clip(best[:, None] + np.arange(-_NEIGHBOUR_LINES, _NEIGHBOUR_LINES + 1), 0, hull.size - 1)
    lines = hull[candidates]
    values = slopes[lines] * (padded[right][:, None] - padded[left[lines]])
    smooth = math.exp(beta) * float(np.max(weights * values.max(axis=1)))
    return max(smooth, math.exp(_MIN_EXPONENT) * (upper - lower))


def _upper_envelope(slopes: np.ndarray, intercepts: np.ndarray) -> np.ndarray:
    """Indices of the lines on the upper envelope of y = s x + c (slopes strictly increasing)."""
    s, c = slopes.tolist(), intercepts.tolist()  # Python floats: this loop is scalar work
    hull: list[int] = []
    for k in range(len(s)):
        # The last line is never the maximum when line k overtakes the one before it no later.
        while len(hull) >= 2 and (c[hull[-2]] - c[k]) * (s[hull[-1]] - s[hull[-2]]) <= \
                (c[hull[-2]] - c[hull[-1]]) * (s[k] - s[hull[-2]]):
            hull.pop()
        hull.append(k)
    return np.asarray(hull)


def _envelope_lines(hull, slopes, intercepts, x) -> np.ndarray:
    """Position in ``hull`` of the maximal line at each x (breakpoints, then binary search)."""
    s, c = slopes[hull], intercepts[hull]
    breaks = (c[:-1] - c[1:]) / (s[1:] - s[:-1])
    return np.searchsorted(breaks, x, side="left")


def _finite_values(x) -> np.ndarray:
    values = np.asarray(x, dtype=float).reshape(-1)
    if values.size == 0 or not np.isfinite(values).all():
        raise DPPCAValueError(f"`x` must be a non-empty array of finite values; got {values.size} "
                              "values" + ("" if values.size == 0 else " with NaN or inf"))
    return values


def _domain(lower, upper) -> tuple[float, float]:
    lower, upper = float_arg(lower, "lower"), float_arg(upper, "upper")
    if not lower < upper:
        raise DPPCAValueError(f"`lower` must be smaller than `upper`; got {lower} and {upper}")
    return lower, upper
