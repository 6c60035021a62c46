"""The Kendall's tau matrices of many small blocks (an incomplete design), computed in batches.

An incomplete design at n = 10^6 has ~1,200 blocks of ~850 rows. Called block by block, the
engine of :mod:`dppca.stats.kendall` spends as long on its fixed costs (a row gather, a dozen
small numpy calls to centre, scale and sort, argument checks, BLAS threads woken for tiny
products) as on the pairs. Here blocks of one size are gathered with one ``take`` and
prepared together (:func:`dppca.stats.working_rows.working_rows_of_blocks`); each block's
pairs then go straight to the engine on the calling thread.

Every block's term is bitwise the same array of doubles as
``|B| * kendall_tau_matrix(X[order[B]])`` computed on one thread: a function of the block's
rows alone, as the sensitivity proof of :func:`dppca.stats.pair_design.block_sum_slack` needs.
"""
from __future__ import annotations

import numpy as np

from .fused_pairs import use_fused
from .kendall import normalise_pair_sum, pair_sum, pair_sums_of_blocks
from .signs import resolve_sign, without_overflow
from .working_rows import block_column_extremes, working_rows, working_rows_of_blocks

__all__ = ["BATCH_ROWS", "block_kendall_terms"]

#: Rows prepared together: a batch's arrays (its rows, working rows, factor) are ~2.6 MB each
#: at d = 20, a few per thread. CPU ms per block of 857 rows, p = 20, one thread (median of 3,
#: shared cores): batches of 2^11 rows 2.79, 2^12 2.73, 2^14 2.53, 2^16 2.77. At most n / 16
#: rows, so that the threads' batches stay a small fraction of the data.
BATCH_ROWS = 2**14


def block_kendall_terms(X, order, bounds, blocks, sign="spherical", radius=None, xi=None):
    """``|B| K_g(X[order[B]])`` of the given blocks of a design, one (p, p) array each.

    Parameters
    ----------
    X : ndarray, shape (n, p)
        Finite float64 rows.
    order, bounds : ndarray of int
        The design (:class:`dppca.stats.pair_design.BlockDesign`): block j holds the rows
        ``order[bounds[j]:bounds[j + 1]]``, each with at least 2 rows.
    blocks : ndarray of int
        Which blocks (indices j).
    sign, radius, xi
        The generalized spatial sign, as in :func:`dppca.stats.kendall.kendall_tau_matrix`.

    Yields
    ------
    ndarray, shape (p, p)
        The unnormalised terms, in the order of ``blocks``.

    Notes
    -----
    Each term equals ``|B| * kendall_tau_matrix(X[order[B]])`` computed on one thread (the
    same working rows, engine and arithmetic), a function of the block's rows only; a block
    with entries near DBL_MAX is rescaled on its own, as the engine does
    (:func:`dppca.stats.signs.without_overflow`).

    Examples
    --------
    >>> from dppca.stats.kendall import kendall_tau_matrix
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> order, bounds = np.arange(30), np.array([0, 10, 20, 30])
    >>> terms = list(block_kendall_terms(X, order, bounds, np.arange(3)))
    >>> bool(np.allclose(terms[1], 10 * kendall_tau_matrix(X[10:20])))
    True
    """
    spec = resolve_sign(sign, radius, xi, X.shape[1])
    blocks = np.asarray(blocks, dtype=np.int64)
    sizes = bounds[blocks + 1] - bounds[blocks]
    per_batch = max(1, min(BATCH_ROWS, X.shape[0] // 16) // int(np.max(sizes, initial=1)))
    for first in range(0, blocks.size, per_batch):
        batch = slice(first, first + per_batch)
        terms = [None] * len(blocks[batch])
        for size in np.unique(sizes[batch]).tolist():  # a design's blocks have 1 or 2 sizes
            same = np.flatnonzero(sizes[batch] == size)
            for k, term in zip(same, _batch_terms(X, order, bounds[blocks[batch][same]], size, spec)):
                terms[k] = term
        yield from terms


def _batch_terms(X, order, starts, size, spec):
    """The terms of the blocks of ``size`` rows starting at positions ``starts``, in order."""
    rows = order[starts[:, None] + np.arange(size)]
    Y = np.take(X, rows.ravel(), axis=0).reshape(starts.size, size, X.shape[1])  # one gather
    fused = use_fused(size, X.shape[1], spec.kind)
    extremes = block_column_extremes(Y)
    peak = np.maximum(np.abs(extremes[1]), np.abs(extremes[2]))  # the largest |entries|
    if without_overflow(peak, spec)[0] is peak:  # the engine's rule: none near DBL_MAX
        sums = pair_sums_of_blocks(working_rows_of_blocks(Y, extremes), spec, fused)
        yield from size * normalise_pair_sum(sums, size)
        return
    for block in Y:  # each block divided by 4 (a winsorized sign: a Python xi) or not, alone
        block, spec_k = without_overflow(block, spec)
        total = pair_sum(working_rows(block), spec_k, fused and spec_k.kind != "custom", threads=False)
        yield size * normalise_pair_sum(total, size)
