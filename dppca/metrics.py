"""Distances between subspaces."""
from __future__ import annotations

import numpy as np

from ._validation import DPPCAValueError


def sin_theta(V1, V2) -> float:
    """Sine of the largest principal angle between col(V1) and col(V2).

    Parameters
    ----------
    V1, V2 : array_like, shape (p, k)
        Orthonormal columns (directions, e.g. ``PCDirections.directions``).

    Returns
    -------
    float in [0, 1]
        sqrt(1 - s_min^2), s_min the smallest singular value of V1^T V2; equals the spectral
        norm ||V1 V1^T - V2 V2^T||_2 (Kim & Jung 2025, Section 3.2).

    Raises
    ------
    DPPCAValueError
        If the shapes differ.
    """
    V1, V2 = np.asarray(V1, float), np.asarray(V2, float)
    if V1.ndim == 1:
        V1, V2 = V1[:, None], V2.reshape(-1, 1)
    if V1.shape != V2.shape:
        raise DPPCAValueError(f"`V1` and `V2` must have the same shape; got {V1.shape} and {V2.shape}")
    smallest = np.linalg.svd(V1.T @ V2, compute_uv=False).min()
    return float(np.sqrt(max(0.0, 1.0 - min(smallest, 1.0) ** 2)))
