"""k-DP-PCA (Duengler & Sanyal 2025): deflation over disjoint chunks with a private Oja oracle.

k-DP-PCA and k-DP-Ojas (:mod:`.k_dp_ojas`, which uses the deflation helpers here) both run
Algorithm 1 of the paper: the m = floor(n/2) paired differences
(:func:`._shared.paired_differences`) are split into k disjoint chunks; chunk i feeds a
private 1-PCA oracle restricted to the orthogonal complement of the directions found so far
(P_i = I - U U^T, never formed). The oracles are

- ``k_dp_ojas``: DP-Ojas (Algorithm 3), one sample per noisy, clipped Oja step;
- ``k_dp_pca``: ModifiedDP-PCA (Algorithm 2), minibatch Oja whose gradient mean is released
  by PrivRange + PrivMean (Algorithms 6 and 7), noise adapted to the spread of the gradients.
  PrivMean's Gaussian step is in :mod:`.k_dp_pca_mean` (its names are re-exported here).

Privacy (replace-one, n public): a replaced row changes one paired difference, which lies in
one chunk and, inside it, in one Oja step (batches are disjoint). Every other step applies the
same randomized map to both neighbouring datasets, given the history. So the whole run is as
private as one step (adaptive parallel composition), and each step gets the full (eps, delta)
of the directions. This is the conservative calibration recommended in the peer-paper summary:
no amplification by shuffling is claimed by default (the paper's DP-Ojas noise multiplier
alpha ~ log(n/delta)/(eps sqrt(n)) relies on it and is not used). k-DP-Ojas offers a proven
amplification by shuffling as an option (``amplification="shuffle"``, Feldman, McMillan &
Talwar 2021); k-DP-PCA cannot use it: that theorem needs local randomizers of ONE record, and
each k-DP-PCA step reads a batch of B records (two batches differ in all B, so the step is only
B eps-DP as a function of its whole batch).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from .._validation import DPPCAValueError, float_arg, int_arg
from ..privacy import Ledger
from ._base import DirectionFit, orient
from ._shared import paired_differences
# PrivMean's Gaussian step (Algorithm 7), re-exported from its own module.
from .k_dp_pca_mean import clipped_mean, mean_half_width, priv_mean, priv_mean_calibration
from ..privacy.samplers import add_laplace_noise

#: Constant C_1 of PrivRange's number of groups, max(8, ceil(C_1 (t + 6/eps'))), t = 1 +
#: 2 ln(1/delta')/eps' the threshold of the stable histogram and 6/eps' three Laplace scales (the
#: paper: C_1 ln(1/(delta tau))/eps, C_1 unspecified). The fullest bin must hold more than t
#: groups; the group spreads fall in one or two adjacent bins, so C_1 = 2. Our earlier C_1 = 8
#: on ln(1/(delta tau))/eps, with groups of one difference, is why the method needed batches
#: of 1,252-1,270 rows at eps = 0.5-1 and still returned "bottom".
RANGE_CONSTANT = 2.0
#: log2 of the ratio of PrivRange's geometric bins (the paper: 1/4, bins [2^(l/4), 2^((l+1)/4))).
#: Group spreads (top eigenvalue of a few outer products of gradient differences) vary by more
#: than 2^(1/4) between groups, so with the paper's bins they fall in several bins and the
#: fullest rarely passes the threshold; bins of ratio 2 hold most of them (measured in the
#: docstring of :func:`k_dp_pca_directions`). Lambda is then known within a factor 2, which the
#: log factors of PrivMean's width and half-width absorb.
RANGE_BIN_LOG2 = 1.0
#: Differences per PrivRange group at the minimum batch: the spread of a group of one or two
#: differences is too variable to share a bin with the others (most steps then return "bottom");
#: with 8 or more almost none do (docstring of :func:`k_dp_pca_directions`).
GROUP_SIZE = 8
#: At least this many groups: with few groups (large eps, threshold near 1) the fullest bin is
#: too often shared by fewer than two of them.
MIN_GROUPS = 8
#: Failure probability tau of Theorem 9 (and the experiments, Appendix G).
FAILURE_PROB = 0.01


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
        C_1 of PrivRange's number of groups max(8, ceil(C_1 (t_r + 6/eps_r))), t_r the
        histogram threshold (default 2; unspecified in the paper).

    Returns
    -------
    DirectionFit
        The k deflated unit vectors; eigenvalues are nan. The notes count the steps whose
        PrivRange found no bin (the algorithm's "bottom" output), which leave the iterate
        unchanged, and the coordinates centred at 0 (post-processing of private outputs).

    Raises
    ------
    DPPCAValueError
        If floor(n/2) < 2k, or n < n_min = 2 k B_min (or ``batch_size`` < B_min): the
        private histograms cannot find a bin (a check on public n, p, eps, delta only; the
        message gives n_min).

    Notes
    -----
    One step on batch G (B x p rows g_j = (P w_j . w) P w_j), budget (eps, delta):

    - PrivRange, (eps' , delta') = (eps/2, delta/2): the B/2 differences of gradient pairs are
      split into N groups, N = max(8, ceil(C_1 (t_r + 6/eps'))), t_r = 1 + 2 ln(1/delta')/eps';
      each group gives lambda = ||D_group||_2^2 / b; the fullest bin floor(log2 lambda) of a
      stable histogram gives Lambda = 2^bin (the paper's bins have ratio 2^(1/4), see below).
      A replaced row changes one group, so one histogram entry moves between bins.
    - PrivMean centres, (eps/4, delta/4) over the p coordinates (advanced or basic
      composition, whichever gives each more): a stable histogram of floor(g_ij / width),
      width = 2^(1/4) sqrt(Lambda) (ln 25)^2, gives the centre c_j; if it finds no bin, c_j is that coordinate of the previous step's
      released mean (0 at the first step).
    - PrivMean mean, (eps/4, delta/4): coordinates clipped to [c_j - h, c_j + h],
      h = 3 sqrt(Lambda) ln(B p / tau_t); one replaced row moves the mean by at most
      2 h sqrt(p) / B in L2; Gaussian noise with sigma = gaussian_sigma(2 h sqrt(p)/B, ...)
      (:func:`priv_mean`). Sensitivity and sigma are sqrt(Lambda) times their values at
      Lambda = 1, 6 sqrt(p) ln(B p / tau_t) / B and its sigma, which the ledger row and the
      fit's ``sensitivity`` and ``noise_sd`` record (public: B, p, tau_t, eps, delta; their
      ratio is every step's). No public bound on Lambda exists, so no worst-case sd is shown.

    Stable histogram under replace-one: Laplace(2/eps) noise on the non-empty bins (two
    counts change by 1: L1 sensitivity 2) and only a bin whose noisy count exceeds
    1 + 2 ln(1/delta)/eps can win; a bin present in only one of the neighbours (count 1) passes
    with probability <= exp(-eps (t-1)/2)/2 <= delta/2, so the release is (eps, delta)-DP
    (Bun, Nissim & Stemmer 2016; the paper leaves its "DP histogram learner" undefined).
    The paper runs PrivRange and PrivMean on the first half of the batch with (eps/2,
    delta/2) each; here both see the whole batch and split the step's budget (basic
    composition), no amplification is claimed, and the paper's add/remove neighbours become
    replace-one (the factors of 2 above).

    Minimum sample size (public n only). PrivRange's stable histogram can name a bin only if
    more than t_r groups fall in it; the group spreads fall in one or two adjacent bins, so
    N = 2 (t_r + three Laplace scales) groups, each of at least 8 differences, are needed:
    B >= B_min = 2 x 8 x N paired differences (:func:`k_dp_pca_minimum_batch`), and
    n >= n_min = 2 k B_min rows. For k = 2:

    ==========  =======  =======  =======  =======
    delta       eps = 1  eps = 2  eps = 4  eps = 8
    ==========  =======  =======  =======  =======
    1e-5        7,936    4,032    2,112    1,152
    0.01        4,416    2,304    1,216    704
    ==========  =======  =======  =======  =======

    Three deviations from the printed algorithm make it run at these sizes; each was measured
    on the paper's spiked matrix model (A_i = V diag(10, 5) V^T + z z^T, sigma = 0.025,
    d = 200, eps = 1, delta = 0.01, benchmarks/reproduce_dungler_sanyal.py):

    1. PrivRange bins of ratio 2 instead of 2^(1/4): a group spread is the top eigenvalue of a
       few outer products of heavy-tailed gradient differences and varies by more than
       2^(1/4) between groups, so with the paper's bins 75-90% of the steps returned "bottom"
       (n = 10^5, B = 1,100-4,400); with ratio 2, 0-1 of 90 did (utility 0.55-0.69 -> 0.83).
    2. Groups of at least 8 differences: with one difference per group (the paper's
       B = sqrt(n) at n = 2 x 10^4) 130 of 144 steps returned "bottom".
    3. A centre histogram that finds no bin centres its coordinate at the previous step's
       released mean (0 at the first step; post-processing of its private "bottom" and of
       earlier releases; the paper fails the step). At about eps / (4 sqrt(2 p
       ln(8p/delta))) per coordinate each needs a bin holding more than 1 + 2 ln(1/delta_j)/eps_j
       values (about 5,000 at p = 200, eps = 1, delta = 0.01), and the bins have an edge at 0
       where most coordinates' means lie, so half the batch falls on each side: requiring it
       of every coordinate would put n_min at ~10^8 at the paper's B = sqrt(n).
       The previous mean is close to the current one once the iterate settles, and the
       clipping half-width h ~ 60 sqrt(Lambda) is ~5 bin widths. Centring at 0 instead clipped
       the coordinates with a large mean and capped the utility at 0.84 in the low-noise
       spiked model (n = 2 x 10^4 - 10^5); with the previous mean it reaches 0.99-1.00.

    With all three, in that model k-DP-PCA reaches a utility of 0.08, 0.32, 0.74, 0.99, 1.00,
    1.00 at n = 2,500, 5,000, 10^4, 2 x 10^4, 5 x 10^4, 10^5 (50 trials; k-DP-Ojas 0.01-0.48),
    but Analyze Gauss with a model-based trace bound is at 1.00 from n = 2,500: with the
    paper's lambda = (10, 5) and replace-one accounting, the paper's claim that k-DP-PCA beats
    DP-Gauss-1 in the low-noise regime does not reproduce at any n where k-DP-PCA can run
    (it ties from n = 2 x 10^4). At sigma = 1 it stays at the random level (0.12-0.13), and
    on row data (A_i = x_i x_i^T, k = 2) at every sigma, because there the gradients spread
    with the signal itself.

    Our earlier C_1 = 8 with the failure probability inside the log, bins of ratio 2^(1/4) and
    failing steps made the method refuse every dataset below 1,252-1,270 rows per batch and
    return "bottom" above it. Beyond n_min the method runs, but on row data it beats a random
    subspace only when the T = n/(2 k B) Oja steps average PrivMean's noise (sd ~ 2 h sqrt(p)
    / B per step, h set by the spread of the gradients (x.w) x, which for k >= 2 includes the
    signal itself); on the five small scikit-learn datasets n < n_min at eps <= 4
    (benchmarks/bench_methods_real.py).

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
    chunks = split_chunks(rows, k)
    plan = batch_plan(min(len(c) for c in chunks), rows.shape[1], k, eps, delta, batch_size,
                 learning_rate, failure_prob, range_constant)
    outcome = {"failed": 0, "steps": 0, "zero_centres": 0}
    U = deflate(chunks, rng, lambda chunk, U: modified_dp_pca(chunk, U, plan, rng, calibration,
                                                                 outcome))
    sigma, sensitivity = _record_k_dp_pca(ledger, plan, calibration)
    return DirectionFit(orient(U), np.full(k, np.nan), f"Gaussian ({calibration}) + stable histograms",
                        sensitivity, sigma,
                        notes=[f"k-DP-PCA: {k} chunk(s), {plan['T']} steps of {plan['B']} paired "
                               f"differences each; {outcome['failed']} of {outcome['steps']} steps "
                               "returned 'bottom' (no PrivRange bin passed) and were skipped; "
                               f"{outcome['zero_centres']} coordinate centre(s) taken from the "
                               "previous step's mean. "
                               "PrivMean's noise is adaptive: sensitivity and noise sd are shown "
                               "per unit sqrt(Lambda); each step's are sqrt(Lambda) times these, "
                               "Lambda its PrivRange release."])


def split_chunks(rows: np.ndarray, k: int) -> list:
    if rows.shape[0] < k:
        raise DPPCAValueError(f"this method needs at least {2 * k} rows for k={k} (one paired "
                              f"difference per component); got {2 * rows.shape[0]} or fewer")
    return np.array_split(rows, k)


def deflate(chunks, rng, oracle) -> np.ndarray:
    """Algorithm 1: one oracle call per disjoint chunk, each in the complement of the previous."""
    p = chunks[0].shape[1]
    U = np.zeros((p, 0))
    for chunk in chunks:
        u = project(oracle(chunk, U), U)
        U = np.column_stack([U, u / np.linalg.norm(u)])
    return U


def project(v: np.ndarray, U: np.ndarray) -> np.ndarray:
    return v - U @ (U.T @ v)


def random_start(U: np.ndarray, rng) -> np.ndarray:
    w = project(rng.standard_normal(U.shape[0]), U)
    return w / np.linalg.norm(w)


def _histogram_threshold(eps: float, delta: float) -> float:
    """Count a bin of the stable histogram must beat: 1 + 2 ln(1/delta)/eps (:func:`_stable_mode`)."""
    return 1 + 2 * math.log(1 / delta) / eps


def k_dp_pca_minimum_batch(eps: float, delta: float, range_constant=RANGE_CONSTANT) -> int:
    """Smallest batch B (paired differences per Oja step) k-DP-PCA accepts; public inputs only.

    B_min = 2 x 8 x G: PrivRange pairs the B gradients into B/2 differences split into
    G = max(8, ceil(C_1 (t_r + 6/eps_r))) groups of at least 8 (t_r = 1 + 2 ln(1/delta_r)/eps_r,
    the threshold of its stable histogram at (eps_r, delta_r) = (eps/2, delta/2), plus three
    Laplace scales); the fullest bin can pass only if more than t_r groups share it. The
    minimum number of rows is n_min = 2 k B_min (one batch per component). The centre
    histograms of PrivMean do not enter: one that finds no bin reuses the previous step's mean.

    Examples
    --------
    >>> from dppca.methods.k_dp_pca import k_dp_pca_minimum_batch
    >>> k_dp_pca_minimum_batch(1.0, 1e-5)
    1984
    """
    return 2 * GROUP_SIZE * _groups(range_constant, eps / 2, delta / 2)


def _groups(range_constant, eps, delta) -> int:
    """G = max(8, ceil(C_1 (t + 3 x 2/eps))): the threshold plus three Laplace scales, doubled."""
    return max(MIN_GROUPS, math.ceil(range_constant * (_histogram_threshold(eps, delta) + 6 / eps)))


def batch_plan(chunk_len, p, k, eps, delta, batch_size, learning_rate, failure_prob, range_constant) -> dict:
    """Batch size, steps, budgets and group count of k-DP-PCA (public quantities only)."""
    c1 = float_arg(range_constant, "range_constant", positive=True)
    tau = float_arg(failure_prob, "failure_prob", open_unit=True)
    minimum = k_dp_pca_minimum_batch(eps, delta, c1)
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
    return {"B": B, "T": T, "p": p, "tau": tau, "groups": groups, "range": (eps_r, delta_r),
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


def modified_dp_pca(chunk, U, plan, rng, calibration, outcome, offset=None) -> np.ndarray:
    """Algorithm 2 on one chunk: minibatch Oja with PrivRange + PrivMean gradient releases.

    ``offset`` and the step rule ``plan["eta"](t, i)`` (i = index of the component) as in
    :func:`dppca.methods.k_dp_ojas.dp_oja` (benchmarks use them for the paper's matrix model and step sizes).
    """
    w = random_start(U, rng)
    projected = chunk - (chunk @ U) @ U.T
    B = plan["B"]
    eta = plan.get("eta") or (lambda t, i: plan["eta0"] / (1 + t))
    previous = np.zeros(projected.shape[1])
    for t in range(1, plan["T"] + 1):
        batch = projected[(t - 1) * B:t * B]
        G = (batch @ w)[:, None] * batch
        if offset is not None:
            G += offset(w, U)
        mean = _private_gradient_mean(G, plan, rng, calibration, outcome, previous)
        outcome["steps"] += 1
        if mean is None:
            outcome["failed"] += 1
            continue
        previous = mean
        w = project(w + eta(t, U.shape[1]) * mean, U)
        w /= np.linalg.norm(w)
    return w


def _private_gradient_mean(G, plan, rng, calibration, outcome, fallback):
    """PrivRange then PrivMean (Algorithms 6 and 7); None when PrivRange finds no bin.

    A centre histogram that finds no bin centres its coordinate at ``fallback`` (the previous
    step's released mean, or 0 at the first step): post-processing of its private "bottom"
    output and of earlier releases (the paper fails the whole step instead).
    """
    level = _private_range(G, plan, rng)
    if level is None:
        return None
    B, p = G.shape
    root = math.sqrt(level)
    width = 2 ** 0.25 * root * math.log(25) ** 2
    centres = np.empty(p)
    for j in range(p):
        key = _stable_mode(np.floor(G[:, j] / width), *plan["centre"], rng)
        outcome["zero_centres"] += key is None
        centres[j] = fallback[j] if key is None else key * width
    return centres + priv_mean(G, centres, mean_half_width(level, plan), *plan["mean"], rng, calibration)


def _private_range(G, plan, rng):
    """Algorithm 6: a private scale Lambda of the gradient spread, or None ("bottom")."""
    half = G.shape[0] // 2
    differences = G[1:2 * half:2] - G[0:2 * half:2]
    size = half // plan["groups"]
    blocks = differences[:size * plan["groups"]].reshape(plan["groups"], size, -1)
    spread = np.array([np.linalg.norm(b, 2) ** 2 / size for b in blocks])
    keys = np.where(spread > 0, np.floor(np.log2(np.where(spread > 0, spread, 1.0)) / RANGE_BIN_LOG2), -np.inf)
    key = _stable_mode(keys, *plan["range"], rng)
    if key is None or not np.isfinite(key):
        return None
    return 2.0 ** (key * RANGE_BIN_LOG2)


def _stable_mode(keys: np.ndarray, eps: float, delta: float, rng):
    """Key of the fullest bin of an (eps, delta)-DP stable histogram, or None if none passes.

    Laplace(b) on each non-empty bin's count, b >= 2/eps from the exact sampler (floating-point
    safe; its slack uses the public bound keys.size on the number of non-empty bins, never
    that number); a bin wins only above 1 + b ln(1/delta), which is 1 + 2 ln(1/delta)/eps at
    b = 2/eps (replace-one proof in :func:`k_dp_pca_directions`). Only the winner (or None)
    leaves this function.
    """
    values, counts = np.unique(keys, return_counts=True)
    noisy, scale = add_laplace_noise(counts.astype(float), 2.0 / eps, 2.0, rng, dimension=keys.size)
    best = int(np.argmax(noisy))
    if noisy[best] <= 1 + scale * math.log(1 / delta):
        return None
    return float(values[best])


def _record_k_dp_pca(ledger, plan, calibration):
    """The three ledger rows of k-DP-PCA: public facts only (plan, budget, calibration).

    PrivMean's noise adapts to the data: each batch's sensitivity and sd are sqrt(Lambda)
    times the row's, Lambda that batch's PrivRange release. The row records the calibration
    at Lambda = 1 (:func:`mean_half_width`), whose ratio sigma / sensitivity is every batch's,
    not a summary of the released Lambdas (which would differ between neighbours).
    """
    sensitivity, sigma = priv_mean_calibration(mean_half_width(1.0, plan), plan["B"], plan["p"],
                                               *plan["mean"], calibration)
    e_c = plan["centre"][0]
    ledger.record("directions: PrivRange stable histograms, one per batch (disjoint batches)",
                  "Laplace + threshold", 2.0, "L1", 2.0 / plan["range"][0], *plan["range"])
    ledger.record(f"directions: PrivMean centre histograms, eps {e_c:.3g} per coordinate",
                  "Laplace + threshold", 2.0, "L1", 2.0 / e_c, *plan["centre_total"])
    ledger.record("directions: PrivMean clipped gradient mean per batch (adaptive noise: "
                  "sensitivity and sd per unit sqrt(Lambda), Lambda the batch's PrivRange release)",
                  f"Gaussian ({calibration})", sensitivity, "L2", sigma, *plan["mean"])
    return sigma, sensitivity

__all__ = ["clipped_mean", "k_dp_pca_directions", "k_dp_pca_minimum_batch", "mean_half_width",
           "priv_mean", "priv_mean_calibration"]
