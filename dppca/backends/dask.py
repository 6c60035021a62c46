"""g-DPPCA on data too big for one process: dask arrays, dask DataFrames, Parquet and CSV files.

The incomplete Kendall's tau matrix of :mod:`dppca.stats.pair_design` is a sum of per-block
terms over a random partition of the rows. Here the rows are permuted lazily (the
public permutation of the design), cut into chunks that hold whole blocks, and each chunk
sends back one p x p matrix: the reduction moves p^2 numbers per chunk, never rows. dask
schedules the work: on its default threaded scheduler, or on a ``dask.distributed``
cluster when the user has connected a ``Client`` (dask picks it up by itself). Nothing
here is a scheduler of its own.

Requires the ``[dask]`` extra (dask, distributed, pyarrow). Reading the input lazily is
:func:`dppca.preprocessing.dask_input.as_dask_matrix`.

Functions
---------
is_dask_input(X)
    Whether ``X`` is a dask collection or a path to Parquet/CSV files.
dask_block_kendall(X, design, ...)
    ``sum_B |B| K_g(X_B)`` computed per chunk and reduced (shape (p, p)).
dask_block_terms(X, design, statistic)
    A statistic of each chunk of whole design blocks (scree pair statistics), stacked.
chunk_totals(X, statistic)
    The sum over row chunks of an exact (integer) statistic of each chunk (histogram counts).
pair_chunk_statistics(X, first, second, rows, statistic)
    A statistic of the paired differences x_a - x_b per group of ``rows`` pairs (private scales).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._validation import DPPCAValueError

__all__ = ["chunk_totals", "compute_checked", "dask_block_kendall", "is_dask_array", "is_dask_input",
           "dask_block_terms", "pair_chunk_statistics", "TARGET_CHUNK_BYTES"]

#: Rows per chunk of the permuted data aim at this size (64 MiB): big enough for BLAS,
#: small enough that a worker holds a few chunks at once.
TARGET_CHUNK_BYTES = 64 * 2**20

_FILE_SUFFIXES = (".parquet", ".pq", ".csv")


def is_dask_input(X) -> bool:
    """True for a dask array or DataFrame, or a path (str or Path) to Parquet or CSV files.

    A path is a file with suffix .parquet/.pq/.csv, a glob of such files, or a directory
    (read as a Parquet dataset). Checked without importing dask.

    Examples
    --------
    >>> is_dask_input("big.parquet"), is_dask_input([[1.0, 2.0]])
    (True, False)
    """
    if isinstance(X, (str, os.PathLike)):
        path = str(X)
        return path.lower().endswith(_FILE_SUFFIXES) or Path(path).is_dir()
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def is_dask_array(X) -> bool:
    """True for a dask collection (array or legacy DataFrame), checked without importing dask.

    The in-memory statistics take this branch to hand their chunks to dask.

    Examples
    --------
    >>> import numpy as np
    >>> is_dask_array(np.ones((2, 2)))
    False
    """
    return type(X).__module__.split(".")[0] == "dask"


def dask_block_kendall(X, design, block_sum, sign="spherical", radius=None, xi=None, *,
                       missing=False) -> np.ndarray:
    """``sum_B |B| K_g(X_B)`` over the blocks of ``design``, computed chunk by chunk.

    Parameters
    ----------
    X : dask.array.Array, shape (n, p)
        Data with known chunk sizes.
    design : dppca.stats.pair_design.BlockDesign
        The random block design for n rows.
    block_sum : callable (rows, order, bounds, sign, radius, xi) -> ndarray (p, p)
        The in-memory sum over the blocks of one chunk
        (:func:`dppca.stats.pair_design.sum_block_kendall`); passed in so that this
        execution layer imports no statistic.
    sign, radius, xi
        The generalized spatial sign (see :func:`dppca.stats.kendall.kendall_tau_matrix`).
    missing : bool
        NaN cells are missing values that ``block_sum`` skips (a pairwise-present statistic):
        no check. Default False: the data must be finite.

    Returns
    -------
    list of ndarray, shape (p, p) each
        One unnormalised sum per chunk, in block order: the caller adds them (with a bounded
        rounding depth) and divides by n for the incomplete Kendall's tau matrix.

    Raises
    ------
    DPPCAValueError
        If X holds NaN or inf and ``missing`` is False (checked in the same pass). The entry
        points never get there: their ``missing=`` policy fills or skips every NaN cell and
        their input clamps +-inf (:func:`dppca.preprocessing.dask_input.as_dask_matrix`), so this
        guards internal callers only.

    Notes
    -----
    The permuted data are re-chunked at block boundaries, so each chunk holds whole blocks
    and its term is the same sum as in memory; only the order of the floating-point
    additions differs between chunkings (results agree to ~1e-15 relative).
    """
    import dask
    import dask.array as da

    parts = [dask.delayed(block_sum)(block, np.arange(local[-1]), local, sign, radius, xi)
             for block, local in _design_chunks(X, design)]
    if missing:
        return list(dask.compute(*parts))
    sums, finite = dask.compute(parts, da.isfinite(X).all())
    _check_finite(finite)
    return list(sums)


def chunk_totals(X, statistic):
    """``sum over row chunks of statistic(chunk)``: one pass over the data, rows never gathered.

    Parameters
    ----------
    X : dask.array.Array, shape (n, p)
        The data (chunk sizes need not be known).
    statistic : callable
        Maps a (rows, p) float64 chunk, whole rows, to an array of a fixed shape whose sum over
        the chunks is the statistic of all rows (exact integer counts, so that the total does
        not depend on the chunking, e.g. histogram counts of each column).

    Returns
    -------
    ndarray
        The total (the statistic of the whole array when it is additive over rows).

    Examples
    --------
    >>> import dask.array as da
    >>> x = da.from_array(np.arange(10.0).reshape(5, 2), chunks=(2, 1))
    >>> chunk_totals(x, lambda rows: np.array([rows.shape[0]])).tolist()
    [5]
    """
    import dask

    parts = [dask.delayed(statistic)(block) for block in
             X.astype(np.float64).rechunk({1: -1}).to_delayed()[:, 0]]
    totals = dask.compute(*parts)
    total = totals[0].copy()
    for term in totals[1:]:
        total += term
    return total


def dask_block_terms(X, design, statistic) -> np.ndarray:
    """``statistic(rows, bounds)`` of each chunk of whole design blocks, stacked in block order.

    Parameters
    ----------
    X : dask.array.Array, shape (n, k)
        Rows in their original order (e.g. projected scores).
    design : dppca.stats.pair_design.BlockDesign
    statistic : callable
        Maps a chunk's permuted rows (whole blocks) and its local block bounds to an array of
        shape (blocks in the chunk, ...), e.g. :func:`dppca.stats.pair_statistics.block_fraction_terms`.

    Returns
    -------
    ndarray, shape (number of blocks, ...)
        The same rows as the statistic of the whole permuted array: the chunks cut only at
        block boundaries, so the numbers do not depend on the chunking of ``X``.
    """
    import dask

    parts = [dask.delayed(statistic)(block, local) for block, local in _design_chunks(X, design)]
    return np.concatenate(dask.compute(*parts))


def _design_chunks(X, design):
    """(delayed chunk of permuted rows, its local block bounds) for chunks of whole blocks."""
    permuted = X[design.order].rechunk({0: _block_aligned_chunks(design.bounds, X.shape[1]), 1: -1})
    starts = np.cumsum((0,) + permuted.chunks[0])
    out = []
    for index, block in enumerate(permuted.to_delayed()[:, 0]):
        a, b = starts[index], starts[index + 1]
        out.append((block, design.bounds[(design.bounds >= a) & (design.bounds <= b)] - a))
    return out


def pair_chunk_statistics(X, first, second, rows, statistic) -> list:
    """``statistic(x_a - x_b)`` for each group of ``rows`` consecutive pairs, computed by dask.

    Parameters
    ----------
    X : dask.array.Array, shape (n, p)
        Data with known chunk sizes.
    first, second : ndarray of int, shape (m,)
        The public random pairing (:func:`dppca.preprocessing.random_pairs`).
    rows : int
        Pairs per group: the differences are re-chunked to exactly ``rows`` pairs per chunk
        (the last one shorter), so chunk g is group g whatever the chunking of ``X``.
    statistic : callable
        Maps a (rows, p) float array of differences to a small result (sent to the client).

    Returns
    -------
    list
        One result per group, in order.

    Raises
    ------
    DPPCAValueError
        If a paired row holds NaN or inf (checked in the same pass).

    Notes
    -----
    Each worker gathers its pairs' rows (dask's ``take``), differences them and returns the
    group's statistic: a few numbers per group, never rows. The gathered rows are the same
    doubles for any chunking of ``X``, so the results are identical in memory, on the threaded
    scheduler and on a ``dask.distributed`` cluster.
    """
    import dask

    firsts, seconds = ((X[index]).rechunk({0: rows, 1: -1}).to_delayed()[:, 0]
                       for index in (first, second))

    def checked(a, b):
        finite = bool(np.isfinite(a).all() and np.isfinite(b).all())
        with np.errstate(over="ignore", invalid="ignore"):  # silent: a warning would leak
            return statistic(a - b), finite

    parts = [dask.delayed(checked)(a, b) for a, b in zip(firsts, seconds)]
    results = dask.compute(*parts)
    _check_finite(all(finite for _, finite in results))
    return [result for result, _ in results]


def compute_checked(X, missing=False) -> np.ndarray:
    """``X`` computed into memory (small data: the complete design), checked for NaN/inf unless
    ``missing`` (NaN cells are missing values that the statistic skips)."""
    values = np.asarray(X.compute(), dtype=np.float64)
    if not missing:
        _check_finite(np.isfinite(values).all())
    return values


def _check_finite(finite) -> None:
    if not finite:
        raise DPPCAValueError("`X` has NaN or inf values; remove or impute them first")


def _block_aligned_chunks(bounds, p):
    """Chunk sizes (rows) that cut only at block boundaries, about TARGET_CHUNK_BYTES each."""
    target = max(1, TARGET_CHUNK_BYTES // (8 * p))
    cuts, last = [0], 0
    for edge in bounds[1:]:
        if edge - last >= target or edge == bounds[-1]:
            cuts.append(int(edge))
            last = edge
    return tuple(np.diff(cuts).tolist())


