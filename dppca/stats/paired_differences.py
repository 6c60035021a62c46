"""Absolute differences |x_a - x_b| of disjoint random pairs of rows, in memory or on dask.

The statistics of :mod:`dppca.preprocessing.scales` are sums over the pairs. They are computed group
by group (groups of consecutive pairs of the public random pairing): slices in memory, one
chunk each on dask (:func:`dppca.backends.dask.pair_chunk_statistics`), so both paths see the
same groups and return the same doubles.
"""
from __future__ import annotations

import numpy as np


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


class _DaskPairs:
    """The paired differences of a dask array, lazily: ``shape`` (m, p) and, per group of
    consecutive pairs, a statistic of |x_a - x_b| (:func:`group_results`)."""

    def __init__(self, values, first, second):
        self.values, self.first, self.second = values, first, second
        self.shape = (len(first), values.shape[1])


def pair_differences(values, first, second):
    """|x_a - x_b| in memory, or a :class:`_DaskPairs` for a dask array (rows stay on the workers).

    Examples
    --------
    >>> pair_differences(np.array([[1.0], [4.0]]), [0], [1]).shape
    (1, 1)
    """
    if isinstance(values, np.ndarray):
        return abs_differences(values, first, second)
    return _DaskPairs(values, first, second)


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
    if isinstance(absdiff, _DaskPairs):
        from ..backends.dask import pair_chunk_statistics

        return pair_chunk_statistics(absdiff.values, absdiff.first, absdiff.second, rows,
                                     lambda diff: statistic(_clamped_abs(diff)))
    starts = range(0, max(absdiff.shape[0], 1), rows)
    return [statistic(absdiff[a:a + rows]) for a in starts]

__all__ = ["abs_differences", "group_results", "pair_differences"]
