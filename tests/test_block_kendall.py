"""The batched Kendall engine of incomplete designs (dppca.stats.block_kendall, working_rows).

The sensitivity proof of block_sum_slack needs each block's computed term to be a function of
that block's rows alone; batching must not change it. These tests compare bitwise against the
engine run on each block by itself (on one BLAS thread, as the block workers run).
"""
import numpy as np
import pytest

from dppca.stats.block_kendall import block_kendall_terms
from dppca.stats.kendall import kendall_tau_matrix
from dppca.stats.threads import single_blas_thread
from dppca.stats.pair_design import block_design, incomplete_kendall_tau_matrix
from dppca.stats.working_rows import block_column_extremes, working_rows, working_rows_of_blocks


def _blocks(n, d, b, seed):
    Y = np.random.default_rng(seed).standard_t(3, size=(n // b, b, d))
    Y[:, 1::4] = Y[:, 0:1]  # exact duplicate rows and tied column values
    return Y


@pytest.mark.parametrize("b", [2, 3, 64, 65])
@pytest.mark.parametrize("d", [1, 5])
def test_working_rows_of_blocks_are_those_of_each_block(b, d):
    Y = _blocks(8 * b, d, b, seed=b + d)
    median, maxima, minima = block_column_extremes(Y)
    assert np.array_equal(median, np.median(Y, axis=1))
    assert np.array_equal(maxima, Y.max(axis=1)) and np.array_equal(minima, Y.min(axis=1))
    together = working_rows_of_blocks(Y)
    for k in range(Y.shape[0]):
        alone, batched = working_rows(Y[k]), together.block(k)
        assert alone.scale == batched.scale
        for field in ("order", "sqnorm", "left", "X"):
            assert np.array_equal(getattr(alone, field), getattr(batched, field))


def _terms_alone(X, design, **sign):
    """|B| K_g(X_B) of each block, the engine run on that block only (one BLAS thread)."""
    with single_blas_thread():
        return [(b - a) * kendall_tau_matrix(X[design.order[a:b]], **sign)
                for a, b in zip(design.bounds[:-1], design.bounds[1:])]


def _terms_batched(X, design, **sign):
    blocks = np.arange(design.bounds.size - 1)
    with single_blas_thread():
        return list(block_kendall_terms(X, design.order, design.bounds, blocks, **sign))


@pytest.mark.parametrize("p, sign", [(5, {}), (20, {}), (30, {}),  # fused, fused, BLAS form
                                     (6, {"sign": "winsorized", "radius": 2.0}),
                                     (4, {"xi": lambda s: np.minimum(s, 1.5)})])
def test_batched_terms_are_bitwise_the_engine_on_each_block(p, sign):
    # 4,003 rows in blocks of 56 and 57 (two sizes), several batches of each size.
    X = np.random.default_rng(p).standard_t(3, size=(4003, p))
    X[0:4002:9] = X[1::9]  # duplicate rows (pairs summed from explicit differences)
    design = block_design(4003, 55, np.random.default_rng(1))
    assert len(set(np.diff(design.bounds).tolist())) == 2
    for alone, batched in zip(_terms_alone(X, design, **sign), _terms_batched(X, design, **sign)):
        assert np.array_equal(alone, batched)


@pytest.mark.parametrize("sign", [{}, {"sign": "winsorized"}])
def test_a_block_near_dbl_max_leaves_the_other_blocks_terms_unchanged(sign):
    # Data near DBL_MAX send their block (and batch) through the engine's rescaling; every
    # other block's term must stay the same array of doubles (the proof of block_sum_slack).
    X = np.random.default_rng(3).normal(size=(2000, 4))
    design = block_design(2000, 49, np.random.default_rng(2))
    before = _terms_batched(X, design, **sign)
    Y = X.copy()
    Y[design.order[60]] = 1.7e308  # a row of block 1
    after = _terms_batched(Y, design, **sign)
    assert np.all(np.isfinite(after[1]))
    assert not np.array_equal(before[1], after[1])
    assert all(np.array_equal(a, b) for k, (a, b) in enumerate(zip(before, after)) if k != 1)
    assert np.array_equal(after[1], _terms_alone(Y, design, **sign)[1])


def test_incomplete_statistic_is_deterministic():
    X = np.random.default_rng(4).standard_t(2, size=(30000, 20))
    design = block_design(30000, 600, np.random.default_rng(5))
    assert np.array_equal(incomplete_kendall_tau_matrix(X, design),
                          incomplete_kendall_tau_matrix(X, design))
