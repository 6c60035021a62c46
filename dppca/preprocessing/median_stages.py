"""Private column medians in stages: a log grid, then linear grids inside the last median bin.

The first stage of :func:`private_medians` (the fill values of ``missing="median"``,
:mod:`dppca.preprocessing.missing`) reads each column's median off a noisy histogram on a
public log-spaced grid whose bins are 41% wide relative to their location. A column whose
spread is small next to its location (calendar years, dates, readings on an offset scale) lies
in one or two such bins, and the median read there can be hundreds of its sds off. Each refinement stage releases, per column, the counts of a public LINEAR grid of
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

import functools
import math
from statistics import NormalDist

import numpy as np

from ..backends.dask import chunk_totals, is_dask_array
from ..privacy.histograms import histogram_counts, histogram_quantiles

__all__ = ["FIRST_STAGE_SHARE", "MEDIAN_EDGES", "MEDIAN_STAGES", "MEDIAN_THRESHOLD_SD",
           "median_counts", "private_medians", "REFINEMENT_BINS", "REFINEMENT_THRESHOLD_SD",
           "holding_bins", "refine_medians", "refined_counts", "refinement_edges"]

#: Public bin edges of the median release, symmetric about 0: +-2^-24 .. +-2^48, ratio sqrt(2)
#: (289 bins; values beyond fall in the end bins). Unit-free: a median anywhere in 6e-8 .. 3e14
#: in absolute value is read within its bin of relative width 41%, interpolated linearly.
_POSITIVE = 2.0 ** np.arange(-24.0, 48.0 + 1e-9, 0.5)
MEDIAN_EDGES = np.concatenate((-_POSITIVE[::-1], _POSITIVE))

#: Noisy counts of the median release below this many noise sd are set to 0 before the median
#: is read. A bin that holds no data passes it with probability 0.05 / bins (Bonferroni over a
#: column's 289 bins: 3.58 sd), so a column carries a phantom bin with probability at most 0.05.
#: At 2 sd (the scree histograms' rule) each of the 289 empty bins passes with probability
#: 0.023, about 6.6 phantom bins per column, each with at least 2 sd of mass: at a small budget
#: they outweigh the data (a median of 0 or 1e13 for a column centred at 47).
MEDIAN_THRESHOLD_SD = NormalDist().inv_cdf(1.0 - 0.05 / (MEDIAN_EDGES.size - 1))


#: Stages of the median release: the log grid, then MEDIAN_STAGES - 1 linear refinements.
#:
#: Why 4 stages of 6 bins, the first on 0.7 of mu^2. Let sigma be the noise sd per count of a
#: single-stage release of the medians' share, and n_j a column's observed cells.
#:
#: - Reach. A log-grid bin is 0.41 |m| wide at location m; the refinements shrink it by
#:   REFINEMENT_BINS^(MEDIAN_STAGES - 1) = 216, so the last grid's bins are at most one sd wide
#:   for every column whose sd / |m| is at least 0.41 / 216 = 0.0019 (calendar years over a few
#:   decades: 9 / 1994 = 0.0045; dates in days over a year: 0.005). Narrower bins would gain
#:   little: a median read off a bin no wider than the sd is within a fraction of it.
#: - Who pays. Stage 1 gates every column (no bin over its threshold: the public default 0),
#:   and most columns are wide for their location (sd / |m| > 0.1), where its answer is already
#:   within a fraction of the spread; so it keeps FIRST_STAGE_SHARE = 0.7 of mu^2: noise
#:   1.20 sigma, a column is found when its median bin holds 3.58 x 1.20 = 4.3 sigma counts (one
#:   stage: 3.58 sigma; an equal split of 4 would need 7.2 sigma). The refinements serve the
#:   narrow columns, whose cells fill one or two bins of each grid until the last one (so a bin
#:   holds about n_j / 2 or more): on a tenth each (noise 3.16 sigma) a bin passes at
#:   2.50 x 3.16 = 7.9 sigma, which such a column reaches when n_j >= 16 sigma.
#: - Bins per stage. For a reach of about 200, 3 stages of 14 bins, 4 of 6 or 5 of 4: the
#:   threshold in noise sd is 2.74, 2.50, 2.39 per bin on shares 0.15, 0.1, 0.075 (7.1, 7.9,
#:   8.7 sigma); a stage whose column spans its grid puts n_j / K in each bin, so fewer bins
#:   serve more columns, and 4 x 6 is the middle choice. Simulated normal columns (sd / |m|
#:   from 0.3 to 5e-4, n_j 1,200 to 20,000, 6-8 columns at eps 0.1) agreed: 3 x 8 lost the
#:   columns narrower than its reach, 4 x 8 and 4 x 12 paid more noise on the wide ones, and
#:   a first share of 0.7 instead of 0.5 cut the wide columns' loss at n_j = 1,200 by 40%.
MEDIAN_STAGES = 4

#: Share of the medians' mu^2 that the first stage (the log grid) keeps; the refinements split
#: the rest equally (:data:`MEDIAN_STAGES` says why).
FIRST_STAGE_SHARE = 0.7

#: Linear bins of a refinement stage, plus the two tails (:data:`MEDIAN_STAGES` says why).
REFINEMENT_BINS = 6

#: A refined count below this many noise sd is set to 0: an empty bin passes with probability
#: 0.05 / (REFINEMENT_BINS + 2) (Bonferroni over the stage's bins, 2.50 sd at 8 bins).
REFINEMENT_THRESHOLD_SD = NormalDist().inv_cdf(1.0 - 0.05 / (REFINEMENT_BINS + 2))


def private_medians(values: np.ndarray, noise, rng, ledger=None,
                    step: str = "missing values: private column medians") -> np.ndarray:
    """Private median of each column's observed cells, from joint Gaussian histograms in stages.

    Stage 1 releases the counts of every column in :data:`MEDIAN_EDGES`; each later stage
    (:data:`~dppca.preprocessing.median_stages.MEDIAN_STAGES` in all) releases the counts of a
    linear grid of :data:`~dppca.preprocessing.median_stages.REFINEMENT_BINS` bins spanning the
    previous stage's bin that holds each column's released median, with the two tails around it
    (:mod:`dppca.preprocessing.median_stages`), and reads the median off those counts.

    Parameters
    ----------
    values : ndarray or dask.array.Array, shape (n, q)
        The columns; NaN marks a missing cell (not counted), +-inf fall in the end bins. A dask
        array is counted chunk by chunk, one pass per stage
        (:func:`dppca.backends.dask.chunk_totals`): the counts are exact integers, the same for
        any chunking as in memory, so the same ``rng`` gives the same medians.
    noise : dppca.privacy.composition.GaussianShare
        The release's budget: stage 1 gets
        :data:`~dppca.preprocessing.median_stages.FIRST_STAGE_SHARE` of its share of the
        group's mu^2, the refinements split the rest equally.
    rng : numpy.random.Generator
        Source of the noise (the stages draw in order).
    ledger : Ledger, optional
        Where the releases are recorded: one row per stage, always all of them (the first named
        ``step``), whatever the data.
    step : str
        The first ledger row's name; the refinements add their stage to it.

    Returns
    -------
    ndarray, shape (q,)
        The medians (0 for one inside the central bin (-2^-24, 2^-24)): stage 1's read off the
        noisy counts in :data:`MEDIAN_EDGES` (counts below
        :data:`MEDIAN_THRESHOLD_SD` noise sd set to 0 first; 0, the public default, for a
        column whose noisy counts are all below it), then each refinement's read off its own
        counts where they show data, the previous stage's median where they do not
        (:func:`~dppca.preprocessing.median_stages.refine_medians`).

    Notes
    -----
    Privacy (replace-one, n public): in every stage each observed cell of a column is in
    exactly one bin (the log grid's end bins take the values beyond it; a refinement's tails
    close its grid to the whole line), and a missing cell in none, so a replaced row leaves at
    most one bin and enters at most one bin of each column: the q count vectors of a stage move
    by at most sqrt(2 q) in L2. Under add/remove neighbours a row enters or leaves one bin per
    column: sqrt(q) <= sqrt(2 q), so the same noise is a valid (conservative) charge there too.
    The counts are exact integers and bin membership is a search of each value alone in public
    edges, so the bound holds in floating point. Stage s is a Gaussian mechanism on a share a_s
    of the group's mu^2 (a_1 = f a, a_s = (1 - f) a / (S - 1) after, a = ``noise.fraction``,
    f = FIRST_STAGE_SHARE, S stages), i.e. sqrt(a_s) mu-GDP; its edges are a function of
    stages 1..s-1's noisy counts only, so the stages compose adaptively to
    sqrt(sum a_s) mu = sqrt(a) mu-GDP (Dong, Roth and Su 2022, Cor. 3.3), the budget of one
    release of share a.
    The thresholds, fall-backs and medians are post-processing. The number of stages and of
    bins is fixed (the ledger's rows and the releases' shapes do not depend on the data).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import Ledger
    >>> from dppca.privacy.composition import GaussianGroup
    >>> x = np.random.default_rng(0).normal(5.0, 1.0, size=(5000, 2))
    >>> x[::3, 0] = np.nan
    >>> ledger = Ledger(1.0, 1e-5)
    >>> medians = private_medians(x, GaussianGroup(1.0, 1e-5).share(1.0),
    ...                           np.random.default_rng(1), ledger)
    >>> bool(np.all(np.abs(medians - 5.0) < 0.1)), len(ledger)
    (True, 4)
    """
    if is_dask_array(values):
        def counted(statistic):
            return chunk_totals(values, statistic)
    else:
        def counted(statistic):
            return statistic(values)
    first = noise.group.share(noise.fraction * FIRST_STAGE_SHARE)
    stage = noise.group.share(noise.fraction * (1.0 - FIRST_STAGE_SHARE) /
                              max(MEDIAN_STAGES - 1, 1))
    counts = counted(median_counts)
    sensitivity = math.sqrt(2.0 * counts.shape[0])
    noisy, sigma = first.release(counts, sensitivity, rng, ledger, step)
    kept = np.where(noisy > MEDIAN_THRESHOLD_SD * sigma, noisy, 0.0)  # post-processing
    medians = _centre_as_zero(np.array([histogram_quantiles(row, MEDIAN_EDGES, [0.5])[0]
                                        if row.sum() > 0 else 0.0 for row in kept]))
    low, high = holding_bins(MEDIAN_EDGES, medians)
    for refinement in range(1, MEDIAN_STAGES):
        edges = refinement_edges(low, high)
        noisy, sigma = stage.release(
            counted(functools.partial(refined_counts, edges=edges)), sensitivity, rng, ledger,
            f"{step}, refinement {refinement} of {MEDIAN_STAGES - 1} ({REFINEMENT_BINS} linear "
            "bins in the last median bin)")
        medians, passed = refine_medians(noisy, sigma, edges, medians)
        medians = _centre_as_zero(medians)
        # a column that fell back refines the same bin again (fresh noise) in the next stage
        finer = np.array([holding_bins(row[1:-1], [m]) for row, m in zip(edges, medians)])
        low = np.where(passed, finer[:, 0, 0], low)
        high = np.where(passed, finer[:, 1, 0], high)
    return medians


def _centre_as_zero(medians: np.ndarray) -> np.ndarray:
    """A median inside the grid's central bin (-2^-24, 2^-24) is 0. The grid's resolution is
    relative everywhere but there, where it declares magnitudes below 6e-8 to be zero; and a
    column with a mass of exact zeros (amounts, counts) filled at an interpolated 1e-10 next to
    its zeros would gain pairs of rows that differ by 1e-10 in it alone, which the spatial signs
    of g-DPPCA's statistics read as a whole unit of difference. Post-processing."""
    return np.where(np.abs(medians) < _POSITIVE[0], 0.0, medians)


