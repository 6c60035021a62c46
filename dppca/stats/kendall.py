"""Generalized spatial signs and the generalized multivariate Kendall's tau matrix.

The g-DPPCA mechanism of Kim & Jung (2025) releases the eigenvectors of a
noisy copy of

    K_g = 2/(n(n-1)) sum_{i<j} g((x_j - x_i)/sqrt2) g((x_j - x_i)/sqrt2)^T,

where g(t) = xi(||t||) t/||t|| is a bounded generalized spatial sign. This
module computes K_g exactly (to rounding) in O(n^2 d) time and O(n d) memory
by writing the pair sum as a weighted graph Laplacian, X^T (D - W) X, and
evaluating it tile by tile with BLAS. Pairs of (near-)duplicate rows, for which
that identity cancels badly, are summed directly from their explicit
differences. Only numpy is used.

References
----------
Kim, M. and Jung, S. (2025). Robust and Differentially Private PCA for
non-Gaussian data. arXiv:2507.15232. Section 2: eq. for K_g and
Proposition 2.1.
"""

import ctypes
import functools
import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, NamedTuple, Optional

import numpy as np

__all__ = [
    "SIGNS",
    "rounding_slack",
    "spatial_sign",
    "sign_bound",
    "kendall_tau_matrix",
    "kendall_tau_matrix_naive",
]

SIGNS = ("spherical", "winsorized")

# A pair is "near-duplicate" when ||x_i - x_j||^2 <= TOL * (||x_i||^2 + ||x_j||^2)
# (rows centred and scaled). Outside that set the Gram-trick distance and the
# Laplacian terms w_ij x_i x_i^T, w_ij x_i x_j^T carry rounding errors of order
# (d + 2) u (||x_i||^2 + ||x_j||^2), u = 1.1e-16, so a pair's own contribution
# w_ij (x_i - x_j)(x_i - x_j)^T is wrong by at most about (d + 2) u / TOL, i.e.
# ~1e-12 (d + 2) with TOL = 1e-4: at most 4 of 16 digits are lost. Inside the
# set the pair is summed from its explicit difference instead. A larger TOL
# buys digits but sends more pairs to that slower path; after centring, only
# (near-)duplicate rows and rows far from the bulk fall below 1e-4 (for
# Gaussian data in d >= 5 a vanishing share of pairs), whereas 1e-6 would
# allow ~1e-10 (d + 2) errors, too coarse for a 1e-10 end-to-end check.
_NEAR_DUPLICATE_TOL = 1e-4

# Pairs with a working-units squared distance below this are also summed
# directly: above it the Gram distance is a normal float with full precision
# (products of subnormal components add at most d * 5e-324) and 1/d^2 cannot
# overflow. Working units put the largest |entry| near 1, so only data
# spanning ~146 orders of magnitude ever reach it.
_DISTANCE_FLOOR = np.finfo(np.float64).tiny / np.finfo(np.float64).eps

# Elements of one strip of a tile (rows x tile columns) processed at a time:
# 2^17 float64 = 1 MiB, the L2 cache of one core here, so the elementwise
# passes over a strip (weights, column sums) run from cache, while strips stay
# tall enough (64 rows at tile=2048) for efficient BLAS calls.
_STRIP_ELEMENTS = 2**17

# Worker threads: elementwise numpy work runs on one core per call, so strips
# of tiles are spread over the cores, each worker's BLAS calls pinned to one
# thread with OpenBLAS's thread-local switch (measured on 2 cores, n = 20000,
# d = 50: 1.0 s against 1.8 s for one worker with threaded BLAS; two workers
# with threaded BLAS oversubscribe the cores and were slower still; and one
# worker with threaded BLAS took 17 s when other processes held a core, as
# each small BLAS call waits for a descheduled helper thread). Without that
# switch one worker is used.
_OPENBLAS_LOCAL_THREADS = (
    "openblas_set_num_threads_local",
    "scipy_openblas_set_num_threads_local64_",
    "scipy_openblas_set_num_threads_local",
)


