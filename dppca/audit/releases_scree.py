"""Registry entries of the scree releases: pair statistics, trace, tuning histograms and scans.

Each entry's ``statistic`` is the pre-noise value computed by the package's own function (the
hooks ``normalised_pair_statistic``, ``huber_score``, ``histogram_counts``, ``m2_counts``,
``log2_counts`` and ``clipped_paired_statistic`` of :mod:`dppca.estimators.pair_means`, with the
clip choice's edges ``clip_edges``), and its
``mechanism`` runs the real release with a whole Gaussian-DP group of (eps, delta).
Score columns are the data columns themselves (projection on public directions is row-local).
"""
from __future__ import annotations

import math

import numpy as np

from ..preprocessing import random_pairs
from ..privacy.quantiles import UNBOUNDED_GRID, unbounded_quantile
from ..estimators.pair_means import (clipped_paired_statistic, dp_clipped_mean, dp_clipped_paired_mean, dp_huber_mean,
                                     dp_winsorized_mean, huber_score, normalised_pair_statistic,
                                     pair_release_sensitivity)
from ..stats.pair_statistics import paired_squares
from ..privacy.quantiles import dp_histogram_quantiles, histogram_counts
from ..estimators.clip_choice import clip_edges, dp_clip_choice
from ..estimators.tuning import dp_log2_centre, dp_m2_histogram, log2_counts, m2_counts
from ..privacy.composition import GaussianGroup
from .registry import AuditedRelease, register

EPS, DELTA = 1.0, 1e-5


def _share():
    return GaussianGroup(EPS, DELTA).share(1.0)


def _pair_scale(D) -> np.ndarray:
    """Median pair value of each column of the base dataset (a positive finite public scale)."""
    with np.errstate(over="ignore", invalid="ignore"):
        i, j = np.triu_indices(D.shape[0], 1)
        u = (D[i] - D[j]) ** 2 / 2
        scale = np.median(u, axis=0)
    return np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)


def _clip_context(D, rng):
    return {"clip": _pair_scale(D) * 10.0 ** rng.uniform(-6, 1, size=D.shape[1])}


def _winsor_context(D, rng):
    scale = _pair_scale(D)
    lower = scale * 10.0 ** rng.uniform(-4, 0, size=D.shape[1])
    return {"lower": lower, "upper": lower * (1 + 10.0 ** rng.uniform(-2, 2, size=D.shape[1]))}


def _huber_context(D, rng):
    scale = _pair_scale(D)
    return {"mu": scale * rng.choice([-0.5, 0.0, 0.3, 1.0, 20.0], size=D.shape[1]),
            "tau": scale * 10.0 ** rng.uniform(-3, 1, size=D.shape[1])}


def _pairs_context(D, rng):
    return {"pairs": random_pairs(D.shape[0], rng), "scale": _pair_scale(D)}


def _halves(X, pairs):
    first, second = pairs
    with np.errstate(over="ignore", invalid="ignore"):
        return np.sum((X[first] - X[second]) ** 2, axis=1) / 2


register(AuditedRelease(
    "scree: clipped pair means", claim="2 sqrt(k)/n (1+nE)",
    statistic=lambda X, c: normalised_pair_statistic(X, 0.0, c["clip"]),
    sensitivity=lambda n, p, c: pair_release_sensitivity(n, np.zeros(p), c["clip"]),
    mechanism=lambda X, c, rng: dp_clipped_mean(X, c["clip"], _share(), rng).estimate / c["clip"],
    eps=EPS, delta=DELTA, context=_clip_context))

register(AuditedRelease(
    "scree: winsorized (pmwm) pair means", claim="2 sqrt(k')/n (1+nE)",
    statistic=lambda X, c: normalised_pair_statistic(X, c["lower"], c["upper"]),
    sensitivity=lambda n, p, c: pair_release_sensitivity(n, c["lower"], c["upper"]),
    mechanism=lambda X, c, rng: dp_winsorized_mean(X, c["lower"], c["upper"], _share(), rng).estimate
    / c["upper"], eps=EPS, delta=DELTA, context=_winsor_context))


