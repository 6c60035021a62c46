"""Cai, Xia & Zha (2024): Gaussian perturbation of the empirical spectral projector (model-based DP)."""
from __future__ import annotations

import math

import numpy as np

from .._validation import float_arg
from ..privacy import Ledger, gaussian_sigma, split_budget
from ..privacy.samplers import add_symmetric_gaussian_noise
from ._base import DirectionFit, top_eigen
from ._shared import BOUND_QUANTILE, clip_rows, paired_differences, resolve_norm_bound
from .analyze_gauss import noisy_second_moment

#: Constant C_2 of the projector sensitivity; the paper leaves it unspecified, Kim & Jung
#: (2025, Appendix C.2) use 4, which we keep.
PROJECTOR_CONSTANT = 4.0
#: Default share of (eps, delta) spent on estimating (noise_variance, spike) when not given.
PARAMETER_SHARE = 0.25
#: Share of that part spent on the clipping bound (the median norm): the grid quantile needs
#: share x eps x m of about 30 to land near the data (:func:`._shared.resolve_norm_bound`).
PARAMETER_BOUND_SHARE = 0.5

MODEL_NOTE = ("PRIVACY HOLDS ONLY UNDER THE MODEL: the sensitivity of Cai, Xia & Zha (2024) is a "
              "high-probability bound for iid Gaussian rows with a spiked covariance "
              "(noise_variance, spike as given or privately estimated); it is not worst-case (eps, delta)-DP, and one "
              "outlying row can exceed it.")


def cai_xia_zha_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                           rng: np.random.Generator, calibration: str, ledger: Ledger,
                           noise_variance=None, spike=None, constant=PROJECTOR_CONSTANT,
                           parameter_share=PARAMETER_SHARE) -> DirectionFit:
    """Top-k eigenvectors of the noisy empirical spectral projector (Cai, Xia & Zha, Algorithm 1).

    Parameters
    ----------
    values : ndarray, shape (n, p), n >= 2
    k : int, 1 <= k <= p
        The rank r of the spiked model.
    eps, delta : float
        Budget of the call: the projector, plus the parameter estimate when a model parameter
        is not given.
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    noise_variance : float, > 0, optional
        sigma^2 of the model Sigma = U Lambda U^T + sigma^2 I (declared public model knowledge).
        Default: estimated privately (see Notes).
    spike : float, > 0, optional
        The spike size lambda of the model (declared public model knowledge). Kim & Jung's
        simulation passes the largest eigenvalue of Sigma. Default: estimated privately as a
        lower bound on lambda_k (see Notes).
    constant : float, > 0
        C_2 of the sensitivity (default 4, Kim & Jung's choice).
    parameter_share : float in (0, 1)
        Share of (eps, delta) spent on the parameter estimate when ``noise_variance`` or
        ``spike`` is missing (default 0.25; unused when both are given).

    Returns
    -------
    DirectionFit
        Eigenvectors and eigenvalues of U_hat U_hat^T + E, U_hat the top-k eigenvectors of
        (1/m) sum_i w_i w_i^T over the m = floor(n/2) paired differences.

    Raises
    ------
    DPPCAValueError
        If ``noise_variance``, ``spike`` or ``constant`` is given and not positive, or
        ``parameter_share`` is not in (0, 1).

    Notes
    -----
    Privacy: MODEL-CONDITIONAL. Cai, Xia & Zha (2024, Lemma 2.3) show that, for iid N(0, Sigma)
    rows with Sigma spiked, with probability >= 1 - e^{-c p} - 3 n^{-9} - 10^{-20 r~} over the
    data, replacing one row by an independent copy moves U_hat U_hat^T by at most
    Delta = C_2 (sigma^2/lambda + sqrt(sigma^2/lambda)) sqrt(p (r + log m)) / m in Frobenius
    norm. The Gaussian mechanism with that Delta is then (eps, delta)-DP *on that event only*:
    no clipping is done, the neighbour is a draw from the model (not an arbitrary row), and the
    constant C_2 is not given by the paper. There is no worst-case guarantee; the summary
    says so. Here n is replaced by m, the number of paired differences (the sample the
    projector is computed from; a larger, more conservative Delta than with n). The noise is
    vecd^-1(xi) (diagonal sd sigma, off-diagonal sigma/sqrt(2)), the Gaussian mechanism in
    Frobenius norm; the paper draws all upper-triangle entries with sd sigma.
    The paper's neighbouring relation is already replace-one. Its second half (private
    eigenvalues in the private frame) is not run: the whole budget goes to the directions,
    as in Kim & Jung's simulation.

    Private model parameters (when either is not given). With (parameter_share eps,
    parameter_share delta), Analyze Gauss (:func:`.analyze_gauss.analyze_gauss_directions`:
    private row-norm bound C, then the clipped second moment of the paired differences plus
    symmetric Gaussian noise of sd s, worst-case DP) releases M-hat with eigenvalues
    mu_1 >= ... >= mu_p. By Weyl's inequality each mu_i is within r = 2 s sqrt(p) (about the
    spectral norm of the noise) of the clipped moment's eigenvalue, so the estimates are
    one-sided on purpose: sigma^2-hat = max(mean(mu_{k+1..p}), 0) + r (an upper bound) and
    lambda-hat = max(mu_k - r - sigma^2-hat, sigma^2-hat x 1e-6) (a lower bound on the k-th
    spike). Both enlarge Delta, which decreases in lambda/sigma^2: a poor estimate costs
    accuracy, not the (model-conditional) privacy. The estimates are post-processing of a
    worst-case DP release, so the ledger stays (eps, delta); the model-conditional caveat of
    the projector step is unchanged. A given parameter is used as is.

    On small real datasets these rigorous bounds are too loose for the method to beat a random
    subspace: at n <= 1,797 (standardised) and eps <= 4 the radius r exceeds the gap between
    the second and the bottom eigenvalues (sigma^2-hat about ten times a mean bottom
    eigenvalue below 1, so lambda-hat = 0), Delta is then that of a spike-free model and the
    directions are at the random level (benchmarks/bench_methods_real.py: median sin-theta
    0.93-1.00). The
    estimate becomes useful once r = 2 s sqrt(p) is well below lambda_k, i.e. roughly
    n eps >> C^2 p^(3/2) / lambda_k (e.g. n = 4,000, eps = 20 on a 2-spiked model in the tests).
    With model knowledge, pass ``noise_variance`` and ``spike``.

    Cost: O(n p^2 + p^3) time, O(p^2) memory.

    References
    ----------
    Cai, T. T., Xia, D. and Zha, M. (2024). Optimal differentially private PCA and estimation
    for spiked covariance matrices. arXiv:2401.03820, Algorithm 1, Lemma 2.3.
    """
    constant = float_arg(constant, "constant", positive=True)
    rows = paired_differences(values, rng)
    m, p = rows.shape
    (sigma2, lam), eps, delta, notes = _model_parameters(
        rows, k, noise_variance, spike, parameter_share, eps, delta, rng, calibration, ledger)
    _, basis = top_eigen(rows.T @ rows / m, k)
    ratio = sigma2 / lam
    sensitivity = constant * (ratio + math.sqrt(ratio)) * math.sqrt(p * (k + math.log(m))) / m
    sigma = gaussian_sigma(sensitivity, eps, delta, calibration)
    released, sigma = add_symmetric_gaussian_noise(basis @ basis.T, sigma, sensitivity, rng)
    mechanism = f"Gaussian ({calibration}), model-conditional"
    ledger.record("directions: spectral projector (Cai-Xia-Zha; sensitivity holds only under "
                  "the spiked Gaussian model)", mechanism, sensitivity, "Frobenius", sigma, eps, delta)
    eigenvalues, vectors = top_eigen(released, k)
    return DirectionFit(vectors, eigenvalues, mechanism, sensitivity, sigma,
                        notes=[MODEL_NOTE, *notes, "Eigenvalues are those of the noisy projector "
                               "(near 1), not variances."])


