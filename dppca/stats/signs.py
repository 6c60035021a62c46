"""Generalized spatial signs g(t) = xi(||t||) t/||t|| and their bounds (Kim & Jung 2025, Section 2).

The spherical sign (xi = 1), the winsorized sign (xi(s) = min(s, r)) and a user's xi, evaluated
without overflow or underflow; the weights of the pair sum of :mod:`dppca.stats.kendall`.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import numpy as np

from .._validation import DPPCAValueError, callable_arg, float_arg, int_arg
from .pair_statistics import clean_scores as finite_rows

SIGNS = ("spherical", "winsorized")


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
    spec = resolve_sign(sign, radius, xi, rows.shape[1])
    return apply_sign(rows, spec).reshape(T.shape)


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
    int_arg(d, "d", lower=1)
    if xi_bound is not None:
        if xi is not None:
            callable_arg(xi, "xi")
        return float_arg(xi_bound, "xi_bound", positive=True)
    if xi is not None:
        raise DPPCAValueError(
            "`xi_bound` is required when `xi` is given: a user scale "
            "function has no known bound"
        )
    spec = resolve_sign(sign, radius, None, int(d))
    return 1.0 if spec.kind == "spherical" else spec.radius


class SignSpec(NamedTuple):
    """A resolved spatial sign: kind, winsorization radius, scale function."""

    kind: str  # "spherical", "winsorized" or "custom"
    radius: Optional[float]
    xi: Callable


def resolve_sign(sign, radius, xi, d):
    """Check `sign`, `radius`, `xi` and return the matching SignSpec."""
    if not isinstance(sign, str) or sign not in SIGNS:
        raise DPPCAValueError(f"`sign` must be one of {SIGNS}; got {sign!r}")
    if radius is not None:
        radius = float_arg(radius, "radius", positive=True)
    if xi is not None:
        return SignSpec("custom", None, callable_arg(xi, "xi"))
    if sign == "spherical":
        return SignSpec("spherical", None, np.ones_like)
    r = float(np.sqrt(d)) if radius is None else radius
    return SignSpec("winsorized", r, lambda s: np.minimum(s, r))


#: Data with an entry above this are divided by 4 first, so that differences of rows and
#: centring at the medians cannot overflow (|x_i - x_j| <= DBL_MAX / 2).
_OVERFLOW_GUARD = np.finfo(np.float64).max / 4


def without_overflow(X, spec):
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
        spec = SignSpec("custom", None, lambda s: np.minimum(radius, _times_four(s, biggest)))
    elif spec.kind == "custom":
        user = spec.xi
        spec = SignSpec("custom", None, lambda s: user(_times_four(s, biggest)))
    return X / 4.0, spec


def _times_four(s, cap):
    with np.errstate(over="ignore"):
        return np.minimum(np.asarray(s, dtype=np.float64) * 4.0, cap)


def _evaluate_xi(spec, s):
    """xi(s) for norms s > 0, checked when the function is the user's."""
    v = spec.xi(s)
    if spec.kind != "custom":
        return v
    v = np.asarray(v, dtype=np.float64)
    if v.shape != s.shape or not np.all(np.isfinite(v)):
        raise DPPCAValueError(
            "`xi` must return finite values of the same shape as its input "
            f"(shape {s.shape}); got shape {v.shape}"
        )
    return v


def apply_sign(rows, spec):
    """g(t) = xi(||t||) t/||t|| for each row of a 2-D array; g(0) = 0.

    Each row is first divided by a power of two near its largest entry
    (exact), so the norm neither overflows nor underflows and the direction
    t/||t|| is formed from O(1) numbers.
    """
    scale = power_of_two_scale(np.max(np.abs(rows), axis=1, initial=0.0))
    scaled = rows / scale[:, None]
    lengths = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))  # ||t|| / scale
    G = np.zeros_like(rows)
    pos = lengths > 0
    xi = _evaluate_xi(spec, lengths[pos] * scale[pos])
    G[pos] = scaled[pos] * (xi / lengths[pos])[:, None]
    return G


def power_of_two_scale(big):
    """2^e with big / 2^e in [0.5, 2); 1 where big == 0; finite, never subnormal.

    Dividing by it is exact, and its reciprocal stays finite.
    """
    info = np.finfo(np.float64)
    exponent = np.clip(np.frexp(big)[1], info.minexp, info.maxexp - 1)
    return np.where(big > 0, np.ldexp(1.0, exponent), 1.0)


def pair_weights(sqdist, spec, scale, out):
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


def unit_scaled(rows: np.ndarray):
    """(rows / s, s, ||rows / s||) with s a power of two near each row's largest entry: the
    scaled rows have entries in [-2, 2], so their norms neither overflow nor underflow.

    s is :func:`power_of_two_scale` (its exponent clipped to the finite range: an entry
    >= 2^1023 gives s = 2^1023, not inf: dividing by inf would make the row 0 or NaN)."""
    big = np.max(np.abs(rows), axis=1, initial=0.0)
    scale = power_of_two_scale(big)
    unit = rows / scale[:, None]
    return unit, scale, np.sqrt(np.einsum("ij,ij->i", unit, unit))


def row_norms(rows: np.ndarray) -> np.ndarray:
    """Euclidean norm of each row (computed on scaled rows: +inf only when it exceeds DBL_MAX)."""
    unit, scale, length = unit_scaled(finite_rows(rows))
    with np.errstate(over="ignore"):
        return scale * length


def clip_rows(rows: np.ndarray, bound: float) -> np.ndarray:
    """Rows scaled to Euclidean norm at most ``bound`` (w min(1, bound/||w||)).

    Clipping by the norm is orthogonally equivariant (it is the winsorized spatial sign of
    Kim & Jung 2025, Section 2), so for elliptical rows the clipped second moment keeps the
    eigenvectors of the dispersion matrix.
    """
    rows = finite_rows(rows)
    unit, scale, length = unit_scaled(rows)
    with np.errstate(over="ignore"):
        keep = scale * length <= bound
    # A clipped row is its direction (from the scaled row: no overflow) times the bound.
    clipped = unit * (bound / np.where(length > 0, length, 1.0))[:, None]
    return np.where(keep[:, None], rows, clipped)


def spherise(rows: np.ndarray) -> np.ndarray:
    """Rows divided by their norm (the spatial sign); zero rows stay zero."""
    unit, _, length = unit_scaled(finite_rows(rows))
    return unit / np.where(length > 0, length, 1.0)[:, None]


__all__ = ["SIGNS", "SignSpec", "apply_sign", "clip_rows", "pair_weights", "power_of_two_scale",
           "resolve_sign", "row_norms", "sign_bound", "spatial_sign", "spherise", "unit_scaled",
           "without_overflow"]
