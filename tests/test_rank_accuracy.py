"""The rank path's accuracy model: the sine-block noise level, the post-release bootstrap and its
warning, the pre-release plan row and the shared bridged-noise formula."""
import math

import numpy as np
import pytest

from dppca.methods._base import top_eigen
from dppca.methods.gdppca import RANDOM_LEVEL, released_direction_accuracy
from dppca.methods.latent_accuracy import RANK_WARNING_LEVEL, released_sine_draws
from dppca.methods.latent_correlation import (bridged_noise_sd, rank_accuracy,
                                              rank_direction_accuracy, rank_tau_sensitivity,
                                              repelled_spectrum, sine_block_noise_sd)
from dppca.results.scree_rank import RankBound
from dppca.metrics import sin_theta
from dppca.privacy import gaussian_sigma
from dppca.privacy.bridge_noise import smallest_normaliser
from dppca.stats.copula_bridge import DIAGONAL_FLOOR, latent_correlation

#: Two blocks of strongly correlated columns (latent correlations 0.8 and 0.7): eigenvalues
#: 2.6, 2.4, 0.3, 0.3, 0.2, 0.2; the bridge slope at R = 0.8 is (pi / 2) 0.6, well below pi / 2.
CORRELATION = np.array([[1.0, 0.8, 0.8, 0.0, 0.0, 0.0],
                        [0.8, 1.0, 0.8, 0.0, 0.0, 0.0],
                        [0.8, 0.8, 1.0, 0.0, 0.0, 0.0],
                        [0.0, 0.0, 0.0, 1.0, 0.7, 0.7],
                        [0.0, 0.0, 0.0, 0.7, 1.0, 0.7],
                        [0.0, 0.0, 0.0, 0.7, 0.7, 1.0]])
#: Kendall's tau-a of a Gaussian copula with continuous margins: (2 / pi) arcsin(R), diagonal 1.
TAU = 2.0 / math.pi * np.arcsin(CORRELATION)


def _releases(tau, sigma, draws, seed):
    """Noisy tau matrices (sd sigma on each entry j <= k), as the release draws them."""
    rng = np.random.default_rng(seed)
    p = tau.shape[0]
    rows, cols = np.triu_indices(p)
    for _ in range(draws):
        released = np.zeros((p, p))
        released[rows, cols] = tau[rows, cols] + sigma * rng.standard_normal(rows.size)
        released[cols, rows] = released[rows, cols]
        yield released


def _post_release(released, sigma, k):
    spectrum, vectors = top_eigen(latent_correlation(released), released.shape[0])
    noise = sine_block_noise_sd(released, sigma, k, spectrum, vectors)
    return spectrum, vectors, rank_accuracy(released.shape[0], k, sigma, spectrum,
                                            noise).steps[1].predicted


def test_post_release_prediction_matches_the_measured_median():
    # Small noise (sigma / gap ~ 1e-2), so the first-order terms dominate (the next ones are
    # O(sigma / gap) relative); the median of 300 draws of a chi-type variable is within about
    # 1.25 sd / sqrt(300) ~ 5% of its own median; the Satterthwaite/Wilson-Hilferty median within
    # a few %; and each draw's released eigenbasis stands in for the true one (O(sigma)); the
    # bootstrap median's own Monte-Carlo error (256 draws) is about 1.25 / sqrt(256) ~ 8%
    # relative. 25% covers them; the largest-slope rule (every entry at the bridge's slope
    # pi / 2) reads about 1.4x, outside that window.
    k, sigma = 2, 0.004
    truth = top_eigen(CORRELATION, 6)[1][:, :k]
    measured, predicted, old = [], [], []
    for released in _releases(TAU, sigma, 300, seed=1):
        spectrum, vectors, prediction = _post_release(released, sigma, k)
        measured.append(sin_theta(vectors[:, :k], truth))
        predicted.append(prediction)
        old.append(rank_accuracy(6, k, sigma, spectrum,
                                 math.sqrt(2.0) * bridged_noise_sd(released, sigma))
                   .steps[1].predicted)
    ratio = np.median(predicted) / np.median(measured)
    assert 0.75 <= ratio <= 1.25, ratio
    assert np.median(old) / np.median(measured) > 1.25


