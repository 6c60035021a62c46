"""Noise samplers: the one place where the package draws privacy noise, safe in floating point.

Why
---
Adding ``numpy`` Laplace or Gaussian draws to a float statistic is open to Mironov's (2012)
floating-point attack: the set of floats that ``x + noise`` can take depends on ``x`` (the
noise is computed from a 53-bit uniform through ``log``/ziggurat tables, so it has gaps, and
the sum keeps the low bits of ``x``), so the low-order bits of a release can identify the
input exactly although the textbook proof holds in real arithmetic.

What (the default, ``"exact"`` sampler)
---------------------------------------
A release of a statistic ``x`` (m coordinates, sensitivity ``Delta``) is

    y = fl( gamma * (round(x / gamma) + k) ),       k integer noise drawn exactly,

with ``gamma`` a power of two far below the noise scale (2^-46 sigma for the Gaussian,
2^-40 b for the Laplace). Every step is exact in floating point: dividing by and
multiplying with a power of two is exact, ``round`` is exact, ``gamma * k`` is exact for
|k| < 2^53, and the final addition is a single correctly rounded IEEE operation of the exact
real ``gamma * (round(x/gamma) + k)``, i.e. a post-processing of the integer release
``round(x/gamma) + k`` (rare |k| >= 2^53 are summed exactly with ``fractions``).

* Gaussian: k has the *rounded Gaussian* law R(k) = P(round(s Z) = k), Z ~ N(0, 1),
  s = sigma'/gamma >= 2^46. Then ``round(x/gamma) + k = round(round(x/gamma) + s Z)`` is a
  post-processing of the continuous Gaussian mechanism on the integer vector
  a = round(x/gamma), whose L2 sensitivity is at most Delta/gamma + sqrt(m) (each coordinate
  that changes moves by at most one more grid step through rounding). With
  sigma' = sigma (1 + sqrt(m) gamma / Delta) the ratio sensitivity / noise is exactly the
  caller's Delta / sigma, so every calibration that depends on that ratio alone (Balle &
  Wang's analytic one, the classic one, mu-GDP) gives the caller's guarantee unchanged.
* Laplace: k has the discrete Laplace law P(k) proportional to exp(-|k| / t), t an integer
  with t gamma >= b' = b (1 + m gamma / Delta_1). The ratio P(k) / P(k + d) <= exp(|d| / t) for
  integer shifts, so the release of a (L1 sensitivity Delta_1/gamma + m) is
  (Delta_1 + m gamma)/(t gamma) <= Delta_1 / b = eps -DP (Canonne, Kamath & Steinke 2020, §2).

Exact sampling, vectorised and seeded by the numpy Generator (:mod:`dppca.privacy.discrete`)
-------------------------------------------------------------------------------------------
Canonne, Kamath & Steinke (2020), Algorithms 2 and 3: a discrete Laplace from a uniform
integer U < t, Bernoulli(exp(-U/t)) and a geometric count of Bernoulli(exp(-1)), then a
rejection step to the target. Every Bernoulli(p) is decided exactly by comparing a 64-bit
uniform integer with a float estimate p_hat whose error is rigorously below
2^-30 p_hat + 2^-1000 (a few correctly-rounded operations and one ``exp``, each within
2^-50 relative); a draw that falls inside that band (probability about 2^-29) is decided
again with more random bits against p computed by ``mpmath`` at 384+ bits, extended until
decided. So the draws follow the target law exactly, all randomness comes from ``rng``
(same seed, same output), and the common path is a few numpy calls per batch. The
Gaussian rejection step targets R(k) directly: acceptance R(k) / (M L(k)) with L the
discrete Laplace of scale t = floor(s) + 1 and the envelope
M = (1 + q) exp(s^2/(2 t^2) + 1/(2t)) / ((1 - q) s sqrt(2 pi)), q = exp(-1/t), valid because
R(k) <= phi((|k| - 1/2)_+ / s) / s; its float estimate exp(-(|k| - s^2/t)^2/(2 s^2) - 1/(2t))
differs from it by a factor within 2^-70 of 1 for |k| <= 40 s, and both are below 2^-1000
beyond.

The dimension of a release is public: the slack, hence the released noise scale (and any
threshold built on it), is computed from a public number of coordinates m, the ``dimension``
argument where a caller noises a data-dependent subset of a public grid (the sparse histogram's
non-empty cells), else the size of the value, which is then public (p, k, a grid). A scale
computed from the size of a data-dependent subset would itself release that size.

Noise only: ``gaussian_noise``, ``laplace_noise``, ``exponential_noise`` and ``gumbel_noise``
are plain numpy draws for noise that is never released as a float (comparisons of the sparse
vector technique, the exponential mechanism's argmax, a stable histogram's winning bin: only
an index leaves, so the low-bit attack has nothing to read); the smooth-sensitivity release,
whose scale is data-dependent, uses public grids (:mod:`dppca.privacy.smooth`). Grid-valued noise
added to an unsnapped float would be worse than numpy noise (the sum keeps the float's low
bits exactly), so every released statistic goes through ``add_*`` or ``GaussianSteps``.

``set_sampler("numpy")`` (or ``with use_sampler("numpy"):``) switches to plain numpy draws,
kept for comparison and NOT floating-point safe. Cost (``benchmarks/bench_samplers.py``, 2
shared cores): one symmetric 20 x 20 release takes about 0.25 ms instead of 0.02 ms, a
200 x 200 one 13-25 ms instead of 0.5 ms; a whole ``dp_pc_dir`` at n = 5000, d = 20 (about
0.2 s) changes by less than its run-to-run spread (the extra is ~0.1% of the call), far
under the 2x that would have made the safe sampler an option rather than the default.

References
----------
Mironov, I. (2012). On significance of the least significant bits for differential privacy. CCS.
Canonne, C., Kamath, G. and Steinke, T. (2020). The discrete Gaussian for differential
privacy. NeurIPS (arXiv:2004.00010), Algorithms 1-3.
Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for differential privacy.
"""
from __future__ import annotations

