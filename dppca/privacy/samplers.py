"""Noise samplers: the one place where the package draws privacy noise.

Every mechanism in the package takes its noise from here, so that the sampler that
resists floating-point attacks (Mironov 2012) is swapped in once for every release.

Functions
---------
gaussian_noise(sigma, size, rng)
    Draws of N(0, sigma^2), array of shape ``size``.
laplace_noise(scale, size, rng)
    Draws of Laplace(0, scale), array of shape ``size``.
exponential_noise(scale, size, rng)
    Draws of Exponential(scale) (the sparse vector technique's one-sided noise).
gumbel_noise(size, rng)
    Standard Gumbel draws (the exponential mechanism's Gumbel-max trick).
"""
from __future__ import annotations

import numpy as np

__all__ = ["exponential_noise", "gaussian_noise", "gumbel_noise", "laplace_noise"]


def gaussian_noise(sigma: float, size, rng: np.random.Generator) -> np.ndarray:
    """N(0, sigma^2) noise of shape ``size`` (``None`` for a scalar)."""
    return rng.normal(0.0, sigma, size=size)


def laplace_noise(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Laplace(0, scale) noise of shape ``size`` (``None`` for a scalar)."""
    return rng.laplace(0.0, scale, size=size)


def exponential_noise(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exponential noise with mean ``scale``, shape ``size`` (``None`` for a scalar)."""
    return rng.exponential(scale, size=size)


def gumbel_noise(size, rng: np.random.Generator) -> np.ndarray:
    """Standard Gumbel noise of shape ``size``."""
    return rng.gumbel(size=size)
