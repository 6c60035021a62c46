"""numba kernel of :mod:`dppca.stats.elementwise_kendall_blocks`: the pairs' sign rows of blocks.

Imported on first use (numba's import and, once per machine, its compilation take seconds);
``cache=True`` keeps the machine code on disk.
"""
import numba
import numpy as np


@numba.njit(cache=True, parallel=True)
def block_signs(x, starts, size, out):
    """Row (a, b) of each block (a < b, in triu order): sign(x[s + a] - x[s + b]) by comparisons.

    x: rows ordered by the design, shape (n, p); starts: first row of each block (all of the
    same ``size``); out: float32, shape (len(starts) * size (size - 1) / 2, p), overwritten.
    """
    per = size * (size - 1) // 2
    p = x.shape[1]
    for block in numba.prange(starts.size):
        first = starts[block]
        row = block * per
        for a in range(size):
            for b in range(a + 1, size):
                for j in range(p):
                    u = x[first + a, j]
                    v = x[first + b, j]
                    out[row, j] = np.float32(1.0) if u > v else (np.float32(-1.0) if u < v else np.float32(0.0))
                row += 1
    return out

__all__ = ["block_signs"]
