"""The privacy audit in fast mode: every registered release, neighbour search and distinguishing.

Fixed seeds; the full mode (more sizes, steps and releases) is ``benchmarks/audit_privacy.py``.
Releases known to fail today are ``xfail(strict=True)`` with the reason in the registry, so a
fix shows up as an XPASS failure and the mark must then be removed.
"""
import math

import numpy as np
import pytest

from dppca.audit import (REGISTRY, RATIO_TOLERANCE, AuditedRelease, distinguishing_audit,
                         eps_lower_bound, neighbour_search, offset_attack)
from dppca.audit.canary import CANARY_FAMILIES
from dppca.privacy import gaussian_sigma
from dppca.privacy.samplers import gaussian_noise

#: Releases per neighbour in the fast distinguishing test (half pick the threshold).
FAST_RUNS = 300


def _marked(names):
    return [pytest.param(name, marks=pytest.mark.xfail(reason=REGISTRY[name].xfail, strict=True))
            if REGISTRY[name].xfail else name for name in names]


@pytest.fixture(scope="module")
def searches():
    return {}


def _search(name, cache):
    if name not in cache:
        with np.errstate(all="ignore"):
            cache[name] = neighbour_search(REGISTRY[name], seed=0, sizes=(5, 12, 50))
    return cache[name]


@pytest.mark.parametrize("name", _marked(sorted(REGISTRY)))
def test_neighbour_search_ratio_at_most_one(name, searches):
    result = _search(name, searches)
    assert result.ratio <= 1 + RATIO_TOLERANCE, f"{name}: ratio {result.ratio:.6g} at {result.where}"


@pytest.mark.parametrize("name", sorted(n for n, r in REGISTRY.items() if r.mechanism and not r.xfail))
def test_distinguishing_eps_lower_bound_within_claim(name, searches):
    release = REGISTRY[name]
    worst = _search(name, searches)
    result = distinguishing_audit(release.mechanism, worst.D, worst.D_prime, worst.ctx,
                                  release.fast_runs or FAST_RUNS, release.delta, seed=1)
    # eps_lb is a 95% lower confidence bound: it exceeds the true eps with probability <= 5%,
    # and the seeds are fixed, so a failure is a reproducible leak, not noise.
    assert result.eps_lb <= release.eps, f"{name}: eps_lb {result.eps_lb:.3g} > {release.eps}"


def test_registry_covers_every_release_family():
    families = ["g-DPPCA", "scale:", "trace:", "trace tuning", "scree: clipped", "scree: winsorized",
                "scree: Huber", "scree tuning", "scree tuning: clip-choice", "huber tuning", "quantile scans", "frame: median",
                "histograms: additive", "histograms: sparse", "histograms: grouped", "group sizes",
                "analyze_gauss", "cai_xia_zha", "dp_sggd", "k_dp_pca", "k_dp_ojas", "noisy_power", "centre:", "groups: partition selection",
                "rank:", "missing:"]
    for family in families:
        assert any(family in name for name in REGISTRY), family


def test_every_registered_release_has_a_distinguishing_runner():
    # Each entry releases through the package's own functions (whole method, or the step's own
    # statistic and sampler with its public inputs fixed), so the audit above covers it.
    assert [name for name, release in REGISTRY.items() if release.mechanism is None] == []


# ----------------------------------------------------------------------------- the audit's power


def _gaussian_release(multiplier):
    """A Gaussian mechanism on the mean of rows clipped to [0, 1], noise for `multiplier` x 1/n."""
    def statistic(X, ctx):
        return np.atleast_1d(np.clip(X[:, 0], 0, 1).mean())

    def mechanism(X, ctx, rng):
        sigma = gaussian_sigma(multiplier / X.shape[0], 1.0, 1e-5)
        return statistic(X, ctx) + gaussian_noise(sigma, 1, rng)

    return AuditedRelease("test", statistic, lambda n, p, c: multiplier / n, mechanism=mechanism,
                          p=1)


def _zero_one_pair():
    D = np.zeros((10, 1))
    D_prime = D.copy()
    D_prime[0] = 1.0
    return D, D_prime


