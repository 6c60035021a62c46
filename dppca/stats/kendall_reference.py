"""The O(n^2 d) reference implementation of the generalized Kendall's tau matrix (pair by pair).

For tests and benchmarks of the tiled engine :func:`dppca.stats.kendall.kendall_tau_matrix`.
"""
from __future__ import annotations

import numpy as np

from .kendall import check_rows, normalise_pair_sum
from .signs import apply_sign, resolve_sign, without_overflow

def kendall_tau_matrix_naive(X, sign="spherical", radius=None, xi=None):
    """Generalized Kendall's tau matrix from the explicit pairwise sum.

    Reference implementation for tests and benchmarks: O(n^2 d^2) time,
    O(n d) memory (one row i against all j > i at a time).

    Parameters
    ----------
    X, sign, radius, xi
        As in :func:`dppca.stats.kendall.kendall_tau_matrix` (finite X, n >= 2).

    Returns
    -------
    K : ndarray, shape (d, d)
        Symmetric.

    Raises
    ------
    ValueError
        As :func:`kendall_tau_matrix` (without `tile`).

    Notes
    -----
    Follows the definition of Kim & Jung (2025) literally:
    ``2/(n(n-1)) sum_{i<j} g(t_ij) g(t_ij)^T`` with
    ``t_ij = (x_j - x_i)/sqrt2`` and g from :func:`spatial_sign`; it shares
    no arithmetic with the Laplacian path of :func:`kendall_tau_matrix`, so
    comparing the two checks the identity as well as the code.
    """
    X = check_rows(X)
    n, d = X.shape
    X, spec = without_overflow(X, resolve_sign(sign, radius, xi, d))
    S = np.zeros((d, d))
    for i in range(n - 1):
        G = apply_sign((X[i + 1 :] - X[i]) / np.sqrt(2.0), spec)
        S += G.T @ G
    return normalise_pair_sum(S, n)


__all__ = ["kendall_tau_matrix_naive"]
