"""Finding 1 of issue 9 (floating-point cancellation in the scree pair statistics), as tests.

The old ``_clamped_pair_mean`` summed prefix sums of y^2 over the whole sorted column: one row
far from an offset bulk put ulp(y^2) ~ 64 into every later prefix sum. On the offset data of
:func:`dppca.audit.offset_neighbours` it read 65.2 for a statistic in [0, 1] (a change of
1,380x the claimed 2/n); these tests fail on that code and pass on the block-relative one.
"""
import math

import numpy as np
import pytest

from dppca.audit import REGISTRY, neighbour_search, offset_neighbours
from dppca.audit.attacks import C_CLIP
from dppca.stats.kendall import kendall_tau_matrix
from dppca.stats.kendall_reference import kendall_tau_matrix_naive
from dppca.stats.pair_statistics import (pair_clamped_fractions, pair_clamped_means,
                                          pair_rounding_error, paired_squares)
from dppca.estimators.pair_means import pair_release_sensitivity
from dppca.estimators.tuning import m2_counts

BIGGEST = np.finfo(float).max


def test_offset_data_statistic_stays_in_range_and_within_sensitivity():
    D, D_prime = offset_neighbours()
    n = D.shape[0]
    before, after = pair_clamped_fractions(D, 0.0, C_CLIP), pair_clamped_fractions(D_prime, 0.0, C_CLIP)
    assert 0 <= after[0] <= 1  # the old code gave 65.2
    # claimed L2 sensitivity of one component: (2/n) x rounding inflation (1 + 4e-12 here)
    assert abs(after[0] - before[0]) <= pair_release_sensitivity(n, [0.0], [C_CLIP])


@pytest.mark.parametrize("seed", range(40))
def test_offset_data_neighbours_never_exceed_the_sensitivity(seed):
    # The random version of the finding (22.7x for "clipped" in the audit): one row replaced
    # by 0, by the far end of the data or by DBL_MAX, at offset 6.22e8 and 1e15.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 51))
    offset = rng.choice([6.22e8, 1e15, -3e12])
    y = offset + 4.28 * rng.standard_normal((n, 2))
    clip = np.array([C_CLIP, 10.0 ** rng.uniform(-6, 2)])
    base = pair_clamped_fractions(y, 0.0, clip)
    for row in (np.zeros(2), np.full(2, BIGGEST), y[1] + 1e-3, -y[2]):
        other = y.copy()
        other[0] = row
        changed = pair_clamped_fractions(other, 0.0, clip)
        assert np.all((0 <= changed) & (changed <= 1))
        assert np.linalg.norm(changed - base) <= pair_release_sensitivity(n, [0, 0], clip)


@pytest.mark.parametrize("scale,offset", [(1e-300, 0.0), (1e300, 0.0), (1.0, 1e15), (1e-12, 1.0),
                                          (1e150, -1e300)])
def test_matches_brute_force_pair_sum_at_extreme_scales(scale, offset):
    # Exact pair sum from explicit differences (with the spread as the unit, so nothing
    # overflows) against the O(n log n) routine; ties and an origin row included.
    rng = np.random.default_rng(3)
    y = offset + scale * rng.standard_t(3, size=30)
    y[:3] = y[3]
    y[4] = 0.0
    i, j = np.triu_indices(y.size, 1)
    unit = 2.0 ** round(math.log2(scale * 4.0))  # a power of two: y / unit is exact
    u = ((y[i] - y[j]) / unit) ** 2 / 2
    for lower, upper in [(0.0, 0.3), (0.05, 2.0), (1e-6, 1e-5)]:
        exact = np.clip((np.clip(u, lower, upper) - lower) / (upper - lower), 0, 1).mean()
        got = pair_clamped_fractions(y / unit, lower, upper)[0] if np.isfinite(y / unit).all() else exact
        # both are computed from the same per-row rounded values y/unit: they agree to the
        # proven rounding bound E(n, rho) (plus the brute force's own ~n u)
        assert abs(got - exact) <= pair_rounding_error(y.size, lower / upper) + 1e-12


def test_no_overflow_to_nan_near_dbl_max():
    # and no RuntimeWarning (pytest turns dppca's into errors): a warning would depend on one row
    y = np.array([BIGGEST, -BIGGEST, BIGGEST, 0.0, 1.0, 1.0 + 1e-9])
    values = pair_clamped_fractions(y, 0.0, [1e300])
    assert np.all(np.isfinite(values)) and 0 <= values[0] <= 1
    assert np.isfinite(pair_clamped_means(y, 0.0, 1e308)).all()
    w = paired_squares(y[:, None], (np.array([0, 2]), np.array([1, 3])))
    assert np.all(w[:, 0] == np.inf)
    assert m2_counts(np.r_[w, w], -4, 4, 1).sum() == 1


