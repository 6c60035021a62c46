"""The ledger against the noise actually drawn, with a calibration computed here (issue 23).

A ledger's eps and delta are bookkeeping (``group.eps * fraction``), written whatever noise was
drawn, so comparing them with the call's budget proves nothing. These tests rebuild each
release's privacy from the two numbers that describe the noise, its sensitivity and its
noise scale (the sampler's ``sigma_used`` / ``scale_used``, i.e. the noise drawn), and check
the composition against the call's (eps, delta) with a calibration independent of the package:

* Gaussian rows: mu_i = sensitivity_i / sigma_i. A plain row must satisfy Balle & Wang (2018,
  Theorem 8) on its own: delta(eps_i; mu_i) <= delta_i. The rows that are shares of Gaussian-DP
  groups compose exactly (Dong, Roth & Su 2022, Cor. 3.3): mu = sqrt(sum mu_i^2), and the
  composition of Gaussian mechanisms *is* a Gaussian mechanism of that mu, so its exact privacy
  curve must lie below the basic composition of the groups' budgets: delta(sum eps_i; mu) <=
  sum delta_i. Balle & Wang's curve is computed below with scipy, not with dp_accounting.
* Laplace rows (plain or thresholded): eps_i >= sensitivity_i / scale_i (Dwork & Roth 2014,
  Thm 3.6); sparse-vector rows (exponential noise): eps_i >= 2 sensitivity_i / scale_i.
* Smooth-sensitivity and exponential-mechanism rows have no single noise scale (nan) and are
  covered by their own tests (tests/privacy/test_smooth_release.py, the audit).

A mechanism that draws half the noise its ledger row claims shows up as mu twice too large.
"""
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import brentq

from dppca import dp_pc_dir, dp_score, dp_score_group, dp_scree
from dppca.simulate import elliptical_gaussian, kim_jung_sigma

#: dp_accounting's analytic sigma is the smallest it finds to ~1e-6 relative in delta
#: (tests/test_privacy.py::test_analytic_sigma_is_tight); the GDP group's mu is a brentq root
#: at 1e-12. Both leave delta within this relative slack; half the noise moves it by orders.
DELTA_RTOL = 1e-6


def balle_wang_delta(eps: float, mu: float) -> float:
    """Exact delta of the Gaussian mechanism with Delta/sigma = mu at eps (Balle & Wang, Thm 8)."""
    if mu <= 0:
        return 0.0
    a, b = -eps / mu + mu / 2, -eps / mu - mu / 2
    return float(stats.norm.cdf(a) - math.exp(eps + stats.norm.logcdf(b)))


def unit_mu(eps: float, delta: float) -> float:
    """The mu with balle_wang_delta(eps, mu) = delta (the curve increases with mu)."""
    return brentq(lambda mu: balle_wang_delta(eps, mu) - delta, 1e-9, 50.0, xtol=1e-14, rtol=1e-14)


def check_ledger_against_noise(ledger) -> dict:
    """Assert that the noise the ledger's rows describe fits the call's budget; returns the parts."""
    rows = ledger.to_frame()
    gaussian = rows[rows["mechanism"].str.startswith("Gaussian")]
    shares = gaussian["mechanism"].str.contains("GDP share")
    for _, row in gaussian[~shares].iterrows():
        mu = row["sensitivity"] / row["noise_scale"]
        assert balle_wang_delta(row["eps"], mu) <= row["delta"] * (1 + DELTA_RTOL), row["step"]
    group = gaussian[shares]
    mu = math.sqrt(float(np.sum((group["sensitivity"] / group["noise_scale"]) ** 2)))
    if len(group):
        eps, delta = float(group["eps"].sum()), float(group["delta"].sum())
        assert balle_wang_delta(eps, mu) <= delta * (1 + DELTA_RTOL), list(group["step"])
    laplace = rows[rows["mechanism"].str.startswith("Laplace")]
    assert np.all(laplace["sensitivity"] / laplace["noise_scale"] <= laplace["eps"] * (1 + 1e-12))
    svt = rows[rows["mechanism"].str.startswith("sparse vector")]
    assert np.all(2 * svt["sensitivity"] / svt["noise_scale"] <= svt["eps"] * (1 + 1e-12))
    # The ledger's own total is within the call's budget (what Ledger.record enforces).
    assert ledger.spent_eps <= ledger.eps * (1 + 1e-9)
    assert ledger.spent_delta <= ledger.delta * (1 + 1e-9)
    return {"gaussian rows": len(gaussian), "gdp mu": mu, "laplace rows": len(laplace),
            "svt rows": len(svt)}


