"""The releases behind :func:`dppca.preprocessing.scales.private_column_scales`.

Release 1: per-column octave histograms of the |paired differences| (L2 sensitivity sqrt(2p));
releases 2 and 3: clipped second moments min(a_ij, C_j)^2 / C_j^2 averaged over all pairs inside
the blocks of a random block design (an incomplete U-statistic; sensitivity sqrt(p) (2/n + 2^-41)
per clip, the 2^-41 covering the rounding of the grouped sums). For the histograms each row
is in exactly one disjoint pair, so one replaced row moves one |difference| per column.
"""
from __future__ import annotations

import math

import numpy as np

from ..stats.paired_differences import group_results

#: Octave bins [2^b, 2^(b+1)), b = -64..63, of the |paired differences| (release 1); values below
#: 2^-64 (zeros included) and from 2^64 up have an end bin each. Public, very wide bounds.
SCALE_OCTAVES = (-64, 64)


#: Pairs per summation group: every pair statistic is summed group by group (groups of
#: consecutive pairs of the public random pairing), then over the groups. A dask chunk holds one
#: group, so the sums, and the scales, are the same doubles in memory and for any chunking.
SCALE_SUM_ROWS = 2**16


def octave_loglik(absdiff, noise, rng, ledger, grid, fractions) -> tuple[np.ndarray, dict]:
    """Release 1, read as a log-likelihood: for each column j and each t on ``grid`` (log2 of the
    SD of the differences) and each non-zero fraction pi in ``fractions``, the log-likelihood
    of the noisy octave counts n_j under D ~ (1 - pi) delta_0 + pi N(0, 4^t), up to a constant:
    -||n_j - pi m P_t||^2 / (2 sigma^2), P_t the octave profile of |N(0, 4^t)| (the end bin
    below, which holds the zeros, is left out). Shape (p, len(fractions), len(grid)). Also
    returns the release itself, ``{"counts": (p, width) noisy counts, "sd": sigma, "pairs": m,
    "gauss_fit":
    (p,) the same log-likelihood maximized over t on the grid and a free amount A = pi m in
    [0, m]}`` (for :mod:`dppca.preprocessing.scale_shape`). Only the release depends on the
    data; the rest is post-processing."""
    counts = octave_counts(absdiff)
    noisy, sigma = noise.release(counts, np.sqrt(2.0 * absdiff.shape[1]), rng, ledger,
                                 "scale: octave histograms of |x_a - x_b|")
    profile = _octave_profiles(grid)[:, 1:]
    dot = noisy[:, 1:] @ profile.T  # (p, G)
    norm2 = np.sum(profile ** 2, axis=1)
    amount = absdiff.shape[0] * np.asarray(fractions, float)[None, :, None]  # A = pi m
    free = np.clip(dot / np.maximum(norm2, 1e-300), 0.0, absdiff.shape[0])  # the best A at each t
    gauss_fit = np.max(free * dot - free ** 2 * norm2 / 2, axis=1) / sigma ** 2
    loglik = (amount * dot[:, None, :] - amount ** 2 * norm2 / 2) / sigma ** 2
    return loglik, {"counts": noisy, "sd": float(sigma), "pairs": absdiff.shape[0], "gauss_fit": gauss_fit}


def _octave_profiles(grid) -> np.ndarray:
    """P(|D| in each bin of ``octave_counts``) for |D| ~ |N(0, 4^t)|, t on ``grid``: (G, width)."""
    from scipy.special import ndtr

    low, high = SCALE_OCTAVES
    edges = np.arange(low, high + 1, dtype=float)  # 2^low .. 2^high
    with np.errstate(over="ignore"):
        cdf = 2 * ndtr(np.exp2(edges[None, :] - np.asarray(grid, float)[:, None])) - 1
    return np.diff(np.concatenate([np.zeros((cdf.shape[0], 1)), cdf,
                                   np.ones((cdf.shape[0], 1))], axis=1), axis=1)


def octave_counts(absdiff) -> np.ndarray:
    """Release 1's statistic: per column, counts of |x_a - x_b| in the octaves of SCALE_OCTAVES
    plus an end bin on each side, shape (p, width); one replaced row moves one pair, so each
    column's count vector by at most one unit out of one bin into another (L2 sqrt(2 p))."""
    return np.sum(group_results(absdiff, _octave_counts_of_group, SCALE_SUM_ROWS), axis=0)


def _octave_counts_of_group(absdiff) -> np.ndarray:
    low, high = SCALE_OCTAVES
    exponent = np.frexp(absdiff)[1] - 1  # floor(log2 a), exact; frexp(0) gives -1 (end bin below)
    bins = np.where(absdiff >= np.ldexp(1.0, low), np.clip(exponent, low - 1, high) - low + 1, 0)
    width = high - low + 2
    return np.stack([np.bincount(col, minlength=width) for col in bins.T])