def test_noise_level_is_largest_for_a_pure_noise_release_and_zero_for_p_2():
    sigma = 0.01
    # R = I: every slope pi / 2, d = 1, so s = sqrt(2) (pi / 2) sigma exactly (see the Notes).
    assert sine_block_noise_sd(np.eye(4), sigma, 2, np.array([1.3, 1.1, 0.9, 0.7]), np.eye(4)) \
        == pytest.approx(math.sqrt(2.0) * 0.5 * math.pi * sigma, rel=1e-12)
    spectrum, vectors = top_eigen(latent_correlation(TAU), 6)
    assert sine_block_noise_sd(TAU, sigma, 2, spectrum, vectors) < \
        math.sqrt(2.0) * 0.5 * math.pi * sigma
    # p = 2: the eigenvectors (1, +-1) / sqrt 2 do not depend on the one correlation, so no
    # noise on it (own or through the tau-b normalisation) moves them to first order.
    tau2 = np.array([[1.0, 0.5], [0.5, 1.0]])
    spectrum, vectors = top_eigen(latent_correlation(tau2), 2)
    assert sine_block_noise_sd(tau2, sigma, 1, spectrum, vectors) == pytest.approx(0.0, abs=1e-15)


def test_pre_release_row_is_the_first_order_sine_block_with_unit_gaps():
    n, p, k, eps, delta = 3000, 6, 2, 1.0, 1e-5
    sigma = gaussian_sigma(rank_tau_sensitivity(n, p), eps, delta, "analytic")
    step = rank_direction_accuracy(n, p, k, eps, delta)
    assert step.predicted == pytest.approx(math.sqrt(k * (p - k)) * 0.5 * math.pi * sigma,
                                           rel=1e-12)
    assert rank_direction_accuracy(n, p, p, eps, delta).predicted == 0.0  # the whole space
    assert rank_accuracy(p, k, sigma).steps[0].predicted == step.predicted  # plan = result


def test_pre_release_row_within_2x_where_its_assumptions_hold():
    # Two 2 x 2 blocks of correlation 0.5: eigenvalues 1.5, 1.5, 0.5, 0.5, so every gap
    # lambda_i - lambda_l (i <= 2 < l) is 1, the plan's assumption. The plan still reads high,
    # by the factors its public-only view cannot see: a within-block correlation's noise does
    # not move that block's eigenvectors (as for p = 2), so 2 of the 4 sine entries carry
    # noise (sqrt 2); the Frobenius norm of the k = 2 sine block exceeds the largest sine (up
    # to sqrt 2; the measured ratio is 1.8). 2x is the plan's target.
    correlation = np.kron(np.eye(2), np.array([[1.0, 0.5], [0.5, 1.0]]))
    tau = 2.0 / math.pi * np.arcsin(correlation)
    sigma, k = 0.004, 2
    truth = top_eigen(correlation, 4)[1][:, :k]
    measured = [sin_theta(top_eigen(latent_correlation(r), 4)[1][:, :k], truth)
                for r in _releases(tau, sigma, 300, seed=2)]
    planned = min(1.0, math.sqrt(k * (4 - k)) * 0.5 * math.pi * sigma)
    assert 0.5 <= planned / np.median(measured) <= 2.0


def test_repelled_spectrum_takes_two_noise_variances_off_each_adjacent_gap():
    # sqrt(2^2 - 2 0.1^2) and sqrt(max(0.1^2 - 2 0.1^2, 0)) = 0: a gap within the noise closes.
    assert repelled_spectrum([3.0, 1.0, 0.9], 0.1).tolist() == pytest.approx(
        [3.0, 3.0 - math.sqrt(3.98), 3.0 - math.sqrt(3.98)], rel=1e-12)
    assert repelled_spectrum([2.0, 1.0], 0.0).tolist() == [2.0, 1.0]  # no noise, no change


