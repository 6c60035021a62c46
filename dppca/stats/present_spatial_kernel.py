"""numba kernel of :mod:`dppca.stats.present_spatial_kendall`: spherical-sign pair sums of blocks
whose rows may miss cells.

Imported on first use (numba's import and, once per machine, its compilation take seconds);
``cache=True`` keeps the machine code on disk.
"""
import math

import numba
import numpy as np

#: Between these, p squares of |u_j| <= top neither overflow nor lose a normal number
#: (p <= 2^100): u is used as it is; outside, scaled first.
_SMALL, _LARGE = 2.0 ** -400, 2.0 ** 400


@numba.njit(cache=True, parallel=True)
def present_spherical_sums(x, order, bounds, out):
    """Per block, sum over its pairs a < b of u u^T / ||u||^2, u = x_a - x_b over the coordinates
    both rows observe (0 elsewhere; 0 for the whole term when u = 0, g(0) = 0).

    x: rows in their original order, shape (n, p), NaN for a missing cell; order: the design's
    permutation (position -> row; rows are read through it); bounds: block boundaries in
    ``order``; out: float64, shape (len(bounds) - 1, p, p), overwritten with each block's sum.
    A u whose largest coordinate lies outside [2^-400, 2^400] is scaled by the power of two at
    or above it before it is squared (exactly, in two power-of-two factors), so nothing
    overflows or underflows; each term u_j u_k / ||u||^2 is then in [-1, 1]. The terms of a row
    are summed first, then the rows: a block of b rows is within about 2 b u of the exact sum
    per pair (u = 2^-53), 2e-11 of its sensitivity 2 sqrt(2) / b at b = 513 and 2e-7 at
    b = 50000, far inside the engine's slack there (7e-6 and 0.06,
    :func:`dppca.stats.kendall.rounding_slack` at p = 8).
    """
    p = x.shape[1]
    for block in numba.prange(bounds.size - 1):
        first, size = bounds[block], bounds[block + 1] - bounds[block]
        rows = np.empty((size, p))  # the block's rows, contiguous
        for a in range(size):
            rows[a] = x[order[first + a]]
        acc = np.zeros((p, p))
        row_sum = np.empty((p, p))  # the pairs of row a: two levels of summation
        d = np.empty(p)
        for a in range(size):
            row_sum[:] = 0.0
            for b in range(a + 1, size):
                top = 0.0
                for j in range(p):
                    u = rows[a, j]
                    v = rows[b, j]
                    t = u - v if (u == u and v == v) else 0.0  # NaN != NaN: a missing cell
                    d[j] = t
                    top = max(top, abs(t))
                if top == 0.0:
                    continue
                if top < _SMALL or top > _LARGE:
                    # 2^-e in two exact factors: 2^1074 (a subnormal top) overflows as one
                    e = -math.frexp(top)[1]
                    low = math.ldexp(1.0, e // 2)
                    high = math.ldexp(1.0, e - e // 2)
                    for j in range(p):
                        d[j] = (d[j] * low) * high
                s = 0.0
                for j in range(p):
                    s += d[j] * d[j]
                for j in range(p):
                    if d[j] != 0.0:
                        w = d[j] / s
                        for k in range(j, p):
                            row_sum[j, k] += w * d[k]
            acc += row_sum
        for j in range(p):
            for k in range(j, p):
                out[block, j, k] = acc[j, k]
                out[block, k, j] = acc[j, k]
    return out


__all__ = ["present_spherical_sums"]
