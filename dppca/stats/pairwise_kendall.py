"""The elementwise Kendall's tau with missing cells: pairwise-present sign sums and counts.

A missing cell (NaN) has no order, so it contributes sign 0 (a tie) to every pair of rows that
involves it: for columns j, k

    S_jk = sum_{i < i'} s_j(i, i') s_k(i, i'),    s_j(i, i') = sign(x_ij - x_i'j), 0 if either is NaN,

which is the sign sum of the M_jk rows that observe both columns, and M_jk = #{i: x_ij and x_ik
observed}. S_jk / C(M_jk, 2) is the tau-a of those rows (Kendall's pairwise-present estimator);
S / C(n, 2) is the complete-data tau-a matrix when nothing is missing (:mod:`dppca.stats.
elementwise_kendall` computes it exactly the same way). Every count is an exact int64.
"""
from __future__ import annotations

import numpy as np

from .._validation import DPPCAValueError

__all__ = ["present_kendall_counts", "present_kendall_tau_matrix"]


def present_kendall_counts(values) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise-present sign sums S and present-row counts M of the elementwise Kendall's tau.

    Parameters
    ----------
    values : array_like, shape (n, p)
        Numeric data, n >= 2 rows; NaN marks a missing cell (+-inf are ordinary extreme values).

    Returns
    -------
    counts : ndarray of int64, shape (p, p)
        S_jk (module docstring): the sign sum over the pairs of rows that observe both j and k;
        S_jj = C(M_jj, 2) minus the pairs tied in column j.
    present : ndarray of int64, shape (p, p)
        M_jk, the number of rows observing both j and k (M_jj: rows observing j).

    Raises
    ------
    DPPCAValueError
        If ``values`` is not 2-D with at least 2 rows.

    See Also
    --------
    dppca.stats.elementwise_kendall.kendall_sign_counts : The same sums without missing cells.

    Notes
    -----
    Each pair of columns costs O(n log n) (Knight 1966 on the rows observing both), so the
    matrix costs O(p^2 n log n), like the complete-data one. With no NaN, S equals
    :func:`~dppca.stats.elementwise_kendall.kendall_sign_counts` and M_jk = n.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 3.0], [4.0, 1.0]])
    >>> counts, present = present_kendall_counts(x)
    >>> counts.tolist(), present.tolist()
    ([[6, -1], [-1, 3]], [[4, 3], [3, 3]])
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise DPPCAValueError(f"`values` must be a 2-D array with at least 2 rows; got shape "
                              f"{x.shape}")
    n, p = x.shape
    ranks = np.full((p, n), -1, dtype=np.int32)
    for j in range(p):
        observed = ~np.isnan(x[:, j])
        if observed.any():
            _, inverse = np.unique(x[observed, j], return_inverse=True)
            ranks[j, observed] = inverse.ravel()
    from .pairwise_kendall_kernel import present_sign_counts

    return present_sign_counts(ranks)


def present_kendall_tau_matrix(values, floor: float = 2.0) -> np.ndarray:
    """The pairwise-present tau-a matrix S_jk / C(max(M_jk, floor), 2) (NON-PRIVATE statistic).

    Parameters
    ----------
    values : array_like, shape (n, p)
        As in :func:`present_kendall_counts`.
    floor : float, >= 2
        Least count of present rows divided by (a pair of columns observed together in fewer
        rows is divided as if it had ``floor``).

    Returns
    -------
    ndarray, shape (p, p)
        Symmetric, entries in [-1, 1]; the complete-data tau-a matrix when no cell is missing.

    Notes
    -----
    Estimand: under missingness completely at random (MCAR) the rows observing j and k are a
    random subset, so the entry is the tau-a U-statistic of that subset, unbiased for the
    population tau_jk. Under MAR or MNAR it estimates the tau of the observed sub-population.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 3.0], [4.0, 1.0]])
    >>> present_kendall_tau_matrix(x).round(3).tolist()
    [[1.0, -0.333], [-0.333, 1.0]]
    """
    counts, present = present_kendall_counts(values)
    pairs = _pairs(np.maximum(present.astype(float), float(floor)))
    return np.clip(counts / pairs, -1.0, 1.0)


def _pairs(m: np.ndarray) -> np.ndarray:
    return m * (m - 1.0) / 2.0
