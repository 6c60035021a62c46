"""k-DP-PCA and k-DP-Ojas (Duengler & Sanyal 2025): deflation over disjoint chunks with a private Oja oracle.

Both run Algorithm 1 of the paper: the m = floor(n/2) paired differences
(:func:`._shared.paired_differences`) are split into k disjoint chunks; chunk i feeds a
private 1-PCA oracle restricted to the orthogonal complement of the directions found so far
(P_i = I - U U^T, never formed). The oracles are

- ``k_dp_ojas``: DP-Ojas (Algorithm 3), one sample per noisy, clipped Oja step;
- ``k_dp_pca``: ModifiedDP-PCA (Algorithm 2), minibatch Oja whose gradient mean is released
  by PrivRange + PrivMean (Algorithms 6 and 7), noise adapted to the spread of the gradients.

Privacy (replace-one, n public): a replaced row changes one paired difference, which lies in
one chunk and, inside it, in one Oja step (batches are disjoint). Every other step applies the
same randomized map to both neighbouring datasets, given the history. So the whole run is as
private as one step (adaptive parallel composition), and each step gets the full (eps, delta)
of the directions. This is the conservative calibration recommended in the peer-paper summary:
no amplification by shuffling is claimed (the paper's DP-Ojas noise multiplier
alpha ~ log(n/delta)/(eps sqrt(n)) relies on it and is not used).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from .._validation import DPPCAValueError, float_arg, int_arg
from ..privacy import Ledger, gaussian_sigma
from ._base import DirectionFit, orient
from ._shared import (BOUND_QUANTILE, BOUND_SHARE, paired_differences,
                      resolve_norm_bound)
from ..privacy.samplers import gaussian_noise, laplace_noise

#: Constant C_1 of PrivRange's number of groups, ceil(C_1 t), t = 1 + 2 ln(1/delta')/eps' the
#: threshold of the stable histogram (the paper: C_1 ln(1/(delta tau))/eps, C_1 unspecified). The
#: fullest bin must hold more than t groups, so C_1 = 2 asks that half of the group scales fall in
#: one bin of ratio 2^(1/4). Our earlier C_1 = 8 (with tau inside the log) asked for ~6 t groups
#: and was the reason the method needed batches of 1,252-1,270 rows at eps = 0.5-1.
RANGE_CONSTANT = 2.0
#: At least this many groups: with few groups (large eps, threshold near 1) the fullest bin of
#: ratio 2^(1/4) is too often shared by fewer than two of them.
MIN_GROUPS = 8
#: Default eta_0 of k-DP-Ojas's steps eta_t = eta_0 / ((1 + t) beta), dimensionless (see the
#: docstring of :func:`k_dp_ojas_directions` for how it was chosen).
OJA_LEARNING_RATE = 30.0
#: Failure probability tau of Theorem 9 (and the experiments, Appendix G).
FAILURE_PROB = 0.01


def k_dp_ojas_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                         rng: np.random.Generator, calibration: str, ledger: Ledger,
                         norm_bound=None, bound_quantile=BOUND_QUANTILE, bound_share=BOUND_SHARE,
                         learning_rate=OJA_LEARNING_RATE) -> DirectionFit:
    """k-DP-Ojas: deflation (Algorithm 1) with the clipped noisy Oja oracle DP-Ojas (Algorithm 3).

    Parameters
    ----------
    values : ndarray, shape (n, p), floor(n/2) >= k
    k : int, 1 <= k <= p
    eps, delta : float
        Budget of the call (bound and Oja steps).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    norm_bound, bound_quantile, bound_share
        Bound C on the paired-difference norms (public, or private as in
        :func:`.analyze_gauss.analyze_gauss_directions`); the gradients are clipped at
        beta = C^2 (the Oja gradient (x.w) P x has norm at most ||x||^2).
    learning_rate : float, > 0
        Dimensionless eta_0 of the steps eta_t = eta_0 / ((1 + t) beta) (default 30). The
        paper's experimental rule eta_t = 1/(1 + t) (Appendix G) is in units of 1/data^2: it
        fits its lambda_1 = 10 but on data in other units (e.g. scikit-learn's diabetes, entries
        ~0.05) the iterate never leaves its random start (sin-theta 0.98-1.00 even at
        eps = 10^6). Dividing by the clipping level beta (public or private) makes the method
        invariant to the data's units; eta_0 = 30 was the best of 1, 3, 10, 30, 100 without
        noise (eps = 10^6) on iris, wine, diabetes, digits and a 2-spiked model, 6 seeds each.

    Returns
    -------
    DirectionFit
        The k deflated unit vectors; eigenvalues are nan (no matrix is released).

    Raises
    ------
    DPPCAValueError
        If floor(n/2) < k, or an option is out of range.

    Notes
    -----
    Each step t of chunk i releases (through w_t) g_t + N(0, sigma^2 I), g_t = clip_beta((x_t .
    P w) P x_t). One replaced row changes one g_t by at most 2 beta in L2 norm, so sigma =
    gaussian_sigma(2 beta, eps', delta') makes the step (eps', delta')-DP, and by parallel
    composition (module docstring) the run too: per step, alpha = sqrt(2 ln(1.25/delta))/eps in
    the paper's notation (classic calibration), the conservative multiplier of the peer-paper
    summary, valid for every eps. (eps', delta') = the budget left after the private bound.
    The paper assumes add/remove neighbours (sensitivity beta per step); replace-one doubles it.

    Minimum sample size. With this calibration each step adds noise of norm about
    2 beta sqrt(2 ln(1.25/delta) p) / eps, against a signal (Sigma w) of norm at most lambda_1
    <= beta / 4; an Oja iteration averages it away only over about
    m >> (2 ln(1.25/delta)) (2/eps)^2 p (beta / gap)^2 steps (gap = lambda_k - lambda_{k+1}),
    which involves the eigengap and so cannot be checked on public quantities: the method runs
    for every n >= 2k, and is close to a random subspace below that size. On the five small
    scikit-learn datasets (n <= 1,797, standardised) it is at the random level (median
    sin-theta 0.95-1.00 at eps = 2, 4, 8 over 10 seeds; benchmarks/bench_methods_real.py):
    e.g. wine needs m of about 10^6 / eps^2. The paper's noise multiplier
    alpha ~ log(n/delta)/(eps sqrt(n)) is sqrt(n)/log(n/delta) smaller; it rests on
    amplification by shuffling under eps = O(sqrt(log(n/delta)/n)) (Theorem 10), which is
    not claimed here.

    Cost: O(n p k) time, O(p k) memory, one pass, one Python-level step per paired difference.

    References
    ----------
    Duengler, J. and Sanyal, A. (2025). An iterative algorithm for differentially private
    k-PCA with adaptive noise. arXiv:2508.10879, Algorithms 1 and 3, Theorem 10, Appendix G.
    """
    rows = paired_differences(values, rng)
    chunks = _chunks(rows, k)
    eta0 = float_arg(learning_rate, "learning_rate", positive=True)
    bound, eps_m, delta_m = resolve_norm_bound(rows, norm_bound, bound_quantile, bound_share,
                                               eps, delta, rng, ledger, "k_dp_ojas")
    beta = bound ** 2
    sigma = gaussian_sigma(2 * beta, eps_m, delta_m, calibration)
    ledger.record("directions: noisy Oja steps, one paired difference each (disjoint steps, "
                  "parallel composition)", f"Gaussian ({calibration})", 2 * beta, "L2", sigma,
                  eps_m, delta_m)
    U = _deflate(chunks, rng, lambda chunk, U: _dp_oja(chunk, U, beta, sigma, eta0 / beta, rng))
    return DirectionFit(orient(U), np.full(k, np.nan), f"Gaussian ({calibration})", 2 * beta, sigma,
                        notes=[f"k-DP-Ojas: {k} chunk(s) of about {len(chunks[0])} paired "
                               f"differences, one noisy Oja step each; gradients clipped at "
                               f"{beta:.4g}."])


def k_dp_pca_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                        rng: np.random.Generator, calibration: str, ledger: Ledger,
                        batch_size=None, learning_rate=1.0, failure_prob=FAILURE_PROB,
                        range_constant=RANGE_CONSTANT) -> DirectionFit:
    """k-DP-PCA: deflation (Algorithm 1) with the adaptive-noise oracle ModifiedDP-PCA (Algorithm 2).

    Parameters
    ----------
    values : ndarray, shape (n, p)
    k : int, 1 <= k <= p
    eps, delta : float
        Budget of the call; every minibatch step gets all of it (parallel composition).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    batch_size : int, optional
        Paired differences per Oja step, B >= B_min (:func:`k_dp_pca_minimum_batch`; default
        max(B_min, floor(sqrt(chunk))), the paper's experimental B = sqrt(n) per chunk when
        that is large enough). T = floor(chunk / B) steps per component.
    learning_rate : float, > 0
        eta_0 of eta_t = eta_0 / (1 + t). The paper's experimental rule needs lambda_i,
        lambda_{i+1} and the noise level, which are not public; we use the k-DP-Ojas rule.
    failure_prob : float in (0, 1)
        tau (default 0.01); each step uses tau / (2T) in its log factors, as in Algorithm 2.
    range_constant : float, > 0
        C_1 of PrivRange's number of groups ceil(C_1 t_r), t_r the histogram threshold
        (default 2; unspecified in the paper).

    Returns
    -------
    DirectionFit
        The k deflated unit vectors; eigenvalues are nan. The notes count the steps whose
        private histograms found no bin (the algorithm's "bottom" output): those steps leave
        the iterate unchanged (post-processing of the private outputs).

    Raises
    ------
    DPPCAValueError
        If floor(n/2) < 2k, or n < n_min = 2 k B_min (or ``batch_size`` < B_min): the
        private histograms cannot find a bin (a check on public n, p, eps, delta only; the
        message gives n_min).

    Notes
    -----
    One step on batch G (B x p rows g_j = (P w_j . w) P w_j), budget (eps, delta):

    - PrivRange, (eps/2, delta/2): the B/2 differences of gradient pairs are split into N
      groups, N = max(8, ceil(C_1 (1 + 2 ln(1/delta')/eps'))); each group gives
      lambda = ||D_group||_2^2 / b; the bin floor(4 log2 lambda) of the fullest bin of a stable
      histogram gives Lambda = 2^(bin/4). A replaced row changes one group, so one histogram
      entry moves between bins.
    - PrivMean centres, (eps/4, delta/4) over the p coordinates (advanced or basic
      composition, whichever gives each more): a stable histogram of floor(g_ij / width),
      width = 2^(1/4) sqrt(Lambda) (ln 25)^2, gives the centre c_j.
    - PrivMean mean, (eps/4, delta/4): coordinates clipped to [c_j - h, c_j + h],
      h = 3 sqrt(Lambda) ln(B p / tau_t); one replaced row moves the mean by at most
      2 h sqrt(p) / B in L2; Gaussian noise with sigma = gaussian_sigma(2 h sqrt(p)/B, ...).

    Stable histogram under replace-one: Laplace(2/eps) noise on the non-empty bins (two
    counts change by 1: L1 sensitivity 2) and only a bin whose noisy count exceeds
    1 + 2 ln(1/delta)/eps can win; a bin present in only one of the neighbours (count 1) passes
    with probability <= exp(-eps (t-1)/2)/2 <= delta/2, so the release is (eps, delta)-DP
    (Bun, Nissim & Stemmer 2016; the paper leaves its "DP histogram learner" undefined).
    The paper runs PrivRange and PrivMean on the first half of the batch with (eps/2,
    delta/2) each; here both see the whole batch and split the step's budget (basic
    composition), no amplification is claimed, and the paper's add/remove neighbours become
    replace-one (the factors of 2 above).

    Minimum sample size (public n only). Both histograms need many rows per batch: PrivRange
    needs B/2 >= N groups, and each of the p centre histograms, at a per-coordinate budget of
    about eps / (4 sqrt(2 p ln(8p/delta))), needs a bin holding more than its threshold
    1 + 2 ln(1/delta_j)/eps_j values. :func:`k_dp_pca_minimum_batch` gives B_min; the method
    needs n >= n_min = 2 k B_min. For k = 2, delta = 1e-5:

    ====  ==========  ==========  ==========  ==========
    p     eps = 1     eps = 2     eps = 4     eps = 8
    ====  ==========  ==========  ==========  ==========
    4     3,668       1,840       924         468
    10    9,740       4,876       2,444       1,228
    30    31,352      15,824      8,056       3,924
    200   89,972      45,392      23,092      11,928
    ====  ==========  ==========  ==========  ==========

    These minima are the paper's (Liu et al.'s PrivRange and PrivMean with per-coordinate
    histograms), not an artefact of our constants: the centre histograms dominate, and their
    threshold grows as sqrt(p) ln(p/delta) / eps. At the paper's B = sqrt(n) the batches reach
    B_min only for n >= B_min^2 (10^8 at p = 200, eps = 1, delta = 0.01), so by default B is
    raised to B_min and T = floor(n / (2 k B_min)) steps remain. The five small scikit-learn
    datasets (n <= 1,797) are all below n_min at eps <= 4: there the method raises.

    Cost: O(n p k) time plus, per step, p histograms over B values; O(B p) memory.

    References
    ----------
    Duengler, J. and Sanyal, A. (2025). arXiv:2508.10879, Algorithms 1, 2, 6 and 7; Appendix G.
    Liu, X., Kong, W., Jain, P. and Oh, S. (2022). DP-PCA: statistically optimal and
    differentially private PCA. NeurIPS 2022.
    """
    rows = paired_differences(values, rng)
    if rows.shape[0] < 2 * k:
        raise DPPCAValueError(f"method 'k_dp_pca' needs at least {4 * k} rows for k={k} "
                              f"(two paired differences per component); got {values.shape[0]}")
    chunks = _chunks(rows, k)
    plan = _plan(min(len(c) for c in chunks), rows.shape[1], k, eps, delta, batch_size,
                 learning_rate, failure_prob, range_constant)
    outcome = {"failed": 0, "steps": 0, "sigmas": [], "sensitivities": []}
    U = _deflate(chunks, rng, lambda chunk, U: _modified_dp_pca(chunk, U, plan, rng, calibration,
                                                                 outcome))
    sigma, sensitivity = _record_k_dp_pca(ledger, plan, outcome, calibration)
    return DirectionFit(orient(U), np.full(k, np.nan), f"Gaussian ({calibration}) + stable histograms",
                        sensitivity, sigma,
                        notes=[f"k-DP-PCA: {k} chunk(s), {plan['T']} steps of {plan['B']} paired "
                               f"differences each; {outcome['failed']} of {outcome['steps']} steps "
                               "returned 'bottom' (no histogram bin passed) and were skipped. "
                               "Sensitivity and noise sd are medians over steps (adaptive noise)."])


def _chunks(rows: np.ndarray, k: int) -> list:
    if rows.shape[0] < k:
        raise DPPCAValueError(f"this method needs at least {2 * k} rows for k={k} (one paired "
                              f"difference per component); got {2 * rows.shape[0]} or fewer")
    return np.array_split(rows, k)


def _deflate(chunks, rng, oracle) -> np.ndarray:
    """Algorithm 1: one oracle call per disjoint chunk, each in the complement of the previous."""
    p = chunks[0].shape[1]
    U = np.zeros((p, 0))
    for chunk in chunks:
        u = _project(oracle(chunk, U), U)
        U = np.column_stack([U, u / np.linalg.norm(u)])
    return U


def _project(v: np.ndarray, U: np.ndarray) -> np.ndarray:
    return v - U @ (U.T @ v)


def _random_start(U: np.ndarray, rng) -> np.ndarray:
    w = _project(rng.standard_normal(U.shape[0]), U)
    return w / np.linalg.norm(w)


def _dp_oja(chunk, U, beta, sigma, eta0, rng) -> np.ndarray:
    """Algorithm 3 on one chunk: w <- P(w + eta_t (clip_beta(g_t) + noise)), normalised."""
    w = _random_start(U, rng)
    projected = chunk - (chunk @ U) @ U.T
    noise = gaussian_noise(sigma, projected.shape, rng)
    for t, x in enumerate(projected, start=1):
        w = _project(w + eta0 / (1 + t) * (oja_gradient(x, w, beta) + noise[t - 1]), U)
        w /= math.sqrt(w @ w)
    return w


def oja_gradient(x: np.ndarray, w: np.ndarray, beta: float) -> np.ndarray:
    """clip_beta((x . w) x) for a projected row x and unit w in Im(P): the released statistic
    of one DP-Ojas step; two rows give vectors at most 2 beta apart (replace-one sensitivity)."""
    g = (x @ w) * x
    norm = math.sqrt(g @ g)
    return g * (beta / norm) if norm > beta else g


def histogram_threshold(eps: float, delta: float) -> float:
    """Count a bin of the stable histogram must beat: 1 + 2 ln(1/delta)/eps (:func:`_stable_mode`)."""
    return 1 + 2 * math.log(1 / delta) / eps


def k_dp_pca_minimum_batch(p: int, eps: float, delta: float, range_constant=RANGE_CONSTANT) -> int:
    """Smallest batch B (paired differences per Oja step) k-DP-PCA accepts; public inputs only.

    B_min = max(2 G, ceil(2 t_c)): PrivRange pairs the B gradients into B/2 differences split
    into G = ceil(C_1 t_r) groups (t_r = threshold at (eps/2, delta/2)), and each of the p
    PrivMean centre histograms (budget from :func:`_per_coordinate_budget` of (eps/4, delta/4))
    counts B values, of which about half fall in the top bin (the bins are ~12 gradient spreads
    wide), so B must be about twice its threshold t_c (G is at least 8). Below B_min a step returns "bottom"
    almost surely. The minimum number of rows is n_min = 2 k B_min (one batch per component).

    Examples
    --------
    >>> from dppca.methods.k_dp_pca import k_dp_pca_minimum_batch
    >>> k_dp_pca_minimum_batch(10, 1.0, 1e-5)
    2435
    """
    groups = _groups(range_constant, eps / 2, delta / 2)
    centre = histogram_threshold(*_per_coordinate_budget(eps / 4, delta / 4, p))
    return max(2 * groups, math.ceil(2 * centre))


def _groups(range_constant, eps, delta) -> int:
    return max(MIN_GROUPS, math.ceil(range_constant * histogram_threshold(eps, delta)))


def _plan(chunk_len, p, k, eps, delta, batch_size, learning_rate, failure_prob, range_constant) -> dict:
    """Batch size, steps, budgets and group count of k-DP-PCA (public quantities only)."""
    c1 = float_arg(range_constant, "range_constant", positive=True)
    tau = float_arg(failure_prob, "failure_prob", open_unit=True)
    minimum = k_dp_pca_minimum_batch(p, eps, delta, c1)
    B = max(minimum, math.isqrt(chunk_len)) if batch_size is None else int_arg(batch_size, "batch_size", 2)
    if B < minimum or B > chunk_len:
        raise DPPCAValueError(
            f"method 'k_dp_pca' cannot run here: at p={p}, eps={eps:g}, delta={delta:g} its private "
            f"histograms need batches of at least {minimum} paired differences, so n >= "
            f"{2 * k * minimum} rows for k={k} (got n of about {2 * k * chunk_len}, "
            f"batch_size={B}); use a larger eps, or method='analyze_gauss' or 'gdppca'")
    T = chunk_len // B
    tau = tau / (2 * T)
    eps_r, delta_r = eps / 2, delta / 2
    groups = _groups(c1, eps_r, delta_r)
    return {"B": B, "T": T, "tau": tau, "groups": groups, "range": (eps_r, delta_r),
            "centre": _per_coordinate_budget(eps / 4, delta / 4, p), "centre_total": (eps / 4, delta / 4),
            "mean": (eps / 4, delta / 4),
            "eta0": float_arg(learning_rate, "learning_rate", positive=True)}


def _per_coordinate_budget(eps, delta, p) -> tuple[float, float]:
    """Budget of each of p releases so that together they are (eps, delta)-DP.

    Basic composition (eps/p, delta/p), or advanced composition (Dwork, Rothblum & Vadhan
    2010): p releases of (e0, delta/(2p)) are (e0 sqrt(2p ln(2/delta)) + p e0 (e^e0 - 1),
    delta)-DP; whichever gives the larger e0.
    """
    basic = (eps / p, delta / p)
    if p == 1:
        return basic
    root = math.sqrt(2 * p * math.log(2 / delta))
    total = lambda e0: e0 * root + p * e0 * math.expm1(min(e0, 700.0)) - eps
    advanced = brentq(total, 0.0, eps / root)  # the first term alone reaches eps there
    return basic if basic[0] >= advanced else (advanced, delta / (2 * p))


def _modified_dp_pca(chunk, U, plan, rng, calibration, outcome) -> np.ndarray:
    """Algorithm 2 on one chunk: minibatch Oja with PrivRange + PrivMean gradient releases."""
    w = _random_start(U, rng)
    projected = chunk - (chunk @ U) @ U.T
    B = plan["B"]
    for t in range(1, plan["T"] + 1):
        batch = projected[(t - 1) * B:t * B]
        G = (batch @ w)[:, None] * batch
        mean = _private_gradient_mean(G, plan, rng, calibration, outcome)
        outcome["steps"] += 1
        if mean is None:
            outcome["failed"] += 1
            continue
        w = _project(w + plan["eta0"] / (1 + t) * mean, U)
        w /= np.linalg.norm(w)
    return w


def _private_gradient_mean(G, plan, rng, calibration, outcome):
    """PrivRange then PrivMean (Algorithms 6 and 7); None when a histogram finds no bin."""
    level = _private_range(G, plan, rng)
    if level is None:
        return None
    B, p = G.shape
    root = math.sqrt(level)
    width = 2 ** 0.25 * root * math.log(25) ** 2
    half = 3 * root * math.log(B * p / plan["tau"])
    centres = np.empty(p)
    for j in range(p):
        key = _stable_mode(np.floor(G[:, j] / width), *plan["centre"], rng)
        if key is None:
            return None
        centres[j] = key * width
    sensitivity = 2 * half * math.sqrt(p) / B
    sigma = gaussian_sigma(sensitivity, *plan["mean"], calibration)
    outcome["sigmas"].append(sigma)
    outcome["sensitivities"].append(sensitivity)
    return clipped_mean(G, centres, half) + gaussian_noise(sigma, p, rng)


def clipped_mean(G: np.ndarray, centres: np.ndarray, half: float) -> np.ndarray:
    """Mean of the rows of G with coordinate j clipped to [c_j - half, c_j + half].

    One replaced row moves each coordinate of the mean by at most 2 half / B, so the vector by
    at most 2 half sqrt(p) / B in L2 (the sensitivity PrivMean's Gaussian noise is set to).
    """
    return np.clip(G, centres - half, centres + half).mean(axis=0)


def _private_range(G, plan, rng):
    """Algorithm 6: a private scale Lambda of the gradient spread, or None ("bottom")."""
    half = G.shape[0] // 2
    differences = G[1:2 * half:2] - G[0:2 * half:2]
    size = half // plan["groups"]
    blocks = differences[:size * plan["groups"]].reshape(plan["groups"], size, -1)
    spread = np.array([np.linalg.norm(b, 2) ** 2 / size for b in blocks])
    keys = np.where(spread > 0, np.floor(4 * np.log2(np.where(spread > 0, spread, 1.0))), -np.inf)
    key = _stable_mode(keys, *plan["range"], rng)
    if key is None or not np.isfinite(key):
        return None
    return 2.0 ** (key / 4)


def _stable_mode(keys: np.ndarray, eps: float, delta: float, rng):
    """Key of the fullest bin of an (eps, delta)-DP stable histogram, or None if none passes.

    Laplace(2/eps) on each non-empty bin's count; a bin wins only above 1 + 2 ln(1/delta)/eps
    (replace-one proof in :func:`k_dp_pca_directions`).
    """
    values, counts = np.unique(keys, return_counts=True)
    noisy = counts + laplace_noise(2.0 / eps, counts.size, rng)
    best = int(np.argmax(noisy))
    if noisy[best] <= 1 + 2 * math.log(1 / delta) / eps:
        return None
    return float(values[best])


def _record_k_dp_pca(ledger, plan, outcome, calibration):
    sigma = float(np.median(outcome["sigmas"])) if outcome["sigmas"] else float("nan")
    sensitivity = float(np.median(outcome["sensitivities"])) if outcome["sensitivities"] else float("nan")
    e_c = plan["centre"][0]
    ledger.record("directions: PrivRange stable histograms, one per batch (disjoint batches)",
                  "Laplace + threshold", 2.0, "L1", 2.0 / plan["range"][0], *plan["range"])
    ledger.record(f"directions: PrivMean centre histograms, eps {e_c:.3g} per coordinate",
                  "Laplace + threshold", 2.0, "L1", 2.0 / e_c, *plan["centre_total"])
    ledger.record("directions: PrivMean clipped gradient mean per batch (median sd shown)",
                  f"Gaussian ({calibration})", sensitivity, "L2", sigma, *plan["mean"])
    return sigma, sensitivity