def _model_parameters(rows, k, noise_variance, spike, share, eps, delta, rng, calibration,
                      ledger: Ledger):
    """(sigma^2, lambda), the budget left for the projector, and notes for the summary."""
    given = {name: None if value is None else float_arg(value, name, positive=True)
             for name, value in (("noise_variance", noise_variance), ("spike", spike))}
    if None not in given.values():
        return (given["noise_variance"], given["spike"]), eps, delta, []
    share = float_arg(share, "parameter_share", open_unit=True)
    parts = split_budget(eps, delta, {"parameters": share, "projector": 1 - share})
    sigma2, lam = _private_parameters(rows, k, *parts["parameters"], rng, calibration, ledger)
    sigma2 = given["noise_variance"] if given["noise_variance"] is not None else sigma2
    lam = given["spike"] if given["spike"] is not None else lam
    note = (f"Model parameters estimated privately with {share:.0%} of the budget (Analyze Gauss "
            f"eigenvalues, one-sided bounds): noise_variance = {sigma2:.4g}, spike = {lam:.4g}.")
    return (sigma2, lam), *parts["projector"], [note]


def _private_parameters(rows, k, eps, delta, rng, calibration, ledger) -> tuple[float, float]:
    """Upper bound on sigma^2 and lower bound on the k-th spike from a noisy second moment."""
    bound, eps_m, delta_m = resolve_norm_bound(rows, None, BOUND_QUANTILE, PARAMETER_BOUND_SHARE,
                                               eps, delta, rng, ledger, "cai_xia_zha parameters",
                                               multiplier=1.0)
    released, _, sd = noisy_second_moment(clip_rows(rows, bound), bound, eps_m, delta_m, rng,
                                          calibration, ledger,
                                          step="directions: Cai-Xia-Zha model parameters "
                                               "(Analyze Gauss second moment)")
    p = rows.shape[1]
    mu = np.sort(np.linalg.eigvalsh((released + released.T) / 2))[::-1]
    radius = 2 * sd * math.sqrt(p)
    sigma2 = max(float(mu[k:].mean()) if p > k else 0.0, 0.0) + radius
    return sigma2, max(float(mu[k - 1]) - radius - sigma2, sigma2 * 1e-6)

__all__ = ["cai_xia_zha_directions"]
