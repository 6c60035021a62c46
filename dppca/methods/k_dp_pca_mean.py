"""PrivMean's Gaussian step of k-DP-PCA (Duengler & Sanyal 2025, Algorithm 7).

Given public coordinate centres c and a public half-width h (from PrivRange's release), the
mean of a batch of gradients, each coordinate clipped to [c_j - h, c_j + h], moves by at most
2 h sqrt(p) / B in L2 when one row is replaced, and is released with Gaussian noise of that
sensitivity. The rest of the oracle (PrivRange, the centre histograms, the Oja steps and the
deflation) is in :mod:`dppca.methods.k_dp_pca`, which re-exports these names.
"""
from __future__ import annotations

import math

import numpy as np

from ..privacy import gaussian_sigma
from ..privacy.samplers import add_gaussian_noise


def mean_half_width(level: float, plan: dict) -> float:
    """PrivMean's clipping half-width h = 3 sqrt(Lambda) ln(B p / tau_t) (Algorithm 7, K = a = 1).

    ``level`` is Lambda, PrivRange's release (1 for the public calibration on the ledger).
    """
    return 3 * math.sqrt(level) * math.log(plan["B"] * plan["p"] / plan["tau"])


def priv_mean_calibration(half: float, B: int, p: int, eps: float, delta: float,
                          calibration: str) -> tuple[float, float]:
    """(sensitivity, sigma) of PrivMean's Gaussian release: 2 h sqrt(p) / B and its sigma.

    Both are linear in h (:func:`dppca.privacy.gaussian_sigma` is Delta times a unit sigma),
    so their ratio, the mechanism's Gaussian-DP parameter, is a function of (eps, delta) alone.
    """
    sensitivity = 2 * half * math.sqrt(p) / B
    return sensitivity, gaussian_sigma(sensitivity, eps, delta, calibration)


def priv_mean(G: np.ndarray, centres: np.ndarray, half: float, eps: float, delta: float,
              rng: np.random.Generator, calibration: str = "analytic") -> np.ndarray:
    """PrivMean's Gaussian step (Algorithm 7): the clipped, centred mean of G plus Gaussian noise.

    The method's own noise line, public by signature so that the privacy audit runs it
    (dppca/audit/releases_methods.py): a noise weakened here is seen there.

    Parameters
    ----------
    G : ndarray, shape (B, p)
        The batch's gradients, one row per paired difference.
    centres : ndarray, shape (p,)
        Public coordinate centres c (earlier releases).
    half : float, > 0
        Public clipping half-width h (:func:`mean_half_width` of PrivRange's release).
    eps, delta : float
        Budget of this release.
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}

    Returns
    -------
    ndarray, shape (p,)
        The noisy clipped mean of G - c (add ``centres`` back to estimate the mean of G).

    Notes
    -----
    Privacy (replace-one, B public): :func:`clipped_mean` moves each of its p coordinates by at
    most 2 h / B when one row is replaced, so by at most Delta = 2 h sqrt(p) / B in L2; the
    Gaussian noise N(0, sigma^2 I) with sigma = gaussian_sigma(Delta, eps, delta) is added by
    the floating-point-safe sampler :func:`dppca.privacy.samplers.add_gaussian_noise`, so the
    release is (eps, delta)-DP (Balle & Wang 2018, Thm 8, for ``"analytic"``). Duengler &
    Sanyal (2025), Algorithm 7; Liu, Kong, Jain & Oh (2022), Algorithm 5.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.k_dp_pca_mean import priv_mean
    >>> G = np.ones((100, 3))
    >>> noisy = priv_mean(G, np.zeros(3), 0.5, 1.0, 1e-5, np.random.default_rng(0))
    >>> noisy.shape, bool(np.all(np.abs(noisy - 0.5) < 0.2))
    ((3,), True)
    """
    B, p = G.shape
    sensitivity, sigma = priv_mean_calibration(half, B, p, eps, delta, calibration)
    return add_gaussian_noise(clipped_mean(G, centres, half), sigma, sensitivity, rng)[0]


def clipped_mean(G: np.ndarray, centres: np.ndarray, half: float) -> np.ndarray:
    """Mean of the rows of G - c with coordinate j clipped to [-half, half] (centred at c).

    One replaced row moves each coordinate of the mean by at most 2 half / B, so the vector by
    at most 2 half sqrt(p) / B in L2 (the sensitivity PrivMean's Gaussian noise is set to).
    The values averaged lie in [-half, half] whatever |c| is, so the mean's rounding is
    relative to half, not to |c|; the public centre is added back after the noise.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # silently: a warning would leak
        return np.clip(np.nan_to_num(G - centres), -half, half).mean(axis=0)


__all__ = ["clipped_mean", "mean_half_width", "priv_mean", "priv_mean_calibration"]
