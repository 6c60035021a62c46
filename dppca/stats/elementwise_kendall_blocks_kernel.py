"""numba kernel of :mod:`dppca.stats.elementwise_kendall_blocks`: the pairs' sign rows of blocks.

Imported on first use (numba's import and, once per machine, its compilation take seconds);
``cache=True`` keeps the machine code on disk.
"""
import numba
import numpy as np


@numba.njit(cache=True, parallel=True)
def block_signs(x, order, starts, size, out):
    """Row (a, b) of each block (a < b, in triu order): sign(x[order[s + a]] - x[order[s + b]]).

    x: the rows in their original order, shape (n, p); order: the design's permutation
    (position -> row; the rows are read through it, never copied in permuted order); starts:
    first position of each block (all of the same ``size``); out: float32, shape
    (len(starts) * size (size - 1) / 2, p), overwritten. Signs come from comparisons.
    """
    per = size * (size - 1) // 2
    p = x.shape[1]
    for block in numba.prange(starts.size):
        first = starts[block]
        row = block * per
        for a in range(size):
            ra = order[first + a]
            for b in range(a + 1, size):
                rb = order[first + b]
                for j in range(p):
                    u = x[ra, j]
                    v = x[rb, j]
                    out[row, j] = np.float32(1.0) if u > v else (np.float32(-1.0) if u < v else np.float32(0.0))
                row += 1
    return out

__all__ = ["block_signs"]
