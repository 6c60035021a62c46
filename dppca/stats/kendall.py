"""Generalized spatial signs and the generalized multivariate Kendall's tau matrix.

The g-DPPCA mechanism of Kim & Jung (2025) releases the eigenvectors of a
noisy copy of

    K_g = 2/(n(n-1)) sum_{i<j} g((x_j - x_i)/sqrt2) g((x_j - x_i)/sqrt2)^T,

where g(t) = xi(||t||) t/||t|| is a bounded generalized spatial sign. This
module computes K_g exactly (to rounding) in O(n^2 d) time and O(n d) memory
by writing the pair sum as a weighted graph Laplacian, X^T (D - W) X, and evaluating
it tile by tile with BLAS (or, at small d, a fused numba kernel: ``fused_pairs``). Pairs of
(near-)duplicate rows, for which that identity cancels badly, are summed directly.

References
----------
Kim, M. and Jung, S. (2025). Robust and Differentially Private PCA for
non-Gaussian data. arXiv:2507.15232. Section 2: eq. for K_g and
Proposition 2.1.
"""

import functools
import itertools
from typing import NamedTuple

import numpy as np

from .._validation import int_arg
from .array_api_kendall import array_api_kendall_tau_matrix, is_foreign_array
from .blas_blocks import BlockScratch, accumulate_strip, block_shape, block_tasks
from .fused_pairs import fused_pair_sums, fused_parts, use_fused
from .signs import SIGNS, resolve_sign, sign_bound, spatial_sign, without_overflow
from .threads import available_cores, openblas_local_thread_setters, pinned_map, single_blas_thread
from .working_rows import PREPARE_CHUNK, working_rows

__all__ = [
    "SIGNS",
    "rounding_slack",
    "spatial_sign",
    "sign_bound",
    "kendall_tau_matrix",
]


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


def rounding_slack(rows: int, d: int) -> float:
    """Relative slack to add to the sensitivity of K_g for the engine's rounding.

    u = 2^-53, TOL = 1e-4 (near-duplicate rule above), G = sup ||g|| (pair terms' entries
    <= G^2). (i) Each pair's term has a relative error <= (d + 2) u / TOL per entry (its
    distance is one inner product of length d + 2, s_i + s_j - 2 z_i.z_j, in any order: one
    augmented GEMM, or a GEMM for z_i.z_j and the norms added by the weight pass).
    (ii) Summing: the engine sums the Laplacian pieces w_ij z_i z_i^T,
    w_ij z_j z_j^T, -w_ij z_i z_j^T, -w_ij z_j z_i^T, up to 1/TOL times the term they add up
    to. In one entry a non-flagged pair's pieces sum in absolute value to <= 2 w_ij
    (||z_i||^2 + ||z_j||^2) <= 2 G^2 / TOL (||z_i - z_j||^2 > TOL (||z_i||^2 + ||z_j||^2) and
    w_ij ||z_i - z_j||^2 = xi^2 <= G^2); flagged pairs add explicit terms <= G^2. Each piece
    passes through at most L = 2 rows + 16 additions (partners j of row i: <= rows; rows i:
    <= rows; blocks, strips, threads, products: 16). The BLAS form sums a row's partners
    within a block (GEMM, vector lanes), then over the blocks of its strip, and a block's
    column sums over its rows, then over the blocks: summation trees over the same <= rows
    nonzero terms (adding 0.0, the weight of a masked or flagged pair, is exact), so each
    term still passes through at most rows additions. So (Higham 2002, Lemma 3.1, eq. (4.4),
    any order) the sum's rounding is <= gamma_L = L u / (1 - L u) times the pieces' absolute
    sum: <= 2 gamma_L G^2 / TOL per entry of the normalised K. So each entry is within e G^2,
    e = ((d + 2) u + 2 gamma_L) / TOL, K within d e G^2 (Frobenius), and neighbours'
    computed K differ by at most the exact difference plus 2 d e G^2 |B| / n (|B|: the
    changed row's block, n if complete): against 2 sqrt(2) G^2 / n, a relative slack
    d e |B| / sqrt(2): 1.6e-3 at n = 5000, p = 20 ((i) alone 1.7e-6; (ii) grows as |B|^2).
    Both engines (BLAS, :mod:`~dppca.stats.fused_pairs`) do this arithmetic: it covers either.

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
    >>> bool(1e-3 < rounding_slack(5000, 20) < 2e-3)
    True
    """
    unit = np.finfo(np.float64).eps / 2
    depth = 2 * int(rows) + 16
    gamma = depth * unit / (1.0 - depth * unit)
    return d * ((d + 2) * unit + 2.0 * gamma) / _NEAR_DUPLICATE_TOL * rows / np.sqrt(2.0)