def _sample(n):
    sigma, _ = kim_jung_sigma(4)
    return elliptical_gaussian(n, sigma, rng=0) + np.array([5.0, -2.0, 0.0, 1.0])


@pytest.fixture(scope="module")
def data():
    return _sample(600)


@pytest.fixture(scope="module")
def large():
    """Enough rows for DPPCA's private centre."""
    return _sample(3000)


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-n accuracy warnings: public facts, not checked here
        return call(*args, **kwargs)


# k_dp_pca needs more rows and budget: its own test below.
@pytest.mark.parametrize("method", ["gdppca", "analyze_gauss", "noisy_power", "k_dp_ojas",
                                    "dp_sggd"])
@pytest.mark.parametrize("standardize", [False, True])
def test_directions_ledger_matches_the_noise_drawn(data, method, standardize):
    result = _quiet(dp_pc_dir, data, 2, standardize=standardize, eps=1.0, delta=1e-5, rng=1,
                    method=method)
    parts = check_ledger_against_noise(result.ledger)
    assert parts["gaussian rows"] >= 1


@pytest.mark.parametrize("standardize", [False, True])
def test_k_dp_pca_ledger_matches_the_noise_drawn(standardize):
    # n = 1,200 >= n_min = 2 k B_min = 352 at (8, 0.01), k = 1. The PrivMean row is the
    # calibration per unit sqrt(Lambda) (every step's ratio sigma / sensitivity).
    result = _quiet(dp_pc_dir, _sample(1200), 1, standardize=standardize, eps=8.0, delta=0.01,
                    rng=1, method="k_dp_pca")
    parts = check_ledger_against_noise(result.ledger)
    assert parts["gaussian rows"] >= 1 and parts["laplace rows"] == 2


def _noise_sd(noise, expected):
    # 5,000 independent draws: the sample sd has relative sd 1/sqrt(2 x 5,000) = 1%; 8% is 8 of
    # those, and half the noise is 50% off.
    assert noise.size == 5000
    assert noise.std() == pytest.approx(expected, rel=0.08)


def test_k_dp_pca_priv_mean_draws_sqrt_lambda_times_the_ledger_sd():
    # The method's own PrivMean step on a batch of zeros (the clipped mean is 0, so the release
    # is the noise) at Lambda = 4: sd 2 x the ledger row's sigma, and that row's ratio
    # sensitivity / sigma is Balle & Wang's mu at the step's (eps, delta).
    from dppca.methods.k_dp_pca import _record_k_dp_pca, batch_plan, mean_half_width, priv_mean
    from dppca.privacy import Ledger

    p, eps, delta = 5000, 8.0, 0.01
    plan = batch_plan(400, p, 1, eps, delta, None, 1.0, 0.01, 2.0)
    ledger = Ledger(eps, delta)
    _record_k_dp_pca(ledger, plan, "analytic")
    row = ledger.to_frame().iloc[2]
    check_ledger_against_noise(ledger)
    B = plan["B"]
    assert row["sensitivity"] == pytest.approx(6 * math.sqrt(p) * math.log(B * p / plan["tau"]) / B,
                                               rel=1e-12)
    assert row["noise_scale"] == pytest.approx(row["sensitivity"] / unit_mu(*plan["mean"]), rel=1e-5)
    noise = priv_mean(np.zeros((B, p)), np.zeros(p), mean_half_width(4.0, plan), *plan["mean"],
                      np.random.default_rng(7))
    _noise_sd(noise, 2 * row["noise_scale"])


