"""Add/remove neighbour pairs: the audit of the releases that ``neighbouring="add_remove"`` covers.

Under add/remove neighbours D' is D with one row removed or one row added, and each release
claims a sensitivity as a function of m, the smaller data set's rows (the calls evaluate it at a
public lower bound n_lo <= m). :func:`add_remove_search` is the neighbour search of
:func:`dppca.audit.neighbour_search` for this relation: every base data set of
:data:`dppca.audit.DATASETS` loses each of some rows and gains each structured or random row of
:func:`dppca.audit.neighbours.replacement_rows`, then a greedy climb moves the added row.
:data:`ADD_REMOVE_REGISTRY` holds one :class:`~dppca.audit.AuditedRelease` per covered release,
its ``sensitivity(m, p, ctx)`` the claimed add/remove bound and its mechanism the package's own
release with the bound's row numbers from ``ctx["m"]`` (set by the search for the worst pair).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..methods.add_remove import (kendall_add_remove_sensitivity, rank_tau_add_remove_sensitivity,
                                  share_add_remove_sensitivity)
from ..methods.gdppca import gdppca_directions
from ..methods.latent_correlation import binary_proportions, release_kendall_tau, release_mixed
from ..privacy import GaussianGroup, Ledger
from ..estimators.clip_choice import clip_edges
from ..estimators.pair_means import (clipped_paired_statistic, dp_clipped_mean,
                                     dp_clipped_paired_mean, normalised_pair_statistic,
                                     pair_release_sensitivity, paired_mean_sensitivity)
from ..estimators.frame import private_frame
from ..estimators.groups import declared_groups, label_series
from ..estimators.histograms import Grid, bin_counts, private_histograms
from ..privacy.counted_group import pair_rows
from ..privacy.neighbouring import PrivateCount, RowBounds, count_bounds
from ..privacy.partition import select_partitions
from ..privacy.quantiles import (UNBOUNDED_GRID, dp_histogram_counts, histogram_counts,
                                 private_quantile, unbounded_quantile)
from ..stats.pair_statistics import paired_squares
from ..stats.paired_differences import random_pairs
from ..privacy.samplers import add_gaussian_noise
from ..stats.elementwise_kendall import kendall_tau_matrix as elementwise_tau
from ..stats.kendall import kendall_tau_matrix
from .neighbours import (PairSearch, SearchResult, replacement_rows, run_search,
                         statistic_or_none)
from .registry import AuditedRelease

__all__ = ["ADD_REMOVE_CANARY_FAMILIES", "ADD_REMOVE_REGISTRY", "SIZES", "add_remove_search",
           "count_mechanism", "coupled_pairs"]

EPS, DELTA = 1.0, 1e-5
#: Sizes of the base data sets (removing a row leaves at least 2).
SIZES = (5, 12, 50)

#: The audited releases under add/remove neighbours (name -> release).
ADD_REMOVE_REGISTRY: dict[str, AuditedRelease] = {}


def _register(release: AuditedRelease) -> None:
    ADD_REMOVE_REGISTRY[release.name] = release


def _rows(c) -> RowBounds:
    """The bounds a call would use on the pair: n_lo = m, n_hi = m + 1."""
    return RowBounds(float(c["m"] + 1), int(c["m"] + 1))


def count_mechanism(X, c, rng):
    """The row count release of :func:`dppca.privacy.neighbouring.release_row_count` at the
    registry's (eps, delta) (one Gaussian mechanism, sensitivity 1).

    Examples
    --------
    >>> import numpy as np
    >>> float(count_mechanism(np.zeros((7, 2)), {}, np.random.default_rng(0))[0]) != 7.0
    True
    """
    share = GaussianGroup(EPS, DELTA).share(1.0)
    return np.atleast_1d(add_gaussian_noise(float(X.shape[0]), share.sigma(1.0), 1.0, rng)[0])


def _kendall_mechanism(X, c, rng):
    fit = gdppca_directions(X, X.shape[1], eps=EPS, delta=DELTA, rng=rng, calibration="analytic",
                            ledger=Ledger(EPS, DELTA), design="complete", rows=_rows(c))
    return (fit.vectors * fit.eigenvalues) @ fit.vectors.T


def _binary(p) -> np.ndarray:
    return np.arange(p) % 2 == 0


def _upper(matrix) -> np.ndarray:
    return matrix[np.triu_indices(matrix.shape[0])]


_register(AuditedRelease(
    "add/remove: row count", claim="1 (L2)",
    statistic=lambda X, c: np.atleast_1d(float(X.shape[0])), sensitivity=lambda m, p, c: 1.0,
    mechanism=count_mechanism, eps=EPS, delta=DELTA, p=2))

for engine, label in (("blas", ""), ("fused", ", fused kernel")):  # both engines' arithmetic
    _register(AuditedRelease(
        f"add/remove: g-DPPCA Kendall's tau matrix{label} (spherical sign)",
        claim="2 sqrt(2)/(m + 1) (Frob.)",
        statistic=lambda X, c, engine=engine: kendall_tau_matrix(X, engine=engine),
        sensitivity=lambda m, p, c: kendall_add_remove_sensitivity(m, p),
        mechanism=_kendall_mechanism, eps=EPS, delta=DELTA, p=3))

_register(AuditedRelease(
    "add/remove: rank elementwise Kendall's tau (j <= k)", claim="2 p/(m + 1) (L2)",
    statistic=lambda X, c: _upper(elementwise_tau(X)),
    sensitivity=lambda m, p, c: rank_tau_add_remove_sensitivity(m, p),
    mechanism=lambda X, c, rng: _upper(release_kendall_tau(X, EPS, DELTA, rng, rows=_rows(c))[0]),
    eps=EPS, delta=DELTA, p=4))


def _mixed_mechanism(X, c, rng):
    binary = _binary(X.shape[1])
    released, _, _, thresholds = release_mixed(X, binary, EPS, DELTA, rng, "analytic", None,
                                                rows=_rows(c))
    return np.concatenate([_upper(released), thresholds[binary]])


_register(AuditedRelease(
    "add/remove: rank binary columns' shares of ones", claim="sqrt(b)/(m + 1) (L2)",
    statistic=lambda X, c: binary_proportions(X, _binary(X.shape[1])),
    sensitivity=lambda m, p, c: share_add_remove_sensitivity(m, int(_binary(p).sum())),
    mechanism=_mixed_mechanism, eps=EPS, delta=DELTA, p=4))


# ----------------------------------------------------------------------------- dp_scree

def _clip_context(D, rng):
    """Public clips of the pair values around the base data set's median pair value."""
    with np.errstate(over="ignore", invalid="ignore"):
        i, j = np.triu_indices(D.shape[0], 1)
        scale = np.median((D[i] - D[j]) ** 2 / 2, axis=0)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    return {"clip": scale * 10.0 ** rng.uniform(-6, 1, size=D.shape[1])}