def rounding_slack(rows: int, d: int) -> float:
    """Relative slack to add to the sensitivity of K_g for the engine's rounding.

    A pair's term is computed to a relative error of at most (d + 2) u / 1e-4 = e (the
    near-duplicate rule above), in each of its d^2 entries, so the computed K over ``rows``
    rows is within d e G^2 of the exact one in Frobenius norm, and two neighbouring data
    sets' computed K differ by at most their exact difference plus 2 d e G^2 times the
    weight of the block that holds the changed row (|B| / n; 1 for the complete statistic).
    Against the sensitivity 2 sqrt(2) G^2 / n that is a relative slack of
    d e |B| / sqrt(2) (|B| = n for the complete statistic): 1e-7 at n = 5000, p = 20.

    Parameters
    ----------
    rows : int
        Rows of the largest block over which one pair sum is computed (n when complete).
    d : int
        Dimension.

    Returns
    -------
    float
        rho >= 0: release with sensitivity (1 + rho) times the exact-arithmetic one.

    Examples
    --------
    >>> bool(rounding_slack(5000, 20) < 1e-5)
    True
    """
    unit = np.finfo(np.float64).eps / 2
    return d * (d + 2) * unit / _NEAR_DUPLICATE_TOL * rows / np.sqrt(2.0)


