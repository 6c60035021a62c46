"""The fused pair kernel of the Kendall engine: one pass per pair, compiled with numba.

At small p the BLAS form of :mod:`dppca.stats.kendall` is limited by its elementwise passes
over the n^2 pair matrix (distances, near-duplicate test, weights, column sums: each a trip
through memory). This kernel visits each pair once, while its rows are in cache, and does
the same arithmetic: the Gram distance ``s_i + s_j - 2 z_i.z_j``, the near-duplicate test of
the engine (pairs in the norm band only), the weight ``w_ij``, and the Laplacian pieces
``deg_i += w_ij``, ``deg_j += w_ij``, ``c_i += w_ij z_j``. Flagged pairs are summed from their
explicit differences of the original rows, as in the BLAS form. So every pair's term carries
the same rounding as there and :func:`dppca.stats.kendall.rounding_slack` covers both engines.

The kernel is compiled on first use (``cache=True``: once per machine), never at import.
"""
from __future__ import annotations

import functools
import math

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .threads import available_cores

__all__ = ["FUSED_MAX_P", "fused_available", "fused_pair_sums", "fused_parts", "use_fused"]

#: The public rule: the fused kernel runs when p <= FUSED_MAX_P (and numba is installed and the
#: scale function is built in); above it the BLAS form wins (its two GEMMs reach the flop
#: rate of the machine, the fused loop does not). Measured here (2 cores, n = 5000, BLAS time
#: over fused time, median of 5): p = 3: 1.77, 5: 1.55, 8: 0.93, 12: 1.00, 20: 0.82.
FUSED_MAX_P = 6

#: Rows per block (a unit of work of a thread) and the most columns per tile. A tile's
#: columns (cols x p doubles) should stay in the L1/L2 cache: ``block_cols`` takes
#: min(BLOCK_COLS, 4096 // p) columns (512 at p = 5, 204 at p = 20; measured 1.6x faster at
#: p = 20 than 512 columns).
BLOCK_ROWS = 32
BLOCK_COLS = 512

#: Below this many rows one thread does the work (starting threads costs more).
PARALLEL_MIN_ROWS = 1024


def use_fused(n: int, p: int, kind: str) -> bool:
    """Whether :func:`dppca.stats.kendall.kendall_tau_matrix` takes the fused kernel.

    Parameters
    ----------
    n, p : int
        Rows and columns of the data (public).
    kind : str
        ``"spherical"``, ``"winsorized"`` or ``"custom"`` (a user's xi runs in Python: BLAS form).

    Returns
    -------
    bool
        ``p <= FUSED_MAX_P``, a built-in sign and numba importable. Depends on public
        quantities only, never on the data's values.

    Examples
    --------
    >>> use_fused(1000, 200, "spherical")
    False
    """
    return p <= FUSED_MAX_P and kind != "custom" and n >= 2 and fused_available()


