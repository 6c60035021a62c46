"""k-DP-Ojas (Duengler & Sanyal 2025): deflation (Algorithm 1) with the clipped noisy Oja oracle.

The deflation, chunks and privacy argument are those of :mod:`.k_dp_pca`: by default adaptive
parallel composition over disjoint chunks and steps, no amplification by shuffling claimed.
``amplification="shuffle"`` (opt-in) runs the steps in a secret uniformly random order and
calibrates each step with :mod:`dppca.privacy.shuffle` (Feldman, McMillan & Talwar 2021).
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError, float_arg, option_arg
from ..privacy import Ledger, gaussian_sigma
from ..privacy.samplers import GaussianSteps
from ..privacy.shuffle import shuffle_local_budget
from ._base import DirectionFit, orient
from ._shared import (BOUND_QUANTILE, BOUND_SHARE, clip_rows, finite_rows, paired_differences,
                      resolve_norm_bound)
from .k_dp_pca import split_chunks, deflate, project, random_start

#: Default eta_0 of k-DP-Ojas's steps eta_t = eta_0 / ((1 + t) beta), dimensionless (see the
#: docstring of :func:`k_dp_ojas_directions` for how it was chosen).
OJA_LEARNING_RATE = 30.0
#: Privacy accounting of the steps: parallel composition only, or amplification by shuffling.
AMPLIFICATIONS = ("none", "shuffle")
#: "pairs": paired differences (mean-free, the default); "none": the rows as given, for data
#: whose mean is declared public and 0 (the paper's A_i = x_i x_i^T).
CENTRINGS = ("pairs", "none")
#: zeta of the declared-model bound: the probability that some row exceeds it (Appendix G).
MODEL_FAILURE_PROB = 0.01

def k_dp_ojas_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                         rng: np.random.Generator, calibration: str, ledger: Ledger,
                         norm_bound=None, bound_quantile=BOUND_QUANTILE, bound_share=BOUND_SHARE,
                         learning_rate=OJA_LEARNING_RATE, amplification="none", centring="pairs",
                         top_eigenvalue=None, noise_sd=None) -> DirectionFit:
    """Fit k-DP-Ojas: deflation (Algorithm 1) with the clipped noisy Oja oracle DP-Ojas (Algorithm 3).

    Parameters
    ----------
    values : ndarray, shape (n, p)
        The data rows; floor(n/2) >= k (n >= k with ``centring="none"``).
    k : int
        Number of directions, 1 <= k <= p.
    eps, delta : float
        Budget of the call (bound and Oja steps).
    rng : numpy.random.Generator
        Draws the pairing, the secret order (``amplification="shuffle"``), the starts and noise.
    calibration : {"analytic", "classic"}
        Gaussian calibration of the steps (with ``amplification="shuffle"`` the local steps are
        always calibrated analytically: the classic formula has no proof at eps0 >= 1).
    ledger : Ledger
        Receives the releases (and the declared model, at no cost).
    norm_bound, bound_quantile, bound_share : float, optional
        Bound C on the row norms (public, or private as in
        :func:`.analyze_gauss.analyze_gauss_directions`); the gradients are clipped at
        beta = C^2 (the Oja gradient (x.w) P x has norm at most ||x||^2).
    learning_rate : float, > 0
        Dimensionless eta_0 of the steps eta_t = eta_0 / ((1 + t) beta) (default 30). The
        paper's experimental rule eta_t = 1/(1 + t) (Appendix G) is in units of 1/data^2: it
        fits its lambda_1 = 10 but on data in other units (entries ~0.05: steps 10^-3 of the
        data's scale) the iterate never leaves its random start (sin-theta 0.98-1.00 even at
        eps = 10^6). Dividing by the clipping level beta (public or private) makes the method
        invariant to the data's units; eta_0 = 30 was the best of 1, 3, 10, 30, 100 without
        noise (eps = 10^6), 6 seeds on each data set of benchmarks/bench_methods_real.py and on a
        2-spiked model.
    amplification : {"none", "shuffle"}
        ``"none"`` (default): each step is (eps', delta')-DP and the run is by parallel
        composition. ``"shuffle"``: the steps run over the records in a secret uniformly random
        order drawn from ``rng`` (never released) and each step gets the largest local
        (eps0, delta0) whose amplified guarantee meets (eps', delta')
        (:func:`dppca.privacy.shuffle.shuffle_local_budget`); the smaller of the two noise
        levels is used (both are proven; the choice depends on public n, eps, delta only).
        Below the range of the shuffling theorem (small n) no amplification is claimed and
        the ledger says so.
    centring : {"pairs", "none"}
        ``"pairs"`` (default): paired differences (x_a - x_b)/sqrt(2) (no mean needed).
        ``"none"``: the rows as given, which declares their mean public and equal to 0 (the
        paper's A_i = x_i x_i^T); twice the steps, but a nonzero mean then biases the result.
    top_eigenvalue, noise_sd : float, optional
        Public model knowledge (declared together): lambda_1 of the covariance and the noise
        sd sigma of the paper's spiked model. The row-norm bound is then the paper's
        C = sqrt(lambda_1) + sigma sqrt(p log(m/zeta)) (Appendix G, zeta = 0.01, m rows fed),
        recorded on the ledger as "public (declared)" at no cost; it replaces the private
        bound (do not also pass ``norm_bound``). Rows beyond it are clipped, so a wrong
        declaration costs accuracy, never privacy.

    Returns
    -------
    DirectionFit
        The k deflated unit vectors; eigenvalues are nan (no matrix is released).

    Raises
    ------
    DPPCAValueError
        If there are fewer rows than k, an option is out of range, only one of
        ``top_eigenvalue`` / ``noise_sd`` is given, or a declared model comes with
        ``norm_bound``.

    Notes
    -----
    Each step t of chunk i releases (through w_t) g_t + N(0, sigma^2 I), g_t = clip_beta((x_t .
    P w) P x_t). One replaced row changes one g_t by at most 2 beta in L2 norm, so sigma =
    gaussian_sigma(2 beta, eps', delta') makes the step (eps', delta')-DP, and by parallel
    composition (module docstring) the run too: per step, alpha = sqrt(2 ln(1.25/delta))/eps in
    the paper's notation (classic calibration), the conservative multiplier of the peer-paper
    summary, valid for every eps. (eps', delta') = the budget left after the private bound.
    The paper assumes add/remove neighbours (sensitivity beta per step); replace-one doubles it.

    Amplification by shuffling (opt-in). Each step is a local randomizer of one record:
    (eps0, delta0)-DP for any two values of that record, given the earlier outputs (the
    iterate, the deflation frame). Run over a uniformly random permutation of the m records
    that stays secret, the m steps are (eps', delta')-DP with eps0 larger than eps' (Feldman,
    McMillan & Talwar 2021, Theorem 3.8 with Theorem 3.1's closed form and its range
    eps0 <= log(m / (16 log(4/delta_s))), replace-one): e.g. m = 5,000 at (eps', delta') =
    (0.8, 0.01) allows eps0 = 2.97, delta0 = 3.0e-7. Below that range (m <= 591 at (1, 1e-5))
    no amplification is claimed and the steps get the parallel-composition noise; at
    (1, 1e-5) the shuffled noise is the smaller from m = 967 on. The proof needs the secret
    shuffle: if a caller fixes the order (sorted rows, a released permutation, reusing the
    generator's state), an adversary knows which step saw a record and only the parallel
    composition bound eps0 holds for it, several times the claimed eps'. The paper's printed
    multiplier alpha = log(n/delta)/(eps sqrt(n)) (Theorem 10) claims more than this bound
    gives and only for eps = O(sqrt(log(n/delta)/n)); it is not used. k-DP-PCA cannot use the
    argument: its steps read batches of B records, not one.

    Minimum sample size. With this calibration each step adds noise of norm about
    2 beta sqrt(2 ln(1.25/delta) p) / eps, against a signal (Sigma w) of norm at most lambda_1
    <= beta / 4; an Oja iteration averages it away only over about
    m >> (2 ln(1.25/delta)) (2/eps)^2 p (beta / gap)^2 steps (gap = lambda_k - lambda_{k+1}),
    which involves the eigengap and so cannot be checked on public quantities: the method runs
    for every n >= 2k, and is close to a random subspace below that size. On small
    standardised data (n <= 1,797) it is at the random level (median sin-theta 0.97-1.00 at
    eps = 0.5-4, benchmarks/bench_methods_real.py; 0.95-1.00 at eps = 2, 4, 8 with eta_0 in
    {10, 30, 100}): e.g. 13 standardised columns with a small eigengap need m of about
    10^6 / eps^2. On the paper's Figure 4 setting (Gaussian rows,
    d = 200, lambda = (10, 5), sigma = 0.025, eps = 1, delta = 0.01; utility 1 = perfect,
    0.010 = random; benchmarks/reproduce_dungler_sanyal.py --figure4, docs/choosing.md) the
    defaults give 0.009-0.011 for n = 2,500-20,000 with either calibration; with the paper's
    settings declared (centring="none", top_eigenvalue, noise_sd, learning_rate = beta) the
    shuffled calibration gave 0.017 at n = 10^4, 0.029 at 2 x 10^4 (50 trials), 0.34 at
    5 x 10^4 and 0.59 at 10^5 (4 trials), against 0.996-1.000 for Analyze Gauss. Those runs
    used FMT21's numerical bound for eps0 (4.8-8.5, noise sd 1.04-0.71 x 2 beta), which
    Theorem 3.8 does not cover; the closed form now used gives eps0 = 2.9-6.5 and sd
    1.62-0.90 x 2 beta (1.3-1.6x more noise; parallel composition: 1.88), not re-measured.

    Cost: O(n p k) time, O(p k) memory, one pass, one Python-level step per row fed.

    References
    ----------
    Duengler, J. and Sanyal, A. (2025). An iterative algorithm for differentially private
    k-PCA with adaptive noise. arXiv:2508.10879, Algorithms 1 and 3, Theorem 10, Appendix G.
    Feldman, V., McMillan, A. and Talwar, K. (2021). Hiding among the clones: a simple and
    nearly optimal analysis of privacy amplification by shuffling. FOCS 2021, arXiv:2012.12803.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.k_dp_ojas import k_dp_ojas_directions
    >>> from dppca.privacy import Ledger
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3.0, 1.0, 0.5]
    >>> ledger = Ledger(1.0, 1e-5)
    >>> fit = k_dp_ojas_directions(X, 1, eps=1.0, delta=1e-5, rng=np.random.default_rng(1),
    ...                            calibration="analytic", ledger=ledger, amplification="shuffle",
    ...                            centring="none", top_eigenvalue=9.0, noise_sd=1.0)
    >>> fit.vectors.shape, list(ledger.to_frame()["mechanism"])
    ((3, 1), ['public (declared)', 'Gaussian (analytic) + shuffling'])
    """
    amplification = option_arg(amplification, "amplification", AMPLIFICATIONS)
    centring = option_arg(centring, "centring", CENTRINGS)
    rows = paired_differences(values, rng) if centring == "pairs" else finite_rows(values)
    if amplification == "shuffle":
        rows = rows[rng.permutation(rows.shape[0])]  # the secret order: never released
    chunks = split_chunks(rows, k)
    eta0 = float_arg(learning_rate, "learning_rate", positive=True)
    bound, eps_m, delta_m = _row_bound(rows, norm_bound, bound_quantile, bound_share, eps, delta,
                                       rng, ledger, top_eigenvalue, noise_sd)
    beta = bound ** 2
    sigma, mechanism, how = _step_noise(2 * beta, eps_m, delta_m, rows.shape[0], calibration,
                                        amplification)
    ledger.record(f"directions: noisy Oja steps, one row each ({how})", mechanism, 2 * beta, "L2",
                  sigma, eps_m, delta_m)
    U = deflate(chunks, rng, lambda chunk, U: dp_oja(chunk, U, beta, sigma, eta0 / beta, rng))
    return DirectionFit(orient(U), np.full(k, np.nan), mechanism, 2 * beta, sigma,
                        notes=[f"k-DP-Ojas: {k} chunk(s) of about {len(chunks[0])} "
                               f"{'paired differences' if centring == 'pairs' else 'rows (mean declared 0)'}"
                               f", one noisy Oja step each ({how}); gradients clipped at "
                               f"{beta:.4g}."])


def _row_bound(rows, norm_bound, bound_quantile, bound_share, eps, delta, rng, ledger,
               top_eigenvalue, noise_sd):
    """Row-norm bound C: declared model (public, recorded at no cost), public, or private."""
    if top_eigenvalue is None and noise_sd is None:
        return resolve_norm_bound(rows, norm_bound, bound_quantile, bound_share, eps, delta, rng,
                                  ledger, "k_dp_ojas")
    if top_eigenvalue is None or noise_sd is None or norm_bound is not None:
        raise DPPCAValueError("`top_eigenvalue` and `noise_sd` declare the model together, and "
                              "replace `norm_bound`; got top_eigenvalue="
                              f"{top_eigenvalue!r}, noise_sd={noise_sd!r}, norm_bound={norm_bound!r}")
    lam = float_arg(top_eigenvalue, "top_eigenvalue", positive=True)
    sd = float_arg(noise_sd, "noise_sd", nonnegative=True)
    m, p = rows.shape
    bound = math.sqrt(lam) + sd * math.sqrt(p * math.log(max(m, 1) / MODEL_FAILURE_PROB))
    ledger.record(f"k_dp_ojas: row-norm bound {bound:.4g} = sqrt(lambda_1) + sigma sqrt(p log(m/"
                  f"zeta)) from the declared lambda_1 = {lam:g}, sigma = {sd:g}", "public (declared)",
                  float("nan"), "L2", float("nan"), 0.0, 0.0)
    return bound, eps, delta


def _step_noise(sensitivity, eps, delta, m, calibration, amplification):
    """Noise sd of one Oja step, its mechanism label and a phrase for the ledger and notes."""
    parallel = gaussian_sigma(sensitivity, eps, delta, calibration)
    if amplification == "none":
        return parallel, f"Gaussian ({calibration})", "disjoint steps, parallel composition"
    local = shuffle_local_budget(m, eps, delta)
    if not local.amplified:  # public: m, eps and delta only
        return parallel, f"Gaussian ({calibration})", \
            (f"secret random order; no amplification claimed: m = {m} steps are below the range "
             "of FMT21 Theorem 3.8 at this budget, parallel composition")
    shuffled = gaussian_sigma(sensitivity, local.eps0, local.delta0, "analytic") \
        if local.delta0 > 0 else math.inf
    if shuffled >= parallel:
        return parallel, f"Gaussian ({calibration})", \
            "secret random order; parallel composition needed less noise at this n"
    return shuffled, "Gaussian (analytic) + shuffling", \
        (f"secret random order, amplification by shuffling: local eps0 = {local.eps0:.3g}, "
         f"delta0 = {local.delta0:.2g}")


def dp_oja(chunk, U, beta, sigma, eta0, rng, offset=None) -> np.ndarray:
    """Algorithm 3 on one chunk: w <- P(w + eta_t (clip_beta(g_t) + noise)), normalised.

    ``offset(w, U)``, if given, adds a deterministic P S P w to every sample's gradient: the
    samples are then A_i = S + x_i x_i^T (Duengler & Sanyal's spiked matrix model; benchmarks).
    """
    w = random_start(U, rng)
    projected = chunk - (chunk @ U) @ U.T
    noise = GaussianSteps(sigma, 2 * beta, projected.shape, rng)
    for t, x in enumerate(projected, start=1):
        shift = None if offset is None else offset(w, U)
        w = project(w + eta0 / (1 + t) * noise.add(t - 1, oja_gradient(x, w, beta, shift)), U)
        w /= math.sqrt(w @ w)
    return w


def oja_gradient(x: np.ndarray, w: np.ndarray, beta: float, shift=None) -> np.ndarray:
    """clip_beta((x . w) x [+ shift]) for a projected row x and unit w in Im(P): the released
    statistic of one DP-Ojas step; two rows give vectors at most 2 beta apart (replace-one
    sensitivity)."""
    if shift is not None:  # the benchmarks' deterministic matrix model
        with np.errstate(over="ignore", invalid="ignore"):
            g = finite_rows(((x @ w) * x + shift)[None, :])[0]
        return clip_rows(g[None, :], beta)[0]
    # (x . w) x = s^2 (u . w) u with u = x / s, s a power of two: no overflow on the way.
    big = float(np.max(np.abs(x), initial=0.0))
    if big == 0.0:
        return np.zeros_like(x)
    exponent = math.frexp(big)[1]
    u = np.ldexp(x, -exponent)  # exact, also for subnormal x
    a, length = float(u @ w), math.sqrt(u @ u)
    # ||g|| = 2^(2 e) |a| length > beta, compared without forming 2^(2 e) (it may overflow)
    if a != 0 and math.log2(abs(a) * length) + 2 * exponent > math.log2(beta):
        return u * (math.copysign(beta, a) / length)
    return np.ldexp(a * u, 2 * exponent)

__all__ = ["k_dp_ojas_directions", "oja_gradient"]
