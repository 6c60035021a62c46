"""The rank path's score releases in the audit: claims attained, never exceeded, canaries seen.

Quick sizes as in test_audit.py (which also runs these entries through its generic checks):
the two normal-scores histogram releases at sqrt(2p) and the whole Gaussian group of
dp_score(standardize="rank") at its mu, on adversarial rows (+-1e300, 0), ties and duplicates.
"""
import math

import numpy as np
import pytest

from dppca.audit import REGISTRY, RATIO_TOLERANCE, neighbour_search
from dppca.audit.canary import (CANARY_FACTOR, CANARY_FAMILIES, CANARY_RUNS, canary_direction,
                                gaussian_shift_audit, scaled_noise)
from dppca.audit.registry import distance
from dppca.audit.releases_rank_scores import GROUP

RANGE = "rank scores: normal-scores range histograms"
QUANTILES = "rank scores: normal-scores quantile histograms (warps public)"
GROUP_ENTRY = "rank scores: dp_score(standardize='rank') Gaussian group, in noise sd"
TIES_ENTRY = "rank scores: dp_score(standardize='rank') Gaussian group, rounded data with ties"


@pytest.fixture(scope="module")
def searches():
    with np.errstate(all="ignore"):
        return {name: neighbour_search(REGISTRY[name], seed=0, sizes=(5, 12, 50))
                for name in (RANGE, QUANTILES, GROUP_ENTRY, TIES_ENTRY)}


@pytest.mark.parametrize("name", [RANGE, QUANTILES, GROUP_ENTRY, TIES_ENTRY])
def test_search_never_exceeds_the_claim(name, searches):
    assert searches[name].ratio <= 1 + RATIO_TOLERANCE


@pytest.mark.parametrize("name", [RANGE, QUANTILES])
def test_histogram_claim_is_attained(name, searches):
    # sqrt(2p) is reached when the replaced row changes bin in every column; the search's
    # structured rows (+-1e300 against Gaussian rows) do that, so the ratio is 1 up to rounding.
    assert searches[name].ratio >= 1 - 1e-12


@pytest.mark.parametrize("value", [1e300, -1e300, 0.0])
def test_adversarial_magnitudes_ties_and_duplicates(value):
    # Ten duplicated rows tied in every column; one is replaced by an extreme (or zero) row.
    # The range histograms move by exactly sqrt(2p) (in every column one count leaves the
    # half-octave bin of 1.5, -2 or 3 for that of the new value), the quantile histograms by at
    # most sqrt(2p) (values beyond a column's public bracket share its end bin), and the whole
    # group, in noise sd, by at most mu.
    D = np.tile([[1.5, -2.0, 3.0]], (10, 1))
    D_prime = D.copy()
    D_prime[0] = value
    p = D.shape[1]
    moved = {}
    for name in (RANGE, QUANTILES, GROUP_ENTRY):
        release = REGISTRY[name]
        ctx = release.context(D, np.random.default_rng(0))
        moved[name] = distance(release.statistic(D, ctx), release.statistic(D_prime, ctx), "L2")
    assert moved[RANGE] == pytest.approx(math.sqrt(2 * p), rel=1e-12)
    assert 0 < moved[QUANTILES] <= math.sqrt(2 * p) * (1 + RATIO_TOLERANCE)
    assert 0 < moved[GROUP_ENTRY] <= GROUP.mu * (1 + RATIO_TOLERANCE)


@pytest.mark.parametrize("name", [RANGE, QUANTILES])
def test_half_noise_canary_is_rejected_and_real_release_passes(name, searches):
    # The shift test is exact for these releases (linear in their Gaussian noise, direction
    # f(D') - f(D) fixed before the releases). Each release runs alone at (1, 1e-5), mu 0.268;
    # with CANARY_RUNS = 2,000 scores per side, se = sqrt((2 + 0.536^2 / 4) / 2000) = 0.032, so
    # half noise (mu 0.536 on a pair showing the whole sensitivity) gives mu_lb > 0.268 unless
    # mu_hat falls 0.268 / 0.032 - 2.77 = 5.6 se low (dppca/audit/canary.py).
    assert name in CANARY_FAMILIES
    release, worst = REGISTRY[name], searches[name]
    args = (release.mechanism, worst.D, worst.D_prime, worst.ctx, CANARY_RUNS, release.eps, release.delta)
    direction = canary_direction(release, worst.D, worst.D_prime, worst.ctx)
    assert not gaussian_shift_audit(*args, seed=2, direction=direction).rejects
    with scaled_noise(CANARY_FACTOR):
        assert gaussian_shift_audit(*args, seed=2, direction=direction).rejects
