"""The smooth-sensitivity quantile's floating-point-safe release (discrete Laplace on a public grid)."""
import math

import numpy as np
import pytest

from dppca._validation import DPPCAValueError
from dppca.audit import REGISTRY, distinguishing_audit
from dppca.privacy import Ledger, smooth_sensitivity_quantile
from dppca.privacy.samplers import use_sampler
from dppca.privacy.smooth import (quantile_smooth_sensitivity, smooth_beta, smooth_noise_scale,
                                  smooth_release_grid)

EPS, DELTA = 1.0, 1e-5


def _release(x, seed, lower=-8.0, upper=8.0, eps=EPS, delta=DELTA):
    return smooth_sensitivity_quantile(x, 0.5, eps, delta, np.random.default_rng(seed), lower, upper)


@pytest.mark.parametrize("lower,upper", [(-8.0, 8.0), (1e15, 1e15 + 64.0), (-1e-200, 1e-200),
                                         (-2.0 ** 64, 2.0 ** 64)])
def test_released_value_lies_on_the_public_grid_inside_the_domain(lower, upper):
    # The support of the release is gamma Z intersected with [lower, upper] for EVERY data set:
    # the low-order bits of the output cannot carry the input's (Mironov 2012).
    gamma = smooth_release_grid(EPS, DELTA, lower, upper)[0]
    rng = np.random.default_rng(0)
    centre, width = (lower + upper) / 2, upper - lower
    for seed in range(40):
        x = centre + width / 8 * rng.standard_normal(25)  # arbitrary low-order bits
        value = _release(x, seed, lower, upper)
        assert lower <= value <= upper
        assert value in (lower, upper) or math.fmod(value, gamma) == 0.0


def test_same_seed_same_output_and_a_different_seed_differs():
    x = np.random.default_rng(1).normal(size=101)
    assert _release(x, 7) == _release(x, 7)
    assert len({_release(x, seed) for seed in range(10)}) > 1


def test_noise_scale_is_between_the_smooth_bound_and_one_grid_step_above():
    # t gamma >= 2 S*/eps with S* at beta; it is computed from S* at beta (1 - 2^-12) (>= S* at
    # beta) rounded up onto the geometric grid of ratio e^beta(1 - 2^-13): at most that factor more
    # (the 2 gamma and the floor 2^-30 W are ~1e-9 relative here, inside the 1e-6).
    rng = np.random.default_rng(2)
    beta = smooth_beta(EPS, DELTA)
    for n in (5, 50, 501):
        xs = np.sort(np.clip(rng.standard_normal(n), -8.0, 8.0))
        rank = math.ceil(n / 2)
        gamma, t = smooth_noise_scale(xs, rank, EPS, DELTA, -8.0, 8.0)
        s_star = quantile_smooth_sensitivity(xs, rank, beta, -8.0, 8.0)
        s_used = quantile_smooth_sensitivity(xs, rank, beta * (1 - 2.0 ** -12), -8.0, 8.0)
        assert 2 * s_star / EPS <= t * gamma <= 2 * s_used / EPS * math.exp(beta) * (1 + 1e-6)


def test_noise_scale_is_beta_smooth_over_neighbours():
    # |ln t(D) - ln t(D')| <= beta for replace-one neighbours, including extreme rows.
    rng = np.random.default_rng(3)
    beta = smooth_beta(EPS, DELTA)
    for _ in range(30):
        x = np.round(rng.normal(size=int(rng.integers(3, 40))), int(rng.integers(0, 3)))
        rank = math.ceil(x.size / 2)
        _, t = smooth_noise_scale(np.sort(x), rank, EPS, DELTA, -4.0, 4.0)
        for z in (-4.0, 4.0, 0.0, x[0] + 1e-9, *rng.normal(size=4)):
            y = x.copy()
            y[int(rng.integers(x.size))] = z
            _, t_y = smooth_noise_scale(np.sort(np.clip(y, -4.0, 4.0)), rank, EPS, DELTA, -4.0, 4.0)
            assert abs(math.log(t_y) - math.log(t)) <= beta


