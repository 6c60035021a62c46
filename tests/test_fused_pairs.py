"""The fused kernel's two-rows-per-pass path (dppca.stats.fused_source) against the BLAS form.

Rows i and i + 1 go together over the columns j >= i + 2; the pair (i, i + 1) and the last
row of a block with an odd count take the one-row loops. These tests put every kind of pair
(exact and near duplicates, ties, 1e12 outliers, rows at the centre) on each of those paths:
odd n, odd and even block heights, one-row blocks (the one-row loops alone) and tiles
narrower than a block.
"""
import numpy as np
import pytest

from dppca.stats import fused_pairs, kendall
from dppca.stats.fused_source import kernel_source
from dppca.stats.kendall import kendall_tau_matrix, sign_bound
from dppca.stats.kendall_reference import kendall_tau_matrix_naive

from test_kendall import MATCH_RTOL, hard_rows, rel_err

#: Two-row kernels: the first, one to three distance passes and their edges, the rule's p.
TWO_ROW_P = sorted({fused_pairs.TWO_ROWS_MIN_D, 2 * fused_pairs.DIST_GROUP[2] + 1, 16,
                    fused_pairs.FUSED_MAX_P})


def odd_rows(p):
    """hard_rows plus a triple of exact duplicates and a near-duplicate run (flagged pairs
    i < j with j >= i + 2, on the two-row loops), cut to an odd count."""
    X = hard_rows(p)
    X = np.vstack([X, X[:4], X[:4], X[4:8] + 1e-10, X[4:8] - 1e-10])
    return X[: X.shape[0] - 1 + X.shape[0] % 2]


def fused_with(X, sign, monkeypatch, rows, cols):
    monkeypatch.setattr(fused_pairs, "BLOCK_ROWS", rows)
    monkeypatch.setattr(fused_pairs, "BLOCK_COLS", cols)
    monkeypatch.setattr(fused_pairs, "PARALLEL_MIN_ROWS", 2)
    return kendall_tau_matrix(X, sign, engine="fused")


@pytest.mark.parametrize("blocks", [(128, 1024), (7, 13), (6, 10), (1, 9), (2, 5)],
                         ids=["default", "odd blocks", "even blocks", "one-row blocks", "narrow"])
@pytest.mark.parametrize("sign", ["spherical", "winsorized"])
@pytest.mark.parametrize("p", TWO_ROW_P)
def test_two_row_kernel_matches_blas_within_the_slack(p, sign, blocks, monkeypatch):
    # Each engine is within e G^2 of the exact K in every entry (e: kendall.rounding_slack per
    # entry), so the two differ by <= 2 e G^2; a pair lost, doubled or wrongly flagged on a
    # path moves K by ~1/n^2 >> 2 e G^2 here, and shows against the explicit sum at MATCH_RTOL.
    X = odd_rows(p)
    n = X.shape[0]
    assert n % 2 == 1
    K = fused_with(X, sign, monkeypatch, *blocks)
    per_entry = kendall.rounding_slack(n, p) * np.sqrt(2.0) / (p * n)
    assert np.max(np.abs(K - kendall_tau_matrix(X, sign, engine="blas"))) <= \
        2 * per_entry * sign_bound(p, sign) ** 2
    assert rel_err(K, kendall_tau_matrix_naive(X, sign)) < MATCH_RTOL


def test_two_row_kernel_is_deterministic_and_thread_split_only_reorders(monkeypatch):
    # A fixed split and reduction order: the same call twice gives the same bits; other
    # splits (one-row blocks, two threads) only reorder sums (within the slack, as above).
    X = odd_rows(fused_pairs.FUSED_MAX_P)
    n, p = X.shape
    K = fused_with(X, "spherical", monkeypatch, 7, 13)
    assert np.array_equal(K, fused_with(X, "spherical", monkeypatch, 7, 13))
    monkeypatch.setattr(fused_pairs, "available_cores", lambda: 2)
    per_entry = kendall.rounding_slack(n, p) * np.sqrt(2.0) / (p * n)
    assert np.max(np.abs(K - fused_with(X, "spherical", monkeypatch, 1, 9))) <= 2 * per_entry


def test_generated_source_takes_two_rows_from_the_rule_on():
    # Below TWO_ROWS_MIN_D no two-row loop is generated; from it on, both rows' weights are
    # added to the column's degree in one statement.
    below = kernel_source(fused_pairs.TWO_ROWS_MIN_D - 1, fused_pairs.TILE_DOUBLES)
    at = kernel_source(fused_pairs.TWO_ROWS_MIN_D, fused_pairs.TILE_DOUBLES)
    assert "pair = False" in below and "w0 + w1" not in below
    assert "pair = i + 1 < last" in at and "degs[k] += w0 + w1" in at
