"""Clamped pair U-statistics that keep their sensitivity in floating point.

For scores y_1..y_n (one column) and a clamp interval [L, U] (0 <= L < U < inf), the
normalised U-statistic

    F(y) = 2/(n(n-1)) sum_{i<j} t_ij,      t_ij = (clamp(u_ij; L, U) - L) / (U - L) in [0, 1],
    u_ij = (y_i - y_j)^2 / 2,

moves by at most 2/n when one y is replaced (n - 1 of the n(n-1)/2 terms change, each by at
most 1). This module computes F in O(n log n) so that the *computed* value keeps that bound, up
to a proven rounding slack, for every finite input.

Floating-point error argument
-----------------------------
The previous implementation expanded sum_i (y_j - y_i)^2 = c y_j^2 - 2 y_j S1 + S2 with prefix
sums S1, S2 of y and y^2 over the whole sorted column. One value far from the bulk (6.2e8 in a
column of spread 4) puts ulp(y^2) ~ 64 into every later prefix sum, while the terms being
summed are ~1e-3: the computed statistic read 78.7 on a scale where it must lie in [0, 1].
Here no quantity ever exceeds a small multiple of the clamp scale:

1. Row-local cleaning. nan scores become 0 and +-inf become +-DBL_MAX. This acts on each score
   alone, so it is part of the (exact) statistic's definition and costs nothing in sensitivity.
2. Pairwise classification. After sorting (exact), pair (i, j), i < j, is "above" (t = 1) when
   fl(y_j - y_i) > h, "below" (t = 0) when fl(y_j - y_i) < g, else "middle", with
   h = sqrt(2U), g = sqrt(2L) (found by a vectorised bisection, as fl(y_j - y_i) is monotone
   in i). The class of a pair is a function of (y_i, y_j) alone, so the *reference statistic*
   F*(y), which uses these classes and the exact clamped value for middle pairs, is a
   U-statistic with terms in [0, 1]: replacing one score moves F* by at most 2/n, exactly.
   (F* differs from F only for pairs within a relative u of a threshold, by at most 4u per
   pair, inside the bound of step 4.) A difference that overflows is +inf: "above".
3. Differences inside blocks. The sorted column is cut into blocks: a block starts at r and
   holds the scores y <= fl(r + h). Each score is stored relative to its block, e_i =
   fl(fl(y_i - r)/h) in [0, 2(1 + 2u)] (u = 2^-53; fl(r + h) - r <= 2h whatever the ulp of r).
   A middle run (fl(y_j - y_i) <= h) spans at most h(1 + u), block starts are more than h/2 apart, so a
   run meets at most 6 blocks; on each piece sum (e_j - e_i)^2 = c e_j^2 - 2 e_j dP1 + dP2
   with |e_j| <= 4(1 + 2u) and dP1, dP2 differences of global prefix sums of values in
   [0, 2.01] and [0, 4.03]. Every term is O(1) in units of U: nothing cancels at the scale of
   the data's offset or magnitude (1e-300..1e300, offsets to 1e15 and spreads to 1e-12 alike).
4. Rounding bound. Prefix sums of N <= n non-negative terms err by at most gamma_n sum|x|,
   gamma_n = n u / (1 - n u) (Higham 2002, Lemma 3.1 and Sec. 4.2); with the bounds of step 3
   each piece of each j errs by at most 141 n gamma_n (in units of U), each j by at most
   850 n gamma_n, and after the normalisation (t = (u/U - rho)/(1 - rho), rho = L/U) and the
   final sum of n per-j values, |F~ - F*| <= E(n, rho) = (4096 gamma_n + 64 u) / (1 - rho)
   (``pair_rounding_error``; underflow to subnormals adds at most n 2^-1074, inside the 64 u).
5. Clamping. Each j's middle contribution is clamped to [0, c_j] (its exact value lies there)
   and F~ to [0, 1]; clamping to an interval that contains the exact value never increases the
   error, and guarantees the range even if an assumption above failed.

Hence |F~(y) - F~(y')| <= 2/n + 2 E(n, rho) for neighbours y, y', which is the sensitivity the
releases use: ``pair_sensitivity`` = (2/n) ``fp_inflation`` with fp_inflation = 1 + n E. For
n = 5,000 and rho = 0 the inflation is 1 + 1.1e-5; for n = 1e5, 1 + 4.6e-3.

References
----------
Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed., SIAM.
Mironov, I. (2012). On significance of the least significant bits for differential privacy.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import as_columns
from ..backends.dask import dask_block_terms, is_dask_array, pair_chunk_statistics

#: Unit roundoff of IEEE double precision.
UNIT_ROUNDOFF = 2.0 ** -53
#: Constants of the rounding bound E(n, rho) = (PAIR_ERROR_GAMMAS gamma_n + 64 u) / (1 - rho).
PAIR_ERROR_GAMMAS = 4096.0


def gamma(n: int) -> float:
    """Higham's gamma_n = n u / (1 - n u), the relative error bound of an n-term sum."""
    nu = n * UNIT_ROUNDOFF
    if not nu < 0.5:
        raise ValueError(f"n = {n} is too large for the rounding bounds of double precision")
    return nu / (1.0 - nu)


