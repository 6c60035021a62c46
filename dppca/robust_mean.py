"""Private means of squared pair differences: the estimators behind :func:`dppca.dp_scree`.

For a direction v, the projected scores y_i = v^T x_i have sample variance

    s^2 = 2/(n(n-1)) sum_{i<j} u_ij,        u_ij = (y_i - y_j)^2 / 2,

a U-statistic that does not involve the sample mean. Every estimator here works on the
pair values u_ij (or on the disjoint-pair values w_i = u_{pi(i), pi(i+m)}, m = floor(n/2),
for a random pairing pi), never on scores centred by their sample mean: one replaced row
moves the sample mean, hence every centred score, by an unbounded amount, which is why
the R package's sensitivities do not hold (reference/r-dppca-scree.md §15.1 item 1).

Neighbours differ in one row (replace-one, n public). Two facts give every sensitivity:

* U-statistic: replacing row r changes only the n - 1 pairs (r, j); if each pair term lies
  in an interval of width W, the U-statistic 2/(n(n-1)) sum_{i<j} h_ij moves by at most
  2 (n-1) W / (n(n-1)) = 2 W / n.
* Disjoint pairs: replacing row r changes exactly one of the m pair values w_i (the pairing
  is drawn from ``rng``, independently of the data), so a mean of w's clamped to an interval
  of width W moves by at most W / m, and each count of a histogram of the w's by at most 1.

The k components are released jointly: each coordinate is normalised to sensitivity
2/n (or 1/m), so the k-vector has L2 sensitivity sqrt(k) times that, and one Gaussian
mechanism covers all k (cheaper than splitting (eps, delta) over k releases, which the
R package does; the ledger records one release with its L2 sensitivity).

References
----------
Hoeffding, W. (1948). A class of statistics with asymptotically normal distribution.
Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for differential privacy.
Dong, J., Roth, A. and Su, W. (2022). Gaussian differential privacy. JRSS-B (composition of
Gaussian mechanisms, Corollary 3.3).
Yu, Ren and Zhou (2024). Gaussian differentially private robust mean estimation and inference
(noisy gradient descent on the Huber loss).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validation import DPPCAValueError
from .privacy import Ledger, gaussian_sigma, laplace_mechanism
from .privacy.samplers import add_gaussian_noise


@dataclass(frozen=True)
class MeanRelease:
    """Private estimates of the k pair means (scree values, or one trace).

    Attributes
    ----------
    estimate : ndarray, shape (k,)
        Noisy estimates, in the units of the data squared (variances). Not clipped at 0.
    noise_sd : ndarray, shape (k,)
        Standard deviation of the added noise of each estimate (exact for the clipped and
        winsorized means; for Huber, the noise of the last gradient step, an approximation).
    lower, upper : ndarray, shape (k,)
        The clamp interval used for the pair values of each component.
    """

    estimate: np.ndarray
    noise_sd: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


class GaussianGroup:
    """One (eps, delta) budget shared by several Gaussian mechanisms, composed as Gaussian DP.

    A Gaussian mechanism with L2 sensitivity D and noise sd sigma is (D/sigma)-GDP; adaptive
    composition of mu_i-GDP mechanisms is sqrt(sum mu_i^2)-GDP (Dong, Roth and Su 2022,
    Cor. 3.3); and mu-GDP holds exactly when the Gaussian mechanism with D/sigma = mu is
    (eps, delta)-DP. So the group has mu = 1/gaussian_sigma(1, eps, delta) and releases whose
    shares a_i = (D_i/sigma_i)^2 / mu^2 sum to at most 1 are together (eps, delta)-DP. This is
    much cheaper than splitting eps and delta (basic composition): two halves of (1, 1e-5) give
    each release mu^2 = 0.0185, while GDP shares give each 0.0359. With ``calibration="classic"``,
    mu = eps / sqrt(2 ln(1.25/delta)), which is (eps, delta)-DP for eps < 1 (Dwork and Roth 2014,
    Thm A.1, applied to the equivalent single Gaussian mechanism).

    The ledger rows of a group carry eps and delta columns equal to share x (eps, delta): an
    accounting of the group total, not the guarantee of each release alone.

    Parameters
    ----------
    eps, delta : float
        Budget of the whole group.
    calibration : {"analytic", "classic"}
    """

    def __init__(self, eps, delta, calibration="analytic"):
        self.eps, self.delta, self.calibration = float(eps), float(delta), calibration
        self.mu = 1.0 / gaussian_sigma(1.0, eps, delta, calibration)

    def share(self, fraction) -> "GaussianShare":
        """The budget of one release that gets ``fraction`` of mu^2."""
        return GaussianShare(self, float(fraction))

    def standalone(self, fraction) -> tuple[float, float]:
        """(eps_a, delta_a) whose Gaussian calibration gives mu_a = sqrt(fraction) mu.

        For handing a share to a function that calibrates its own Gaussian noise from (eps, delta)
        (e.g. :func:`dppca.dp_pc_dir`); its releases are then re-recorded with :meth:`absorb`.
        delta_a = fraction x delta; eps_a solves the mu_a-GDP privacy profile at delta_a.
        """
        mu_a = math.sqrt(fraction) * self.mu
        delta_a = fraction * self.delta
        if self.calibration == "classic":
            return mu_a * math.sqrt(2 * math.log(1.25 / delta_a)), delta_a
        return _gdp_epsilon(mu_a, delta_a), delta_a

    def fraction_of(self, sensitivity, sigma) -> float:
        """Share of mu^2 used by a Gaussian release with this sensitivity and noise sd."""
        return (sensitivity / sigma) ** 2 / self.mu ** 2

    def absorb(self, releases, ledger) -> float:
        """Record Gaussian ``releases`` (from another ledger) as shares of this group; total share.

        Raises
        ------
        DPPCAValueError
            If a release is not Gaussian, or the releases need the whole group budget or more.
        """
        releases = list(releases)
        for release in releases:
            if not release.mechanism.startswith("Gaussian"):
                raise DPPCAValueError(f"release {release.step!r} is not Gaussian and cannot join a "
                                      "Gaussian-DP group")
        fractions = [self.fraction_of(r.sensitivity, r.noise_scale) for r in releases]
        if sum(fractions) >= 1:
            raise DPPCAValueError(f"releases {[r.step for r in releases]} already need the whole "
                                  f"budget (eps={self.eps:g}, delta={self.delta:g}) in Gaussian-DP "
                                  "terms; give a larger budget")
        for release, fraction in zip(releases, fractions):
            self.share(fraction).record(ledger, release.step, release.sensitivity,
                                        release.noise_scale, norm=release.norm)
        return float(sum(fractions))


def _gdp_epsilon(mu, delta) -> float:
    """The eps at which mu-GDP gives delta: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    def excess(eps):
        return math.exp(log_ndtr(-eps / mu + mu / 2)) - math.exp(eps + log_ndtr(-eps / mu - mu / 2)) - delta

    high = 1.0
    while excess(high) > 0:
        high *= 2
    return brentq(excess, 0.0, high, xtol=1e-12, rtol=1e-12) if excess(0.0) > 0 else 0.0


