"""Cai, Xia & Zha (2024): Gaussian perturbation of the empirical spectral projector (model-based DP)."""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError, float_arg
from ..privacy import Ledger, gaussian_sigma
from ..privacy.samplers import add_symmetric_gaussian_noise
from ._base import DirectionFit, top_eigen
from ._shared import paired_differences

#: Constant C_2 of the projector sensitivity; the paper leaves it unspecified, Kim & Jung
#: (2025, Appendix C.2) use 4, which we keep.
PROJECTOR_CONSTANT = 4.0

MODEL_NOTE = ("PRIVACY HOLDS ONLY UNDER THE MODEL: the sensitivity of Cai, Xia & Zha (2024) is a "
              "high-probability bound for iid Gaussian rows with a spiked covariance "
              "(noise_variance, spike as given); it is not worst-case (eps, delta)-DP, and one "
              "outlying row can exceed it.")


def cai_xia_zha_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                           rng: np.random.Generator, calibration: str, ledger: Ledger,
                           noise_variance=None, spike=None,
                           constant=PROJECTOR_CONSTANT) -> DirectionFit:
    """Top-k eigenvectors of the noisy empirical spectral projector (Cai, Xia & Zha, Algorithm 1).

    Parameters
    ----------
    values : ndarray, shape (n, p), n >= 2
    k : int, 1 <= k <= p
        The rank r of the spiked model.
    eps, delta : float
        Budget of the call (all of it on the projector: only directions are released).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    noise_variance : float, > 0, required
        sigma^2 of the model Sigma = U Lambda U^T + sigma^2 I (declared public model knowledge).
    spike : float, > 0, required
        The spike size lambda of the model (declared public model knowledge). Kim & Jung's
        simulation passes the largest eigenvalue of Sigma.
    constant : float, > 0
        C_2 of the sensitivity (default 4, Kim & Jung's choice).

    Returns
    -------
    DirectionFit
        Eigenvectors and eigenvalues of U_hat U_hat^T + E, U_hat the top-k eigenvectors of
        (1/m) sum_i w_i w_i^T over the m = floor(n/2) paired differences.

    Raises
    ------
    DPPCAValueError
        If ``noise_variance`` or ``spike`` is missing or not positive, or ``constant`` <= 0.

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

    Cost: O(n p^2 + p^3) time, O(p^2) memory.

    References
    ----------
    Cai, T. T., Xia, D. and Zha, M. (2024). Optimal differentially private PCA and estimation
    for spiked covariance matrices. arXiv:2401.03820, Algorithm 1, Lemma 2.3.
    """
    sigma2, lam = _model_parameters(noise_variance, spike)
    constant = float_arg(constant, "constant", positive=True)
    rows = paired_differences(values, rng)
    m, p = rows.shape
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
                        notes=[MODEL_NOTE, "Eigenvalues are those of the noisy projector (near 1), "
                               "not variances."])


def _model_parameters(noise_variance, spike) -> tuple[float, float]:
    if noise_variance is None or spike is None:
        raise DPPCAValueError("method 'cai_xia_zha' needs the model parameters `noise_variance` "
                              "(sigma^2) and `spike` (lambda), declared public: its sensitivity is "
                              "defined only under the spiked covariance model")
    return (float_arg(noise_variance, "noise_variance", positive=True),
            float_arg(spike, "spike", positive=True))
