"""numba kernels of :mod:`dppca.stats.elementwise_kendall` (Knight's algorithm on integer ranks).

Imported on first use (numba's import and, once per machine, its compilation take seconds);
``cache=True`` keeps the machine code on disk. Every count is an int64.
"""
import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def tied_pairs(rank):
    """Pairs tied in a column of dense ranks: sum over values of c (c - 1) / 2."""
    counts = np.zeros(rank.max() + 1, dtype=np.int64)
    for r in rank:
        counts[r] += 1
    total = np.int64(0)
    for c in counts:
        total += c * (c - 1) // 2
    return total


#: Runs sorted by insertion before the merges (they fit in the L1 cache; saves log2(32) = 5
#: merge passes over the whole array).
RUN = 32


@numba.njit(cache=True, nogil=True)
def inversions(seq, buffer):
    """Strict inversions (a < b, seq[a] > seq[b]): insertion sort of runs of RUN, then a
    bottom-up merge sort; both arrays are overwritten."""
    n = seq.size
    total = np.int64(0)
    for start in range(0, n, RUN):
        for a in range(start + 1, min(start + RUN, n)):
            value = seq[a]
            b = a
            while b > start and seq[b - 1] > value:  # each shift is one strict inversion
                seq[b] = seq[b - 1]
                b -= 1
            total += a - b
            seq[b] = value
    width = RUN
    src, dst = seq, buffer
    while width < n:
        start = 0
        while start < n:
            mid = min(start + width, n)
            end = min(start + 2 * width, n)
            a, b, out = start, mid, start
            while a < mid and b < end:
                if src[b] < src[a]:  # strict: equal values are ties, not inversions
                    dst[out] = src[b]
                    total += mid - a
                    b += 1
                else:
                    dst[out] = src[a]
                    a += 1
                out += 1
            while a < mid:
                dst[out] = src[a]
                a += 1
                out += 1
            while b < end:
                dst[out] = src[b]
                b += 1
                out += 1
            start = end
        src, dst = dst, src
        width *= 2
    return total


@numba.njit(cache=True, nogil=True)
def pair_sign_sum(rank_j, rank_k, order_k, starts_j, pairs, ties_j, ties_k):
    """S_jk = P - t_j - t_k + t_jk - 2 D for one pair of columns (module docstring of
    :mod:`dppca.stats.elementwise_kendall`)."""
    n = rank_j.size
    fill = starts_j[:n].copy()
    seq = np.empty(n, dtype=np.int32)
    key = np.empty(n, dtype=np.int32)
    for i in order_k:  # rows by rank_k, placed stably by rank_j: sorted by (rank_j, rank_k)
        slot = fill[rank_j[i]]
        seq[slot] = rank_k[i]
        key[slot] = rank_j[i]
        fill[rank_j[i]] += 1
    joint = np.int64(0)
    run = np.int64(1)
    for a in range(1, n):
        if key[a] == key[a - 1] and seq[a] == seq[a - 1]:
            joint += run  # the run's (r + 1)-th member ties with the r before it
            run += 1
        else:
            run = 1
    return pairs - ties_j - ties_k + joint - 2 * inversions(seq, key)


@numba.njit(cache=True, parallel=True)
def sign_counts(ranks, pairs):
    """The p x p int64 matrix of sign sums from dense ranks (shape (p, n)), pairs = n (n - 1) / 2."""
    p, n = ranks.shape
    order = np.empty((p, n), dtype=np.int64)
    ties = np.empty(p, dtype=np.int64)
    starts = np.zeros((p, n + 1), dtype=np.int64)  # counting-sort offsets of each rank
    for j in numba.prange(p):
        order[j] = np.argsort(ranks[j], kind="mergesort")
        ties[j] = tied_pairs(ranks[j])
        for i in range(n):
            starts[j, ranks[j, i] + 1] += 1
        for r in range(n):
            starts[j, r + 1] += starts[j, r]
    first = np.empty(p * (p - 1) // 2, dtype=np.int64)
    second = np.empty(p * (p - 1) // 2, dtype=np.int64)
    job = 0
    for j in range(p):
        for k in range(j + 1, p):
            first[job], second[job] = j, k
            job += 1
    counts = np.empty((p, p), dtype=np.int64)
    for job in numba.prange(first.size):
        j, k = first[job], second[job]
        value = pair_sign_sum(ranks[j], ranks[k], order[k], starts[j], pairs, ties[j], ties[k])
        counts[j, k] = value
        counts[k, j] = value
    for j in range(p):
        counts[j, j] = pairs - ties[j]
    return counts

__all__ = ["RUN", "inversions", "pair_sign_sum", "sign_counts", "tied_pairs"]
