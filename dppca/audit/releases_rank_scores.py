"""Registry entries of the rank path's scores: the two normal-scores releases and the pipeline.

:func:`dppca.preprocessing.normal_scores.release_normal_score_map` releases two joint Gaussian
histograms, each at L2 sensitivity sqrt(2 p) (a replaced row moves one count per column out of
one bin and into another):

* "range": every column's counts in the public signed half-octave bins ``RANGE_EDGES``; values
  beyond +-2^64 (the search's 1e300 rows) fall in the end bins, 0 has its own edge.
* "quantiles": the counts of the warped values W_j(x_ij) in B equal bins of [0, 1]. The warps
  are public given the range release, so the entry draws them once from the *base* dataset
  (a range release there, the package's own post-processing) and holds them fixed for both
  neighbours, as the adaptive composition does.

The pipeline entry audits :func:`dppca.dp_score` with ``standardize="rank"`` as a whole. Its
Gaussian part is one Gaussian-DP group (range, quantiles, Kendall's tau shares of mu^2), so the
statistic is the three pre-noise statistics each divided by its own noise sd: the group is then
one Gaussian mechanism with unit noise, and its sensitivity is sqrt(sum_i Delta_i^2 / sigma_i^2)
= sqrt(sum_i f_i) mu = mu (f_i the shares of mu^2, which sum to 1), the claim checked here. The
score histograms (directions and map fixed) are the histogram entries' release; the mechanism
is the whole call, its output the released probabilities (post-processing of everything), so the
distinguishing test sees the whole budget (eps, delta). The entries with "ties" round the data to
a public grid first (a map of each row alone), so the search meets ties in every column, joint
ties and duplicated rows. The incomplete tau matrix over a public block design is audited with
the rank path's other tau releases (:mod:`dppca.audit.releases_rank`), as the public entry point
draws and releases it.
"""
from __future__ import annotations

import math

import numpy as np

from ..methods.latent_correlation import rank_tau_sensitivity
from ..preprocessing.normal_scores import RANGE_EDGES, located_warps, quantile_bins, warp
from ..privacy import split_budget
from ..privacy.composition import GaussianGroup
from ..privacy.histograms import dp_histogram_counts, histogram_counts
from ..score_rank import RANK_BUDGET_SHARES, RANK_GAUSSIAN_SHARES
from ..stats.elementwise_kendall import kendall_tau_matrix
from .registry import AuditedRelease, register
from .releases_rank import grid_context, rounded_to_grid, upper_triangle

EPS, DELTA = 1.0, 1e-5
#: Quantile levels of the audited map (public); the release's sensitivity does not depend on it.
LEVELS = 8
#: The Gaussian group of dp_score(standardize="rank", g_dppca=True) at (EPS, DELTA).
GROUP = GaussianGroup(*split_budget(EPS, DELTA, RANK_BUDGET_SHARES[True])["gaussian"])
SHARES = RANK_GAUSSIAN_SHARES[True]
#: Each histogram release audited alone at the whole (EPS, DELTA) (mu 0.268): the sensitivity
#: claim does not depend on the budget, and the half-noise canary needs that mu to be seen
#: (dppca/audit/canary.py; a share of the group, mu 0.08-0.10, would hide it at 2,000 runs).
ALONE = GaussianGroup(EPS, DELTA).share(1.0)


def _histogram_sensitivity(n, p, c) -> float:
    return math.sqrt(2.0 * p)


def _warp_context(D, rng) -> dict:
    """Public warps and bins of the quantile release: a range release on the base dataset."""
    n, p = D.shape
    noisy, sigma = dp_histogram_counts(np.nan_to_num(D), RANGE_EDGES, GROUP.share(SHARES["range"]), rng)
    levels = (np.arange(1, LEVELS + 1) - 0.5) / LEVELS
    warps, _ = located_warps(noisy, sigma, levels[0], levels[-1])
    bins = quantile_bins(n, LEVELS, GROUP.share(SHARES["quantiles"]).sigma(math.sqrt(2.0 * p)))
    return {"warps": warps, "grid": np.linspace(0.0, 1.0, bins + 1)}


def _warped(X, c) -> np.ndarray:
    return np.stack([warp(X[:, j], *c["warps"][j]) for j in range(X.shape[1])], axis=1)


register(AuditedRelease(
    "rank scores: normal-scores range histograms", claim="sqrt(2p) (L2)",
    statistic=lambda X, c: histogram_counts(X, RANGE_EDGES),
    sensitivity=_histogram_sensitivity,
    mechanism=lambda X, c, rng: dp_histogram_counts(X, RANGE_EDGES, ALONE, rng)[0],
    eps=EPS, delta=DELTA, p=3))

register(AuditedRelease(
    "rank scores: normal-scores quantile histograms (warps public)", claim="sqrt(2p) (L2)",
    statistic=lambda X, c: histogram_counts(_warped(X, c), c["grid"]),
    sensitivity=_histogram_sensitivity,
    mechanism=lambda X, c, rng: dp_histogram_counts(_warped(X, c), c["grid"], ALONE, rng)[0],
    eps=EPS, delta=DELTA, p=3, context=_warp_context))


def _group_statistic(X, c) -> np.ndarray:
    """Range counts, warped counts and the tau vector, each in units of its own noise sd."""
    n, p = X.shape
    hist = math.sqrt(2.0 * p)
    parts = (histogram_counts(X, RANGE_EDGES).ravel() / GROUP.share(SHARES["range"]).sigma(hist),
             histogram_counts(_warped(X, c), c["grid"]).ravel() / GROUP.share(SHARES["quantiles"]).sigma(hist),
             upper_triangle(kendall_tau_matrix(X)) / GROUP.share(SHARES["directions"]).sigma(rank_tau_sensitivity(n, p)))
    return np.concatenate(parts)


def _pipeline(X, c, rng) -> np.ndarray:
    """One dp_score(standardize="rank") call at (EPS, DELTA): its released probabilities."""
    from ..score import dp_score

    result = dp_score(X, EPS, DELTA, bins=4, standardize="rank", rng=rng)
    return np.concatenate([table["prob"].to_numpy(float)
                           for _, table in sorted(result.histograms.items())])


def _pipeline_context(D, rng) -> dict:
    return {**_warp_context(D, rng), **grid_context(D, rng)}


register(AuditedRelease(
    "rank scores: dp_score(standardize='rank') Gaussian group, in noise sd", claim="mu (L2)",
    statistic=_group_statistic, sensitivity=lambda n, p, c: GROUP.mu,
    mechanism=_pipeline, eps=EPS, delta=DELTA, p=3, context=_warp_context))

register(AuditedRelease(
    "rank scores: dp_score(standardize='rank') Gaussian group, rounded data with ties",
    claim="mu (L2)",
    statistic=lambda X, c: _group_statistic(rounded_to_grid(X, c), c), sensitivity=lambda n, p, c: GROUP.mu,
    mechanism=lambda X, c, rng: _pipeline(rounded_to_grid(X, c), c, rng), eps=EPS, delta=DELTA, p=3,
    context=_pipeline_context))


__all__ = []
