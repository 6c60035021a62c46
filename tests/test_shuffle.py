"""The shuffling accountant (dppca.privacy.shuffle) against the published values of FMT21's code."""
import math

import numpy as np
import pytest
from scipy.stats import binom

from dppca import DPPCAValueError
from dppca.privacy.shuffle import (DELTA_SLACK, shuffle_delta, shuffle_epsilon,
                                   shuffle_epsilon_closed_form, shuffle_local_budget)

# Published in the README of the paper's code (apple/ml-shuffling-amplification, example.py):
# n = 10^5 shuffled 4-DP reports at delta = 10^-6 are (eps, delta)-DP with eps between the
# numerical lower and upper bounds below; the closed form (Theorem 3.1) gives 0.5378...
N, EPS0, DELTA = 100_000, 4.0, 1e-6
PUBLISHED_LOWER, PUBLISHED_UPPER = 0.1675385583317841, 0.172790550755978
PUBLISHED_CLOSED_FORM = 0.5378040242374512


def test_closed_form_reproduces_the_published_value():
    # same formula, same double arithmetic: only rounding differs
    assert shuffle_epsilon_closed_form(N, EPS0, DELTA) == pytest.approx(PUBLISHED_CLOSED_FORM, rel=1e-12)


def test_numerical_bound_lies_in_the_published_bracket():
    # the paper's code evaluates the same divergence with step-100 blocks (upper and lower
    # bounds) and 10 bisection steps; the exact value lies between its two answers
    assert PUBLISHED_LOWER <= shuffle_epsilon(N, EPS0, DELTA) <= PUBLISHED_UPPER


def _brute_force_delta(n, eps0, eps):
    """sum over (c, a) of max(0, P0 - e^eps P1), P0, P1 of FMT21 Theorem 3.2, by enumeration."""
    q = math.exp(eps0) / (math.exp(eps0) + 1)
    total = 0.0
    for c in range(n):
        weight = binom.pmf(c, n - 1, math.exp(-eps0))
        b = binom.pmf(np.arange(-1, c + 2), c, 0.5)  # b[a + 1] = P(A = a), zero outside 0..c
        p0 = q * b[:-1] + (1 - q) * b[1:]  # a = 0..c+1
        p1 = q * b[1:] + (1 - q) * b[:-1]
        total += weight * float(np.sum(np.maximum(0.0, p0 - math.exp(eps) * p1)))
    return total


@pytest.mark.parametrize("n, eps0, eps", [(2, 1.0, 0.3), (30, 2.0, 0.5), (60, 3.0, 1.0), (40, 0.5, 0.05)])
def test_delta_equals_the_enumerated_hockey_stick_divergence(n, eps0, eps):
    exact = _brute_force_delta(n, eps0, eps)
    value = shuffle_delta(n, eps0, eps)
    # an upper bound (the slack and the tails outside 12 sd are added), tight to rounding
    assert exact <= value <= exact + DELTA_SLACK + 1e-13


def test_delta_vanishes_from_eps0_and_decreases_in_eps():
    assert shuffle_delta(1000, 2.0, 2.0) == 0.0
    values = [shuffle_delta(1000, 2.0, eps) for eps in np.linspace(0.0, 1.9, 12)]
    assert all(a >= b for a, b in zip(values, values[1:]))


@pytest.mark.parametrize("n, eps0", [(1000, 1.0), (10_000, 3.0), (100_000, 5.0)])
def test_numerical_bound_is_tighter_than_the_closed_form(n, eps0):
    # FMT21 Section 4: the numerical analysis improves on Theorem 3.1
    assert shuffle_epsilon(n, eps0, 1e-6) <= shuffle_epsilon_closed_form(n, eps0, 1e-6)


@pytest.mark.parametrize("n", [3, 200, 10_000])
def test_local_budget_meets_the_central_budget(n):
    eps, delta = 0.8, 0.01
    budget = shuffle_local_budget(n, eps, delta)
    assert budget.eps0 >= eps  # never below parallel composition's eps0 = eps
    assert shuffle_delta(n, budget.eps0, eps) <= delta / 2
    # Theorem 3.8: the local deltas cost (e^eps + 1)(1 + e^-eps0/2) n delta0 <= delta / 2
    cost = (math.exp(eps) + 1) * (1 + math.exp(-budget.eps0) / 2) * n * budget.delta0
    assert cost == pytest.approx(delta / 2, rel=1e-12)


def test_local_budget_grows_with_n():
    eps0 = [shuffle_local_budget(n, 1.0, 1e-5).eps0 for n in (100, 1000, 10_000, 100_000)]
    assert all(a < b for a, b in zip(eps0, eps0[1:]))


@pytest.mark.parametrize("call, message", [
    (lambda: shuffle_epsilon_closed_form(1000, 5.0, 1e-6), "`eps0` must be at most"),
    (lambda: shuffle_delta(0, 1.0, 0.5), "`n`"),
    (lambda: shuffle_epsilon(10, -1.0, 1e-6), "`eps0`"),
    (lambda: shuffle_local_budget(10, 1.0, 1.5), "`delta`"),
])
def test_bad_arguments_name_the_rule(call, message):
    with pytest.raises(DPPCAValueError, match=message):
        call()
