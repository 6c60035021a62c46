"""The rank path's scree: dp_scree(X, k, standardize="rank").

The values are the top-k eigenvalues of the private latent correlation (one Kendall's tau
release), PVE is over the public trace p, and the intervals (RankBound) cover the population
values (eigenvalues of sin(pi tau_b / 2), the latent correlation's for continuous columns) with
probability >= 0.95, all values at once, ties allowed.
"""
import warnings

import numpy as np
import pytest
from scipy.stats import chi2

from dppca import DPPCAValueError, dp_pc_dir, dp_scree, dp_scree_plot, interop, plan
from dppca.results.scree_rank import RANK_SCREE_ESTIMAND, RankBound, RankScreeResult
from dppca.stats.copula_bridge import bridged_matrix, latent_correlation
from dppca.stats.elementwise_kendall import kendall_tau_matrix
from dppca.results.rank_concentration import (bernstein_radius, untied_share_interval,
                                            weighted_chi2_bound)

#: A latent correlation with distinct eigenvalues (2.32, 1.19, 0.61, 0.49, 0.40).
LATENT = np.array([[1, .6, .5, .3, .1], [.6, 1, .5, .3, .1], [.5, .5, 1, .2, .1],
                   [.3, .3, .2, 1, .4], [.1, .1, .1, .4, 1]])
TRUE_VALUES = np.linalg.eigvalsh(LATENT)[::-1]


def gaussian(n, seed, latent=LATENT):
    return np.random.default_rng(seed).multivariate_normal(np.zeros(len(latent)), latent, size=n)