@dataclass(frozen=True)
class GaussianShare:
    """A fraction of a :class:`GaussianGroup`'s mu^2, for one release."""

    group: GaussianGroup
    fraction: float

    def sigma(self, sensitivity: float) -> float:
        """Noise sd for a statistic with this L2 sensitivity: mu_release = sqrt(fraction) mu."""
        if not self.fraction > 0:
            raise DPPCAValueError(f"a Gaussian release needs a positive share of the budget; got "
                                  f"{self.fraction}")
        return sensitivity / (math.sqrt(self.fraction) * self.group.mu)

    def release(self, value, sensitivity, rng, ledger, step):
        """``value + N(0, sigma^2 I)``, recorded on ``ledger``; returns (noisy, sigma)."""
        sigma = self.sigma(sensitivity)
        noisy, sigma = add_gaussian_noise(value, sigma, sensitivity, rng)
        self.record(ledger, step, sensitivity, sigma)
        return noisy, sigma

    def record(self, ledger, step, sensitivity, sigma, norm="L2") -> None:
        if ledger is not None:
            group = self.group
            ledger.record(step, f"Gaussian ({group.calibration}), GDP share {self.fraction:.1%}",
                          sensitivity, norm, sigma, group.eps * self.fraction,
                          group.delta * self.fraction)


# --------------------------------------------------------------------------- pair statistics