def pair_rounding_error(n: int, rho=0.0):
    """Bound E(n, rho) on |computed - exact| of the normalised clamped pair U-statistic (in [0, 1]).

    rho = L / U for the clamp interval [L, U] (0 <= rho < 1); see the module docstring, step 4.
    """
    # 1 - rho >= u for rho = fl(L / U) with L < U: never divide by 0
    span = np.maximum(1.0 - np.asarray(rho, float), UNIT_ROUNDOFF)
    return (PAIR_ERROR_GAMMAS * gamma(n) + 64 * UNIT_ROUNDOFF) / span


def fp_inflation(n: int, rho=0.0):
    """Factor (>= 1) by which rounding can enlarge the 2/n sensitivity: 1 + n E(n, rho).

    Examples
    --------
    >>> bool(1 < fp_inflation(5000) < 1 + 2e-5)
    True
    """
    return 1.0 + n * pair_rounding_error(n, rho)


def mean_inflation(m: int) -> float:
    """Factor (>= 1) on the 1/m sensitivity of a computed mean of m terms in a unit interval.

    numpy sums with error <= gamma_m sum|x| <= gamma_m m, so two neighbouring computed means
    differ by at most 1/m + 2 gamma_m (1 + u) + 2u: the factor is 1 + m (2 gamma_m + 4u).
    """
    return 1.0 + m * (2.0 * gamma(m) + 4 * UNIT_ROUNDOFF)


def clean_scores(scores) -> np.ndarray:
    """Row-local cleaning of projected scores: nan -> 0, +-inf -> +-DBL_MAX (step 1)."""
    finite = np.finfo(float).max
    return np.nan_to_num(np.asarray(scores, float), nan=0.0, posinf=finite, neginf=-finite)


def pair_clamped_fractions(scores, lower, upper) -> np.ndarray:
    """Normalised clamped pair U-statistics F_l in [0, 1], one per column (module docstring).

    Parameters
    ----------
    scores : ndarray, shape (n, k) or (n,)
        Projected scores, n >= 2.
    lower, upper : float or ndarray of shape (k,)
        Clamp interval of the pair values (units of scores squared). ``lower`` below 0 acts as
        0 (pair values are non-negative). A column with upper <= max(lower, 0) gives 0.

    Returns
    -------
    ndarray, shape (k,)
        F_l = 2/(n(n-1)) sum_{i<j} (clamp(u_ij; L_l, U_l) - L_l) / (U_l - L_l), L_l = max(lower_l, 0);
        changes by at most (2/n) fp_inflation(n, L_l/U_l) between neighbours.

    Notes
    -----
    The floating-point error argument is the module docstring's (steps 1-5). Source: the
    U-statistic of Hoeffding (1948) with clamped pair values, as in Kim & Jung (2025), Remark 2.1.

    Examples
    --------
    >>> import numpy as np
    >>> y = 6.22e8 + 4.28 * np.random.default_rng(178).standard_normal(43)
    >>> y_prime = y.copy(); y_prime[0] = 0.0
    >>> a, b = pair_clamped_fractions(y, 0.0, 6e-4), pair_clamped_fractions(y_prime, 0.0, 6e-4)
    >>> bool(0 <= b[0] <= 1 and abs(a[0] - b[0]) <= 2 / 43 * fp_inflation(43))
    True
    """
    scores = clean_scores(scores)
    if scores.ndim == 1:
        scores = scores[:, None]
    k = scores.shape[1]
    lower = np.maximum(np.broadcast_to(np.asarray(lower, float), (k,)), 0.0)
    upper = np.broadcast_to(np.asarray(upper, float), (k,))
    out = np.zeros(k)
    for col in range(k):
        if upper[col] > lower[col] and math.isfinite(upper[col]):
            out[col] = _clamped_pair_fraction(scores[:, col], lower[col], upper[col])
    return out


