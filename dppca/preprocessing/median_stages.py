"""Refinement stages of the private column medians: linear grids inside the last median bin.

The first stage of :func:`dppca.preprocessing.missing.private_medians` reads each column's median
off a noisy histogram on a public log-spaced grid whose bins are 41% wide relative to their
location. A column whose spread is small next to its location (calendar years, dates, readings
on an offset scale) lies in one or two such bins, and the median read there can be hundreds of
its sds off. Each refinement stage releases, per column, the counts of a public LINEAR grid of
:data:`REFINEMENT_BINS` bins spanning the previous stage's bin that holds the released median,
plus the two tails below and above it (so the cumulative count up to every refined bin comes
from the same release), and reads the median off those counts.

Privacy. Every stage counts each observed cell of a column in exactly one of its bins (the tails
close the grid to the whole line; NaN is counted nowhere), so a replaced row moves each column's
counts by 1 in at most two bins: L2 sensitivity sqrt(2 q) for q columns, the first stage's (an
added or removed row moves one count per column: sqrt(q), within the same bound). A stage's
edges are a function of the earlier stages' noisy releases only, so the stages are an adaptive
composition of Gaussian mechanisms, mu_s-GDP each, sqrt(sum mu_s^2)-GDP together (Dong, Roth
and Su 2022, Cor. 3.3): splitting the medians' share of mu^2 among the stages keeps the
medians' (eps, delta). Thresholds, fall-backs and the medians are post-processing.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from ..privacy.histograms import histogram_quantiles

__all__ = ["FIRST_STAGE_SHARE", "MEDIAN_STAGES", "REFINEMENT_BINS", "REFINEMENT_THRESHOLD_SD",
           "holding_bins", "refine_medians", "refined_counts", "refinement_edges"]

#: Stages of the median release: the log grid, then MEDIAN_STAGES - 1 linear refinements.
#:
#: Why 4 stages of 6 bins, the first on half of mu^2. Let sigma be the noise sd per count of a
#: single-stage release of the medians' share, and n_j a column's observed cells.
#:
#: - Reach. A log-grid bin is 0.41 |m| wide at location m; the refinements shrink it by
#:   REFINEMENT_BINS^(MEDIAN_STAGES - 1) = 216, so the last grid's bins are at most one sd wide
#:   for every column whose sd / |m| is at least 0.41 / 216 = 0.0019 (calendar years over a few
#:   decades: 9 / 1994 = 0.0045; dates in days over a year: 0.005). Narrower bins would gain
#:   little: a median read off a bin no wider than the sd is within a fraction of it.
#: - Who pays. Stage 1 gates every column (no bin over its threshold: the public default 0), so
#:   it keeps FIRST_STAGE_SHARE = 1/2 of mu^2: noise sqrt(2) sigma, a column is found when its
#:   median bin holds 3.58 sqrt(2) sigma = 5.1 sigma counts (one stage: 3.58 sigma). The
#:   refinements matter for narrow columns, whose cells fill one or two bins of each grid until
#:   the last: on a sixth each (noise sqrt(6) sigma) a bin passes at 2.50 sqrt(6) sigma =
#:   6.1 sigma, the same order as stage 1, and the grid's total (the second pass rule,
#:   :func:`refine_medians`) at 2.50 sqrt(6) sqrt(6) sigma = 15 sigma.
#: - Bins per stage. For a reach of about 200, 3 stages of 14 bins, 4 of 6 or 5 of 4: the
#:   threshold in sigma is 2.74 sqrt(4) = 5.5, 2.50 sqrt(6) = 6.1, 2.39 sqrt(8) = 6.8 per bin,
#:   but a bin of a 14-bin grid holds 14/6 times fewer cells of a column wider than the grid's
#:   bins, so a stage whose column fills its grid passes at n_j ~ 14 x 5.5 = 77 sigma against
#:   6 x 6.1 = 37 sigma for 6 bins. On simulated normal columns (sd / |m| from 0.3 to 5e-4,
#:   n_j 2,000 to 20,000, 8 columns at eps 0.1), 4 x 6 was never far behind the best of the
#:   designs tried (2 x 16..64, 3 x 8..32, 4 x 8..16, 5 x 6): 3 x 8 loses the columns narrower
#:   than its reach (sd / |m| < 0.006), 4 x 8 and 4 x 12 pay more noise on the wide ones.
MEDIAN_STAGES = 4

#: Share of the medians' mu^2 that the first stage (the log grid) keeps; the refinements split
#: the rest equally (:data:`MEDIAN_STAGES` says why).
FIRST_STAGE_SHARE = 0.5

#: Linear bins of a refinement stage, plus the two tails (:data:`MEDIAN_STAGES` says why).
REFINEMENT_BINS = 6

#: A refined count below this many noise sd is set to 0: an empty bin passes with probability
#: 0.05 / (REFINEMENT_BINS + 2) (Bonferroni over the stage's bins, 2.77 sd at 18 bins).
REFINEMENT_THRESHOLD_SD = NormalDist().inv_cdf(1.0 - 0.05 / (REFINEMENT_BINS + 2))


def refinement_edges(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Edges of each column's refined grid: -inf, REFINEMENT_BINS linear bins on [low, high], +inf.

    Parameters
    ----------
    low, high : ndarray, shape (q,)
        The bin of the previous stage that holds each column's released median (low < high).

    Returns
    -------
    ndarray, shape (q, REFINEMENT_BINS + 3)
        Strictly increasing rows (``numpy.linspace`` keeps the ends exact; a bin of the median
        grid is at least 0.41 |low| wide, far above the float spacing after a few stages).

    Examples
    --------
    >>> refinement_edges(np.array([1.0]), np.array([4.0]))[0, [0, 1, 2, -2, -1]].tolist()
    [-inf, 1.0, 1.5, 4.0, inf]
    """
    inner = np.linspace(np.asarray(low, float), np.asarray(high, float), REFINEMENT_BINS + 1,
                        axis=1)
    tails = np.full((inner.shape[0], 1), np.inf)
    return np.hstack((-tails, inner, tails))


