"""What every direction method returns, and the linear algebra they share."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class DirectionFit:
    """Output of one direction method, before it is wrapped in a result object.

    The fields are the constructor's parameters and the instance's attributes.

    Parameters
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
    spectrum : ndarray, shape (p,), or None
        All eigenvalues of the released matrix, decreasing (post-processing of the release; the
        post-release accuracy model reads its gaps), or None when the method releases no matrix.
    matrix_noise_sd : float or None
        Noise sd of the matrix whose eigenvectors are returned, in g-DPPCA's convention
        (diagonal sd; off-diagonal sd that over sqrt 2), when it differs from ``noise_sd`` (a
        release mapped by post-processing, e.g. the rank path's bridge); None: ``noise_sd``.
    sampling_sd : float
        A public bound on the sd of the error the released statistic adds to each entry beyond
        the non-private reference's, other than the noise (an incomplete U-statistic's extra
        sampling error over the complete one); the accuracy models add it to ``noise_sd`` in
        quadrature. Default 0.

    See Also
    --------
    dppca.PCDirections : The result object :func:`dppca.dp_pc_dir` wraps it in.
    top_eigen : The eigenpairs most methods return.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods import DirectionFit, top_eigen
    >>> values, vectors = top_eigen(np.diag([3.0, 2.0, 1.0]), k=2)
    >>> fit = DirectionFit(vectors, values, mechanism="none")
    >>> fit.vectors.shape, fit.eigenvalues.tolist()
    ((3, 2), [3.0, 2.0])
    """

    vectors: np.ndarray
    eigenvalues: np.ndarray
    mechanism: str = "none"
    sensitivity: float = float("nan")
    noise_sd: float = float("nan")
    notes: list = field(default_factory=list)
    target: str = ""
    spectrum: np.ndarray | None = None
    matrix_noise_sd: float | None = None
    sampling_sd: float = 0.0


def top_eigen(matrix: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k eigenpairs (largest algebraic eigenvalues) of a symmetric matrix.

    Parameters
    ----------
    matrix : ndarray, shape (p, p)
        A symmetric matrix (it is symmetrised as (M + M^T) / 2 first, so rounding asymmetry
        does no harm), e.g. a noisy Kendall's tau matrix.
    k : int
        Number of eigenpairs, 1 <= k <= p.

    Returns
    -------
    eigenvalues : ndarray, shape (k,)
        The k largest eigenvalues, decreasing.
    vectors : ndarray, shape (p, k)
        Their orthonormal eigenvectors, oriented by :func:`orient`.

    See Also
    --------
    orient : The sign convention.
    DirectionFit : Holds the eigenpairs a method returns.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods import top_eigen
    >>> values, vectors = top_eigen(np.array([[2.0, 1.0], [1.0, 2.0]]), k=1)
    >>> values.round(6).tolist(), vectors.round(4).ravel().tolist()
    ([3.0], [0.7071, 0.7071])
    """
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    order = np.argsort(values)[::-1][:k]
    return values[order], orient(vectors[:, order])


def orient(vectors: np.ndarray) -> np.ndarray:
    """Deterministic sign convention: in each column the entry of largest absolute value is positive.

    Parameters
    ----------
    vectors : array_like, shape (p, k)
        Columns to orient (eigenvectors are defined up to sign).

    Returns
    -------
    ndarray, shape (p, k)
        A copy with each column multiplied by +1 or -1 (a zero column is left as it is).

    See Also
    --------
    top_eigen : Orients its eigenvectors with it.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods import orient
    >>> orient(np.array([[0.6, 0.0], [-0.8, -1.0]])).tolist()
    [[-0.6, -0.0], [0.8, 1.0]]
    """
    vectors = np.array(vectors, dtype=float)
    rows = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[rows, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    return vectors * signs

__all__ = ["DirectionFit", "orient", "top_eigen"]