def spatial_sign(T, sign="spherical", radius=None, xi=None):
    """Apply a generalized spatial sign row-wise.

    Parameters
    ----------
    T : array_like, shape (m, d) or (d,)
        Vectors to transform, one per row (a 1-D input is one vector).
    sign : {"spherical", "winsorized"}, default "spherical"
        Built-in scale function: ``xi == 1`` (spatial sign) or
        ``xi(s) = min(radius, s)`` (radial winsorization).
    radius : float, optional
        Winsorization radius r > 0, used when ``sign="winsorized"``.
        Defaults to ``sqrt(d)``, the choice of Kim & Jung (2025).
    xi : callable, optional
        User scale function, used instead of `sign`. It must be vectorised:
        it maps an array of norms ``s > 0`` to an array of the same shape of
        finite scales.

    Returns
    -------
    G : ndarray, shape like `T`
        ``g(t) = xi(||t||) t / ||t||`` for each row t, and ``g(0) = 0``.

    Raises
    ------
    ValueError
        If `sign` is unknown, `radius` is not finite and positive, `xi` is
        not callable or returns non-finite values or the wrong shape, or `T`
        is not 1-D or 2-D.

    Notes
    -----
    ``g`` keeps the direction of ``t`` and sets its length to ``xi(||t||)``
    (Kim & Jung 2025, Section 2; Raymaekers & Rousseeuw 2019). It is
    orthogonally equivariant, ``g(Qt) = Q g(t)``, and bounded by
    :func:`sign_bound`. Norms are computed on rows rescaled by a power of two,
    so they neither overflow nor underflow.

    Examples
    --------
    >>> spatial_sign([[3.0, 4.0], [0.0, 0.0]])
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    T = np.asarray(T, dtype=np.float64)
    if T.ndim not in (1, 2):
        raise ValueError(f"`T` must be 1-D or 2-D; got {T.ndim}-D")
    rows = np.atleast_2d(T)
    spec = _resolve_sign(sign, radius, xi, rows.shape[1])
    return _apply_sign(rows, spec).reshape(T.shape)


def sign_bound(d, sign="spherical", radius=None, xi_bound=None, *, xi=None):
    """Bound ``sup_t ||g(t)||_2`` of a generalized spatial sign.

    Parameters
    ----------
    d : int
        Dimension of the data (sets the default winsorization radius).
    sign : {"spherical", "winsorized"}, default "spherical"
        Built-in scale function, as in :func:`spatial_sign`.
    radius : float, optional
        Winsorization radius; defaults to ``sqrt(d)``.
    xi_bound : float, optional
        ``sup_s |xi(s)|`` of a user scale function. When given it is returned
        (after checking), whatever `sign` says.
    xi : callable, optional
        The user scale function, keyword only. Passing it makes `xi_bound`
        required, so a bound cannot silently default to the built-in one.

    Returns
    -------
    float
        1 for spherical, `radius` (default ``sqrt(d)``) for winsorized,
        `xi_bound` for a user scale function.

    Raises
    ------
    ValueError
        If `d` is not a positive integer, `sign` is unknown, `radius` or
        `xi_bound` is not finite and positive, `xi` is not callable, or `xi`
        is given without `xi_bound`.

    Notes
    -----
    The bound sets the privacy noise: the Frobenius sensitivity of K_g is a constant times
    ``||g||_inf^2 / n`` (``dppca.methods.gdppca.GDPPCA_SENSITIVITY_SENTENCE`` states it; the
    proof is in :func:`dppca.methods.gdppca.gdppca_directions`). A user `xi` is not checked
    against `xi_bound` here; ``gdppca_directions`` clips it into [0, xi_bound].
    """
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1:
        raise ValueError(f"`d` must be a positive integer; got {d!r}")
    if xi_bound is not None:
        if xi is not None:
            _check_callable(xi)
        return _check_positive_finite(xi_bound, "xi_bound")
    if xi is not None:
        raise ValueError(
            "`xi_bound` is required when `xi` is given: a user scale "
            "function has no known bound"
        )
    spec = _resolve_sign(sign, radius, None, int(d))
    return 1.0 if spec.kind == "spherical" else spec.radius


def kendall_tau_matrix(X, sign="spherical", radius=None, xi=None, *, tile=2048):
    """Generalized multivariate Kendall's tau matrix, computed fast.

    Parameters
    ----------
    X : ndarray, shape (n, d)
        Data, one observation per row; finite, n >= 2.
    sign : {"spherical", "winsorized"}, default "spherical"
        Generalized spatial sign, as in :func:`spatial_sign`.
    radius : float, optional
        Winsorization radius, in the units of `X`; defaults to ``sqrt(d)``.
    xi : callable, optional
        User scale function, used instead of `sign`.
    tile : int, default 2048
        Rows per tile of the pair matrix. Memory is O(tile * strip + n d),
        never O(n^2); the result does not depend on `tile` beyond rounding.

    Returns
    -------
    K : ndarray, shape (d, d)
        Symmetric, positive semi-definite. Deterministic: no randomness, and
        a static split of the work over the cores, so repeated calls on one
        machine agree bitwise.

    Raises
    ------
    ValueError
        For an unknown `sign`, a `radius` that is not finite and positive, a
        non-callable `xi`, a `tile` that is not a positive integer, or `X`
        that is not 2-D with at least 2 rows.

    Notes
    -----
    Kim & Jung (2025), Section 2, define

        K_g = 2/(n(n-1)) sum_{i<j} g(t_ij) g(t_ij)^T,  t_ij = (x_j - x_i)/sqrt2,

    whose noisy version is released by Proposition 2.1. With
    ``d_ij = ||x_i - x_j||`` and ``r_ij = d_ij / sqrt2``,
    ``g(t_ij) g(t_ij)^T = w_ij (x_i - x_j)(x_i - x_j)^T`` with
    ``w_ij = xi(r_ij)^2 / d_ij^2`` (spherical: ``1/d_ij^2``; winsorized:
    ``min(radius^2/d_ij^2, 1/2)``). The Laplacian identity

        sum_{i<j} w_ij (x_i - x_j)(x_i - x_j)^T = X^T (D - W) X,

    with W the zero-diagonal weight matrix and D = diag(W 1), turns the
    O(n^2 d^2) pair sum into O(n^2 d) BLAS work. It is evaluated over tiles
    (I, J), I <= J, cut into cache-sized strips of rows that are shared
    between the cores, using ``d_ij^2 = ||x_i||^2 + ||x_j||^2 - 2 x_i.x_j``.

    Numerics: K is translation invariant, so X is first centred at its
    column medians (robust to heavy tails and shifts) and divided by a power
    of two (exact; the radius stays in the original units). Rows are sorted
    by norm so that near-duplicate pairs, which must have nearly equal norms,
    lie in a narrow band of each tile; there pairs with
    ``d_ij^2 <= 1e-4 (||x_i||^2 + ||x_j||^2)`` are removed from W and summed
    as ``g(t_ij) g(t_ij)^T`` from ``x_j - x_i`` of the original rows, as in
    :func:`kendall_tau_matrix_naive`; exact duplicates contribute 0
    (``g(0) = 0``). Other pairs lose at most ~4 of 16 digits to the Gram
    trick; in practice the result matches the pair sum to ~1e-15.
    """
    X = _check_data(X)
    tile = _check_tile(tile)
    n, d = X.shape
    X, spec = _without_overflow(X, _resolve_sign(sign, radius, xi, d))
    prep = _prepare(X)
    parts = _accumulate_in_parallel(prep, spec, n, tile)
    return _normalise(_combine(prep, parts), n)


def kendall_tau_matrix_naive(X, sign="spherical", radius=None, xi=None):
    """Generalized Kendall's tau matrix from the explicit pairwise sum.

    Reference implementation for tests and benchmarks: O(n^2 d^2) time,
    O(n d) memory (one row i against all j > i at a time).

    Parameters
    ----------
    X : ndarray, shape (n, d)
        Data, one observation per row; finite, n >= 2.
    sign : {"spherical", "winsorized"}, default "spherical"
        Generalized spatial sign, as in :func:`spatial_sign`.
    radius : float, optional
        Winsorization radius; defaults to ``sqrt(d)``.
    xi : callable, optional
        User scale function, used instead of `sign`.

    Returns
    -------
    K : ndarray, shape (d, d)
        Symmetric.

    Raises
    ------
    ValueError
        As :func:`kendall_tau_matrix` (without `tile`).

    Notes
    -----
    Follows the definition of Kim & Jung (2025) literally:
    ``2/(n(n-1)) sum_{i<j} g(t_ij) g(t_ij)^T`` with
    ``t_ij = (x_j - x_i)/sqrt2`` and g from :func:`spatial_sign`; it shares
    no arithmetic with the Laplacian path of :func:`kendall_tau_matrix`, so
    comparing the two checks the identity as well as the code.
    """
    X = _check_data(X)
    n, d = X.shape
    X, spec = _without_overflow(X, _resolve_sign(sign, radius, xi, d))
    S = np.zeros((d, d))
    for i in range(n - 1):
        G = _apply_sign((X[i + 1 :] - X[i]) / np.sqrt(2.0), spec)
        S += G.T @ G
    return _normalise(S, n)


# ---------------------------------------------------------------------------
# Argument handling and the scale function xi
# ---------------------------------------------------------------------------


class _SignSpec(NamedTuple):
    """A resolved spatial sign: kind, winsorization radius, scale function."""

    kind: str  # "spherical", "winsorized" or "custom"
    radius: Optional[float]
    xi: Callable


def _resolve_sign(sign, radius, xi, d):
    """Check `sign`, `radius`, `xi` and return the matching _SignSpec."""
    if not isinstance(sign, str) or sign not in SIGNS:
        raise ValueError(f"`sign` must be one of {SIGNS}; got {sign!r}")
    if radius is not None:
        radius = _check_positive_finite(radius, "radius")
    if xi is not None:
        return _SignSpec("custom", None, _check_callable(xi))
    if sign == "spherical":
        return _SignSpec("spherical", None, np.ones_like)
    r = float(np.sqrt(d)) if radius is None else radius
    return _SignSpec("winsorized", r, lambda s: np.minimum(s, r))


#: Data with an entry above this are divided by 4 first, so that differences of rows and
#: centring at the medians cannot overflow (|x_i - x_j| <= DBL_MAX / 2).
_OVERFLOW_GUARD = np.finfo(np.float64).max / 4


def _without_overflow(X, spec):
    """(X / 4, the same sign in the new units) when entries exceed DBL_MAX / 4, else (X, spec).

    Dividing by 4 is exact for normal numbers and rounds each subnormal entry on its own, a
    per-row map, so the sensitivity argument (one row replaced) is unaffected. g(t) =
    xi(||t||) t/||t|| keeps its value if xi gets the norm in the original units: the spherical
    sign is scale-free; the winsorized sign becomes xi(s) = min(r, 4 s) and a user xi gets
    xi(min(4 s, DBL_MAX)) (the original norm, capped where it overflows).
    """
    if not np.max(np.abs(X), initial=0.0) > _OVERFLOW_GUARD:
        return X, spec
    biggest = np.finfo(np.float64).max
    if spec.kind == "winsorized":
        radius = spec.radius
        spec = _SignSpec("custom", None, lambda s: np.minimum(radius, _times_four(s, biggest)))
    elif spec.kind == "custom":
        user = spec.xi
        spec = _SignSpec("custom", None, lambda s: user(_times_four(s, biggest)))
    return X / 4.0, spec


def _times_four(s, cap):
    with np.errstate(over="ignore"):
        return np.minimum(np.asarray(s, dtype=np.float64) * 4.0, cap)


def _check_positive_finite(value, name):
    """Return `value` as a float if it is a finite real number > 0."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not np.isfinite(value) or value <= 0:
        raise ValueError(f"`{name}` must be a finite number > 0; got {value!r}")
    return float(value)


