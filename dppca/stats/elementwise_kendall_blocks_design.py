"""Which pairs the rank path's elementwise Kendall's tau uses: all of them, or a block design.

The complete tau-a matrix costs O(p^2 n log n) (:mod:`dppca.stats.elementwise_kendall`); the
incomplete U-statistic over a random block design with r pairs per row costs O(n r p^2)
(:mod:`dppca.stats.elementwise_kendall_blocks`), is unbiased for the same population tau and
has the same replace-one sensitivity 2 p / n. ``design="auto"`` decides between them from the
public n and p only (:func:`rank_pairs_per_row_rule`); the design itself is drawn from the
call's random stream, never from the data.
"""
from __future__ import annotations

import math

import numpy as np

from .design_arguments import given_pairs_per_row
from .pair_design import BlockDesign, block_design

__all__ = ["RANK_BLOCK_WORK", "RANK_COMPLETE_WORK", "RANK_MAX_PAIRS_PER_ROW",
           "RANK_MIN_PAIRS_PER_ROW", "block_design_sd", "design_note", "hoeffding_pairs",
           "largest_kernel_weight", "rank_pairs_per_row_rule",
           "resolve_rank_design"]

#: ``design="auto"`` keeps the complete statistic while its work p (p + 1) / 2 * n log2(n)
#: (one merge sort per column pair, Knight's algorithm) is at most this: measured 12-40 ns per
#: unit on 2 shared cores (n = 3e4-1e6, p = 5-20), so about a second. Above, the complete
#: statistic's cost grows like n log n per pair while the block design's grows like r per row.
RANK_COMPLETE_WORK = 5e7

#: Work budget of the block design, in (pairs) x (p (p + 1) / 2 + 64) units: each pair's sign row
#: costs about 64 products' worth of comparisons and writes besides its p (p + 1) / 2 products
#: (measured 0.7-1.1 ns per unit on 2 shared cores at p = 5-20), so about a second. Below the
#: floor :data:`RANK_MIN_PAIRS_PER_ROW` the budget is exceeded rather than the accuracy lost.
RANK_BLOCK_WORK = 1.5e9

#: At least this many pairs per row. An entry's extra variance over the complete statistic is
#: at most 2 sigma_2^2 / (n r) <= 2 / (n r) (a kernel bounded by 1; Lee 1990, Ch. 4.3), against
#: the complete statistic's own 4 sigma_1^2 / n = 4 / (9 n) at independence: at r = 15 at most
#: 30% more sampling variance (14% more sd), while the work, r / 2 float32 products of p x p
#: per row, stays a few times that of one correlation matrix (n p^2 float64 products).
RANK_MIN_PAIRS_PER_ROW = 15

#: At most this many pairs per row (blocks of 512 rows): the extra variance is then below 1% of
#: the complete statistic's, so more pairs buy nothing, and a chunk of the block kernel
#: (2^18 pairs) still holds two blocks for its threads.
RANK_MAX_PAIRS_PER_ROW = 511


def rank_pairs_per_row_rule(n: int, p: int, lazy: bool = False):
    """Pairs per row of ``design="auto"`` on the rank path; ``None`` means the complete statistic.

    The rank path's counterpart of :func:`dppca.stats.pair_design.pairs_per_row_rule` (g-DPPCA's
    tau): the same meaning of its result, from public numbers only, under its own rule.

    Parameters
    ----------
    n, p : int
        Rows (public, >= 2) and columns (>= 1).
    lazy : bool
        Whether the data are a dask collection or files: then always a block design (the
        complete statistic needs every row in memory at once).

    Returns
    -------
    int or None
        ``None`` when p (p + 1) / 2 * n log2(n) <= :data:`RANK_COMPLETE_WORK` and the data are
        in memory; otherwise r = clip(floor(2 W / (n (p (p + 1) / 2 + 64))), 15, 511), at most
        n - 1, with W = :data:`RANK_BLOCK_WORK` (the design's n r / 2 pairs within its budget).

    Notes
    -----
    Both choices estimate the same population tau-a matrix without bias and are released at
    the same sensitivity 2 p / n; they differ in cost and in sampling variance. Unlike
    g-DPPCA's rule the work, not the noise, sets r: the sampling cost of a small r is
    bounded by :data:`RANK_MIN_PAIRS_PER_ROW` and counted by the accuracy model
(:func:`block_design_sd`).

    Examples
    --------
    >>> rank_pairs_per_row_rule(5_000, 20) is None
    True
    >>> rank_pairs_per_row_rule(1_000_000, 20)
    15
    >>> rank_pairs_per_row_rule(5_000, 20, lazy=True)
    511
    """
    n, p = int(n), int(p)
    entries = p * (p + 1) / 2.0
    if not lazy and entries * n * math.log2(n) <= RANK_COMPLETE_WORK:
        return None
    budget = math.floor(2.0 * RANK_BLOCK_WORK / (n * (entries + 64.0)))
    r = min(max(budget, RANK_MIN_PAIRS_PER_ROW), RANK_MAX_PAIRS_PER_ROW)
    return max(1, min(r, n - 1))


