"""sin_theta (scipy.linalg.subspace_angles) and the antitonic scree fit (scipy isotonic_regression)."""
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ortho_group

from dppca._validation import DPPCAValueError
from dppca.metrics import sin_theta
from dppca.results.scree import antitonic


def rotated_pair(p, k, largest, seed):
    """V1 = Q [I; 0] and V2 = Q [diag(cos t); diag(sin t); 0]: principal angles t, largest `largest`."""
    angles = largest * np.logspace(-1, 0, k)
    V1, V2 = np.zeros((p, k)), np.zeros((p, k))
    V1[:k] = np.eye(k)
    V2[:k], V2[k:2 * k] = np.diag(np.cos(angles)), np.diag(np.sin(angles))
    Q = ortho_group.rvs(p, random_state=seed)
    return Q @ V1, Q @ V2


@pytest.mark.parametrize("largest", [1e-12, 1e-10, 1e-8, 1e-4, 0.1, 1.0, np.pi / 2])
def test_sin_theta_is_accurate_at_every_angle(largest):
    # Rounding Q @ V moves each subspace by about p * 2^-53 ~ 1e-15 (Wedin's bound), so the
    # sine of the largest angle is known to ~1e-15 absolute; 1e-13 leaves a wide margin and
    # still fails sqrt(1 - s_min^2), whose error at 1e-10 is ~3e-8 (cancellation in 1 - s^2).
    for seed in range(3):
        V1, V2 = rotated_pair(12, 3, largest, seed)
        assert sin_theta(V1, V2) == pytest.approx(np.sin(largest), rel=0, abs=1e-13)


def test_sin_theta_small_angle_without_rotation_is_exact_to_rounding():
    # Exact floats: the angle between e1 and (cos t, sin t) is t up to t^3/6 terms and one
    # rounding, so relative 1e-12 is generous; the old formula returned 2.1e-8 here.
    V1 = np.eye(3)[:, :1]
    V2 = np.array([[np.cos(1e-10)], [np.sin(1e-10)], [0.0]])
    assert sin_theta(V1, V2) == pytest.approx(1e-10, rel=1e-12)


def test_sin_theta_is_the_spectral_norm_of_the_projection_difference():
    V1, V2 = rotated_pair(8, 2, 0.7, seed=4)
    expected = np.linalg.norm(V1 @ V1.T - V2 @ V2.T, 2)
    # Both sides are well conditioned at 0.7 rad: a few ulps of error each.
    assert sin_theta(V1, V2) == pytest.approx(expected, rel=1e-12)
    assert sin_theta(V2, V1) == pytest.approx(expected, rel=1e-12)


def test_sin_theta_ignores_signs_and_order_within_a_subspace():
    V1, V2 = rotated_pair(6, 2, 0.3, seed=5)
    flipped = -V2[:, ::-1]
    assert sin_theta(V1, flipped) == pytest.approx(sin_theta(V1, V2), rel=1e-12)
    assert sin_theta(V1, V1) == pytest.approx(0.0, abs=1e-15)


def test_sin_theta_takes_pandas_and_vectors():
    V1, V2 = rotated_pair(5, 2, 0.2, seed=6)
    frames = pd.DataFrame(V1, columns=["PC1", "PC2"]), pd.DataFrame(V2, columns=["PC1", "PC2"])
    assert sin_theta(*frames) == sin_theta(V1, V2)
    assert sin_theta(V1[:, 0], pd.Series(V1[:, 0])) == pytest.approx(0.0, abs=1e-15)
    assert sin_theta(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(1.0)


@pytest.mark.parametrize("V1, V2, message", [
    (np.eye(4)[:, :2], np.eye(4)[:, :1], "same shape"),
    (np.c_[np.eye(3)[:, 0], np.zeros(3)], np.eye(3)[:, :2], "linearly independent"),
    (np.eye(3)[:, :2], np.c_[np.eye(3)[:, 0], np.eye(3)[:, 0]], "linearly independent"),
    (np.full((3, 1), np.nan), np.eye(3)[:, :1], "`V1` must have finite"),
    (np.eye(3)[:, :1], np.full((3, 1), np.inf), "`V2` must have finite"),
])
def test_sin_theta_rejects_bad_input_by_name(V1, V2, message):
    with pytest.raises(DPPCAValueError, match=message):
        sin_theta(V1, V2)


def exact_antitonic(values) -> list:
    """The min-max formula of the antitonic fit, in exact rational arithmetic (the reference).

    f_i = min over j <= i of max over l >= i of mean(y_j..y_l) (Robertson, Wright & Dykstra
    1988, Theorem 1.4.4, for a non-increasing order); independent of pool adjacent violators.
    """
    y = [Fraction(float(v)) for v in values]
    sums = [Fraction(0)]
    for v in y:
        sums.append(sums[-1] + v)
    k = len(y)
    return [min(max((sums[l + 1] - sums[j]) / (l + 1 - j) for l in range(i, k))
                for j in range(i + 1)) for i in range(k)]


@pytest.mark.parametrize("k", [1, 2, 5, 20])
def test_antitonic_matches_the_exact_min_max_formula(k):
    rng = np.random.default_rng(k)
    for _ in range(20):
        raw = 10 * 0.7 ** np.arange(k) + rng.standard_normal(k)
        fit = antitonic(raw)
        # A block mean of m floats carries <= m rounding errors of relative 2^-53 each
        # (relative to the block's absolute sum); values here are O(1-10), k <= 20: 1e-13.
        assert np.allclose(fit, [float(v) for v in exact_antitonic(raw)], rtol=1e-13, atol=1e-13)
        assert np.all(np.diff(fit) <= 0)


def test_antitonic_small_example_and_ties():
    assert np.allclose(antitonic([3, 1, 2, 5, 0]), [3, 8 / 3, 8 / 3, 8 / 3, 0])
    assert np.array_equal(antitonic([2.0, 2.0, 1.0]), [2.0, 2.0, 1.0])
