"""The incomplete elementwise Kendall's tau over a block design: exactness, sensitivity, errors."""
import itertools

import numpy as np
import pytest

from dppca._validation import DPPCAValueError
from dppca.stats.elementwise_kendall import kendall_tau_matrix
from dppca.stats.elementwise_kendall_blocks import block_kendall_tau_matrix, block_tau_sensitivity
from dppca.stats.pair_design import block_design


def _upper(matrix):
    return matrix[np.triu_indices(matrix.shape[0])]


def test_one_block_is_the_complete_statistic_with_ties():
    # One block of all n rows: the same exact integer counts over the same P pairs, and one
    # correctly rounded division 2 S / (n (n - 1)) = S / P (2 S and n (n - 1) exact): bitwise equal.
    x = np.round(np.random.default_rng(0).standard_normal((60, 4)), 1)
    x[:, 3] = np.sign(x[:, 3])
    design = block_design(60, 59, np.random.default_rng(1))
    assert np.array_equal(block_kendall_tau_matrix(x, design), kendall_tau_matrix(x))


def test_each_block_is_weighted_by_its_rows():
    # Blocks of sizes 4 and 5 (n = 13, r = 3): T_D = sum_B (|B| / n) T(X_B), checked against the
    # complete engine on each block (rounding of a few float additions: 1e-15).
    x = np.random.default_rng(2).standard_normal((13, 3))
    design = block_design(13, 3, np.random.default_rng(3))
    expected = sum((hi - lo) / 13 * kendall_tau_matrix(x[design.order[lo:hi]])
                   for lo, hi in zip(design.bounds[:-1], design.bounds[1:]))
    assert set(np.diff(design.bounds).tolist()) == {4, 5}
    np.testing.assert_allclose(block_kendall_tau_matrix(x, design), expected, rtol=0, atol=1e-15)
    # Untied columns: every block's diagonal is 1 and the weights sum to 1.
    np.testing.assert_allclose(np.diag(block_kendall_tau_matrix(x, design)), 1.0, rtol=0, atol=1e-15)


def test_sensitivity_never_exceeded_and_attained():
    # Replace-one neighbours, brute force over rows and extreme replacements (+-1e300, 0, ties);
    # the bound 2 p / n is attained by a row above all others in every column that moves below
    # them in p / 2 columns (each of its r pairs' terms moves by p in L2, weight 2 / (n r)).
    rng = np.random.default_rng(4)
    n, p = 12, 4
    x = np.round(rng.standard_normal((n, p)), 1)
    design = block_design(n, 3, np.random.default_rng(5))
    bound = block_tau_sensitivity(n, p)
    base = _upper(block_kendall_tau_matrix(x, design))
    worst = 0.0
    replacements = [np.full(p, 1e300), np.full(p, -1e300), np.zeros(p), x[0].copy(),
                    np.array([1e300, -1e300, 1e300, -1e300])]
    for i, row in itertools.product(range(n), replacements):
        y = x.copy()
        y[i] = row
        worst = max(worst, np.linalg.norm(_upper(block_kendall_tau_matrix(y, design)) - base))
    assert worst <= bound
    top, bottom = x.copy(), x.copy()
    top[0] = 10.0
    bottom[0] = [10.0, 10.0, -10.0, -10.0]
    moved = np.linalg.norm(_upper(block_kendall_tau_matrix(bottom, design))
                           - _upper(block_kendall_tau_matrix(top, design)))
    assert moved == pytest.approx(2 * p / n, rel=1e-12)


def test_errors_name_the_argument():
    design = block_design(10, 4, np.random.default_rng(0))
    with pytest.raises(DPPCAValueError, match="values"):
        block_kendall_tau_matrix(np.zeros((9, 2)), design)
    with pytest.raises(DPPCAValueError, match="NaN"):
        block_kendall_tau_matrix(np.full((10, 2), np.nan), design)


def test_dask_chunks_give_the_same_bits():
    # Exact int64 counts per chunk of whole blocks, summed exactly: the same two divisions as in
    # memory, whatever the chunking (including chunks that cut blocks before the re-chunking).
    da = pytest.importorskip("dask.array")
    from dppca.stats.elementwise_kendall_blocks import dask_block_kendall_tau_matrix

    x = np.round(np.random.default_rng(6).standard_normal((301, 4)), 1)
    design = block_design(301, 9, np.random.default_rng(7))
    expected = block_kendall_tau_matrix(x, design)
    for chunks in (50, 97, 301):
        lazy = da.from_array(x, chunks=(chunks, 4))
        assert np.array_equal(dask_block_kendall_tau_matrix(lazy, design), expected)
