"""The source generator of the fused pair kernel (:mod:`dppca.stats.fused_pairs`), per d.

The kernel of dimension d is Python source with the loops over the coordinates unrolled, so
that a row's ``-2 z_i`` and its sums ``c_i`` live in registers and every loop over a span of
a tile's columns vectorises (4 pairs per AVX2 instruction). From ``TWO_ROWS_MIN_D`` on, rows
are taken two at a time ("two rows per pass"): each coordinate of a column, loaded once,
serves the pairs of both rows, which halves the loads per pair and gives each loop two
independent chains. A tile's
coordinates sit in one flat buffer with a row stride fixed in the source (:func:`tile_stride`),
so every coordinate is one base pointer plus a constant displacement: no pointer per
coordinate to keep in (or spill from) the 16 general registers.

Passes. Small d (``rows * d <= ONE_PASS``) does each pair in one pass: distance, near-duplicate
test, weight and the sums ``c_i += w_ij z_j``. Larger d first sums the distance in passes of at
most ``DIST_GROUP[rows]`` coordinates through an L1 buffer (the last pass also forms the
weights and keeps them in that buffer), then sums ``c_i`` in passes of at most
``ACC_GROUP[rows]`` coordinates: each pass keeps its ``rows x group`` constants or
accumulators in the 16 vector registers.

Rows i and i + 1 of a block go together over the columns j >= i + 2 of a tile; the pair
(i, i + 1) and a block's last row, when the block has an odd number of rows left in the tile,
take the one-row loops. The near-duplicate test runs on the columns up to the band of row
i + 1 (which contains the band of row i: rows are sorted by norm), for both rows: the BLAS
form's numpy pass also tests a block's rows on the union of their bands, and outside its own
band a pair cannot pass the test (:func:`dppca.stats.fused_pairs._bands`), so the flagged pairs are
the same.
"""
from __future__ import annotations

import inspect
import math

__all__ = ["ACC_GROUP", "DIST_GROUP", "ONE_PASS", "TWO_ROWS_MIN_D", "kernel_source", "tile_stride"]

#: Smallest d that takes rows two at a time; below it one row's pair is one pass, bound by
#: its division per pair. Measured (one core, CPU time, ns per pair, n = 5000, load ~9):
#: one row / two rows: d = 6: 1.15 / 1.37, 8: 1.84 / 1.50, 10: 2.36 / 1.72.
TWO_ROWS_MIN_D = 8

#: Largest ``rows * d`` done in one pass per pair (its ``rows * d`` constants and
#: ``rows * d`` accumulators fill the 16 AVX2 registers).
ONE_PASS = 8

#: Most coordinates per distance pass and per accumulation pass, for one row and for two.
#: Two rows of 5: 10 constants (or accumulators), 2 running distances (or weights) and the
#: loaded coordinates in the 16 registers; with 7 the accumulators spilled to the stack
#: (``inspect_asm``). Measured as above, groups of 4 / 5 / 6: d = 12: 2.1 / 2.1 / 2.8,
#: 16: 2.8 / 3.1 / 3.1, 20: 3.5 / 2.9 / 3.0, 24: 4.6 / 4.1 / 5.5 (7: 20: 3.9; noise ~10%).
DIST_GROUP = {1: 8, 2: 5}
ACC_GROUP = {1: 8, 2: 5}