def _degenerate_case():
    """One block of three columns at correlation 0.6 and three independent columns:
    eigenvalues 2.2, 1, 1, 1, 0.4, 0.4, so lambda_2 = lambda_3 and the second direction is
    arbitrary in a 3-dimensional eigenspace (random level wherever the draw lands far from the
    estimand's)."""
    correlation = np.eye(6)
    correlation[:3, :3] = 0.6
    np.fill_diagonal(correlation, 1.0)
    return correlation


def _warning_shares(correlation, sigma, draws, seed, k=2):
    """Measured sin-theta, the post-release warning and the first-order rule's warning (median
    Frobenius sine on the released gaps >= 0.9), per simulated release."""
    tau = 2.0 / math.pi * np.arcsin(correlation)
    p = correlation.shape[0]
    truth = top_eigen(correlation, p)[1][:, :k]
    measured, warned, first_order = [], [], []
    for released in _releases(tau, sigma, draws, seed):
        spectrum, vectors = top_eigen(latent_correlation(released), p)
        noise = sine_block_noise_sd(released, sigma, k, spectrum, vectors)
        measured.append(sin_theta(vectors[:, :k], truth))
        warned.append(not rank_accuracy(p, k, sigma, spectrum, noise).steps[1].reliable)
        first_order.append(not released_direction_accuracy(spectrum, k, noise).reliable)
    return np.array(measured), np.array(warned), np.array(first_order)


def test_post_release_rule_warns_more_random_level_runs_where_the_true_gap_is_zero():
    # An adversarial case for any plug-in rule: lambda_2 = lambda_3 = lambda_4 exactly, and the
    # noise spreads the released triple apart (by about s each), which reads as gaps. The
    # bootstrap from the released eigenvalues sees part of that (its draws cross gaps of about
    # s), the first-order rule at the random level few. Measured with this seed: 0.53 of the 57
    # random-level runs warned against 0.28 for the first-order rule; 57 runs put a share's sd
    # near 0.07, so >= 0.3 is over three sd inside and the lead of 0.25 two sd above 0.1. (On real
    # data, where exact ties are rare, the bootstrap warns 93-97% of them:
    # benchmarks/results/rank_accuracy_80sets_3seeds.txt.)
    measured, warned, first_order = _warning_shares(_degenerate_case(), 0.02, 200, seed=3)
    random_level = measured >= RANDOM_LEVEL
    assert random_level.sum() >= 40  # enough random-level runs to read shares from
    assert np.mean(warned[random_level]) >= 0.3
    assert np.mean(warned[random_level]) >= np.mean(first_order[random_level]) + 0.1


def test_post_release_rule_does_not_warn_where_the_gaps_are_clear():
    # The two-block matrix (gaps lambda_2 - lambda_3 = 2.1) at sigma = 0.01: the first-order
    # sine is about sqrt(2 * 4) (pi / 2) 0.6 sigma / 2.1 ~ 0.013, forty times below the warning
    # level, so no run may warn (a false alarm here would be a wrong noise scale by 40x).
    measured, warned, _ = _warning_shares(CORRELATION, 0.01, 50, seed=4)
    assert measured.max() < 0.1
    assert not warned.any()


