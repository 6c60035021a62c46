"""The rank path's scree: dp_scree(X, k, standardize="rank").

The values are the top-k eigenvalues of the private latent correlation (one Kendall's tau
release), PVE is over the public trace p, and the intervals (RankBound) cover the population
latent eigenvalues of continuous columns with probability >= 0.95, all values at once.
"""
import warnings

import numpy as np
import pytest
from scipy.stats import chi2

from dppca import DPPCAValueError, dp_pc_dir, dp_scree, dp_scree_plot, interop, plan
from dppca.results.scree_rank import RANK_SCREE_ESTIMAND, RankBound, RankScreeResult
from dppca.stats.copula_bridge import bridged_matrix, latent_correlation
from dppca.stats.elementwise_kendall import kendall_tau_matrix

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
    # the sampling part scales as 1 / sqrt(m), m = n // 2: exactly half for 4x the rows
    bound = RankBound(2000, 5, 0.0, 1.0, 0.0, 0.0)
    assert RankBound(8000, 5, 0.0, 1.0, 0.0, 0.0).sampling_radius() == \
        pytest.approx(bound.sampling_radius() / 2, rel=1e-12)


def test_noise_radius_is_the_exact_chi2_quantile():
    # ||N_off||_F^2 / sigma^2 = 2 chi2_q: over 20,000 draws the share above a (alpha = 0.05)
    # is 0.025 with binomial sd sqrt(.025 .975 / 20000) = 0.0011; 4 sd allowed.
    p, sigma, draws = 6, 0.3, 20_000
    rng = np.random.default_rng(7)
    upper = np.triu_indices(p, 1)
    noise = rng.normal(0, sigma, size=(draws, len(upper[0])))
    norms = np.sqrt(2 * np.sum(noise ** 2, axis=1))
    radius = RankBound(100, p, sigma, 1.0, 0.0, 0.0).noise_radius(0.05)
    assert radius == pytest.approx(sigma * np.sqrt(2 * chi2.ppf(0.975, 15)))
    assert abs(np.mean(norms > radius) - 0.025) < 4 * np.sqrt(0.025 * 0.975 / draws)


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
    result = rank_scree(x, 2, seed=5)
    assert len(result.combined_ledger.releases) == 1
    assert result.combined_ledger.spent_eps == pytest.approx(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        directions = dp_pc_dir(x, 2, standardize="rank", eps=1.0, delta=1e-5, rng=5)
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
    report = plan(2000, 5, 5, 1.0, 1e-5, standardize="rank")
    row = report.to_frame().set_index("step").loc["rank: scree values (half-width)"]
    # predicted = half-width / (p / k) = half-width here (p = k); the realised half-width of a
    # Gaussian run differs only by the diagonal term's draw and s_min (within 10%)
    realised = rank_scree(gaussian(2000, 0), 5).fits["rank"].bound.halfwidth()
    assert row["predicted"] == pytest.approx(realised, rel=0.1)
    with pytest.raises(DPPCAValueError, match="do not apply"):
        plan(2000, 5, 2, 1.0, 1e-5, standardize="rank", method="huber")


def test_the_bridge_refuses_bad_input():
    # bridged_matrix is the pre-repair half of latent_correlation, which checks its input
    with pytest.raises(DPPCAValueError, match="`tau` must be a square matrix"):
        latent_correlation(np.ones((2, 3)))
    with pytest.raises(DPPCAValueError, match="`floor` must be in"):
        latent_correlation(np.eye(2), floor=0.0)