def pair_clamped_means(scores, lower, upper) -> np.ndarray:
    """Exact U-statistics 2/(n(n-1)) sum_{i<j} clamp((y_i - y_j)^2 / 2; lower, upper), per column.

    O(n log n) per column: sort the scores; for each j the partners i < j whose difference
    falls below, inside or above the clamp interval form three contiguous runs, found with
    ``searchsorted``; the sum of squared differences over the middle run comes from prefix
    sums. With ``lower <= 0`` and ``upper = inf`` this is the sample variance (n - 1).

    Parameters
    ----------
    scores : ndarray, shape (n, k)
        Projected scores, n >= 2.
    lower, upper : float or ndarray of shape (k,)
        Clamp interval of the pair values (units of scores squared); lower <= upper.

    Returns
    -------
    ndarray, shape (k,)
    """
    scores = np.asarray(scores, float)
    if scores.ndim == 1:
        scores = scores[:, None]
    k = scores.shape[1]
    lower = np.broadcast_to(np.asarray(lower, float), (k,))
    upper = np.broadcast_to(np.asarray(upper, float), (k,))
    return np.array([_clamped_pair_mean(scores[:, j], lower[j], upper[j]) for j in range(k)])


def _clamped_pair_mean(y: np.ndarray, lower: float, upper: float) -> float:
    n = y.size
    if upper <= 0:  # every u >= 0 >= upper is clamped to upper
        return float(upper)
    lower = max(lower, 0.0)
    y = np.sort(y - np.median(y))  # shift invariance; centring reduces cancellation
    s1 = np.concatenate(([0.0], np.cumsum(y)))
    s2 = np.concatenate(([0.0], np.cumsum(y * y)))
    j = np.arange(n)
    # partners i < j with y_j - y_i < sqrt(2 lower) (pair value below `lower`) start at `near`;
    # those with y_j - y_i > sqrt(2 upper) (above `upper`) end before `far`.
    near = np.minimum(np.searchsorted(y, y - math.sqrt(2 * lower), side="right"), j)
    far = np.minimum(np.searchsorted(y, y - math.sqrt(2 * upper), side="left"), near) \
        if math.isfinite(upper) else np.zeros(n, dtype=np.int64)
    count = near - far
    middle = 0.5 * (count * y * y - 2 * y * (s1[near] - s1[far]) + (s2[near] - s2[far]))
    total = lower * np.sum(j - near) + (upper * np.sum(far) if math.isfinite(upper) else 0.0) \
        + np.sum(np.maximum(middle, 0.0))
    return float(total / (n * (n - 1) / 2))


def paired_squares(scores, pairs) -> np.ndarray:
    """w_i = (y_a - y_b)^2 / 2 for each pair (a, b): shape (m, k), E[w] = Var(y)."""
    scores = np.asarray(scores, float)
    first, second = pairs
    return (scores[first] - scores[second]) ** 2 / 2.0


# --------------------------------------------------------------------------- mean estimators

def dp_clipped_mean(scores, clip, noise: GaussianShare, rng, *, ledger: Ledger | None = None,
                    step="scree: clipped pair means") -> MeanRelease:
    """Private clipped pair means: U-statistics of min(u_ij, C_l), one per column, released jointly.

    Parameters
    ----------
    scores : ndarray, shape (n, k)
        Projected scores.
    clip : float or ndarray of shape (k,)
        Thresholds C_l > 0 (units of scores squared), public or private.
    noise : GaussianShare
        Budget of this release.
    rng : numpy.random.Generator
    ledger : Ledger, optional
    step : str
        Ledger label.

    Returns
    -------
    MeanRelease
        estimate_l = C_l (U_l / C_l + Z_l), noise sd C_l sigma.

    Notes
    -----
    Privacy: each pair term min(u, C_l) / C_l lies in [0, 1], so each normalised U-statistic
    moves by at most 2/n when one row is replaced (module docstring) and the k-vector by at
    most 2 sqrt(k)/n in L2. The Gaussian mechanism with that sensitivity makes the vector
    private; multiplying by the (already private or public) C_l is post-processing.
    """
    scores = _as_columns(scores)
    n, k = scores.shape
    clip = _positive_vector(clip, k, "clip")
    return _release_normalised(scores, np.zeros(k), clip, noise, rng, ledger, step,
                               sensitivity=2 * math.sqrt(k) / n)