import contextlib
import math
from fractions import Fraction

import numpy as np

from .discrete import discrete_gaussian, discrete_laplace

__all__ = ["GaussianSteps", "MAX_RELEASE_SIZE", "SAMPLERS", "add_gaussian_noise", "add_laplace_noise",
           "add_symmetric_gaussian_noise", "discrete_gaussian", "discrete_laplace",
           "exponential_noise", "gaussian_noise", "grid_width", "gumbel_noise", "laplace_noise",
           "release_dimension", "set_sampler", "snap", "use_sampler"]

#: Gaussian grid: gamma = 2^(floor(log2 sigma) - 46), so s = sigma / gamma is in [2^46, 2^47).
GAUSSIAN_GRID_BITS = 46
#: Laplace grid: gamma = 2^(floor(log2 b) - 40); heavier tails need more headroom below 2^53.
LAPLACE_GRID_BITS = 40
#: Largest number of coordinates of one release (a public limit of the sampler).
MAX_RELEASE_SIZE = 2 ** 30
SAMPLERS = ("exact", "numpy")
_STATE = {"sampler": "exact"}
_EXACT_INT = 2 ** 53


# ----------------------------------------------------------------------------- choice of sampler

def set_sampler(name: str) -> None:
    """Choose the sampler of every later release: ``"exact"`` (default, floating-point safe) or
    ``"numpy"`` (plain numpy draws, NOT safe against Mironov's attack; for comparisons).

    Raises
    ------
    ValueError
        For another name.

    Examples
    --------
    >>> set_sampler("exact")
    """
    if name not in SAMPLERS:
        raise ValueError(f"`sampler` must be one of {SAMPLERS}; got {name!r}")
    _STATE["sampler"] = name


@contextlib.contextmanager
def use_sampler(name: str):
    """Context manager: draw with sampler ``name`` inside the block, restore the previous one.

    Examples
    --------
    >>> import numpy as np
    >>> with use_sampler("numpy"):
    ...     old = add_gaussian_noise(0.0, 1.0, 1.0, np.random.default_rng(0))[0]
    >>> float(old) == np.random.default_rng(0).normal()
    True
    """
    previous = _STATE["sampler"]
    set_sampler(name)
    try:
        yield
    finally:
        _STATE["sampler"] = previous


