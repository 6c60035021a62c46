"""The elementwise Kendall's tau-a matrix: exact against brute force and scipy's tau-b."""
import numpy as np
import pytest
from scipy.stats import kendalltau

from dppca._validation import DPPCAValueError
from dppca.stats.elementwise_kendall import kendall_sign_counts, kendall_tau_matrix


def brute_sign_counts(x):
    """O(n^2 p^2) sums of sign products over the pairs i < i', in integers."""
    n = x.shape[0]
    first, second = np.triu_indices(n, k=1)
    signs = np.sign(x[first] - x[second]).astype(np.int64) if n > 1 else np.zeros((0, x.shape[1]))
    # comparisons, not differences: sign(a - b) overflows for a = 1e300, b = -1e300 only to inf,
    # whose sign is still right; -0.0 == 0.0 gives 0 as it should
    return signs.T @ signs


@pytest.mark.parametrize("seed", range(12))
def test_counts_equal_brute_force_with_many_ties(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(2, 60)), int(rng.integers(1, 7))
    levels = int(rng.integers(1, 6))  # 1 level: constant columns, every pair tied
    x = rng.integers(0, levels, size=(n, p)).astype(float)
    x[:, 0] = rng.normal(size=n)  # one untied column beside the tied ones
    if n > 3:
        x[1] = x[0]  # a duplicated row: a pair tied in every column
    counts, pairs = kendall_sign_counts(x)
    assert pairs == n * (n - 1) // 2
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, brute_sign_counts(x))
    # one division per entry: the matrix is exactly counts / pairs
    np.testing.assert_array_equal(kendall_tau_matrix(x), counts / pairs)


def test_adversarial_magnitudes_and_signed_zero():
    x = np.array([[1e300, -1e300, 0.0], [-1e300, 1e300, -0.0], [0.0, 0.0, 5e-324],
                  [np.inf, -np.inf, 1.0], [1e300, 1e300, 0.0], [-np.inf, 0.0, -5e-324]])
    np.testing.assert_array_equal(kendall_sign_counts(x)[0], brute_sign_counts(x))


@pytest.mark.parametrize("seed", range(4))
def test_tau_b_matches_scipy(seed):
    rng = np.random.default_rng(100 + seed)
    n = 300
    x = np.column_stack([rng.normal(size=n), np.round(rng.normal(size=n)),
                         rng.integers(0, 3, size=n), rng.normal(size=n) ** 3])
    x[:, 3] += x[:, 0]
    tau = kendall_tau_matrix(x)
    for j in range(4):
        for k in range(j + 1, 4):
            expected = kendalltau(x[:, j], x[:, k], variant="b").statistic
            # both are ratios of the same integer counts: agreement to rounding (1e-12)
            assert tau[j, k] / np.sqrt(tau[j, j] * tau[k, k]) == pytest.approx(expected, abs=1e-12)


def test_invariant_under_increasing_transforms():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(200, 3))
    transformed = np.column_stack([np.exp(x[:, 0]), x[:, 1] ** 3, 5 * x[:, 2] - 2])
    np.testing.assert_array_equal(kendall_tau_matrix(x), kendall_tau_matrix(transformed))


def test_diagonal_is_share_of_untied_pairs():
    x = np.array([[0.0], [0.0], [1.0], [2.0]])  # 1 tied pair of 6
    assert kendall_tau_matrix(x)[0, 0] == pytest.approx(5 / 6, abs=1e-15)


@pytest.mark.parametrize("bad, message", [(np.ones((1, 3)), "`values` must be a 2-D array with at least 2 rows"),
                                          (np.array([[1.0, np.nan], [2.0, 3.0]]), "`values` must not hold NaN"),
                                          (np.ones(4), "`values` must be a 2-D array")])
def test_bad_input(bad, message):
    with pytest.raises(DPPCAValueError, match=message):
        kendall_tau_matrix(bad)
