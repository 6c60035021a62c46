"""The audit of add/remove neighbours (fast mode): every release that ``neighbouring="add_remove"``
covers, on pairs that differ by one row added or removed, against its claimed sensitivity at the
smaller data set's rows; the distinguishing test on the worst pair; the half-noise canary.
"""
import pytest

from dppca.audit import RATIO_TOLERANCE, distinguishing_audit
from dppca.audit.add_remove import (ADD_REMOVE_CANARY_FAMILIES, ADD_REMOVE_REGISTRY,
                                    add_remove_search)
from dppca.audit.canary import CANARY_FACTOR, CANARY_RUNS, gaussian_shift_audit, scaled_noise
from dppca.audit.registry import AuditedRelease

#: Releases per neighbour in the fast distinguishing test (as tests/privacy/test_audit.py).
FAST_RUNS = 300


@pytest.fixture(scope="module")
def searches():
    return {}


def _search(name, cache):
    if name not in cache:
        cache[name] = add_remove_search(ADD_REMOVE_REGISTRY[name], seed=0)
    return cache[name]


@pytest.mark.parametrize("name", sorted(ADD_REMOVE_REGISTRY))
def test_add_remove_search_ratio_at_most_one(name, searches):
    result = _search(name, searches)
    assert result.ratio <= 1 + RATIO_TOLERANCE, f"{name}: ratio {result.ratio:.6g} at {result.where}"


@pytest.mark.parametrize("name", sorted(ADD_REMOVE_REGISTRY))
def test_add_remove_distinguishing_eps_lower_bound_within_claim(name, searches):
    release = ADD_REMOVE_REGISTRY[name]
    worst = _search(name, searches)
    result = distinguishing_audit(release.mechanism, worst.D, worst.D_prime, worst.ctx, FAST_RUNS,
                                  release.delta, seed=1)
    # a 95% lower confidence bound with fixed seeds: a failure is a reproducible leak
    assert result.eps_lb <= release.eps, f"{name}: eps_lb {result.eps_lb:.3g} > {release.eps}"


@pytest.mark.parametrize("name", ["add/remove: g-DPPCA Kendall's tau matrix (spherical sign)",
                                  "add/remove: rank elementwise Kendall's tau (j <= k)"])
def test_the_search_sees_the_replace_one_formula_at_the_larger_size(name):
    # The search must be able to fail: the U-statistic's add/remove change reaches 0.85-0.9 of
    # 2 D_t / (m + 1) (found above); a claim of D_t / (m + 1), half of it, must be exceeded.
    release = ADD_REMOVE_REGISTRY[name]
    halved = AuditedRelease(name + " (half claim)", release.statistic,
                            lambda m, p, c: release.sensitivity(m, p, c) / 2, p=release.p)
    assert add_remove_search(halved, seed=0, sizes=(5, 12)).ratio > 1.5


@pytest.mark.parametrize("name", ADD_REMOVE_CANARY_FAMILIES)
def test_add_remove_half_noise_canary_is_rejected(name, searches):
    # Each release is linear in its Gaussian noise (the shift test is exact) and drawn by the
    # exact samplers, which scaled_noise weakens; with CANARY_RUNS releases per side and the
    # level split over the families, the real mechanism passes and half its noise is seen on a
    # pair showing most of the sensitivity (power >= 0.98 at 90%: dppca/audit/canary.py).
    release = ADD_REMOVE_REGISTRY[name]
    worst = _search(name, searches)
    args = (release.mechanism, worst.D, worst.D_prime, worst.ctx, CANARY_RUNS, release.eps,
            release.delta)
    families = len(ADD_REMOVE_CANARY_FAMILIES)
    real = gaussian_shift_audit(*args, seed=2, families=families)
    assert not real.rejects, f"{name}: mu_lb {real.mu_lb:.3f} > claimed mu {real.mu_claim:.3f}"
    with scaled_noise(CANARY_FACTOR):
        canary = gaussian_shift_audit(*args, seed=2, families=families)
    assert canary.rejects, f"{name}: half noise not seen (mu_lb {canary.mu_lb:.3f})"