def _check_callable(xi):
    if not callable(xi):
        raise ValueError(
            f"`xi` must be a callable mapping norms to scales; got {type(xi).__name__}"
        )
    return xi


def _check_tile(tile):
    if isinstance(tile, bool) or not isinstance(tile, numbers.Integral) or tile < 1:
        raise ValueError(f"`tile` must be a positive integer; got {tile!r}")
    return int(tile)


def _check_data(X):
    """Light shape check; finiteness is the caller's job (already validated)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"`X` must be 2-D with at least 2 rows; got shape {X.shape}")
    return X


def _evaluate_xi(spec, s):
    """xi(s) for norms s > 0, checked when the function is the user's."""
    v = spec.xi(s)
    if spec.kind != "custom":
        return v
    v = np.asarray(v, dtype=np.float64)
    if v.shape != s.shape or not np.all(np.isfinite(v)):
        raise ValueError(
            "`xi` must return finite values of the same shape as its input "
            f"(shape {s.shape}); got shape {v.shape}"
        )
    return v


def _apply_sign(rows, spec):
    """g(t) = xi(||t||) t/||t|| for each row of a 2-D array; g(0) = 0.

    Each row is first divided by a power of two near its largest entry
    (exact), so the norm neither overflows nor underflows and the direction
    t/||t|| is formed from O(1) numbers.
    """
    scale = _power_of_two_scale(np.max(np.abs(rows), axis=1, initial=0.0))
    scaled = rows / scale[:, None]
    lengths = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))  # ||t|| / scale
    G = np.zeros_like(rows)
    pos = lengths > 0
    xi = _evaluate_xi(spec, lengths[pos] * scale[pos])
    G[pos] = scaled[pos] * (xi / lengths[pos])[:, None]
    return G


