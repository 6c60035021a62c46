"""Registry entries of the g-DPPCA, private scale, frame and histogram releases.

Statistics call the package's own functions where one computes the pre-noise value
(``kendall_tau_matrix``, ``bin_counts``, ``quantile_smooth_sensitivity``); where the value is
computed inline in a function others are rewriting (private scales, group codes), the entry
mirrors that line and says so. Mechanisms run the public or method-level function.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..estimators.histograms import Grid, additive_histogram, bin_counts, private_histograms, sparse_histogram
from ..estimators.centre import RADIUS_MULTIPLIER, clipped_mean_sensitivity, clipped_row_mean, dp_centre
from ..estimators.frame import private_frame
from ..methods.gdppca import GDPPCA_SENSITIVITY_CONSTANT, gdppca_directions
from ..preprocessing import Matrix, private_column_scales, random_pairs
from ..preprocessing.scale_releases import (clipped_moment, mean_of_clipped,
                                            moment_sensitivity, octave_counts)
from ..preprocessing.scales import SCALE_BLOCK_ROWS
from ..stats.fused_source import TWO_ROWS_MIN_D
from ..stats.kendall import kendall_tau_matrix
from ..stats.pair_design import BlockDesign, block_design, incomplete_kendall_tau_matrix
from ..stats.paired_differences import abs_differences, block_pairs
from ..privacy import Ledger
from ..privacy.smooth import (quantile_smooth_sensitivity, smooth_beta, smooth_noise_scale,
                              smooth_sensitivity_quantile)
from ..privacy.composition import GaussianGroup
from .registry import AuditedRelease, register

EPS, DELTA = 1.0, 1e-5


def _fit_matrix(fit) -> np.ndarray:
    """The released matrix V diag(lambda) V^T back from a DirectionFit with k = p."""
    return (fit.vectors * fit.eigenvalues) @ fit.vectors.T


def _seed(rng) -> dict:
    return {"seed": int(rng.integers(2 ** 31))}


def _pairs(X, c):
    return random_pairs(X.shape[0], np.random.default_rng(c["seed"]))


# ----------------------------------------------------------------------------- g-DPPCA

def _kendall_mechanism(X, c, rng):
    fit = gdppca_directions(X, X.shape[1], eps=EPS, delta=DELTA, rng=rng, calibration="analytic",
                            ledger=Ledger(EPS, DELTA))
    return _fit_matrix(fit)


def _kendall_fused_mechanism(X, c, rng):
    fit = gdppca_directions(X, X.shape[1], eps=EPS, delta=DELTA, rng=rng, calibration="analytic",
                            ledger=Ledger(EPS, DELTA), sign="winsorized", radius=1.0)
    return _fit_matrix(fit)


register(AuditedRelease(
    "g-DPPCA: Kendall's tau matrix (spherical sign)", claim="2 sqrt(2)/n (Frob.)",
    statistic=lambda X, c: kendall_tau_matrix(X, engine="blas"),
    sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT / n,
    mechanism=_kendall_mechanism, eps=EPS, delta=DELTA, p=3))

# The fused numba kernel (the default engine at small p: dppca.stats.fused_pairs.use_fused),
# with the winsorized sign so that both weight forms of the kernel are searched.
register(AuditedRelease(
    "g-DPPCA: Kendall's tau matrix, fused kernel (winsorized sign)", claim="2 sqrt(2) r^2/n, r = 1 (Frob.)",
    statistic=lambda X, c: kendall_tau_matrix(X, "winsorized", radius=1.0, engine="fused"),
    sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT / n,
    mechanism=_kendall_fused_mechanism, eps=EPS, delta=DELTA, p=3))

# The BLAS form's compiled weight pass (dppca.stats.blas_blocks: blocks, band skip, degrees of
# both ends) with the winsorized sign: the entry above searches it with the spherical sign.
register(AuditedRelease(
    "g-DPPCA: Kendall's tau matrix, BLAS blocks (winsorized sign)", claim="2 sqrt(2) r^2/n, r = 1 (Frob.)",
    statistic=lambda X, c: kendall_tau_matrix(X, "winsorized", radius=1.0, engine="blas"),
    sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT / n,
    mechanism=_kendall_fused_mechanism, eps=EPS, delta=DELTA, p=3))

# Its two-rows-per-pass loops (d >= TWO_ROWS_MIN_D; at p = 3 above one row per pass runs),
# with the spherical sign: rows i, i + 1 share each column's loads and the near-duplicate test.
register(AuditedRelease(
    "g-DPPCA: Kendall's tau matrix, fused two-row kernel (spherical sign)", claim="2 sqrt(2)/n (Frob.)",
    statistic=lambda X, c: kendall_tau_matrix(X, engine="fused"),
    sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT / n,
    mechanism=_kendall_mechanism, eps=EPS, delta=DELTA, p=TWO_ROWS_MIN_D))

# The incomplete design (dp_pc_dir's design="incomplete", "auto" at large n): blocks computed in
# batches by dppca.stats.block_kendall. Its privacy rests on each block's term being bitwise the
# engine's on that block alone, so the batches must hold several blocks: the audit's rows are
# joined by BATCH_PADDING public rows (the same for both neighbours: the neighbouring data sets
# differ in one of the audit's rows), which puts 5-6 blocks of 4-5 rows in a batch; the audit's
# own rows come first in the design's order, so the rows the search chooses share blocks.
BATCH_PADDING, BATCH_PAIRS_PER_ROW = 400, 3


def _padded(X) -> np.ndarray:
    pad = np.random.default_rng(0).normal(size=(BATCH_PADDING, X.shape[1]))
    return np.concatenate((np.asarray(X, float), pad))


def _batched_context(D, rng):
    """A public block design of the padded rows: the audit's rows (shuffled) before the padding."""
    n = D.shape[0]
    order = np.concatenate((rng.permutation(n), n + rng.permutation(BATCH_PADDING)))
    bounds = block_design(n + BATCH_PADDING, BATCH_PAIRS_PER_ROW, rng).bounds
    return {"design": BlockDesign(order, bounds)}