def is_exact() -> bool:
    return _STATE["sampler"] == "exact"


# ----------------------------------------------------------------------------- grid

def grid_width(scale: float, bits: int = GAUSSIAN_GRID_BITS) -> float:
    """The power of two 2^(floor(log2 scale) - bits), so that scale / gamma is in [2^bits, 2^(bits+1)).

    Examples
    --------
    >>> grid_width(1.5, 10) == 2.0 ** -10
    True
    """
    scale = float(scale)
    if not (math.isfinite(scale) and scale >= 2.0 ** -900):
        raise ValueError(f"noise scale must be finite and at least 2^-900; got {scale!r}")
    return math.ldexp(1.0, math.frexp(scale)[1] - 1 - bits)


def snap(value, gamma: float) -> np.ndarray:
    """Round each entry to the nearest multiple of the power of two ``gamma`` (ties to even), exactly.

    Entries with |x| >= 2^52 gamma are multiples of gamma already; non-finite entries pass through.

    Examples
    --------
    >>> snap([0.3, -1.2], 0.25)
    array([ 0.25, -1.25])
    """
    value = np.asarray(value, dtype=float)
    small = np.abs(value) < 2.0 ** 52 * gamma
    scaled = np.divide(value, gamma, out=np.zeros_like(value), where=small)
    return np.where(small, np.rint(scaled) * gamma, value)


def _check_size(shape) -> int:
    m = int(np.prod(shape, dtype=np.int64)) if shape is not None else 1
    if m > MAX_RELEASE_SIZE:
        raise ValueError(f"a release has at most {MAX_RELEASE_SIZE} coordinates; got {m}")
    return m


def release_dimension(shape, dimension=None) -> int:
    """The number of coordinates m a release's snapping slack is computed from: a public number.

    The slack (sqrt(m) gamma, m gamma) is part of the released noise scale, so m must be a
    public fact: ``dimension`` when the caller gives it (e.g. the number of cells of a grid of
    which only a data-dependent subset is noised), else the size of ``shape``, which the
    caller then vouches is public (p, k, a grid). Never the size of a data-dependent subset.

    Raises
    ------
    ValueError
        ``dimension`` smaller than the number of coordinates of ``shape`` (a caller's bug, not
        data: a subset of a public grid is never larger than the grid), or above 2^30.

    Examples
    --------
    >>> release_dimension((3, 4)), release_dimension((2,), dimension=12)
    (12, 12)
    """
    m = _check_size(shape)
    if dimension is None:
        return m
    public = _check_size((int(dimension),))
    if public < m:
        raise ValueError(f"`dimension` ({public}) must bound the number of coordinates released ({m})")
    return public


def exact_sum(snapped: np.ndarray, k: np.ndarray, gamma: float) -> np.ndarray:
    """fl(snapped + k gamma), the correctly rounded exact sum (snapped on the gamma grid)."""
    k = np.asarray(k)
    if k.dtype != object and np.all(np.abs(k) < _EXACT_INT):
        return snapped + k.astype(float) * gamma
    out = np.empty(snapped.shape, dtype=float)
    for idx in np.ndindex(snapped.shape):
        v = snapped[idx]
        out[idx] = v if not math.isfinite(v) else float(Fraction(v) + int(k[idx]) * Fraction(gamma))
    return out


# ----------------------------------------------------------------------------- noise and releases

def gaussian_noise(sigma: float, size, rng: np.random.Generator) -> np.ndarray:
    """N(0, sigma^2) numpy draws of shape ``size`` (``None`` for a scalar). NOT floating-point safe.

    Noise only, for callers whose noisy values are never released (comparisons, argmax) or
    whose scale is data-dependent (no fixed grid exists). Release a statistic with
    :func:`add_gaussian_noise`, which snaps it to the noise grid; grid-valued noise added to an
    unsnapped float would expose the float's low bits exactly.
    """
    return rng.normal(0.0, sigma, size=size)