def _power_of_two_scale(big):
    """2^e with big / 2^e in [0.5, 2); 1 where big == 0; finite, never subnormal.

    Dividing by it is exact, and its reciprocal stays finite.
    """
    info = np.finfo(np.float64)
    exponent = np.clip(np.frexp(big)[1], info.minexp, info.maxexp - 1)
    return np.where(big > 0, np.ldexp(1.0, exponent), 1.0)


def _pair_weights(sqdist, spec, scale, out):
    """Laplacian weights ``scale^2 w_ij`` from squared distances in `scale` units.

    With distances measured in units of `scale` (``sqdist = d_ij^2/scale^2``,
    all > 0), ``scale^2 w_ij = xi(scale sqrt(sqdist/2))^2 / sqdist``, so that
    summing it against differences in `scale` units gives the pair sum in the
    original units. Written in place to `out`.
    """
    if spec.kind == "spherical":
        return np.reciprocal(sqdist, out=out)
    if spec.kind == "winsorized":
        # min(r^2, scale^2 sqdist / 2) / sqdist = (scale rho)^2 / max(sqdist, 2 rho^2)
        # with rho = r / scale (r stays in the original units). This form never
        # exceeds scale^2 / 2; capping rho changes nothing, as sqdist <= 16 d.
        rho = min(spec.radius / scale, 1e150)
        np.maximum(sqdist, 2.0 * rho * rho, out=out)
        return np.divide((scale * rho) * (scale * rho), out, out=out)
    norms = np.sqrt(sqdist.ravel() * 0.5) * scale
    xi_sq = np.square(_evaluate_xi(spec, norms)).reshape(sqdist.shape)
    return np.divide(xi_sq, sqdist, out=out)  # `out` may alias `sqdist`


def _normalise(S, n):
    """2/(n(n-1)) S, symmetrised (the accumulations are not bitwise symmetric)."""
    K = S * (2.0 / (n * (n - 1.0)))
    return (K + K.T) / 2.0