_register(AuditedRelease(
    "add/remove: scree clipped pair means", claim="2 sqrt(k)/(m + 1) (+ 2 sqrt(k) E(m + 1))",
    statistic=lambda X, c: normalised_pair_statistic(X, 0.0, c["clip"]),
    sensitivity=lambda m, p, c: pair_release_sensitivity(
        m, np.zeros(p), c["clip"], rows=RowBounds(float(m + 1), m + 1)),
    mechanism=lambda X, c, rng: dp_clipped_mean(
        X, c["clip"], GaussianGroup(EPS, DELTA).share(1.0), rng, rows=_rows(c)).estimate
    / c["clip"], eps=EPS, delta=DELTA, context=_clip_context))


def _pairs_context(D, rng):
    """The base data set's random pairing (the call's draw), the base itself (to couple a
    neighbour's pairing to it), a clip and a histogram scale around its pair values."""
    pairs = random_pairs(D.shape[0], rng)
    with np.errstate(over="ignore", invalid="ignore"):
        typical = float(np.median(_halves(D, pairs)))
    typical = typical if np.isfinite(typical) and typical > 0 else 1.0
    return {"pairs": pairs, "base": D, "clip": typical * 10.0 ** rng.uniform(-3, 1),
            "scale": typical}


def coupled_pairs(X, c) -> tuple[np.ndarray, np.ndarray]:
    """The pairing of a neighbour X coupled with the base data set's (``c["base"]``, ``c["pairs"]``).

    The coupling of :func:`dppca.privacy.counted_group.pair_rows`: X is the base, the base with a
    row appended (index n), or the base without one row r. Added to n odd rows: the left-over row
    is paired with the new one. Added to n even rows: the coupling's uniform y is the first pair's
    first row (the proof covers every y), which leaves while the new row takes its place.
    Removed from n even rows: r's pair goes (its partner is left over). Removed from n odd rows:
    r's partner is paired with the left-over row (nothing changes when r is the left-over row).

    Parameters
    ----------
    X : ndarray, shape (n', p)
        The base or a neighbour of it (|n' - n| <= 1).
    c : dict
        The context: ``base`` (n, p) and ``pairs`` (its pairing).

    Returns
    -------
    (ndarray, ndarray)
        First and second rows of X's pairs: floor(n' / 2) of them.

    Examples
    --------
    >>> base = np.arange(10.0).reshape(5, 2)
    >>> c = {"base": base, "pairs": (np.array([0, 1]), np.array([2, 3]))}  # row 4 left over
    >>> [a.tolist() for a in coupled_pairs(np.vstack([base, [9.0, 9.0]]), c)]
    [[0, 1, 4], [2, 3, 5]]
    >>> [a.tolist() for a in coupled_pairs(np.delete(base, 1, axis=0), c)]
    [[0, 3], [1, 2]]
    """
    D, (first, second) = c["base"], c["pairs"]
    n, rows = D.shape[0], X.shape[0]
    first, second = np.asarray(first).copy(), np.asarray(second).copy()
    left = np.setdiff1d(np.arange(n), np.concatenate([first, second]))  # n odd: one row
    if rows == n:
        return first, second
    if rows == n + 1:
        if left.size:
            return np.append(first, left[0]), np.append(second, n)
        first[0] = n
        return first, second
    r = next((i for i in range(rows) if not np.array_equal(X[i], D[i], equal_nan=True)), n - 1)
    if left.size and r != left[0]:
        first[first == r], second[second == r] = left[0], left[0]
    elif not left.size:
        keep = (first != r) & (second != r)
        first, second = first[keep], second[keep]
    return first - (first > r), second - (second > r)


