"""Exact samplers of integer noise laws, vectorised and seeded by a numpy Generator.

Canonne, Kamath & Steinke (2020), "The discrete Gaussian for differential privacy",
Algorithms 2 and 3, with every Bernoulli decided exactly: a 64-bit uniform integer against a
float estimate of p with a rigorous error band, and, inside the band (probability about
2^-29), more random bits against p from ``mpmath`` at 384+ bits. Used by
:mod:`dppca.privacy.samplers`, whose docstring gives the privacy argument.

Functions
---------
discrete_laplace(t, size, rng)
    P(k) proportional to exp(-|k| / t), t a positive integer.
discrete_gaussian(s, size, rng)
    The rounded Gaussian P(round(s Z) = k), Z ~ N(0, 1).
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

__all__ = ["discrete_gaussian", "discrete_laplace"]

#: Candidates per needed rounded-Gaussian draw (the rejection step accepts about 1/1.25).
ACCEPT_OVERSAMPLING = 1.5
_TWO64 = float(2 ** 64)


# ----------------------------------------------------------------------------- exact Bernoulli

def _bernoulli(p_hat: np.ndarray, exact, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(p_i) draws, exactly, from float estimates with |p - p_hat| <= 2^-30 p_hat + 2^-1000.

    ``exact(i, prec)`` returns p_i as an mpmath number with relative error below 2^-(prec - 128);
    it is called only for draws inside the error band (probability about 2^-29 each).
    """
    p_hat = np.asarray(p_hat, dtype=float)
    u = rng.integers(0, 2 ** 64, size=p_hat.shape, dtype=np.uint64)
    low = np.clip(p_hat * (1 - 2.0 ** -29) - 2.0 ** -999, 0.0, 1.0) * _TWO64
    high = (p_hat * (1 + 2.0 ** -29) + 2.0 ** -999) * _TWO64
    low_int = np.floor(np.minimum(low, 2.0 ** 64 - 2048)).astype(np.uint64)
    accept = u < low_int
    never_reject = high >= _TWO64
    high_int = np.ceil(np.where(never_reject, 0.0, high)).astype(np.uint64)
    reject = ~never_reject & (u >= high_int)
    out = accept.copy()
    for i in np.flatnonzero(~accept & ~reject):
        out.flat[i] = _resolve(int(u.flat[i]), lambda prec, i=i: exact(i, prec), rng)
    return out


def _resolve(numerator: int, exact, rng) -> bool:
    """Decide u < p for u = numerator / 2^64 + (fresh random bits), p from ``exact(prec)``."""
    return _compare([numerator, 64], exact, rng)


def _compare(state: list, exact, rng) -> bool:
    """Decide U < p exactly for U = state[0] / 2^state[1] + (bits not drawn yet).

    More random bits are appended to ``state`` (kept, so later comparisons see the same U)
    until the interval of U lies on one side of p; p = ``exact(prec)`` with relative error
    below 2^-(prec - 128), the precision doubling as the interval shrinks.
    """
    from mpmath import mp, mpf

    prec = 384
    while True:
        with mp.workprec(prec):
            man, exp = mpf(exact(prec)).man_exp
        value = Fraction(int(man)) * Fraction(2) ** int(exp) if man else Fraction(0)
        slack = value / 2 ** (prec - 128)
        lower = Fraction(state[0], 2 ** state[1])
        if lower + Fraction(1, 2 ** state[1]) <= value - slack:
            return True
        if lower >= value + slack:
            return False
        state[0] = state[0] * 2 ** 64 + int(rng.integers(0, 2 ** 64, dtype=np.uint64))
        state[1] += 64
        if state[1] + 64 > prec - 128:
            prec *= 2


def _exp_minus(x_float: np.ndarray, x_exact, rng) -> np.ndarray:
    """Bernoulli(exp(-x)) for x >= 0 given as floats within 2^-50 relative error."""
    def exact(i, prec):
        from mpmath import exp
        return exp(-x_exact(i))

    return _bernoulli(np.exp(-x_float), exact, rng)


# ----------------------------------------------------------------------------- discrete laws

@functools.lru_cache(maxsize=1)
def _geometric_thresholds() -> np.ndarray:
    """floor(e^-v 2^64) for v = 1..64, ascending in the array (exact, from mpmath at 256 bits)."""
    from mpmath import exp, floor, mp

    with mp.workprec(256):
        values = [int(floor(exp(-v) * 2 ** 64)) for v in range(1, 65)]
    return np.array(values[::-1], dtype=np.uint64)