def dp_winsorized_mean(scores, lower, upper, noise: GaussianShare, rng, *,
                       ledger: Ledger | None = None,
                       step="scree: winsorized pair means") -> MeanRelease:
    """Private winsorized pair means: U-statistics of clamp(u_ij; L_l, U_l), released jointly.

    Parameters
    ----------
    scores : ndarray, shape (n, k)
    lower, upper : ndarray, shape (k,)
        Winsorization interval of each component (0 <= L_l <= U_l), public or private.
    noise, rng, ledger, step
        As in :func:`dp_clipped_mean`.

    Returns
    -------
    MeanRelease

    Notes
    -----
    Privacy: (clamp(u; L, U) - L) / (U - L) lies in [0, 1], so the normalised U-statistic has
    sensitivity 2/n per component and the vector 2 sqrt(k')/n in L2, k' the number of
    components with U_l > L_l (a component with U_l = L_l releases the constant L_l and
    needs no noise, as in the R package).
    """
    scores = _as_columns(scores)
    n, k = scores.shape
    lower = np.maximum(np.broadcast_to(np.asarray(lower, float), (k,)), 0.0)
    upper = np.broadcast_to(np.asarray(upper, float), (k,))
    if not (np.isfinite(lower).all() and np.isfinite(upper).all() and (upper >= lower).all()):
        raise DPPCAValueError(f"winsorization bounds must be finite with lower <= upper; got "
                              f"{lower.tolist()} and {upper.tolist()}")
    active = int(np.sum(upper > lower))
    return _release_normalised(scores, lower, upper, noise, rng, ledger, step,
                               sensitivity=2 * math.sqrt(max(active, 1)) / n)


def _release_normalised(scores, lower, upper, noise, rng, ledger, step, sensitivity) -> MeanRelease:
    width = upper - lower
    means = pair_clamped_means(scores, lower, upper)
    unit = np.divide(means - lower, width, out=np.zeros_like(means), where=width > 0)
    noisy, sigma = noise.release(unit, sensitivity, rng, ledger, step)
    return MeanRelease(lower + width * noisy, width * sigma, lower.copy(), upper.copy())


def dp_huber_mean(scores, tau, steps, mu0, eta0, noise: GaussianShare, rng, *,
                  ledger: Ledger | None = None,
                  step="scree: Huber noisy gradient descent") -> MeanRelease:
    """Private Huber M-estimates of the pair means by noisy gradient descent, k components jointly.

    For t = 0..T-1: mu_l <- mu_l + eta0 (g_l(mu_l) + b_tl Z_tl), with the Huber score
    g_l(mu) = 2/(n(n-1)) sum_{i<j} clamp(u_ij - mu; -tau_l, tau_l), Z_t ~ N(0, sigma^2 I_k) and
    b_tl = tau_l + min(tau_l, max(mu_l, 0)) the width of the interval the score terms can take
    (Yu, Ren and Zhou 2024; the R package's ``dp_huber_noisy_gd``, on pair values).

    Parameters
    ----------
    scores : ndarray, shape (n, k)
    tau : ndarray, shape (k,)
        Robustification thresholds > 0 (units of scores squared), public or private.
    steps : int
        Number of gradient steps T >= 1.
    mu0 : ndarray, shape (k,)
        Starting values (public or private).
    eta0 : float
        Step size > 0.
    noise, rng, ledger, step
        As in :func:`dp_clipped_mean`; ``noise`` covers all T steps.

    Returns
    -------
    MeanRelease
        ``noise_sd`` is eta0 b_Tl sigma, the noise of the last step (an approximation: with
        eta0 = 1 each step is a winsorized-mean update that damps the earlier noise).

    Notes
    -----
    Privacy: pair values are non-negative, so u - mu >= -mu and each score term lies in
    [-min(tau, max(mu, 0)), tau] (for mu < 0 in a sub-interval of [0, tau]), an interval of
    width at most b_tl that depends only on the public tau and on mu, itself post-processing
    of the earlier releases. Each g_l / b_tl therefore moves by at most 2/n when one row is
    replaced, and the k-vector by 2 sqrt(k)/n in L2: each step is a Gaussian mechanism. T
    adaptive Gaussian mechanisms with the same noise-to-sensitivity ratio compose exactly to one
    with sensitivity 2 sqrt(k T)/n (Gaussian DP, Dong, Roth and Su 2022, Cor. 3.3), so sigma is
    calibrated for that. The R package splits (eps, delta) evenly over the T steps (basic
    composition, ~sqrt(T) times more noise) and charges the full width 2 tau.
    """
    scores = _as_columns(scores)
    n, k = scores.shape
    tau = _positive_vector(tau, k, "tau")
    mu = np.array(np.broadcast_to(np.asarray(mu0, float), (k,)))
    sensitivity = 2 * math.sqrt(k * steps) / n
    sigma = noise.sigma(sensitivity)
    for _ in range(steps):
        width = tau + np.minimum(tau, np.maximum(mu, 0.0))
        gradient = pair_clamped_means(scores, mu - tau, mu + tau) - mu
        step_noisy = add_gaussian_noise(gradient / width, sigma, 2 * math.sqrt(k) / n, rng)[0]
        mu = mu + eta0 * width * step_noisy
    noise.record(ledger, f"{step} ({steps} steps, composed)", sensitivity, sigma)
    width = tau + np.minimum(tau, np.maximum(mu, 0.0))
    return MeanRelease(mu, eta0 * width * sigma, np.maximum(mu - tau, 0.0), mu + tau)


