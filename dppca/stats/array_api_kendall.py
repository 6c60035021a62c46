"""The Kendall engine written against the Python array API standard (numpy, CuPy, PyTorch, ...).

:func:`array_api_kendall_tau_matrix` computes the generalized Kendall's tau matrix K_g of
:func:`dppca.stats.kendall.kendall_tau_matrix` with the array library of its input, through
``array-api-compat``: a CuPy array or a CUDA torch tensor is reduced on its GPU, an
``array-api-strict`` array (the test suite's stand-in for "any conforming library") or a
numpy array on the CPU. Only the p x p pair sum comes back to the host, where the exact
samplers of :mod:`dppca.privacy` draw the noise; no randomness is drawn on the device.

The per-pair arithmetic is that of the BLAS form: the Gram distance
``s_i + s_j - 2 z_i.z_j`` from one GEMM of the augmented factors ``[-2 z, s, 1]`` and
``[z, 1, s]``, the near-duplicate rule ``d^2 <= tol s_i + tol s_j + floor`` (pairs flagged by it
are summed from their explicit differences of the original rows, on the host, through
:func:`dppca.stats.signs.apply_sign`), the weights ``scale^2 w_ij`` of
:func:`dppca.stats.signs.pair_weights`, and the Laplacian pieces ``Z^T D Z - Z^T W Z``.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError
from .signs import apply_sign, resolve_sign

__all__ = ["array_api_kendall_tau_matrix", "is_foreign_array", "take_rows", "to_numpy"]

#: Entries above this are divided by 4 first (as in :func:`dppca.stats.signs.without_overflow`),
#: so centring and differences cannot overflow.
_OVERFLOW_GUARD = np.finfo(np.float64).max / 4


def is_foreign_array(X) -> bool:
    """Whether `X` is an array of another array-API library (not numpy, not dask, not a list).

    Such input goes to :func:`array_api_kendall_tau_matrix` when
    :func:`dppca.stats.kendall.kendall_tau_matrix` is called with ``engine=None``. Imports
    ``array-api-compat`` only for objects that are not numpy arrays, lists or tuples.

    Parameters
    ----------
    X : object
        Any input.

    Returns
    -------
    bool
        True for CuPy, PyTorch, JAX and other array-API arrays (``__array_namespace__``),
        False for numpy and dask arrays, pandas objects, lists and tuples.

    Examples
    --------
    >>> import numpy as np
    >>> is_foreign_array(np.zeros((3, 2)))
    False
    """
    if isinstance(X, (np.ndarray, list, tuple)) or type(X).__module__.startswith(("dask", "pandas")):
        return False
    import array_api_compat as compat

    return bool(compat.is_torch_array(X) or compat.is_cupy_array(X) or compat.is_jax_array(X)
                or hasattr(type(X), "__array_namespace__"))


def to_numpy(x) -> np.ndarray:
    """A float64 numpy copy of an array of any array-API library (device memory copied to the host).

    Parameters
    ----------
    x : array
        numpy, CuPy, PyTorch (any device) or another array supporting DLPack on the CPU.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> to_numpy(np.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if isinstance(x, np.ndarray):
        return np.asarray(x, dtype=np.float64)
    import array_api_compat as compat

    if compat.is_cupy_array(x):
        return np.asarray(x.get(), dtype=np.float64)
    if compat.is_torch_array(x):
        return np.asarray(x.detach().cpu().numpy(), dtype=np.float64)
    return np.asarray(np.from_dlpack(x), dtype=np.float64)


def take_rows(X, index):
    """``X[index]`` for a numpy array or an array of another array-API library (on its device).

    Parameters
    ----------
    X : array, shape (n, d)
    index : ndarray of int, shape (m,)
        Row numbers (a numpy array: public, e.g. a block of a random design).

    Returns
    -------
    array, shape (m, d)
        Of the library and device of `X`.

    Examples
    --------
    >>> take_rows(np.arange(6.0).reshape(3, 2), np.array([2, 0])).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    if not is_foreign_array(X):
        return X[index]
    import array_api_compat as compat

    xp = compat.array_namespace(X)
    return xp.take(X, xp.asarray(np.asarray(index, dtype=np.int64), device=compat.device(X)), axis=0)


def array_api_kendall_tau_matrix(X, sign="spherical", radius=None, xi=None, *, tile=2048,
                                 tol=1e-4, floor=np.finfo(np.float64).tiny / np.finfo(np.float64).eps):
    """Generalized multivariate Kendall's tau matrix computed with the array library of `X`.

    Parameters
    ----------
    X : array, shape (n, d)
        Data of any array-API library (numpy, CuPy, PyTorch, array-api-strict, ...); finite
        (the caller's check), n >= 2. Computed in float64 on the array's own device.
    sign : {"spherical", "winsorized"}, default "spherical"
        Built-in generalized spatial sign, as in :func:`dppca.stats.kendall.spatial_sign`.
    radius : float, optional
        Winsorization radius in the units of `X`; defaults to ``sqrt(d)``.
    xi : None
        A user scale function runs numpy code: not supported here (pass a numpy array).
    tile : int, default 2048
        Rows per tile: the device holds a tile x tile block of the pair matrix at a time.
    tol, floor : float
        The near-duplicate rule of :mod:`dppca.stats.kendall` (its values are passed by
        :func:`dppca.stats.kendall.kendall_tau_matrix`).

    Returns
    -------
    K : ndarray, shape (d, d)
        A numpy array (on the host): symmetric, positive semi-definite; equal to the numpy
        engines' result up to rounding.

    Raises
    ------
    DPPCAValueError
        If `xi` is given, `X` is not 2-D with at least 2 rows, or `tile` is not a positive
        integer; for an unknown `sign` or a bad `radius` (as the numpy engines).

    Notes
    -----
    Kim & Jung (2025), Section 2: K_g = 2/(n(n-1)) sum_{i<j} g(t_ij) g(t_ij)^T, released
    with Frobenius sensitivity 2 sqrt(2) G^2 / n (Proposition 2.1; proof in
    :func:`dppca.methods.gdppca.gdppca_directions`). This engine evaluates the same
    Laplacian identity as the BLAS form, over square tiles (I, J), I <= J, j > i inside the
    diagonal tiles, with the rows sorted by norm so that only tiles whose norm ranges
    overlap (within a factor 1.04) are tested for near duplicates, as in the BLAS form.

    Privacy in floating point: :func:`dppca.stats.kendall.rounding_slack` covers this
    engine, by the same argument as the BLAS form. (i) Every pair outside the computed
    near-duplicate set satisfies ``d^2 > tol (s_i + s_j)`` with the *computed* Gram
    distance, and a GEMM's error is at most (d + 2) u (s_i + s_j) whatever its summation
    order, blocking or fused multiply-adds (cuBLAS, torch, MKL alike; the data are float64,
    so no TF32 or other reduced-precision mode applies), so the pair's term has relative
    error <= (d + 2) u / tol, as there. (ii) Flagged pairs are summed by
    :func:`dppca.stats.signs.apply_sign` on the host from explicit differences of the
    original rows (exactly as the BLAS form); which pairs are flagged may differ from the
    numpy engines by rounding, but each path is within the bound. (iii) The weights use
    the formulas of :func:`dppca.stats.signs.pair_weights` (spherical ``1/d^2``;
    winsorized ``(scale rho)^2 / max(d^2, 2 rho^2)``). (iv) The centre (column medians, a
    translation: K is invariant) and the power-of-two scale are exact or per-data-set
    choices that the bound does not depend on. Data above DBL_MAX / 4 are divided by 4
    (exact for normal numbers); the winsorized sign is then computed with radius r / 4 and
    multiplied by 16 (exact): the same K in exact arithmetic. Which library or device runs changes rounding only.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> K = array_api_kendall_tau_matrix(X)
    >>> round(float(np.trace(K)), 12)
    1.0
    """
    import array_api_compat as compat

    if xi is not None:
        raise DPPCAValueError("`xi` (a user scale function) needs numpy input: the array-API "
                              "engine supports sign='spherical' or 'winsorized'")
    if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)) or tile < 1:
        raise DPPCAValueError(f"`tile` must be a positive integer; got {tile!r}")
    xp = compat.array_namespace(X)
    X = xp.asarray(X, dtype=xp.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise DPPCAValueError(f"`X` must be 2-D with at least 2 rows; got shape {tuple(X.shape)}")
    n, d = X.shape
    spec = resolve_sign(sign, radius, None, d)
    factor = 1.0
    if float(xp.max(xp.abs(X))) > _OVERFLOW_GUARD:  # K = 16 K_{r/4}(X / 4), exactly
        X = X / 4.0
        if spec.kind == "winsorized":  # g(t) = 4 g_{r/4}(t / 4); the spherical sign is scale-free
            spec, factor = resolve_sign(sign, spec.radius / 4.0, None, d), 16.0
    S = _pair_sum(xp, X, spec, int(tile), float(tol), float(floor))
    K = S * (factor * 2.0 / (n * (n - 1.0)))
    return (K + K.T) / 2.0


def _pair_sum(xp, X, spec, tile, tol, floor):
    """sum_{i<j} g(t_ij) g(t_ij)^T on the host (numpy, shape (d, d)), computed with xp."""
    n, d = X.shape
    device = _device(X)
    Xs = xp.sort(X, axis=0)
    median = (Xs[(n - 1) // 2, :] + Xs[n // 2, :]) / 2.0
    big = max(float(xp.max(xp.abs(Xs[-1, :] - median))), float(xp.max(xp.abs(Xs[0, :] - median))))
    scale = math.ldexp(1.0, min(max(math.frexp(big)[1], -1021), 1023)) if big > 0 else 1.0
    Z = (X - median) * (1.0 / scale)  # exact: a power of two
    sq = xp.sum(Z * Z, axis=1)
    # Rows sorted by squared norm, as in the BLAS form: near duplicates have nearly equal
    # norms, so most tiles provably hold none and skip the test (_may_hold_near_duplicates).
    order = xp.argsort(sq)
    X, Z, sq = xp.take(X, order, axis=0), xp.take(Z, order, axis=0), xp.take(sq, order)
    sq_host = to_numpy(sq)
    ones = xp.ones((n, 1), dtype=xp.float64, device=device)
    left = xp.concat([Z, ones, sq[:, None]], axis=1)  # [z, 1, s]
    right = xp.concat([-2.0 * Z, sq[:, None], ones], axis=1)  # [-2 z, s, 1]
    starts = list(range(0, n, tile))
    degree = [xp.zeros((min(tile, n - a),), dtype=xp.float64, device=device) for a in starts]
    cross = xp.zeros((d, d), dtype=xp.float64, device=device)
    direct = np.zeros((d, d))
    for bi, a in enumerate(starts):
        rows = slice(a, min(a + tile, n))
        for bj in range(bi, len(starts)):
            b = starts[bj]
            cols = slice(b, min(b + tile, n))
            D2 = right[rows, :] @ xp.matrix_transpose(left[cols, :])  # s_i + s_j - 2 z_i.z_j
            if bi != bj and not _may_hold_near_duplicates(sq_host, rows, cols, tol, floor):
                W = _weights(xp, D2, spec, scale)  # every D2 > tol (s_i + s_j) + floor > 0
            else:
                near = D2 <= (tol * sq[rows] + 0.5 * floor)[:, None] + (tol * sq[cols] + 0.5 * floor)[None, :]
                keep = xp.logical_not(near)
                if bi == bj:  # a diagonal tile holds each pair twice: keep j > i
                    index = xp.arange(D2.shape[0], device=device)
                    keep = xp.logical_and(keep, index[:, None] < index[None, :])
                    near = xp.logical_and(near, index[:, None] < index[None, :])
                W = xp.where(keep, _weights(xp, xp.where(keep, D2, 1.0), spec, scale), 0.0)
                direct += _direct_pairs(xp, X, near, a, b, spec)
            P = W @ left[cols, : d + 1]  # [W Z_J, W 1]
            degree[bi] = degree[bi] + P[:, d]
            degree[bj] = degree[bj] + xp.sum(W, axis=0)
            cross = cross + xp.matrix_transpose(Z[rows, :]) @ P[:, :d]
    weighted = xp.zeros((d, d), dtype=xp.float64, device=device)
    for a, deg in zip(starts, degree):
        Zb = Z[a:a + deg.shape[0], :]
        weighted = weighted + xp.matrix_transpose(Zb) @ (deg[:, None] * Zb)
    S = to_numpy(weighted - cross - xp.matrix_transpose(cross))
    return S + direct


def _may_hold_near_duplicates(sq, rows, cols, tol, floor):
    """False when no pair of the tile can be flagged (the BLAS form's band argument).

    A flagged pair has d^2 <= tol (s_i + s_j) + floor, and (sqrt(s_i) - sqrt(s_j))^2 <= d^2
    forces s_j into [s_i / q, s_i q], q = (1 - sqrt(3 tol))^-2 (3 tol covers the rounding),
    unless a squared norm is below floor / tol. Rows are sorted by s (host copy ``sq``).
    """
    q = (1.0 - math.sqrt(3.0 * tol)) ** -2
    tiny = floor / tol
    s_lo, s_hi = sq[rows.start], sq[rows.stop - 1]
    lower = s_lo / q if s_lo >= tiny else 0.0
    upper = max(s_hi * q, tiny)
    return bool(sq[cols.start] <= upper and sq[cols.stop - 1] >= lower)


def _weights(xp, D2, spec, scale):
    """``scale^2 w_ij`` from squared distances in working units (signs.pair_weights' formulas)."""
    if spec.kind == "spherical":
        return 1.0 / D2
    rho = min(spec.radius / scale, 1e150)
    return ((scale * rho) * (scale * rho)) / xp.maximum(D2, 2.0 * rho * rho)


def _direct_pairs(xp, X, near, a, b, spec):
    """Host sum of g(t) g(t)^T over a tile's flagged pairs, t = (x_j - x_i)/sqrt2 (apply_sign)."""
    if not bool(xp.any(near)):
        return 0.0
    ii, jj = xp.nonzero(near)
    diff = to_numpy(xp.take(X, jj + b, axis=0) - xp.take(X, ii + a, axis=0))
    G = apply_sign(diff / np.sqrt(2.0), spec)
    return G.T @ G


def _device(X):
    import array_api_compat as compat

    return compat.device(X)
