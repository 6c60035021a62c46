"""Sensitivities and privacy accounting behind dp_scree (dppca.estimators.pair_means, R-grid quantile).

Each claimed sensitivity is checked by an empirical neighbour search: replace one row by
outliers, duplicates of other rows and random points, keep everything public fixed (pairing,
thresholds, directions), and assert that the statistic never moves by more than the bound and
that the bound is not absurdly loose.
"""
import math

import numpy as np
import pytest

from dppca import DPPCAValueError
from dppca.privacy import Ledger, gaussian_sigma
from dppca.privacy.quantiles import unbounded_quantile_between
from dppca.results.scree import antitonic, monotone_scree, share_of_sum
from dppca.estimators.pair_means import dp_clipped_mean, dp_huber_mean
from dppca.stats.pair_statistics import pair_clamped_means, paired_squares
from dppca.estimators.tuning import dp_log2_centre, m2_counts
from dppca.privacy.composition import GaussianGroup
from dppca.preprocessing import random_pairs


def _neighbours(X, rng, rows=range(0, 40, 7)):
    """Datasets differing from X in one row: outliers, a duplicate, a near-duplicate, random."""
    scale = np.abs(X).max()
    for i in rows:
        for new in (X[(i + 1) % len(X)], X[(i + 1) % len(X)] + 1e-9, rng.normal(size=X.shape[1]),
                    rng.normal(size=X.shape[1]) * 1e3 * scale, -1e6 * scale * np.ones(X.shape[1])):
            Y = X.copy()
            Y[i] = new
            yield Y


@pytest.fixture
def heavy():
    return np.random.default_rng(5).standard_t(2, size=(40, 3))


def test_pair_clamped_means_match_brute_force():
    rng = np.random.default_rng(0)
    for n in (2, 3, 11, 60):
        Y = rng.standard_t(2, size=(n, 3)) * 5 + 100
        Y[1] = Y[0]  # ties: a zero pair value
        i, j = np.triu_indices(n, 1)
        u = (Y[i] - Y[j]) ** 2 / 2
        for lower, upper in [(0, np.inf), (0.5, 3.0), (-2, 1.0), (2, 2), (0, -1.0)]:
            assert np.allclose(pair_clamped_means(Y, lower, upper),
                               np.clip(u, lower, upper).mean(axis=0), rtol=1e-10, atol=1e-10)
    # Unclamped, the U-statistic is the sample variance (denominator n - 1).
    assert np.allclose(pair_clamped_means(Y, 0, np.inf), Y.var(axis=0, ddof=1))


@pytest.mark.parametrize("lower,upper", [(0.0, 0.5), (0.2, 2.0), (1.0, 1.5)])
def test_clamped_pair_mean_sensitivity_is_2w_over_n(heavy, lower, upper):
    rng = np.random.default_rng(1)
    n = len(heavy)
    bound = 2 * (upper - lower) / n
    base = pair_clamped_means(heavy, lower, upper)
    worst = max(np.abs(pair_clamped_means(Y, lower, upper) - base).max()
                for Y in _neighbours(heavy, rng))
    assert 0 < worst <= bound * (1 + 1e-9)
    assert worst > bound / 4  # an outlier moves its n - 1 pairs from inside to the clamp


@pytest.mark.parametrize("mu", [0.3, 5.0, -0.4])
def test_huber_score_sensitivity(heavy, mu):
    # Score terms clamp(u - mu, -tau, tau) lie in an interval of width tau + min(tau, max(mu, 0)).
    rng = np.random.default_rng(2)
    tau = 1.0
    width = tau + min(tau, max(mu, 0.0))
    bound = 2 * width / len(heavy)

    def score(Y):
        return pair_clamped_means(Y, mu - tau, mu + tau) - mu

    base = score(heavy)
    worst = max(np.abs(score(Y) - base).max() for Y in _neighbours(heavy, rng))
    assert 0 < worst <= bound * (1 + 1e-9)
    assert worst > bound / 4


def test_paired_values_move_one_pair():
    # With the pairing fixed (drawn independently of the data), one replaced row changes one
    # pair value per column: the basis of the trace, tuning and histogram sensitivities.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(41, 2))
    pairs = random_pairs(41, rng)
    base = paired_squares(X, pairs)
    for Y in _neighbours(X, rng, rows=range(41)):
        assert np.sum(np.any(paired_squares(Y, pairs) != base, axis=1)) <= 1


def test_random_pairs_are_disjoint_and_data_free():
    first, second = random_pairs(11, np.random.default_rng(0))
    assert len(first) == len(second) == 5
    assert len(set(first) | set(second)) == 10


