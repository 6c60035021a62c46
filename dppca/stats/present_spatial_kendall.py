"""g-DPPCA's multivariate Kendall's tau matrix with missing cells (pairwise present).

For a pair of rows (i, i') the difference d = x_i - x_i' is taken over the coordinates both rows
observe; a coordinate missing in either row counts as 0. The generalized spatial sign g(d)
(:func:`dppca.stats.signs.spatial_sign`) is then a sign over the observed coordinates (norm 1
for the spherical sign), so every pair term g(d) g(d)^T keeps the norm bound ||g||_inf^2 of the
complete-data statistic and the replace-one sensitivity 2 sqrt(2) ||g||_inf^2 / n holds as it
is. Complete data take the fast engine (:func:`dppca.stats.kendall.kendall_tau_matrix`).
"""
from __future__ import annotations

import numpy as np

from .kendall import kendall_tau_matrix
from .pair_design import kendall_statistic, pairwise_sum, sum_block_kendall
from .signs import spatial_sign

__all__ = ["present_spatial_kendall", "present_statistic", "sum_block_present_kendall"]

#: Rows per block of the pair loop: a block's differences are (BLOCK, n, p) floats.
BLOCK = 64

#: A fixed map of each value alone (so every sensitivity holds): differences stay finite.
#: Entry points clamp input to 2^400 already; this only binds on raw calls near DBL_MAX.
_GUARD = np.finfo(np.float64).max / 4


def present_spatial_kendall(X, sign="spherical", radius=None, xi=None) -> np.ndarray:
    """(2 / (n (n - 1))) sum_{i < i'} g(d_ii') g(d_ii')^T over the observed coordinates of each pair.

    Parameters
    ----------
    X : ndarray, shape (n, p)
        The data; NaN marks a missing cell.
    sign, radius, xi
        The generalized spatial sign (:func:`dppca.stats.signs.spatial_sign`).

    Returns
    -------
    ndarray, shape (p, p)
        Symmetric positive semi-definite; equal to the complete-data Kendall's tau matrix (up to
        rounding) when no cell is missing.

    Notes
    -----
    Cost O(n^2 p^2) in BLAS products of blocks (the complete-data engine's Laplacian form does
    not apply: the coordinates of a pair differ from pair to pair). Rounding: each block's sum
    is one matrix product of length BLOCK n, with error below BLOCK n 2^-53 of its terms' sum
    of norms (at most 1e-9 relative for n <= 10^6), far inside the slack the g-DPPCA
    sensitivity carries.

    Bias: a pair contributes only the coordinates both rows observe, so under missingness
    completely at random (MCAR, rate q per cell) entry (j, k) estimates E[g_j g_k] over pairs
    observing j and k, weighted by (1 - q)^4 off the diagonal and (1 - q)^2 on it (signs over
    fewer coordinates are longer per coordinate). With equal rates in every column the
    eigenvectors are unchanged when the estimand's eigenvectors are (a shrinkage of the
    off-diagonal towards 0 plus a multiple of the identity); unequal rates bias them.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.kendall import kendall_tau_matrix
    >>> x = np.random.default_rng(0).normal(size=(50, 3))
    >>> bool(np.allclose(present_spatial_kendall(x), kendall_tau_matrix(x)))
    True
    >>> bool(np.allclose(present_spatial_kendall(x, "winsorized", radius=0.5),
    ...                  kendall_tau_matrix(x, "winsorized", radius=0.5)))
    True
    >>> x[3, 1] = np.nan
    >>> float(np.trace(present_spatial_kendall(x))) <= 1.0
    True
    """
    x = np.clip(np.asarray(X, dtype=float), -_GUARD, _GUARD)
    n, p = x.shape
    observed = ~np.isnan(x)
    filled = np.where(observed, x, 0.0)
    total = np.zeros((p, p))
    for start in range(0, n - 1, BLOCK):
        rows = np.arange(start, min(start + BLOCK, n - 1))
        later = slice(rows[0] + 1, n)
        d = filled[rows, None, :] - filled[None, later, :]
        d *= observed[rows, None, :] & observed[None, later, :]
        keep = np.arange(rows[0] + 1, n)[None, :] > rows[:, None]  # i < i' only
        # g at r = ||d|| / sqrt(2), as the complete-data engine weighs a pair (dppca.stats.kendall)
        g = spatial_sign(d[keep] / np.sqrt(2.0), sign=sign, radius=radius, xi=xi)
        total += g.T @ g
    K = total * (2.0 / (n * (n - 1.0)))
    return (K + K.T) / 2.0