def available_cores():
    """Cores this process may run on (the affinity mask on Linux)."""
    return _available_cores()


def _available_cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@functools.lru_cache(maxsize=None)
def _openblas_local_thread_setters():
    """``openblas_set_num_threads_local`` of each loaded OpenBLAS, or ().

    The setting is thread-local (OpenBLAS >= 0.3.27), so calling it from our
    own worker threads leaves the caller's BLAS threading untouched. Loaded
    libraries are read from /proc/self/maps; elsewhere this returns ().
    """
    try:
        with open("/proc/self/maps") as maps:
            fields = [line.split(maxsplit=5) for line in maps]
    except OSError:
        return ()
    paths = sorted({f[5].strip() for f in fields if len(f) == 6 and "openblas" in f[5]})
    setters = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _OPENBLAS_LOCAL_THREADS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
                setters.append(setter)
                break
    return tuple(setters)


# ---------------------------------------------------------------------------
# The tiled Laplacian evaluation
# ---------------------------------------------------------------------------


class _Prepared(NamedTuple):
    """Centred, scaled, norm-sorted data as the augmented Gram factor [z, 1, ||z||^2]."""

    X: np.ndarray  # original rows (for explicit differences)
    order: np.ndarray  # sorted position -> original row
    scale: float  # power of two; working units = original / scale
    sqnorm: np.ndarray  # ||z_i||^2 of the working rows z, ascending
    left: np.ndarray  # [z, 1, ||z||^2]; [-2 z, ||z||^2, 1] of a strip's rows is formed on the fly


#: Below this many rows the pair work (~n^2 d / 2) takes less time than starting threads
#: (~0.5 ms each), so one thread does it; blocks of incomplete designs are spread over the
#: cores one level up instead (:func:`dppca.stats.pair_design.sum_block_kendall`).
_PARALLEL_MIN_ROWS = 1024

#: Rows per chunk when building the working rows: the temporaries stay O(chunk d).
_PREPARE_CHUNK = 2**12


def _prepare(X):
    """Centre at the column medians, rescale by a power of two, sort by norm.

    Built chunk by chunk straight into the Gram factor, so the only O(n d) allocation is
    that factor (n (d + 2) floats): the engine's extra memory is about (d + 2)/d times the data.
    """
    n, d = X.shape
    # np.median copies its input: whole for small data, one column at a time for large.
    median = np.median(X, axis=0) if n <= _PREPARE_CHUNK else \
        np.array([np.median(X[:, j]) for j in range(d)])
    # fl(x - m) is monotone in x, so the largest |x - m| sits at a column's min or max.
    big = float(max(np.max(np.abs(X.max(axis=0) - median)), np.max(np.abs(X.min(axis=0) - median))))
    scale = float(_power_of_two_scale(big))
    sq = np.empty(n)
    for start in range(0, n, _PREPARE_CHUNK):
        Z = (X[start:start + _PREPARE_CHUNK] - median) * (1.0 / scale)  # exact: a power of two
        sq[start:start + _PREPARE_CHUNK] = np.einsum("ij,ij->i", Z, Z)
    order = np.argsort(sq, kind="stable")
    # Augmenting the factor puts the whole Gram trick inside one GEMM,
    # ||z_i||^2 + ||z_j||^2 - 2 z_i.z_j, saving two elementwise passes; the
    # ones column also yields the row sums of W from W @ left.
    left = np.empty((n, d + 2))
    for start in range(0, n, _PREPARE_CHUNK):
        rows = order[start:start + _PREPARE_CHUNK]
        np.multiply(X[rows] - median, 1.0 / scale, out=left[start:start + rows.size, :d])
    left[:, d] = 1.0
    left[:, d + 1] = sq[order]
    return _Prepared(X, order, scale, left[:, d + 1], left)


def _right_factor(left_rows):
    """[-2 z, ||z||^2, 1] of some rows of the factor (exact: a scaling by -2 and a swap)."""
    d = left_rows.shape[1] - 2
    right = np.empty_like(left_rows)
    np.multiply(left_rows[:, :d], -2.0, out=right[:, :d])
    right[:, d], right[:, d + 1] = left_rows[:, d + 1], 1.0
    return right