def test_tuning_histogram_counts_have_l2_sensitivity_sqrt_2k():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 3))
    pairs = random_pairs(50, rng)
    edges = np.array([0, 0.1, 0.5, 1, 2, 8.0])

    def counts(Z):
        w = paired_squares(Z, pairs)
        bins = np.clip(np.searchsorted(edges, w, side="right") - 1, 0, edges.size - 2)
        return np.stack([np.bincount(bins[:, j], minlength=5) for j in range(3)])

    base = counts(X)
    worst = max(np.linalg.norm(counts(Y) - base) for Y in _neighbours(X, rng, rows=range(50)))
    assert 0 < worst <= math.sqrt(2 * 3)


def test_m2_histogram_counts_have_l1_sensitivity_2_per_column():
    # R's m2 step: one replaced row changes one w, one s_j, one block median: <= 2 counts move.
    rng = np.random.default_rng(11)
    X = rng.standard_t(3, size=(80, 2))
    pairs = random_pairs(80, rng)

    def counts(Z):
        return m2_counts(paired_squares(Z, pairs), -6, 6, blocks=5)

    base = counts(X)
    worst = max(np.abs(counts(Y) - base).sum() for Y in _neighbours(X, rng, rows=range(0, 80, 3)))
    assert 0 < worst <= 2 * 2


def test_group_shares_compose_to_the_budget():
    group = GaussianGroup(1.0, 1e-5)
    shares = [0.5, 0.1 / 3, 0.2 / 3, 0.4]
    sigmas = [group.share(a).sigma(2.0) for a in shares]
    # sum_i (D / sigma_i)^2 = mu^2: exactly one Gaussian mechanism at (eps, delta).
    assert sum((2.0 / s) ** 2 for s in sigmas) == pytest.approx(group.mu ** 2, rel=1e-12)
    assert group.mu == pytest.approx(1 / gaussian_sigma(1.0, 1.0, 1e-5))
    # GDP composition beats splitting eps and delta: each half gets ~twice the mu^2.
    assert group.share(0.5).sigma(1.0) < gaussian_sigma(1.0, 0.5, 5e-6) / 1.35


@pytest.mark.parametrize("calibration", ["analytic", "classic"])
def test_standalone_budget_reproduces_the_share(calibration):
    group = GaussianGroup(0.8, 1e-5, calibration)
    for fraction in (0.5, 0.1, 0.9):
        eps_a, delta_a = group.standalone(fraction)
        assert delta_a == pytest.approx(fraction * 1e-5)
        sigma = gaussian_sigma(1.0, eps_a, delta_a, calibration)
        # dp_accounting's search is numerical: agreement to 1e-4 relative.
        assert group.fraction_of(1.0, sigma) == pytest.approx(fraction, rel=1e-4)


def test_absorb_records_shares_and_refuses_non_gaussian():
    group = GaussianGroup(1.0, 1e-5)
    other = Ledger(5.0, 1e-3)
    other.record("directions", "Gaussian (analytic)", 0.5, "Frobenius", 0.5 / (0.3 * group.mu), 0.4, 1e-6)
    ledger = Ledger(1.0, 1e-5)
    assert group.absorb(other.releases, ledger) == pytest.approx(0.09)
    assert ledger.spent_eps == pytest.approx(0.09) and ledger.spent_delta == pytest.approx(9e-7)
    other.record("quantile", "exponential (rank utility)", 1.0, "rank", np.nan, 0.1, 0.0)
    with pytest.raises(DPPCAValueError, match="not Gaussian"):
        group.absorb(other.releases, Ledger(1.0, 1e-5))


def test_clipped_release_noise_and_ledger():
    rng = np.random.default_rng(6)
    Y = rng.normal(size=(200, 2))
    group = GaussianGroup(1.0, 1e-5)
    ledger = Ledger(1.0, 1e-5)
    release = dp_clipped_mean(Y, np.array([3.0, 6.0]), group.share(1.0), rng, ledger=ledger)
    row = ledger.to_frame().iloc[0]
    assert row["sensitivity"] == pytest.approx(2 * math.sqrt(2) / 200)
    sigma = row["noise_scale"]
    assert np.allclose(release.noise_sd, [3.0 * sigma, 6.0 * sigma])
    assert ledger.spent_eps == pytest.approx(1.0)


