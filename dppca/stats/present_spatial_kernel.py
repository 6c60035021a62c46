"""numba kernel of :mod:`dppca.stats.present_spatial_kendall`: spherical-sign pair sums of blocks
whose rows may miss cells.

Imported on first use (numba's import and, once per machine, its compilation take seconds);
``cache=True`` keeps the machine code on disk.
"""
import math

import numba
import numpy as np


@numba.njit(cache=True, parallel=True)
def present_spherical_sums(x, order, bounds, out):
    """Per block, sum over its pairs a < b of u u^T / ||u||^2, u = x_a - x_b over the coordinates
    both rows observe (0 elsewhere; 0 for the whole term when u = 0, g(0) = 0).

    x: rows in their original order, shape (n, p), NaN for a missing cell; order: the design's
    permutation (position -> row; rows are read through it); bounds: block boundaries in
    ``order``; out: float64, shape (len(bounds) - 1, p, p), overwritten with each block's sum.
    Each u is scaled by the power of two at or above its largest coordinate before it is
    squared (exactly, in two power-of-two factors), so nothing overflows or underflows (data within +-2^400 have differences within
    2^401); every term is then a product of numbers in [-1, 1] divided by ||u||^2 >= 1.
    """
    p = x.shape[1]
    for block in numba.prange(bounds.size - 1):
        acc = np.zeros((p, p))
        d = np.empty(p)
        for a in range(bounds[block], bounds[block + 1]):
            ra = order[a]
            for b in range(a + 1, bounds[block + 1]):
                rb = order[b]
                top = 0.0
                for j in range(p):
                    u = x[ra, j]
                    v = x[rb, j]
                    t = u - v if (u == u and v == v) else 0.0  # NaN != NaN: a missing cell
                    d[j] = t
                    top = max(top, abs(t))
                if top == 0.0:
                    continue
                # 2^-e in two exact factors: 2^1074 (a subnormal top) overflows as one
                e = -math.frexp(top)[1]
                low = math.ldexp(1.0, e // 2)
                high = math.ldexp(1.0, e - e // 2)
                s = 0.0
                for j in range(p):
                    d[j] = (d[j] * low) * high
                    s += d[j] * d[j]
                for j in range(p):
                    if d[j] != 0.0:
                        w = d[j] / s
                        for k in range(j, p):
                            acc[j, k] += w * d[k]
        for j in range(p):
            for k in range(j, p):
                out[block, j, k] = acc[j, k]
                out[block, k, j] = acc[j, k]
    return out


__all__ = ["present_spherical_sums"]