def refined_counts(values, edges: np.ndarray) -> np.ndarray:
    """Counts of each column's observed cells in its own refined grid (NaN not counted).

    Parameters
    ----------
    values : ndarray, shape (n, q)
    edges : ndarray, shape (q, B + 1)
        One increasing row per column, from -inf to +inf (:func:`refinement_edges`).

    Returns
    -------
    ndarray of int64, shape (q, B)
        Additive over rows (the dask path sums them over chunks); each observed cell is in
        exactly one bin: its search in the public edges of its column, a function of it alone.

    Examples
    --------
    >>> x = np.array([[0.5], [1.5], [np.nan], [np.inf]])
    >>> refined_counts(x, refinement_edges(np.array([1.0]), np.array([4.0]))).tolist()
    [[1, 0, 1, 0, 0, 0, 0, 1]]
    """
    x = np.asarray(values, dtype=float)
    rows = []
    for column, row in zip(x.T, edges):
        observed = column[~np.isnan(column)]
        bins = np.clip(np.searchsorted(row, observed, side="right") - 1, 0, row.size - 2)
        rows.append(np.bincount(bins, minlength=row.size - 1))
    return np.stack(rows).astype(np.int64)


def holding_bins(edges: np.ndarray, medians: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the bin of the 1-d grid ``edges`` that holds each median (closed above).

    Examples
    --------
    >>> holding_bins(np.array([0.0, 1.0, 2.0]), np.array([1.0, 1.5]))
    (array([0., 1.]), array([1., 2.]))
    """
    index = np.clip(np.searchsorted(edges, medians, side="left") - 1, 0, edges.size - 2)
    return edges[index], edges[index + 1]


def refine_medians(noisy: np.ndarray, sigma: float, edges: np.ndarray,
                   medians: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The medians read off one refinement stage's noisy counts (post-processing).

    Parameters
    ----------
    noisy : ndarray, shape (q, REFINEMENT_BINS + 2)
        The stage's noisy counts (tail below, linear bins, tail above).
    sigma : float
        Their noise sd.
    edges : ndarray, shape (q, REFINEMENT_BINS + 3)
        The stage's grids (:func:`refinement_edges`).
    medians : ndarray, shape (q,)
        The previous stage's medians.

    Returns
    -------
    medians : ndarray, shape (q,)
        Each column's median read off its noisy cumulative counts (the tails as the mass below
        and above the grid; a running maximum keeps them non-decreasing), clamped to the
        refined bin, where the stage saw data; the previous median where it did not (fall back).
    passed : ndarray of bool, shape (q,)
        Whether the stage saw data in the column's grid: a linear bin above
        :data:`REFINEMENT_THRESHOLD_SD` noise sd, or the linear bins' total above
        REFINEMENT_THRESHOLD_SD sqrt(REFINEMENT_BINS) sd (a column spread over the grid, whose
        bins each hold too little). An empty grid passes with probability at most
        0.05 + 0.05 / (REFINEMENT_BINS + 2).

    Notes
    -----
    The counts are read without the per-bin threshold: every bin lies inside the previous
    stage's median bin, so a noisy empty bin moves the median within that bin only, whereas
    zeroing the bins under a threshold would drop the mass of a column whose bins each hold
    a little less than it and bias the median (a stage-1 concern that the log grid's far bins
    make real, :data:`~dppca.preprocessing.missing.MEDIAN_THRESHOLD_SD`). Post-processing.

    Examples
    --------
    >>> edges = refinement_edges(np.array([0.0]), np.array([6.0]))
    >>> counts = np.zeros((1, 8)); counts[0, [0, 5, 6, 7]] = [100, 400, 400, 100]
    >>> refine_medians(counts, 1.0, edges, np.array([3.0]))
    (array([5.]), array([ True]))
    >>> refine_medians(np.zeros((1, 8)), 1.0, edges, np.array([3.0]))
    (array([3.]), array([False]))
    """
    inner = noisy[:, 1:-1]
    passed = np.any(inner > REFINEMENT_THRESHOLD_SD * sigma, axis=1) | \
        (inner.sum(axis=1) > REFINEMENT_THRESHOLD_SD * sigma * math.sqrt(inner.shape[1]))
    refined = medians.astype(float).copy()
    for j, (row, grid) in enumerate(zip(noisy, edges)):
        if passed[j]:
            # tails as zero-width bins at the grid's ends: a median in a tail is clamped there
            ends = np.concatenate(([grid[1]], grid[1:-1], [grid[-2]]))
            refined[j] = histogram_quantiles(row, ends, [0.5])[0]
    return refined, passed