def test_dp_sggd_step_draws_the_ledger_sd():
    # The method's own step on points with zero residuals (the descent direction is 0): the
    # release, p k = 5,000 entries, is the noise; its sd is the sigma the ledger records.
    from dppca.methods.dp_sggd import noisy_descent

    V = np.eye(100)[:, :50]
    _noise_sd(noisy_descent(np.zeros((10, 100)), V, 0.7, np.random.default_rng(8)), 0.7)


@pytest.mark.parametrize("method", ["clipped", "pmwm", "huber"])
def test_scree_ledgers_match_the_noise_drawn(data, method):
    result = _quiet(dp_scree, data, 3, method=method, eps=1.0, delta=1e-5, rng=2, standardize=True)
    for ledger in result.ledger.values():
        check_ledger_against_noise(ledger)
    check_ledger_against_noise(result.combined_ledger)


def test_score_ledgers_match_the_noise_drawn(data):
    parts = check_ledger_against_noise(_quiet(dp_score, data, 1.0, 1e-5, rng=3).ledger)
    # the frame: one magnitude bound and one radius search per axis (a rectangle)
    assert parts["laplace rows"] == 1 and parts["svt rows"] == 3
    group = np.where(data[:, 0] > 5, "up", "down")
    check_ledger_against_noise(_quiet(dp_score_group, data, group, 1.0, 1e-5, rng=3).ledger)


def test_dppca_fit_ledger_matches_the_noise_drawn(large):
    from dppca.sklearn import DPPCA

    pca = _quiet(DPPCA(n_components=2, eps=1.0, delta=1e-5, random_state=4).fit, large)
    parts = check_ledger_against_noise(pca.ledger_)
    assert parts["svt rows"] == 2  # the private centre's two radius searches


def test_the_check_sees_half_the_noise():
    # The check itself has power: one GDP group of (1, 1e-5) spent on one release is tight, and
    # the same row with half the noise (mu doubled: true eps about 2.15) fails it.
    from dppca import Ledger

    mu = unit_mu(1.0, 1e-5)
    ledger = Ledger(1.0, 1e-5)
    ledger.record("x", "Gaussian (analytic), GDP share 100.0%", 1.0, "L2", 1.0 / mu, 1.0, 1e-5)
    check_ledger_against_noise(ledger)
    halved = Ledger(1.0, 1e-5)
    halved.record("x", "Gaussian (analytic), GDP share 100.0%", 1.0, "L2", 0.5 / mu, 1.0, 1e-5)
    with pytest.raises(AssertionError):
        check_ledger_against_noise(halved)


# ----------------------------------------------------------------------------- pinned sigmas


def test_unit_sigma_pinned_against_balle_wang():
    # Every Gaussian family derives sigma from gaussian_sigma(Delta, eps, delta) or a GDP group's
    # mu; both are pinned here once against the curve solved in this file.
    from dppca.privacy import GaussianGroup, gaussian_sigma

    for eps, delta in [(0.3, 1e-6), (1.0, 1e-5), (4.0, 1e-3)]:
        mu = unit_mu(eps, delta)
        assert gaussian_sigma(2.5, eps, delta) == pytest.approx(2.5 / mu, rel=1e-5)
        assert GaussianGroup(eps, delta).mu == pytest.approx(mu, rel=1e-6)


def test_gdppca_sigma_pinned(data):
    # g-DPPCA alone (no private scale): Frobenius sensitivity 2 sqrt(2)/n (1 + rounding slack
    # < 1e-5 at n = 600, p = 4; Kim & Jung 2025, Prop. 2.1) and sigma = Delta / mu(eps, delta),
    # inflated by the sampler's snapping slack p gamma / Delta < 2^-40.
    result = _quiet(dp_pc_dir, data, 2, eps=1.0, delta=1e-5, rng=1)
    row = result.ledger.to_frame().iloc[0]
    n = data.shape[0]
    assert row["sensitivity"] == pytest.approx(2 * math.sqrt(2) / n, rel=1e-5)
    assert row["noise_scale"] == pytest.approx(row["sensitivity"] / unit_mu(1.0, 1e-5), rel=1e-5)


