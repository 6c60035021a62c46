"""The rank path with missing cells: a pairwise-present Kendall's tau, debiased by private counts.

Policy ``missing="pairwise"`` of the rank path (:mod:`dppca.methods.latent_correlation`). A
missing cell contributes sign 0 (a tie) to every pair of rows that involves it
(:mod:`dppca.stats.pairwise_kendall`), so the released vector S / C(n, 2) keeps the replace-one
sensitivity 2 p / n with n public; the present-row counts M_jk (rows observing both j and k) are
released too, always (the ledger is the same with or without missing cells), and each entry is
rescaled by C(n, 2) / C(M_jk, 2) before the bridges: the tau-a of the rows observing both columns.
"""
from __future__ import annotations

import math

import numpy as np

from ..backends.dask import chunk_totals, compute_checked, is_dask_array
from ..privacy import Ledger
from ..privacy.composition import GaussianGroup
from ..stats.elementwise_kendall_blocks import (block_kendall_tau_matrix, block_tau_sensitivity,
                                                dask_block_kendall_tau_matrix)
from ..stats.pairwise_kendall import present_kendall_counts, present_kendall_tau_matrix
from .rank_sensitivity import UNIT_ROUNDOFF, rank_tau_sensitivity

__all__ = ["COUNT_FLOOR", "COUNT_SHARE", "present_count_sensitivity", "present_row_counts",
           "present_tau", "release_present_tau"]

#: Share of the Gaussian-DP budget (mu^2) spent on the present-row counts M_jk. The debiased
#: entry T_jk C(n, 2) / C(M_jk, 2) has noise from the tau release, sd (2 p / n) / (mu
#: sqrt(1 - s) rho^2) with rho = M_jk / n, and from the counts, about |tau| 2 sd(M) / M =
#: |tau| sqrt(2 p (p + 1)) / (mu sqrt(s) n rho). The variance a^2 / s + 1 / (1 - s) with
#: a = |tau| rho sqrt((p + 1) / (2 p)) (about 0.2 for |tau| = 0.3, rho in [0.7, 1]) is least
#: at s = a / (1 + a), about 0.15.
COUNT_SHARE = 0.15

#: Public floor of a released count, as a share of n, before C(M, 2) divides: a pair of columns
#: observed together in fewer than n / 10 rows (or whose noisy count falls below it) is
#: rescaled by at most C(n, 2) / C(n / 10, 2), about 100, so the noise cannot be amplified
#: without bound (the entry is then biased towards 0, never flipped).
COUNT_FLOOR = 0.1


def present_count_sensitivity(p: int) -> float:
    """L2 sensitivity of the present-row counts (M_jk, j <= k) under replace-one neighbours.

    Parameters
    ----------
    p : int
        Columns, p >= 1.

    Returns
    -------
    float
        sqrt(p (p + 1) / 2).

    Notes
    -----
    Proof. With o_i in {0, 1}^p the indicator of the cells row i observes, M = sum_i f(o_i),
    f(o) = (o_j o_k)_{j <= k}. Replacing row i (its values or which of its cells are missing)
    changes the one term f(o_i) into f(o'_i); each coordinate of f(o_i) - f(o'_i) is in
    {-1, 0, 1}, so ||f(o_i) - f(o'_i)||_2^2 <= p (p + 1) / 2, attained by o_i = 1, o'_i = 0
    (a complete row replaced by an empty one). The counts are exact integers (exact in float64
    below 2^53), so the bound holds in floating point.

    Examples
    --------
    >>> present_count_sensitivity(4)
    3.1622776601683795
    """
    return math.sqrt(p * (p + 1) / 2.0)