def test_upper_bound_sample_variance_kept():
    y = np.random.default_rng(0).normal(size=(20, 2))
    assert np.allclose(pair_clamped_means(y, 0, np.inf), y.var(axis=0, ddof=1))


def test_clipped_neighbour_search_finds_no_violation_on_offset_data():
    # The audit's own search restricted to the offset families: fails on the old code (1380x).
    release = REGISTRY["scree: clipped pair means"]
    from dataclasses import replace
    offset_only = replace(release, kinds=("offset", "offset_1e15"))
    result = neighbour_search(offset_only, seed=178, sizes=(5, 43))
    assert result.ratio <= 1 + 1e-9


def test_kendall_matrix_finite_near_dbl_max():
    # Row differences of finite rows overflowed to inf (then nan) before the /4 guard.
    rng = np.random.default_rng(1)
    X = rng.standard_normal((7, 3)) * 1e300
    X[0] = [BIGGEST, -BIGGEST, BIGGEST]
    for kwargs in ({}, {"sign": "winsorized", "radius": 2.0}, {"xi": lambda s: np.minimum(s, 1.5)}):
        fast, naive = kendall_tau_matrix(X, **kwargs), kendall_tau_matrix_naive(X, **kwargs)
        assert np.all(np.isfinite(fast))
        assert np.allclose(fast, naive, atol=1e-12)
    # spherical sign: the matrix of a changed row moves by at most 2 sqrt(2)/n in Frobenius
    Y = X.copy()
    Y[0] = 0.0
    assert np.linalg.norm(kendall_tau_matrix(X) - kendall_tau_matrix(Y)) <= 2 * math.sqrt(2) / 7


def _exact_spherical_kendall(X) -> np.ndarray:
    """K = 2/(n(n-1)) sum_{i<j} d d^T / ||d||^2 (spherical sign) in exact rationals."""
    from fractions import Fraction

    rows = [[Fraction(float(v)) for v in row] for row in X]
    n, p = len(rows), len(rows[0])
    K = [[Fraction(0)] * p for _ in range(p)]
    for i in range(n):
        for j in range(i + 1, n):
            diff = [a - b for a, b in zip(rows[i], rows[j])]
            norm = sum(v * v for v in diff)
            for a in range(p):
                for b in range(p):
                    K[a][b] += diff[a] * diff[b] / norm
    scale = Fraction(2, n * (n - 1))
    return np.array([[float(v * scale) for v in row] for row in K])


@pytest.mark.parametrize("engine", ["blas", "fused"])
def test_kendall_rounding_slack_covers_the_summed_laplacian_pieces(engine):
    # Issue 23 part B: adversarial magnitudes for the Laplacian form. Two tight clusters far
    # from the centre: within a cluster, pairs sit just outside the near-duplicate band
    # (||z_i - z_j||^2 slightly above 1e-4 (||z_i||^2 + ||z_j||^2)), so their pieces
    # w_ij z_i z_j^T are ~1e4 times the pair's term and cancel in the sum. The computed K of
    # each data set must be within rho sqrt(2) / n of the exact-rational K in Frobenius norm
    # (G = 1): half the slack rho = rounding_slack(n, p) of the sensitivity 2 sqrt(2) / n, so
    # that two neighbours' computed K differ by at most (1 + rho) times the sensitivity.
    from dppca.stats.fused_pairs import fused_available
    from dppca.stats.kendall import rounding_slack

    if engine == "fused" and not fused_available():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(7)
    n, p = 40, 3
    centre = np.array([1e3, -7e2, 5e2])
    X = np.where(np.arange(n)[:, None] % 2 == 0, centre, -centre) \
        + 0.016 * np.linalg.norm(centre) * rng.standard_normal((n, p)) / math.sqrt(p)
    X_prime = X.copy()
    X_prime[0] = -centre * (1 + 3e-3)  # the replaced row joins the other cluster
    allowance = rounding_slack(n, p) * math.sqrt(2) / n
    for data in (X, X_prime):
        error = np.linalg.norm(kendall_tau_matrix(data, engine=engine) - _exact_spherical_kendall(data))
        assert error <= allowance
    exact_change = np.linalg.norm(_exact_spherical_kendall(X) - _exact_spherical_kendall(X_prime))
    computed_change = np.linalg.norm(kendall_tau_matrix(X, engine=engine)
                                     - kendall_tau_matrix(X_prime, engine=engine))
    assert computed_change <= exact_change + 2 * allowance
