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


#: Prior penalty (log-likelihood units) per octave between a column's octave and the octave of
#: the pooled histogram: a column follows the pooled octave unless its own counts say otherwise.
SCALE_OCTAVE_PENALTY = 1.0


#: Prior penalty per octave between the pooled octave and octave 0 of the SD (scale 1): with no
#: evidence in the counts (tiny n or budget) the scales stay near 1, i.e. close to no scaling.
SCALE_UNIT_PENALTY = 0.25


#: Evidence (in noise sd of the matched filter) an octave needs to be chosen over the default
#: (octave 0 for the pooled counts, the pooled octave for a column): P(max of 130 N(0,1) > 4) ~ 0.4%.
SCALE_OCTAVE_Z = 4.0


#: Prior sd (octaves) of the SD of the differences around the pilot clip placed by the octave
#: step: octave from the column's own counts, from the pooled counts, or the default (scale 1).
SCALE_PRIOR_OCTAVES = (1.0, 2.0, 4.0)


#: Pairs per summation group: every pair statistic is summed group by group (groups of
#: consecutive pairs of the public random pairing), then over the groups. A dask chunk holds one
#: group, so the sums, and the scales, are the same doubles in memory and for any chunking.
SCALE_SUM_ROWS = 2**16


#: Octave profile of |Z| sd for an SD in the middle of octave 0: P(2^(k-1/2) <= |Z| < 2^(k+1/2)).
_PROFILE_OFFSETS = np.arange(-8, 4)


def _octave_profile() -> np.ndarray:
    from scipy.special import ndtr

    edges = 2.0 ** np.append(_PROFILE_OFFSETS - 0.5, _PROFILE_OFFSETS[-1] + 0.5)
    return np.diff(2 * ndtr(edges) - 1)


def private_octaves(absdiff, noise, rng, ledger) -> tuple[np.ndarray, np.ndarray]:
    """Release 1: per-column octave b_j of the SD of the differences, and how sure it is (the
    prior sd, in octaves, of the pilot: ``SCALE_PRIOR_OCTAVES`` for an octave chosen on the
    column's own evidence, on the pooled evidence, or by default)."""
    low, high = SCALE_OCTAVES
    counts = octave_counts(absdiff)
    noisy, sigma = noise.release(counts, np.sqrt(2.0 * absdiff.shape[1]), rng, ledger,
                                 "scale: octave histograms of |x_a - x_b|")
    profile = _octave_profile()
    body = noisy[:, 1:]  # octaves low..high-1 and the end bin above (as octave high)
    padded = np.pad(body, ((0, 0), (-_PROFILE_OFFSETS[0], _PROFILE_OFFSETS[-1])))
    evidence = np.stack([padded[:, b:b + profile.size] @ profile for b in range(body.shape[1])], 1)
    z = evidence / (sigma * np.linalg.norm(profile))
    pooled_z = evidence.sum(axis=0) / (sigma * np.linalg.norm(profile) * np.sqrt(len(z)))
    offsets = np.arange(body.shape[1]) + low
    pooled = int(np.argmax(_octave_score(pooled_z, -low, SCALE_UNIT_PENALTY * np.abs(offsets))))
    distance = np.abs(np.arange(body.shape[1]) - pooled)
    octave = np.array([np.argmax(_octave_score(row, pooled, SCALE_OCTAVE_PENALTY * distance))
                       for row in z])
    own = z[np.arange(len(z)), octave] >= SCALE_OCTAVE_Z
    source = np.where(own, 0, 1 if pooled_z[pooled] >= SCALE_OCTAVE_Z else 2)
    curves = np.where(own[:, None], z, pooled_z)  # the evidence each column's octave came from
    fraction = np.where(source < 2, _peak_offset(curves, octave), 0.0)
    return octave + fraction + low, np.asarray(SCALE_PRIOR_OCTAVES)[source]


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


def _peak_offset(curves, peak) -> np.ndarray:
    """Sub-octave position of each curve's peak by parabolic interpolation, in [-1/2, 1/2]."""
    rows = np.arange(len(curves))
    left = curves[rows, np.maximum(peak - 1, 0)]
    centre = curves[rows, peak]
    right = curves[rows, np.minimum(peak + 1, curves.shape[1] - 1)]
    curvature = left - 2 * centre + right
    offset = np.divide(0.5 * (left - right), curvature, out=np.zeros(len(curves)), where=curvature < 0)
    return np.clip(offset, -0.5, 0.5)


def _octave_score(z, default, penalty) -> np.ndarray:
    """Log-evidence z^2/2 minus a prior penalty, over the octaves whose evidence is significant
    (z >= ``SCALE_OCTAVE_Z``, so that the largest of ~130 noise z's rarely qualifies) and the
    default octave; -inf elsewhere."""
    score = np.where(z >= SCALE_OCTAVE_Z, np.maximum(z, 0.0) ** 2 / 2 - penalty, -np.inf)
    score[default] = max(score[default], -penalty[default])
    return score


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


__all__ = ["clipped_moment", "mean_of_clipped", "moment_sensitivity", "octave_counts", "private_octaves"]
