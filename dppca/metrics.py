"""Distances between subspaces."""
from __future__ import annotations

import numpy as np
from scipy.linalg import subspace_angles

from ._validation import DPPCAValueError

__all__ = ["sin_theta"]


def sin_theta(V1, V2) -> float:
    """Sine of the largest principal angle between col(V1) and col(V2).

    Parameters
    ----------
    V1, V2 : array_like or pandas.DataFrame, shape (p, k) (or (p,) for one direction)
        Columns spanning the two subspaces, usually orthonormal (e.g.
        ``PCDirections.directions``); only their column spaces matter.

    Returns
    -------
    float in [0, 1]
        The sine of the largest principal angle; for orthonormal columns it equals the spectral
        norm ||V1 V1^T - V2 V2^T||_2 (Kim & Jung 2025, Section 3.2). Computed by
        :func:`scipy.linalg.subspace_angles` (Knyazev & Argentati 2002), which keeps a relative
        accuracy of about 1e-6 at an angle of 1e-10, where sqrt(1 - s_min^2) of the singular
        values of V1^T V2 is wrong by a factor of hundreds (``benchmarks/bench_postprocessing.py``).

    Raises
    ------
    DPPCAValueError
        If the shapes differ, an entry is not finite, or if a matrix has linearly dependent columns (its column space
        has dimension below k).

    See Also
    --------
    dppca.PCDirections : Its ``directions`` are the usual arguments.
    dppca.dp_pc_dir : Private directions to compare with a reference.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.metrics import sin_theta
    >>> V1 = np.eye(3)[:, :1]
    >>> V2 = np.array([[np.cos(1e-10)], [np.sin(1e-10)], [0.0]])
    >>> float(f"{sin_theta(V1, V2):.6g}")
    1e-10
    """
    V1, V2 = np.asarray(V1, float), np.asarray(V2, float)
    if V1.ndim == 1:
        V1, V2 = V1[:, None], V2.reshape(-1, 1)
    if V1.shape != V2.shape:
        raise DPPCAValueError(f"`V1` and `V2` must have the same shape; got {V1.shape} and {V2.shape}")
    for name, value in (("V1", V1), ("V2", V2)):
        if not np.isfinite(value).all():
            raise DPPCAValueError(f"`{name}` must have finite entries (no NaN or Inf)")
    angles = subspace_angles(V1, V2)
    if len(angles) < V1.shape[1]:
        raise DPPCAValueError(f"`V1` and `V2` must have linearly independent columns (rank "
                              f"{V1.shape[1]}); got a column space of dimension {len(angles)}")
    return float(np.sin(angles[0]))
