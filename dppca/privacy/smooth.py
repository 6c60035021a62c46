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
from .samplers import is_exact, exact_sum, discrete_laplace, grid_width, laplace_noise, snap

#: S* is floored at exp(-600) (upper - lower), far above underflow, so the noise scale is > 0
#: whenever upper > lower (R errors on a zero scale, its Observation B5).
_MIN_EXPONENT = -600.0
#: Each query is also evaluated on this many envelope lines either side (rounding safety).
_NEIGHBOUR_LINES = 2
#: Release grid: gamma = 2^(floor(log2(4 W e^beta / eps)) - 50), so the integer noise scale t < 2^50.
_GRID_BITS = 50
#: Relative margins (powers of two) between the smoothing parameters (Notes of
#: :func:`smooth_sensitivity_quantile`): S* uses beta (1 - 2^-12), the scale grid beta (1 - 2^-13).
_SMOOTH_MARGIN, _GRID_MARGIN = 2.0 ** -12, 2.0 ** -13
#: Relative inflation of the computed S* (covers its rounding error, at most 2^-45).
_S_INFLATION = 2.0 ** -40
#: Smallest admissible beta (below it the margins no longer dominate rounding errors).
_MIN_BETA = 2.0 ** -24


def smooth_sensitivity_quantile(x, q, eps, delta, rng, lower, upper, *, ledger: Ledger | None = None,
                                step="quantile") -> float:
    """(eps, delta)-DP q-quantile of ``x`` by smooth sensitivity and discrete Laplace noise.

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
        Source of the discrete Laplace noise.
    lower, upper : float
        Domain of the data, lower < upper, public (or released privately before this call).
    ledger : Ledger, optional
        Records the release ("discrete Laplace (smooth sensitivity)"). Its sensitivity and
        noise scale are data-dependent and are not released: the ledger shows ``nan`` for both.
    step : str
        Label for the ledger.

    Returns
    -------
    float
        The value gamma (round(x_(r) / gamma) + K) clamped to [lower, upper], in the units of ``x``:
        a multiple of the public power of two gamma (:func:`smooth_release_grid`), K discrete
        Laplace with scale t gamma >= 2 S*/eps. With ``use_sampler("numpy")`` (comparisons
        only, NOT floating-point safe): x_(r) + Laplace(0, 2 S*/eps), unclamped.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Empty or non-finite ``x``, q outside (0, 1), eps <= 0, delta outside (0, 1),
        lower >= upper, a domain width that overflows or is below 2^-800, or
        beta = :func:`smooth_beta` below 2^-24 (eps below about 1e-6).

    See Also
    --------
    private_quantile : Pure eps-DP quantile by the exponential mechanism.

    Notes
    -----
    Local sensitivity (replace-one neighbours, m public): clipping to the public domain maps
    neighbours to neighbours. With x_(i) = lower for i < 1 and upper for i > m, changing
    k rows moves x_(r) at most to the window [x_(r-k-1), x_(r+k+1)], so the local
    sensitivity at distance k is A_k = max_{0<=t<=k+1} x_(r+t) - x_(r+t-k-1) (NRS 2007,
    Proposition 3.4, whose proof uses only the rank r), and S*_b = max_k exp(-b k) A_k is
    b-smooth (S*_b(x') <= e^b S*_b(x) for neighbours) and >= LS(x)
    (:func:`quantile_smooth_sensitivity`, computed with relative error below 2^-45).

    Floating-point-safe release (Mironov 2012). All grids are fixed by public facts
    (W = upper - lower, eps, delta); beta = :func:`smooth_beta` (eps, delta):

    1. V = max(S^(1 + 2^-40) + 2 gamma, S_min) with S^ the computed S*_{beta (1 - 2^-12)},
       gamma = 2^(floor(log2(4 W e^beta / eps)) - 50) and S_min = W e^beta max(2^-35/beta,
       2^-30). V is within a factor (1 +- 2^-44) of its exact counterpart, which is
       beta(1 - 2^-12)-smooth (a maximum of a smooth function plus a constant and of a
       constant) and >= S* + 2 gamma, so V >= LS + gamma and
       V(x') <= exp(beta (1 - 2^-12) + 3 2^-44) V(x).
    2. V is rounded UP onto the geometric grid G(L) = W exp(beta (1 - 2^-13) L) (its
       computed ratios are within 120 ulp of exp(beta (1 - 2^-13)), above the smoothness
       factor of step 1 since beta 2^-13 >= 2^-37): L(x) = min{L : G(L) >= V(x)}, hence
       abs(L(x) - L(x')) <= 1 for neighbours. The integer noise scale is
       t = ceil(2 G(L) / (eps gamma) (1 + 2^-50)) >= 2 V / (eps gamma), so
       t >= 2 (LS + gamma) / (eps gamma), t >= max(2^14/beta, 2^19) and t < 2^50 + 1;
       consecutive levels have t(L + 1) / t(L) <= exp(beta (1 - 2^-13)) (1 + 120 ulp)
       (1 + 1/t) <= e^beta.
    3. Release a + K with a = round(x_(r) / gamma) (exact: gamma is a power of two),
       K ~ P(k) = tanh(1/(2t)) exp(-abs(k)/t) drawn exactly (:func:`dppca.privacy.discrete.discrete_laplace`),
       then fl(gamma (a + K)) (one correctly rounded operation) clamped to [lower, upper]:
       post-processing of the integer release.

    Privacy of step 3 (the sliding and dilation arguments of NRS 2007, Lemmas 2.5-2.6, done
    directly for the discrete law). For neighbours x, x' with scales t, t' and centres a, a':
    abs(a - a') <= (abs(x_(r) - x'_(r)) + gamma) / gamma <= (LS + gamma) / gamma at both x and x',
    so abs(a - a') / t <= eps/2 and abs(a - a') / t' <= eps/2. For an output y,
    ln P_x(y) / P_x'(y) <= ln(tanh(1/2t) / tanh(1/2t')) + abs(y - a) (1/t' - 1/t) + abs(a - a') / t'.
    If t' >= t: tanh(u)/u decreases, so the first term is <= ln(t'/t) <= beta, the second
    <= 0, total <= beta + eps/2 <= eps. If t' < t (t' >= e^-beta t): the first term is <= 0,
    and the second is <= eps/2 unless abs(y - a) > c t with c = (eps/2) / (e^beta - 1)
    >= ln(1/delta) + 2^-20 (definition of beta), an event of probability
    2 q^(floor(c t) + 1) / (1 + q) <= (1 + 1/(2t)) e^-c <= delta under x (q = e^(-1/t),
    t >= 2^19). Hence P_x(A) <= e^eps P_x'(A) + delta for every set A: (eps, delta)-DP.

    References
    ----------
    Nissim, K., Raskhodnikova, S. and Smith, A. (2007). Smooth sensitivity and sampling in
    private data analysis. STOC 2007, Sections 2-3.
    Mironov, I. (2012). On significance of the least significant bits for differential privacy. CCS.
    Canonne, C., Kamath, G. and Steinke, T. (2020). The discrete Gaussian for differential
    privacy. NeurIPS, Algorithm 2 (exact discrete Laplace).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import smooth_sensitivity_quantile
    >>> from dppca.privacy.smooth import smooth_release_grid
    >>> x = np.random.default_rng(0).normal(size=501)
    >>> value = smooth_sensitivity_quantile(x, 0.5, 1.0, 1e-5, np.random.default_rng(1), -8.0, 8.0)
    >>> gamma = smooth_release_grid(1.0, 1e-5, -8.0, 8.0)[0]
    >>> bool(abs(value - np.median(x)) < 0.5), value / gamma == round(value / gamma)
    (True, True)
    """
    q = float_arg(q, "q", open_unit=True)
    eps, delta = eps_arg(eps), delta_arg(delta)
    lower, upper = _domain(lower, upper)
    xs = np.sort(np.clip(_finite_values(x), lower, upper))
    rank = min(xs.size, max(1, math.ceil(q * xs.size)))
    beta = smooth_beta(eps, delta)
    if is_exact():
        noisy, mechanism = _discrete_release(xs, rank, eps, delta, rng, lower, upper), \
            "discrete Laplace (smooth sensitivity)"
    else:
        sensitivity = quantile_smooth_sensitivity(xs, rank, beta, lower, upper)
        noisy = float(xs[rank - 1] + laplace_noise(2.0 * sensitivity / eps, None, rng))
        mechanism = "Laplace (smooth sensitivity, numpy sampler)"
    if ledger is not None:
        ledger.record(step, mechanism, np.nan, f"smooth, beta={beta:.3g}", np.nan, eps, delta)
    return noisy