@pytest.mark.parametrize("standardize", [False, "rank"])
def test_add_remove_ledger_matches_the_noise_drawn(standardize):
    # Balle & Wang's curve, computed in the test, on the count and the method's Gaussian-DP
    # shares (their delta: the call's less the bounds' failure probability, its own row).
    import warnings

    from dppca import dp_pc_dir
    from test_ledger_noise import _sample, check_ledger_against_noise

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-n accuracy warnings: public facts
        result = dp_pc_dir(_sample(600), 2, standardize=standardize, eps=1.0, delta=1e-5, rng=1,
                           neighbouring="add_remove")
    parts = check_ledger_against_noise(result.ledger)
    assert parts["gaussian rows"] == 2  # the count and the directions, one group
    failure = result.ledger.releases[1]
    assert (failure.eps, failure.delta) == (0.0, 0.05 * 1e-5)


@pytest.mark.parametrize("name", ["add/remove: scree clipped pair means",
                                  "add/remove: trace clipped mean of ||x_a - x_b||^2/2 (coupled pairs)"])
def test_the_search_sees_the_scree_bounds(name):
    # Both claims are reached (ratio 1 on the fast search: duplicated rows and one extreme row);
    # half of either claim must be exceeded, or the search could not fail.
    release = ADD_REMOVE_REGISTRY[name]
    halved = AuditedRelease(name + " (half claim)", release.statistic,
                            lambda m, p, c: release.sensitivity(m, p, c) / 2, p=release.p,
                            context=release.context)
    assert add_remove_search(halved, seed=0, sizes=(5, 12)).ratio > 1.5


def test_an_uncoupled_pairing_breaks_the_trace_bound():
    # The trace's bound rests on coupling the random pairings of neighbours
    # (dppca.privacy.counted_group.pair_rows): pairing a neighbour's rows afresh (here by
    # position, as if the pairing ignored which row was added or removed) moves many pair values
    # and can exceed the claim, so the coupled statistic is what the audit must check.
    import numpy as np

    from dppca.audit.add_remove import _halves
    from dppca.estimators.pair_means import clipped_paired_statistic

    release = ADD_REMOVE_REGISTRY["add/remove: trace clipped mean of ||x_a - x_b||^2/2 "
                                  "(coupled pairs)"]

    def by_position(X, c):
        m = X.shape[0] // 2
        pairs = (np.arange(0, 2 * m, 2), np.arange(1, 2 * m, 2))
        return np.atleast_1d(clipped_paired_statistic(_halves(X, pairs), c["clip"]))

    uncoupled = AuditedRelease("uncoupled trace", by_position, release.sensitivity,
                               p=release.p, context=release.context)
    # (1.15 found at n = 12: the audit flags anything above 1 + RATIO_TOLERANCE)
    assert add_remove_search(uncoupled, seed=0, sizes=(12,)).ratio > 1 + 100 * RATIO_TOLERANCE


def test_scree_add_remove_ledger_matches_the_noise_drawn():
    # Every release of the call is one Gaussian-DP group (count, directions, trace, clipped
    # method) of delta minus the bounds' failure probability, which has its own row.
    import warnings

    from dppca import dp_scree
    from test_ledger_noise import _sample, check_ledger_against_noise

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-n accuracy warnings: public facts
        result = dp_scree(_sample(600), 2, eps=1.0, delta=1e-5, rng=1, neighbouring="add_remove")
    ledger = result.combined_ledger
    parts = check_ledger_against_noise(ledger)
    assert parts["gaussian rows"] == len(ledger.releases) - 1
    failure = ledger.releases[1]
    assert (failure.eps, failure.delta) == (0.0, 0.05 * 1e-5)


@pytest.mark.parametrize("grouped", [False, True])
def test_score_add_remove_ledger_matches_the_noise_drawn(grouped):
    # The directions' third is one Gaussian-DP group (the count and the directions) of its
    # delta less the bounds' failure probability (its own row); the frame's searches, the
    # histograms and partition selection are checked row by row.
    import warnings

    import numpy as np

    from dppca import dp_score, dp_score_group
    from test_ledger_noise import _sample, check_ledger_against_noise

    x = _sample(600)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-n accuracy warnings: public facts
        result = dp_score_group(x, np.where(x[:, 0] > 5, "a", "b"), 1.0, 1e-5, rng=1,
                                neighbouring="add_remove") if grouped else \
            dp_score(x, 1.0, 1e-5, rng=1, neighbouring="add_remove")
    parts = check_ledger_against_noise(result.ledger)
    assert parts["gaussian rows"] == 3 and parts["svt rows"] == 3  # count, directions, "add"
    failure = result.ledger.releases[1]
    share = 0.9 / 3 if grouped else 1 / 3  # partition selection takes 10% first
    assert failure.eps == 0.0 and failure.delta == pytest.approx(0.05 * 1e-5 * share, rel=1e-12)