def _halves(X, pairs):
    first, second = pairs
    with np.errstate(over="ignore", invalid="ignore"):
        return np.sum((X[first] - X[second]) ** 2, axis=1) / 2


def _trace_pairs(c) -> tuple[int, int]:
    """(pairs of the smaller data set's bound, pairs of the larger's) as a call would use them."""
    return pair_rows(0, _rows(c))


_register(AuditedRelease(
    "add/remove: trace clipped mean of ||x_a - x_b||^2/2 (coupled pairs)",
    claim="1/floor(max(m, 4)/2) (+ rounding)",
    statistic=lambda X, c: np.atleast_1d(clipped_paired_statistic(
        _halves(X, coupled_pairs(X, c)), c["clip"])),
    sensitivity=lambda m, p, c: paired_mean_sensitivity(
        *pair_rows(0, RowBounds(float(m + 1), m + 1))),
    mechanism=lambda X, c, rng: np.atleast_1d(dp_clipped_paired_mean(
        _halves(X, coupled_pairs(X, c)), c["clip"], GaussianGroup(EPS, DELTA).share(1.0), rng,
        pairs=_trace_pairs(c))[0] / c["clip"]),
    eps=EPS, delta=DELTA, p=3, context=_pairs_context))

_register(AuditedRelease(
    "add/remove: scree clip-choice log2 histograms (coupled pairs)", claim="sqrt(2k)",
    statistic=lambda X, c: histogram_counts(paired_squares(X, coupled_pairs(X, c)),
                                            clip_edges(c["scale"])),
    sensitivity=lambda m, p, c: math.sqrt(2 * p),
    mechanism=lambda X, c, rng: dp_histogram_counts(
        paired_squares(X, coupled_pairs(X, c)), clip_edges(c["scale"]),
        GaussianGroup(EPS, DELTA).share(1.0), rng)[0].ravel(),
    eps=EPS, delta=DELTA, p=2, context=_pairs_context))


# ----------------------------------------------------------------------------- dp_score

def _score_context(D, rng):
    """The public values of a dp_score call on the pair, from the base data set only: a released
    count near its rows (the searches' target q n_hat), the medians' domain, a grid of the
    first two columns and a bound n_hi on the rows (partition selection's sampler slack)."""
    plane = D[:, [0, min(1, D.shape[1] - 1)]]  # the first two columns (one twice when p = 1)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = float(np.max(np.abs(D[:, 0])))
        centre = np.median(plane, axis=0)
        half = float(np.max(np.abs(plane - centre))) * rng.uniform(0.3, 1.2)
    bound = min(max(scale if np.isfinite(scale) else 1.0, 2.0 ** -64), 2.0 ** 64)
    if not (np.all(np.isfinite(centre)) and np.isfinite(half) and half > 0):
        centre, half = np.zeros(2), 1.0
    half = max(half, 1e-9 * max(1.0, *np.abs(centre)))
    grid = Grid.over((centre[0] - half, centre[0] + half), (centre[1] - half, centre[1] + half),
                     (4, 4))
    return {"noisy": D.shape[0] + float(rng.normal(0.0, 2.0)), "domain": (-2 * bound, 2 * bound),
            "grid": grid, "upper": D.shape[0] + 20, "seed": int(rng.integers(2 ** 31))}


