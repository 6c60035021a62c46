"""The elementwise Kendall's tau-a matrix as an incomplete U-statistic over a block design.

The complete statistic T = (2 / (n (n - 1))) sum_{i < i'} f(s_ii') (s_ii' = sign(x_i - x_i')
elementwise, f(s) = s s^T) costs O(p^2 n log n) by Knight's algorithm
(:mod:`dppca.stats.elementwise_kendall`). Over the random block design of
:func:`dppca.stats.pair_design.block_design` (a public partition of the rows into blocks of
sizes b and b + 1, drawn from the random stream only) the incomplete statistic is

    T_D = sum_B (|B| / n) T(X_B),

each block's complete tau-a matrix weighted by its share of the rows (Blom 1976; Lee 1990,
"U-statistics", Ch. 4.3): unbiased for the same estimand, at O(n r p^2) work with r = b - 1
pairs per row: the pairs' sign rows are written by a numba kernel (blocks in parallel threads,
rows read through the design's permutation rather than copied in its order, signs from
comparisons, so magnitudes up to +-DBL_MAX cannot overflow) and summed by one float32 matrix
product S^T S per chunk.

Sensitivity (replace-one, n and the design public). A row lies in exactly one block B. By the
proof of :func:`dppca.methods.latent_correlation.rank_tau_sensitivity` applied to the |B| rows
of B, T(X_B)'s vector (T_jk, j <= k) moves by at most 2 p / |B| in L2; its weight is |B| / n, so
T_D moves by at most 2 p / n, the complete statistic's sensitivity, whatever the block sizes.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError
from .pair_design import BlockDesign

__all__ = ["block_kendall_sign_counts", "block_kendall_tau_matrix", "block_tau_sensitivity",
           "dask_block_kendall_tau_matrix"]

#: Pairs of rows per float32 matrix product: every partial sum of the product is an integer of
#: magnitude at most this (each term is -1, 0 or 1), below 2^24, so float32 sums are exact in any
#: order; and the chunk's sign rows take 20 MB at p = 20. Smaller chunks would stay in cache, but
#: each chunk starts the kernel's threads once: at 2^14 pairs a call at n = 1e6 took 7 s instead
#: of 1 s on 2 shared cores.
CHUNK_PAIRS = 2 ** 18


def block_kendall_sign_counts(values, design: BlockDesign, *, missing_as_ties: bool = False) -> dict:
    """Per block size b, the int64 sums S_b = sum over blocks of size b of their pairs' s s^T.

    Parameters
    ----------
    values : array_like, shape (n, p)
        Numeric data without NaN (any magnitudes: signs come from comparisons only).
    design : dppca.stats.pair_design.BlockDesign
        The public partition of the n rows (blocks of at least 2 rows).
    missing_as_ties : bool
        Accept NaN cells and give every pair involving one the sign 0 (a tie: the kernel's
        comparisons are both false), as the pairwise-present statistic of
        :func:`dppca.methods.pairwise_present.release_present_tau` needs. Default False: NaN is
        refused.

    Returns
    -------
    dict of int to ndarray of int64, shape (p, p)
        Block size -> symmetric counts; S_b[j, k] = sum over its blocks' pairs of
        sign(x_ij - x_i'j) sign(x_ik - x_i'k).

    Raises
    ------
    DPPCAValueError
        If ``values`` is not 2-D with the design's n rows, holds NaN (unless
        ``missing_as_ties``), or a block has < 2 rows.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.pair_design import block_design
    >>> x = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0], [3.0, 4.0]])
    >>> counts = block_kendall_sign_counts(x, block_design(4, 3, np.random.default_rng(0)))
    >>> counts[4].tolist()  # one block of all 4 rows: the complete sums
    [[5, 3], [3, 6]]
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[0] != design.n:
        raise DPPCAValueError(f"`values` must be a 2-D array with the design's {design.n} rows; "
                              f"got shape {x.shape}")
    if not missing_as_ties and np.isnan(x).any():
        raise DPPCAValueError("`values` must not hold NaN: Kendall's tau needs every pair ordered")
    sizes = np.diff(design.bounds)
    if sizes.min() < 2:
        raise DPPCAValueError("`design` must have blocks of at least 2 rows (no pair otherwise)")
    p = x.shape[1]
    order = np.ascontiguousarray(design.order, dtype=np.int64)
    counts = {}
    for size in np.unique(sizes).tolist():
        starts = design.bounds[:-1][sizes == size]
        per = size * (size - 1) // 2
        total = np.zeros((p, p), dtype=np.int64)
        step = max(1, CHUNK_PAIRS // per)
        buffer = np.empty((min(step, starts.size) * per, p), dtype=np.float32)
        for start in range(0, starts.size, step):
            chunk = starts[start:start + step]
            signs = _signs()(x, order, chunk, size, buffer[:chunk.size * per])
            total += np.rint(signs.T @ signs).astype(np.int64)
        counts[int(size)] = total
    return counts


def _signs():
    """The compiled sign-row kernel (numba, cached on disk; imported on first use)."""
    from .elementwise_kendall_blocks_kernel import block_signs

    return block_signs


def block_kendall_tau_matrix(values, design: BlockDesign, *,
                             missing_as_ties: bool = False) -> np.ndarray:
    """The incomplete elementwise Kendall's tau-a matrix sum_B (|B| / n) T(X_B) (NON-PRIVATE).

    Parameters
    ----------
    values : array_like, shape (n, p)
        As in :func:`block_kendall_sign_counts`.
    design : dppca.stats.pair_design.BlockDesign
        Public partition of the rows (:func:`dppca.stats.pair_design.block_design`).
    missing_as_ties : bool
        NaN cells are ties (sign 0), as in :func:`block_kendall_sign_counts`.

    Returns
    -------
    ndarray, shape (p, p)
        Symmetric, entries in [-1, 1] (diagonal in [0, 1]); equal to
        :func:`dppca.stats.elementwise_kendall.kendall_tau_matrix` when the design is one block.

    Raises
    ------
    DPPCAValueError
        As :func:`block_kendall_sign_counts` raises.

    See Also
    --------
    block_tau_sensitivity : Its L2 sensitivity (the complete statistic's 2 p / n).

    Notes
    -----
    Estimand: the population tau-a matrix E[sign(X_j - X'_j) sign(X_k - X'_k)], unbiased (each
    block's term is). With r pairs per row its variance exceeds the complete statistic's by at
    most about 2 / (n r) per entry (a kernel bounded by 1; Lee 1990, Ch. 4.3). Computed as
    sum over block sizes b of 2 S_b / (n (b - 1)): S_b and 2 S_b are exact in float64 (below
    2^53), each division is correctly rounded and the sizes take at most two values, so every
    entry is within 2 * 2^-53 of the exact value (the slack of :func:`block_tau_sensitivity`).

    References
    ----------
    Blom, G. (1976). Some properties of incomplete U-statistics. Biometrika 63(3), 573-580.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.elementwise_kendall import kendall_tau_matrix
    >>> from dppca.stats.pair_design import block_design
    >>> x = np.random.default_rng(0).standard_normal((40, 3))
    >>> one_block = block_design(40, 39, np.random.default_rng(1))
    >>> bool(np.array_equal(block_kendall_tau_matrix(x, one_block), kendall_tau_matrix(x)))
    True
    """
    return _weighted(block_kendall_sign_counts(values, design, missing_as_ties=missing_as_ties),
                     design.n)


def _weighted(counts: dict, n: int) -> np.ndarray:
    """sum over block sizes b of 2 S_b / (n (b - 1)), smallest size first (at most two terms)."""
    terms = [(2.0 * total) / float(n * (size - 1)) for size, total in sorted(counts.items())]
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _chunk_counts(rows, order, bounds, sign=None, radius=None, xi=None) -> dict:
    """One dask chunk of whole blocks (rows already permuted): its counts per block size."""
    return block_kendall_sign_counts(rows, BlockDesign(order, bounds))


def _chunk_counts_ties(rows, order, bounds, sign=None, radius=None, xi=None) -> dict:
    """:func:`_chunk_counts` with NaN cells as ties (the pairwise-present statistic)."""
    return block_kendall_sign_counts(rows, BlockDesign(order, bounds), missing_as_ties=True)


def dask_block_kendall_tau_matrix(X, design: BlockDesign, *,
                                  missing_as_ties: bool = False) -> np.ndarray:
    """:func:`block_kendall_tau_matrix` of a dask array, chunk by chunk (n beyond memory).

    Parameters
    ----------
    X : dask.array.Array, shape (n, p)
        Data with known chunk sizes (e.g. ``dask.dataframe.read_parquet(...).to_dask_array(
        lengths=True)``), finite.
    design : dppca.stats.pair_design.BlockDesign
        The public block design for n rows.
    missing_as_ties : bool
        NaN cells are ties (sign 0), as in :func:`block_kendall_sign_counts`; NaN passes
        unchecked. Default False: X must be finite.

    Returns
    -------
    ndarray, shape (p, p)
        Bitwise equal to :func:`block_kendall_tau_matrix` of the same rows in memory: the rows
        are permuted by the design and re-chunked at block boundaries
        (:func:`dppca.backends.dask.dask_block_kendall`), each chunk returns exact int64 counts
        per block size, and their sums are exact, so the same two divisions follow.

    Raises
    ------
    DPPCAValueError
        If X holds NaN or inf (unless ``missing_as_ties``), or a block has fewer than 2 rows.

    See Also
    --------
    block_tau_sensitivity : The sensitivity, unchanged (the statistic is the same number).

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from dppca.stats.pair_design import block_design
    >>> x = np.random.default_rng(0).standard_normal((200, 3))
    >>> design = block_design(200, 7, np.random.default_rng(1))
    >>> lazy = da.from_array(x, chunks=(64, 3))
    >>> bool(np.array_equal(dask_block_kendall_tau_matrix(lazy, design),
    ...                     block_kendall_tau_matrix(x, design)))
    True
    """
    from ..backends.dask import dask_block_kendall

    totals: dict = {}
    chunk = _chunk_counts_ties if missing_as_ties else _chunk_counts
    for part in dask_block_kendall(X, design, chunk, missing=missing_as_ties):
        for size, counts in part.items():
            totals[size] = totals.get(size, 0) + counts
    return _weighted(totals, design.n)


def block_tau_sensitivity(n: int, p: int) -> float:
    """L2 sensitivity of the vector (T_D[j, k], j <= k) of :func:`block_kendall_tau_matrix`.

    Parameters
    ----------
    n, p : int
        Rows (public, >= 2) and columns (>= 1) of the data.

    Returns
    -------
    float
        2 p / n plus the rounding slack 2 * sqrt(p (p + 1) / 2) * 2 * 2^-53.

    Raises
    ------
    DPPCAValueError
        If n < 2 or p < 1.

    Notes
    -----
    Exact sensitivity 2 p / n (module docstring: a row's block moves by 2 p / |B| at weight
    |B| / n). Floating point: each computed entry is within 2 * 2^-53 of the exact one (Notes of
    :func:`block_kendall_tau_matrix`) on either neighbour, over p (p + 1) / 2 entries.

    Examples
    --------
    >>> block_tau_sensitivity(1000, 20) > 2 * 20 / 1000
    True
    """
    if n < 2 or p < 1:
        raise DPPCAValueError(f"need n >= 2 and p >= 1; got n={n!r}, p={p!r}")
    return 2.0 * p / n + 2.0 * math.sqrt(p * (p + 1) / 2) * 2.0 * 2.0 ** -53
