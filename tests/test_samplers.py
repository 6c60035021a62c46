"""Floating-point-safe samplers (dppca.privacy.samplers): laws, seeds, grid, snapping slack."""
from __future__ import annotations

import math

import numpy as np
import pytest
from mpmath import exp, mpf

from dppca.privacy import discrete as D
from dppca.privacy import samplers as S

N = 200_000


def test_rounded_gaussian_has_the_moments_and_tails_of_n_0_s2():
    # k / s for the rounded Gaussian has mean 0 and variance 1 + 1/(12 s^2) (= 1 to 1e-28).
    # With N draws: sd of the mean 1/sqrt(N), of the sample variance sqrt(2/N), of a tail
    # frequency sqrt(p(1-p)/N); 5 sds keeps a false alarm below 1e-6 per check.
    s = 2.0 ** 46 * 1.37
    z = D.discrete_gaussian(s, N, np.random.default_rng(5)) / s
    assert abs(z.mean()) < 5 / math.sqrt(N)
    assert abs(z.var() - 1) < 5 * math.sqrt(2 / N)
    for c in (1.0, 2.0, 3.0):
        p = math.erfc(c / math.sqrt(2))
        assert abs((np.abs(z) > c).mean() - p) < 5 * math.sqrt(p * (1 - p) / N)


def test_discrete_laplace_has_the_moments_and_tails_of_laplace_t():
    # Laplace(t): variance 2 t^2 (the discrete law's 2q/(1-q)^2 differs by 1/(6t^2), negligible),
    # kurtosis 6, so the sample variance has sd 2 t^2 sqrt(5/N); P(|k| > c t) = exp(-c).
    t = 2 ** 40 + 12_345
    x = D.discrete_laplace(t, N, np.random.default_rng(6)) / t
    assert abs(x.mean()) < 5 * math.sqrt(2 / N)
    assert abs(x.var() - 2) < 5 * 2 * math.sqrt(5 / N)
    for c in (1.0, 3.0):
        p = math.exp(-c)
        assert abs((np.abs(x) > c).mean() - p) < 5 * math.sqrt(p * (1 - p) / N)


def test_small_integer_scales_follow_the_exact_pmf():
    # t = 2: P(k) = (1 - q)/(1 + q) q^|k|, q = exp(-1/2); a chi-square style check per cell.
    q = math.exp(-0.5)
    x = D.discrete_laplace(2, N, np.random.default_rng(7))
    for k in range(-3, 4):
        p = (1 - q) / (1 + q) * q ** abs(k)
        assert abs((x == k).mean() - p) < 5 * math.sqrt(p * (1 - p) / N)


def test_same_seed_same_draws_for_every_release():
    value = np.linspace(-3, 3, 12).reshape(3, 4)
    sym = value.T @ value
    calls = [lambda r: S.add_gaussian_noise(value, 0.3, 0.1, r)[0],
             lambda r: S.add_laplace_noise(value, 0.3, 0.1, r)[0],
             lambda r: S.add_symmetric_gaussian_noise(sym, 0.3, 0.1, r)[0],
             lambda r: S.GaussianSteps(0.3, 0.1, (5, 4), r).add(2, value[0])]
    for call in calls:
        np.testing.assert_array_equal(call(np.random.default_rng(11)), call(np.random.default_rng(11)))
        assert not np.array_equal(call(np.random.default_rng(11)), call(np.random.default_rng(12)))


def test_releases_lie_on_the_grid_so_low_bits_of_the_input_are_invisible():
    # Mironov's attack reads the low bits of x from x + noise. Here the release is
    # gamma * (round(x / gamma) + k): neighbours that agree after snapping give the same output
    # for the same draws, and every output is a multiple of gamma.
    # Entries with ulp(x) < gamma (= 2^-51 here), so x and the next float snap to the same point.
    x = np.array([0.1, 1e-3, 0.0123])
    x_next = np.nextafter(x, np.inf)
    sigma = 0.05
    gamma = S.grid_width(sigma)
    y = S.add_gaussian_noise(x, sigma, 0.01, np.random.default_rng(3))[0]
    y_next = S.add_gaussian_noise(x_next, sigma, 0.01, np.random.default_rng(3))[0]
    np.testing.assert_array_equal(y, y_next)
    assert np.all(np.mod(y / gamma, 1.0) == 0)
    with S.use_sampler("numpy"):  # the old sampler: the low bits leak into the output
        old = S.add_gaussian_noise(x, sigma, 0.01, np.random.default_rng(3))[0]
        old_next = S.add_gaussian_noise(x_next, sigma, 0.01, np.random.default_rng(3))[0]
    assert not np.array_equal(old, old_next)


