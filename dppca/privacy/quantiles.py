"""Private quantiles by the exponential mechanism with the rank utility.

Under replace-one neighbours, the number of values below any fixed threshold
changes by at most 1, so the utility u(c) = -| #{x_i <= c} - q m | has
sensitivity 1 and the exponential mechanism over candidates c is eps-DP
(Smith 2011, "Privacy-preserving statistical estimation with optimal convergence
rates", Section 3; McSherry & Talwar 2007).

Under add/remove neighbours (n private) the target q m must not read m: the searches take a
public ``count`` instead (the released noisy n, :mod:`dppca.privacy.neighbouring`), and adding
or removing one value changes every count #{x_i <= c} by at most 1, all in the same direction,
so each proof below holds unchanged with q m replaced by q ``count``.

The quantiles of many columns from one joint noisy histogram live in
:mod:`dppca.privacy.histograms`; their names are re-exported here.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError, eps_arg, float_arg
from .budget import Ledger
# The joint-histogram quantiles of many columns, re-exported from their own module.
from .histograms import (HISTOGRAM_THRESHOLD_SD, dp_histogram_counts, dp_histogram_quantiles,
                         histogram_counts)
from .mechanisms import exponential_mechanism
from .samplers import exponential_noise

#: Geometric grid used when the scale of a positive quantity is unknown: 2^-48 .. 2^48, ratio 2^(1/4).
#: Few candidates keep the mass of the candidates beyond the data small (it grows with their number).
LOG2_GRID = 2.0 ** np.arange(-48.0, 48.0 + 1e-9, 0.25)


def private_quantile(x, q, eps, rng, lower, upper, *, ledger: Ledger | None = None,
                     step="quantile", count: float | None = None) -> float:
    """Private (eps-DP) q-quantile of ``x`` on the public interval [lower, upper], O(m log m).

    Parameters
    ----------
    x : array_like, shape (m,)
        Values; those outside [lower, upper] are clipped to it (clipping one value is
        still a change of one value, so the sensitivity argument holds).
    q : float
        Quantile level in [0, 1].
    eps : float
        Budget of this release (pure eps-DP).
    rng : numpy.random.Generator
        Source of the randomness (the exponential mechanism's Gumbel noise).
    lower, upper : float
        Public bounds, lower < upper.
    ledger, step : Ledger or None, str
        The ledger that records the release, and the release's name on it.
    count : float, optional
        The public number of values the target rank q m is taken of: None (replace-one, m
        public) uses m = len(x); add/remove neighbours pass the released noisy count (see
        Notes).

    Returns
    -------
    float
        A point of the public grid lower + gamma k, gamma = 2^(floor(log2(upper - lower)) - 40),
        drawn uniformly inside an interval between consecutive sorted (grid-rounded) values,
        the interval chosen with probability proportional to length * exp(eps u / 2),
        u = -abs(rank - q m) (Smith 2011). Sensitivity of u: 1 (replace-one).

    Raises
    ------
    DPPCAValueError
        If lower >= upper or q is outside [0, 1].

    See Also
    --------
    private_quantile_grid : The same utility over public candidate values (no range needed).
    smooth_sensitivity_quantile : (eps, delta)-DP, more accurate for dense data.
    unbounded_quantile : No public range, by the sparse vector technique.

    Notes
    -----
    Floating point: each value is clipped and rounded down to the public grid (a map of each
    value alone, so a replaced row still changes one value), interval lengths are integers
    (numbers of grid points) and the output is the grid point lower + gamma k for an integer k
    drawn uniformly (``rng.integers``): a function of k alone, so the output's low bits carry
    nothing about the data (Mironov 2012), and the mechanism is the exponential mechanism over
    the finite grid, pure eps-DP exactly.

    Add/remove neighbours (``count`` given): the utility is ``-|rank(c) - q count|`` with
    ``count`` public (post-processing of a released count). Adding or removing one value
    changes every grid point's rank #{x_i <= c} by at most 1, so the utility's sensitivity is
    still 1 and the release is eps-DP under add/remove neighbours; the grid depends on the
    public ``lower``, ``upper`` only. Accuracy: with count = m + e the target rank moves by
    q e, i.e. the level by q e / m.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import private_quantile
    >>> x = np.arange(1.0, 101.0)
    >>> median = private_quantile(x, 0.5, eps=1.0, rng=np.random.default_rng(0), lower=0, upper=200)
    >>> bool(30 < median < 70)
    True
    """
    q = float_arg(q, "q", closed_unit=True)
    eps = eps_arg(eps)
    if not float(lower) < float(upper):
        raise DPPCAValueError(f"`lower` must be smaller than `upper`; got {lower} and {upper}")
    lower, upper = float(lower), float(upper)
    gamma = math.ldexp(1.0, math.frexp(upper - lower)[1] - 41)  # 2^(floor(log2 width) - 40)
    top = math.ceil((upper - lower) / gamma)  # <= 2^41 grid steps: integers exact in float64
    steps = np.floor((np.clip(np.asarray(x, float), lower, upper) - lower) / gamma)
    z = np.concatenate(([0.0], np.sort(np.minimum(steps, top)), [float(top)]))
    m = z.size - 2
    with np.errstate(divide="ignore"):
        log_length = np.log(np.diff(z))
    utility = -np.abs(np.arange(m + 1) - q * (m if count is None else float(count)))
    i = exponential_mechanism(log_length, utility, 1.0, eps, rng)
    if ledger is not None:
        ledger.record(step, "exponential (rank utility)", 1.0, "rank", np.nan, eps, 0.0)
    k = int(rng.integers(int(z[i]), int(z[i + 1])))
    return min(lower + gamma * k, upper)


def private_quantile_grid(x, q, eps, rng, grid=LOG2_GRID, *, ledger: Ledger | None = None,
                          step="quantile", decay=0.0) -> float:
    """Private (eps-DP) q-quantile of ``x`` chosen among the public candidate values ``grid``.

    For quantities with no public range (scales, norms): the default grid is
    geometric, 2^-48 .. 2^48 with ratio 2^(1/4), so the answer is within a factor
    2^(1/4) of a point whose rank is within O(log(len(grid)) / eps) of q m.
    Keep q away from 0 and 1: the candidates beyond the data have utility -(1-q) m
    (or -q m), and they are many.
    Utility u(c) = -abs(#{x_i <= c} - q m), sensitivity 1 (replace-one), equal base measure.

    Parameters
    ----------
    x : array_like, shape (m,)
        Values.
    q : float
        Quantile level in [0, 1] (best away from 0 and 1).
    eps : float
        Budget of this release (pure eps-DP), > 0.
    rng : numpy.random.Generator
        Source of the randomness (the exponential mechanism's Gumbel noise).
    grid : array_like, shape (g,)
        Public candidate values (default ``LOG2_GRID``).
    ledger : Ledger, optional
        Where the release is recorded.
    step : str
        Label for the ledger.
    decay : float, default 0
        A public base measure exp(-decay i) over the candidates i = 0, 1, ...: ties (a
        quantile on an atom of the data, where every candidate above it has the same utility)
        go to the smallest candidates instead of uniformly up to 2^48. Data-independent, so
        the sensitivity and the guarantee are unchanged.

    Returns
    -------
    float
        One of the grid values.

    See Also
    --------
    private_quantile : The same utility on a public interval.
    unbounded_quantile : A finer scale-free grid, by the sparse vector technique.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import private_quantile_grid
    >>> x = np.arange(1.0, 101.0)
    >>> median = private_quantile_grid(x, 0.5, eps=1.0, rng=np.random.default_rng(0))
    >>> bool(30 < median < 70), bool(np.log2(median) * 4 == round(np.log2(median) * 4))
    (True, True)
    """
    q = float_arg(q, "q", closed_unit=True)
    eps = eps_arg(eps)
    grid = np.asarray(grid, float)
    xs = np.sort(np.asarray(x, float))
    utility = -np.abs(np.searchsorted(xs, grid, side="right") - q * xs.size)
    base = -float(decay) * np.arange(grid.size)
    i = exponential_mechanism(base, utility, 1.0, eps, rng)
    if ledger is not None:
        ledger.record(step, "exponential (rank utility)", 1.0, "rank", np.nan, eps, 0.0)
    return float(grid[i])


#: Candidates of :func:`unbounded_quantile`: 2^-64 .. 2^64 with ratio 1.01 (8,918 points), so the
#: answer is within 1% of a candidate whatever the scale of the data (no public range needed).
UNBOUNDED_GRID = 2.0 ** -64 * 1.01 ** np.arange(int(np.ceil(128 * np.log(2) / np.log(1.01))) + 1)
#: Candidates examined per vectorised step (same draws for the same seed).
_UNBOUNDED_CHUNK = 1024


def unbounded_quantile(x, q, eps, rng, *, grid=UNBOUNDED_GRID, ledger: Ledger | None = None,
                       step="quantile", count: float | None = None) -> float:
    """Private (eps-DP) upper q-quantile of non-negative values with no public range, O(m log m).

    The sparse-vector ("AboveThreshold") search of Durfee (2023) with one-sided exponential
    noise, as in Algorithm 3 of the R package (reference r-dppca-score.md §3.2): walk up the
    increasing public candidates t_0 < t_1 < ... and stop at the first i with
    #{x_j <= t_i} + E_i > q m + E_0, E_0 ~ Exp(rate eps/2), E_i ~ Exp(rate eps/2).

    Parameters
    ----------
    x : array_like, shape (m,)
        Values (distances, norms); m >= 1 is public. Negative values count below every candidate.
    q : float
        Quantile level in (0, 1).
    eps : float
        Budget of this release (pure eps-DP), half on the threshold and half on the queries.
    rng : numpy.random.Generator
        Source of the exponential noise (drawn through :mod:`dppca.privacy.samplers`).
    grid : ndarray, increasing
        Public candidates; the default is geometric, 2^-64 .. 2^64 with ratio 1.01, which makes
        the answer scale-free (the R package's grid 1.001^i - 1 is additive near 0, its
        Observation B7).
    ledger : Ledger, optional
        Records the release under the name ``step``.
    step : str, default "quantile"
        Name of the release: the ledger's step column, e.g. "frame: radius".
    count : float, optional
        The public number the target q m is taken of: None (replace-one, m public) uses
        m = len(x); add/remove neighbours pass the released noisy count (see Notes).

    Returns
    -------
    float
        The candidate where the search stopped (the last candidate if it never stopped).
        Typically the rank of the answer is q m - O(log(#candidates near it) / eps).

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Empty or non-finite ``x``, q outside (0, 1), eps <= 0.

    See Also
    --------
    unbounded_quantile_between : The R package's grid, with caps.
    private_quantile : When a public range is known.

    Notes
    -----
    Privacy (replace-one, m public). The queries c_i = #{x_j <= t_i} change by at most 1,
    and in the same direction for every i (moving one value up lowers the counts between
    its old and new value, nothing else), i.e. they are monotone. Let D have counts c and
    D' counts c + d with d_i in {0, 1} (the other case is symmetric). Write
    P_D(stop at k) = int p(z) prod_{i<k} P(c_i + E_i <= qm + z) P(c_k + E_k > qm + z) dz.
    (a) Substituting z -> z + 1 in the integral for D': p(z + 1) = e^{-eps/2} p(z) for z >= 0,
    the product can only grow, and P(E >= a + 1) >= e^{-eps/2} P(E >= a) for every a, so
    P_D'(k) >= e^{-eps} P_D(k). (b) Without substitution, the product for D is at least that
    for D' and P(c_k + E_k > T) >= e^{-eps/2} P(c_k + 1 + E_k > T), so
    P_D(k) >= e^{-eps/2} P_D'(k). The same holds for "never stopped". Hence eps-DP; the
    one-sided noise is valid because the shift in (a) is towards larger z.

    Add/remove neighbours (``count`` given, public: the released noisy n). The threshold
    q count + E_0 reads no data. Adding a value x raises every c_i by d_i = 1{x <= t_i} in
    {0, 1}; removing one lowers every c_i by such a d_i: the queries move by at most 1, all in
    the same direction, which is all the proof above uses (with qm read as q count). So the
    search is eps-DP under add/remove neighbours. (With the private m in the threshold instead,
    c_i - q m would move by d_i - q, of both signs, and the monotone proof would not apply.)
    Accuracy: with count = m + e the target rank moves by q e (the level by q e / m), and
    when q e > (1 - q) m the target lies above the data, where the search stops a few
    candidates above the largest value (each candidate stops it with probability about
    exp(-eps (q count - m + E_0) / 2)).

    References
    ----------
    Durfee, D. (2023). Unbounded differentially private quantile and maximum estimation.
    NeurIPS 2023. Lyu, M., Su, D. and Li, N. (2017). Understanding the sparse vector
    technique for differential privacy. PVLDB 10(6) (monotone queries).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import unbounded_quantile
    >>> distances = np.abs(np.random.default_rng(1).standard_normal(1000))
    >>> q90 = unbounded_quantile(distances, 0.9, eps=1.0, rng=np.random.default_rng(0))
    >>> bool(1.0 < q90 < 2.5)  # the exact 0.9 quantile of abs(N(0, 1)) is 1.64
    True
    """
    q = float_arg(q, "q", open_unit=True)
    eps = eps_arg(eps)
    xs = np.sort(np.asarray(x, dtype=float).reshape(-1))
    if xs.size == 0 or not np.isfinite(xs).all():
        raise DPPCAValueError("`x` must be a non-empty array of finite values")
    target = q * (xs.size if count is None else float(count))
    threshold = target + exponential_noise(2.0 / eps, None, rng)
    grid = np.asarray(grid, dtype=float)
    if ledger is not None:
        ledger.record(step, "sparse vector (exponential noise)", 1.0, "count", 2.0 / eps, eps, 0.0)
    for start in range(0, grid.size, _UNBOUNDED_CHUNK):
        candidates = grid[start:start + _UNBOUNDED_CHUNK]
        counts = np.searchsorted(xs, candidates, side="right")
        above = np.flatnonzero(counts + exponential_noise(2.0 / eps, candidates.size, rng) > threshold)
        if above.size:
            return float(candidates[above[0]])
    return float(grid[-1])


def unbounded_quantile_between(x, q, eps, rng, lower, upper=np.inf, beta=1.001, *,
                               ledger: Ledger | None = None, step="quantile (R grid)") -> float:
    """Private (eps-DP) q-quantile on R's grid: :func:`unbounded_quantile` from ``lower`` or ``upper``.

    The R package's ``unbounded_quantile(data, l, u, beta, q, ...)`` (reference/r-dppca-scree.md
    §7.5-7.6): for q >= 0.5 the candidates are lower + beta^i - 1, i = 1, 2, ... (up to the
    first one >= upper) and the answer is capped at ``upper``; for q < 0.5 the search runs down
    from ``upper`` on the mirrored data, -(quantile 1 - q of -x on -upper + beta^i - 1), and is
    capped at ``lower``. Half of eps on the noisy target, half on the scan, as in R.

    Parameters
    ----------
    x : array_like, shape (m,)
        Values; m >= 1 is public.
    q : float in (0, 1)
        Quantile level.
    eps : float
        Budget (pure DP).
    rng : numpy.random.Generator
        Source of the exponential noise (drawn through :mod:`dppca.privacy.samplers`).
    lower : float
        Public start of the upward search and lower cap.
    upper : float
        Public upper cap and start of the downward search (finite when q < 0.5).
    beta : float > 1
        Grid ratio: the resolution near v is about (beta - 1)(v - lower + 1), additive near
        ``lower`` (R's grid; :func:`unbounded_quantile`'s default grid is scale-free).
    ledger : Ledger or None
        As in :func:`unbounded_quantile`; one ledger row for the whole scan.
    step : str
        The row's name (default "quantile (R grid)").

    Returns
    -------
    float
        The released quantile, in [lower, upper].

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        As in :func:`unbounded_quantile`; beta <= 1; q < 0.5 with an infinite ``upper``.

    See Also
    --------
    unbounded_quantile : The search, on a scale-free grid.

    Notes
    -----
    Privacy: that of :func:`unbounded_quantile` (the grid is public, the caps post-processing).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import unbounded_quantile_between
    >>> x = np.arange(1.0, 101.0)
    >>> q90 = unbounded_quantile_between(x, 0.9, 1.0, np.random.default_rng(0), lower=0.0, upper=200.0)
    >>> q10 = unbounded_quantile_between(x, 0.1, 1.0, np.random.default_rng(0), lower=0.0, upper=200.0)
    >>> bool(0 <= q10 < q90 <= 200)
    True
    """
    q = float_arg(q, "q", open_unit=True)
    beta = float_arg(beta, "beta")
    if not beta > 1:
        raise DPPCAValueError(f"`beta` must be a finite number > 1; got {beta}")
    values = np.asarray(x, float)
    if q >= 0.5:
        grid = lower + _r_grid(beta, upper - lower)
        return min(unbounded_quantile(values, q, eps, rng, grid=grid, ledger=ledger, step=step), upper)
    if not np.isfinite(upper):
        raise DPPCAValueError("a lower-tail quantile needs a finite `upper` to search down from")
    grid = -upper + _r_grid(beta, upper - lower)
    return max(-unbounded_quantile(-values, 1 - q, eps, rng, grid=grid, ledger=ledger, step=step),
               lower)


def _r_grid(beta, span) -> np.ndarray:
    """beta^i - 1, i = 1, 2, ..., up to the first point >= span (or the largest finite double)."""
    reach = min(span, np.finfo(float).max / 2) + 1
    count = int(np.ceil(np.log(max(reach, beta)) / np.log(beta))) + 1
    with np.errstate(over="ignore"):
        grid = beta ** np.arange(1.0, count + 1) - 1
    return grid[np.isfinite(grid)]


__all__ = ["HISTOGRAM_THRESHOLD_SD", "dp_histogram_counts", "dp_histogram_quantiles",
           "histogram_counts", "private_quantile", "private_quantile_grid", "unbounded_quantile",
           "unbounded_quantile_between"]
