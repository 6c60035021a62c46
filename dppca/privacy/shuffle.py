"""Privacy amplification by shuffling for adaptive local randomizers (Feldman, McMillan & Talwar 2021).

A sequence of n local randomizers R_1, ..., R_n, each an (eps0, delta0)-DP function of ONE record
(chosen adaptively: R_i may depend on the outputs of R_1..R_{i-1}), applied to the records in a
uniformly random order pi that is never released, is (eps, delta)-DP for an eps much smaller than
eps0 when n is large. This module computes that eps (or the delta for a given eps) and, backwards,
the largest local eps0 whose amplified guarantee fits a budget. k-DP-Ojas is such a sequence (one
clipped noisy Oja step per record, :mod:`dppca.methods.k_dp_ojas`).

The proof needs the order to be secret and uniform. If a caller fixes the order (sorted data, a
released permutation, the file order), the adversary knows which step saw which record and only
parallel composition remains: each record is then protected at eps0 only, which is far weaker
than the amplified eps.

Bounds (FMT21 = Feldman, McMillan & Talwar, "Hiding among the clones", FOCS 2021,
arXiv:2012.12803). Neighbours are replace-one throughout: FMT21's reduction compares data sets
X0, X1 that differ in the first record only, the same relation as the rest of the package.

- Pure eps0-DP randomizers, any n >= 1 and eps0 > 0: :func:`shuffle_delta` and
  :func:`shuffle_epsilon` evaluate FMT21 Theorem 3.2 (the shuffled outputs on two neighbours
  are a post-processing of P0 = (A + D, C - A + 1 - D) and P1 = (A + 1 - D, C - A + D) with
  C ~ Bin(n - 1, e^-eps0), A ~ Bin(C, 1/2), D ~ Bern(e^eps0 / (e^eps0 + 1))): the hockey-stick
  divergence of (P0, P1), exactly (one binomial tail pair per value of C). This is the quantity
  the paper's numerical procedure bounds (Section 4, Appendix E; the authors' code,
  apple/ml-shuffling-amplification, ``deltacomp``), which brackets it between an upper and a
  lower bound over blocks of values of C; the values computed here lie inside the brackets
  that code prints (tests/test_shuffle.py, also at eps0 = 5 above the closed form's range:
  the numerical bound has no range condition).
- :func:`shuffle_epsilon_closed_form`: the closed form of FMT21 Theorem 3.1 as the authors'
  code evaluates it (``closedformanalysis``), for eps0 <= :func:`closed_form_eps0_limit`
  = log(n / (16 log(4/delta))), the range that code enforces (the paper's condition has
  log(2/delta) there, a weaker requirement, so the range used here is inside the paper's).
- Approximate-DP randomizers (Gaussian steps), FMT21 Theorem 3.8: if each R_i is
  (eps0, delta0)-DP for every value of its adaptive inputs and eps0 is in Theorem 3.1's range,
  the shuffled outputs are (eps, delta_s + (e^eps + 1)(1 + e^-eps0 / 2) n delta0)-DP with eps
  the closed form of Theorem 3.1 at delta_s. The theorem is stated with Theorem 3.1's eps and
  range, so :func:`shuffle_local_budget` uses exactly that: the closed form, never the tighter
  numerical bound, and only for eps0 in the range. When the range cannot hold any eps0 above
  the target eps (small n), it claims no amplification (``amplified=False``: each step gets
  the whole (eps, delta), parallel composition).

The FMT 2023 "stronger" bounds are not used: their erratum restricts the general upper bounds to
a class of randomizers that does not obviously contain the Gaussian mechanism.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from .._validation import DPPCAValueError, float_arg, int_arg

#: Absolute slack added to every computed delta: the tail sums below are differences of O(1)
#: binomial tails, exact to ~1e-15 in double precision; 1e-12 keeps the bound an upper bound.
DELTA_SLACK = 1e-12
#: Bisection steps of the inversions (relative precision 2^-60 of the bracket).
BISECTION_STEPS = 60


@dataclass(frozen=True)
class LocalBudget:
    """Per-step budget of n shuffled local randomizers that meets a central (eps, delta).

    Parameters
    ----------
    eps0, delta0 : float
        Budget of each local randomizer (each step sees one record).
    eps, delta : float
        Central guarantee of the shuffled sequence (at most the requested budget).
    n : int
        Number of shuffled records (steps).
    amplified : bool
        True when (eps0, delta0) rests on FMT21 Theorem 3.8 (eps0 > eps); False when n is too
        small for the theorem's range to hold any eps0 > eps: then (eps0, delta0) = (eps,
        delta), the parallel-composition budget, which needs no shuffling.

    Examples
    --------
    >>> from dppca.privacy.shuffle import shuffle_local_budget
    >>> budget = shuffle_local_budget(10_000, 1.0, 1e-5)
    >>> budget.amplified, budget.eps0 > 1.0, budget.delta0 < 1e-5
    (True, True, True)
    >>> shuffle_local_budget(500, 1.0, 1e-5).amplified  # below the theorem's range
    False
    """

    eps0: float
    delta0: float
    eps: float
    delta: float
    n: int
    amplified: bool


def shuffle_delta(n: int, eps0: float, eps: float) -> float:
    """Delta for which n shuffled adaptive eps0-DP local randomizers are (eps, delta)-DP (FMT21, numerical).

    Parameters
    ----------
    n : int, >= 1
        Number of records, each fed to one local randomizer in a secret uniformly random order.
    eps0 : float, > 0
        Pure DP level of each local randomizer (for every value of its adaptive inputs).
    eps : float, >= 0
        Central eps at which delta is computed.

    Returns
    -------
    float
        An upper bound on the hockey-stick divergence D_{e^eps} between the shuffled outputs
        on two neighbours (0 when eps >= eps0: the sequence is eps0-DP by parallel composition).

    Raises
    ------
    DPPCAValueError
        If n < 1, eps0 <= 0 or eps < 0.

    Notes
    -----
    Feldman, McMillan & Talwar (2021), Theorem 3.2 / Appendix E: the outputs on neighbours D0,
    D1 are a post-processing of P0, P1 (module docstring). Given C = c, the first coordinate
    a has P0(a) = q b(a - 1) + (1 - q) b(a) and P1(a) = q b(a) + (1 - q) b(a - 1), b the
    Bin(c, 1/2) pmf and q = e^eps0 / (e^eps0 + 1); the ratio b(a - 1)/b(a) = a/(c + 1 - a)
    increases in a, so the positive part of P0 - e^eps P1 is a tail a >= t and
    D(c) = (q - e^eps (1 - q)) P(A >= t - 1) - (e^eps q - (1 - q)) P(A >= t). The map
    a -> c + 1 - a swaps P0 and P1, so both directions give the same value. delta is the
    Bin(n - 1, e^-eps0) average of D(c), with the values of C beyond 12 standard deviations counted
    as D = 1 (their exact binomial tail mass) and 1e-12 added for rounding.

    Examples
    --------
    >>> from dppca.privacy.shuffle import shuffle_delta
    >>> shuffle_delta(10_000, 2.0, 2.0)
    0.0
    >>> 0 < shuffle_delta(10_000, 2.0, 0.2) < 1e-3
    True
    """
    n = int_arg(n, "n", 1)
    eps0 = float_arg(eps0, "eps0", positive=True)
    eps = float_arg(eps, "eps", nonnegative=True)
    if eps >= eps0:
        return 0.0
    q = 1.0 / (1.0 + math.exp(-eps0))  # e^eps0 / (e^eps0 + 1), no overflow
    gain, loss = q - math.exp(eps) * (1 - q), math.exp(eps) * q - (1 - q)  # both > 0 here
    c, weights, outside = _binomial_support(n - 1, math.exp(-eps0))
    ratio = loss / gain
    t = np.floor(ratio * (c + 1) / (1 + ratio)) + 1
    # P(A >= t) = sf(t - 1)
    divergence = gain * binom.sf(t - 2, c, 0.5) - loss * binom.sf(t - 1, c, 0.5)
    value = float(np.sum(weights * np.maximum(divergence, 0.0))) + outside + DELTA_SLACK
    return min(value, 1.0)


def shuffle_epsilon(n: int, eps0: float, delta: float) -> float:
    """Central eps of n shuffled adaptive eps0-DP local randomizers at a given delta (FMT21, numerical).

    Parameters
    ----------
    n : int, >= 1
        Number of records (one local randomizer each, secret uniformly random order).
    eps0 : float, > 0
        Pure DP level of each local randomizer.
    delta : float in (0, 1)
        Central delta.

    Returns
    -------
    float
        The smallest eps found by bisection (to 2^-60 eps0) with
        :func:`shuffle_delta` (n, eps0, eps) <= delta; at most eps0.

    Raises
    ------
    DPPCAValueError
        If n < 1, eps0 <= 0 or delta is outside (0, 1).

    Notes
    -----
    Feldman, McMillan & Talwar (2021), Theorem 3.2 and Appendix E (the paper's "empirical"
    bound); the returned eps always satisfies the delta condition (the bisection keeps the
    upper end).

    Examples
    --------
    The paper's code (apple/ml-shuffling-amplification, README) brackets the value for
    n = 10^5, eps0 = 4, delta = 10^-6 between 0.1675 and 0.1728:

    >>> from dppca.privacy.shuffle import shuffle_epsilon
    >>> round(shuffle_epsilon(100_000, 4.0, 1e-6), 4)
    0.1698
    """
    delta = float_arg(delta, "delta", open_unit=True)
    eps0 = float_arg(eps0, "eps0", positive=True)
    return _largest_or_smallest(lambda eps: shuffle_delta(n, eps0, eps) <= delta, 0.0, eps0,
                                smallest=True)


def closed_form_eps0_limit(n: int, delta: float) -> float:
    """Largest eps0 for which FMT21's closed form (Theorem 3.1, hence Theorem 3.8) is evaluated.

    Parameters
    ----------
    n : int, >= 1
        Number of shuffled records.
    delta : float in (0, 1)
        The delta of the eps0-DP shuffling bound (delta_s of Theorem 3.8).

    Returns
    -------
    float
        log(n / (16 log(4/delta))) when n > 16 log(4/delta), else 0 (no eps0 > 0 is in range).
        Public: depends on n and delta only.

    Raises
    ------
    DPPCAValueError
        If n < 1 or delta is outside (0, 1).

    Notes
    -----
    The range check of the authors' code (apple/ml-shuffling-amplification,
    ``closedformanalysis``) for FMT21 Theorem 3.1; Theorem 3.8 (approximate-DP randomizers)
    carries the same condition on eps0. The paper states it with log(2/delta) in place of
    log(4/delta), a weaker requirement: this range lies inside the paper's.

    Examples
    --------
    >>> from dppca.privacy.shuffle import closed_form_eps0_limit
    >>> round(closed_form_eps0_limit(10_000, 5e-6), 3)
    3.828
    >>> closed_form_eps0_limit(100, 5e-6)  # 16 log(4/delta) = 217 > n: empty range
    0.0
    """
    n = int_arg(n, "n", 1)
    delta = float_arg(delta, "delta", open_unit=True)
    scale = 16 * math.log(4 / delta)
    return math.log(n / scale) if n > scale else 0.0


def shuffle_epsilon_closed_form(n: int, eps0: float, delta: float) -> float:
    """Closed-form central eps of n shuffled eps0-DP local randomizers (FMT21 Theorem 3.1).

    Parameters
    ----------
    n : int, >= 1
        Number of records.
    eps0 : float, > 0
        Pure DP level of each local randomizer; at most :func:`closed_form_eps0_limit`
        (n, delta) = log(n / (16 log(4/delta))).
    delta : float in (0, 1)
        Central delta.

    Returns
    -------
    float
        The central eps = log(1 + (1 - e^-eps0) / (1 + e^-(eps0 + e')) (a + c)), a = 8 sqrt(e^eps0
        log(4/delta) / n), c = 8 e^eps0 / n, e' = log(1 + a + c) (as the paper's code evaluates
        Theorem 3.1). Looser than :func:`shuffle_epsilon`; it is the eps that Theorem 3.8
        (approximate-DP randomizers) is stated with, so :func:`shuffle_local_budget` uses it.

    Raises
    ------
    DPPCAValueError
        If eps0 is outside the theorem's range or an argument is invalid.

    Examples
    --------
    The value printed in the README of the paper's code for n = 10^5, eps0 = 4, delta = 10^-6:

    >>> from dppca.privacy.shuffle import shuffle_epsilon_closed_form
    >>> round(shuffle_epsilon_closed_form(100_000, 4.0, 1e-6), 6)
    0.537804
    """
    n = int_arg(n, "n", 1)
    eps0 = float_arg(eps0, "eps0", positive=True)
    delta = float_arg(delta, "delta", open_unit=True)
    limit = closed_form_eps0_limit(n, delta)
    if eps0 > limit:
        raise DPPCAValueError(f"`eps0` must be at most log(n / (16 log(4/delta))) = {limit:.4g} for "
                              f"the closed form (FMT21 Theorem 3.1); got {eps0:g}")
    a = 8 * math.sqrt(math.exp(eps0) * math.log(4 / delta) / n)
    c = 8 * math.exp(eps0) / n
    inner = math.log(1 + a + c)
    return math.log(1 + (1 - math.exp(-eps0)) / (1 + math.exp(-eps0 - inner)) * (a + c))


def shuffle_local_budget(n: int, eps: float, delta: float, delta_share: float = 0.5) -> LocalBudget:
    """Largest per-step (eps0, delta0) whose shuffled guarantee over n records is within (eps, delta).

    Parameters
    ----------
    n : int, >= 1
        Number of records, each used by one local randomizer, in a secret uniformly random order.
    eps : float, > 0
        Central eps of the whole sequence.
    delta : float in (0, 1)
        Central delta of the whole sequence.
    delta_share : float in (0, 1)
        Share of delta given to the eps0-DP shuffling bound (delta_s); the rest pays for the
        local delta0 (default 1/2).

    Returns
    -------
    LocalBudget
        ``amplified=True``: the largest eps0 in (eps, :func:`closed_form_eps0_limit` (n,
        delta_s)] whose closed-form eps (:func:`shuffle_epsilon_closed_form` at delta_s) is at
        most eps, and delta0 = (1 - share) delta / ((e^eps + 1)(1 + e^-eps0/2) n) (0 when
        eps > ~745: the e^eps factor leaves nothing). ``amplified=False`` when no eps0 > eps
        qualifies (the range is empty or the closed form exceeds eps already at eps0 = eps):
        then (eps0, delta0) = (eps, delta), parallel composition. Which case applies depends
        on the public n, eps, delta and share only.

    Raises
    ------
    DPPCAValueError
        If n < 1, eps <= 0, or delta or delta_share is outside (0, 1).

    Notes
    -----
    FMT21 Theorem 3.8: n adaptive (eps0, delta0)-DP local randomizers in a secret uniformly
    random order, with eps0 in Theorem 3.1's range, are (eps', delta_s + (e^eps' + 1)(1 +
    e^-eps0 / 2) n delta0)-DP, eps' Theorem 3.1's closed form at delta_s; here eps' <= eps, so
    the delta term computed with e^eps bounds the theorem's. The numerical bound
    (:func:`shuffle_delta`) would allow a larger eps0 (e.g. 4.96 instead of 3.57 at n = 10^4,
    (1, 10^-5)) but Theorem 3.8 is not stated with it, so it is not used for approximate-DP
    steps. eps0 is found by bisection and every returned value is checked against the closed
    form, so the guarantee does not rest on monotonicity.

    Examples
    --------
    >>> from dppca.privacy.shuffle import shuffle_local_budget
    >>> budget = shuffle_local_budget(100_000, 1.0, 1e-6)
    >>> budget.amplified, round(budget.eps0, 2)
    (True, 5.65)
    """
    n = int_arg(n, "n", 1)
    eps = float_arg(eps, "eps", positive=True)
    delta = float_arg(delta, "delta", open_unit=True)
    share = float_arg(delta_share, "delta_share", open_unit=True)
    delta_s = share * delta
    limit = closed_form_eps0_limit(n, delta_s)

    def within(e0):
        return shuffle_epsilon_closed_form(n, e0, delta_s) <= eps

    if limit <= eps or not within(eps):
        return LocalBudget(eps, delta, eps, delta, n, amplified=False)
    eps0 = _largest_or_smallest(within, eps, limit, smallest=False)
    if eps0 <= eps:
        return LocalBudget(eps, delta, eps, delta, n, amplified=False)
    # (1 - share) delta / ((e^eps + 1)(1 + e^-eps0/2) n), without overflow (0 for eps > ~745)
    delta0 = (1 - share) * delta * math.exp(-eps) / ((1 + math.exp(-eps)) * (1 + math.exp(-eps0) / 2) * n)
    return LocalBudget(eps0, delta0, eps, delta, n, amplified=True)


def _binomial_support(trials: int, p: float):
    """Values c of Bin(trials, p) within 12 sd (+ 20) of the mean, their pmf, and the mass outside.

    The mass outside is the exact binomial tail on both sides; the caller counts it in full
    (D(c) <= 1), so the window only affects speed, never the bound.
    """
    mean, sd = trials * p, math.sqrt(trials * p * (1 - p))
    lo = max(0, math.floor(mean - 12 * sd - 20))
    hi = min(trials, math.ceil(mean + 12 * sd + 20))
    c = np.arange(lo, hi + 1)
    outside = (binom.cdf(lo - 1, trials, p) if lo > 0 else 0.0) + binom.sf(hi, trials, p)
    return c, binom.pmf(c, trials, p), float(outside)


def _largest_or_smallest(holds, lo: float, hi: float, smallest: bool) -> float:
    """Bisection for a threshold of the predicate ``holds`` on [lo, hi].

    ``smallest``: the smallest x with holds(x), given holds(hi); else the largest x with
    holds(x), given holds(lo). The end returned always satisfies the predicate.
    """
    if not smallest and holds(hi):
        return hi
    good, bad = (hi, lo) if smallest else (lo, hi)
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (good + bad)
        if middle in (good, bad):
            break
        if holds(middle):
            good = middle
        else:
            bad = middle
    return good

__all__ = ["LocalBudget", "closed_form_eps0_limit", "shuffle_delta", "shuffle_epsilon",
           "shuffle_epsilon_closed_form", "shuffle_local_budget"]