def smooth_beta(eps: float, delta: float) -> float:
    """Smoothing parameter beta of an (eps, delta)-DP smooth-sensitivity Laplace release.

    beta = min(eps / (2 ln(2/delta)), ln(1 + eps / (2 (ln(1/delta) + 2^-20)))): the first is
    NRS 2007's constant (Example 2, alpha = eps/2), the second what the direct proof of
    :func:`smooth_sensitivity_quantile` needs; the first is the smaller for eps <= about 1.4.

    Examples
    --------
    >>> round(smooth_beta(1.0, 1e-5), 5)
    0.04096
    """
    return min(eps / (2.0 * math.log(2.0 / delta)),
               math.log1p(eps / (2.0 * (math.log(1.0 / delta) + 2.0 ** -20))))


def smooth_release_grid(eps: float, delta: float, lower: float, upper: float) -> tuple[float, float, float]:
    """Public grid of :func:`smooth_sensitivity_quantile`: (gamma, S_min, beta) (Notes there).

    Raises
    ------
    DPPCAValueError
        For a domain width that overflows or is below 2^-800, or beta below 2^-24.

    Examples
    --------
    >>> gamma, s_min, beta = smooth_release_grid(1.0, 1e-5, -1.0, 1.0)
    >>> gamma == 2.0 ** -47, s_min < 1e-8
    (True, True)
    """
    beta = smooth_beta(eps, delta)
    if beta < _MIN_BETA:
        raise DPPCAValueError(f"`eps` = {eps:g} with `delta` = {delta:g} gives a smoothing parameter "
                              f"beta = {beta:.3g} below 2^-24; use eps >= 1e-6")
    width = upper - lower
    scale = 4.0 * width * math.exp(beta) / eps
    if not (math.isfinite(scale) and width >= 2.0 ** -800):
        raise DPPCAValueError(f"`upper` - `lower` must be finite and at least 2^-800 (with eps = {eps:g}); "
                              f"got {width!r}")
    gamma = grid_width(scale, _GRID_BITS)
    s_min = width * math.exp(beta) * max(2.0 ** -35 / beta, 2.0 ** -30)
    return gamma, s_min, beta