def test_clipped_release_is_unbiased_for_the_clipped_u_statistic():
    # The noise is N(0, (C sigma)^2): over 400 draws the mean error is within 4 s.e. of 0.
    Y = np.random.default_rng(7).normal(size=(100, 1))
    target = pair_clamped_means(Y, 0, 3.0)[0]
    group = GaussianGroup(1.0, 1e-5)
    draws = [dp_clipped_mean(Y, 3.0, group.share(1.0), np.random.default_rng(s)) for s in range(400)]
    errors = np.array([d.estimate[0] - target for d in draws])
    assert abs(errors.mean()) < 4 * draws[0].noise_sd[0] / math.sqrt(400)
    assert errors.std() == pytest.approx(draws[0].noise_sd[0], rel=0.15)


def test_huber_gd_converges_to_the_winsorized_fixed_point_with_tiny_noise():
    Y = np.random.default_rng(8).normal(size=(300, 1)) * 2
    tau = 1.01 * np.max((Y[:, None, 0] - Y[None, :, 0]) ** 2 / 2)
    group = GaussianGroup(1e10, 0.5)  # mu ~ sqrt(2 eps) = 1.4e5: noise ~1e-5, the plain iteration
    release = dp_huber_mean(Y, np.array([tau]), 5, np.array([0.0]), 1.0, group.share(1.0),
                            np.random.default_rng(0))
    # tau above every pair value: from mu0 = 0 one step reaches the sample variance, a fixed point.
    assert release.estimate[0] == pytest.approx(Y.var(ddof=1), rel=1e-4)


def test_log2_centre_locates_the_bulk():
    values = np.random.default_rng(9).uniform(90, 110, size=5000)
    group = GaussianGroup(5.0, 1e-5)
    centre = dp_log2_centre(values, group.share(1.0), np.random.default_rng(0))
    assert 64 <= centre <= 128  # the fullest bin is [64, 128)


def test_log2_centre_finds_spread_out_data():
    # chi2_1 values spread over ~10 log2 bins; 150 values at a modest budget: the window of 5 bins
    # must beat the ~120 empty bins' noise and land within a factor 4 of the median (0.455).
    values = np.random.default_rng(12).chisquare(1, size=150)
    group = GaussianGroup(1.0, 1e-5)
    for seed in range(5):
        centre = dp_log2_centre(values, group.share(0.5), np.random.default_rng(seed))
        assert 0.455 / 4 < centre < 0.455 * 4


def test_unbounded_quantile_on_the_r_grid_matches_r_reference_values():
    # reference/r-dppca-scree.md §7.5: noise made negligible with eps = 1e12, data 0..99.
    data = np.arange(100.0)
    rng = np.random.default_rng(0)
    assert unbounded_quantile_between(data, 0.5, 1e12, rng, 0, beta=2) == 63
    assert unbounded_quantile_between(data, 0.5, 1e12, rng, 10, beta=2) == 73
    # R counts x < t, dppca.privacy.quantiles.unbounded_quantile x <= t: at q m = 90 exactly the count
    # ties with the target at t = 89.69, so either neighbouring grid point is the R answer.
    upper = unbounded_quantile_between(data, 0.9, 1e12, rng, 0, 1000, 1.01)
    assert upper == pytest.approx(90.60173452) or upper == pytest.approx(1.01 ** 453 - 1)
    assert unbounded_quantile_between(data, 0.1, 1e12, rng, 0, 1000, 1.01) == \
        pytest.approx(3.223191923)


def test_unbounded_quantile_ledger_and_errors():
    ledger = Ledger(1.0, 0.0)
    unbounded_quantile_between(np.arange(10.0), 0.5, 0.5, np.random.default_rng(0), 0, ledger=ledger)
    assert ledger.spent_eps == pytest.approx(0.5) and ledger.spent_delta == 0
    rng = np.random.default_rng(0)
    with pytest.raises(DPPCAValueError, match="`beta`"):
        unbounded_quantile_between([1.0], 0.5, 1, rng, 0, beta=1.0)
    with pytest.raises(DPPCAValueError, match="`q`"):
        unbounded_quantile_between([1.0], 1.0, 1, rng, 0)
    with pytest.raises(DPPCAValueError, match="finite `upper`"):
        unbounded_quantile_between([1.0], 0.2, 1, rng, 0)


def test_monotone_post_processing_matches_r():
    assert np.allclose(antitonic([3, 1, 2, 5, 0]), [3, 8 / 3, 8 / 3, 8 / 3, 0])
    assert np.allclose(monotone_scree([-1, 2, 0.5]), [1, 1, 0.5])
    assert np.allclose(monotone_scree([4.0]), [4.0])
    assert np.allclose(share_of_sum([0.0, 0.0]), [0, 0])
    assert np.allclose(share_of_sum([3.0, 1.0]), [0.75, 0.25])