def pair_clamped_means(scores, lower, upper) -> np.ndarray:
    """U-statistics 2/(n(n-1)) sum_{i<j} clamp((y_i - y_j)^2 / 2; lower, upper), per column.

    L + (U - L) F with F from :func:`pair_clamped_fractions` (L = max(lower, 0)); U when
    upper <= 0 (every pair value is clamped to it) and L when upper <= L. With ``upper = inf``
    this is the sample variance (denominator n - 1), computed directly (not a private release).

    Parameters
    ----------
    scores : ndarray, shape (n, k) or (n,)
    lower, upper : float or ndarray of shape (k,)

    Returns
    -------
    ndarray, shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0.0, 1.0, 3.0])  # pair values 0.5, 4.5, 2
    >>> pair_clamped_means(y, 0.0, 2.5)
    array([1.66666667])
    """
    scores = clean_scores(scores)
    if scores.ndim == 1:
        scores = scores[:, None]
    k = scores.shape[1]
    upper = np.broadcast_to(np.asarray(upper, float), (k,))
    floor = np.minimum(np.maximum(np.broadcast_to(np.asarray(lower, float), (k,)), 0.0), upper)
    width = np.where(np.isfinite(upper), upper - floor, 0.0)
    means = floor + width * pair_clamped_fractions(scores, floor, upper)
    unbounded = ~np.isfinite(upper)
    if unbounded.any():
        means[unbounded] = np.maximum(np.var(scores[:, unbounded], axis=0, ddof=1), floor[unbounded])
    return means


def _clamped_pair_fraction(y: np.ndarray, lower: float, upper: float) -> float:
    """F for one column; 0 <= lower < upper < inf (module docstring, steps 2-5)."""
    with np.errstate(over="ignore"):  # y +- h beyond DBL_MAX is +-inf: still ordered correctly
        return _clamped_pair_fraction_sorted(np.sort(y), lower, upper)


def _clamped_pair_fraction_sorted(y: np.ndarray, lower: float, upper: float) -> float:
    n = y.size
    h = math.sqrt(2.0) * math.sqrt(upper)
    g = math.sqrt(2.0) * math.sqrt(lower)
    rho = lower / upper
    span = (upper - lower) / upper  # = 1 - rho, but > 0 whenever lower < upper
    j = np.arange(n)
    near = _first_partner(y, lambda diff: diff < g) if g > 0 else j
    far = np.minimum(_first_partner(y, lambda diff: diff <= h), near)
    block, starts = _blocks(y, h)
    e = (y - y[starts][block]) / h
    p1 = np.concatenate(([0.0], np.cumsum(e)))
    p2 = np.concatenate(([0.0], np.cumsum(e * e)))
    block_end = np.append(starts[1:], n)
    middle = np.zeros(n)
    at = far.copy()
    while True:
        active = np.flatnonzero(at < near)
        if active.size == 0:
            break
        a = at[active]
        b = block[a]
        stop = np.minimum(near[active], block_end[b])
        ej = (y[active] - y[starts[b]]) / h
        middle[active] += ((stop - a) * ej * ej - 2.0 * ej * (p1[stop] - p1[a]) + (p2[stop] - p2[a]))
        at[active] = stop
    count = near - far
    unit = np.clip((middle - count * rho) / span, 0.0, count)
    total = float(np.sum(far)) + float(np.sum(unit))
    return min(max(total / (n * (n - 1) / 2), 0.0), 1.0)