def _kendall_batched_mechanism(X, c, rng):
    fit = gdppca_directions(_padded(X), X.shape[1], eps=EPS, delta=DELTA, rng=rng,
                            calibration="analytic", ledger=Ledger(EPS, DELTA), design="incomplete",
                            pairs_per_row=BATCH_PAIRS_PER_ROW)
    return _fit_matrix(fit)


register(AuditedRelease(
    "g-DPPCA: Kendall's tau matrix, incomplete design, batched blocks (spherical sign)",
    claim="2 sqrt(2)/n (Frob.), n with the padding",
    statistic=lambda X, c: incomplete_kendall_tau_matrix(_padded(X), c["design"]),
    sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT / (n + BATCH_PADDING),
    mechanism=_kendall_batched_mechanism, eps=EPS, delta=DELTA, p=3, context=_batched_context))

# ----------------------------------------------------------------------------- private scales


def _absdiff(X, c):
    return abs_differences(X, *_pairs(X, c))


def _block_pairs(X, c):
    return block_pairs(X, SCALE_BLOCK_ROWS, np.random.default_rng(c["seed"]))


def _scale_context(D, rng):
    ctx = _seed(rng)
    with np.errstate(over="ignore", invalid="ignore"):
        typical = np.median(_absdiff(D, ctx), axis=0)
    typical = np.where(np.isfinite(typical) & (typical > 0), typical, 1.0)
    # clips the real code can pick: the pilot's 8x ladder around the SD of the differences
    # (2^-9 .. 2^9 of it) and the final 4x ladder above it
    ctx["clip"] = typical * 2.0 ** rng.integers(-9, 10, size=typical.size)
    return ctx