def test_gdppca_noise_drawn_has_the_ledger_sd():
    # The released matrix (k = p) minus the exact Kendall matrix is the noise actually drawn:
    # p(p+1)/2 = 210 independent entries with sd sigma on the diagonal and sigma/sqrt(2) off it.
    # Rescaled, their sample sd has relative sd 1/sqrt(2 x 210) = 4.9%; 25% is 5 of those, and
    # half the noise (50% low) is 10 of them away.
    from dppca.methods.gdppca import gdppca_directions
    from dppca.privacy import Ledger
    from dppca.stats.kendall import kendall_tau_matrix

    X = np.random.default_rng(5).standard_normal((300, 20))
    ledger = Ledger(1.0, 1e-5)
    fit = gdppca_directions(X, 20, eps=1.0, delta=1e-5, rng=np.random.default_rng(6),
                            calibration="analytic", ledger=ledger)
    noise = (fit.vectors * fit.eigenvalues) @ fit.vectors.T - kendall_tau_matrix(X)
    sigma = ledger.to_frame()["noise_scale"].iloc[0]
    rows, cols = np.triu_indices(20, k=1)
    standardised = np.r_[np.diag(noise) / sigma, noise[rows, cols] * math.sqrt(2) / sigma]
    assert standardised.std() == pytest.approx(1.0, rel=0.25)


def test_private_scale_moment_sensitivities_pinned(data):
    # Releases 2-3 of the private scales: mean_i min(a_ij, C_j)^2 / C_j^2 over the m = n/2 paired
    # differences, replace-one moves one pair: L2 sensitivity sqrt(p)/m per clip (plus 2^-50
    # sqrt(p) of rounding). The pilot ladder releases 7 clips per column (2^(c + 3k), k = -3..3,
    # weight 1 each): sqrt(7) times that; the final ladder's weights (1, 1/4, 1/4, 1/4, 1/4)
    # multiply it by sqrt(1 + 4/16) = sqrt(5)/2.
    result = _quiet(dp_pc_dir, data, 2, standardize=True, eps=1.0, delta=1e-5, rng=1)
    rows = result.ledger.to_frame().set_index("step")["sensitivity"]
    n, p = data.shape
    moments = rows[rows.index.str.contains("clipped second moments")]
    assert len(moments) == 2
    base = math.sqrt(p) / (n // 2)
    assert moments.iloc[0] == pytest.approx(base * math.sqrt(7.0), rel=1e-9)
    assert moments.iloc[1] == pytest.approx(base * math.sqrt(5.0) / 2, rel=1e-9)


def test_histogram_sigmas_and_threshold_pinned():
    # "add": L2 sensitivity sqrt(2), sigma = sqrt(2)/mu(eps, delta); "sparse": Laplace scale 2/eps,
    # threshold 1 + b (ln(2/delta) + 2^-39) (Algorithm 5 of the R reference); both inflated by
    # the sampler's slack, below 1e-9 relative here.
    from dppca.estimators.histograms import additive_histogram, sparse_histogram

    counts = np.zeros((1, 25))
    counts[0, :3] = [50, 1, 7]
    eps, delta = 0.5, 5e-6
    add = additive_histogram(counts, eps, delta, np.random.default_rng(0))
    assert add.noise_scale == pytest.approx(math.sqrt(2.0) / unit_mu(eps, delta), rel=1e-6)
    sparse = sparse_histogram(counts, eps, delta, np.random.default_rng(0))
    assert 2 / eps <= sparse.noise_scale <= 2 / eps * (1 + 1e-9)
    assert sparse.threshold == pytest.approx(1 + 2 / eps * math.log(2 / delta), rel=1e-9)