def _first_partner(y: np.ndarray, close) -> np.ndarray:
    """For each j, the smallest i <= j with close(fl(y_j - y_i)) (j itself satisfies it).

    Vectorised bisection, O(n log n): fl(y_j - y_i) is non-increasing in i for sorted y
    (rounding is monotone), and may be +inf (overflow), which is never close.
    """
    j = np.arange(y.size)
    low, high = np.zeros_like(j), j.copy()
    while np.any(low < high):
        mid = (low + high) // 2
        ok = close(y - y[mid])
        high = np.where(ok, mid, high)
        low = np.where(ok, low, mid + 1)
    return high


def _blocks(y: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Block index of each sorted score and block starts: a block from r holds y <= fl(r + h)."""
    following = np.searchsorted(y, y + h, side="right").tolist()
    starts, at = [], 0
    while at < y.size:
        starts.append(at)
        at = following[at]
    starts = np.asarray(starts, dtype=np.int64)
    flags = np.zeros(y.size, dtype=np.int64)
    flags[starts] = 1
    return np.cumsum(flags) - 1, starts


# ----------------------------------------------------------------------------- incomplete designs

def block_fraction_terms(rows, bounds, lower, upper) -> np.ndarray:
    """|B| F_B for the blocks ``rows[bounds[j]:bounds[j + 1]]``: shape (blocks, k).

    F_B is :func:`pair_clamped_fractions` of the block's rows (a complete U-statistic of the
    block). The building block of :func:`block_clamped_fractions` in memory and of the dask
    path, where a chunk holding whole blocks returns its rows of this array.
    """
    rows = as_columns(rows)
    return np.array([(b - a) * pair_clamped_fractions(rows[a:b], lower, upper)
                     for a, b in zip(bounds[:-1], bounds[1:])]).reshape(len(bounds) - 1, rows.shape[1])


def block_clamped_fractions(scores, design, lower, upper) -> np.ndarray:
    """Incomplete clamped pair U-statistics over a block design: sum_B |B| F_B / n, per column.

    Parameters
    ----------
    scores : ndarray or dask array, shape (n, k)
        Projected scores, in the rows' original order (a dask array is permuted and reduced
        chunk by chunk: :func:`dppca.backends.dask.dask_block_terms`).
    design : dppca.stats.pair_design.BlockDesign
        The random blocks (a public permutation of the n rows cut into blocks of size b, b + 1).
    lower, upper : float or ndarray of shape (k,)
        Clamp interval, as in :func:`pair_clamped_fractions`.

    Returns
    -------
    ndarray, shape (k,)
        In [0, 1]; changes by at most (2/n) ``block_fp_inflation(n, b_max, rho)`` between
        neighbours.

    Notes
    -----
    Inside each block every pair is used (a complete U-statistic F_B of the block's rows), so
    every row is in b - 1 (or b) pairs and the average sum_B (|B| / n) F_B over the blocks is
    unbiased for the complete statistic (the permutation is uniform and independent of the
    data: Blom 1976; Lee 1990, Ch. 4.3).

    Sensitivity (replace-one, n public). A replaced row lies in exactly one block B, so only
    F_B changes, by at most 2/|B| in exact arithmetic: sum_B (|B|/n) F_B moves by at most 2/n,
    the complete statistic's sensitivity whatever the block sizes. In floating point, with
    u = 2^-53: (i) the computed block value F~_B is within E(|B|, rho) of its reference
    (module docstring, steps 1-5) and lies in [0, 1], so neighbouring F~_B differ by at most
    2/|B| + 2 E(|B|, rho); (ii) a_B = fl(|B| F~_B) lies in [0, |B|] (|B| is exact) and
    neighbouring a_B differ by at most 2 fp_inflation(|B|, rho) + 2u|B|; all other a_B are the
    same doubles (a deterministic function of the block's rows); (iii) S = sum_B a_B <= n is
    summed correctly rounded (``math.fsum``, independent of the order) and divided by n: the
    result is within u S/n + u(1 + u) <= 2.01 u of S/n. Hence neighbours differ by at most
    (2/n) [fp_inflation(b_max, rho) + u b_max + 2.01 n u] <= (2/n) ``block_fp_inflation``,
    with fp_inflation increasing in the block size. The rounding slack of a block of
    b ~ 4,000 rows is far below the complete statistic's at large n.

    Extra variance: Var = 4 sigma_1^2 / n + 2 sigma_2^2 / (n (b - 1)) + O(n^-2) against
    4 sigma_1^2 / n + O(n^-2) for the complete statistic (Lee 1990, §4.3; terms in [0, 1]
    give sigma_2^2 <= 1/4).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.pair_design import block_design
    >>> y = np.random.default_rng(0).normal(size=(3000, 1))
    >>> design = block_design(3000, 999, np.random.default_rng(1))
    >>> incomplete = block_clamped_fractions(y, design, 0.0, 4.0)
    >>> bool(abs(incomplete[0] - pair_clamped_fractions(y, 0.0, 4.0)[0]) < 0.02)
    True
    """
    if design.n != scores.shape[0]:
        raise ValueError(f"the pair design is for n = {design.n} rows; the scores have "
                         f"{scores.shape[0]}")
    if is_dask_array(scores):
        terms = dask_block_terms(scores, design,
                                 lambda rows, bounds: block_fraction_terms(rows, bounds, lower, upper))
    else:
        terms = block_fraction_terms(as_columns(scores)[design.order], design.bounds, lower, upper)
    return np.array([math.fsum(col) for col in terms.T]) / design.n


def block_fp_inflation(n: int, block_max: int, rho=0.0):
    """Factor (>= 1) on the 2/n sensitivity of :func:`block_clamped_fractions` in floating point:
    fp_inflation(b_max, rho) + 3 n u (its Notes: u b_max + 2.01 n u <= 3 n u).

    Examples
    --------
    >>> bool(block_fp_inflation(10**6, 4096) < fp_inflation(10**6))
    True
    """
    return fp_inflation(block_max, rho) + 3.0 * n * UNIT_ROUNDOFF


def design_clamped_fractions(scores, lower, upper, design=None) -> np.ndarray:
    """:func:`pair_clamped_fractions` (``design=None``: all pairs) or :func:`block_clamped_fractions`."""
    if design is None:
        return pair_clamped_fractions(scores, lower, upper)
    return block_clamped_fractions(scores, design, lower, upper)


def design_fp_inflation(n: int, rho=0.0, design=None):
    """The rounding factor of :func:`design_clamped_fractions` for this design."""
    if design is None:
        return fp_inflation(n, rho)
    return block_fp_inflation(n, int(np.max(np.diff(design.bounds))), rho)


# ----------------------------------------------------------------------------- disjoint pairs

def paired_squares(scores, pairs) -> np.ndarray:
    """w_i = (y_a - y_b)^2 / 2 for each pair (a, b): shape (m, k), E[w] = Var(y).

    A pair value that overflows is +inf (counted in the top bin, clamped by every mean), silently:
    a warning would depend on the private data. ``scores`` may be a dask array: the pairs are
    gathered and squared chunk by chunk (:func:`dppca.backends.dask.pair_chunk_statistics`) and
    only the m x k pair values come back.
    """
    return _paired(scores, pairs, _half_squares)


def paired_half_norms(values, pairs) -> np.ndarray:
    """t_i = ||x_a - x_b||^2 / 2 for each pair (a, b): shape (m,), E[t] = tr(S) (numpy or dask)."""
    return _paired(values, pairs, _half_square_norms)


#: Pairs per dask chunk when pair values are gathered (any size gives the same numbers).
PAIR_CHUNK_ROWS = 2**16


def _paired(values, pairs, function) -> np.ndarray:
    first, second = pairs
    if is_dask_array(values):
        return np.concatenate(pair_chunk_statistics(values, first, second, PAIR_CHUNK_ROWS, function))
    values = np.asarray(values, float)
    with np.errstate(over="ignore", invalid="ignore"):
        return function(values[first] - values[second])


def _half_squares(diff) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return diff ** 2 / 2.0


def _half_square_norms(diff) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return np.sum(diff ** 2, axis=1) / 2

__all__ = ["block_clamped_fractions", "block_fp_inflation", "block_fraction_terms", "clean_scores",
           "design_clamped_fractions", "design_fp_inflation", "fp_inflation", "gamma",
           "mean_inflation", "pair_clamped_fractions", "pair_clamped_means", "pair_rounding_error",
           "paired_half_norms", "paired_squares"]
