"""The fused pair kernel of the Kendall engine: one pass per pair, compiled with numba.

At small p the BLAS form of :mod:`dppca.stats.kendall` is limited by its elementwise passes
over the n^2 pair matrix (distances, near-duplicate test, weights, column sums: each a trip
through memory). This kernel visits each pair once, while its rows are in cache, and does
the same arithmetic: the Gram distance ``s_i + s_j - 2 z_i.z_j``, the near-duplicate test of
the engine (pairs in the norm band only), the weight ``w_ij``, and the Laplacian pieces
``deg_i += w_ij``, ``deg_j += w_ij``, ``c_i += w_ij z_j``. Flagged pairs are summed from their
explicit differences of the original rows, as in the BLAS form.

Specialised on d. The kernel's source is generated per dimension d
(:mod:`dppca.stats.fused_source`: coordinates unrolled, two rows per pass from d = 8 on,
vectorised loops over a tile's columns). The source is written to a file named by its hash
and compiled with ``cache=True``, so numba compiles it once per machine and d (seconds),
never at import.

Rounding (the proof of :func:`dppca.stats.kendall.rounding_slack` covers this kernel):

* each pair's distance is one inner product of length d + 2 (``s_i``, ``s_j``, d products),
  whose error is <= gamma_{d+2} (s_i + s_j + 2 |z_i.z_j|) in any order and with or without
  fused multiply-adds (Higham 2002, Section 3.1): the per-pair term (i) of the slack;
* the weight is one correctly rounded division (no reciprocal approximation: numba's
  ``fastmath`` is limited to ``reassoc`` and ``contract``, which reorder sums and fuse a
  multiply into an add, each fused operation rounding once);
* a distance summed in passes (groups of coordinates, the partial sum kept in a buffer
  between passes) is still that one inner product, in another order;
* every sum (``deg_i``, ``c_i`` over a row's partners, in vector lanes, spans, tiles and the
  one-row and two-row loops; ``deg_j`` over its partners, two of them first added together
  when rows i and i + 1 go together; ``cross`` over rows and threads; ``direct`` over flagged
  pairs) is a summation tree over at most ``rows`` nonzero terms (adding 0.0 is exact), so
  each term passes through at most ``rows`` additions in whatever order the compiler picks:
  within the depth L of the slack. Taking rows two at a time changes only these orders: the
  arithmetic of each pair (distance, test, weight, products) is the same.
  ``cross += z_i c_i^T`` multiplies a row's sum once per row (two products per piece).
* numba's ``error_model="numpy"`` drops Python's zero-division check (which blocks
  vectorisation); no division by zero occurs: a pair outside the band is not flagged
  (:func:`_bands`; two rows share the test on the band of the second, a superset of the
  first's, as the BLAS form's numpy pass tests a block on the union of its rows' bands), a non-flagged
  pair has distance > tol (s_i + s_j) + floor > 0, and a flagged one is given distance +inf
  (weight 0).
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .fused_source import DIST_GROUP, TWO_ROWS_MIN_D, kernel_source
from .threads import available_cores

__all__ = ["FUSED_MAX_P", "fused_available", "fused_pair_sums", "fused_parts", "use_fused"]

#: The public rule: the fused kernel runs when p <= FUSED_MAX_P (and numba is installed and the
#: scale function is built in); above it the BLAS form wins (its two GEMMs reach the flop
#: rate of the machine, the fused loops, a few passes per group of coordinates, do not).
#: Measured against the blocked BLAS form of :mod:`dppca.stats.blas_blocks` (one core, CPU time,
#: Gaussian rows, BLAS over fused, min of 2): n = 20000: p = 8: 1.68, 16: 1.23, 20: 1.30,
#: 24: 1.02, 28: 0.98, 32: 1.04, 36: 0.83, 40: 0.80, 48: 0.72; n = 5000: p = 16: 1.24, 20: 1.28,
#: 24: 1.05, 32: 0.98, 40: 0.78. The engines tie from 24 to 32; the rule takes the middle
#: (it was 40 against the strip-wise BLAS form, which was 1.4x slower at p = 50). Each d
#: compiles once per machine (numba's cache keeps it): 4 s CPU at d = 5, 10 s at 20, 12 at 24,
#: 22 at 32 and 40.
FUSED_MAX_P = 28

#: Rows per block (a unit of work of a thread), the most columns per tile, and the doubles of
#: a tile (its d coordinates, squared norms and degrees; 64 KiB, in the L2 cache):
#: :func:`block_cols`. Measured (one core, CPU time, ns per pair, p = 5 / p = 20):
#: 32 rows, 512 columns, 4096 doubles: 1.27 / 5.21; 64, 1024, 8192: 1.13 / 4.37; 128 rows,
#: 8192 doubles: 0.97 / 4.27; 128 rows, 2048 doubles: 0.97 / 5.72 (noise ~10%). At p = 5 the
#: loop is bound by its one division per pair (vdivpd), not by the cache.
BLOCK_ROWS = 128
BLOCK_COLS = 1024
TILE_DOUBLES = 8192

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
    _kernel(left.shape[1] - 2)  # compiled (or loaded) once, before the threads start

    def share(worker):
        return fused_pair_sums(left, X, order, kind, radius, scale, tol, floor, worker, workers,
                               bands)

    if workers == 1:
        return [share(0)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(share, range(workers)))


def _bands(sq, tol, floor):
    """(sq, hi): the columns i < j < hi_i that may hold near duplicates of row i.

    The engine's argument (blas_blocks._near_duplicates): a flagged pair has s_j in
    [s_i / q, s_i q], q = (1 - sqrt(3 tol))^-2, unless a norm is below floor / tol. Rows are
    sorted by s, so for j > i only the upper end matters.
    """
    q = (1.0 - math.sqrt(3.0 * tol)) ** -2
    return sq, np.searchsorted(sq, np.maximum(sq * q, floor / tol), "right")


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
    sq, hi = _bands(np.ascontiguousarray(left[:, -1]), tol, floor) if bands is None else bands
    if kind == "spherical":  # xi = 1: xi_radius 0 marks it for the flagged pairs
        numerator, least, xi_radius = 1.0, 0.0, 0.0
    else:  # min(r^2, scale^2 s / 2) / s = (scale rho)^2 / max(s, 2 rho^2), as in signs.pair_weights
        rho = min(radius / scale, 1e150)
        numerator, least, xi_radius = (scale * rho) * (scale * rho), 2.0 * rho * rho, radius
    degree, cross, direct = np.zeros(n), np.zeros((d, d)), np.zeros((d, d))
    _kernel(d)(left, sq, hi, X, order, numerator, least, xi_radius, tol, 0.5 * floor,
               worker, workers, BLOCK_ROWS, block_cols(d), degree, cross, direct)
    return degree, cross, direct


def block_cols(d):
    """Columns per tile: ``(d + 2) cols <= TILE_DOUBLES``, at most ``BLOCK_COLS``, at least 8."""
    return max(8, min(BLOCK_COLS, TILE_DOUBLES // (d + 2)))


def _kernel(d):
    """The compiled kernel for dimension d (threads asking at once: one compiles, the others wait)."""
    with _COMPILING:
        return _compiled_kernel(d)


_COMPILING = threading.Lock()


@functools.lru_cache(maxsize=None)
def _compiled_kernel(d):
    """The kernel for dimension d: generated, then compiled on the first call only.

    The source goes to a file in the first writable folder of :func:`_source_folders`, named
    by its hash, so that numba's cache (``cache=True``) keeps the machine code between
    processes; with no writable folder it is compiled in memory.
    """
    import numba

    source = kernel_source(d, TILE_DOUBLES)
    options = dict(nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})
    digest = hashlib.sha256((source + numba.__version__).encode()).hexdigest()[:16]
    for folder in _source_folders():
        try:
            module = _load_source(folder / f"fused_d{d}_{digest}.py", source)
            return numba.njit(cache=True, **options)(module.kernel)
        except (OSError, RuntimeError):  # not writable (no source file or no numba cache)
            continue
    namespace = {}
    exec(compile(source, f"<dppca fused kernel d={d}>", "exec"), namespace)  # noqa: S102
    return numba.njit(**options)(namespace["kernel"])


def _source_folders():
    """Folders for the generated sources: the user's cache folder (platformdirs), never the
    installed package, whose folder a later install or uninstall would leave behind as an
    empty namespace package that shadows an editable install."""
    from platformdirs import user_cache_dir

    return [Path(user_cache_dir("dppca")) / "fused"]


def _load_source(path, source):
    """Import ``source`` as a module from ``path`` (written first, atomically, if absent)."""
    if not path.exists() or path.read_text() != source:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(source)
        os.replace(temporary, path)
    spec = importlib.util.spec_from_file_location(f"dppca_fused_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache finds the module by name when it loads
    spec.loader.exec_module(module)
    return module