def resolve_rank_design(design: str, pairs_per_row, n: int, p: int, lazy: bool,
                        rng: np.random.Generator):
    """The block design of a rank-path call, or None for the complete statistic.

    Parameters
    ----------
    design : {"auto", "complete", "incomplete"}
        "auto": :func:`rank_pairs_per_row_rule`; "incomplete": a block design with
        ``pairs_per_row`` pairs per row (default: the rule's r, even where "auto" would be
        complete); "complete": every pair.
    pairs_per_row : int or None
        r, checked by :func:`dppca.stats.design_arguments.given_pairs_per_row`.
    n, p : int
        Rows and columns (public).
    lazy : bool
        Whether the data are a dask collection or files.
    rng : numpy.random.Generator
        The call's random stream; drawn from only when a design is used.

    Returns
    -------
    dppca.stats.pair_design.BlockDesign or None

    Raises
    ------
    DPPCAValueError
        As :func:`dppca.stats.design_arguments.given_pairs_per_row` raises.

    Examples
    --------
    >>> import numpy as np
    >>> resolve_rank_design("auto", None, 1000, 5, False, np.random.default_rng(0)) is None
    True
    >>> resolve_rank_design("incomplete", 9, 1000, 5, False, np.random.default_rng(0)).pairs_per_row
    9
    """
    given = given_pairs_per_row(design, pairs_per_row, n)
    if given is not None:
        return block_design(n, given, rng)
    if design == "complete":
        return None
    r = rank_pairs_per_row_rule(n, p, lazy=lazy or design == "incomplete")
    return None if r is None else block_design(n, r, rng)