def kendall_tau_matrix(X, sign="spherical", radius=None, xi=None, *, tile=2048, engine=None):
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
        Most rows and columns per block of the pair matrix (the BLAS form also caps them:
        :func:`dppca.stats.blas_blocks.block_shape`). Memory is O(block + n d), never
        O(n^2); the result does not depend on `tile` beyond rounding.
    engine : {None, "blas", "fused", "array_api"}, optional
        None: the public rule :func:`dppca.stats.fused_pairs.use_fused` (fused numba kernel
        or BLAS), or "array_api" for a CuPy, PyTorch or other array-API array
        (:mod:`dppca.stats.array_api_kendall`, built-in signs). All do the same per-pair
        arithmetic: they agree to rounding and share :func:`rounding_slack`.

    Returns
    -------
    K : ndarray, shape (d, d)
        Symmetric, positive semi-definite; deterministic (a static split of the work over
        the cores: repeated calls on one machine agree bitwise).

    Raises
    ------
    ValueError
        For an unknown `sign`, a `radius` that is not finite and positive, a
        non-callable `xi`, a `tile` that is not a positive integer, an unknown
        `engine` ("fused" with a user `xi` or without numba), or `X` that is not
        2-D with at least 2 rows.

    Notes
    -----
    Kim & Jung (2025), Section 2, define

        K_g = 2/(n(n-1)) sum_{i<j} g(t_ij) g(t_ij)^T,  t_ij = (x_j - x_i)/sqrt2,

    whose noisy version is released by Proposition 2.1. With
    ``d_ij = ||x_i - x_j||``, ``r_ij = d_ij / sqrt2``, ``g(t_ij) g(t_ij)^T = w_ij (x_i - x_j)(x_i - x_j)^T`` with
    ``w_ij = xi(r_ij)^2 / d_ij^2`` (spherical: ``1/d_ij^2``; winsorized:
    ``min(radius^2/d_ij^2, 1/2)``). The Laplacian identity

        sum_{i<j} w_ij (x_i - x_j)(x_i - x_j)^T = X^T (D - W) X,

    with W the zero-diagonal weight matrix and D = diag(W 1), turns the
    O(n^2 d^2) pair sum into O(n^2 d) BLAS work. It is evaluated over
    cache-sized blocks W[I, J] of the pairs i < j (:mod:`dppca.stats.blas_blocks`),
    shared between the cores, using ``d_ij^2 = ||x_i||^2 + ||x_j||^2 - 2 x_i.x_j``.

    Numerics: K is translation invariant, so X is first centred at its
    column medians (robust to heavy tails and shifts) and divided by a power
    of two (exact; the radius stays in the original units). Rows are sorted
    by norm so that near-duplicate pairs, which must have nearly equal norms,
    lie in a narrow band of each block; there pairs with
    ``d_ij^2 <= 1e-4 (||x_i||^2 + ||x_j||^2)`` are removed from W and summed
    as ``g(t_ij) g(t_ij)^T`` from ``x_j - x_i`` of the original rows, as in
    :func:`kendall_tau_matrix_naive`; exact duplicates contribute 0
    (``g(0) = 0``). Other pairs lose at most ~4 of 16 digits to the Gram trick.
    """
    if engine == "array_api" or (engine is None and is_foreign_array(X)):
        return array_api_kendall_tau_matrix(X, sign, radius, xi, tile=tile, tol=_NEAR_DUPLICATE_TOL,
                                            floor=_DISTANCE_FLOOR)
    X = check_rows(X)
    tile = int_arg(tile, "tile", lower=1)
    n, d = X.shape
    spec = resolve_sign(sign, radius, xi, d)
    fused = use_fused(n, d, spec.kind) if engine is None else engine == "fused"
    if engine not in (None, "fused", "blas") or (fused and not use_fused(n, 2, spec.kind)):
        raise ValueError(f"`engine` must be None, 'blas', 'fused' (built-in signs, numba "
                         f"installed) or 'array_api'; got {engine!r}")
    X, spec = without_overflow(X, spec)  # near DBL_MAX: a Python xi, so the BLAS form (the
    fused = fused and spec.kind != "custom"  # engine changes only rounding, covered by the slack)
    # BLAS on one thread throughout: a threaded product (e.g. the final Z^T D Z) leaves OpenBLAS's
    # pthreads spinning on a core for a while, which the fused kernel's threads need (n = 5,000,
    # p = 20, back-to-back calls: 37 ms wall and 73 ms CPU without, 21-26 ms and 37 ms with).
    with single_blas_thread():
        return normalise_pair_sum(pair_sum(working_rows(X), spec, fused, tile), n)


def pair_sum(prep, spec, fused, tile=2048, threads=True):
    """The unnormalised pair sum ``sum_{i<j} g(t_ij) g(t_ij)^T`` (d, d) of prepared rows.

    ``prep``: :func:`dppca.stats.working_rows.working_rows` of the rows; ``spec``: their
    sign (:func:`dppca.stats.signs.resolve_sign`, after ``without_overflow``); ``fused``: the
    engine. ``threads=False`` keeps the work on the calling thread (the blocks of an
    incomplete design are spread over the cores one level up).
    """
    if not fused:
        return _combine(prep, _accumulate_in_parallel(prep, spec, prep.left.shape[0], tile, threads))
    if threads:
        return _combine(prep, [_Accumulator(*part) for part in fused_parts(
            prep.left, prep.X, prep.order, spec.kind, spec.radius, prep.scale,
            _NEAR_DUPLICATE_TOL, _DISTANCE_FLOOR)])
    return laplacian_sum(prep.left[:, :-2], *_fused_sums(prep, spec))


def pair_sums_of_blocks(blocks, spec, fused):
    """:func:`pair_sum` of each block of a :class:`~dppca.stats.working_rows.WorkingBlocks`
    batch, on the calling thread: shape (g, d, d). The fused engine's sums of the blocks are
    combined in one stacked product; each block's arithmetic is that of :func:`pair_sum`."""
    g, b, d = blocks.X.shape
    if not fused:
        return np.stack([pair_sum(blocks.block(k), spec, False, threads=False) for k in range(g)])
    degree, cross, direct = np.empty((g, b)), np.empty((g, d, d)), np.empty((g, d, d))
    for k in range(g):
        degree[k], cross[k], direct[k] = _fused_sums(blocks.block(k), spec)
    return laplacian_sum(blocks.left[..., :d], degree, cross, direct)