def test_snapping_is_exact_and_the_slack_is_absorbed_in_sigma():
    gamma = 2.0 ** -20
    x = np.array([0.3, -7.25, 2.0 ** 40 + 0.1, 1e300, -0.0])
    snapped = S.snap(x, gamma)
    assert np.all(np.abs(snapped - x) <= gamma / 2)
    assert snapped[3] == x[3]  # already a multiple of gamma
    # sigma_used = sigma (1 + sqrt(m) gamma / Delta), rounded up: the ratio Delta/sigma is kept.
    sigma, delta_l2, m = 0.7, 0.02, 30
    used = S.add_gaussian_noise(np.zeros(m), sigma, delta_l2, np.random.default_rng(0))[1]
    slack = math.sqrt(m) * S.grid_width(sigma) / delta_l2
    assert sigma * (1 + slack) <= used <= sigma * (1 + slack) * (1 + 2.0 ** -48)
    # Laplace: scale_used = t gamma >= b (1 + m gamma / Delta_1).
    b, delta_l1 = 2.0, 2.0
    used = S.add_laplace_noise(np.zeros(m), b, delta_l1, np.random.default_rng(0))[1]
    assert used >= b * (1 + m * S.grid_width(b, S.LAPLACE_GRID_BITS) / delta_l1)
    assert used <= b * (1 + 1e-9)


def test_exact_bernoulli_resolves_the_band_with_more_bits():
    # u = numerator / 2^64 + (fresh bits) against p = exp(-1): numerators clearly below / above
    # p 2^64 are decided at once; the numerator equal to floor(p 2^64) needs more bits and is
    # True with probability frac(p 2^64), here estimated on 4000 draws (5 sds).
    from mpmath import mp

    with mp.workprec(256):
        scaled = exp(-1) * 2 ** 64
        floor, frac = int(mp.floor(scaled)), float(scaled - mp.floor(scaled))
    rng = np.random.default_rng(0)
    assert D._resolve(floor - 3, lambda prec: exp(-1), rng) is True
    assert D._resolve(floor + 3, lambda prec: exp(-1), rng) is False
    hits = np.mean([D._resolve(floor, lambda prec: exp(-1), rng) for _ in range(4000)])
    assert abs(hits - frac) < 5 * math.sqrt(frac * (1 - frac) / 4000)


def test_bernoulli_matches_its_probability_inside_and_outside_the_band():
    p = np.array([0.0, 1e-3, 0.5, 1.0])
    draws = np.stack([D._bernoulli(p, lambda i, prec: mpf(p[i]), np.random.default_rng(seed))
                      for seed in range(4000)])
    freq = draws.mean(axis=0)
    assert freq[0] == 0 and freq[3] == 1
    assert abs(freq[1:3] - p[1:3]).max() < 5 * math.sqrt(0.25 / 4000)


def test_numpy_sampler_is_an_option_and_the_default_is_exact():
    assert S._STATE["sampler"] == "exact"
    with S.use_sampler("numpy"):
        y, used = S.add_gaussian_noise(np.zeros(3), 1.0, 1.0, np.random.default_rng(1))
    np.testing.assert_array_equal(y, np.random.default_rng(1).normal(0, 1.0, 3))
    assert used == 1.0 and S._STATE["sampler"] == "exact"
    with pytest.raises(ValueError, match="sampler"):
        S.set_sampler("fast")


def test_a_lazily_extended_uniform_answers_consistently():
    # _compare keeps the bits it draws, so one U compared with e^-1 > e^-2 > ... gives a
    # monotone answer (the geometric draw's tie path counts levels this way).
    from mpmath import mpf

    rng = np.random.default_rng(4)
    for _ in range(50):
        state = [0, 64]  # U < 2^-64: below e^-44, so at least 44 levels hold
        answers = [D._compare(state, lambda prec, v=v: exp(-mpf(v)), rng) for v in range(1, 60)]
        assert all(answers[:44])
        assert answers == sorted(answers, reverse=True)  # True... then False..., never back


