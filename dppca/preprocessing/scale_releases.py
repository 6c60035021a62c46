"""The releases behind :func:`dppca.preprocessing.scales.private_column_scales`.

Release 1: per-column octave histograms of the |paired differences| (L2 sensitivity sqrt(2p));
releases 2 and 3: clipped second moments mean_i min(a_ij, C_j)^2 / C_j^2 (sensitivity
sqrt(p) (1/m + 2^-50) per clip, the 2^-50 covering the grouped correctly rounded sums). Each
row is in exactly one pair, so one replaced row moves one |difference| per column.
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


def octave_loglik(absdiff, noise, rng, ledger, grid, fractions) -> np.ndarray:
    """Release 1, read as a log-likelihood: for each column j and each t on ``grid`` (log2 of the
    SD of the differences) and each non-zero fraction pi in ``fractions``, the log-likelihood
    of the noisy octave counts n_j under D ~ (1 - pi) delta_0 + pi N(0, 4^t), up to a constant:
    -||n_j - pi m P_t||^2 / (2 sigma^2), P_t the octave profile of |N(0, 4^t)| (the end bin
    below, which holds the zeros, is left out). Shape (p, len(fractions), len(grid)). Only the release depends on the data; the rest is
    post-processing."""
    counts = octave_counts(absdiff)
    noisy, sigma = noise.release(counts, np.sqrt(2.0 * absdiff.shape[1]), rng, ledger,
                                 "scale: octave histograms of |x_a - x_b|")
    profile = _octave_profiles(grid)[:, 1:]
    dot = noisy[:, 1:] @ profile.T  # (p, G)
    norm2 = np.sum(profile ** 2, axis=1)
    amount = absdiff.shape[0] * np.asarray(fractions, float)[None, :, None]  # A = pi m
    return (amount * dot[:, None, :] - amount ** 2 * norm2 / 2) / sigma ** 2


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


def moment_sensitivity(shape) -> float:
    m, p = shape
    return np.sqrt(p) * (1.0 / m + 2.0 ** -50)


def clipped_moment(absdiff, clip, noise, rng, ledger, step, weights=(1.0,)) -> dict:
    """Releases 2 and 3: w_k mean_i min(a_ij, C_kj)^2 / C_kj^2 for the clips C_k (rows of ``clip``,
    shape (K, p) or (p,)) and weights w_k, jointly; returns the noisy means (K, p), clips and sds."""
    clip = np.atleast_2d(clip)
    weights = np.asarray(weights, float)[:, None]
    means = np.stack([mean_of_clipped(absdiff, row) for row in clip])
    sensitivity = moment_sensitivity(absdiff.shape) * np.sqrt(np.sum(weights ** 2))
    noisy, sigma = noise.release(weights * means, sensitivity, rng, ledger, step)
    return {"value": noisy / weights, "clip": clip, "sd": sigma / weights}


def mean_of_clipped(absdiff, clip) -> np.ndarray:
    """mean_i min(a_ij, C_j)^2 / C_j^2 per column: correctly rounded sums per group of pairs
    (``SCALE_SUM_ROWS``), then a correctly rounded sum of the group sums, divided by m."""
    sums = np.array(group_results(absdiff, lambda group: _clipped_sums(group, clip),
                                       SCALE_SUM_ROWS))
    return np.array([math.fsum(col) for col in sums.T]) / absdiff.shape[0]


def _clipped_sums(absdiff, clip) -> np.ndarray:
    terms = (np.minimum(absdiff, clip) / clip) ** 2  # in [0, 1] in floating point
    return np.array([math.fsum(col) for col in terms.T])


__all__ = ["clipped_moment", "mean_of_clipped", "moment_sensitivity", "octave_counts", "octave_loglik"]