def dp_clipped_paired_mean(values, clip: float, noise: GaussianShare, rng, *,
                           ledger: Ledger | None = None, step="trace: clipped paired mean") -> tuple:
    """Private mean of min(t_i, C) over m disjoint-pair values t_i (e.g. ||x_a - x_b||^2 / 2).

    Returns
    -------
    (estimate, noise sd)

    Notes
    -----
    Privacy: a replaced row changes one pair value, so the mean of min(t, C)/C in [0, 1]
    moves by at most 1/m: Gaussian mechanism with sensitivity 1/m, then times C.
    """
    values = np.asarray(values, float)
    clip = float(_positive_vector(clip, 1, "clip")[0])
    noisy, sigma = noise.release(np.minimum(values, clip).mean() / clip, 1.0 / values.size, rng,
                                 ledger, step)
    return clip * float(noisy), clip * sigma


# --------------------------------------------------------------------------- tuning steps

def dp_log2_centre(values, noise: GaussianShare, rng, *, ledger: Ledger | None = None,
                   step="log2 histogram") -> float:
    """Private rough centre of the bulk of positive ``values``, with no reference scale.

    Counts in the log2 bins [2^b, 2^(b+1)), b = -64..63 (every double a dataset is likely to
    hold; non-positive values are not counted) are released with Gaussian noise. The window of
    ``LOG2_CENTRE_WINDOW`` adjacent bins with the largest noisy total is taken (a window holds
    the bulk even of spread-out data such as chi2_1, while its noise grows only like the root of
    its width), and the result is 2^c, c the mean bin midpoint inside it weighted by the positive
    noisy counts. Good to a factor of a few: used to anchor finer steps.

    Notes
    -----
    Privacy: a replaced row changes one value, hence at most two counts by 1: L2 sensitivity
    sqrt(2); Gaussian mechanism on all bins; the rest is post-processing.
    """
    values = np.asarray(values, float)
    low, high = LOG2_CENTRE_RANGE
    edges = 2.0 ** np.arange(low, high + 1)
    counts = np.histogram(values[values > 0], bins=edges)[0]
    noisy, _ = noise.release(counts, math.sqrt(2.0), rng, ledger, step)
    width = LOG2_CENTRE_WINDOW
    start = int(np.argmax(np.convolve(noisy, np.ones(width), mode="valid")))
    window = np.arange(start, start + width)
    weights = np.maximum(noisy[window], 0.0)
    centre = np.average(window + 0.5, weights=weights) if weights.sum() > 0 else start + width / 2
    return float(2.0 ** (low + centre))


#: Bins of :func:`dp_log2_centre`: [2^b, 2^(b+1)) for b in [-64, 64), and its window (2^5 = 32x).
LOG2_CENTRE_RANGE = (-64, 64)
LOG2_CENTRE_WINDOW = 5