def median_counts(values) -> np.ndarray:
    """Counts of each column's observed cells in the bins of :data:`MEDIAN_EDGES` (NaN not counted).

    Parameters
    ----------
    values : ndarray, shape (n, q)

    Returns
    -------
    ndarray of int64, shape (q, len(MEDIAN_EDGES) - 1)
        Additive over rows (the dask path sums them over chunks).

    Examples
    --------
    >>> median_counts(np.array([[1.0], [np.nan], [np.inf]])).sum(axis=1).tolist()
    [2]
    """
    x = np.asarray(values, dtype=float)
    return np.stack([histogram_counts(column[~np.isnan(column)], MEDIAN_EDGES)[0]
                     for column in x.T]).astype(np.int64)


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
    return np.stack([histogram_counts(column[~np.isnan(column)], row)[0]
                     for column, row in zip(x.T, edges)]).astype(np.int64)


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
        Whether the stage resolved the column: some linear bin above
        :data:`REFINEMENT_THRESHOLD_SD` noise sd (an empty grid shows one with probability
        at most 0.05), and the m linear bins below it hold together no more than noise would
        (their sum at most REFINEMENT_THRESHOLD_SD sqrt(m) sd).

    Notes
    -----
    The median is read off the counts with those below the threshold set to 0 (empty bins carry
    no phantom mass). That drops the cells of bins that each hold a little less than the
    threshold, which would bias the median of a column spread over the grid; the second rule
    refuses that case (its bins below the threshold hold together more than noise) and keeps
    the previous answer, which for a column as wide as the previous bin is already within a
    fraction of its spread. The refinements thus act on the columns they are for, those
    concentrated in a few bins. Post-processing.

    Examples
    --------
    >>> edges = refinement_edges(np.array([0.0]), np.array([6.0]))
    >>> counts = np.zeros((1, 8)); counts[0, [0, 5, 6, 7]] = [100, 400, 400, 100]
    >>> refine_medians(counts, 1.0, edges, np.array([3.0]))
    (array([5.]), array([ True]))
    >>> refine_medians(np.zeros((1, 8)), 1.0, edges, np.array([3.0]))
    (array([3.]), array([False]))
    """
    threshold = REFINEMENT_THRESHOLD_SD * sigma
    kept = np.where(noisy > threshold, noisy, 0.0)
    inner, below = kept[:, 1:-1], noisy[:, 1:-1] - kept[:, 1:-1]
    quiet = np.maximum((inner == 0).sum(axis=1), 1)
    passed = (inner.sum(axis=1) > 0) & (below.sum(axis=1) <= threshold * np.sqrt(quiet))
    refined = medians.astype(float).copy()
    for j, (row, grid) in enumerate(zip(kept, edges)):
        if passed[j]:
            # tails as zero-width bins at the grid's ends: a median in a tail is clamped there
            ends = np.concatenate(([grid[1]], grid[1:-1], [grid[-2]]))
            refined[j] = histogram_quantiles(row, ends, [0.5])[0]
    return refined, passed