def test_bootstrap_matches_a_direct_simulation_in_a_rotated_basis():
    # The bootstrap simulates diag(spectrum) + F; a release of V diag(spectrum) V' + E with any
    # rotation V and noise E of the same rotation-invariant law (diagonal sd s, off-diagonal
    # s / sqrt 2) has the same law of sin-theta. Medians of 256 and 2000 draws of the same law:
    # sd of their difference about 1.25 sd(sin) sqrt(1 / 256 + 1 / 2000) ~ 0.1 sd(sin) ~ 0.01 at
    # these values; 0.03 is three of them.
    spectrum, k, s = np.array([2.5, 1.3, 1.1, 0.6, 0.3, 0.2]), 2, 0.08
    boot = np.median(released_sine_draws(spectrum, k, s))
    rng = np.random.default_rng(11)
    rotation = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    matrix = rotation @ np.diag(spectrum) @ rotation.T
    direct = []
    for _ in range(2000):
        noise = rng.standard_normal((6, 6))
        noise = 0.5 * s * (noise + noise.T)
        direct.append(sin_theta(top_eigen(matrix + noise, k)[1], rotation[:, :k]))
    assert abs(boot - np.median(direct)) < 0.03, (boot, np.median(direct))


def test_bootstrap_agrees_with_first_order_theory_at_small_noise_for_k_1():
    # k = 1: the sine is the norm of (F_1j / (lambda_1 - lambda_j))_j to first order, whose
    # median released_direction_accuracy computes (Satterthwaite/Wilson-Hilferty, a few %); the
    # next order is O(s / gap) = 1e-3 relative; Monte-Carlo error of the median of 256 draws
    # about 8% relative. 15% covers them.
    spectrum, s = np.array([3.0, 1.5, 1.0, 0.5]), 0.001
    boot = np.median(released_sine_draws(spectrum, 1, s))
    first_order = released_direction_accuracy(spectrum, 1, s).predicted
    assert boot == pytest.approx(first_order, rel=0.15)


def test_noise_only_spectrum_reads_random_level_and_the_whole_space_reads_zero():
    # R = I: the released eigenvalues are the noise's own, spaced by about s, so every gap is
    # within the noise and the bootstrap's draws cross them: its median sine is far above what
    # a real gap gives (in a 6 x 6 GOE the top-2 subspaces of two draws are near random). Of 20
    # noise-only releases all read >= 0.59 with these seeds (median 0.71); the Monte-Carlo sd of
    # each median is about 0.03, so >= 18 of 20 warned and a median >= 0.6 leave room for it.
    s, predicted = 0.05, []
    for seed in range(20):
        noise = np.random.default_rng(100 + seed).standard_normal((6, 6))
        spectrum = np.linalg.eigvalsh(np.eye(6) + 0.5 * s * (noise + noise.T))[::-1]
        predicted.append(rank_accuracy(6, 2, 0.01, spectrum, s).steps[1].predicted)
    assert np.sum(np.array(predicted) >= RANK_WARNING_LEVEL) >= 18
    assert np.median(predicted) >= 0.6
    assert released_sine_draws(spectrum, 6, s).max() == 0.0  # k = p: the whole space
    # no noise: determined where the gap is positive, random level where it is zero
    assert released_sine_draws([2.0, 1.0, 0.5], 1, 0.0).max() == 0.0
    assert released_sine_draws([2.0, 2.0, 0.5], 1, 0.0).min() == 1.0


def test_bridged_noise_sd_is_one_formula_for_the_directions_and_the_scree():
    # The directions' model and the scree's std err read the same first-order bound:
    # (pi / 2) sigma / min_{j != k} sqrt(d_j d_k), d the released diagonal clipped to [0.05, 1].
    released = np.array([[0.81, 0.2, 0.1], [0.2, 0.64, 0.3], [0.1, 0.3, 1.2]])
    sigma = 0.01
    expected = 0.5 * math.pi * sigma / math.sqrt(0.81 * 0.64)
    assert bridged_noise_sd(released, sigma) == pytest.approx(expected, rel=1e-12)
    bound = RankBound.from_release(released, released, released, sigma, 500, DIAGONAL_FLOOR)
    assert bound.noise_sd() == pytest.approx(math.sqrt(2.0) * expected, rel=1e-12)
    assert smallest_normaliser(np.diag([0.01, 0.5, 0.9]), DIAGONAL_FLOOR) == pytest.approx(math.sqrt(0.05 * 0.5))
