"""numba kernel of :mod:`dppca.stats.pairwise_kendall` (Knight's algorithm on the rows that
observe both columns of a pair).

Imported on first use; ``cache=True`` keeps the machine code on disk. Every count is an int64.
"""
import numba
import numpy as np

from .elementwise_kendall_kernel import pair_sign_sum, tied_pairs


@numba.njit(cache=True, nogil=True)
def _dense(rank):
    """0-based dense ranks of a subset of non-negative ranks (order kept), in O(n + max rank)."""
    size = rank.max() + 1
    seen = np.zeros(size + 1, dtype=np.int64)
    for r in rank:
        seen[r + 1] = 1
    for r in range(size):
        seen[r + 1] += seen[r]
    out = np.empty(rank.size, dtype=np.int32)
    for i in range(rank.size):
        out[i] = seen[rank[i]]
    return out


@numba.njit(cache=True, nogil=True)
def present_pair_sum(rank_j, rank_k):
    """(S_jk, M_jk): the sign sum over the rows observing both columns (rank -1 = missing) and
    the number M_jk of such rows."""
    both = (rank_j >= 0) & (rank_k >= 0)
    m = np.int64(both.sum())
    if m < 2:
        return np.int64(0), m
    sub_j = _dense(rank_j[both])
    sub_k = _dense(rank_k[both])
    order_k = np.argsort(sub_k, kind="mergesort")
    starts = np.zeros(m + 1, dtype=np.int64)
    for i in range(m):
        starts[sub_j[i] + 1] += 1
    for r in range(m):
        starts[r + 1] += starts[r]
    pairs = m * (m - 1) // 2
    return pair_sign_sum(sub_j, sub_k, order_k, starts, pairs, tied_pairs(sub_j),
                         tied_pairs(sub_k)), m


@numba.njit(cache=True, parallel=True)
def present_sign_counts(ranks):
    """(S, M), p x p int64 each, from ranks of shape (p, n) with -1 marking a missing cell."""
    p, n = ranks.shape
    first = np.empty(p * (p + 1) // 2, dtype=np.int64)
    second = np.empty(p * (p + 1) // 2, dtype=np.int64)
    job = 0
    for j in range(p):
        for k in range(j, p):
            first[job], second[job] = j, k
            job += 1
    counts = np.zeros((p, p), dtype=np.int64)
    present = np.zeros((p, p), dtype=np.int64)
    for job in numba.prange(first.size):
        j, k = first[job], second[job]
        value, m = present_pair_sum(ranks[j], ranks[k])
        counts[j, k] = value
        counts[k, j] = value
        present[j, k] = m
        present[k, j] = m
    return counts, present

__all__ = ["present_pair_sum", "present_sign_counts"]
