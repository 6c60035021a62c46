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

Floating point: the pair U-statistics are computed by :mod:`dppca.stats.pair_statistics` from
differences inside blocks of width sqrt(2 U) (never from prefix sums of squares, which cancel
at the scale of the data's offset), clamped to their range, and every sensitivity below carries
the proven rounding slack (``fp_inflation``, ``mean_inflation``: 1 + 1.1e-5 at n = 5,000), so
the bounds hold for the computed values for every finite input.

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

from .._validation import DPPCAValueError, as_columns
from ..backends.dask import is_dask_array
from ..privacy import Ledger
from ..privacy.composition import GaussianShare
from ..privacy.samplers import add_gaussian_noise
from ..stats.pair_statistics import (design_clamped_fractions, design_fp_inflation, mean_inflation,
                                     pair_rounding_error)


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


# --------------------------------------------------------------------------- mean estimators

def dp_clipped_mean(scores, clip, noise: GaussianShare, rng, *, ledger: Ledger | None = None,
                    step="scree: clipped pair means", design=None, rows=None) -> MeanRelease:
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
    design : dppca.stats.pair_design.BlockDesign, optional
        None: all n(n-1)/2 pairs. A block design: the incomplete U-statistic over the pairs
        inside its blocks (:func:`dppca.stats.pair_statistics.block_clamped_fractions`; ``scores`` may
        then be a dask array), with the same 2/n sensitivity.
    rows : dppca.privacy.neighbouring.RowBounds, optional
        Add/remove neighbours (n private): the sensitivity at the count's public bounds
        (:func:`pair_release_sensitivity`; complete design only). None: replace-one, n public.

    Returns
    -------
    MeanRelease
        estimate_l = C_l (U_l / C_l + Z_l), noise sd C_l sigma.

    Notes
    -----
    Privacy: each pair term min(u, C_l) / C_l lies in [0, 1], so each normalised U-statistic
    moves by at most 2/n when one row is replaced (module docstring) and the k-vector by at
    most 2 sqrt(k)/n in L2. In floating point the computed statistic moves by at most
    (2/n) fp_inflation(n) (:mod:`dppca.stats.pair_statistics`: 1 + 1.1e-5 at n = 5,000), which is the
    sensitivity used (with a block design, (2/n) block_fp_inflation: each row is in one block,
    proof in :func:`dppca.stats.pair_statistics.block_clamped_fractions`). The Gaussian mechanism
    with that sensitivity makes the vector private;
    multiplying by the (already private or public) C_l is post-processing.
    """
    scores = _score_columns(scores)
    n, k = scores.shape
    clip = _positive_vector(clip, k, "clip")
    return _release_normalised(scores, np.zeros(k), clip, noise, rng, ledger, step, design, rows)


def dp_winsorized_mean(scores, lower, upper, noise: GaussianShare, rng, *,
                       ledger: Ledger | None = None,
                       step="scree: winsorized pair means", design=None) -> MeanRelease:
    """Private winsorized pair means: U-statistics of clamp(u_ij; L_l, U_l), released jointly.

    Parameters
    ----------
    scores : ndarray, shape (n, k)
    lower, upper : ndarray, shape (k,)
        Winsorization interval of each component (0 <= L_l <= U_l), public or private.
    noise, rng, ledger, step, design
        As in :func:`dp_clipped_mean`.

    Returns
    -------
    MeanRelease

    Notes
    -----
    Privacy: (clamp(u; L, U) - L) / (U - L) lies in [0, 1], so the normalised U-statistic has
    sensitivity 2/n per component and the vector 2 sqrt(k')/n in L2, k' the number of
    components with U_l > L_l (a component with U_l = L_l releases the constant L_l and
    needs no noise, as in the R package). In floating point, times the largest
    fp_inflation(n, L_l/U_l) of the active components (:mod:`dppca.stats.pair_statistics`).
    """
    scores = _score_columns(scores)
    n, k = scores.shape
    lower = np.maximum(np.broadcast_to(np.asarray(lower, float), (k,)), 0.0)
    upper = np.broadcast_to(np.asarray(upper, float), (k,))
    if not (np.isfinite(lower).all() and np.isfinite(upper).all() and (upper >= lower).all()):
        raise DPPCAValueError(f"winsorization bounds must be finite with lower <= upper; got "
                              f"{lower.tolist()} and {upper.tolist()}")
    return _release_normalised(scores, lower, upper, noise, rng, ledger, step, design)


def pair_release_sensitivity(n, lower, upper, design=None, rows=None) -> float:
    """L2 sensitivity of the normalised clamped pair U-statistics of the active components.

    sqrt(k') (2/n) max_l fp_inflation(n, L_l/U_l) over the k' components with U_l > L_l
    (sqrt(1) (2/n) when none is active): exact-arithmetic 2 sqrt(k')/n times the rounding slack
    (of the block design's incomplete statistic when ``design`` is given).

    Under add/remove neighbours (``rows``, a :class:`dppca.privacy.neighbouring.RowBounds`
    (n_lo + 1, n_hi); complete design): sqrt(k') (2 / (n_lo + 1) + 2 max_l E(n_hi, rho_l)).
    Proof: F_l is the mean of a term in [0, 1] over the C(n, 2) pairs, so adding a row moves it
    by at most 2 / (n + 1), n the smaller data set's rows (the common step of
    :mod:`dppca.methods.add_remove`: the replace-one bound 2 W / n at n + 1 rows, W = 1);
    n_lo <= n on the count's good event. Each data set's computed F_l is within E(n', rho_l)
    (:func:`dppca.stats.pair_statistics.pair_rounding_error`, increasing in n') of the exact
    one, n' <= n_hi, hence the slack 2 E(n_hi, rho_l). The replace-one form is the same
    2/n + 2 E(n) = (2/n) fp_inflation(n).

    Examples
    --------
    >>> from dppca.privacy.neighbouring import RowBounds
    >>> exact = pair_release_sensitivity(1000, [0.0], [1.0])
    >>> round(exact * 1000, 4), round(pair_release_sensitivity(5, [0.0], [1.0],
    ...                                                      rows=RowBounds(1000.0, 1100)) * 1000, 4)
    (2.0, 2.0)
    """
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    active = upper > lower
    rho = np.divide(lower, upper, out=np.zeros_like(upper), where=active)[active]
    width = math.sqrt(max(int(active.sum()), 1))
    if rows is not None:
        if design is not None:
            raise DPPCAValueError("add/remove neighbours need the complete pair design (a block "
                                  "design is drawn for the private n)")
        error = float(np.max(pair_rounding_error(int(rows.slack_rows), rho))) if rho.size else 0.0
        return width * (2.0 / rows.sensitivity_rows + 2.0 * error)
    inflation = float(np.max(design_fp_inflation(n, rho, design))) if rho.size else 1.0
    return 2 * width / n * inflation


def normalised_pair_statistic(scores, lower, upper, design=None) -> np.ndarray:
    """The pre-noise statistic of the clipped and winsorized releases: F_l in [0, 1], shape (k,)
    (over all pairs, or over the pairs inside the blocks of ``design``)."""
    return design_clamped_fractions(_score_columns(scores), lower, upper, design)


def _score_columns(scores):
    """Scores of shape (n, k): a dask array stays lazy (it is reduced block by block)."""
    return scores if is_dask_array(scores) else as_columns(scores)


def _release_normalised(scores, lower, upper, noise, rng, ledger, step, design=None,
                        rows=None) -> MeanRelease:
    n = scores.shape[0]
    width = upper - lower
    unit = normalised_pair_statistic(scores, lower, upper, design)
    noisy, sigma = noise.release(unit, pair_release_sensitivity(n, lower, upper, design, rows),
                                 rng, ledger, step)
    return MeanRelease(lower + width * noisy, width * sigma, lower.copy(), upper.copy())


def dp_huber_mean(scores, tau, steps, mu0, eta0, noise: GaussianShare, rng, *,
                  ledger: Ledger | None = None,
                  step="scree: Huber noisy gradient descent", design=None) -> MeanRelease:
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
    noise, rng, ledger, step, design
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

    Floating point: the score is computed as (L - mu) + (U - L) F with F the normalised clamped
    pair U-statistic of :mod:`dppca.stats.pair_statistics` (L = max(mu - tau, 0), U = mu + tau), so
    it moves by at most b_tl (2/n) fp_inflation(n, L/U) between neighbours (4u b for the two
    roundings of the sum are inside fp_inflation's 64 u). Each step's noise is scaled by that
    inflation, so every step keeps the ratio noise / sensitivity the calibration assumed;
    the ledger records the exact-arithmetic sensitivity 2 sqrt(kT)/n.
    """
    scores = _score_columns(scores)
    n, k = scores.shape
    tau = _positive_vector(tau, k, "tau")
    mu = np.array(np.broadcast_to(np.asarray(mu0, float), (k,)))
    sensitivity = 2 * math.sqrt(k * steps) / n
    sigma = noise.sigma(sensitivity)
    for _ in range(steps):
        gradient, width = huber_score(scores, mu, tau, design)
        step_noisy = add_gaussian_noise(gradient / width, sigma, 2 * math.sqrt(k) / n, rng)[0]
        mu = mu + eta0 * width * step_noisy
    noise.record(ledger, f"{step} ({steps} steps, composed)", sensitivity, sigma)
    width = tau + np.minimum(tau, np.maximum(mu, 0.0))
    return MeanRelease(mu, eta0 * width * sigma, np.maximum(mu - tau, 0.0), mu + tau)


def huber_score(scores, mu, tau, design=None) -> tuple[np.ndarray, np.ndarray]:
    """Huber score g_l(mu_l) of the pair values and its noise scale b_l x rounding inflation.

    The pre-noise statistic of one step of :func:`dp_huber_mean`: g / scale moves by at most
    2/n per component between neighbours, in floating point (see its Notes), over all pairs or
    over the pairs inside the blocks of ``design`` (same 2/n, rounding factor
    :func:`dppca.stats.pair_statistics.block_fp_inflation`).

    Returns
    -------
    (gradient, scale) : ndarrays, shape (k,)
    """
    scores = _score_columns(scores)
    n, k = scores.shape
    mu = np.broadcast_to(np.asarray(mu, float), (k,))
    tau = np.broadcast_to(np.asarray(tau, float), (k,))
    upper = mu + tau
    lower = np.minimum(np.maximum(mu - tau, 0.0), upper)
    active = upper > lower
    rho = np.divide(lower, upper, out=np.zeros(k), where=active)
    width = np.where(active, upper - lower, 0.0)
    gradient = (lower - mu) + width * design_clamped_fractions(scores, lower, upper, design)
    bound = tau + np.minimum(tau, np.maximum(mu, 0.0))
    return gradient, bound * design_fp_inflation(n, rho, design)


def dp_clipped_paired_mean(values, clip: float, noise: GaussianShare, rng, *,
                           ledger: Ledger | None = None, step="trace: clipped paired mean",
                           pairs=None) -> tuple:
    """Private mean of min(t_i, C) over m disjoint-pair values t_i (e.g. ||x_a - x_b||^2 / 2).

    Parameters
    ----------
    values : ndarray, shape (m,)
        The pair values.
    clip : float > 0
        C (public or already private).
    noise : GaussianShare
        Budget of the release.
    rng : numpy.random.Generator
    ledger : Ledger, optional
    step : str
        Ledger label.
    pairs : tuple of int, optional
        Add/remove neighbours: (pairs for the sensitivity, pairs for the rounding slack) from
        :func:`dppca.privacy.counted_group.pair_rows`. None: (m, m), replace-one.

    Returns
    -------
    (estimate, noise sd)

    Notes
    -----
    Privacy: a replaced row changes one pair value, so the mean of min(t, C)/C in [0, 1]
    moves by at most 1/m: Gaussian mechanism with sensitivity (1/m) mean_inflation(m) (the
    rounding slack of a computed mean, :func:`dppca.stats.pair_statistics.mean_inflation`), then
    times C. nan values (never produced from finite data) count as C. Add/remove: the coupled
    pairings differ by one pair replaced or added (:func:`dppca.privacy.counted_group.pair_rows`),
    so the mean moves by at most 1 / m_lo, m_lo = floor(max(n_lo, 4) / 2), plus twice a computed
    mean's rounding error at the larger m_hi (increasing in m):
    1 / m_lo + (mean_inflation(m_hi) - 1) / m_hi.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import GaussianGroup
    >>> _, sd = dp_clipped_paired_mean(np.ones(100), 1.0, GaussianGroup(1.0, 1e-5).share(1.0),
    ...                                np.random.default_rng(0), pairs=(50, 60))
    >>> round(sd * 50 * GaussianGroup(1.0, 1e-5).mu, 3)
    1.0
    """
    values = np.asarray(values, float)
    clip = float(_positive_vector(clip, 1, "clip")[0])
    low, high = (values.size, values.size) if pairs is None else pairs
    noisy, sigma = noise.release(clipped_paired_statistic(values, clip),
                                 paired_mean_sensitivity(low, high), rng, ledger, step)
    return clip * float(noisy), clip * sigma


def paired_mean_sensitivity(low: int, high: int) -> float:
    """Sensitivity of the trace's mean of m values in [0, 1]: 1 / m_lo + 2 x rounding at m_hi.

    Parameters
    ----------
    low : int
        Pairs of the smaller data set, or a public lower bound of them (replace-one: m).
    high : int
        A public upper bound of the pairs, for the rounding slack (replace-one: m).

    Returns
    -------
    float
        1 / low + (mean_inflation(high) - 1) / high; at low = high = m, mean_inflation(m) / m
        (:func:`dppca.stats.pair_statistics.mean_inflation`: a computed mean of m terms is within
        gamma_m (1 + u) + u of the exact one, increasing in m).

    Examples
    --------
    >>> round(paired_mean_sensitivity(100, 100) * 100, 9), round(paired_mean_sensitivity(80, 120) * 80, 9)
    (1.0, 1.0)
    """
    return 1.0 / low + (mean_inflation(high) - 1.0) / high


def clipped_paired_statistic(values, clip) -> float:
    """The trace's pre-noise statistic mean(min(t_i, C) / C), in [0, 1]."""
    unit = np.minimum(np.nan_to_num(np.asarray(values, float), nan=clip), clip) / clip
    return float(np.clip(np.mean(np.maximum(unit, 0.0)), 0.0, 1.0))


def _positive_vector(value, k, name) -> np.ndarray:
    vector = np.array(np.broadcast_to(np.asarray(value, float), (k,)))
    if not (np.isfinite(vector).all() and (vector > 0).all()):
        raise DPPCAValueError(f"`{name}` must be finite and > 0 for every component; got {vector.tolist()}")
    return vector

__all__ = ["MeanRelease", "clipped_paired_statistic", "dp_clipped_mean", "dp_clipped_paired_mean",
           "dp_huber_mean", "dp_winsorized_mean", "huber_score", "normalised_pair_statistic",
           "pair_release_sensitivity", "paired_mean_sensitivity"]