def dp_log_scale(w, log_lower, log_upper, noise: GaussianShare, rng, *,
                 ledger: Ledger | None = None, step="scree tuning: pilot log-scales") -> np.ndarray:
    """Private geometric means exp(mean_i clamp(log w_il; a, b)) of the columns of ``w``, jointly.

    A scale-free pilot for clipping thresholds: log w is a location family in the scale of w,
    so one window [a, b] (anchored at a private or public reference scale) serves every
    component.

    Parameters
    ----------
    w : ndarray, shape (m, k)
        Non-negative disjoint-pair values (zeros are clamped to ``a``).
    log_lower, log_upper : float
        Public window [a, b] of log w (natural log), a < b.
    noise, rng, ledger, step
        As in :func:`dp_clipped_mean`.

    Returns
    -------
    ndarray, shape (k,)
        Private geometric means (units of w).

    Notes
    -----
    Privacy: a replaced row changes one pair value per column, so each clamped log-mean moves
    by at most (b - a)/m and the k-vector by sqrt(k) (b - a)/m in L2: Gaussian mechanism.
    """
    w = _as_columns(w)
    m, k = w.shape
    with np.errstate(divide="ignore"):
        logs = np.clip(np.log(w), log_lower, log_upper)
    noisy, _ = noise.release(logs.mean(axis=0), math.sqrt(k) * (log_upper - log_lower) / m, rng,
                             ledger, step)
    return np.exp(noisy)


def dp_histogram_quantiles(w, edges, levels, noise: GaussianShare, rng, *,
                           ledger: Ledger | None = None,
                           step="scree tuning: quantile histograms") -> np.ndarray:
    """Private quantiles of each column of ``w`` from one joint noisy histogram.

    Counts of each column in the bins [e_0, e_1), ..., [e_{B-1}, e_B] (values outside are put
    in the end bins) are released jointly with Gaussian noise. Each column's noisy cumulative
    counts (unbiased: negative counts are kept) are made non-decreasing by a running maximum
    and divided by the noisy total, and each quantile is read off by linear interpolation.

    Parameters
    ----------
    w : ndarray, shape (m, k)
    edges : ndarray, shape (B + 1,)
        Public increasing bin edges (finite).
    levels : sequence of float in (0, 1)
    noise, rng, ledger, step
        As in :func:`dp_clipped_mean`.

    Returns
    -------
    ndarray, shape (k, len(levels))

    Notes
    -----
    Privacy: a replaced row changes one value per column, so each column's counts change in
    at most two bins by 1: L2 sensitivity sqrt(2 k) for the k histograms; Gaussian mechanism,
    the quantiles are post-processing. Unlike k x 2 separate quantile searches (R's PMWM), the
    noise grows like sqrt(k), not k. A quantile near the top is read from the few bins above
    it, so its rank error is about sigma sqrt(bins above).
    """
    w = _as_columns(w)
    m, k = w.shape
    edges = np.asarray(edges, float)
    bins = np.clip(np.searchsorted(edges, w, side="right") - 1, 0, edges.size - 2)
    counts = np.stack([np.bincount(bins[:, j], minlength=edges.size - 1) for j in range(k)])
    noisy, sigma = noise.release(counts, math.sqrt(2.0 * k), rng, ledger, step)
    kept = np.where(noisy > HISTOGRAM_THRESHOLD_SD * sigma, noisy, 0.0)
    return np.stack([_histogram_quantiles(row, edges, levels) for row in kept])


#: Noisy counts below this many noise sd are set to 0 before reading quantiles: empty bins
#: above the data would otherwise carry phantom mass (~0.4 sd each) into the upper tail.
HISTOGRAM_THRESHOLD_SD = 2.0


def _histogram_quantiles(counts, edges, levels) -> np.ndarray:
    cumulative = np.maximum.accumulate(np.concatenate(([0.0], np.cumsum(counts))))
    total = cumulative[-1]
    if not total > 0:
        return np.full(len(levels), edges[-1])  # no signal: the widest choice
    cdf = np.minimum(np.maximum(cumulative, 0.0) / total, 1.0)
    # side="left": the first edge at which the CDF reaches q, interpolated inside its bin.
    index = np.clip(np.searchsorted(cdf, levels, side="left"), 1, edges.size - 1)
    low, high = cdf[index - 1], cdf[index]
    fraction = np.divide(np.asarray(levels) - low, high - low, out=np.ones(len(levels)),
                         where=high > low)
    return edges[index - 1] + np.clip(fraction, 0.0, 1.0) * (edges[index] - edges[index - 1])


