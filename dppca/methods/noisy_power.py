"""The noisy power method (Hardt & Price 2014) on a clipped second-moment matrix."""
from __future__ import annotations

import math

import numpy as np

from .._validation import int_arg
from ..privacy import Ledger, gaussian_sigma
from ._base import DirectionFit, orient
from ._shared import (BOUND_QUANTILE, clip_rows, paired_differences, resolve_norm_bound,
                      second_moment_sensitivity)
from .analyze_gauss import BOUND_MULTIPLIER, BOUND_SHARE
from ..privacy.samplers import add_gaussian_noise

METHOD = "noisy_power"


def noisy_power_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                           rng: np.random.Generator, calibration: str, ledger: Ledger,
                           norm_bound=None, bound_quantile=BOUND_QUANTILE,
                           bound_share=BOUND_SHARE, iterations=None) -> DirectionFit:
    """Private block power iteration X_l = QR(A X_{l-1} + G_l) (Hardt & Price 2014, Figure 2).

    Parameters
    ----------
    values : ndarray, shape (n, p), n >= 2
    k : int, 1 <= k <= p
        Block size (Hardt & Price's p = k here).
    eps, delta : float
        Budget of the call (bound and iterations).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    norm_bound, bound_quantile, bound_share
        Row clipping bound, as in :func:`.analyze_gauss.analyze_gauss_directions` (default:
        the private median norm, 10% of eps: the noise scales as the bound squared, so a bound
        at the median keeps more of the signal than 2 x median with 20% of eps; median
        sin-theta 0.27-1.00 against 0.46-1.00 at eps = 4, benchmarks/bench_methods_real.py).
    iterations : int, optional
        L >= 1 (default max(2, ceil(2 ln p)): Hardt & Price's L = O(lambda_k /
        (lambda_k - lambda_{k+1}) log p) with the gap ratio, which is not public, taken as 2).

    Returns
    -------
    DirectionFit
        The last orthonormal iterate X_L; eigenvalues are nan (no matrix is released).

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Bad ``iterations`` or bound options.

    Notes
    -----
    Privacy (replace-one, n public). A = (1/m) sum_i clip_C(w_i) clip_C(w_i)^T over the
    m = floor(n/2) paired differences is never released; each iteration releases
    Y_l = A X_{l-1} + G_l. X_{l-1} has orthonormal columns, so
    ||(A - A') X||_F <= ||A - A'||_F ||X||_2 <= sqrt(2) C^2 / m: each release is a Gaussian
    mechanism with that L2 sensitivity. L adaptive Gaussian releases with the same sigma are
    together one Gaussian mechanism with sensitivity sqrt(L) sqrt(2) C^2 / m (Gaussian DP
    composition, Dong, Roth & Su 2022, Corollary 3.3), so sigma = gaussian_sigma(sqrt(L)
    sqrt(2) C^2 / m, eps, delta) makes the L releases (eps, delta)-DP together. The private
    bound C is a separate (bound_share eps, 0)-DP release (basic composition).

    Hardt & Price protect a change of one entry of A (sensitivity measured per entry, with
    ||X_{l-1}||_inf scaling the noise) and Duengler & Sanyal's baseline clips rows in l1 and l2;
    we convert to replace-one rows with l2 clipping and the Frobenius bound above.

    Cost: O(n p^2 + L p^2 k) time, O(p^2) memory.

    References
    ----------
    Hardt, M. and Price, E. (2014). The noisy power method: a meta algorithm with applications.
    NeurIPS 2014, Figure 2 and Corollary 1.1.
    """
    rows = paired_differences(values, rng)
    m, p = rows.shape
    L = _iterations(iterations, p)
    bound, eps_m, delta_m = resolve_norm_bound(rows, norm_bound, bound_quantile, bound_share,
                                               eps, delta, rng, ledger, METHOD, BOUND_MULTIPLIER)
    clipped = clip_rows(rows, bound)
    moment = clipped.T @ clipped / m
    step_sensitivity = second_moment_sensitivity(bound, m)
    sigma = gaussian_sigma(math.sqrt(L) * step_sensitivity, eps_m, delta_m, calibration)
    ledger.record(f"directions: {L} noisy power iterations A X + G (composed)",
                  f"Gaussian ({calibration})", math.sqrt(L) * step_sensitivity, "Frobenius",
                  sigma, eps_m, delta_m)
    X = np.linalg.qr(rng.standard_normal((p, k)))[0]
    for _ in range(L):
        X = np.linalg.qr(add_gaussian_noise(moment @ X, sigma, step_sensitivity, rng)[0])[0]
    return DirectionFit(orient(X), np.full(k, np.nan), f"Gaussian ({calibration})",
                        step_sensitivity, sigma,
                        notes=[f"Noisy power method: {L} iterations on {m} paired differences "
                               f"clipped to norm {bound:.4g}; the per-iteration sensitivity is "
                               "shown, the ledger holds the composed one."])


def _iterations(iterations, p: int) -> int:
    if iterations is None:
        return max(2, math.ceil(2 * math.log(p))) if p > 1 else 1
    return int_arg(iterations, "iterations", 1)

__all__ = ["noisy_power_directions"]