def moment_sensitivity(n, p) -> float:
    """L2 sensitivity of :func:`mean_of_clipped` for one clip per column: sqrt(p) (2/n + 2^-41).

    Replace-one, n public. Exact arithmetic: every term min(a, C)^2 / C^2 is in [0, 1] in
    floating point (min(a, C) <= C, and a correctly rounded quotient of a number <= C by C is
    <= 1); a row of a block of S rows is in S - 1 of its S(S - 1)/2 pairs, so the exact mean of
    the computed terms over the N_S pairs of the blocks of size S moves by at most
    (S - 1) / N_S = 2 / R_S (R_S rows in those blocks), and T = sum_S (R_S / n) mean_S by at most
    2 / n. Rounding (u = 2^-53; all terms non-negative, so every relative bound below is
    relative to the exact sum): ``SCALE_CHUNK_ROWS`` = 1024 consecutive terms are summed by numpy
    in any order, within gamma_1023 = 1023 u / (1 - 1023 u) < 2^-43 relative (Higham 2002,
    Accuracy and Stability of Numerical Algorithms, §4.2); the chunk sums of a group of
    ``SCALE_SUM_ROWS`` pairs are summed correctly rounded (``math.fsum``, 1 + u), the group sums
    too (1 + u), the division by N_S rounds once (1 + u); the weights fl(R_S / n), their products
    and the correctly rounded sum over the (at most two) sizes add 3 roundings. In all the
    computed T is within (1 + 2^-43)(1 + u)^6 - 1 < 2^-42 relative, so (T <= 1) within 2^-42
    absolute, of the exact T, whatever the grouping (also for the dask chunks): it moves by at
    most 2/n + 2^-41 per column.

    Examples
    --------
    >>> bool(moment_sensitivity(100, 4) == 2 * (2 / 100 + 2.0 ** -41))
    True
    """
    return np.sqrt(p) * (2.0 / n + 2.0 ** -41)


def clipped_moment(pairs, clip, noise, rng, ledger, step, weights=(1.0,)) -> dict:
    """Releases 2 and 3: w_k T_k for the clips C_k (rows of ``clip``, shape (K, p) or (p,)) and
    weights w_k, jointly, T_k = :func:`mean_of_clipped` over the block pairs ``pairs``
    (:func:`dppca.stats.paired_differences.block_pairs`); returns the noisy T_k (K, p), clips and
    sds. L2 sensitivity sqrt(sum_k w_k^2) :func:`moment_sensitivity`."""
    clip = np.atleast_2d(clip)
    weights = np.asarray(weights, float)[:, None]
    means = mean_of_clipped(pairs, clip)
    sensitivity = moment_sensitivity(pairs.n, pairs.p) * np.sqrt(np.sum(weights ** 2))
    noisy, sigma = noise.release(weights * means, sensitivity, rng, ledger, step)
    return {"value": noisy / weights, "clip": clip, "sd": sigma / weights}


def mean_of_clipped(pairs, clip) -> np.ndarray:
    """T = sum_S (R_S / n) mean over the pairs of the blocks of size S of min(a_ij, C_j)^2 /
    C_j^2, per clip row and column: an incomplete U-statistic of order two (E T = E min(D^2, C^2)
    / C^2 for D = x_a - x_b of two random rows). ``clip`` (K, p) gives (K, p), (p,) gives (p,).
    Sums per group of pairs (``SCALE_SUM_ROWS``; :func:`_clipped_sums`), then the correctly
    rounded sum of the group sums, divided by the number of pairs (:func:`moment_sensitivity`
    bounds the rounding)."""
    clips = np.atleast_2d(clip)
    parts = []
    for differences, weight in pairs.sets:
        sums = np.array(group_results(differences, lambda group: _clipped_sums(group, clips),
                                      SCALE_SUM_ROWS))  # (groups, K, p)
        parts.append(weight * (_fsum_first(sums) / differences.shape[0]))
    total = _fsum_first(np.array(parts))
    return total if np.ndim(clip) == 2 else total[0]


def _fsum_first(values) -> np.ndarray:
    """Correctly rounded sums over the first axis."""
    return np.apply_along_axis(math.fsum, 0, values)


#: Pairs per inner chunk of a group: the terms of a chunk are summed by numpy in any order
#: (relative error at most gamma_1023 < 2^-43 for non-negative terms, Higham 2002, §4.2), the
#: chunk sums correctly rounded (``math.fsum``): fast, and within the slack of
#: :func:`moment_sensitivity`.
SCALE_CHUNK_ROWS = 1024


def _clipped_sums(absdiff, clips) -> np.ndarray:
    """(K, p) sums of the terms of a group of pairs, one row per clip row: numpy sums of
    ``SCALE_CHUNK_ROWS`` consecutive terms, then the correctly rounded sum of those."""
    starts = np.arange(0, max(absdiff.shape[0], 1), SCALE_CHUNK_ROWS)
    out = np.empty(clips.shape)
    for k, clip in enumerate(clips):
        terms = (np.minimum(absdiff, clip) / clip) ** 2  # in [0, 1] in floating point
        chunks = np.add.reduceat(terms, starts, axis=0) if terms.shape[0] else np.zeros((1, terms.shape[1]))
        out[k] = _fsum_first(chunks)
    return out


__all__ = ["clipped_moment", "mean_of_clipped", "moment_sensitivity", "octave_counts", "octave_loglik"]
