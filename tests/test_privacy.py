"""Gaussian/Laplace calibration, the ledger, budget splits, private quantiles."""
import math

import numpy as np
import pytest
from scipy import stats

from dppca import DPPCAValueError, Ledger
from dppca.privacy import (gaussian_mechanism, gaussian_sigma, laplace_scale, split_budget,
                           symmetric_gaussian_noise)
from dppca.privacy.quantiles import private_quantile, private_quantile_grid


def _analytic_delta(sigma, eps, sensitivity=1.0):
    """Balle & Wang (2018) Theorem 8: the exact delta of N(0, sigma^2) noise at epsilon."""
    a = sensitivity / (2 * sigma)
    b = eps * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)


def test_classic_sigma_known_value():
    # sqrt(2 ln(1.25/1e-5)) = 4.8448 (paper_gdppca.md §3.5), so sigma = 4.8448 / 0.5 for Delta = 1.
    assert gaussian_sigma(1.0, 0.5, 1e-5, "classic") == pytest.approx(2 * 4.84481, rel=1e-5)


def test_analytic_sigma_is_084_of_classic_at_eps3():
    # The known value: at eps=3, delta=1e-4 the analytic sigma is about 0.84x the classic one.
    ratio = gaussian_sigma(1.0, 3, 1e-4, "analytic") / gaussian_sigma(1.0, 3, 1e-4, "classic")
    assert ratio == pytest.approx(0.845, abs=0.005)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-6), (1.0, 1e-5), (3.0, 1e-4), (8.0, 1e-3)])
def test_analytic_sigma_is_tight(eps, delta):
    # The exact privacy curve of the Gaussian mechanism must give delta at the returned sigma
    # (<= delta: valid), and a 2% smaller sigma must break it (tight up to dp_accounting's search).
    sigma = gaussian_sigma(1.0, eps, delta)
    assert _analytic_delta(sigma, eps) <= delta * (1 + 1e-6)
    assert _analytic_delta(0.98 * sigma, eps) > delta


def test_sigma_scales_linearly_with_sensitivity():
    assert gaussian_sigma(2.5, 1, 1e-5) == pytest.approx(2.5 * gaussian_sigma(1, 1, 1e-5), rel=1e-9)


@pytest.mark.parametrize("bad", [dict(eps=0), dict(eps=-1), dict(eps=math.inf), dict(delta=0),
                                 dict(delta=1), dict(calibration="exact")])
def test_sigma_rejects_bad_budget(bad):
    args = dict(sensitivity=1.0, eps=1.0, delta=1e-5, calibration="analytic") | bad
    (name,) = bad  # the error names the argument (no bare TypeError from deep inside)
    with pytest.raises(DPPCAValueError, match=f"^`{name}` must be"):
        gaussian_sigma(**args)


def test_laplace_scale():
    assert laplace_scale(2.0, 0.5) == 4.0


def test_symmetric_noise_has_vecd_variances():
    # Diagonal sd sigma, off-diagonal sd sigma/sqrt2: over 4000 draws the sample sds are within
    # ~1.1% (sd of a sample sd is sd/sqrt(2*4000)); 5% is > 4 standard errors.
    rng = np.random.default_rng(1)
    draws = np.stack([symmetric_gaussian_noise(3, 2.0, rng) for _ in range(4000)])
    assert np.allclose(draws, np.swapaxes(draws, 1, 2))
    assert draws[:, 0, 0].std() == pytest.approx(2.0, rel=0.05)
    assert draws[:, 0, 1].std() == pytest.approx(2.0 / math.sqrt(2), rel=0.05)


def test_ledger_records_and_refuses_overspending():
    ledger = Ledger(1.0, 1e-5)
    gaussian_mechanism(np.zeros(3), 1.0, 0.6, 6e-6, np.random.default_rng(0), ledger=ledger, step="a")
    assert ledger.spent_eps == pytest.approx(0.6)
    assert list(ledger.to_frame().columns) == ["step", "mechanism", "sensitivity", "norm",
                                               "noise_scale", "eps", "delta"]
    with pytest.raises(DPPCAValueError, match="exceed"):
        ledger.record("b", "Laplace", 1.0, "L1", 1.0, 0.5, 0.0)


def test_split_budget_sums_to_total():
    parts = split_budget(2.0, 1e-5, {"a": 0.25, "b": 0.75})
    assert parts["a"] == pytest.approx((0.5, 2.5e-6))
    assert sum(p[0] for p in parts.values()) == pytest.approx(2.0)
    with pytest.raises(DPPCAValueError, match="sum to 1"):
        split_budget(1.0, 1e-5, {"a": 0.5, "b": 0.6})


def test_private_quantile_is_accurate_at_large_eps():
    # With eps = 5 and m = 2000 the chosen rank is within O(log(m)/eps) ~ a few ranks of q m;
    # the 0.5-quantile of N(0,1) sample must be within 0.1 of the sample median.
    rng = np.random.default_rng(3)
    x = rng.normal(size=2000)
    est = private_quantile(x, 0.5, 5.0, rng, -10, 10)
    assert abs(est - np.median(x)) < 0.1


def test_private_quantile_grid_is_within_grid_ratio():
    # Grid ratio 2^(1/8) = 1.09; at eps = 5 the rank error is tiny, so within a factor 1.2.
    rng = np.random.default_rng(4)
    x = rng.exponential(3.0, size=4000)
    est = private_quantile_grid(x, 0.9, 5.0, rng)
    assert np.quantile(x, 0.9) / 1.2 < est < np.quantile(x, 0.9) * 1.2


def test_quantile_rank_utility_sensitivity_is_one():
    # Empirical neighbour search: replacing any one value moves #{x <= c} by at most 1 at every
    # candidate c, which is the sensitivity the exponential mechanism is calibrated to.
    rng = np.random.default_rng(5)
    x = rng.normal(size=50)
    grid = np.linspace(-3, 3, 101)
    base = np.searchsorted(np.sort(x), grid, side="right")
    worst = 0
    for i in range(50):
        for new in (-100.0, 0.0, 100.0, x[(i + 1) % 50]):
            y = x.copy()
            y[i] = new
            worst = max(worst, np.abs(np.searchsorted(np.sort(y), grid, side="right") - base).max())
    assert worst == 1


def test_private_quantile_output_lies_on_the_public_grid():
    # The output is lower + gamma k (gamma = 2^(floor(log2 width) - 40)): its low bits depend on
    # the public range and the drawn integer k only, never on the data's own floating-point bits.
    rng = np.random.default_rng(4)
    lower, upper = -3.0, 5.0
    gamma = 2.0 ** (np.floor(np.log2(upper - lower)) - 40)
    for seed in range(20):
        x = np.random.default_rng(seed).normal(size=50) * np.pi
        out = private_quantile(x, 0.5, 1.0, rng, lower, upper)
        k = (out - lower) / gamma
        assert lower <= out <= upper and k == np.round(k)


def test_ledger_refuses_a_delta_overspend_within_eps():
    # eps stays well inside the budget; delta alone goes past it: refused, and nothing recorded.
    ledger = Ledger(1.0, 1e-5)
    ledger.record("a", "Gaussian (analytic)", 1.0, "L2", 1.0, 0.1, 8e-6)
    with pytest.raises(DPPCAValueError, match="exceed"):
        ledger.record("b", "Gaussian (analytic)", 1.0, "L2", 1.0, 0.1, 3e-6)
    assert len(ledger) == 1 and ledger.spent_delta == pytest.approx(8e-6)
