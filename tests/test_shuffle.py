"""The shuffling accountant (dppca.privacy.shuffle) against the published values of FMT21's code."""
import math

import numpy as np
import pytest
from scipy.stats import binom

from dppca import DPPCAValueError
from dppca.privacy.shuffle import (DELTA_SLACK, closed_form_eps0_limit, shuffle_delta,
                                   shuffle_epsilon, shuffle_epsilon_closed_form,
                                   shuffle_local_budget)

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


# Brackets printed by the authors' numerical procedure (apple/ml-shuffling-amplification,
# numericalanalysis(n, eps0, delta, 30, step, upperbound) with upperbound False / True; run
# once, values copied): their blocks of `step` values of C give a lower and an upper bound on
# the same divergence that shuffle_delta computes exactly. (5000, 5.0, 1e-3) is above the
# closed form's range (limit 3.85): the numerical bound has no range condition.
AUTHORS_BRACKETS = [(10_000, 2.0, 1e-6, 10, 0.1547702358269062, 0.15918655201256804),
                    (5_000, 5.0, 1e-3, 10, 0.8564725331962109, 1.096472628414631),
                    (2_000, 3.0, 1e-4, 5, 0.5506111672148108, 0.5924670025706291)]


@pytest.mark.parametrize("n, eps0, delta, step, lower, upper", AUTHORS_BRACKETS)
def test_numerical_bound_lies_in_the_authors_brackets(n, eps0, delta, step, lower, upper):
    # their bisection keeps the upper end to 2^-30 eps0; ours to 2^-60: both brackets hold
    assert lower <= shuffle_epsilon(n, eps0, delta) <= upper


def test_closed_form_range_is_the_authors_check():
    # log(n / (16 log(4/delta))); empty (0) when n <= 16 log(4/delta)
    expected = math.log(10_000 / (16 * math.log(4e6)))
    assert closed_form_eps0_limit(10_000, 1e-6) == pytest.approx(expected)
    assert closed_form_eps0_limit(200, 1e-6) == 0.0
    with pytest.raises(DPPCAValueError, match="`eps0` must be at most"):
        shuffle_epsilon_closed_form(10_000, closed_form_eps0_limit(10_000, 1e-6) * 1.001, 1e-6)


@pytest.mark.parametrize("n, eps, delta",
                         [(1_000, 1.0, 1e-5), (5_000, 0.8, 0.01), (100_000, 2.0, 1e-8)])
def test_amplified_budget_meets_theorem_3_8(n, eps, delta):
    budget = shuffle_local_budget(n, eps, delta)
    assert budget.amplified and budget.eps0 > eps
    # Theorem 3.8's conditions: eps0 in Theorem 3.1's range at delta_s = delta / 2, and the
    # closed-form eps at delta_s within the budget ...
    assert budget.eps0 <= closed_form_eps0_limit(n, delta / 2)
    assert shuffle_epsilon_closed_form(n, budget.eps0, delta / 2) <= eps
    # ... and its delta: delta_s + (e^eps + 1)(1 + e^-eps0/2) n delta0 = delta (to rounding)
    cost = (math.exp(eps) + 1) * (1 + math.exp(-budget.eps0) / 2) * n * budget.delta0
    assert delta / 2 + cost == pytest.approx(delta, rel=1e-12)
    # never the numerical bound's larger eps0 (Theorem 3.8 is stated with the closed form)
    assert budget.eps0 < _numerical_eps0(n, eps, delta / 2)


def _numerical_eps0(n, eps, delta_s):
    lo, hi = eps, 20.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if shuffle_delta(n, mid, eps) <= delta_s else (lo, mid)
    return lo


@pytest.mark.parametrize("n", [1, 3, 200, 591])
def test_no_amplification_claimed_below_the_theorems_range(n):
    # at (1, 1e-5), delta_s = 5e-6: 16 log(4/delta_s) e^1 = 591.2, so n <= 591 leaves no
    # eps0 > 1 in the range: parallel composition, each step at the whole budget
    budget = shuffle_local_budget(n, 1.0, 1e-5)
    assert not budget.amplified
    assert (budget.eps0, budget.delta0) == (1.0, 1e-5)


def test_amplification_starts_where_the_range_exceeds_eps():
    assert closed_form_eps0_limit(591, 5e-6) < 1.0 < closed_form_eps0_limit(592, 5e-6)
    assert shuffle_local_budget(592, 1.0, 1e-5).amplified


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


@pytest.mark.parametrize("m, phrase", [
    (500, "no amplification claimed"),  # below Theorem 3.8's range at (1, 1e-5)
    (700, "parallel composition needed less noise"),  # in range, eps0 = 1.20: more noise
    (967, "amplification by shuffling"),  # the first m whose shuffled noise is smaller
])
def test_k_dp_ojas_claims_amplification_only_where_proven(m, phrase):
    from dppca.methods.k_dp_ojas import k_dp_ojas_directions
    from dppca.privacy import Ledger

    ledger = Ledger(1.0, 1e-5)
    X = np.random.default_rng(0).normal(size=(m, 2))
    k_dp_ojas_directions(X, 1, eps=1.0, delta=1e-5, rng=np.random.default_rng(1),
                         calibration="analytic", ledger=ledger, amplification="shuffle",
                         centring="none", norm_bound=3.0)
    frame = ledger.to_frame()
    assert phrase in frame.iloc[-1]["step"]
    assert (frame.iloc[-1]["mechanism"] == "Gaussian (analytic) + shuffling") == (m == 967)
