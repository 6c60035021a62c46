"""What every direction method returns, and the linear algebra they share."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class DirectionFit:
    """Output of one direction method, before it is wrapped in a result object.

    Attributes
    ----------
    vectors : ndarray, shape (p, k)
        Orthonormal columns, sign-normalised by :func:`orient`.
    eigenvalues : ndarray, shape (k,)
        Eigenvalues of the released matrix (``nan`` when the method releases none).
    mechanism : str
        Short name of the privacy mechanism (``"none"`` for non-private).
    sensitivity : float
        Sensitivity of the released statistic (``nan`` when not applicable).
    noise_sd : float
        Standard deviation of the added noise (``nan`` when not applicable).
    notes : list of str
        Extra lines for the summary (assumptions, caveats).
    target : str
        What the directions estimate: ``"covariance directions"`` (eigenvectors of Cov(x)),
        ``"Kendall directions"`` (eigenvectors of the spatial Kendall's tau matrix; the same
        as the covariance directions for elliptical data) or ``"LAD subspace"`` (the robust
        least-absolute-deviation subspace of the spatial signs). Set from
        :data:`dppca.methods.TARGETS` by the registry.
    """

    vectors: np.ndarray
    eigenvalues: np.ndarray
    mechanism: str = "none"
    sensitivity: float = float("nan")
    noise_sd: float = float("nan")
    notes: list = field(default_factory=list)
    target: str = ""


def top_eigen(matrix: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k eigenpairs (largest algebraic eigenvalues) of a symmetric matrix.

    Returns
    -------
    (eigenvalues (k,), vectors (p, k)), eigenvalues decreasing, vectors oriented by :func:`orient`.
    """
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    order = np.argsort(values)[::-1][:k]
    return values[order], orient(vectors[:, order])


def orient(vectors: np.ndarray) -> np.ndarray:
    """Deterministic sign convention: in each column the entry of largest absolute value is positive."""
    vectors = np.array(vectors, dtype=float)
    rows = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[rows, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    return vectors * signs

__all__ = ["DirectionFit", "orient", "top_eigen"]
