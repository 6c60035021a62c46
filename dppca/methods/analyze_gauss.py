"""Analyze Gauss (Dwork, Talwar, Thakurta & Zhang 2014): noisy clipped second-moment matrix."""
from __future__ import annotations

import numpy as np

from ..privacy import Ledger, gaussian_sigma
from ..privacy.samplers import add_symmetric_gaussian_noise
from ._base import DirectionFit, top_eigen
from ._shared import (BOUND_QUANTILE, BOUND_SHARE, clip_rows, paired_differences,
                      resolve_norm_bound, second_moment_sensitivity)

METHOD = "analyze_gauss"


def analyze_gauss_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                             rng: np.random.Generator, calibration: str, ledger: Ledger,
                             norm_bound=None, bound_quantile=BOUND_QUANTILE,
                             bound_share=BOUND_SHARE) -> DirectionFit:
    """Analyze Gauss: top-k eigenvectors of a clipped second-moment matrix plus symmetric noise.

    Parameters
    ----------
    values : ndarray, shape (n, p), n >= 2
        Preprocessed data (rows = observations).
    k : int, 1 <= k <= p
    eps, delta : float
        Budget of the whole call (bound and matrix).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    norm_bound : float, optional
        Row-norm bound C, declared public by the caller (data units). Default: chosen privately.
    bound_quantile : float in (0, 1)
        Quantile of the paired-difference norms behind the private bound (default 0.5;
        C = 2 x that quantile).
    bound_share : float in (0, 1)
        Share of eps spent on the private bound (default 0.2; unused with ``norm_bound``).

    Returns
    -------
    DirectionFit
        Eigenvectors and eigenvalues of A + E, A = (1/m) sum_i clip_C(w_i) clip_C(w_i)^T over
        the m = floor(n/2) paired differences w_i (:func:`._shared.paired_differences`).

    Raises
    ------
    DPPCAValueError
        If ``norm_bound`` is not positive, or ``bound_quantile``/``bound_share`` not in (0, 1).

    Notes
    -----
    Privacy (replace-one, n public). A replaced row changes one paired difference, hence one
    term of A; with ||w|| <= C the Frobenius sensitivity is sqrt(2) C^2 / m
    (:func:`._shared.second_moment_sensitivity`). E = vecd^-1(xi), xi ~ N(0, sigma^2 I), sigma
    from :func:`dppca.privacy.gaussian_sigma`, is the Gaussian mechanism on vecd(A)
    (vecd is an isometry). The private bound C is a separate (bound_share eps, 0)-DP release;
    basic composition gives (eps, delta) in total. Directions are post-processing.

    Dwork et al. (2014, Algorithm 1) assume rows of norm <= 1 and add/remove neighbours
    (sensitivity 1); under replace-one the sensitivity is sqrt(2) times larger, as used here.
    Kim & Jung (2025, Appendix C.1) instead divide the centred rows by their largest norm,
    a data-dependent scale that is not accounted for, so that version is not DP; this one
    clips to a private (or public) bound and never uses the sample mean.

    Cost: O(n p^2 + p^3) time, O(p^2) memory.

    References
    ----------
    Dwork, C., Talwar, K., Thakurta, A. and Zhang, L. (2014). Analyze Gauss: optimal bounds for
    privacy-preserving principal component analysis. STOC 2014, Algorithm 1.
    """
    rows = paired_differences(values, rng)
    bound, eps_m, delta_m = resolve_norm_bound(rows, norm_bound, bound_quantile, bound_share,
                                               eps, delta, rng, ledger, METHOD)
    released, sensitivity, sigma = noisy_second_moment(
        clip_rows(rows, bound), bound, eps_m, delta_m, rng, calibration, ledger,
        step="directions: clipped second-moment matrix (Analyze Gauss)")
    eigenvalues, vectors = top_eigen(released, k)
    return DirectionFit(vectors, eigenvalues, f"Gaussian ({calibration})", sensitivity, sigma,
                        notes=[f"Analyze Gauss on {rows.shape[0]} paired differences, rows clipped "
                               f"to norm {bound:.4g} ({_bound_source(norm_bound)}); eigenvalues "
                               "are those of the noisy clipped second moment."])


def noisy_second_moment(rows, bound, eps, delta, rng, calibration, ledger: Ledger, step):
    """Release (1/m) sum_i w_i w_i^T + vecd^-1(xi) for rows with ||w_i|| <= ``bound``.

    Returns
    -------
    (released matrix (p, p), Frobenius sensitivity sqrt(2) bound^2 / m, noise sd sigma)
    """
    m, p = rows.shape
    sensitivity = second_moment_sensitivity(bound, m)
    sigma = gaussian_sigma(sensitivity, eps, delta, calibration)
    released, sigma = add_symmetric_gaussian_noise(rows.T @ rows / m, sigma, sensitivity, rng)
    ledger.record(step, f"Gaussian ({calibration})", sensitivity, "Frobenius", sigma, eps, delta)
    return released, sensitivity, sigma


def _bound_source(norm_bound) -> str:
    return "public, from the caller" if norm_bound is not None else "private quantile, on the ledger"