def _strip_tasks(n, tile, worker=0, workers=1):
    """Strips (rows, cols, triangular) covering each pair i < j exactly once.

    Tiles (I, J), I <= J, are cut into strips of ``height`` rows, so the
    elementwise passes over a strip stay in cache; strips are also the unit
    of work of a thread, so even a single tile (n <= tile) is shared between
    the cores. In a diagonal tile a strip starts at its own first row, and
    its leading square block (``triangular``) keeps only j > i, so every pair
    is weighed, and tested for near-duplication, in one place only.

    A generator yielding every ``workers``-th strip from number ``worker`` on
    (a static round-robin split): the list of all strips would hold
    O(n^2 / (tile height)) entries, ~4 million at n = 10^6.
    """
    height = _strip_height(min(tile, n))  # a small block: taller strips, fewer calls
    index = 0
    for a in range(0, n, tile):
        a_end = min(a + tile, n)
        for b in range(a, n, tile):
            for r in range(a, a_end, height):
                if index % workers == worker:
                    rows = slice(r, min(r + height, a_end))
                    cols = slice(r, a_end) if a == b else slice(b, min(b + tile, n))
                    yield rows, cols, a == b
                index += 1


def _strip_height(tile):
    return max(1, min(tile, _STRIP_ELEMENTS // tile))


class _Accumulator(NamedTuple):
    degree: np.ndarray  # (n,) sums of w_ij over the pairs seen, for both ends
    cross: np.ndarray  # (d, d) sum of w_ij z_i z_j^T over the pairs seen, i < j
    direct: np.ndarray  # (d, d) pair sum of the near-duplicate pairs


def _accumulate_in_parallel(prep, spec, n, tile):
    """Share the strips over the cores; one accumulator per worker thread."""
    setters = _openblas_local_thread_setters()
    strips = -(-n // _strip_height(min(tile, n)))  # at least this many strips
    # A user xi runs on the calling thread: it may be an R function (reticulate aborts R
    # when R code runs on another thread) or other code that is not thread-safe.
    parallel = setters and n >= _PARALLEL_MIN_ROWS and spec.kind != "custom"
    workers = min(_available_cores(), strips) if parallel else 1
    # Static round-robin split plus a fixed reduction order: deterministic.
    chunks = [_strip_tasks(n, tile, k, workers) for k in range(workers)]
    if setters:  # also with one worker: threaded BLAS on small strips stalls under load
        work = functools.partial(_accumulate_strips_one_blas_thread, setters, prep, spec)
    else:
        work = functools.partial(_accumulate_strips, prep, spec)
    if workers == 1:
        return [work(chunks[0])]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(work, chunks))


def _accumulate_strips_one_blas_thread(setters, prep, spec, tasks):
    """_accumulate_strips with this thread's BLAS calls kept on one core."""
    previous = [setter(1) for setter in setters]
    try:
        return _accumulate_strips(prep, spec, tasks)
    finally:
        for setter, value in zip(setters, previous):
            setter(value)


def _accumulate_strips(prep, spec, tasks):
    """Accumulate the Laplacian pieces of the given strips."""
    n, d2 = prep.left.shape
    d = d2 - 2
    acc = _Accumulator(np.zeros(n), np.zeros((d, d)), np.zeros((d, d)))
    buf = np.empty(0)
    for rows, cols, triangular in tasks:
        size = (rows.stop - rows.start) * (cols.stop - cols.start)
        buf = buf if buf.size >= size else np.empty(size)  # one strip's buffer, reused
        _accumulate_strip(prep, spec, rows, cols, triangular, buf, acc)
    return acc


def _accumulate_strip(prep, spec, rows, cols, triangular, buf, acc):
    """Add the pairs of one strip W[rows, cols] of the weight matrix."""
    h, m = rows.stop - rows.start, cols.stop - cols.start
    W = buf[: h * m].reshape(h, m)
    np.matmul(_right_factor(prep.left[rows]), prep.left[cols].T, out=W)  # squared distances
    near = _near_duplicates(prep, W, rows, cols)
    # Pairs outside the Laplacian (near duplicates; j <= i in a triangular
    # strip) get weight 0, via a placeholder that keeps the weight function
    # free of 0 and negative distances.
    lower = _lower_triangle(h) if triangular else _NO_PAIRS
    W[near] = W[lower] = 1.0
    _pair_weights(W, spec, prep.scale, out=W)
    W[near] = W[lower] = 0.0
    gi, gj = rows.start + near[0], cols.start + near[1]
    _add_direct_pairs(prep, spec, gi[gi < gj], gj[gi < gj], acc)
    d = prep.left.shape[1] - 2
    P = W @ prep.left[cols, : d + 1]  # [W Z_J, W 1]
    acc.degree[rows] += P[:, d]
    acc.degree[cols] += np.add.reduce(W, axis=0)
    acc.cross[...] += prep.left[rows, :d].T @ P[:, :d]


_NO_PAIRS = (np.empty(0, np.intp),) * 2


@functools.lru_cache(maxsize=8)
def _lower_triangle(h):
    """np.tril_indices(h), cached: strips of one height recur thousands of times."""
    ii, jj = np.tril_indices(h)
    ii.flags.writeable = jj.flags.writeable = False
    return ii, jj


def _near_duplicates(prep, D2, rows, cols):
    """Local indices (i, j) of strip pairs whose Gram distance is unreliable.

    Flagged: d^2 <= tol (s_i + s_j) + floor, s = squared norms (working
    units). Then (sqrt(s_i) - sqrt(s_j))^2 <= d^2 forces s_j into
    [s_i / q, s_i q], q = (1 - sqrt(3 tol))^-2, unless s_i or s_j is below
    floor / tol (the 3 tol also covers rounding). Rows are sorted by s, so
    only one contiguous band of columns can hold flagged pairs, and the
    elementwise test runs on that band alone.
    """
    s = prep.sqnorm
    q = (1.0 - np.sqrt(3.0 * _NEAR_DUPLICATE_TOL)) ** -2
    tiny = _DISTANCE_FLOOR / _NEAR_DUPLICATE_TOL
    s_lo, s_hi = s[rows.start], s[rows.stop - 1]
    lo = int(np.searchsorted(s, s_lo / q if s_lo >= tiny else 0.0, "left"))
    hi = int(np.searchsorted(s, max(s_hi * q, tiny), "right"))
    lo, hi = max(lo, cols.start), min(hi, cols.stop)
    if lo >= hi:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    half = _NEAR_DUPLICATE_TOL * s[rows] + 0.5 * _DISTANCE_FLOOR
    flagged = D2[:, lo - cols.start : hi - cols.start] <= (
        half[:, None] + (_NEAR_DUPLICATE_TOL * s[lo:hi] + 0.5 * _DISTANCE_FLOOR)
    )
    ii, jj = np.nonzero(flagged)
    return ii, jj + (lo - cols.start)


def _add_direct_pairs(prep, spec, gi, gj, acc):
    """Sum flagged pairs (sorted positions gi < gj) as g(t) g(t)^T.

    t comes from the original rows, through the same code as the reference
    path (_apply_sign), so near-duplicate and duplicate pairs (g(0) = 0) are
    exact.
    """
    if gi.size == 0:
        return
    diff = prep.X[prep.order[gj]] - prep.X[prep.order[gi]]
    G = _apply_sign(diff / np.sqrt(2.0), spec)
    acc.direct[...] += G.T @ G


def _combine(prep, parts):
    """S = Z^T D Z - Z^T W Z + direct pairs, reduced in a fixed order.

    ``cross`` holds each pair once (i < j), so Z^T W Z = cross + cross^T.
    """
    d = prep.left.shape[1] - 2
    degree = np.sum([p.degree for p in parts], axis=0)
    cross = np.sum([p.cross for p in parts], axis=0)
    direct = np.sum([p.direct for p in parts], axis=0)
    Z = prep.left[:, :d]
    weighted = np.zeros((d, d))
    for start in range(0, Z.shape[0], _PREPARE_CHUNK):  # Z^T D Z without an n x d temporary
        rows = slice(start, start + _PREPARE_CHUNK)
        weighted += Z[rows].T @ (degree[rows, None] * Z[rows])
    return weighted - cross - cross.T + direct
