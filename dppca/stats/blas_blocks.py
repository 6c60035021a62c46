"""One block of the BLAS form of the Kendall engine: Gram GEMM, weights, W Z GEMM.

The BLAS form of :mod:`dppca.stats.kendall` cuts the pairs i < j into blocks W[rows, cols]
of the weight matrix (:func:`block_tasks`). Per block, two GEMMs do the 2 |I| |J| d flops
each that the pair sum needs (the Gram block ``Z_I Z_J^T`` for the distances, then
``W_IJ Z_J``); between them, one compiled pass over the block (:func:`_weigh`, numba, while the
block is in the L2 cache) turns Gram entries into weights: the distance
``s_i + s_j - 2 z_i.z_j``, the engine's near-duplicate test, the weight w_ij and both ends'
degrees. Without numba, or for a user's xi, the same arithmetic runs as numpy passes over the
augmented Gram block (:func:`_weigh_in_numpy`).

Block shape (:func:`block_shape`; one core, CPU time, d = 50, GEMM rates as shares of a
2000 x 2000 GEMM's): the Gram GEMM, of inner dimension d only, is bound by writing its
output; it runs at 64-74% of the big GEMM's rate with 512 or more columns per block but at
83-87% with 256 (or 384) columns, for 128 to 512 rows. The W Z GEMM runs at 73-80% for every
shape tried (it packs W, one more pass over the block); padding d to a multiple of 8, or a
Fortran-ordered Z, gains no useful flops. Before (strips of 64 x 2048 rows x columns, numpy
passes, a ``Z_I^T`` product per strip): Gram 74%, W Z 74%, weights, near-duplicate test and
column sums 20% of the time: 53% of the 2 n^2 d limit at n = 20000 (54% at 50000). Now
(1024 x 320 blocks, the compiled pass, strips' W Z summed first): Gram ~89%, W Z ~81%, the
pass 13% of the limit's time: 74-76% at n = 20000, 76-79% at 50000.

The pass compiles once per machine (numba's cache keeps it; 3.6 s CPU); a process's first
call loads it (with numba: about 0.6 s).

Rounding (the proof of :func:`dppca.stats.kendall.rounding_slack` covers both passes): each
distance is one inner product of length d + 2 (``s_i``, ``s_j`` and the d products of the
GEMM), in any order, with or without fused multiply-adds; each weight is one correctly
rounded division (``fastmath`` is limited to ``reassoc`` and ``contract``); a degree is a sum
of a row's weights, in any order and grouping (vector lanes, blocks, threads): at most
``rows`` additions per term, within the depth L of the slack.
"""
from __future__ import annotations

import functools
import threading

import numpy as np

from .signs import apply_sign, pair_weights

__all__ = ["BLOCK_COLS", "BLOCK_ELEMENTS", "BlockScratch", "accumulate_strip", "block_shape",
           "block_tasks"]

#: Columns of a block and elements of a block (1024 rows of 320 columns, 2.5 MiB: the block
#: outgrows a core's 512 KiB L2 cache, but the Gram GEMM's rate depends on its columns). One
#: core, CPU time, n = 20000, d = 50: 256 x 256 (in L2; before the band skip) 1.33-1.38 s,
#: 512 x 256 1.23-1.24, 512 x 192 1.25, 512 x 320 1.20-1.22, 1024 x 256 1.20-1.21,
#: 1024 x 320 1.19-1.20, 1024 x 384 1.18; n = 50000: 512 x 256 7.50 s, 1024 x 320 7.25 s.
BLOCK_COLS = 320
BLOCK_ELEMENTS = 1024 * 320