def test_neighbour_search_catches_an_understated_sensitivity():
    result = neighbour_search(_gaussian_release(0.5), seed=0, sizes=(5,), greedy_steps=5)
    assert result.ratio == pytest.approx(2.0)


def test_distinguishing_catches_a_mechanism_with_too_little_noise():
    # noise for 1/20 of the true sensitivity: the real eps is about 20x the claim of 1
    release = _gaussian_release(0.05)
    D, D_prime = _zero_one_pair()
    result = distinguishing_audit(release.mechanism, D, D_prime, {}, 1000, 1e-5, seed=0)
    assert result.eps_lb > 2.0


def test_distinguishing_is_nearly_tight_for_the_gaussian_mechanism():
    # Exact mechanism at its worst pair: mu = Delta/sigma = 0.27 for (1, 1e-5), so even the
    # best threshold separates weakly (point estimate ~0.6 at FPR 2.5%) and the Clopper-Pearson
    # bounds of 2,000 evaluation runs leave ~0.06: positive (the test has power) and <= 1.
    release = _gaussian_release(1.0)
    D, D_prime = _zero_one_pair()
    result = distinguishing_audit(release.mechanism, D, D_prime, {}, 4000, 1e-5, seed=0)
    assert 0.0 < result.eps_lb <= 1.0


def test_eps_lower_bound_of_perfectly_separated_samples_is_limited_by_sample_size():
    result = eps_lower_bound(np.zeros(1000), np.ones(1000), 1e-5)
    # FPR 0 of 500: Clopper-Pearson upper bound 1 - 0.025^(1/500) = 7.35e-3; FNR likewise
    assert result.eps_lb == pytest.approx(math.log((1 - 1e-5 - 7.35e-3) / 7.35e-3), rel=1e-2)


# ----------------------------------------------------------------------------- finding 1 end to end


def test_offset_attack_through_dp_scree_is_within_eps():
    # dp_scree(..., "clipped", C_clip=6e-4, eps=1, delta=1e-5) with fixed public directions,
    # 2,000 releases per neighbour: eps_lb was 5.6 before the block-relative pair statistics.
    result = offset_attack(runs=2000, seed=0)
    assert result.eps_lb <= 1.0


# ----------------------------------------------------------------------------- half-noise canaries

@pytest.mark.parametrize("name", CANARY_FAMILIES)
def test_distinguishing_audit_rejects_the_half_noise_canary(name, searches):
    # Families whose release is linear in its Gaussian noise (the shift test is exact there)
    # and drawn by the exact samplers, which scaled_noise weakens (dppca/audit/canary.py).
    # The family's real mechanism on its worst pair with every exact-sampler draw at half its
    # scale (ledger unchanged). The Gaussian shift test with CANARY_RUNS = 2,000 releases per
    # side, at level 2.5% split over the families (Bonferroni), has power 0.999 per family
    # against half noise on a pair that shows the whole sensitivity, 0.98 on one that shows 90%
    # of it along the estimated direction (dppca/audit/canary.py).
    from dppca.audit.canary import CANARY_FACTOR, CANARY_RUNS, canary_direction, gaussian_shift_audit, scaled_noise

    # The real mechanism must pass the same test: all families together flag a correct
    # mechanism with probability <= 2.5%, so the seed is the benchmark's (audit_privacy.py's
    # quick mode: search seed 0, releases seed 2), not one picked to pass. A mechanism that
    # draws half its noise whatever its ledger says is seen (benchmarks/mutations.py M10, M11).
    release = REGISTRY[name]
    worst = _search(name, searches)
    args = (release.mechanism, worst.D, worst.D_prime, worst.ctx, CANARY_RUNS, release.eps,
            release.delta)
    direction = canary_direction(release, worst.D, worst.D_prime, worst.ctx)
    real = gaussian_shift_audit(*args, seed=2, direction=direction)
    assert not real.rejects, f"{name}: mu_lb {real.mu_lb:.3f} > claimed mu {real.mu_claim:.3f}"
    with scaled_noise(CANARY_FACTOR):
        canary = gaussian_shift_audit(*args, seed=2, direction=direction)
    assert canary.rejects, f"{name}: half noise not seen (mu_lb {canary.mu_lb:.3f} <= {canary.mu_claim:.3f})"