def test_release_noise_has_the_discrete_laplace_scale():
    # Mean |K| of a discrete Laplace with P(k) ~ exp(-|k|/t) is 2q/(1-q^2) -> t for t >> 1, so the
    # mean absolute error is t gamma; 4000 draws give it within ~1.6% (sd of |Laplace| = mean),
    # 8% is 5 standard errors. Clamping to [-20, 20] is far outside (scale ~ 0.03).
    rng = np.random.default_rng(4)
    x = rng.normal(size=501)
    gamma, t = smooth_noise_scale(np.sort(x), 251, 0.5, 1e-4, -20.0, 20.0)
    draws = np.array([smooth_sensitivity_quantile(x, 0.5, 0.5, 1e-4, rng, -20.0, 20.0) for _ in range(4000)])
    assert np.mean(np.abs(draws - np.sort(x)[250])) == pytest.approx(t * gamma, rel=0.08)


def test_ledger_names_the_discrete_mechanism():
    ledger = Ledger(EPS, DELTA)
    smooth_sensitivity_quantile(np.arange(11.0), 0.5, EPS, DELTA, np.random.default_rng(0), 0, 20,
                                ledger=ledger)
    (release,) = ledger.releases
    assert release.mechanism == "discrete Laplace (smooth sensitivity)"
    assert math.isnan(release.sensitivity) and math.isnan(release.noise_scale)


def test_numpy_sampler_keeps_the_old_continuous_release_for_comparison():
    x = np.random.default_rng(5).normal(size=51)
    with use_sampler("numpy"):
        old = _release(x, 0)
    beta = smooth_beta(EPS, DELTA)
    s_star = quantile_smooth_sensitivity(np.sort(x), 26, beta, -8.0, 8.0)
    expected = np.sort(x)[25] + np.random.default_rng(0).laplace(0.0, 2 * s_star / EPS)
    assert old == expected


def test_beta_is_the_nrs_constant_for_usual_budgets_and_capped_for_large_eps():
    assert smooth_beta(1.0, 1e-5) == 1.0 / (2 * math.log(2e5))
    # For large eps the direct proof needs (eps/2)/(e^beta - 1) >= ln(1/delta) + 2^-20.
    beta = smooth_beta(8.0, 1e-5)
    assert beta < 8.0 / (2 * math.log(2e5))
    assert 4.0 / math.expm1(beta) >= math.log(1e5) + 2.0 ** -20


@pytest.mark.parametrize("kwargs,message", [
    (dict(eps=1e-9), "smoothing parameter"), (dict(lower=0.0, upper=1e-300), "at least 2"),
    (dict(lower=-1e308, upper=1e308), "finite"),
])
def test_public_grid_refuses_unusable_public_parameters(kwargs, message):
    args = dict(x=[0.0], q=0.5, eps=1.0, delta=1e-5, rng=np.random.default_rng(0), lower=-1.0,
                upper=1.0) | kwargs
    with pytest.raises(DPPCAValueError, match=message):
        smooth_sensitivity_quantile(**args)


def test_distinguishing_audit_of_the_frame_median_has_power_and_passes():
    # n = 201 evenly spread values: S* ~ 0.09, noise scale ~ 0.2. A neighbour (lowest row jumps
    # above the rest) stays within the claim; a data set shifted by 1 (not a neighbour: every row
    # moved) is told apart with eps_lb > eps, so the test can see a leak of that size.
    D = np.linspace(-1.0, 1.0, 201)[:, None]
    neighbour = D.copy()
    neighbour[0] = 3.0
    release = REGISTRY["frame: median (local sensitivity <= smooth bound S(D))"]
    ctx = {"domain": (-4.0, 4.0)}
    result = distinguishing_audit(release.mechanism, D, neighbour, ctx, 1000, DELTA, seed=3)
    assert result.eps_lb <= EPS
    far = distinguishing_audit(release.mechanism, D, D + 1.0, ctx, 1000, DELTA, seed=3)
    assert far.eps_lb > EPS