@functools.lru_cache(maxsize=None)
def fused_available() -> bool:
    """True when numba can be imported (the kernel compiles lazily on first call)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def fused_parts(left, X, order, kind, radius, scale, tol, floor):
    """:func:`fused_pair_sums` of every share, one per thread (a static split; deterministic).

    Parameters are those of :func:`fused_pair_sums`. Returns one (degree, cross, direct) per
    thread, in a fixed order.
    """
    n = left.shape[0]
    workers = min(available_cores(), -(-n // BLOCK_ROWS)) if n >= PARALLEL_MIN_ROWS else 1
    bands = _bands(np.ascontiguousarray(left[:, -1]), tol, floor)
    _kernel()  # compiled (or loaded) once, before the threads start

    def share(worker):
        return fused_pair_sums(left, X, order, kind, radius, scale, tol, floor, worker, workers,
                               bands)

    if workers == 1:
        return [share(0)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(share, range(workers)))


def _bands(sq, tol, floor):
    """(sq, lo, hi): the columns [lo_i, hi_i) that may hold near duplicates of row i.

    The engine's argument (kendall._near_duplicates): a flagged pair has s_j in
    [s_i / q, s_i q], q = (1 - sqrt(3 tol))^-2, unless a norm is below floor / tol.
    """
    q = (1.0 - math.sqrt(3.0 * tol)) ** -2
    tiny = floor / tol
    lo = np.searchsorted(sq, np.where(sq >= tiny, sq / q, 0.0), "left")
    hi = np.searchsorted(sq, np.maximum(sq * q, tiny), "right")
    return sq, lo, hi


def fused_pair_sums(left, X, order, kind, radius, scale, tol, floor, worker=0, workers=1,
                    bands=None):
    """Laplacian pieces of the pairs i < j of the row blocks ``worker::workers``.

    Parameters
    ----------
    left : ndarray, shape (n, d + 2)
        The engine's factor ``[z, 1, ||z||^2]``: working rows (centred at the medians, divided
        by ``scale``) sorted by squared norm.
    X : ndarray, shape (n, d)
        Original rows (for the explicit differences of flagged pairs).
    order : ndarray of int, shape (n,)
        Sorted position -> row of ``X``.
    kind : {"spherical", "winsorized"}
    radius : float or None
        Winsorization radius in the units of ``X``.
    scale : float
        The power of two of the working units.
    tol, floor : float
        The near-duplicate rule of :mod:`dppca.stats.kendall`.
    worker, workers : int
        This thread's share: row blocks ``worker, worker + workers, ...`` (a static split).
    bands : tuple, optional
        ``_bands(left[:, -1], tol, floor)``, shared between threads.

    Returns
    -------
    degree : ndarray, shape (n,)
        Sums of w_ij over this share's pairs, at both ends.
    cross : ndarray, shape (d, d)
        ``sum w_ij z_i z_j^T`` over this share's pairs i < j.
    direct : ndarray, shape (d, d)
        ``sum g(t_ij) g(t_ij)^T`` of the flagged pairs, from the original rows.
    """
    n, d = left.shape[0], left.shape[1] - 2
    sq, lo, hi = _bands(np.ascontiguousarray(left[:, -1]), tol, floor) if bands is None else bands
    if kind == "spherical":  # xi = 1: xi_radius 0 marks it for the flagged pairs
        numerator, least, xi_radius = 1.0, 0.0, 0.0
    else:  # min(r^2, scale^2 s / 2) / s = (scale rho)^2 / max(s, 2 rho^2), as in signs.pair_weights
        rho = min(radius / scale, 1e150)
        numerator, least, xi_radius = (scale * rho) * (scale * rho), 2.0 * rho * rho, radius
    degree, cross, direct = np.zeros(n), np.zeros((d, d)), np.zeros((d, d))
    _kernel()(left, sq, lo, hi, X, order, numerator, least, xi_radius, tol, 0.5 * floor,
              worker, workers, BLOCK_ROWS, max(8, min(BLOCK_COLS, 4096 // d)), degree, cross, direct)
    return degree, cross, direct


@functools.lru_cache(maxsize=None)
def _kernel():
    """The compiled kernel (numba imported and the function compiled, or loaded from the cache,
    on the first call only)."""
    import numba

    options = dict(nogil=True, fastmath={"reassoc", "contract"})
    try:
        return numba.njit(cache=True, **options)(_pair_kernel)
    except RuntimeError:  # no writable cache folder (a read-only install): compile in memory
        return numba.njit(**options)(_pair_kernel)


def _pair_kernel(left, sq, lo, hi, X, order, numerator, least, xi_radius, tol, half_floor,
                 worker, workers, block_rows, block_cols, degree, cross, direct):
    """Plain-Python body of the kernel (compiled by numba; runs as Python only for debugging).

    Each column tile is copied once per row block into ``T`` (d, tile), one coordinate per
    row, so that the loops over a tile's columns run over contiguous memory and vectorise
    (no n x d copy of the data). Reassociation is allowed: it reorders sums, whose rounding
    bounds do not depend on the order.
    """
    n, d = left.shape[0], left.shape[1] - 2
    buf = np.empty(block_cols)
    T = np.empty((d, block_cols))
    zi = np.empty(d)
    ci = np.empty(d)
    g = np.empty(d)
    sqrt2 = math.sqrt(2.0)
    blocks = (n + block_rows - 1) // block_rows
    for block in range(worker, blocks, workers):
        r0 = block * block_rows
        r1 = min(r0 + block_rows, n)
        for c0 in range(r0, n, block_cols):
            c1 = min(c0 + block_cols, n)
            for k in range(c1 - c0):
                for a in range(d):
                    T[a, k] = left[c0 + k, a]
            for i in range(r0, min(r1, c1 - 1)):
                j0 = max(c0, i + 1)
                sqi = sq[i]
                for a in range(d):
                    zi[a] = left[i, a]
                    ci[a] = 0.0
                degi = 0.0
                m = c1 - j0
                t0 = j0 - c0
                # Slices: indices from range(m) are provably >= 0, so the loops vectorise
                # (an index j0 + k would carry numba's negative-index wrap-around test).
                sqs, degs = sq[j0:c1], degree[j0:c1]
                for k in range(m):
                    buf[k] = sqi + sqs[k]
                # Squared distances s_i + s_j - 2 z_i.z_j, coordinates two at a time (half
                # the trips of buf through the cache).
                for a in range(0, d - 1, 2):
                    ca, cb = -2.0 * zi[a], -2.0 * zi[a + 1]
                    ra, rb = T[a, t0:t0 + m], T[a + 1, t0:t0 + m]
                    for k in range(m):
                        buf[k] += ca * ra[k] + cb * rb[k]
                if d % 2:
                    ca, ra = -2.0 * zi[d - 1], T[d - 1, t0:t0 + m]
                    for k in range(m):
                        buf[k] += ca * ra[k]
                # The band [lo_i, hi_i), the only columns that can hold near duplicates of
                # row i: the engine's test on the distance just computed; a flagged pair is
                # summed from its explicit difference and gets weight 0 (distance +inf).
                for j in range(min(max(lo[i], j0), c1), min(max(hi[i], j0), c1)):
                    if buf[j - j0] <= (tol * sqi + half_floor) + (tol * sq[j] + half_floor):
                        buf[j - j0] = math.inf
                        # g(t) g(t)^T from t = (x_j - x_i)/sqrt2 of the original rows, as
                        # signs.apply_sign computes it (a power-of-two rescaling); g(0) = 0.
                        big = 0.0
                        for a in range(d):
                            g[a] = (X[order[j], a] - X[order[i], a]) / sqrt2
                            big = max(big, abs(g[a]))
                        if big == 0.0:
                            continue
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
                for k in range(m):
                    w = numerator / max(buf[k], least)  # exactly 0 at +inf
                    buf[k] = w
                    degi += w
                    degs[k] += w
                for a in range(0, d - 1, 2):
                    acc_a, acc_b = 0.0, 0.0
                    ra, rb = T[a, t0:t0 + m], T[a + 1, t0:t0 + m]
                    for k in range(m):
                        acc_a += buf[k] * ra[k]
                        acc_b += buf[k] * rb[k]
                    ci[a] += acc_a
                    ci[a + 1] += acc_b
                if d % 2:
                    acc_a, ra = 0.0, T[d - 1, t0:t0 + m]
                    for k in range(m):
                        acc_a += buf[k] * ra[k]
                    ci[d - 1] += acc_a
                degree[i] += degi
                for a in range(d):  # cross += z_i c_i^T: d^2 work per row and tile
                    for b in range(d):
                        cross[a, b] += zi[a] * ci[b]