def _scale_mechanism(X, c, rng):
    mat = Matrix(np.asarray(X, float), [f"V{j + 1}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the floor's warning depends on the release only
        return private_column_scales(mat, EPS, DELTA, rng)


register(AuditedRelease(
    "scale: octave histograms of |paired differences|", claim="sqrt(2p)",
    statistic=lambda X, c: octave_counts(_absdiff(X, c)),
    sensitivity=lambda n, p, c: math.sqrt(2 * p),
    mechanism=_scale_mechanism, eps=EPS, delta=DELTA, p=2, context=_scale_context))

def _moment_mechanism(X, c, rng):
    """Releases 2-3 of private_column_scales (its own ``clipped_moment``) at the public clip."""
    noise = GaussianGroup(EPS, DELTA, "analytic").share(1.0)
    return clipped_moment(_block_pairs(X, c), c["clip"], noise, rng, None, "audit")["value"]


register(AuditedRelease(
    "scale: clipped second moments (pilot and ladder)", claim="sqrt(p) (2/n + 2^-41)",
    statistic=lambda X, c: mean_of_clipped(_block_pairs(X, c), c["clip"]),
    sensitivity=lambda n, p, c: moment_sensitivity(n, p),
    mechanism=_moment_mechanism, eps=EPS, delta=DELTA, p=2, context=_scale_context))

# ----------------------------------------------------------------------------- frame medians


def _median_context(D, rng):
    scale = float(np.max(np.abs(D[:, 0])))
    # the bound B of the real frame is a candidate of UNBOUNDED_GRID: within [2^-64, 2^64]
    bound = min(max(scale, 2.0 ** -64), 2.0 ** 64)
    beta = smooth_beta(EPS, DELTA)
    xs = np.sort(np.clip(D[:, 0], -2 * bound, 2 * bound))
    rank = max(1, math.ceil(0.5 * xs.size))
    return {"domain": (-2 * bound, 2 * bound), "beta": beta, "centre": float(xs[rank - 1]),
            "smooth": quantile_smooth_sensitivity(xs, rank, beta, -2 * bound, 2 * bound)}


def _median(X, c):
    xs = np.sort(np.clip(X[:, 0], *c["domain"]))
    return np.atleast_1d(xs[max(1, math.ceil(0.5 * xs.size)) - 1])


def _log_noise_scale(X, c):
    """ln t of the released median's discrete Laplace scale (the real, grid-rounded scale)."""
    xs = np.sort(np.clip(X[:, 0], *c["domain"]))
    rank = max(1, math.ceil(0.5 * xs.size))
    return np.atleast_1d(math.log(smooth_noise_scale(xs, rank, EPS, DELTA, *c["domain"])[1]))


def _median_release(X, c, rng):
    return np.atleast_1d(smooth_sensitivity_quantile(X[:, 0], 0.5, EPS, DELTA, rng, *c["domain"]))


register(AuditedRelease(
    "frame: median (local sensitivity <= smooth bound S(D))", claim="S(D) (smooth, Linf)",
    statistic=_median, sensitivity=lambda n, p, c: c["smooth"], norm="Linf",
    mechanism=_median_release, eps=EPS, delta=DELTA, p=1, context=_median_context))

register(AuditedRelease(
    "frame: median's smooth bound (|ln t(D) - ln t(D')| <= beta)", claim="beta on ln t (Linf)",
    statistic=_log_noise_scale, sensitivity=lambda n, p, c: c["beta"], norm="Linf",
    # the scale shows in the spread of the release: |release - public centre of D| (post-processing)
    mechanism=lambda X, c, rng: np.abs(_median_release(X, c, rng) - c["centre"]),
    eps=EPS, delta=DELTA, p=1, context=_median_context))


def _frame_runs(X, c):
    """1.0 when private_frame runs on the scores X @ (1, 1)/sqrt(2), X @ (1, -1)/sqrt(2); raises else."""
    rotation = np.array([[1.0, 1.0], [1.0, -1.0]]) / math.sqrt(2.0)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = X[:, :2] @ rotation
    private_frame(scores, EPS, DELTA, np.random.default_rng(c.get("seed", 0)))
    return np.ones(1)


def _frame_release(X, c, rng):
    """The whole private_frame release (centre and half-widths) on the same rotated scores."""
    rotation = np.array([[1.0, 1.0], [1.0, -1.0]]) / math.sqrt(2.0)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = X[:, :2] @ rotation
    frame = private_frame(scores, EPS, DELTA, rng)
    return np.array([*frame.centre, frame.xlim[1] - frame.xlim[0], frame.ylim[1] - frame.ylim[0]])


register(AuditedRelease(
    # The statistic is 1 when the frame runs (a refusal on one neighbour only is ratio inf);
    # the mechanism audits the frame's whole release (two medians, bound and two radii) at eps.
    "frame: private_frame refuses independently of the data", claim="no refusal (Linf 1)",
    statistic=_frame_runs, sensitivity=lambda n, p, c: 1.0, norm="Linf", p=2,
    mechanism=_frame_release, eps=EPS, delta=DELTA,
    context=lambda D, rng: {"seed": int(rng.integers(2 ** 31))}))

# ----------------------------------------------------------------------------- DPPCA centre


def _centre_context(D, rng):
    """A radius the real search can release: 1.25 x a candidate of UNBOUNDED_GRID (2^-64..2^64)."""
    with np.errstate(over="ignore", invalid="ignore"):
        typical = float(np.median(np.linalg.norm(D, axis=1))) * rng.uniform(0.3, 2.0)
    typical = typical if np.isfinite(typical) else 2.0 ** 64
    return {"radius": RADIUS_MULTIPLIER * min(max(typical, 2.0 ** -64), 2.0 ** 64)}


def _centre_release(X, c, rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small-n warning depends on n and eps only
        return dp_centre(X, EPS, DELTA, rng)


register(AuditedRelease(
    # The neighbour search checks the clipped mean at a released radius; the distinguishing test
    # runs the whole dp_centre (two radius searches and two clipped means) at (EPS, DELTA).
    "centre: clipped row mean (DPPCA mean_)", claim="2R/n (1 + rounding)",
    statistic=lambda X, c: clipped_row_mean(X, c["radius"]),
    sensitivity=lambda n, p, c: clipped_mean_sensitivity(c["radius"], n, p),
    mechanism=_centre_release, eps=EPS, delta=DELTA, p=3, context=_centre_context))

# ----------------------------------------------------------------------------- histograms


def _grid_context(D, rng):
    with np.errstate(over="ignore", invalid="ignore"):
        centre = np.median(D[:, :2], axis=0)
        half = float(np.max(np.abs(D[:, :2] - centre))) * rng.uniform(0.3, 1.2)
    if not (np.all(np.isfinite(centre)) and np.isfinite(half) and half > 0):
        centre, half = np.zeros(2), 1.0
    half = max(half, 1e-9 * max(1.0, *np.abs(centre)))
    grid = Grid.over((centre[0] - half, centre[0] + half), (centre[1] - half, centre[1] + half), (5, 5))
    return {"grid": grid, "seed": int(rng.integers(2 ** 31))}


register(AuditedRelease(
    "histograms: additive (Gaussian)", claim="sqrt(2)",
    statistic=lambda X, c: bin_counts(X[:, :2], c["grid"]),
    sensitivity=lambda n, p, c: math.sqrt(2.0),
    mechanism=lambda X, c, rng: additive_histogram(bin_counts(X[:, :2], c["grid"]), EPS, DELTA, rng).prob,
    eps=EPS, delta=DELTA, p=2, context=_grid_context))

register(AuditedRelease(
    "histograms: sparse (thresholded Laplace)", claim="2 (L1)",
    statistic=lambda X, c: bin_counts(X[:, :2], c["grid"]),
    sensitivity=lambda n, p, c: 2.0, norm="L1",
    mechanism=lambda X, c, rng: sparse_histogram(bin_counts(X[:, :2], c["grid"]), EPS, DELTA, rng).prob,
    eps=EPS, delta=DELTA, p=2, context=_grid_context))


def _labels(X):
    """Group labels of the audit data: the third column's sign and size, 3 groups."""
    return np.where(X[:, 2] > 1, "C", np.where(X[:, 2] > 0, "B", "A"))


#: The public label domain of the grouped audits (declared with ``levels=``).
_LEVELS = ["A", "B", "C"]


def _grouped_counts(X, c):
    from ..estimators.groups import declared_groups, label_series  # the label set as dp_score_group reads it
    groups = declared_groups(label_series(_labels(X), X.shape[0]), levels=_LEVELS)
    return bin_counts(X[:, :2], c["grid"], groups.codes, len(groups.names))


def _group_sizes(X, c):
    return _grouped_counts(X, c).sum(axis=1)


def _grouped_releases(X, c, rng):
    """dp_score_group's histogram step: both methods on the grouped counts, (EPS, DELTA) in all."""
    return private_histograms(_grouped_counts(X, c), ("add", "sparse"), EPS, DELTA, rng,
                              group_names=_LEVELS).values()


def _grouped_probabilities(X, c, rng):
    return np.concatenate([release.prob.ravel() for release in _grouped_releases(X, c, rng)])


def _grouped_totals(X, c, rng):
    return np.concatenate([release.totals for release in _grouped_releases(X, c, rng)])


register(AuditedRelease(
    "histograms: grouped (dp_score_group, levels=)", claim="sqrt(2)",
    statistic=_grouped_counts, sensitivity=lambda n, p, c: math.sqrt(2.0),
    mechanism=_grouped_probabilities,
    eps=EPS, delta=DELTA, p=3, context=_grid_context))

register(AuditedRelease(
    "histograms: group sizes (dp_score_group, levels=)", claim="sqrt(2)",
    statistic=_group_sizes, sensitivity=lambda n, p, c: math.sqrt(2.0),
    mechanism=_grouped_totals,
    eps=EPS, delta=DELTA, p=3, context=_grid_context))


def _label_counts(X, c):
    return np.array([np.sum(_labels(X) == level) for level in _LEVELS], dtype=float)


def _selected_labels(X, c, rng):
    """Which of A, B, C private partition selection releases (a 0/1 vector)."""
    from ..privacy.partition import select_partitions
    counts = _label_counts(X, c)
    mask, present = np.zeros(len(_LEVELS)), counts > 0
    mask[present] = select_partitions(counts[present].astype(np.int64), EPS, DELTA, rng,
                                      dimension=X.shape[0])  # n, as dp_score_group passes
    return mask


register(AuditedRelease(
    "groups: partition selection (labels present)", claim="2 partitions touched (L1 2)",
    statistic=_label_counts, sensitivity=lambda n, p, c: 2.0, norm="L1",
    mechanism=_selected_labels, eps=EPS, delta=DELTA, p=3))

__all__ = []
