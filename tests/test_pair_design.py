"""Incomplete U-statistics over a random block design (dppca.stats.pair_design)."""
import math

import numpy as np
import pytest

from dppca import dp_pc_dir
from dppca._validation import DPPCAValueError
from dppca.stats.kendall import kendall_tau_matrix, rounding_slack
from dppca.methods.gdppca import GDPPCA_SENSITIVITY_CONSTANT
from dppca.stats.pair_design import (COMPLETE_WORK, MIN_PAIRS_PER_ROW, block_design, block_sum_slack,
                                     incomplete_kendall_tau_matrix, largest_block, pairs_per_row_rule,
                                     pairwise_sum, resolve_design)


def test_design_is_a_partition_with_nearly_equal_blocks():
    design = block_design(103, 9, np.random.default_rng(0))
    sizes = np.diff(design.bounds)
    assert sorted(design.order.tolist()) == list(range(103))
    assert sizes.max() - sizes.min() <= 1 and sizes.min() >= 10
    assert design.pairs_per_row >= 9
    assert design.n_pairs == int(np.sum(sizes * (sizes - 1) // 2))


def test_one_block_is_the_complete_statistic():
    X = np.random.default_rng(1).normal(size=(300, 4))
    design = block_design(300, 299, np.random.default_rng(2))
    # One block of all rows: the same pairs, summed by the same engine (rounding only).
    np.testing.assert_allclose(incomplete_kendall_tau_matrix(X, design), kendall_tau_matrix(X),
                               atol=1e-14)


def test_unbiased_whatever_the_row_order():
    # Rows sorted by their first coordinate (a file sorted by a column): with a public random
    # permutation the incomplete statistic is still unbiased for the complete one. The mean
    # of R draws has sd <= sqrt(2 / (n b R)) per entry (each block term is bounded by 1), so
    # 5 sd = 5 sqrt(2 / (400 * 10 * 400)) = 0.0056 bounds the error with room to spare.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3)) @ np.diag([3.0, 1.0, 0.5])
    X = X[np.argsort(X[:, 0])]
    complete = kendall_tau_matrix(X)
    draws = [incomplete_kendall_tau_matrix(X, block_design(400, 9, np.random.default_rng(s)))
             for s in range(400)]
    assert np.abs(np.mean(draws, axis=0) - complete).max() < 5 * math.sqrt(2 / (400 * 10 * 400))


@pytest.mark.parametrize("n", [5, 12, 50])
def test_replace_one_sensitivity_is_that_of_the_complete_statistic(n):
    # Neighbour search with a fixed design: random, origin, far-away and duplicate rows.
    rng = np.random.default_rng(n)
    bound = GDPPCA_SENSITIVITY_CONSTANT / n
    worst = 0.0
    for trial in range(200):
        X = rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-6, 7)
        if trial % 4 == 1:
            X[: n // 2] = X[0]                      # duplicates
        Y = X.copy()
        i = rng.integers(n)
        Y[i] = [0.0, 0.0, 0.0] if trial % 3 == 0 else rng.normal(size=3) * 10.0 ** rng.integers(-12, 13)
        design = block_design(n, max(1, n // 4), np.random.default_rng(trial))
        change = np.linalg.norm(incomplete_kendall_tau_matrix(X, design)
                                - incomplete_kendall_tau_matrix(Y, design))
        worst = max(worst, change / bound)
    assert worst <= 1 + 1e-9


def test_rule_is_complete_for_small_data_and_grows_with_n():
    assert pairs_per_row_rule(5000, 20, 1.0, 1e-5) is None
    assert int(math.sqrt(COMPLETE_WORK / 20)) < 10**5
    small, large = pairs_per_row_rule(10**5, 20, 1.0, 1e-5), pairs_per_row_rule(10**6, 20, 1.0, 1e-5)
    assert MIN_PAIRS_PER_ROW <= small <= large


def test_resolve_design_checks_its_arguments():
    with pytest.raises(DPPCAValueError, match="design"):
        resolve_design("partial", None, 100, 3, 1.0, 1e-5, "analytic")
    with pytest.raises(DPPCAValueError, match="pairs_per_row"):
        resolve_design("incomplete", 100, 100, 3, 1.0, 1e-5, "analytic")
    with pytest.raises(DPPCAValueError, match="complete"):
        resolve_design("complete", 5, 100, 3, 1.0, 1e-5, "analytic")
    assert resolve_design("incomplete", 2.0, 100, 3, 1.0, 1e-5, "analytic") == 2


def test_dp_pc_dir_incomplete_has_the_same_noise_and_a_note():
    X = np.random.default_rng(4).normal(size=(2000, 5)) @ np.diag([4.0, 2.0, 1.0, 1.0, 1.0])
    complete = dp_pc_dir(X, k=2, g_dppca=True, eps=1, delta=1e-5, rng=1, design="complete")
    incomplete = dp_pc_dir(X, k=2, g_dppca=True, eps=1, delta=1e-5, rng=1, design="incomplete",
                           pairs_per_row=200)
    # The same sensitivity up to the engine's rounding slack (a block's, not n's: smaller):
    # the two differ by at most the complete statistic's slack rho(2000, 5) (6e-5).
    from dppca.stats.kendall import rounding_slack

    assert incomplete.ledger.releases[0].noise_scale == pytest.approx(
        complete.ledger.releases[0].noise_scale, rel=rounding_slack(2000, 5))
    assert incomplete.ledger.releases[0].noise_scale <= complete.ledger.releases[0].noise_scale
    assert "incomplete U-statistic" in str(incomplete.summary())
    with pytest.raises(DPPCAValueError, match="g-DPPCA options"):
        dp_pc_dir(X, k=2, method="analyze_gauss", eps=1, delta=1e-5, design="incomplete")


@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_engine_extra_memory_is_at_most_twice_the_data(design):
    # numpy reports its allocations to tracemalloc: the peak while the statistic is computed,
    # over the bytes of the data, is the engine's extra memory (target: <= 2x, was 9x). The
    # complete engine holds the factor [z, 1, ||z||^2] ((d + 2)/d of the data), ~5 floats per
    # row (norms, order, per-thread degrees) and ~1 MB strip buffers per thread: ~1.5x at d = 20.
    import tracemalloc

    X = np.random.default_rng(5).normal(size=(60000, 20))
    plan = block_design(60000, 300, np.random.default_rng(6))
    kendall_tau_matrix(X[:50])  # first use imports numba and loads the fused kernel: not data-sized
    tracemalloc.start()
    try:
        if design == "complete":
            kendall_tau_matrix(X)
        else:
            incomplete_kendall_tau_matrix(X, plan)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 2 * X.nbytes


# ----------------------------------------------------------------------------- clamped pair statistics

def test_incomplete_clamped_fractions_within_their_sampling_error_of_complete():
    from dppca.stats.pair_statistics import block_clamped_fractions, pair_clamped_fractions

    n, r, k = 4000, 99, 3
    y = np.random.default_rng(4).standard_t(4, size=(n, k))
    upper = np.array([1.0, 4.0, 16.0])
    complete = pair_clamped_fractions(y, 0.0, upper)
    draws = np.array([block_clamped_fractions(y, block_design(n, r, np.random.default_rng(s)),
                                              0.0, upper) for s in range(20)])
    # Given the data the block-linear parts of the two statistics coincide (the blocks
    # partition the rows); what is left is the degenerate part, Var <= 2 sigma_2^2 / (n r) with
    # sigma_2^2 <= 1/4 for terms in [0, 1] (Lee 1990, §4.3): sd <= sqrt(1 / (2 n r)) = 1.1e-3.
    sd = np.sqrt(1 / (2 * n * r))
    assert np.all(np.abs(draws - complete) <= 5 * sd)
    # Unbiased over the design: the mean of 20 draws is within 5 sd / sqrt(20).
    assert np.all(np.abs(draws.mean(axis=0) - complete) <= 5 * sd / np.sqrt(20))


def test_incomplete_clamped_fractions_keep_the_2_over_n_bound_for_a_far_outlier():
    from dppca.stats.pair_statistics import block_clamped_fractions, block_fp_inflation

    n = 600
    design = block_design(n, 59, np.random.default_rng(1))
    y = 6.22e8 + 4.28 * np.random.default_rng(178).standard_normal((n, 1))
    block_max = int(np.max(np.diff(design.bounds)))
    a = block_clamped_fractions(y, design, 0.0, 6e-4)
    # The row moved to the other end of the line, or onto a block mate (its pair drops to 0).
    for value in (0.0, y[design.order[1], 0]):
        neighbour = y.copy()
        neighbour[design.order[0]] = value
        b = block_clamped_fractions(neighbour, design, 0.0, 6e-4)
        assert abs(a[0] - b[0]) <= 2 / n * block_fp_inflation(n, block_max)
    assert abs(a[0] - b[0]) > 0  # the duplicate's pair term changed from ~1 to 0


def test_pairwise_sum_depth_is_logarithmic():
    # 1 + m tiny terms: a running total from 1.0 rounds every tiny term away (each is below
    # half an ulp of 1), the pairwise sum first adds the tiny terms among themselves, so it
    # is within gamma_L * sum|a|, L = 2 ceil(log2(m + 1)), of the exact fsum.
    m = 1000
    terms = [np.array([1.0])] + [np.array([2.0 ** -54])] * m
    exact = math.fsum(float(t[0]) for t in terms)
    depth = 2 * math.ceil(math.log2(len(terms) + 1))
    bound = depth * 2.0 ** -53 * exact * 1.0001
    assert abs(float(pairwise_sum(terms)[0]) - exact) <= bound
    assert float(sum(terms)[0]) == 1.0  # the running total loses all m terms (m 2^-54 > bound)
    assert m * 2.0 ** -54 > bound


def test_block_sum_within_its_slack_of_the_exact_sum_over_blocks():
    # The statistic's sum over blocks against math.fsum of the same block terms: the
    # difference is at most the (iii)-(iv) rounding of block_sum_slack, in Frobenius norm,
    # u (L + 1) n G^2 / n with G = 1 (spherical) and L = 6 ceil(log2(m + 1)).
    n, r = 3000, 9
    X = np.random.default_rng(4).standard_t(3, size=(n, 3))
    design = block_design(n, r, np.random.default_rng(5))
    blocks = [(a, b) for a, b in zip(design.bounds[:-1], design.bounds[1:])]
    terms = np.array([(b - a) * kendall_tau_matrix(X[design.order[a:b]]) for a, b in blocks])
    exact = np.vectorize(lambda i, j: math.fsum(terms[:, i, j]))(*np.indices((3, 3))) / n
    L = 6 * math.ceil(math.log2(len(blocks) + 1))
    assert np.linalg.norm(incomplete_kendall_tau_matrix(X, design) - exact) <= 2.0 ** -53 * (L + 2)
    slack = block_sum_slack(n, r, 3)
    assert slack > rounding_slack(largest_block(n, r), 3)  # the sum's term is included


def test_gdppca_sensitivity_carries_the_block_sum_slack():
    X = np.random.default_rng(6).normal(size=(2000, 3))
    fit = dp_pc_dir(X, 2, g_dppca=True, eps=1.0, delta=1e-5, design="incomplete",
                    pairs_per_row=99, rng=7)
    assert fit.ledger.releases[0].sensitivity == pytest.approx(
        GDPPCA_SENSITIVITY_CONSTANT * (1 + block_sum_slack(2000, 99, 3)) / 2000, rel=1e-15)