def hoeffding_pairs(n: int, blocks=None) -> float:
    """Independent pairs m behind the statistic's sampling bound: floor(n / 2), or the design's.

    Parameters
    ----------
    n : int
        Rows (public).
    blocks : int, optional
        Number of blocks of the block design (``len(design.bounds) - 1``, or
        ``n // (pairs_per_row + 1)`` before it is drawn: the sizes depend on n and the number of
        blocks only); None for the complete statistic.

    Returns
    -------
    float
        m such that the statistic is an average, over random pairings, of weighted means of
        independent kernels with sum of squared weights 1 / m: floor(n / 2) for the complete
        statistic (Hoeffding 1963, Section 5); n^2 / sum_B |B|^2 / floor(|B| / 2) for the block
        design (exactly n / 2 when every block has an even size).

    Notes
    -----
    Each block's complete statistic is the average over the permutations of its rows of the
    mean kernel over floor(|B| / 2) disjoint pairs; the blocks' weights |B| / n make the
    incomplete statistic an average of sums of independent kernels (disjoint pairs of i.i.d.
    rows, the design drawn independently of them), kernel weights |B| / (n floor(|B| / 2)),
    summing to 1. Jensen and McDiarmid's lemma then bound its deviation as for equal weights
    1 / m, with 1 / m the sum of the squared weights (the proof of
    :class:`dppca.results.scree_rank.RankBound`, step 4, with weighted bounded differences);
    Bernstein's bound also needs the largest weight (:func:`largest_kernel_weight`), above
    1 / m when the blocks have two sizes, one of them odd.

    Examples
    --------
    >>> hoeffding_pairs(1000), hoeffding_pairs(1000, 100)  # blocks of 10 rows: n / 2
    (500.0, 500.0)
    >>> round(hoeffding_pairs(1100, 100), 6)  # blocks of 11 rows: 500 < n / 2 = 550
    500.0
    """
    if blocks is None:
        return float(int(n) // 2)
    sizes = _block_sizes(n, blocks)
    return float(n) ** 2 / float(np.sum(sizes ** 2 / np.floor(sizes / 2)))


def _block_sizes(n, blocks) -> np.ndarray:
    """The block sizes of :func:`dppca.stats.pair_design.block_design` with this many blocks."""
    m = int(blocks)
    return np.diff((np.arange(m + 1, dtype=np.int64) * int(n)) // m).astype(float)


def largest_kernel_weight(n: int, blocks=None) -> float:
    """The largest weight of one independent kernel in :func:`hoeffding_pairs`' decomposition.

    Parameters
    ----------
    n, blocks
        As in :func:`hoeffding_pairs` (rows; blocks of the design, None for the complete
        statistic).

    Returns
    -------
    float
        1 / floor(n / 2) for the complete statistic (equal weights); max over the block sizes
        b of b / (n floor(b / 2)) for the block design (2 / n when every block is even).

    Notes
    -----
    Bernstein's bound for the weighted sum sum_i w_i (h_i - E h), h_i independent with
    ||h_i - E h|| <= a and E ||h_i - E h||^2 <= v, has the same proof as for the mean of m
    equal summands (:func:`dppca.results.rank_concentration.bernstein_radius`) with the
    summands' bound max_i w_i a and their total variance v sum_i w_i^2 = v / m: so the radius
    takes m from :func:`hoeffding_pairs` and this weight for its linear term.

    Examples
    --------
    >>> largest_kernel_weight(1000) == 1 / 500, largest_kernel_weight(1000, 100) == 2 / 1000
    (True, True)
    >>> round(largest_kernel_weight(1050, 300) * 1050, 6)  # blocks of 3 and 4: 3 / 1 > 4 / 2
    3.0
    """
    if blocks is None:
        return 1.0 / float(int(n) // 2)
    sizes = _block_sizes(n, blocks)
    return float(np.max(sizes / (float(n) * np.floor(sizes / 2))))


def block_design_sd(n: int, pairs_per_row=None) -> float:
    """Bound on the sd the block design adds to each tau entry, over the complete statistic.

    Parameters
    ----------
    n : int
        Rows (public).
    pairs_per_row : int, optional
        The design's fewest pairs per row r (:attr:`BlockDesign.pairs_per_row`, the smallest
        block's size minus 1); None for the complete statistic (0).

    Returns
    -------
    float
        sqrt(2 / (n r)); 0 without a design.

    Notes
    -----
    With h the kernel (bounded by 1), zeta_1 = Var E[h | x] and zeta_2 = Var h <= 1, a block of
    b rows has Var T(X_B) = (4 (b - 2) zeta_1 + 2 zeta_2) / (b (b - 1)) (Hoeffding 1948), so
    T_D = sum_B (b / n) T(X_B) has Var T_D = 4 zeta_1 / n + (2 zeta_2 - 4 zeta_1)
    sum_B b / (b - 1) / n^2. The design is a uniformly random partition drawn independently of
    the rows, so every pair has the same expected weight and E[T_D | X] = T_C, the complete
    statistic: T_D - T_C is uncorrelated with T_C and E (T_D - T_C)^2 = Var T_D - Var T_C
    <= (2 zeta_2 - 4 zeta_1) (sum_B b / (b - 1)) / n^2 <= 2 / (n r), as sum_B b / (b - 1)
    <= n / r and 0 <= 2 zeta_2 - 4 zeta_1 <= 2 (Lee 1990, Ch. 4.3). At independence of two
    continuous columns (zeta_1 = 1 / 9, zeta_2 = 1) the factor 2 is 14 / 9, so the bound
    overstates that sd by 13% at most there. Public: n and the design only.

    References
    ----------
    Hoeffding, W. (1948). A class of statistics with asymptotically normal distribution.
    Ann. Math. Statist. 19(3), 293-325.
    Lee, A. J. (1990). U-Statistics: Theory and Practice. Marcel Dekker, Ch. 4.3.

    Examples
    --------
    >>> block_design_sd(1000), round(block_design_sd(10**6, 15), 6)
    (0.0, 0.000365)
    """
    return 0.0 if pairs_per_row is None else math.sqrt(2.0 / (float(n) * int(pairs_per_row)))


def design_note(n: int | None, design: BlockDesign | None, sensitivity: float) -> str:
    """One summary sentence naming the design and the sensitivity it was released at.

    Parameters
    ----------
    n : int or None
        Rows; None under add/remove neighbours (n private: the sentence counts no pairs).
    design : BlockDesign or None
        The block design, or None (complete statistic).
    sensitivity : float
        The release's L2 sensitivity.

    Returns
    -------
    str

    Examples
    --------
    >>> design_note(100, None, 0.04)
    "Kendall's tau matrix: complete U-statistic (all 4,950 pairs); L2 sensitivity 0.04 (2 p / n)."
    """
    if n is None:  # add/remove neighbours: n is private, no pair count is printed
        return (f"Kendall's tau matrix: complete U-statistic (all pairs); L2 sensitivity "
                f"{sensitivity:.4g} (2 p / (n_lo + 1), n_lo the private count's lower bound).")
    pairs = int(n) * (int(n) - 1) // 2
    what = (f"complete U-statistic (all {pairs:,} pairs)" if design is None else
            f"incomplete U-statistic over a random block design, >= {design.pairs_per_row} "
            f"pairs per row ({design.n_pairs:,} of {pairs:,} pairs; unbiased for the same tau)")
    return f"Kendall's tau matrix: {what}; L2 sensitivity {sensitivity:.4g} (2 p / n)."