def _huber_statistic(X, c):
    gradient, scale = huber_score(X, c["mu"], c["tau"])
    return gradient / scale


register(AuditedRelease(
    "scree: Huber score (one gradient step)", claim="2 sqrt(k)/n per step",
    statistic=_huber_statistic,
    sensitivity=lambda n, p, c: 2 * math.sqrt(p) / n,
    mechanism=lambda X, c, rng: dp_huber_mean(X, c["tau"], 1, c["mu"], 1.0, _share(), rng).estimate
    / c["tau"], eps=EPS, delta=DELTA, context=_huber_context))


def _with_design(context):
    """``context`` plus a block design of blocks of about n/3 rows (incomplete U-statistics)."""
    from ..stats.pair_design import block_design

    def build(D, rng):
        return {**context(D, rng), "design": block_design(D.shape[0], max(1, D.shape[0] // 3 - 1), rng)}
    return build


register(AuditedRelease(
    "scree: clipped pair means, incomplete (block design)", claim="2 sqrt(k)/n (blocks)",
    statistic=lambda X, c: normalised_pair_statistic(X, 0.0, c["clip"], c["design"]),
    sensitivity=lambda n, p, c: pair_release_sensitivity(n, np.zeros(p), c["clip"], c["design"]),
    mechanism=lambda X, c, rng: dp_clipped_mean(X, c["clip"], _share(), rng,
                                                design=c["design"]).estimate / c["clip"],
    eps=EPS, delta=DELTA, context=_with_design(_clip_context)))

register(AuditedRelease(
    "scree: winsorized (pmwm) pair means, incomplete (block design)", claim="2 sqrt(k')/n (blocks)",
    statistic=lambda X, c: normalised_pair_statistic(X, c["lower"], c["upper"], c["design"]),
    sensitivity=lambda n, p, c: pair_release_sensitivity(n, c["lower"], c["upper"], c["design"]),
    mechanism=lambda X, c, rng: dp_winsorized_mean(X, c["lower"], c["upper"], _share(), rng,
                                                   design=c["design"]).estimate / c["upper"],
    eps=EPS, delta=DELTA, context=_with_design(_winsor_context)))


def _huber_design_statistic(X, c):
    gradient, scale = huber_score(X, c["mu"], c["tau"], c["design"])
    return gradient / scale


register(AuditedRelease(
    "scree: Huber score (one gradient step), incomplete (block design)",
    claim="2 sqrt(k)/n per step (blocks)", statistic=_huber_design_statistic,
    sensitivity=lambda n, p, c: 2 * math.sqrt(p) / n,
    mechanism=lambda X, c, rng: dp_huber_mean(X, c["tau"], 1, c["mu"], 1.0, _share(), rng,
                                              design=c["design"]).estimate / c["tau"],
    eps=EPS, delta=DELTA, context=_with_design(_huber_context)))


def _tuning_edges(c):
    return np.concatenate(([0.0], float(np.max(c["scale"])) * 2.0 ** np.arange(-16, 4)))


register(AuditedRelease(
    "scree tuning: pair-value histograms", claim="sqrt(2k)",
    statistic=lambda X, c: histogram_counts(paired_squares(X, c["pairs"]), _tuning_edges(c)),
    sensitivity=lambda n, p, c: math.sqrt(2 * p),
    mechanism=lambda X, c, rng: dp_histogram_quantiles(paired_squares(X, c["pairs"]), _tuning_edges(c),
                                                       [0.5, 0.9], _share(), rng),
    eps=EPS, delta=DELTA, context=_pairs_context))

def _clip_choice(X, c, rng):
    """The clip histogram's release, seen through its output: log2 of the chosen clips and the
    clipping-bias estimates and bounds over them (``tail_bias``, what the intervals read;
    post-processing of the noisy counts)."""
    choice = dp_clip_choice(paired_squares(X, c["pairs"]), float(np.max(c["scale"])), _share(),
                            1e-3, float(np.max(c["scale"])), rng)
    return np.concatenate((np.log2(choice.clip), choice.tail_estimate / choice.clip,
                           choice.tail_upper / choice.clip))


register(AuditedRelease(
    "scree tuning: clip-choice log2 histograms", claim="sqrt(2k)",
    statistic=lambda X, c: histogram_counts(paired_squares(X, c["pairs"]),
                                            clip_edges(float(np.max(c["scale"])))),
    sensitivity=lambda n, p, c: math.sqrt(2 * p), mechanism=_clip_choice,
    eps=EPS, delta=DELTA, context=_pairs_context))

register(AuditedRelease(
    "huber tuning: m2 histograms (R's)", claim="2k (L1)",
    statistic=lambda X, c: m2_counts(paired_squares(X, c["pairs"]), -20, 20, 2),
    sensitivity=lambda n, p, c: 2.0 * p, norm="L1",
    mechanism=lambda X, c, rng: dp_m2_histogram(paired_squares(X, c["pairs"]), -20, 20, 2, EPS, rng),
    eps=EPS, delta=0.0, context=_pairs_context))


def _trace_context(D, rng):
    ctx = _pairs_context(D, rng)
    with np.errstate(over="ignore", invalid="ignore"):
        typical = float(np.median(_halves(D, ctx["pairs"])))
    ctx["clip"] = (typical if np.isfinite(typical) and typical > 0 else 1.0) * 10.0 ** rng.uniform(-3, 1)
    return ctx


register(AuditedRelease(
    "trace: clipped mean of ||x_a - x_b||^2/2", claim="1/m (1+m(2g_m+4u))",
    statistic=lambda X, c: np.atleast_1d(clipped_paired_statistic(_halves(X, c["pairs"]), c["clip"])),
    sensitivity=lambda n, p, c: _paired_mean_sensitivity(n // 2),
    mechanism=lambda X, c, rng: np.atleast_1d(
        dp_clipped_paired_mean(_halves(X, c["pairs"]), c["clip"], _share(), rng)[0] / c["clip"]),
    eps=EPS, delta=DELTA, p=3, context=_trace_context))


def _paired_mean_sensitivity(m: int) -> float:
    """The sensitivity :func:`dppca.estimators.pair_means.dp_clipped_paired_mean` claims for m pairs."""
    from ..stats.pair_statistics import mean_inflation
    return mean_inflation(m) / m


register(AuditedRelease(
    "trace tuning: log2 histogram", claim="sqrt(2)",
    statistic=lambda X, c: log2_counts(_halves(X, c["pairs"])),
    sensitivity=lambda n, p, c: math.sqrt(2.0),
    mechanism=lambda X, c, rng: np.atleast_1d(dp_log2_centre(_halves(X, c["pairs"]), _share(), rng)),
    eps=EPS, delta=DELTA, p=3, context=_pairs_context))


def _threshold_counts(values, grid=UNBOUNDED_GRID) -> np.ndarray:
    """#{v_i <= t} for each candidate t: the statistic of the AboveThreshold quantile scans."""
    values = np.sort(np.nan_to_num(np.asarray(values, float).ravel(), nan=np.inf))
    return np.searchsorted(values, grid, side="right")


register(AuditedRelease(
    "quantile scans: unbounded quantile (pmwm scans, frame bound and radius)", claim="1 per count (Linf)",
    statistic=lambda X, c: _threshold_counts(np.abs(X[:, 0])),
    sensitivity=lambda n, p, c: 1.0, norm="Linf",
    mechanism=lambda X, c, rng: np.atleast_1d(unbounded_quantile(np.abs(X[:, 0]), 0.9, EPS, rng)),
    eps=EPS, delta=0.0, p=1))

__all__ = []
