"""The elementwise Kendall's tau matrix (tau-a, diagonal included), in O(p^2 n log n).

For columns j, k of an n x p matrix the tau-a U-statistic is

    T_jk = (2 / (n (n - 1))) sum_{i < i'} sign(x_ij - x_i'j) sign(x_ik - x_i'k),

and T_jj = 1 - (share of the n (n - 1) / 2 pairs tied in column j). Its sine transform
sin(pi T_jk / 2) estimates the latent Gaussian-copula correlation (Kendall 1948; Han & Liu 2012,
"Semiparametric principal component analysis", NIPS 25, Section 2).

Knight's (1966) algorithm: with the rows ordered by column j (ties in j broken by column k),
the discordant pairs are the strict inversions of column k, counted by a merge sort. With P the
pairs, t_j the pairs tied in j, t_k those tied in k and t_jk those tied in both, the concordant
pairs number P - t_j - t_k + t_jk - D, so the signed sum is P - t_j - t_k + t_jk - 2 D. Every
count is an int64 (exact below n = 4e9), so the statistic is one exact integer per entry times
2 / (n (n - 1)): no floating-point sum enters the released value (the sensitivity proof of
:mod:`dppca.methods.latent_correlation` rests on this). Signs come from comparisons, never from
differences, so magnitudes up to +-DBL_MAX cannot overflow. Columns are replaced by dense integer
ranks once (O(p n log n)); each pair then costs one counting sort by rank_j of the rows in
rank_k order (O(n)) and one merge sort (O(n log n)). Pairs run in parallel threads (numba's
``prange``), compiled once per machine (``cache=True``).
"""
from __future__ import annotations

import numpy as np

from .._validation import DPPCAValueError

__all__ = ["kendall_sign_counts", "kendall_tau_matrix"]


def kendall_tau_matrix(values) -> np.ndarray:
    """The elementwise Kendall's tau-a matrix, diagonal included (NON-PRIVATE statistic).

    Parameters
    ----------
    values : array_like, shape (n, p)
        Numeric data without NaN, n >= 2 rows (any finite or infinite magnitudes: only
        comparisons are used).

    Returns
    -------
    ndarray, shape (p, p)
        Symmetric; T_jk = (2 / (n (n - 1))) sum_{i < i'} sign(x_ij - x_i'j) sign(x_ik - x_i'k)
        in [-1, 1], and T_jj = 1 - (share of pairs tied in column j) in [0, 1].

    Raises
    ------
    DPPCAValueError
        If ``values`` is not 2-D, has fewer than 2 rows, or holds NaN.

    See Also
    --------
    kendall_sign_counts : The integer counts behind it.
    scipy.stats.kendalltau : The tau-b of one pair, T_jk / sqrt(T_jj T_kk).

    Notes
    -----
    Estimand: tau_jk = E[sign(X_j - X'_j) sign(X_k - X'_k)] for independent copies X, X' (the
    population Kendall's tau-a); for a latent Gaussian copula with continuous margins,
    tau_jk = (2 / pi) arcsin(R_jk) (Kendall 1948; Han & Liu 2012, Lemma 2.1). Cost
    O(p^2 n log n) by Knight's (1966) algorithm (module docstring).

    References
    ----------
    Knight, W. R. (1966). A computer method for calculating Kendall's tau with ungrouped
    data. JASA 61(314), 436-439.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.elementwise_kendall import kendall_tau_matrix
    >>> x = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0], [3.0, 4.0]])
    >>> kendall_tau_matrix(x).round(4).tolist()
    [[0.8333, 0.5], [0.5, 1.0]]
    """
    counts, pairs = kendall_sign_counts(values)
    return counts / float(pairs)


def kendall_sign_counts(values) -> tuple[np.ndarray, int]:
    """The integer sums S_jk = sum_{i < i'} sign(x_ij - x_i'j) sign(x_ik - x_i'k) and the pair count.

    Parameters
    ----------
    values : array_like, shape (n, p)
        As in :func:`kendall_tau_matrix`.

    Returns
    -------
    counts : ndarray of int64, shape (p, p)
        Symmetric; S_jj = n (n - 1) / 2 minus the pairs tied in column j.
    pairs : int
        The number of pairs n (n - 1) / 2, so that T = counts / pairs.

    Raises
    ------
    DPPCAValueError
        As in :func:`kendall_tau_matrix`.

    See Also
    --------
    kendall_tau_matrix : The matrix counts / pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.elementwise_kendall import kendall_sign_counts
    >>> counts, pairs = kendall_sign_counts(np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]]))
    >>> counts.tolist(), pairs
    ([[3, 1], [1, 3]], 3)
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise DPPCAValueError(f"`values` must be a 2-D array with at least 2 rows; got shape "
                              f"{x.shape}")
    if np.isnan(x).any():
        raise DPPCAValueError("`values` must not hold NaN: Kendall's tau needs every pair ordered")
    n, p = x.shape
    ranks = np.empty((p, n), dtype=np.int32)  # n < 2^31: ranks fit; counts stay int64
    for j in range(p):
        ranks[j] = _dense_ranks(x[:, j])
    pairs = n * (n - 1) // 2
    counts = _kernel()(ranks, np.int64(pairs))
    return counts, pairs


def _dense_ranks(column: np.ndarray) -> np.ndarray:
    """0-based dense ranks: equal values share a rank (-0.0 == 0.0), order kept."""
    _, inverse = np.unique(column, return_inverse=True)
    return inverse.astype(np.int32).ravel()


def _kernel():
    """The compiled pair loop (numba, cached on disk; imported on first use, not with dppca)."""
    from .elementwise_kendall_kernel import sign_counts

    return sign_counts