def rank_scree(x, k, seed=1, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # accuracy warnings: not what these tests pin
        return dp_scree(x, k, standardize="rank", rng=seed, **{"eps": 1.0, "delta": 1e-5,
                                                               **kwargs})


def test_intervals_cover_the_population_latent_eigenvalues_in_every_run():
    # The bound holds with probability >= 0.95 per run (all five values at once), so by the
    # nominal level alone 20 of 20 would be likely only 0.95^20 = 36% of the time; the test asks
    # for all 20 because the bound is conservative (Frobenius >= spectral norm, the worst-case
    # kernel variance 1, a union bound): the realised error is at most 0.12 of the half-width
    # here (asserted below at 0.5), so a single miss would mean a wrong constant, not bad luck.
    ratios = []
    for seed in range(20):
        result = rank_scree(gaussian(2000, seed), 5, seed=100 + seed)
        ci = result.conf_int()
        lower, upper = ci[("rank", "lower")], ci[("rank", "upper")]
        assert ((lower <= TRUE_VALUES) & (TRUE_VALUES <= upper)).all()
        half = result.fits["rank"].bound.halfwidth()
        ratios.append(np.max(np.abs(result.raw["rank"].to_numpy() - TRUE_VALUES)) / half)
    assert max(ratios) < 0.5


def test_halfwidths_shrink_as_n_grows():
    widths = [rank_scree(gaussian(n, 3), 2).fits["rank"].bound.halfwidth()
              for n in (500, 2000, 8000)]
    assert widths[0] > widths[1] > widths[2]
    # the sampling radius scales as 1 / sqrt(m), m = n // 2, at fixed tie shares; the shares'
    # lower end also rises with n (its margin shrinks as 1 / sqrt(m)), so 4x the rows give a
    # little less than half: 0.49 here, and a lost sqrt would give 0.25 or 0.7
    bound = RankBound(2000, 5, 0.0, 1.0, 0.0, 0.0)
    ratio = RankBound(8000, 5, 0.0, 1.0, 0.0, 0.0).sampling_radius() / bound.sampling_radius()
    assert 0.45 < ratio <= 0.5


def test_weighted_chi2_bound_is_exact_for_equal_weights_and_covers_unequal_ones():
    # equal weights: sigma^2 chi2_q exactly (the max-weight bound is then the quantile)
    assert weighted_chi2_bound(np.full(15, 0.09), 0.05) == pytest.approx(0.09 * chi2.ppf(0.95, 15))
    # unequal weights: over 20,000 draws the share above the bound is at most 0.05; binomial sd
    # sqrt(.05 .95 / 20000) = 0.0015, so 0.05 + 4 sd cannot fail by chance
    rng = np.random.default_rng(7)
    weights = np.concatenate([np.full(3, 4.0), np.full(25, 0.2)])
    draws = rng.standard_normal((20_000, weights.size)) ** 2 @ weights
    assert np.mean(draws > weighted_chi2_bound(weights, 0.05)) < 0.05 + 4 * 0.0015


def test_bernstein_radius_and_share_interval_cover():
    # the share of untied pairs of a binary column with P(1) = 0.1 is t = 2 (0.1)(0.9) = 0.18;
    # each interval misses with probability <= 0.05 (sampling 0.025 + noise 0.025): over 300
    # samples 15 misses are allowed on average; 30 would need a wrong constant (binomial sd 3.8)
    t, sigma, misses = 0.18, 0.01, 0
    rng = np.random.default_rng(3)
    for _ in range(300):
        column = (rng.random(400) < 0.1).astype(float)[:, None]
        released = kendall_tau_matrix(column)[0, 0] + rng.normal(0, sigma)
        lower, upper = untied_share_interval([released], 400, sigma, 0.025, 0.025)
        misses += not lower[0] <= t <= upper[0]
    assert misses < 30
    # Bernstein for a mean of 1000 Bernoulli(0.1): sd 0.0095; the radius at alpha 0.05 lies
    # between the normal quantile (1.96 sd) and 3.5 sd, and it covers
    radius = bernstein_radius(0.09, 1.0, 1000, 0.05)
    assert 1.96 * 0.0095 < radius < 3.5 * 0.0095
    means = rng.binomial(1000, 0.1, size=20_000) / 1000
    assert np.mean(np.abs(means - 0.1) >= radius) < 0.05


def tied(n, seed, latent=LATENT):
    """Gaussian copula data with ties: a binary, a ternary and a 5-level column (and 2 continuous
    ones): the rank path's estimand is then sin(pi tau_b / 2), not the latent correlation."""
    z = gaussian(n, seed, latent)
    return np.column_stack([z[:, 0] > 0.8, np.digitize(z[:, 1], [-0.5, 0.7]),
                            np.clip(np.round(z[:, 2]), -2, 2), z[:, 3], z[:, 4]]).astype(float)


def test_intervals_cover_the_tau_b_values_with_ties_and_are_useful():
    # The population target is approximated from 100,000 rows: its sampling error is about
    # 1 / sqrt(50,000) = 0.005 per tau entry, against half-widths near 1. As in the continuous
    # test, every run is asked to cover (the realised error stays far below the half-width).
    truth = np.linalg.eigvalsh(bridged_matrix(kendall_tau_matrix(tied(100_000, 99))))[::-1]
    for seed in range(10):
        result = rank_scree(tied(3000, seed), 5, seed=200 + seed, eps=2.0)
        half = result.fits["rank"].bound.halfwidth()
        error = np.max(np.abs(result.raw["rank"].to_numpy() - truth))
        assert error < 0.5 * half
        # useful: the first value is marked reliable (half-width below it); the tau-a bound this
        # replaces gave [0, p] here (its diagonal term, about 6, alone exceeded p)
        assert result.reliable["rank"].iloc[0]


def test_sampling_radius_bounds_the_tau_error():
    # The sampling bound (alpha = 0.05: miss probability <= 0.025) against the population
    # tau = (2 / pi) arcsin(r) of Gaussian data: over 200 samples of n = 200 none exceeds it.
    population = 2 / np.pi * np.arcsin(LATENT)
    off = ~np.eye(5, dtype=bool)
    radius = RankBound(200, 5, 0.0, 1.0, 0.0, 0.0).sampling_radius()
    errors = [np.linalg.norm((kendall_tau_matrix(gaussian(200, seed)) - population)[off])
              for seed in range(200)]
    assert max(errors) < radius
    # The bound is conservative but of the error's order: the median error is 0.13 of it here
    # (McDiarmid on m = n / 2 disjoint pairs with worst-case differences; the complete
    # U-statistic's variance is smaller): a lost sqrt or a wrong m would move this past 1/10.
    assert np.median(errors) > radius / 10


def test_values_pve_and_total_are_the_latent_correlation_over_p():
    result = rank_scree(gaussian(1500, 0), 3, nonprivate=True)
    assert isinstance(result, RankScreeResult)
    assert result.methods == ("rank",)
    assert list(result.scree.columns) == ["rank", "nonprivate"]
    assert result.total_variance.to_dict() == {"rank": 5.0, "nonprivate": 5.0}
    np.testing.assert_allclose(result.pve["rank"], result.scree["rank"] / 5, rtol=1e-14)
    np.testing.assert_allclose(result.cumulative_pve["rank"], np.cumsum(result.scree["rank"] / 5))
    expected = np.linalg.eigvalsh(latent_correlation(kendall_tau_matrix(gaussian(1500, 0))))
    np.testing.assert_allclose(result.scree["nonprivate"], expected[::-1][:3], rtol=1e-10)
    ci = result.conf_int()
    assert (ci[("rank", "lower")] >= 0).all() and (ci[("rank", "upper")] <= 5).all()


def test_one_release_shared_with_the_directions():
    x = gaussian(1000, 2)
    result = rank_scree(x, 2, seed=5, missing=0.0)  # declared fill value: no median release
    assert len(result.combined_ledger.releases) == 1
    assert result.combined_ledger.spent_eps == pytest.approx(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        directions = dp_pc_dir(x, 2, standardize="rank", eps=1.0, delta=1e-5, rng=5, missing=0.0)
    np.testing.assert_allclose(np.abs(result.directions.to_numpy()),
                               np.abs(directions.directions.to_numpy()), atol=1e-12)


def test_monotone_transforms_change_nothing():
    x = gaussian(800, 4)
    a, b = rank_scree(x, 3, seed=9), rank_scree(np.exp(x) ** 3, 3, seed=9)
    np.testing.assert_array_equal(a.scree.to_numpy(), b.scree.to_numpy())
    np.testing.assert_array_equal(a.conf_int().to_numpy(), b.conf_int().to_numpy())


def test_reliable_means_halfwidth_below_value():
    result = rank_scree(gaussian(4000, 1), 5)
    half = result.fits["rank"].bound.halfwidth()
    np.testing.assert_array_equal(result.reliable["rank"].to_numpy(),
                                  result.raw["rank"].to_numpy() > half)
    assert result.reliable["rank"].iloc[0] and not result.reliable["rank"].iloc[-1]


def test_repair_move_and_diagonal_term_from_the_release():
    rng = np.random.default_rng(0)
    strong = np.full((5, 5), 0.9) + 0.1 * np.eye(5)  # smallest eigenvalue 0.1
    tau = kendall_tau_matrix(gaussian(300, 0, strong)) + np.triu(rng.normal(0, 0.2, (5, 5)))
    tau = np.triu(tau) + np.triu(tau, 1).T
    bridged, repaired = bridged_matrix(tau), latent_correlation(tau)
    bound = RankBound.from_release(tau, bridged, repaired, 0.2, 300, 0.05)
    # noise of sd 0.2 makes the bridged matrix indefinite here: the repair moved it
    assert np.linalg.eigvalsh(bridged)[0] < 0
    assert bound.repair_move == pytest.approx(np.linalg.norm(repaired - bridged)) and \
        bound.repair_move > 0
    d = np.clip(np.diag(tau), 0.05, 1.0)
    s = np.sqrt(np.outer(d, d))[~np.eye(5, dtype=bool)]
    assert bound.smallest_normaliser == pytest.approx(s.min())
    assert bound.diagonal_term == pytest.approx(np.sqrt(np.sum((1 / s - 1) ** 2)))
    np.testing.assert_allclose(bound.released_diagonal, np.diag(tau))
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose(bound.ratios[off], (np.abs(tau) / np.sqrt(np.outer(d, d)))[off])


def test_one_column_is_exact():
    result = rank_scree(gaussian(100, 0)[:, :1], 1)
    assert result.scree["rank"].iloc[0] == pytest.approx(1.0)
    assert result.conf_int().to_numpy().tolist() == [[1.0, 1.0]]


def test_summary_dict_plot_and_r_payload():
    import matplotlib

    matplotlib.use("Agg")
    result = rank_scree(gaussian(1000, 0), 2, nonprivate=True)
    text = result.summary().as_text()
    assert "eigenvalues of the latent Gaussian-copula correlation matrix" in text
    assert RANK_SCREE_ESTIMAND.split(": ", 1)[1].split(";")[0] in text.replace("\n    ", " ")
    assert "sample latent correlation" in text
    payload = result.to_dict()
    assert set(payload) == {"nonprivate", "rank"}
    assert payload["rank"]["conf_int_upper"]["PC1"] <= 5
    assert interop.scree_payload(result)["names"] == ["nonprivate", "rank"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plotted = dp_scree_plot(gaussian(1000, 0), 2, standardize="rank", eps=1.0,
                                delta=1e-5, rng=1, type="scree")
    assert plotted.figure.axes[0].get_ylabel().startswith("Eigenvalue of the latent")


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "clipped"}, "do not apply"),
    ({"method": ["clipped", "huber"]}, "do not apply"),
    ({"control": {"C_clip": 1.0}}, "control"),
    ({"g_dppca": False}, "g_dppca=False"),
    ({"noise": "r_dppca"}, "noise"),
    ({"standardize": "ranks"}, "must be False, True or 'rank'"),
])
def test_refusals(kwargs, match):
    arguments = {"standardize": "rank", "eps": 1.0, "delta": 1e-5, **kwargs}
    with pytest.raises(DPPCAValueError, match=match):
        dp_scree(gaussian(200, 0), 2, **arguments)


