"""Empirical-Bayes pooling of the private column scales (issue 20: the README path on diabetes)."""
import numpy as np
import pytest

from dppca.preprocessing import as_matrix, private_column_scales
from dppca.preprocessing.scale_pooling import (POOL_TAU_FLOOR_OCTAVES, common_log_scale,
                                               pooled_log_scales)
from dppca.privacy.composition import GaussianGroup

LN2 = np.log(2)
WEAK = 12 * LN2  # the weak public prior's sd of ln SD_D (scales.SCALE_PRIOR_OCTAVES)


def test_alike_columns_are_pulled_together_to_the_floor_factor():
    # Ten readings of one scale, within 1 noise sd (s = 0.1) of their median: their robust
    # spread (1.4826 MAD = 0.066) is less than the noise, so tau sits at its floor (1/32 octave
    # = 0.0217) and the factor tau^2 / (tau^2 + s^2) is 0.045. At 1 s the near half's density
    # (3.9 exp(-0.48) = 2.4) beats the weak one's (0.048) 50:1, so each column keeps at most
    # 1 - (50/51)(1 - 0.045) = 0.064 of its deviation from the median.
    u = 0.1 * np.linspace(-1.0, 1.0, 10)
    pooled, kept = pooled_log_scales(u, np.full(10, 0.1), np.ones(10, bool), WEAK)
    mu, tau = common_log_scale(u, np.full(10, 0.1), np.ones(10, bool))
    assert tau == np.log(2) * POOL_TAU_FLOOR_OCTAVES and mu == np.median(u)
    assert np.all(kept < 0.07)
    assert np.all(np.abs(pooled - mu) <= 0.07 * np.abs(u - mu) + 1e-15)
    # a reading 4 noise sd out: near density 3.9 exp(-7.6) = 0.002 < 0.048, it keeps most of itself
    far = np.r_[u, 0.4]
    pooled, kept = pooled_log_scales(far, np.full(11, 0.1), np.ones(11, bool), WEAK)
    assert kept[-1] > 0.9


def test_scales_spanning_octaves_keep_their_readings():
    # wine / breast_cancer-like: 12 scales over 11 octaves read to s = 0.1: tau is ~3 octaves, so
    # the shrinkage factor 1 - tau^2 / (tau^2 + s^2) is ~0.002 and each column moves by at most
    # that fraction of its distance to the median (<= 4 ln 2 * 0.002 = 0.006)
    u = LN2 * np.linspace(-5.0, 6.0, 12)
    pooled, kept = pooled_log_scales(u, np.full(12, 0.1), np.ones(12, bool), WEAK)
    assert np.all(kept > 0.99)
    np.testing.assert_allclose(pooled, u, atol=0.01)


def test_an_outlying_column_keeps_its_own_reading_and_few_columns_are_not_pooled():
    # five alike columns and one 6 octaves away (42 noise sd): the near half's density there is
    # ~exp(-880), so the weak half takes it whole
    u = np.log([1.04, 0.97, 1.02, 0.95, 1.01, 64.0])
    pooled, kept = pooled_log_scales(u, np.full(6, 0.1), np.ones(6, bool), WEAK)
    assert kept[5] == 1.0 and pooled[5] == u[5]
    # not eligible: untouched; fewer than 4 eligible: nothing pooled
    eligible = np.array([True, True, True, True, True, False])
    pooled, kept = pooled_log_scales(u, np.full(6, 0.1), eligible, WEAK)
    assert pooled[5] == u[5] and kept[5] == 1.0
    pooled, kept = pooled_log_scales(u[:3], np.full(3, 0.1), np.ones(3, bool), WEAK)
    assert np.array_equal(pooled, u[:3]) and np.all(kept == 1.0)


def test_equal_sd_columns_get_nearly_equal_private_scales():
    # diabetes' case (every column scaled to one SD): n = 442, p = 10, eps = 4, the README path's
    # share 0.35. Each column's reading of log2 SD has noise sd ~0.13 octave here (the posterior
    # sd, a function of n, p and the budget), so unpooled the columns' scales spread by ~0.1
    # octave (sd over columns; main's code: 0.066-0.135 on seeds 0-7). Pooled with tau at its
    # 1/32-octave floor, a deviation keeps ~0.055 of itself: a spread of ~0.01. Bound: 0.045,
    # a third of the unpooled noise sd.
    X = np.random.default_rng(20).normal(size=(442, 10))
    X = X / X.std(axis=0, ddof=1)
    spreads = [np.std(np.log2(private_column_scales(
        as_matrix(X), rng=np.random.default_rng(seed), noise=GaussianGroup(4.0, 1e-5).share(0.35))),
        ddof=1) for seed in range(5)]
    assert np.mean(spreads) < 0.045, spreads


def test_a_binary_column_read_at_the_octave_edge_is_pooled_too():
    # diabetes' sex column: a binary column (P = 0.47) of the same SD as nine Gaussian ones, read
    # at the octave edge above |D| (scale_shape.bulk_edges) with delta-method noise sd ~0.29
    # octave, or on the grid when the edge is not chosen. Unpooled its log2 scale deviates from
    # the others' median by ~N(0, 0.29^2): median |deviation| ~0.2 (main's code: 0.13 on seeds
    # 0-7). Pooled, a deviation keeps ~tau^2 / (tau^2 + s^2) ~ 0.01 of itself whenever the edge
    # reading is used. Bound: a quarter of the edge reading's noise sd.
    rng = np.random.default_rng(20)
    X = rng.normal(size=(442, 10))
    X[:, 9] = np.where(rng.random(442) < 0.47, 1.0, 0.0)
    X = X / X.std(axis=0, ddof=1)
    deviations = []
    for seed in range(8):
        log_s = np.log2(private_column_scales(as_matrix(X), rng=np.random.default_rng(seed),
                                              noise=GaussianGroup(4.0, 1e-5).share(0.35)))
        deviations.append(abs(log_s[9] - np.median(log_s)))
    assert np.median(deviations) < 0.07, deviations


def test_broad_posteriors_keep_the_grid_prior_on_wine():
    # wine (n = 178, 13 columns over 11 octaves) at eps = 4: many columns' posteriors are
    # several octaves wide and multi-modal, so a normal summary of them is pulled towards the
    # wrong mode; they get the pooled prior on the grid (scales.SCALE_SHARP_OCTAVES). Over seeds
    # 0-19 the fraction of columns within 2x of the SD is 0.915 (SE 0.018) with the grid
    # fallback and 0.842 when every column is pooled through its normal summary
    # (benchmarks/results/small_data_pooling.txt, section 1). The bound 0.88 sits ~2 SE from both.
    datasets = pytest.importorskip("sklearn.datasets")
    X = datasets.load_wine().data
    sd = X.std(axis=0, ddof=1)
    within = [np.mean(np.abs(np.log2(private_column_scales(
        as_matrix(X), rng=np.random.default_rng(seed),
        noise=GaussianGroup(4.0, 1e-5).share(0.35)) / sd)) < 1) for seed in range(20)]
    assert np.mean(within) > 0.88, np.mean(within)