def _discrete_release(xs, rank, eps, delta, rng, lower, upper) -> float:
    """Step 3 of :func:`smooth_sensitivity_quantile`'s Notes."""
    gamma, t = smooth_noise_scale(xs, rank, eps, delta, lower, upper)
    k = discrete_laplace(t, 1, rng)
    noisy = exact_sum(snap(np.array([xs[rank - 1]]), gamma), k, gamma)[0]
    return float(min(max(noisy, lower), upper))


def smooth_noise_scale(xs: np.ndarray, rank: int, eps: float, delta: float, lower: float,
                       upper: float) -> tuple[float, int]:
    """Grid gamma and integer noise scale t of :func:`smooth_sensitivity_quantile` (steps 1-2).

    Parameters
    ----------
    xs : ndarray, shape (m,)
        Sorted values inside [lower, upper].
    rank : int
        1-based rank of the released order statistic.
    eps, delta : float
        Budget of the release (validated by the caller).
    lower, upper : float
        The public domain.

    Returns
    -------
    (gamma, t) : (float, int)
        The release is gamma (round(x_(rank)/gamma) + K), K discrete Laplace of scale t: its
        noise scale in the units of x is t gamma >= 2 S*/eps, and t is e^beta-smooth
        (t(x') / t(x) in [e^-beta, e^beta] for neighbours).

    Examples
    --------
    >>> import numpy as np
    >>> xs = np.linspace(-1.0, 1.0, 101)
    >>> gamma, t = smooth_noise_scale(xs, 51, 1.0, 1e-5, -2.0, 2.0)
    >>> s_star = quantile_smooth_sensitivity(xs, 51, smooth_beta(1.0, 1e-5), -2.0, 2.0)
    >>> bool(2 * s_star <= t * gamma <= 2 * s_star * np.exp(smooth_beta(1.0, 1e-5)))
    True
    """
    gamma, s_min, beta = smooth_release_grid(eps, delta, lower, upper)
    width = upper - lower
    smooth = quantile_smooth_sensitivity(xs, rank, beta * (1.0 - _SMOOTH_MARGIN), lower, upper)
    bound = max(smooth * (1.0 + _S_INFLATION) + 2.0 * gamma, s_min)
    step = beta * (1.0 - _GRID_MARGIN)
    level = math.ceil(math.log(bound / width) / step)
    while _grid_value(width, step, level - 1) >= bound:
        level -= 1
    while _grid_value(width, step, level) < bound:
        level += 1
    return gamma, math.ceil(2.0 * _grid_value(width, step, level) / (eps * gamma) * (1.0 + 2.0 ** -50))