def test_method_rank_is_accepted():
    assert rank_scree(gaussian(300, 0), 1, method="rank").methods == ("rank",)


def test_plan_predicts_the_halfwidth_from_public_numbers():
    report = plan(2000, 5, 3, 1.0, 1e-5, standardize="rank", missing=0.0)  # rank_scree: no medians
    row = report.to_frame().set_index("step").loc["rank: scree values (half-width)"]
    planned = row["predicted"] * 5 / 3  # predicted = half-width / (p / k)
    # The plan assumes no ties and off-diagonal ratios sqrt((p / k - 1) / (p - 1)) = 0.41 at
    # k = 3, above LATENT's root mean square 0.36 (its eigenvalues' squares sum to 7.57 = p +
    # ||R_off||^2): it reads above the realised half-widths, by their tie-share term's share
    # (within 20%); the noise draws on the diagonal move the realised ones by about 1%.
    realised = [rank_scree(gaussian(2000, seed), 5, seed=seed).fits["rank"].bound.halfwidth()
                for seed in range(3)]
    assert max(realised) < planned < 1.2 * min(realised)
    with pytest.raises(DPPCAValueError, match="do not apply"):
        plan(2000, 5, 2, 1.0, 1e-5, standardize="rank", method="huber")


def test_the_bridge_refuses_bad_input():
    # bridged_matrix is the pre-repair half of latent_correlation, which checks its input
    with pytest.raises(DPPCAValueError, match="`tau` must be a square matrix"):
        latent_correlation(np.ones((2, 3)))
    with pytest.raises(DPPCAValueError, match="`floor` must be in"):
        latent_correlation(np.eye(2), floor=0.0)


@pytest.mark.parametrize("call, match", [
    (lambda: weighted_chi2_bound([1.0, -1.0], 0.05), "`weights`"),
    (lambda: weighted_chi2_bound([1.0], 1.5), "`alpha`"),
    (lambda: bernstein_radius(1.0, 1.0, 0, 0.05), "`m`"),
    (lambda: untied_share_interval([0.5], 1, 0.1, 0.01, 0.01), "`n`"),
    (lambda: untied_share_interval([0.5], 100, -0.1, 0.01, 0.01), "`sigma`"),
    (lambda: untied_share_interval([0.5], 100, 0.1, 0.0, 0.01), "`alpha_sampling`"),
])
def test_concentration_bounds_refuse_bad_input(call, match):
    with pytest.raises(DPPCAValueError, match=match):
        call()