def dp_m2_histogram(w, k_min, k_max, blocks, eps, rng, *, ledger: Ledger | None = None,
                    step="scree tuning: Huber m2 histograms") -> np.ndarray:
    """The R package's private scale proxy m2 (``dp_m2``), with the replace-one noise fixed.

    Per column: s_j = (w_{2j-1} - w_{2j})^2 / 2 for j = 1..floor(m/2); the medians u_b of M
    consecutive blocks of the s_j (the last block takes the remainder); counts of
    clamp(floor(log2 u_b); k_min, k_max) over the bins k_min..k_max (u_b = 0 goes to k_min);
    Laplace noise on every count; m2 = 2^(first bin with the largest noisy count).

    Parameters
    ----------
    w : ndarray, shape (m, k)
        Disjoint-pair values, m >= 4.
    k_min, k_max : int
        Public log2 bin range, k_min < k_max.
    blocks : int
        Number of blocks M >= 1 (capped at floor(m/2)).
    eps : float
        Budget of the k histograms together (pure eps-DP).
    rng, ledger, step
        As in :func:`dp_clipped_mean`.

    Returns
    -------
    ndarray, shape (k,)

    Notes
    -----
    Privacy: a replaced row changes one w per column, hence one s_j, one block median and
    at most two counts (one down, one up): L1 sensitivity 2 per column and 2k for the k
    histograms, so Laplace noise of scale 2k/eps makes them eps-DP. (The R package adds
    Laplace(1/eps) per histogram, which is 2 eps-DP under replace-one, §15.1 item 4.)
    """
    counts = m2_counts(w, k_min, k_max, blocks)
    noisy, _ = laplace_mechanism(counts, 2.0 * counts.shape[0], eps, rng, ledger=ledger, step=step,
                                 norm="L1")
    return 2.0 ** (k_min + np.argmax(noisy, axis=1))


def m2_counts(w, k_min, k_max, blocks) -> np.ndarray:
    """Counts (k, k_max - k_min + 1) of the log2 bins of the block medians (see :func:`dp_m2_histogram`)."""
    w = _as_columns(w)
    m, k = w.shape
    pairs = m // 2
    s = (w[0:2 * pairs:2] - w[1:2 * pairs:2]) ** 2 / 2
    blocks = min(int(blocks), pairs)
    size = pairs // blocks
    starts = np.arange(blocks) * size
    stops = np.append(starts[1:], pairs)
    medians = np.stack([np.median(s[a:b], axis=0) for a, b in zip(starts, stops)])
    positive = np.where(medians > 0, medians, 1.0)
    bins = np.where(medians > 0, np.floor(np.log2(positive)), k_min)
    bins = np.clip(bins, k_min, k_max).astype(int) - k_min
    return np.stack([np.bincount(bins[:, j], minlength=k_max - k_min + 1) for j in range(k)])


def tau_from_m2(m2, eps, n) -> np.ndarray:
    """Huber threshold tau = sqrt(m2) sqrt(eps n / D), D = sqrt((1 + ln n) ln n) (R's ``tau_from_m2``).

    The theoretical tau ~ sqrt(m2) (eps n / sqrt((d + ln n) ln n))^(1/2) of Yu, Ren and Zhou
    (2024) with d = 1; post-processing of m2.
    """
    log_n = math.log(n)
    scale = math.sqrt((1 + log_n) * log_n) if n > 2 else 1.0
    return np.sqrt(np.maximum(np.asarray(m2, float), 0.0)) * math.sqrt(eps * n / scale)


def _as_columns(values) -> np.ndarray:
    values = np.asarray(values, float)
    return values[:, None] if values.ndim == 1 else values


def _positive_vector(value, k, name) -> np.ndarray:
    vector = np.array(np.broadcast_to(np.asarray(value, float), (k,)))
    if not (np.isfinite(vector).all() and (vector > 0).all()):
        raise DPPCAValueError(f"`{name}` must be finite and > 0 for every component; got {vector.tolist()}")
    return vector
