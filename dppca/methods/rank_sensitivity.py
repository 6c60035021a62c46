"""The rank path's release: the elementwise Kendall's tau-a matrix and its replace-one sensitivity.

One idea: the released statistic (complete, or an incomplete U-statistic over a public block
design), the bound (and its floating-point slack) that its Gaussian noise is calibrated with and
:mod:`dppca.methods.latent_accuracy` predicts from, and the release itself; the post-processing
(bridge, repair, eigenvectors) lives in :mod:`dppca.methods.latent_correlation`.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError
from ..backends.dask import compute_checked, is_dask_array
from ..privacy import Ledger, gaussian_mechanism
from ..privacy.neighbouring import row_bounds
from ..stats.elementwise_kendall import kendall_tau_matrix
from ..stats.elementwise_kendall_blocks import (block_kendall_tau_matrix, block_tau_sensitivity,
                                                dask_block_kendall_tau_matrix)

__all__ = ["MAX_ROWS", "UNIT_ROUNDOFF", "rank_release_sensitivity", "rank_tau_sensitivity",
           "rank_tau_statistic", "release_kendall_tau", "symmetric_from_upper", "tau_step"]

#: Largest n for which the pair count n (n - 1) / 2 and every sign sum are exact in float64
#: (< 2^53), so that T = count / pairs is one correctly rounded division (the rounding slack of
#: :func:`rank_tau_sensitivity` rests on it).
MAX_ROWS = 100_000_000

#: Unit roundoff of float64.
UNIT_ROUNDOFF = 2.0 ** -53


def rank_tau_sensitivity(n: int, p: int) -> float:
    """L2 sensitivity of the released tau vector (T_jk, j <= k) under replace-one neighbours.

    Parameters
    ----------
    n : int
        Rows (public), n >= 2.
    p : int
        Columns, p >= 1.

    Returns
    -------
    float
        2 p / n plus the float64 rounding slack 2 sqrt(p (p + 1) / 2) 2^-53 (see Notes).

    Raises
    ------
    DPPCAValueError
        If n > :data:`MAX_ROWS` (the counts would no longer be exact in float64).

    Notes
    -----
    Proof. T = (2 / (n (n - 1))) sum_{i < i'} f(s_ii'), with s_ii' = sign(x_i - x_i') in
    {-1, 0, 1}^p (elementwise) and f(s) = (s_j s_k)_{j <= k}. Replacing row i changes only the
    n - 1 terms of the pairs (i, i'). For two sign vectors u, v let A = #{j: u_j != 0, v_j != 0},
    B = #{u_j != 0, v_j = 0}, C = #{u_j = 0, v_j != 0} and m = #{j counted in A: u_j = -v_j}.
    Then ||u u^T - v v^T||_F^2 = ||u||^4 + ||v||^4 - 2 (u.v)^2 = (A + B)^2 + (A + C)^2
    - 2 (A - 2m)^2, and its diagonal part is sum_j (u_j^2 - v_j^2)^2 = B + C, so
    ||f(u) - f(v)||^2 = sum_{j<k} (u_j u_k - v_j v_k)^2 + sum_j (u_j^2 - v_j^2)^2
    = (||u u^T - v v^T||_F^2 - (B + C)) / 2 + (B + C)
    = (1/2) [(A + B)^2 + (A + C)^2 - 2 (A - 2m)^2 + (B + C)]
    <= (1/2) [(A + B)^2 + (A + C)^2 + B + C] =: g(A, B, C).
    g is convex (squares of linear forms plus a linear form), so on the simplex A, B, C >= 0,
    A + B + C <= p it is largest at a vertex: g(0,0,0) = 0, g(p,0,0) = p^2,
    g(0,p,0) = g(0,0,p) = (p^2 + p) / 2 <= p^2. So each pair's term moves by at most p in L2
    (attained for even p with A = p, m = p / 2: every sign kept, half of them flipped), the
    n - 1 terms by at most (n - 1) p, and T by at most 2 (n - 1) p / (n (n - 1)) = 2 p / n.
    The bound is attained: a row above every other row in all coordinates that moves below
    them in p / 2 coordinates changes every one of its n - 1 pair terms by the same vector of
    norm p.

    Floating point: each S_jk is an exact int64 count (|S_jk| <= P = n (n - 1) / 2 < 2^53, exact
    in float64 for n <= MAX_ROWS) and T_jk = S_jk / P is one correctly rounded division, so
    fl(T_jk) = T_jk (1 + e_jk), |e_jk| <= 2^-53, |T_jk| <= 1. For neighbours X, X',
    ||fl(T) - fl(T')|| <= ||T - T'|| + ||T e|| + ||T' e'|| <= 2 p / n + 2 sqrt(m) 2^-53,
    m = p (p + 1) / 2 entries. The snapping of the noise (:func:`dppca.privacy.gaussian_mechanism`)
    covers the rest.

    Examples
    --------
    >>> from dppca.methods.rank_sensitivity import rank_tau_sensitivity
    >>> round(rank_tau_sensitivity(1000, 5), 12)
    0.01
    """
    if n > MAX_ROWS:
        raise DPPCAValueError(f"the rank path takes at most {MAX_ROWS} rows (exact pair counts in "
                              f"float64); got n = {n}")
    entries = p * (p + 1) / 2.0
    return 2.0 * p / n + 2.0 * math.sqrt(entries) * UNIT_ROUNDOFF


def rank_release_sensitivity(n: int, p: int, pairs_per_row=None) -> float:
    """The sensitivity the rank path releases at: complete statistic, or over a block design.

    Parameters
    ----------
    n, p : int
        Rows (public) and columns.
    pairs_per_row : int, optional
        r of the block design; None for the complete statistic.

    Returns
    -------
    float
        :func:`rank_tau_sensitivity` (n, p), or
        :func:`dppca.stats.elementwise_kendall_blocks.block_tau_sensitivity` (n, p) with a
        design: both 2 p / n plus their own rounding slack.

    Examples
    --------
    >>> from dppca.methods.rank_sensitivity import rank_release_sensitivity
    >>> rank_release_sensitivity(1000, 5) < rank_release_sensitivity(1000, 5, 15)
    True
    """
    return rank_tau_sensitivity(n, p) if pairs_per_row is None else block_tau_sensitivity(n, p)


def release_kendall_tau(values: np.ndarray, eps: float, delta: float, rng: np.random.Generator,
                        calibration: str = "analytic", ledger: Ledger | None = None, *,
                        design=None, rows=None):
    """The private elementwise Kendall's tau-a matrix: its p (p + 1) / 2 entries j <= k plus noise.

    Parameters
    ----------
    values : ndarray, shape (n, p)
        The data.
    eps, delta : float
        Budget of the release.
    rng : numpy.random.Generator
        Source of the noise.
    calibration : {"analytic", "classic"}
        Gaussian calibration.
    ledger : Ledger, optional
        Where the release is recorded.
    design : dppca.stats.pair_design.BlockDesign, optional
        A public block design (drawn independently of the data): the incomplete statistic
        over it; None (default): the complete statistic (see :func:`rank_tau_statistic`).
    rows : dppca.privacy.neighbouring.RowBounds, optional
        Add/remove neighbours (complete statistic only): the sensitivity at n_lo + 1 rows
        (:func:`dppca.methods.add_remove.rank_tau_add_remove_sensitivity`). Default: replace-one.

    Returns
    -------
    released : ndarray, shape (p, p)
        The symmetric noisy matrix (each entry j <= k carries its own noise draw).
    sensitivity : float
        :func:`rank_tau_sensitivity` (n, p), or
        :func:`dppca.stats.elementwise_kendall_blocks.block_tau_sensitivity` (n, p) with a
        design.
    sigma : float
        The noise sd.

    Notes
    -----
    (eps, delta)-DP under replace-one neighbours, n public: the Gaussian mechanism
    (:func:`dppca.privacy.gaussian_mechanism`, floating-point safe samplers) on the vector
    (T_jk)_{j <= k} with the L2 sensitivity 2 p / n proved in :func:`rank_tau_sensitivity`
    (with a design, in :mod:`dppca.stats.elementwise_kendall_blocks`: a row lies in one block).
    The ledger's row names the design.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(100, 2))
    >>> released, sensitivity, sigma = release_kendall_tau(x, 1.0, 1e-5, np.random.default_rng(1))
    >>> released.shape, sensitivity
    ((2, 2), 0.04)
    """
    tau, sensitivity = rank_tau_statistic(values, design, rows)
    rows, cols = np.triu_indices(tau.shape[0])
    noisy, sigma = gaussian_mechanism(tau[rows, cols], sensitivity, eps, delta, rng,
                                      calibration=calibration, ledger=ledger,
                                      step=tau_step(design))
    return symmetric_from_upper(noisy, rows, cols, tau.shape[0]), sensitivity, sigma


def rank_tau_statistic(values, design=None, rows=None):
    """The rank path's pre-noise statistic and its sensitivity: complete or over a block design.

    Parameters
    ----------
    values : ndarray or dask.array.Array, shape (n, p)
        The data (a dask array is reduced chunk by chunk with a design, and read into memory
        without one).
    design : dppca.stats.pair_design.BlockDesign, optional
        Public block design; None: every pair.
    rows : dppca.privacy.neighbouring.RowBounds, optional
        Add/remove neighbours (no design): the sensitivity is 2 p / (n_lo + 1) with n_lo the
        private count's public lower bound (:mod:`dppca.methods.add_remove`).

    Returns
    -------
    tau : ndarray, shape (p, p)
        The elementwise Kendall's tau-a matrix (complete or incomplete), diagonal included.
    sensitivity : float
        L2 sensitivity of its entries j <= k under replace-one neighbours, n public:
        :func:`rank_tau_sensitivity` or
        :func:`dppca.stats.elementwise_kendall_blocks.block_tau_sensitivity` (both 2 p / n
        plus their own rounding slack).

    Raises
    ------
    DPPCAValueError
        From the statistics (NaN; n > :data:`MAX_ROWS` without a design).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.pair_design import block_design
    >>> x = np.random.default_rng(0).normal(size=(100, 3))
    >>> tau, sensitivity = rank_tau_statistic(x, block_design(100, 9, np.random.default_rng(1)))
    >>> tau.shape, round(sensitivity, 12)
    ((3, 3), 0.06)
    """
    n, p = values.shape
    if design is None:
        # refuses n > MAX_ROWS before any work; add/remove: at n_lo + 1 rows
        sensitivity = rank_tau_sensitivity(row_bounds(n, rows)[0], p)
        return kendall_tau_matrix(compute_checked(values) if is_dask_array(values) else values), \
            sensitivity
    tau = dask_block_kendall_tau_matrix(values, design) if is_dask_array(values) else \
        block_kendall_tau_matrix(values, design)
    return tau, block_tau_sensitivity(n, p)


def tau_step(design) -> str:
    """The ledger's name of the tau release; a block design is named with its pairs per row.

    Parameters
    ----------
    design : BlockDesign or None

    Returns
    -------
    str

    Examples
    --------
    >>> tau_step(None)
    "directions: elementwise Kendall's tau (j <= k)"
    """
    step = "directions: elementwise Kendall's tau (j <= k)"
    return step if design is None else \
        f"{step}, block design (>= {design.pairs_per_row} pairs per row)"


def symmetric_from_upper(upper, rows, cols, p) -> np.ndarray:
    """The symmetric p x p matrix whose entries (rows, cols) (one triangle) are ``upper``.

    Parameters
    ----------
    upper : ndarray, shape (m,)
    rows, cols : ndarray of int, shape (m,)
        ``numpy.triu_indices(p)``.
    p : int

    Returns
    -------
    ndarray, shape (p, p)

    Examples
    --------
    >>> import numpy as np
    >>> symmetric_from_upper(np.array([1.0, 2.0, 3.0]), *np.triu_indices(2), 2).tolist()
    [[1.0, 2.0], [2.0, 3.0]]
    """
    matrix = np.zeros((p, p))
    matrix[rows, cols] = upper
    matrix[cols, rows] = upper
    return matrix