def present_statistic(values, pairs_per_row, rng, missing=None, sign="spherical", radius=None,
                      xi=None):
    """g-DPPCA's Kendall's tau matrix and its design note, NaN cells skipped pairwise.

    Parameters
    ----------
    values : ndarray or dask.array.Array, shape (n, p)
    pairs_per_row, rng, sign, radius, xi
        As in :func:`dppca.stats.pair_design.kendall_statistic`.
    missing : {None, "pairwise"}
        None: :func:`~dppca.stats.pair_design.kendall_statistic` as it is. "pairwise": the
        design is drawn as for complete data (the same random stream and note, whatever the
        cells); over all pairs the statistic is :func:`present_spatial_kendall` when a cell is
        missing, and over a block design each block with a missing cell is
        (:func:`sum_block_present_kendall`): the same sensitivity, every pair term keeping
        ||g|| <= ||g||_inf. On dask the blocks are computed chunk by chunk, NaN cells included.

    Returns
    -------
    (ndarray of shape (p, p), str)

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> x[0, 0] = np.nan
    >>> K, note = present_statistic(x, None, np.random.default_rng(1), "pairwise")
    >>> K.shape, note.endswith("pairwise present")
    ((2, 2), True)
    """
    if missing != "pairwise":
        return kendall_statistic(values, pairs_per_row, rng, sign=sign, radius=radius, xi=xi)
    statistic, note = kendall_statistic(values, pairs_per_row, rng, sign=sign, radius=radius,
                                        xi=xi, present=(_complete_present, sum_block_present_kendall))
    return statistic, note + "; missing cells pairwise present"


def _complete_present(X, sign="spherical", radius=None, xi=None):
    """All pairs: the fast engine on complete data, :func:`present_spatial_kendall` with holes."""
    if np.isnan(X).any():
        return present_spatial_kendall(X, sign=sign, radius=radius, xi=xi)
    return kendall_tau_matrix(X, sign=sign, radius=radius, xi=xi)


def sum_block_present_kendall(X, order, bounds, sign="spherical", radius=None, xi=None):
    """``sum_B |B| K(X[order[B]])`` over the blocks ``bounds``, K pairwise present in a block with
    a missing cell (unnormalised; shape (p, p)).

    Parameters
    ----------
    X : ndarray, shape (m, p)
        Rows (a dask chunk of whole blocks, or all rows); NaN marks a missing cell.
    order : ndarray of int
        Row order of the blocks.
    bounds : ndarray of int
        Block boundaries in ``order``.
    sign, radius, xi
        The generalized spatial sign.

    Returns
    -------
    ndarray, shape (p, p)
        :func:`dppca.stats.pair_design.sum_block_kendall` when no cell is missing; otherwise
        each block's pairwise-present statistic times its rows, added by
        :func:`dppca.stats.pair_design.pairwise_sum`: for the spherical sign from the compiled
        kernel :func:`dppca.stats.present_spatial_kernel.present_spherical_sums` (one pass over
        a block's pairs), for other signs a block with a missing cell by
        :func:`present_spatial_kendall` and one without by the fast engine.

    Notes
    -----
    Sensitivity (replace-one, n public): a replaced row lies in one block B and moves only
    |B| K(X_B); every pair term g(d) g(d)^T of the present statistic has ||g(d)|| <= ||g||_inf,
    so the proof of :func:`dppca.stats.pair_design.incomplete_kendall_tau_matrix` holds as it
    is (2 sqrt(2) G^2 / n after the division by n, whichever form each block takes). Every
    form is a function of the block's rows alone, so a chunk's term does not depend on how
    dask cuts the other rows. Rounding: the kernel sums a block's terms (each of norm at most
    1 + 4 u) row by row, then over the rows, so its normalised sum is within about 2 b u of
    the exact one, against a block sensitivity of 2 sqrt(2) / b: a relative b^2 u / sqrt(2)
    (2e-11 at b = 513), inside the slack of :func:`dppca.stats.pair_design.block_sum_slack`
    (rho_engine is 6.7e-6 at b = 513, p = 8), as :func:`present_spatial_kendall`'s products are.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.pair_design import block_design, sum_block_kendall
    >>> x = np.random.default_rng(0).normal(size=(60, 3))
    >>> design = block_design(60, 19, np.random.default_rng(1))
    >>> bool(np.allclose(sum_block_present_kendall(x, design.order, design.bounds),
    ...                  sum_block_kendall(x, design.order, design.bounds)))
    True
    """
    x = np.asarray(X, dtype=np.float64)
    if not np.isnan(x).any():
        return sum_block_kendall(x, order, bounds, sign, radius, xi)
    if sign == "spherical" and xi is None:  # the compiled kernel: each block's pairs in one pass
        from .present_spatial_kernel import present_spherical_sums

        bounds = np.asarray(bounds, dtype=np.int64)
        sums = present_spherical_sums(np.clip(x, -_GUARD, _GUARD),
                                      np.ascontiguousarray(order, dtype=np.int64), bounds,
                                      np.empty((bounds.size - 1, x.shape[1], x.shape[1])))
        return pairwise_sum(2.0 * sums[j] / (bounds[j + 1] - bounds[j] - 1)
                            for j in range(bounds.size - 1))
    terms = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        rows = x[order[a:b]]
        terms.append((b - a) * _complete_present(rows, sign=sign, radius=radius, xi=xi))
    return pairwise_sum(terms)