def _fused_sums(prep, spec):
    """(degree, cross, direct) of the fused kernel over all pairs, on this thread."""
    return fused_pair_sums(prep.left, prep.X, prep.order, spec.kind, spec.radius, prep.scale,
                           _NEAR_DUPLICATE_TOL, _DISTANCE_FLOOR)


# ---------------------------------------------------------------------------
# Argument handling and the scale function xi
# ---------------------------------------------------------------------------


def check_rows(X):
    """Light shape check; finiteness is the caller's job (already validated)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"`X` must be 2-D with at least 2 rows; got shape {X.shape}")
    return X


def normalise_pair_sum(S, n):
    """2/(n(n-1)) S, symmetrised (the accumulations are not bitwise symmetric); S may be a stack."""
    K = S * (2.0 / (n * (n - 1.0)))
    return (K + np.swapaxes(K, -1, -2)) / 2.0


# ---------------------------------------------------------------------------
# The tiled Laplacian evaluation
# ---------------------------------------------------------------------------


#: Below this many rows the pair work (~n^2 d / 2) takes less time than starting threads
#: (~0.5 ms each), so one thread does it; blocks of incomplete designs are spread over the
#: cores one level up instead (:func:`dppca.stats.pair_design.sum_block_kendall`).
_PARALLEL_MIN_ROWS = 1024


class _Accumulator(NamedTuple):
    degree: np.ndarray  # (n,) sums of w_ij over the pairs seen, for both ends
    cross: np.ndarray  # (d, d) sum of w_ij z_i z_j^T over the pairs seen, i < j
    direct: np.ndarray  # (d, d) pair sum of the near-duplicate pairs


def _accumulate_in_parallel(prep, spec, n, tile, threads=True):
    """Share the blocks over the cores (``threads``); one accumulator per worker thread."""
    setters = openblas_local_thread_setters()
    height, width = block_shape(n, tile)
    # A user xi runs on the calling thread: it may be an R function (reticulate aborts R
    # when R code runs on another thread) or other code that is not thread-safe.
    parallel = threads and setters and n >= _PARALLEL_MIN_ROWS and spec.kind != "custom"
    workers = min(available_cores(), -(-n // height)) if parallel else 1
    # Static round-robin split plus a fixed reduction order: deterministic.
    chunks = [block_tasks(n, height, width, k, workers) for k in range(workers)]
    # BLAS on one thread also with one worker: threaded BLAS on small blocks stalls under load
    return pinned_map(functools.partial(_accumulate_blocks, prep, spec, height, width), chunks)


def _accumulate_blocks(prep, spec, height, width, tasks):
    """Accumulate the Laplacian pieces of the given blocks (:mod:`dppca.stats.blas_blocks`)."""
    n, d = prep.left.shape[0], prep.left.shape[1] - 2
    acc = _Accumulator(np.zeros(n), np.zeros((d, d)), np.zeros((d, d)))
    scratch = BlockScratch(prep, height, width)
    for rows, blocks in itertools.groupby(tasks, key=lambda task: task[0]):
        accumulate_strip(prep, spec, rows, (cols for _, cols in blocks), _NEAR_DUPLICATE_TOL,
                         _DISTANCE_FLOOR, scratch, acc)
    return acc


def _combine(prep, parts):
    """S of one set of rows from its accumulators, reduced in a fixed order."""
    d = prep.left.shape[1] - 2
    degree = np.sum([p.degree for p in parts], axis=0)
    cross = np.sum([p.cross for p in parts], axis=0)
    direct = np.sum([p.direct for p in parts], axis=0)
    return laplacian_sum(prep.left[:, :d], degree, cross, direct)


@np.errstate(invalid="ignore", over="ignore")  # finite rows cannot warn; dask refuses NaN later
def laplacian_sum(Z, degree, cross, direct):
    """S = Z^T D Z - Z^T W Z + direct pairs, of one block or of a stack (leading axis).

    ``cross`` holds each pair once (i < j), so Z^T W Z = cross + cross^T.
    """
    weighted = np.zeros(cross.shape)
    for start in range(0, Z.shape[-2], PREPARE_CHUNK):  # Z^T D Z without an n x d temporary
        rows = slice(start, start + PREPARE_CHUNK)
        weighted += np.swapaxes(Z[..., rows, :], -1, -2) @ (degree[..., rows, None] * Z[..., rows, :])
    return weighted - cross - np.swapaxes(cross, -1, -2) + direct