def block_shape(n, tile):
    """Rows and columns of the BLAS form's blocks.

    Parameters
    ----------
    n : int
        Rows of the data (public).
    tile : int
        The caller's cap on both (:func:`dppca.stats.kendall.kendall_tau_matrix`'s `tile`).

    Returns
    -------
    (int, int)
        At most ``tile`` and ``n`` of each, ``BLOCK_COLS`` columns and ``BLOCK_ELEMENTS``
        elements. Non-private: depends on public sizes only.

    Examples
    --------
    >>> block_shape(100000, 2048), block_shape(300, 2048), block_shape(300, 7)
    ((1024, 320), (300, 300), (7, 7))
    """
    cols = max(1, min(tile, n, BLOCK_COLS))
    return max(1, min(tile, n, BLOCK_ELEMENTS // cols)), cols


def block_tasks(n, height, width, worker=0, workers=1):
    """Blocks (rows, cols) covering each pair i < j exactly once, ``worker::workers`` of them.

    Row strips of ``height`` rows; the columns from the strip's first row on, ``width`` at a
    time. The pairs j <= i of a block near the diagonal are masked by the weight pass, so
    each pair is weighed, and tested for near-duplication, in one place only. A generator (a
    static round-robin split): the list would hold O(n^2 / block) entries.

    Examples
    --------
    >>> [(r.start, r.stop, c.start, c.stop) for r, c in block_tasks(5, 2, 3)]
    [(0, 2, 1, 4), (0, 2, 4, 5), (2, 4, 3, 5)]
    """
    index = 0
    for r in range(0, n - 1, height):
        rows = slice(r, min(r + height, n))
        for c in range(r + 1, n, width):
            if index % workers == worker:
                yield rows, slice(c, min(c + width, n))
            index += 1


class BlockScratch:
    """One worker's buffers: the block, the W Z product, the flagged pairs' positions, and
    the squared norms, contiguous (the compiled pass reads them as a vector)."""

    def __init__(self, prep, height, width):
        d = prep.left.shape[1] - 2
        self.sqnorm = np.ascontiguousarray(prep.sqnorm)
        self.block = np.empty(height * width)
        self.product = np.empty(height * d)
        self.flagged = np.empty(height * width, np.int64)


def accumulate_strip(prep, spec, rows, blocks, tol, floor, scratch, acc):
    """Add the pairs i < j of the blocks W[rows, cols], ``cols`` in ``blocks``, to ``acc``.

    ``prep``: :class:`~dppca.stats.working_rows.WorkingRows`; ``spec``: the sign; ``tol``,
    ``floor``: the near-duplicate rule of :mod:`dppca.stats.kendall`; ``acc``: (degree,
    cross, direct). The products ``W_IJ Z_J`` of a strip's blocks are summed before the one
    product with ``Z_I^T``: per block it would cost d / |J| of the block's GEMMs (20% at
    d = 50, 256 columns).
    """
    d = prep.left.shape[1] - 2
    strip, Z = np.zeros((rows.stop - rows.start, d)), prep.left[:, :d]
    kernel = _weigh_kernel() if spec.kind != "custom" else None
    numerator, least = _weight_constants(spec, prep.scale)
    band_end = _band_end(scratch.sqnorm, rows, tol, floor)
    for cols in blocks:
        # rows i >= the block's last column have no pair j > i in it: left out of the GEMMs
        m, h = cols.stop - cols.start, min(rows.stop, cols.stop - 1) - rows.start
        part = slice(rows.start, rows.start + h)
        W = scratch.block[: h * m].reshape(h, m)
        if kernel is None:
            gi, gj = _weigh_in_numpy(prep, spec, part, cols, W, tol, floor, acc.degree)
            _add_direct_pairs(prep, spec, gi, gj, acc)
        else:
            np.matmul(Z[part], Z[cols].T, out=W)
            count = kernel(W, scratch.sqnorm, rows.start, cols.start, numerator, least, tol,
                           0.5 * floor, cols.start < band_end, acc.degree, scratch.flagged)
            if count:
                local = scratch.flagged[:count]
                _add_direct_pairs(prep, spec, rows.start + local // m, cols.start + local % m, acc)
        strip[:h] += np.matmul(W, Z[cols], out=scratch.product[: h * d].reshape(h, d))
    acc.cross[...] += Z[rows].T @ strip


def _band_end(s, rows, tol, floor):
    """Columns j >= this hold no near duplicate of any of the rows (see :func:`_near_duplicates`:
    s is ascending, so for j > i only the band's upper end s_i q counts)."""
    q = (1.0 - np.sqrt(3.0 * tol)) ** -2
    return int(np.searchsorted(s, max(s[rows.stop - 1] * q, floor / tol), "right"))


def _weight_constants(spec, scale):
    """(numerator, least): ``scale^2 w_ij = numerator / max(d_ij^2, least)`` in working units,
    bitwise the arithmetic of :func:`dppca.stats.signs.pair_weights`."""
    if spec.kind != "winsorized":
        return 1.0, 0.0
    rho = min(spec.radius / scale, 1e150)
    return (scale * rho) * (scale * rho), 2.0 * rho * rho


def _weigh_in_numpy(prep, spec, rows, cols, W, tol, floor, degree):
    """The weight pass as numpy passes over the augmented Gram block (no numba, or a user's
    xi, which runs in Python): W[rows, cols] and the degrees; returns the flagged pairs."""
    d = prep.left.shape[1] - 2
    np.matmul(_right_factor(prep.left[rows]), prep.left[cols].T, out=W)  # squared distances
    ii, jj = _near_duplicates(prep, W, rows, cols, tol, floor)
    below = np.tri(*W.shape, rows.start - cols.start, dtype=bool) if \
        cols.start <= rows.stop - 1 else None  # pairs j <= i, outside the sum
    # A placeholder distance keeps the weight function free of 0 and negative distances.
    W[ii, jj] = 1.0
    if below is not None:
        W[below] = 1.0
    pair_weights(W, spec, prep.scale, out=W)
    W[ii, jj] = 0.0
    if below is not None:
        W[below] = 0.0
    degree[rows] += np.add.reduce(W, axis=1)
    degree[cols] += np.add.reduce(W, axis=0)
    gi, gj = rows.start + ii, cols.start + jj
    return gi[gi < gj], gj[gi < gj]


def _right_factor(left_rows):
    """[-2 z, ||z||^2, 1] of some rows of the factor (exact: a scaling by -2 and a swap)."""
    d = left_rows.shape[1] - 2
    right = np.empty_like(left_rows)
    np.multiply(left_rows[:, :d], -2.0, out=right[:, :d])
    right[:, d], right[:, d + 1] = left_rows[:, d + 1], 1.0
    return right


def _near_duplicates(prep, D2, rows, cols, tol, floor):
    """Local indices (i, j) of block pairs whose Gram distance is unreliable.

    Flagged: d^2 <= tol (s_i + s_j) + floor, s = squared norms (working units). Then
    (sqrt(s_i) - sqrt(s_j))^2 <= d^2 forces s_j into [s_i / q, s_i q],
    q = (1 - sqrt(3 tol))^-2, unless s_i or s_j is below floor / tol (the 3 tol also covers
    rounding). Rows are sorted by s, so only one contiguous band of columns can hold flagged
    pairs, and the elementwise test runs on that band alone.
    """
    s = prep.sqnorm
    q = (1.0 - np.sqrt(3.0 * tol)) ** -2
    tiny = floor / tol
    s_lo, s_hi = s[rows.start], s[rows.stop - 1]
    lo = int(np.searchsorted(s, s_lo / q if s_lo >= tiny else 0.0, "left"))
    hi = int(np.searchsorted(s, max(s_hi * q, tiny), "right"))
    lo, hi = max(lo, cols.start), min(hi, cols.stop)
    if lo >= hi:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    half = tol * s[rows] + 0.5 * floor
    band = D2[:, lo - cols.start : hi - cols.start]
    flagged = band <= (half[:, None] + (tol * s[lo:hi] + 0.5 * floor))
    ii, jj = np.nonzero(flagged)
    return ii, jj + (lo - cols.start)


def _add_direct_pairs(prep, spec, gi, gj, acc):
    """Sum flagged pairs (sorted positions gi < gj) as g(t) g(t)^T.

    t comes from the original rows, through the same code as the reference path
    (apply_sign), so near-duplicate and duplicate pairs (g(0) = 0) are exact.
    """
    if gi.size == 0:
        return
    diff = prep.X[prep.order[gj]] - prep.X[prep.order[gi]]
    G = apply_sign(diff / np.sqrt(2.0), spec)
    acc.direct[...] += G.T @ G


def _weigh(W, s, r0, c0, numerator, least, tol, half_floor, test, degree, flagged):  # pragma: no cover
    """Gram block -> weights, in place (compiled by numba; see the module's docstring).

    Pair (a, b) is rows r0 + a, c0 + b; pairs j <= i get weight 0. Flagged pairs (distance
    <= tol (s_i + s_j) + floor) get weight 0 and their positions a * m + b in ``flagged``;
    returns their count. The degrees of both ends are added to ``degree``. Two loops per
    row, each vectorised (one that also counted the flagged pairs would not be: 1.8 against
    0.66 ns per pair, one core, in cache); one loop when ``test`` is False: the caller has
    found that no column of the block lies in the band of any of its rows.
    """
    h, m = W.shape
    count = 0
    s_cols = s[c0:c0 + m]
    limit = tol * s_cols + half_floor
    column_sums = np.zeros(m)
    for a in range(h):
        i = r0 + a
        start = min(m, max(0, i + 1 - c0))
        W[a, :start] = 0.0
        # Views from the first pair j > i on: loop indices from 0 are known to be
        # non-negative, which numba's index wrap-around needs to vectorise the loops.
        row, s_tail = W[a, start:], s_cols[start:]
        limit_tail, sums_tail = limit[start:], column_sums[start:]
        s_i, limit_i = s[i], tol * s[i] + half_floor
        total = 0.0
        if not test:  # no pair of the block can be flagged: one loop
            for b in range(row.size):
                w = numerator / max((s_i + s_tail[b]) - 2.0 * row[b], least)
                row[b] = w
                total += w
                sums_tail[b] += w
            degree[i] += total
            continue
        hits = 0
        for b in range(row.size):
            dist = (s_i + s_tail[b]) - 2.0 * row[b]
            row[b] = dist
            hits += np.int64(dist <= limit_i + limit_tail[b])
        if hits:
            for b in range(row.size):
                if row[b] <= limit_i + limit_tail[b]:
                    flagged[count] = a * m + start + b
                    count += 1
        for b in range(row.size):
            dist = row[b]
            w = numerator / max(dist, least)
            w = w if dist > limit_i + limit_tail[b] else 0.0
            row[b] = w
            total += w
            sums_tail[b] += w
        degree[i] += total
    degree[c0:c0 + m] += column_sums
    return count


_COMPILING = threading.Lock()


def _weigh_kernel():
    """The compiled :func:`_weigh`, or None without numba (threads asking at once: one
    compiles, the others wait)."""
    with _COMPILING:
        return _compiled_weigh()


@functools.lru_cache(maxsize=None)
def _compiled_weigh():
    try:
        import numba
    except ImportError:
        return None
    options = dict(nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})
    try:
        return numba.njit(cache=True, **options)(_weigh)
    except RuntimeError:  # no writable cache folder: compile in memory
        return numba.njit(**options)(_weigh)
