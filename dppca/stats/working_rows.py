"""The Kendall engine's working rows: centred, scaled by a power of two, sorted by norm.

Both engines of :mod:`dppca.stats.kendall` (BLAS and fused) read the rows through the Gram
factor ``[z, 1, ||z||^2]`` of the working rows z = (x - median) / scale, sorted by squared
norm. :func:`working_rows` builds it for one data set (the complete statistic; chunked, so
the only O(n d) allocation is the factor); :func:`working_rows_of_blocks` builds it for many
blocks of equal size at once (an incomplete design's blocks: one numpy call per step for the
whole batch instead of a dozen small calls per block).

Each block's factor is a function of its own rows only, bitwise the same as
:func:`working_rows` of those rows: medians, extrema and the power of two are exact
selections per block and column, and every other step is a per-row map. So batching does not
change any block's term (the sensitivity proof of :func:`dppca.stats.pair_design.block_sum_slack`
needs each block's computed term to depend on that block's rows alone).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .signs import power_of_two_scale

__all__ = ["PREPARE_CHUNK", "WorkingBlocks", "WorkingRows", "block_column_extremes", "working_rows",
           "working_rows_of_blocks"]

#: Rows per chunk when building the working rows: the temporaries stay O(chunk d).
PREPARE_CHUNK = 2**12


class WorkingRows(NamedTuple):
    """Centred, scaled, norm-sorted data as the augmented Gram factor [z, 1, ||z||^2]."""

    X: np.ndarray  # original rows (for explicit differences)
    order: np.ndarray  # sorted position -> original row
    scale: float  # power of two; working units = original / scale
    sqnorm: np.ndarray  # ||z_i||^2 of the working rows z, ascending
    left: np.ndarray  # [z, 1, ||z||^2]; [-2 z, ||z||^2, 1] of a strip's rows is formed on the fly


class WorkingBlocks(NamedTuple):
    """The working rows of g blocks of b rows each, stacked (see :class:`WorkingRows`)."""

    X: np.ndarray  # (g, b, d) original rows
    order: np.ndarray  # (g, b) sorted position -> row of the block
    scale: np.ndarray  # (g,) powers of two
    left: np.ndarray  # (g, b, d + 2) the Gram factors

    def block(self, k) -> WorkingRows:
        """Block k as :class:`WorkingRows` (views)."""
        return WorkingRows(self.X[k], self.order[k], float(self.scale[k]), self.left[k, :, -1],
                           self.left[k])


def working_rows(X) -> WorkingRows:
    """Centre at the column medians, rescale by a power of two, sort by norm.

    Parameters
    ----------
    X : ndarray, shape (n, d)
        Finite float64 rows, n >= 2.

    Returns
    -------
    WorkingRows
        ``left`` has shape (n, d + 2); ``order`` (n,) maps sorted positions to rows of ``X``.

    Notes
    -----
    Built chunk by chunk straight into the Gram factor, so the only O(n d) allocation is
    that factor (n (d + 2) floats): the engine's extra memory is about (d + 2)/d times the data.

    Examples
    --------
    >>> rows = working_rows(np.array([[0.0, 4.0], [1.0, 0.0], [2.0, 2.0]]))
    >>> rows.order.tolist(), rows.scale
    ([2, 1, 0], 4.0)
    """
    n, d = X.shape
    # np.median copies its input: whole for small data, one column at a time for large.
    median = np.median(X, axis=0) if n <= PREPARE_CHUNK else \
        np.array([np.median(X[:, j]) for j in range(d)])
    scale = float(_units(median, X.max(axis=0), X.min(axis=0)))
    sq = np.empty(n)
    for start in range(0, n, PREPARE_CHUNK):
        Z = (X[start:start + PREPARE_CHUNK] - median) * (1.0 / scale)  # exact: a power of two
        sq[start:start + PREPARE_CHUNK] = np.einsum("ij,ij->i", Z, Z)
    order = np.argsort(sq, kind="stable")
    # Augmenting the factor puts the whole Gram trick inside one GEMM,
    # ||z_i||^2 + ||z_j||^2 - 2 z_i.z_j, saving two elementwise passes; the
    # ones column also yields the row sums of W from W @ left.
    left = np.empty((n, d + 2))
    for start in range(0, n, PREPARE_CHUNK):
        rows = order[start:start + PREPARE_CHUNK]
        np.multiply(X[rows] - median, 1.0 / scale, out=left[start:start + rows.size, :d])
    left[:, d] = 1.0
    left[:, d + 1] = sq[order]
    return WorkingRows(X, order, scale, left[:, d + 1], left)


def working_rows_of_blocks(Y, extremes=None) -> WorkingBlocks:
    """:func:`working_rows` of each block ``Y[k]`` of a batch of equal-size blocks, built together.

    Parameters
    ----------
    Y : ndarray, shape (g, b, d)
        g blocks of b finite rows each (b >= 2), float64.
    extremes : tuple of 3 ndarrays of shape (g, d), optional
        :func:`block_column_extremes` of ``Y``, if the caller has them.

    Returns
    -------
    WorkingBlocks
        Block k (``.block(k)``) is bitwise equal to ``working_rows(Y[k])``; ``X`` is ``Y``.

    Notes
    -----
    Memory: about 3 g b (d + 2) floats at the peak (the columns' copy, the unsorted and the
    sorted factor), so callers bound g b.

    Examples
    --------
    >>> Y = np.random.default_rng(0).normal(size=(3, 50, 4))
    >>> together = working_rows_of_blocks(Y)
    >>> all(np.array_equal(together.block(k).left, working_rows(Y[k]).left) for k in range(3))
    True
    """
    g, b, d = Y.shape
    median, maxima, minima = block_column_extremes(Y) if extremes is None else extremes
    scale = _units(median, maxima, minima)  # (g,)
    # The factor is built in place, unsorted, then its rows are gathered in sorted order (one
    # take of whole rows). Both operands are (g, 1, d): numpy's loops are slow over (g, 1, 1).
    unsorted = np.empty((g * b, d + 2))
    Z = unsorted[:, :d].reshape(g, b, d)
    np.subtract(Y, median[:, None, :], out=Z)
    Z *= np.repeat(1.0 / scale, d).reshape(g, 1, d)  # exact: powers of two
    sq = np.einsum("gij,gij->gi", Z, Z)
    order = np.argsort(sq, axis=1, kind="stable")
    unsorted[:, d] = 1.0
    unsorted[:, d + 1] = sq.ravel()
    left = np.take(unsorted, (order + np.arange(0, g * b, b)[:, None]).ravel(), axis=0)
    left = left.reshape(g, b, d + 2)
    return WorkingBlocks(Y, order, scale, left)


def block_column_extremes(Y):
    """(median, max, min) of every column of every block of ``Y`` (g, b, d): three (g, d) arrays.

    The medians are np.median's bitwise (the middle order statistic, or the midpoint of the
    two middle ones, ``(a + b) / 2`` as np.mean computes it), found with one partition per
    column: np.median asks for two or three order statistics (its NaN check included), which
    took 5x as long here, and the data are finite.

    Examples
    --------
    >>> Y = np.random.default_rng(1).normal(size=(2, 6, 3))
    >>> bool(np.array_equal(block_column_extremes(Y)[0], np.median(Y, axis=1)))
    True
    """
    b = Y.shape[1]
    half = b // 2
    columns = np.ascontiguousarray(np.swapaxes(Y, 1, 2))  # (g, d, b): each column contiguous
    columns.partition(half, axis=-1)
    upper = columns[..., half]
    median = upper if b % 2 else (columns[..., :half].max(axis=-1) + upper) / 2
    return median, columns.max(axis=-1), columns.min(axis=-1)


def _units(median, maxima, minima):
    """The power of two of the working units: the largest |x - m| over the columns (last
    axis) is at a column's min or max, as fl(x - m) is monotone in x."""
    return power_of_two_scale(np.maximum(np.abs(maxima - median), np.abs(minima - median))
                              .max(axis=-1))