def _geometric_e1(n: int, rng: np.random.Generator) -> np.ndarray:
    """n exact draws of V with P(V >= v) = e^-v (the count of Bernoulli(exp(-1)) successes).

    Inversion of one uniform U: V = #{v >= 1 : U < e^-v}. With U = (u + more bits) / 2^64 and
    T_v = floor(e^-v 2^64), u < T_v decides U < e^-v and u > T_v decides the opposite; u = T_v
    (probability 2^-64 per v) is resolved exactly with more bits, like any Bernoulli here.
    """
    from mpmath import exp, mpf

    thresholds = _geometric_thresholds()
    u = rng.integers(0, 2 ** 64, size=n, dtype=np.uint64)
    above = np.searchsorted(thresholds, u, side="right")
    v = (thresholds.size - above).astype(np.int64)  # thresholds strictly above u
    for i in np.flatnonzero(above != np.searchsorted(thresholds, u, side="left")):
        state, count = [int(u[i]), 64], 0  # u equals some T_v: count the levels one by one
        while _compare(state, lambda prec, level=count + 1: exp(-mpf(level)), rng):
            count += 1
        v[i] = count
    return v


def discrete_laplace(t: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Exact draws with P(k) proportional to exp(-|k| / t), t a positive integer (< 2^52).

    Canonne, Kamath & Steinke (2020), Algorithm 2 (with s = 1), vectorised: candidates are
    drawn in batches a little larger than needed and the accepted ones, in order, fill the output
    (accepted draws of a rejection sampler are independent draws of its target).

    Examples
    --------
    >>> import numpy as np
    >>> discrete_laplace(3, 4, np.random.default_rng(0)).dtype
    dtype('int64')
    """
    from mpmath import mpf

    t = int(t)
    out = np.zeros(size, dtype=np.int64)
    filled = 0
    while filled < size:
        need = size - filled
        u = rng.integers(0, t, size=int(need * 1.7) + 8, dtype=np.int64)
        u = u[_exp_minus(u / t, lambda i, u=u: mpf(int(u[i])) / t, rng)]
        v = _geometric_e1(u.size, rng)
        if v.size and int(v.max()) >= (2 ** 62) // t:
            raise OverflowError("discrete Laplace draw beyond 2^62 (probability below 2^-1000)")
        x = u + t * v
        negative = rng.integers(0, 2, size=x.size).astype(bool)
        ok = ~(negative & (x == 0))
        values = np.where(negative, -x, x)[ok][:need]
        out[filled:filled + values.size] = values
        filled += values.size
    return out


def discrete_gaussian(s: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """Exact draws of the rounded Gaussian R(k) = P(round(s Z) = k), Z ~ N(0, 1), s >= 1.

    Rejection from the discrete Laplace of scale t = floor(s) + 1 (Canonne, Kamath & Steinke
    2020, Algorithm 3, retargeted from exp(-k^2/(2 s^2)) to R; envelope in
    :mod:`dppca.privacy.samplers`).

    Examples
    --------
    >>> import numpy as np
    >>> draws = discrete_gaussian(2.0 ** 46, 1000, np.random.default_rng(0)) / 2.0 ** 46
    >>> bool(0.8 < draws.std() < 1.2)
    True
    """
    from mpmath import erf, erfc, exp, mpf, pi, sqrt

    s_exact = mpf(float(s))
    t = math.floor(s) + 1
    centre = s * s / t
    out = np.zeros(size, dtype=np.int64)
    filled = 0
    while filled < size:
        need = size - filled
        y = discrete_laplace(t, int(need * ACCEPT_OVERSAMPLING) + 8, rng)
        k = np.abs(y).astype(float)
        z = (k - centre) ** 2 / (2 * s * s) + 1 / (2 * t)

        def accept_prob(i, prec, y=y):
            a = abs(int(y[i]))
            scale = s_exact * sqrt(2)
            if a == 0:
                mass = erf(mpf(1) / (2 * scale))
            else:
                mass = (erfc((a - mpf(1) / 2) / scale) - erfc((a + mpf(1) / 2) / scale)) / 2
            return mass * s_exact * sqrt(2 * pi) * exp(mpf(a) / t - s_exact ** 2 / (2 * mpf(t) ** 2)
                                                        - mpf(1) / (2 * t))

        values = y[_bernoulli(np.exp(-z), accept_prob, rng)][:need]
        out[filled:filled + values.size] = values
        filled += values.size
    return out
