"""Absolute differences |x_a - x_b| of disjoint random pairs of rows, in memory or on dask.

The statistics of :mod:`dppca.preprocessing.scales` are sums over the pairs. They are computed group
by group (groups of consecutive pairs of the public random pairing): slices in memory, one
chunk each on dask (:func:`dppca.backends.dask.pair_chunk_statistics`), so both paths see the
same groups and return the same doubles.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


def random_pairs(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint random pairs of rows: (first, second), each of length m = floor(n/2).

    The pairing is drawn from ``rng`` independently of the data, so a replaced row belongs
    to at most one pair whatever the row order (pairing rows by position, as the R package
    does, biases data whose rows are sorted: reference/r-dppca-scree.md §15.3 item 30).
    Every paired-difference statistic of the package uses this one pairing rule.

    Parameters
    ----------
    n : int
        Number of rows (public).
    rng : numpy.random.Generator
        Source of the pairing.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Row indices of the first and second member of each pair, each of shape (floor(n/2),).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.paired_differences import random_pairs
    >>> first, second = random_pairs(5, np.random.default_rng(0))
    >>> len(first), len(second), len(set(first) | set(second))
    (2, 2, 4)
    """
    order = rng.permutation(n)
    m = n // 2
    return order[:m], order[m:2 * m]


def abs_differences(values, first, second) -> np.ndarray:
    """|x_a - x_b| per pair and column, shape (m, p), finite (an overflow to inf becomes the
    largest double); ``first`` and ``second`` index the rows of ``values`` (shape (n, p)).

    Examples
    --------
    >>> abs_differences(np.array([[1.0], [4.0], [-2.0]]), [0], [1])
    array([[3.]])
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return _clamped_abs(values[first] - values[second])


def _clamped_abs(diff) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return np.minimum(np.abs(diff), np.finfo(float).max)


class _LazyPairs:
    """The paired differences of a numpy or dask array, lazily: ``shape`` (m, p) and, per group
    of consecutive pairs, a statistic of |x_a - x_b| (:func:`group_results`); the rows of a dask
    array stay on the workers, and in memory only one group's differences exist at a time."""

    def __init__(self, values, first, second):
        self.values, self.first, self.second = values, first, second
        self.shape = (len(first), values.shape[1])


def pair_differences(values, first, second, lazy=False):
    """|x_a - x_b| in memory, or a lazy :class:`_LazyPairs` for a dask array (rows stay on the
    workers) or when ``lazy`` (many pairs: the differences are formed group by group).

    Examples
    --------
    >>> pair_differences(np.array([[1.0], [4.0]]), [0], [1]).shape
    (1, 1)
    """
    if isinstance(values, np.ndarray) and not lazy:
        return abs_differences(values, first, second)
    return _LazyPairs(values, first, second)


def group_results(absdiff, statistic, rows: int) -> list:
    """``statistic`` of each group of ``rows`` consecutive pairs, in order.

    In memory the groups are slices; on dask each group is one chunk of the paired
    differences, computed and reduced by dask (:func:`dppca.backends.dask.pair_chunk_statistics`):
    the same groups, hence the same numbers, for any chunking and scheduler.

    Parameters
    ----------
    absdiff : ndarray of shape (m, p), or the result of :func:`pair_differences`
    statistic : callable
        Maps a (rows, p) array of |x_a - x_b| to a small result.
    rows : int
        Pairs per group (the last group may be shorter).

    Raises
    ------
    DPPCAValueError
        On dask, if a paired row holds NaN or inf.

    Examples
    --------
    >>> group_results(np.arange(5.0)[:, None], lambda group: float(group.sum()), 2)
    [1.0, 5.0, 4.0]
    """
    starts = range(0, max(absdiff.shape[0], 1), rows)
    if isinstance(absdiff, _LazyPairs) and isinstance(absdiff.values, np.ndarray):
        return [statistic(abs_differences(absdiff.values, absdiff.first[a:a + rows],
                                          absdiff.second[a:a + rows])) for a in starts]
    if isinstance(absdiff, _LazyPairs):
        from ..backends.dask import pair_chunk_statistics

        return pair_chunk_statistics(absdiff.values, absdiff.first, absdiff.second, rows,
                                     lambda diff: statistic(_clamped_abs(diff)))
    return [statistic(absdiff[a:a + rows]) for a in starts]

class BlockPairs(NamedTuple):
    """All pairs inside the blocks of a random block design, grouped by block size.

    Attributes
    ----------
    sets : tuple of (pairs, weight)
        Per block size S: the lazy differences of every pair inside a block of S rows
        (:func:`pair_differences`, block by block) and the weight (rows in such blocks) / n.
    n, p : int
        Rows and columns (public).
    """

    sets: tuple
    n: int
    p: int

    @property
    def shape(self) -> tuple[int, int]:
        """(pairs, columns)."""
        return sum(pairs.shape[0] for pairs, _ in self.sets), self.p


def block_pairs(values, block_rows: int, rng: np.random.Generator) -> BlockPairs:
    """The within-block pairs of :func:`dppca.stats.pair_design.block_design` with blocks of
    about ``block_rows`` rows (all n rows, blocks of floor(n/B) or ceil(n/B) rows, B =
    max(n // block_rows, 1) blocks): the pairs of an incomplete U-statistic of order two.

    The design depends on n and ``rng`` only (public). A row of a block of S rows is in S - 1
    of its S(S - 1)/2 pairs, so the mean over the pairs of the blocks of size S moves by at most
    2 / (rows in those blocks) when one row changes and its terms lie in [0, 1]; weighted by
    (rows in those blocks) / n, the sum over the sizes moves by at most 2 / n, as the mean over
    n / 2 disjoint pairs does (Blom 1976; Lee 1990, Ch. 4.3).

    Examples
    --------
    >>> design = block_pairs(np.zeros((10, 2)), 4, np.random.default_rng(0))
    >>> [(pairs.shape[0], weight) for pairs, weight in design.sets]  # two blocks of 5 rows
    [(20, 1.0)]
    >>> odd = block_pairs(np.zeros((9, 1)), 4, np.random.default_rng(0))  # blocks of 5 and 4 rows
    >>> [(pairs.shape[0], weight) for pairs, weight in odd.sets]
    [(10, 0.5555555555555556), (6, 0.4444444444444444)]
    """
    from .pair_design import block_design

    n = values.shape[0]
    design = block_design(n, min(int(block_rows), n) - 1, rng)
    sizes = np.diff(design.bounds)
    sets = []
    for size in sorted(set(sizes.tolist()), reverse=True):
        starts = design.bounds[:-1][sizes == size]
        rows = design.order[starts[:, None] + np.arange(size)]
        first, second = np.triu_indices(size, 1)
        pairs = pair_differences(values, rows[:, first].ravel(), rows[:, second].ravel(), lazy=True)
        sets.append((pairs, rows.size / n))
    return BlockPairs(tuple(sets), n, values.shape[1])


__all__ = ["BlockPairs", "abs_differences", "block_pairs", "group_results", "pair_differences",
           "random_pairs"]
