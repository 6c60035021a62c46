"""Incomplete U-statistics over a random block design, with the complete statistic's sensitivity.

The generalized Kendall's tau matrix is a U-statistic of order two, a mean over all
n(n-1)/2 pairs of rows: O(n^2 d) work, out of reach at n = 10^6 and beyond. An
*incomplete* U-statistic averages the pair terms over a subset of pairs chosen
independently of the data (Blom 1976; Lee 1990, Ch. 4.3). The design used here is a
random partition of the rows into blocks of nearly equal size b (every row is in the
same block as b - 1 or b others): a disjoint union of cliques, (b - 1)-regular when b
divides n. Inside a block every pair is used, so each block's term is the complete
statistic of its rows, computed by the fast engine of :mod:`dppca.stats.kendall`.

Functions
---------
block_design(n, pairs_per_row, rng)
    The random design: a public permutation of the rows cut into blocks.
incomplete_kendall_tau_matrix(X, design, ...)
    sum over blocks B of (|B| / n) K_g(X_B).
pairs_per_row_rule(n, p, eps, delta, calibration)
    The default number of pairs per row of ``design="auto"`` (``None`` = complete).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validation import DPPCAValueError, int_arg
from .design_arguments import DESIGNS, given_pairs_per_row
from .array_api_kendall import is_foreign_array, take_rows
from .block_kendall import block_kendall_terms
from .kendall import kendall_tau_matrix, rounding_slack
from .threads import available_cores, pinned_map
from ..backends.dask import compute_checked, dask_block_kendall, is_dask_array
from ..privacy import gaussian_sigma

__all__ = ["DESIGNS", "BlockDesign", "block_design", "block_sum_slack",
           "incomplete_kendall_tau_matrix", "kendall_statistic", "largest_block", "pairs_per_row_rule", "pairwise_sum", "resolve_design"]

#: Below this many pair-coordinate operations (n^2 p) the complete statistic costs about a
#: second on 2 idle cores, so ``design="auto"`` keeps it exact. Measured (fused kernel,
#: benchmarks/bench_pipeline.py --complete, median of 3, CPU seconds of both threads; the
#: cores were shared, so wall times ran 3x): n^2 p = 1e10 / 2e10 / 3e10: p = 5: 1.0 / 2.2 /
#: 3.1 s, p = 20: 1.9 / 3.0 / 4.2 s, i.e. ~1.1 s (p = 5) and ~1.5 s (p = 20) of wall time at
#: 2e10 on 2 free cores (3e10 took 1.5 and 2.1 s). The BLAS form (p > 24) is no faster per n^2 p.
COMPLETE_WORK = 2e10

#: ``design="auto"`` never spends more than this many n r p operations: at about 1-1.6 s of CPU
#: per 1e10 (COMPLETE_WORK's rates at p = 5-20; the incomplete statistic at n = 4e5, r = 1023,
#: one BLAS thread, shared cores: 1.6 s at p = 5, 1.1 s at p = 20), 40-65 s of CPU, about
#: 20-30 s of wall time on 2 free cores.
INCOMPLETE_WORK_CAP = 4e11

#: At least this many pairs per row: then the extra sampling variance 2 G^4 / (n r) is at
#: most 1/256 of the variance bound G^4 / n of a single row's mean pair term, and blocks of
#: >= 513 rows keep the engine's fixed cost per block (~0.5 ms with batched preparation,
#: against ~2.4 ms of fused kernel at 851 rows, p = 20) small against its pair work.
MIN_PAIRS_PER_ROW = 512


class BlockDesign(NamedTuple):
    """A random partition of the rows 0..n-1 into blocks of nearly equal size.

    Attributes
    ----------
    order : ndarray of int, shape (n,)
        A uniformly random permutation: position -> row.
    bounds : ndarray of int, shape (m + 1,)
        Block j holds the rows ``order[bounds[j]:bounds[j + 1]]``; sizes differ by at most 1.
    """

    order: np.ndarray
    bounds: np.ndarray

    @property
    def n(self) -> int:
        return int(self.bounds[-1])

    @property
    def pairs_per_row(self) -> int:
        """The smallest number of pairs a row is in (block size - 1)."""
        return int(np.min(np.diff(self.bounds))) - 1

    @property
    def n_pairs(self) -> int:
        sizes = np.diff(self.bounds)
        return int(np.sum(sizes * (sizes - 1) // 2))


def block_design(n: int, pairs_per_row: int, rng: np.random.Generator) -> BlockDesign:
    """Draw the random block design of an incomplete U-statistic.

    Parameters
    ----------
    n : int, >= 2
        Number of rows (public under replace-one neighbours).
    pairs_per_row : int, in [1, n - 1]
        r: every row is paired with at least r other rows (its block's other rows).
    rng : numpy.random.Generator
        The call's random stream; the design depends on it only, never on the data.

    Returns
    -------
    BlockDesign
        ``m = floor(n / (r + 1))`` blocks of sizes ``floor(n/m)`` or ``ceil(n/m)`` (>= r + 1).

    Raises
    ------
    DPPCAValueError
        If ``pairs_per_row`` is not an integer in [1, n - 1].

    Notes
    -----
    The permutation is uniform, so every pair of rows has the same chance to share a block
    whatever the order of the rows (a file sorted by a column does not bias the estimate).
    The design depends on ``n`` and the random stream only: it is the same for a numpy
    array and for any chunking of a dask array.

    Examples
    --------
    >>> import numpy as np
    >>> design = block_design(10, 4, np.random.default_rng(1))
    >>> np.diff(design.bounds).tolist()
    [5, 5]
    """
    n = int_arg(n, "n", 2)
    r = int_arg(pairs_per_row, "pairs_per_row", 1, n - 1)
    m = n // (r + 1)
    bounds = (np.arange(m + 1, dtype=np.int64) * n) // m
    return BlockDesign(rng.permutation(n), bounds)


def incomplete_kendall_tau_matrix(X, design: BlockDesign, sign="spherical", radius=None, xi=None,
                                  block_sum=None):
    """The generalized Kendall's tau matrix as an incomplete U-statistic over a block design.

    Parameters
    ----------
    X : ndarray, shape (n, p)
        Data, one observation per row, finite.
    design : BlockDesign
        From :func:`block_design` with the same n.
    sign, radius, xi
        The generalized spatial sign, as in :func:`dppca.stats.kendall.kendall_tau_matrix`.
    block_sum : callable, optional
        A NaN-skipping :func:`sum_block_kendall` (pairwise present; NaN unchecked on dask).

    Returns
    -------
    K : ndarray, shape (p, p)
        ``sum_B (|B| / n) K_g(X_B)``: symmetric, positive semi-definite, unbiased for K_g.

    Raises
    ------
    DPPCAValueError
        If the design is not for ``n`` rows.

    Notes
    -----
    Unbiased (Blom 1976): the weights sum to 1 and, the permutation being uniform, every
    pair of rows carries the same expected weight, so the expected value is the complete
    U-statistic K_g = 2/(n(n-1)) sum_{i<j} g(t_ij) g(t_ij)^T for every data set.

    Sensitivity (replace-one): a row lies in exactly one block B, so only (|B| / n) K_g(X_B)
    changes. K_g on |B| rows has Frobenius sensitivity 2 sqrt(2) G^2 / |B| (proof in
    :func:`dppca.methods.gdppca.gdppca_directions`), so the change is at most
    2 sqrt(2) G^2 / n, G = sup ||g||: the sensitivity of the complete statistic, whatever
    the block sizes. The noise does not grow. In floating point each block is computed by
    the engine of :mod:`dppca.stats.kendall` from explicit differences near duplicates; the
    weights |B|/n are exact ratios of integers below 2^53.

    Extra variance: each block is a complete U-statistic of b rows, so
    Var = 4 sigma_1^2 / n + 2 sigma_2^2 / (n b) against 4 sigma_1^2 / n + 2 sigma_2^2 / n^2
    for the complete statistic (Hoeffding 1948; Lee 1990, §4.3): the loss is at most
    2 G^4 / (b n) in Frobenius norm.

    References
    ----------
    Blom, G. (1976). Some properties of incomplete U-statistics. Biometrika 63(3), 573-580.
    Lee, A. J. (1990). U-Statistics: Theory and Practice. Marcel Dekker, Ch. 4.3.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> design = block_design(200, 49, np.random.default_rng(1))
    >>> K = incomplete_kendall_tau_matrix(X, design)
    >>> round(float(np.trace(K)), 12)
    1.0
    """
    if design.n != X.shape[0]:
        raise DPPCAValueError(f"the pair design is for n = {design.n} rows; `X` has {X.shape[0]}")
    missing = block_sum is not None
    block_sum = block_sum or sum_block_kendall
    if is_dask_array(X):
        chunks = dask_block_kendall(X, design, block_sum, sign, radius, xi, missing=missing)
        return pairwise_sum(chunks) / design.n
    # CuPy, torch: on their device. numpy: rows contiguous (a no-op for C-ordered data), as the
    # blocks gather rows: from a Fortran-ordered 10^6 x 20 array that took 4.3 s against 0.06 s.
    X = X if is_foreign_array(X) else np.ascontiguousarray(X, dtype=np.float64)
    return block_sum(X, design.order, design.bounds, sign, radius, xi) / design.n


def kendall_statistic(X, pairs_per_row, rng, sign="spherical", radius=None, xi=None, *,
                      present=None):
    """The Kendall's tau matrix of a call and a sentence describing its design.

    ``pairs_per_row=None``: the complete U-statistic (a dask array is computed in memory,
    which ``design="auto"`` does only when n^2 p <= 2e10); otherwise the incomplete
    statistic over a block design drawn from ``rng``. ``present``: NaN-skipping forms
    ``(complete, block_sum)`` of both (pairwise present). Returns (K of shape (p, p), str).
    """
    n = X.shape[0]
    complete, block_sum = present or (kendall_tau_matrix, None)
    if pairs_per_row is None:
        if is_dask_array(X):
            X = compute_checked(X, missing=present is not None)
        return (complete(X, sign=sign, radius=radius, xi=xi),
                "complete U-statistic (all pairs)")
    design = block_design(n, pairs_per_row, rng)
    return (incomplete_kendall_tau_matrix(X, design, sign=sign, radius=radius, xi=xi,
                                          block_sum=block_sum),
            f"incomplete U-statistic: random blocks, >= {design.pairs_per_row} pairs per row "
            f"({design.n_pairs:,} of {n * (n - 1) // 2:,} pairs), same sensitivity")


def sum_block_kendall(X, order, bounds, sign="spherical", radius=None, xi=None):
    """``sum_B |B| K_g(X[order[B]])`` over the blocks ``bounds`` (unnormalised; shape (p, p)).

    The building block of the in-memory and the dask paths: a chunk holding whole blocks
    contributes its own sum, and the chunks' sums add up to n times the statistic. The terms
    are added by :func:`pairwise_sum` (rounding depth logarithmic in the number of blocks;
    :func:`block_sum_slack` bounds the effect on the sensitivity).
    """
    m = len(bounds) - 1
    foreign = is_foreign_array(X)
    # A user xi runs on the calling thread (it may be an R function: see dppca.stats.kendall).
    # An array-API array (GPU) is reduced block after block, its library parallelising each.
    workers = 1 if xi is not None or foreign else min(available_cores(), m)

    if foreign:
        return pairwise_sum((bounds[j + 1] - bounds[j]) * kendall_tau_matrix(
            take_rows(X, order[bounds[j]:bounds[j + 1]]), sign=sign, radius=radius, xi=xi)
            for j in range(m))
    # A static round-robin split of the blocks and a fixed reduction order: deterministic.
    # Blocks share the cores one level up: each thread's small BLAS products on one core.
    shares = [np.arange(k, m, workers) for k in range(workers)]
    return pairwise_sum(pinned_map(lambda share: pairwise_sum(
        block_kendall_terms(X, order, bounds, share, sign, radius, xi)), shares))


def pairwise_sum(terms):
    """Sum of an iterable of equal-shape arrays, added pairwise (a binary counter of partial sums).

    Deterministic (a fixed order), O(log m) arrays in memory for m terms, and every term goes
    through at most 2 ceil(log2(m + 1)) roundings, against m - 1 for a running total.
    """
    stack = []  # (level, partial sum of 2^level terms), levels strictly decreasing
    for term in terms:
        level, total = 0, term
        while stack and stack[-1][0] == level:
            total = stack.pop()[1] + total
            level += 1
        stack.append((level, total))
    if not stack:
        raise ValueError("pairwise_sum needs at least one term")
    total = stack.pop()[1]
    while stack:
        total = stack.pop()[1] + total
    return total


def block_sum_slack(n: int, pairs_per_row, p: int) -> float:
    """Relative sensitivity slack of the incomplete statistic: each block's engine rounding plus
    the rounding of ``sum_B (|B| / n) K_B`` (both enter the sensitivity: floating point is part
    of the proof).

    Parameters
    ----------
    n : int
        Rows (public).
    pairs_per_row : int or None
        r of the design; ``None`` for the complete statistic (then only the engine's slack).
    p : int
        Dimension.

    Returns
    -------
    float
        rho >= 0: release with (1 + rho) times the exact-arithmetic sensitivity 2 sqrt(2) G^2 / n.

    Notes
    -----
    With u = 2^-53 and m = floor(n / (r + 1)) blocks. Neighbours differ in one block B:
    (i) its computed K~_B moves by at most (2 sqrt(2) G^2 / |B|)(1 + rho_engine(b_max))
    (:func:`dppca.stats.kendall.rounding_slack`); (ii) a_B = fl(|B| K~_B) adds u |B| ||K~_B||_F
    <= u b_max G^2 per data set; every other a_B is the same array of doubles (a deterministic
    function of its rows: blocks prepared in batches by :mod:`dppca.stats.block_kendall` get
    the doubles of the engine run on each block alone, tests/test_block_kendall.py). (iii) The sum of the a_B (:func:`pairwise_sum` within a thread,
    over the threads and over the dask chunks) puts every term through at most
    L = 6 ceil(log2(m + 1)) roundings, so it is within gamma_L sum_B ||a_B||_F <= 1.0001 L u n G^2
    of the exact sum; (iv) dividing by n adds u ||K||_F <= u G^2. Against 2 sqrt(2) G^2 / n for
    both data sets: rho = rho_engine(b_max) + u (b_max + 1.01 (L + 1) n) / sqrt(2)
    (||K~||_F <= G^2 up to the engine's relative error, covered by the 1.01).
    At n = 10^6, r = 512: about 1e-8 on top of the engine's slack.

    Examples
    --------
    >>> bool(block_sum_slack(10**6, 512, 20) < 1e-3)
    True
    """
    engine = rounding_slack(largest_block(n, pairs_per_row), p)
    if pairs_per_row is None:
        return engine
    blocks = int(n) // (int(pairs_per_row) + 1)
    depth = 6 * math.ceil(math.log2(blocks + 1))
    unit = 2.0 ** -53
    return engine + unit * (largest_block(n, pairs_per_row) + 1.01 * (depth + 1) * n) / math.sqrt(2.0)


def pairs_per_row_rule(n: int, p: int, eps: float, delta: float, calibration: str = "analytic"):
    """Pairs per row of ``design="auto"``; ``None`` means the complete U-statistic.

    Parameters
    ----------
    n, p : int
        Rows and columns (public).
    eps, delta : float
        Budget of the Kendall release (sets the noise the sampling error is compared with).
    calibration : {"analytic", "classic"}

    Returns
    -------
    int or None
        ``None`` when n^2 p <= 2e10 (the complete statistic costs about a second);
        otherwise r = clip(ceil(5 n / (c^2 p (p + 1))), 512, 4e11 / (n p)), at most n - 1,
        with c = sigma n / (2 sqrt(2) G^2) the unit noise scale of the Gaussian mechanism.

    Notes
    -----
    The release's noise has Frobenius variance sigma^2 p (p + 1) / 2 =
    4 c^2 G^4 p (p + 1) / n^2; the design adds at most 2 G^4 / (n r) of sampling variance
    (see :func:`incomplete_kendall_tau_matrix`). The rule keeps the addition at or below
    a tenth of the noise variance, so the sin-theta error, which grows like the square root
    of the total variance, grows by at most ~5%, and never uses fewer than 512 pairs per
    row (against the complete statistic's own sampling error 4 sigma_1^2 / n, the addition
    is sigma_2^2 / (2 r sigma_1^2) of it). The cap bounds the work n r p to ~10 s here.

    Examples
    --------
    >>> pairs_per_row_rule(5000, 20, 1.0, 1e-5) is None
    True
    >>> pairs_per_row_rule(10**6, 20, 1.0, 1e-5) >= 512
    True
    """
    if n * float(n) * p <= COMPLETE_WORK:
        return None
    r = min(_noise_pairs_per_row(n, p, eps, delta, calibration), int(INCOMPLETE_WORK_CAP // (n * p)))
    return max(1, min(r, n - 1))


def _noise_pairs_per_row(n, p, eps, delta, calibration) -> int:
    """max(512, ceil(5 n / (c^2 p (p + 1)))): extra sampling variance <= a tenth of the noise's."""
    unit = gaussian_sigma(1.0, eps, delta, calibration)
    return max(MIN_PAIRS_PER_ROW, math.ceil(5.0 * n / (unit * unit * p * (p + 1))))


def largest_block(n: int, pairs_per_row) -> int:
    """Rows of the largest block of :func:`block_design` (n for the complete statistic, None)."""
    if pairs_per_row is None:
        return int(n)
    return -(-int(n) // (int(n) // (int(pairs_per_row) + 1)))


def resolve_design(design: str, pairs_per_row, n: int, p: int, eps: float, delta: float,
                   calibration: str):
    """The number of pairs per row a call uses; ``None`` for the complete statistic.

    Raises
    ------
    DPPCAValueError
        As :func:`dppca.stats.design_arguments.given_pairs_per_row` raises.
    """
    given = given_pairs_per_row(design, pairs_per_row, n)
    if given is not None or design == "complete":
        return given
    r = pairs_per_row_rule(n, p, eps, delta, calibration)
    if design == "incomplete" and r is None:
        r = min(n - 1, _noise_pairs_per_row(n, p, eps, delta, calibration))
    return r


#: Pairs per row of the scree's incomplete pair statistics (blocks of 4,096 rows). Their cost is
#: O(n log b) whatever r, so r is large: the extra variance 2 sigma_2^2 / (n r) of terms in [0, 1]
#: is at most 1/(2 r n) = 1.2e-4 / n, against the complete statistic's own 4 sigma_1^2 / n.
SCREE_PAIRS_PER_ROW = 4095


def pair_statistic_design(design: str, pairs_per_row, n: int, lazy: bool, rng):
    """The block design of a call's clamped pair statistics (dp_scree), or None for all pairs.

    Parameters
    ----------
    design : {"auto", "complete", "incomplete"}
        "auto": all pairs in memory (O(n log n) per column), the block design for dask input
        (``lazy``), where each chunk of whole blocks is reduced where it lives.
    pairs_per_row : int or None
        r (blocks of r + 1 rows); None: ``SCREE_PAIRS_PER_ROW`` (at most n - 1).
    n : int
        Rows (public).
    lazy : bool
        Whether the data are a dask collection or files.
    rng : numpy.random.Generator
        The call's stream; drawn from only when a design is used.

    Returns
    -------
    BlockDesign or None

    Raises
    ------
    DPPCAValueError
        As :func:`dppca.stats.design_arguments.given_pairs_per_row` raises.

    Examples
    --------
    >>> import numpy as np
    >>> pair_statistic_design("auto", None, 1000, False, np.random.default_rng(0)) is None
    True
    >>> pair_statistic_design("incomplete", 99, 1000, False, np.random.default_rng(0)).pairs_per_row
    99
    """
    given = given_pairs_per_row(design, pairs_per_row, n)
    if design == "complete" or (design == "auto" and not lazy and given is None):
        return None
    return block_design(n, min(SCREE_PAIRS_PER_ROW, n - 1) if given is None else given, rng)