def _threshold_counts(values) -> np.ndarray:
    """#{v_i <= t} for every candidate t of the frame's searches (their queries)."""
    values = np.sort(np.nan_to_num(np.asarray(values, float).ravel(), nan=np.inf))
    return np.searchsorted(values, UNBOUNDED_GRID, side="right")


def _median_ranks(X, c) -> np.ndarray:
    """The rank #{x_i <= t} of 257 public points t of the medians' domain (the utility's data)."""
    xs = np.sort(np.clip(X[:, 0], *c["domain"]))
    return np.searchsorted(xs, np.linspace(*c["domain"], 257), side="right")


def _score_count(c) -> PrivateCount:
    """The released count a dp_score call would hold on the pair (its sd 2, failure 1e-6)."""
    return count_bounds(c["noisy"], 2.0, 1e-6)


def _frame_release(X, c, rng):
    """The whole private_frame release at the released count: centre and half-widths."""
    with np.errstate(over="ignore", invalid="ignore"):
        scores = X[:, :2] @ (np.array([[1.0, 1.0], [1.0, -1.0]]) / math.sqrt(2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small-n warning reads n_lo + 1 and eps only
        frame = private_frame(scores, EPS, DELTA, rng, count=_score_count(c))
    return np.array([*frame.centre, frame.half_width, frame.half_height])


def _frame_runs(X, c):
    """1.0 when the frame at the released count runs (a refusal on one neighbour: ratio inf)."""
    _frame_release(X, c, np.random.default_rng(c["seed"]))
    return np.ones(1)


def _labels(X):
    """Group labels of the audit data: the third column's sign and size, levels A, B, C."""
    return np.where(X[:, 2] > 1, "C", np.where(X[:, 2] > 0, "B", "A"))


def _grouped_counts(X, c):
    groups = declared_groups(label_series(_labels(X), X.shape[0]), levels=["A", "B", "C"])
    return bin_counts(X[:, :2], c["grid"], groups.codes, len(groups.names))


def _grouped_histograms(X, c, rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty-group warnings: read off the releases
        releases = private_histograms(_grouped_counts(X, c), ("add", "sparse"), EPS, DELTA, rng)
    return np.concatenate([r.prob.ravel() for r in releases.values()])


def _label_counts(X, c):
    return np.array([np.sum(_labels(X) == level) for level in "ABC"], dtype=float)


def _selected_labels(X, c, rng):
    """Which of A, B, C partition selection releases, with the public bound n_hi as dp_score
    passes it under add/remove."""
    counts = _label_counts(X, c)
    mask, present = np.zeros(3), counts > 0
    mask[present] = select_partitions(counts[present].astype(np.int64), EPS, DELTA, rng,
                                      dimension=c["upper"])
    return mask


_register(AuditedRelease(
    "add/remove: score frame searches (AboveThreshold at q n_hat)", claim="1 per count (Linf)",
    statistic=lambda X, c: _threshold_counts(np.abs(X[:, 0])),
    sensitivity=lambda m, p, c: 1.0, norm="Linf",
    mechanism=lambda X, c, rng: np.atleast_1d(unbounded_quantile(
        np.abs(X[:, 0]), 0.9, EPS, rng, count=c["noisy"])),
    eps=EPS, delta=0.0, p=1, context=_score_context))

_register(AuditedRelease(
    "add/remove: score frame medians (exponential, rank utility at q n_hat)",
    claim="1 per rank (Linf)", statistic=_median_ranks, sensitivity=lambda m, p, c: 1.0,
    norm="Linf", mechanism=lambda X, c, rng: np.atleast_1d(private_quantile(
        X[:, 0], 0.5, EPS, rng, *c["domain"], count=c["noisy"])),
    eps=EPS, delta=0.0, p=1, context=_score_context))

_register(AuditedRelease(
    # The statistic is 1 when the frame runs; the mechanism is the frame's whole release (bound,
    # two medians, two radii at the count's bounds) at eps.
    "add/remove: score private_frame at a released count", claim="no refusal (Linf 1)",
    statistic=_frame_runs, sensitivity=lambda m, p, c: 1.0, norm="Linf",
    mechanism=_frame_release, eps=EPS, delta=DELTA, p=2, context=_score_context))

_register(AuditedRelease(
    # One row added or removed moves one (group, bin) cell by 1: L1 1, within the histograms'
    # replace-one bounds (sqrt(2) in L2 for "add", 2 in L1 for "sparse"); the claim audited is
    # the add/remove one, L1 1.
    "add/remove: score histograms, grouped (one cell by 1)", claim="1 (L1)",
    statistic=_grouped_counts, sensitivity=lambda m, p, c: 1.0, norm="L1",
    mechanism=_grouped_histograms, eps=EPS, delta=DELTA, p=3, context=_score_context))

_register(AuditedRelease(
    "add/remove: score partition selection (one label by 1)", claim="1 (L1)",
    statistic=_label_counts, sensitivity=lambda m, p, c: 1.0, norm="L1",
    mechanism=_selected_labels, eps=EPS, delta=DELTA, p=3, context=_score_context))


class _AddRemoveSearch(PairSearch):
    """The neighbour search's bookkeeping, with the claim at the smaller data set's rows m
    (also handed to the mechanisms as ``ctx["m"]``)."""

    def bound(self, D, Dp, ctx) -> float:
        return self.release.sensitivity(min(D.shape[0], Dp.shape[0]), D.shape[1], ctx)

    def pair_context(self, D, Dp, ctx) -> dict:
        return {**ctx, "m": min(D.shape[0], Dp.shape[0])}


def add_remove_search(release: AuditedRelease, *, seed=0, sizes=SIZES, rows_per_dataset=2,
                      random_rows=6, greedy_steps=40) -> SearchResult:
    """Largest observed ||f(D) - f(D')|| / claimed sensitivity over add/remove neighbours.

    Parameters
    ----------
    release : AuditedRelease
        Its ``sensitivity(m, p, ctx)`` is the claim for a pair whose smaller data set has m rows.
    seed : int
        Seed of every random choice.
    sizes : sequence of int
        Rows of the base data sets (>= 3, so that a removal leaves a pair).
    rows_per_dataset : int
        Rows removed from each base data set (the first and random others); as many positions'
        candidate rows (:func:`dppca.audit.neighbours.replacement_rows`) are added.
    random_rows : int
        Random candidate rows per position (besides the structured ones).
    greedy_steps : int
        Hill-climbing steps on the added row of the worst addition found.

    Returns
    -------
    SearchResult
        ``ratio`` <= 1 + 1e-9: no violation found; ``ctx["m"]`` the smaller data set's rows.

    Examples
    --------
    >>> result = add_remove_search(ADD_REMOVE_REGISTRY["add/remove: row count"], sizes=(5,),
    ...                            greedy_steps=2)
    >>> result.ratio
    1.0
    """
    return run_search(_AddRemoveSearch(release), _added_or_removed, _greedy, seed=seed,
                      sizes=sizes, rows_per_dataset=rows_per_dataset, random_rows=random_rows,
                      greedy_steps=greedy_steps)


def _added_or_removed(D, r, rng, random_rows):
    """D without row r, then D plus each candidate row for position r: (D', label)."""
    yield np.delete(D, r, axis=0), f"row {r} removed"
    for z in replacement_rows(D, r, rng, random_rows):
        yield np.vstack([D, z]), "a row added"


def _greedy(search: _AddRemoveSearch, rng, steps) -> None:
    """Move the added row of the worst addition (a removal's worst pair is kept as found)."""
    best = search.best
    if best.D is None or not np.isfinite(best.ratio) or best.D_prime.shape[0] <= best.D.shape[0]:
        return
    D, ctx = best.D, {k: v for k, v in best.ctx.items() if k != "m"}
    base = statistic_or_none(search.release, D, ctx)
    current, score = best.D_prime[-1].copy(), best.ratio
    for _ in range(steps):
        z = current.copy()
        j = rng.integers(z.size)
        z[j] = z[j] * 10.0 ** rng.normal(0, 1) if rng.integers(2) else D[rng.integers(len(D)), j]
        if np.all(np.isfinite(z)):
            ratio = search.evaluate(D, ctx, base, np.vstack([D, z]), best.where + ", greedy")
            if ratio >= score:
                current, score = z, ratio


#: Add/remove releases linear in their Gaussian noise and drawn by the exact samplers: the
#: half-noise canary (:func:`dppca.audit.canary.scaled_noise`) must be rejected on each
#: (:func:`dppca.audit.canary.gaussian_shift_audit`, its level split over these families).
ADD_REMOVE_CANARY_FAMILIES = ("add/remove: row count",
                              "add/remove: g-DPPCA Kendall's tau matrix (spherical sign)",
                              "add/remove: rank elementwise Kendall's tau (j <= k)")
