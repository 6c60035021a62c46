"""Simulators of Kim & Jung's Section 4 design."""
import math

import numpy as np
import pytest

from dppca import DPPCAValueError
from dppca.simulate import (DISTRIBUTIONS, contaminated_gaussian, elliptical_gaussian,
                            kim_jung_outlier_center, kim_jung_sigma, multivariate_t,
                            simulate_kim_jung)


@pytest.mark.parametrize("d", [4, 5, 25])
def test_sigma_has_the_papers_spectrum_and_eigenvectors(d):
    sigma, V = kim_jung_sigma(d)
    values = np.linalg.eigvalsh(sigma)[::-1]
    np.testing.assert_allclose(values, [10, 5] + [1] * (d - 2), atol=1e-12)
    np.testing.assert_allclose(sigma @ V, V * [10, 5], atol=1e-12)
    np.testing.assert_allclose(V[:4, 0], [0.5] * 4)
    np.testing.assert_allclose(V[:4, 1], [0.5, -0.5, 0.5, -0.5])


def test_outlier_center_is_orthogonal_with_norm_25():
    _, V = kim_jung_sigma(10)
    center = kim_jung_outlier_center(10)
    assert np.linalg.norm(center) == pytest.approx(25.0)
    np.testing.assert_allclose(V.T @ center, 0, atol=1e-12)


def test_gaussian_sample_covariance_is_sigma():
    # n = 40000: each entry's sampling sd is at most sqrt(2) x 10 / sqrt(40000) ~ 0.07; 0.35 is 5 sd.
    sigma, _ = kim_jung_sigma(5)
    X = elliptical_gaussian(40000, sigma, rng=1)
    assert np.abs(np.cov(X, rowvar=False) - sigma).max() < 0.35
    assert np.abs(X.mean(axis=0)).max() < 0.1  # sd of a mean <= sqrt(10/40000) = 0.016


def test_t1_marginals_are_cauchy_with_scale_sqrt_sigma_jj():
    # Coordinate j of t_1(Sigma) is Cauchy with scale sqrt(Sigma_jj): median |X_j| = sqrt(Sigma_jj).
    # The sample median of |Cauchy| over 40000 draws has relative sd ~ pi/(2 sqrt(40000)) ~ 0.8%.
    sigma, _ = kim_jung_sigma(5)
    X = multivariate_t(40000, sigma, df=1, rng=2)
    ratio = np.median(np.abs(X), axis=0) / np.sqrt(np.diag(sigma))
    np.testing.assert_allclose(ratio, 1.0, atol=0.05)


def test_contamination_replaces_five_percent_by_tight_outliers():
    sigma, _ = kim_jung_sigma(6)
    X = contaminated_gaussian(1010, sigma, rng=3)
    center = kim_jung_outlier_center(6)
    near = np.linalg.norm(X - center, axis=1) < 0.05 * (math.sqrt(6) + 6)  # sd 0.05 per coordinate
    assert near.sum() == round(0.05 * 1010)


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_simulate_kim_jung_is_seeded(distribution):
    a = simulate_kim_jung(distribution, 50, 5, rng=9)
    assert a.shape == (50, 5)
    np.testing.assert_array_equal(a, simulate_kim_jung(distribution, 50, 5, rng=9))


@pytest.mark.parametrize("call,match", [
    (lambda: kim_jung_sigma(3), "`d` must be an integer >= 4"),
    (lambda: kim_jung_sigma(5, (5, 10, 1)), "strictly decreasing"),
    (lambda: simulate_kim_jung("cauchy", 10, 5), "`distribution` must be one of"),
    (lambda: elliptical_gaussian(10, np.ones((3, 3))), "positive definite"),
    (lambda: elliptical_gaussian(10, np.ones((3, 2))), "symmetric square"),
    (lambda: multivariate_t(10, np.eye(3), df=0), "`df`"),
    (lambda: contaminated_gaussian(10, np.eye(5), fraction=1.5), "`fraction`"),
    (lambda: contaminated_gaussian(10, np.eye(5), center=[1, 2]), "`center` must be a finite vector"),
])
def test_bad_arguments(call, match):
    with pytest.raises(DPPCAValueError, match=match):
        call()