def _grid_value(width: float, step: float, level: int) -> float:
    """G(L) = W exp(step L), the geometric grid of noise scales (a fixed float function of L)."""
    return width * math.exp(step * level)


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
    its Observation S1), tested against it.

    Floating point: the lines are written relative to the released value c = x_(r), so every
    evaluated candidate is a_i ((x_j - c) + (c - x_i)), a product of sums of non-negative
    terms (no cancellation, whatever the offset of the data): relative error a few ulp. The
    envelope (built from rounded breakpoints) is only used to pick lines; each query also
    evaluates the 2 lines either side of the one picked, so a breakpoint misplaced by rounding
    changes the result by a few ulp relative, not more (the bound 2^-45 used by
    :func:`smooth_sensitivity_quantile`). The floor keeps S* beta-smooth (the maximum of a
    beta-smooth function and a constant is beta-smooth) and an upper bound.
    """
    centre = xs[rank - 1]
    padded = np.concatenate(([lower], xs, [upper]))
    left = np.arange(rank + 1)
    slopes = np.exp(-beta * (rank - left))
    left = left[slopes > 0]  # lines that underflow to 0 contribute 0
    slopes = slopes[slopes > 0]
    below = centre - padded[left]  # >= 0: distances below the released order statistic
    above = padded[rank:] - centre  # >= 0: distances above it
    hull = _upper_envelope(slopes, slopes * below)
    weights = np.exp(-beta * np.arange(above.size))
    best = _envelope_lines(hull, slopes, slopes * below, above)
    candidates = np.clip(best[:, None] + np.arange(-_NEIGHBOUR_LINES, _NEIGHBOUR_LINES + 1), 0, hull.size - 1)
    lines = hull[candidates]
    values = slopes[lines] * (above[:, None] + below[lines])  # sums of non-negative terms
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

__all__ = ["quantile_smooth_sensitivity", "smooth_beta", "smooth_noise_scale",
           "smooth_release_grid", "smooth_sensitivity_quantile"]