def release_present_tau(values: np.ndarray, binary, eps: float, delta: float,
                        rng: np.random.Generator, calibration: str, ledger: Ledger | None,
                        proportions_share: float = 0.1, design=None):
    """The pairwise-present tau-a matrix from one Gaussian-DP group: sign sums, counts, shares.

    Parameters
    ----------
    values : ndarray or dask.array.Array, shape (n, p)
        The data; NaN marks a missing cell. A dask array without a design is computed in
        memory (the complete statistic is chosen for small data only).
    binary : ndarray of bool, shape (p,)
        Public binary columns (their shares of ones are released too when any).
    eps, delta : float
        Budget of the group.
    rng : numpy.random.Generator
        Source of the noise.
    calibration : {"analytic", "classic"}
        Gaussian calibration.
    ledger : Ledger or None
        Where the releases are recorded.
    proportions_share : float
        Share of mu^2 for the binary shares of ones (when there are binary columns).
    design : dppca.stats.pair_design.BlockDesign, optional
        A public block design (drawn independently of the data): the sign sums are the
        incomplete U-statistic over its pairs (NaN cells ties, as in the complete statistic;
        on a dask array chunk by chunk, and the counts in one more pass, rows never gathered),
        released at :func:`dppca.stats.elementwise_kendall_blocks.block_tau_sensitivity`, and
        rescaled by the same released counts (under MCAR a random design pair is present in
        both columns with the same probability as any pair). None: every pair.

    Returns
    -------
    released : ndarray, shape (p, p)
        The debiased noisy tau-a matrix, clip(T~_jk C(n, 2) / C(max(M~_jk, n COUNT_FLOOR), 2),
        -1, 1), symmetric.
    sensitivity : float
        The tau release's L2 sensitivity (:func:`rank_tau_sensitivity`).
    sigma : float
        The noise sd of a debiased entry whose pair of columns is observed together in the median
        released count (the tau release's sd times C(n, 2) / C(M~, 2)); post-processing.
    shares : ndarray, shape (p,), or None
        The binary columns' released shares of ones among their observed rows (None without
        binary columns).

    Notes
    -----
    Privacy (replace-one, n public). (1) The sign sums: a missing cell contributes sign 0 to
    every pair of its row, so each pair's sign vector still lies in {-1, 0, 1}^p, and the proof
    of :func:`rank_tau_sensitivity` (any two such vectors, every pair term of the replaced row)
    gives L2 sensitivity 2 p / n for (S_jk / C(n, 2))_{j <= k}: the kernel s_j s_k stays in
    [-1, 1]. (2) The counts: L2 sensitivity sqrt(p (p + 1) / 2)
    (:func:`present_count_sensitivity`). (3) The shares of ones among observed rows, released as
    (ones_j / n): sqrt(b) / n plus the rounding slack, as on complete data. The Gaussian
    mechanisms share one Gaussian-DP group (Dong, Roth & Su 2022) with :data:`COUNT_SHARE` of
    mu^2 for the counts and ``proportions_share`` for the shares (binary columns only), so the
    group is (eps, delta)-DP; the rescaling is post-processing.

    Bias: the rescaled entry is the tau-a of the rows observing both columns. Under missingness
    completely at random (MCAR) these rows are a random subset and the entry is unbiased for
    the population tau_jk up to the noise of the released counts (a ratio bias of order
    (sd(M) / M)^2); under MAR or MNAR it estimates the tau of the observed sub-population.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(2000, 3))
    >>> x[::7, 1] = np.nan
    >>> ledger = Ledger(1.0, 1e-5)
    >>> released, sens, sigma, shares = release_present_tau(
    ...     x, np.zeros(3, bool), 1.0, 1e-5, np.random.default_rng(1), "analytic", ledger)
    >>> released.shape, len(ledger), shares is None
    ((3, 3), 2, True)
    """
    n, p = values.shape
    binary = np.asarray(binary, dtype=bool)
    rows, cols = np.triu_indices(p)
    pairs = n * (n - 1) / 2.0
    if design is None and is_dask_array(values):
        values = compute_checked(values, missing=True)  # the complete design: small data
    if design is None:
        counts, present = present_kendall_counts(values)
        statistic, sensitivity = counts[rows, cols] / pairs, rank_tau_sensitivity(n, p)
        step = "directions: elementwise Kendall's tau, pairwise present (j <= k)"
    else:
        present = present_row_counts(values)
        statistic = (dask_block_kendall_tau_matrix(values, design, missing_as_ties=True)
                     if is_dask_array(values) else
                     block_kendall_tau_matrix(values, design, missing_as_ties=True))[rows, cols]
        sensitivity = block_tau_sensitivity(n, p)
        step = (f"directions: elementwise Kendall's tau, pairwise present (j <= k), block design "
                f"(>= {design.pairs_per_row} pairs per row)")
    group = GaussianGroup(eps, delta, calibration)
    count_part = COUNT_SHARE
    share_part = proportions_share if binary.any() else 0.0
    noisy_tau, sigma = group.share(1.0 - count_part - share_part).release(
        statistic, sensitivity, rng, ledger, step)
    noisy_count, _ = group.share(count_part).release(
        present[rows, cols].astype(float), present_count_sensitivity(p), rng, ledger,
        "directions: present-row counts M_jk (j <= k)")
    floor = max(2.0, COUNT_FLOOR * n)
    observed = np.maximum(noisy_count, floor)
    scale = pairs / (observed * (observed - 1.0) / 2.0)
    released = np.zeros((p, p))
    released[rows, cols] = np.clip(noisy_tau * scale, -1.0, 1.0)
    released[cols, rows] = released[rows, cols]
    shares = None
    if binary.any():
        count = int(binary.sum())
        ones = np.count_nonzero(values[:, binary] > 0.5, axis=0) / float(n)
        noisy_ones, _ = group.share(share_part).release(
            ones, math.sqrt(count) / n + 2.0 * math.sqrt(count) * UNIT_ROUNDOFF, rng, ledger,
            "directions: binary columns' shares of ones")
        shares = noisy_ones * n / observed[rows == cols][binary]  # ones among observed rows
    return released, sensitivity, sigma * float(np.median(scale)), shares


def present_row_counts(values) -> np.ndarray:
    """M_jk, the rows observing both columns j and k (int64, shape (p, p)); one pass on dask.

    Examples
    --------
    >>> present_row_counts(np.array([[1.0, np.nan], [2.0, 3.0]])).tolist()
    [[2, 1], [1, 1]]
    """
    if is_dask_array(values):
        return chunk_totals(values, present_row_counts)
    observed = (~np.isnan(np.asarray(values, dtype=float))).astype(np.int64)
    return observed.T @ observed


def present_tau(values: np.ndarray, binary) -> tuple:
    """The pairwise-present tau-a matrix and binary shares of ones among observed rows. NON-PRIVATE.

    Parameters
    ----------
    values : ndarray, shape (n, p)
        The data; NaN marks a missing cell.
    binary : ndarray of bool, shape (p,)
        Binary columns.

    Returns
    -------
    tau : ndarray, shape (p, p)
        :func:`dppca.stats.pairwise_kendall.present_kendall_tau_matrix`.
    shares : ndarray, shape (b,), or None
        Shares of ones of the binary columns among the rows observing them.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.0, 1.0], [1.0, np.nan], [1.0, 3.0], [0.0, 2.0]])
    >>> tau, shares = present_tau(x, np.array([True, False]))
    >>> shares.tolist()
    [0.5]
    """
    binary = np.asarray(binary, dtype=bool)
    tau = present_kendall_tau_matrix(values)
    if not binary.any():
        return tau, None
    part = values[:, binary]
    return tau, np.count_nonzero(part > 0.5, axis=0) / np.maximum(
        np.count_nonzero(~np.isnan(part), axis=0), 1)