def tile_stride(d, tile_doubles):
    """Row stride (doubles) of a tile's flat coordinate buffer: its most columns."""
    return max(8, tile_doubles // (d + 2))


def _direct_pair(X, order, i, j, xi_radius, g, direct):
    """Add g(t) g(t)^T of one flagged pair, t = (x_j - x_i)/sqrt2 from the original rows,
    as signs.apply_sign computes it (a power-of-two rescaling); g(0) = 0. ``g``: scratch (d,)."""
    d = X.shape[1]
    big = 0.0
    for a in range(d):
        g[a] = (X[order[j], a] - X[order[i], a]) / math.sqrt(2.0)
        big = max(big, abs(g[a]))
    if big == 0.0:
        return
    unit = math.ldexp(1.0, min(max(math.frexp(big)[1], -1021), 1023))
    length = 0.0
    for a in range(d):
        g[a] = g[a] / unit
        length += g[a] * g[a]
    length = math.sqrt(length)
    xi = min(length * unit, xi_radius) if xi_radius > 0.0 else 1.0
    for a in range(d):
        for b in range(d):
            direct[a, b] += (g[a] * (xi / length)) * (g[b] * (xi / length))


_KERNEL_TEMPLATE = """\
\"\"\"The fused pair kernel of dppca.stats.fused_pairs for d = {d} (generated; do not edit).\"\"\"
import math

import numba
import numpy as np


{direct}

_direct_pair = numba.njit(nogil=True)(_direct_pair)


def kernel(left, sq, hi, X, order, numerator, least, xi_radius, tol, half_floor,
           worker, workers, block_rows, block_cols, degree, cross, direct):
    n = left.shape[0]
    block_cols = min(block_cols, {stride})
    T = np.empty({d} * {stride})
    buf0 = np.empty({stride})
    buf1 = np.empty({stride})
    flags0 = np.empty({stride})
    flags1 = np.empty({stride})
    g = np.empty({d})
    sums = np.empty((block_rows, {d}))
    blocks = (n + block_rows - 1) // block_rows
    for block in range(worker, blocks, workers):
        r0 = block * block_rows
        r1 = min(r0 + block_rows, n)
        sums[:] = 0.0
        for c0 in range(r0, n, block_cols):
            c1 = min(c0 + block_cols, n)
            for k in range(c1 - c0):
                for a in range({d}):
                    T[a * {stride} + k] = left[c0 + k, a]
            i = r0
            last = min(r1, c1 - 1)
            while i < last:
                pair = {pair}
{row0}
                lo = max(c0, i + 1)
                top = max(c0, i + 2) if pair else c1
{span1}
                degree[i] += deg0
                if pair:
{row01}
                    lo = max(c0, i + 2)
                    top = c1
{span2}
                    degree[i] += deg0
                    degree[i + 1] += deg1
                i += 2 if pair else 1
        for r in range(r1 - r0):
            for a in range({d}):
                za = left[r0 + r, a]
                for b in range({d}):
                    cross[a, b] += za * sums[r, b]
"""


def kernel_source(d, tile_doubles):
    """Python source of the kernel for dimension d.

    Parameters
    ----------
    d : int
        Columns of the data (public).
    tile_doubles : int
        Doubles of a tile's coordinates: sets the buffer stride (:func:`tile_stride`).

    Returns
    -------
    str
        A module defining ``kernel(left, sq, hi, X, order, numerator, least, xi_radius, tol,
        half_floor, worker, workers, block_rows, block_cols, degree, cross, direct)``, the
        loop of :func:`dppca.stats.fused_pairs.fused_pair_sums`, to compile with numba.
    """
    stride = tile_stride(d, tile_doubles)
    two = d >= TWO_ROWS_MIN_D
    return _KERNEL_TEMPLATE.format(
        d=d, stride=stride, direct=inspect.getsource(_direct_pair),
        pair="i + 1 < last" if two else "False", row0=_indented(_row_setup(0, d), 16),
        row01=_indented(["deg0 = 0.0", *_row_setup(1, d)] if two else ["pass"], 20),
        span1=_indented(_span(1, d, stride), 16),
        span2=_indented(_span(2, d, stride) if two else ["pass"], 20))


def _row_setup(r, d):
    """Constants of row i + r: its squared norm, test limit, sums row, degree and -2 z."""
    row = f"i + {r}"
    return [f"sq{r} = sq[{row}]", f"limit{r} = tol * sq{r} + half_floor", f"row{r} = sums[{row} - r0]",
            f"deg{r} = 0.0", *[f"m{r}_{a} = -2.0 * left[{row}, {a}]" for a in range(d)]]


def _indented(lines, spaces):
    return "\n".join(" " * spaces + line for line in lines)


def _groups(d, most):
    """range(d) cut into ceil(d / most) contiguous groups of balanced sizes."""
    count = -(-d // most)
    cuts = [d * g // count for g in range(count + 1)]
    return [range(a, b) for a, b in zip(cuts, cuts[1:])]


def _span(rows, d, stride):
    """Rows i .. i + rows - 1 over the columns [lo, top): the near-duplicate band first (its
    test, then the explicit sums of its flagged pairs), then the rest without the test."""
    band = f"band = min(max(hi[i + {rows - 1}], lo), top)"
    return [band, *_passes(rows, d, stride, "lo", "band", True),
            *[line for r in range(rows) for line in (
                "for k in range(band - lo):", f"    if flags{r}[k] == math.inf:",
                f"        _direct_pair(X, order, i + {r}, lo + k, xi_radius, g, direct)")],
            *_passes(rows, d, stride, "band", "top", False)]


def _passes(rows, d, stride, lo, top, flagged):
    """The loops of ``rows`` rows over the columns [lo, top) (``flagged``: with the
    near-duplicate test, its outcome kept in ``flags`` for the explicit sums)."""
    R = range(rows)
    loop = f"for k in range({top} - {lo}):"

    def dot(r, group):
        return " + ".join(f"m{r}_{a} * t[{a * stride} + k]" for a in group)

    one_pass = rows * d <= ONE_PASS
    *first, last = [range(d)] if one_pass else _groups(d, DIST_GROUP[rows])
    body = [f"t, sqs, degs = T[{lo} - c0:], sq[{lo}:{top}], degree[{lo}:{top}]"]
    for number, group in enumerate(first):  # partial distances, a group of coordinates per pass
        body += [loop, *[f"    buf{r}[k] = (sq{r} + sqs[k]) + ({dot(r, group)})" if number == 0
                         else f"    buf{r}[k] += {dot(r, group)}" for r in R]]
    start = [f"buf{r}[k]" if first else f"(sq{r} + sqs[k])" for r in R]
    if one_pass:
        body += [f"s{r}_{a} = 0.0" for r in R for a in range(d)]
    body += [loop, *[f"    dist{r} = {start[r]} + ({dot(r, last)})" for r in R]]
    if flagged:
        body += [line for r in R for line in (
            f"    if dist{r} <= limit{r} + (tol * sqs[k] + half_floor):",
            f"        dist{r} = math.inf", f"    flags{r}[k] = dist{r}")]
    body += [line for r in R for line in (
        f"    w{r} = numerator / (dist{r} if dist{r} > least else least)", f"    deg{r} += w{r}")]
    body.append(f"    degs[k] += " + " + ".join(f"w{r}" for r in R))
    if one_pass:  # the sums in the same pass
        return body + _accumulations(rows, [range(d)], stride, None)
    body += [f"    buf{r}[k] = w{r}" for r in R]  # the weights wait in buf for the sums' passes
    return body + _accumulations(rows, _groups(d, ACC_GROUP[rows]), stride, loop)


def _accumulations(rows, groups, stride, loop):
    """``c_i += w_ij z_j`` per group of coordinates: inside the weight pass (``loop`` None;
    its accumulators set before it), or one pass per group reading the weights from buf."""
    R = range(rows)
    lines = []
    for group in groups:
        terms = [f"    s{r}_{a} += w{r} * t[{a * stride} + k]" for r in R for a in group]
        if loop is None:
            lines += terms
        else:
            lines += [*[f"s{r}_{a} = 0.0" for r in R for a in group], loop,
                      *[f"    w{r} = buf{r}[k]" for r in R], *terms]
    # after the loops: each row's sums into its sums row
    return lines + [f"row{r}[{a}] += s{r}_{a}" for group in groups for r in R for a in group]