def laplace_noise(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Laplace(0, scale) numpy draws of shape ``size``. NOT floating-point safe (see
    :func:`gaussian_noise`); release a statistic with :func:`add_laplace_noise`."""
    return rng.laplace(0.0, scale, size=size)


def _inflated(scale: float, slack: float, sensitivity: float) -> float:
    """scale (1 + slack / sensitivity), rounded up (so the sensitivity-to-noise ratio never grows)."""
    if not (math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"`sensitivity` must be finite and positive; got {sensitivity!r}")
    return scale * (1.0 + slack / sensitivity) * (1.0 + 2.0 ** -50)


def add_gaussian_noise(value, sigma: float, sensitivity: float, rng: np.random.Generator, *,
                       dimension: int | None = None):
    """Release ``value`` with Gaussian noise, safe in floating point (module docstring).

    Parameters
    ----------
    value : float or ndarray
        The statistic, any shape (m coordinates).
    sigma : float
        Noise standard deviation calibrated by the caller for L2 sensitivity ``sensitivity``.
    sensitivity : float
        The statistic's L2 sensitivity Delta (> 0), in its units.
    rng : numpy.random.Generator
    dimension : int, optional
        Public number of coordinates m (:func:`release_dimension`); default: the size of
        ``value``, which must then be public.

    Returns
    -------
    (noisy, sigma_used)
        ``noisy`` has the shape of ``value``; ``sigma_used`` = sigma (1 + sqrt(m) gamma / Delta)
        (relative increase below 2^-40 for realistic budgets) absorbs the snapping, so the
        release has the caller's (eps, delta) exactly.

    Raises
    ------
    ValueError
        For a non-positive sensitivity, a sigma below 2^-900 or more than 2^30 coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> noisy, sigma = add_gaussian_noise([1.0, 2.0], 0.5, 0.1, np.random.default_rng(0))
    >>> noisy.shape, 0.5 < sigma < 0.5 * (1 + 1e-12)
    ((2,), True)
    """
    value = np.asarray(value, dtype=float)
    m = release_dimension(value.shape, dimension)
    if not is_exact():
        return value + rng.normal(0.0, sigma, size=value.shape), float(sigma)
    gamma = grid_width(sigma)
    used = _inflated(sigma, math.sqrt(m) * gamma, sensitivity)
    k = discrete_gaussian(used / gamma, value.size, rng).reshape(value.shape)
    return exact_sum(snap(value, gamma), k, gamma), used


class GaussianSteps:
    """Pre-drawn noise for T Gaussian releases of the same shape (iterative algorithms).

    ``GaussianSteps(sigma, sensitivity, (T, *shape), rng).add(t, value)`` releases the t-th
    statistic exactly as :func:`add_gaussian_noise` would (one grid, slack sqrt(m) gamma per
    release of m = prod(shape) coordinates), drawing all T x m integers in one vectorised call.

    Attributes
    ----------
    sigma : float
        The noise sd used (calibrated sigma times 1 + sqrt(m) gamma / Delta).

    Examples
    --------
    >>> import numpy as np
    >>> steps = GaussianSteps(0.2, 0.05, (10, 3), np.random.default_rng(0))
    >>> steps.add(0, np.ones(3)).shape
    (3,)
    """

    def __init__(self, sigma: float, sensitivity: float, shape, rng: np.random.Generator):
        shape = tuple(int(d) for d in shape)
        m = _check_size(shape[1:])
        if not is_exact():
            self._noise, self.gamma, self.sigma = rng.normal(0.0, sigma, size=shape), None, float(sigma)
            return
        self.gamma = grid_width(sigma)
        self.sigma = _inflated(sigma, math.sqrt(m) * self.gamma, sensitivity)
        total = int(np.prod(shape, dtype=np.int64))
        self._noise = discrete_gaussian(self.sigma / self.gamma, total, rng).reshape(shape)

    def add(self, t: int, value) -> np.ndarray:
        """The t-th release: ``value`` (shape ``shape[1:]``) plus its noise, safe in floating point."""
        value = np.asarray(value, dtype=float)
        if self.gamma is None:
            return value + self._noise[t]
        return exact_sum(snap(value, self.gamma), self._noise[t], self.gamma)


def add_symmetric_gaussian_noise(value, sigma: float, sensitivity: float, rng: np.random.Generator):
    """Release a symmetric matrix with vecd^-1 of N(0, sigma^2 I) noise, safe in floating point.

    The diagonal gets noise of sd sigma, each off-diagonal pair one draw of sd sigma/sqrt(2)
    (vecd is an isometry, Schwartzman 2016); only the upper triangle and diagonal of ``value``
    are read. Snapping every entry to one grid gamma moves the rescaled vector
    (diag, sqrt(2) upper) by at most gamma sqrt(p + 2 p(p-1)/2) = p gamma, absorbed as in
    :func:`add_gaussian_noise` by sigma_used = sigma (1 + p gamma / Delta).

    Returns
    -------
    (noisy, sigma_used) : ndarray (p, p) symmetric, float

    Examples
    --------
    >>> import numpy as np
    >>> noisy, _ = add_symmetric_gaussian_noise(np.eye(3), 0.1, 0.01, np.random.default_rng(0))
    >>> bool((noisy == noisy.T).all())
    True
    """
    value = np.asarray(value, dtype=float)
    p = value.shape[0]
    if not is_exact():
        upper = np.triu(rng.normal(0.0, sigma / math.sqrt(2.0), size=(p, p)), k=1)
        return np.triu(value) + np.triu(value, k=1).T + upper + upper.T \
            + np.diag(rng.normal(0.0, sigma, size=p)), float(sigma)
    _check_size((p * (p + 1) // 2,))
    gamma = grid_width(sigma / math.sqrt(2.0))
    used = _inflated(sigma, p * gamma, sensitivity)
    rows, cols = np.triu_indices(p, k=1)
    off_scale = used / math.sqrt(2.0) * (1.0 + 2.0 ** -50)  # rounded up
    k_off = discrete_gaussian(off_scale / gamma, rows.size, rng)
    k_diag = discrete_gaussian(used / gamma, p, rng)
    out = np.empty((p, p))
    out[rows, cols] = exact_sum(snap(value[rows, cols], gamma), k_off, gamma)
    out[cols, rows] = out[rows, cols]
    out[np.diag_indices(p)] = exact_sum(snap(np.diag(value), gamma), k_diag, gamma)
    return out, used


def add_laplace_noise(value, scale: float, sensitivity: float, rng: np.random.Generator, *,
                      dimension: int | None = None):
    """Release ``value`` with Laplace noise of scale >= ``scale``, safe in floating point.

    Parameters
    ----------
    value : float or ndarray
        The statistic (m coordinates).
    scale : float
        b = Delta_1 / eps, calibrated by the caller.
    sensitivity : float
        The statistic's L1 sensitivity Delta_1 (> 0).
    rng : numpy.random.Generator
    dimension : int, optional
        Public number of coordinates m (:func:`release_dimension`), e.g. the cells of a grid
        when only its non-empty cells are noised; default: the size of ``value``, which must
        then be public.

    Returns
    -------
    (noisy, scale_used)
        scale_used = t gamma >= b (1 + m gamma / Delta_1): the release is eps-DP exactly, and
        a function of (scale, sensitivity, m) only.

    Examples
    --------
    >>> import numpy as np
    >>> noisy, b = add_laplace_noise(np.zeros(3), 2.0, 2.0, np.random.default_rng(0))
    >>> noisy.shape, 2.0 <= b < 2.0 * (1 + 1e-9)
    ((3,), True)
    """
    value = np.asarray(value, dtype=float)
    m = release_dimension(value.shape, dimension)
    if not is_exact():
        return value + rng.laplace(0.0, scale, size=value.shape), float(scale)
    gamma = grid_width(scale, LAPLACE_GRID_BITS)
    t = math.ceil(_inflated(scale, m * gamma, sensitivity) / gamma)
    k = discrete_laplace(t, value.size, rng).reshape(value.shape)
    return exact_sum(snap(value, gamma), k, gamma), t * gamma


def exponential_noise(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exponential noise with mean ``scale``, shape ``size`` (``None`` for a scalar).

    Feeds the sparse vector technique's comparisons only (an index is released).
    """
    return rng.exponential(scale, size=size)


def gumbel_noise(size, rng: np.random.Generator) -> np.ndarray:
    """Standard Gumbel noise of shape ``size`` (the exponential mechanism's argmax; an index is released)."""
    return rng.gumbel(size=size)