def _pinned_gamma(scale: float, bits: int) -> float:
    """2^(floor(log2 scale) - bits), computed here (not with S.grid_width)."""
    return 2.0 ** (math.floor(math.log2(scale)) - bits)


@pytest.mark.parametrize("sigma", [0.37, 1.0, 3e5])
def test_gaussian_grid_and_slack_are_pinned(sigma):
    # The module docstring's grid: gamma = 2^-46 of sigma's power of two, slack sqrt(m) gamma.
    # Delta = 1e-4 sigma makes the slack about 1e-10 relative, far above float rounding (1e-16),
    # so a coarser grid or a dropped slack changes sigma_used visibly.
    m, sensitivity = 9, 1e-4 * sigma
    gamma = _pinned_gamma(sigma, 46)
    y, used = S.add_gaussian_noise(np.full(m, math.pi), sigma, sensitivity, np.random.default_rng(1))
    assert used == pytest.approx(sigma * (1 + math.sqrt(m) * gamma / sensitivity), rel=1e-14)
    assert np.all(np.mod(y / gamma, 1.0) == 0)
    # ...and not a coarser grid: k spans ~2^46 values, so 9 draws all on 2^10 gamma is ~2^-90
    assert not np.all(np.mod(y / (1024 * gamma), 1.0) == 0)


def test_laplace_grid_and_slack_are_pinned():
    b, sensitivity, m = 2.0, 2e-4, 16
    gamma = _pinned_gamma(b, 40)
    y, used = S.add_laplace_noise(np.full(m, math.e), b, sensitivity, np.random.default_rng(2))
    assert b * (1 + m * gamma / sensitivity) <= used <= b * (1 + m * gamma / sensitivity) + gamma
    assert np.all(np.mod(y / gamma, 1.0) == 0)


def test_symmetric_release_grid_slack_and_snapping_are_pinned():
    # As the vector release: one grid gamma = 2^-46 of sigma/sqrt(2)'s power of two for every
    # entry, slack p gamma (module docstring of add_symmetric_gaussian_noise), and snapping, so
    # that an input that agrees after snapping gives the same output for the same draws.
    p, sigma = 5, 0.3
    sensitivity = 1e-4 * sigma
    gamma = _pinned_gamma(sigma / math.sqrt(2.0), 46)
    value = np.full((p, p), 0.1) + np.eye(p) * 0.0123
    y, used = S.add_symmetric_gaussian_noise(value, sigma, sensitivity, np.random.default_rng(3))
    assert used == pytest.approx(sigma * (1 + p * gamma / sensitivity), rel=1e-14)
    assert np.all(np.mod(y / gamma, 1.0) == 0) and np.array_equal(y, y.T)
    y_next, _ = S.add_symmetric_gaussian_noise(np.nextafter(value, np.inf), sigma, sensitivity,
                                               np.random.default_rng(3))
    np.testing.assert_array_equal(y, y_next)


def test_every_release_draws_the_noise_it_reports():
    # The returned scale is what the ledger records; the noise actually added must have it.
    # 5,000 coordinates: the sample sd has relative sd 1/sqrt(2 x 5000) = 1% (Gaussian) and
    # sqrt(5/4/5000) = 1.6% (Laplace, kurtosis 6); 8% is 5 of the larger, half the noise is 50%.
    rng = np.random.default_rng(8)
    m = 5_000
    noisy, sigma = S.add_gaussian_noise(np.zeros(m), 0.7, 0.1, rng)
    assert noisy.std() == pytest.approx(sigma, rel=0.08)
    noisy, scale = S.add_laplace_noise(np.zeros(m), 2.0, 2.0, rng)
    assert noisy.std() == pytest.approx(math.sqrt(2.0) * scale, rel=0.08)
    steps = S.GaussianSteps(0.7, 0.1, (2, m), rng)
    assert steps.add(1, np.zeros(m)).std() == pytest.approx(steps.sigma, rel=0.08)
    p = 100  # 100 diagonal (sd sigma) and 4,950 off-diagonal (sd sigma/sqrt(2)) draws
    noisy, sigma = S.add_symmetric_gaussian_noise(np.zeros((p, p)), 0.7, 0.1, rng)
    rows, cols = np.triu_indices(p, k=1)
    assert (noisy[rows, cols] * math.sqrt(2.0)).std() == pytest.approx(sigma, rel=0.08)
    assert np.diag(noisy).std() == pytest.approx(sigma, rel=0.35)  # 100 draws: 7% sd, 5 sds
