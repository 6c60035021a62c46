"""Registry entries of the missing-value policies: neighbours that differ by missing cells.

Every entry maps the audit's data through a public hole-punching step first: each value below a
public cut (drawn from the base dataset) becomes NaN. The map acts on each value alone, so a
replaced row stays one replaced row, and the neighbour search, moving one row's values across
the cut, makes neighbours that differ by missing cells as well as by values. Audited: the rank
path's pairwise-present tau and its present-row counts (:mod:`dppca.methods.pairwise_present`),
g-DPPCA's pairwise-present spatial-sign matrix (:mod:`dppca.stats.present_spatial_kendall`; all
pairs, and over a block design as dask input and large n compute it) and
the private column medians' histograms (:func:`dppca.preprocessing.missing.private_medians`: the
log grid of its first stage, and a refinement stage's linear grids, whose edges in the package
come from the earlier stages' releases and here from the base dataset, public to the audit).
"""
from __future__ import annotations

import math

import numpy as np

from ..methods.gdppca import GDPPCA_SENSITIVITY_CONSTANT, gdppca_directions
from ..methods.pairwise_present import present_count_sensitivity, release_present_tau
from ..methods.rank_sensitivity import rank_tau_sensitivity
from ..preprocessing.median_stages import holding_bins, refined_counts, refinement_edges
from ..preprocessing.missing import MEDIAN_EDGES, private_medians, sample_medians
from ..privacy import Ledger
from ..privacy.composition import GaussianGroup
from ..privacy.histograms import histogram_counts
from ..stats.pairwise_kendall import present_kendall_counts
from ..stats.pair_design import block_design, incomplete_kendall_tau_matrix
from ..stats.present_spatial_kendall import present_spatial_kendall, sum_block_present_kendall
from .registry import AuditedRelease, register

EPS, DELTA = 1.0, 1e-5

__all__ = ["holes_context", "punched"]


def holes_context(D, rng) -> dict:
    """A public cut from the base dataset: about a quarter of its cells fall below it."""
    finite = D[np.isfinite(D)]
    return {"cut": float(np.quantile(finite, rng.uniform(0.1, 0.4))) if finite.size else 0.0}


def punched(X, c) -> np.ndarray:
    """The data with every value below the public cut missing (NaN)."""
    x = np.asarray(X, dtype=float)
    return np.where(x < c["cut"], np.nan, x)


def _upper(matrix) -> np.ndarray:
    return matrix[np.triu_indices(matrix.shape[0])]


def _present_mechanism(X, c, rng):
    """The whole rank-path group (sign sums, counts), as released and debiased."""
    x = punched(X, c)
    released = release_present_tau(x, np.zeros(x.shape[1], bool), EPS, DELTA, rng, "analytic",
                                   None)[0]
    return _upper(released)


def _sign_sums(X, c):
    x = punched(X, c)
    n = x.shape[0]
    return _upper(present_kendall_counts(x)[0]) / (n * (n - 1) / 2.0)


register(AuditedRelease(
    "missing: rank path's pairwise-present Kendall's tau (j <= k)", claim="2 p/n (L2)",
    statistic=_sign_sums, sensitivity=lambda n, p, c: rank_tau_sensitivity(n, p),
    mechanism=_present_mechanism, eps=EPS, delta=DELTA, p=4, context=holes_context))

register(AuditedRelease(
    "missing: present-row counts M_jk (j <= k)", claim="sqrt(p (p + 1)/2) (L2)",
    statistic=lambda X, c: _upper(present_kendall_counts(punched(X, c))[1]).astype(float),
    sensitivity=lambda n, p, c: present_count_sensitivity(p),
    mechanism=_present_mechanism, eps=EPS, delta=DELTA, p=4, context=holes_context))


def _spatial_mechanism(X, c, rng):
    fit = gdppca_directions(punched(X, c), X.shape[1], eps=EPS, delta=DELTA, rng=rng,
                            calibration="analytic", ledger=Ledger(EPS, DELTA), missing="pairwise")
    return (fit.vectors * fit.eigenvalues) @ fit.vectors.T


register(AuditedRelease(
    "missing: g-DPPCA pairwise-present Kendall's tau matrix", claim="2 sqrt(2)/n (Frob.)",
    statistic=lambda X, c: present_spatial_kendall(punched(X, c)),
    sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT / n,
    mechanism=_spatial_mechanism, eps=EPS, delta=DELTA, p=3, context=holes_context))


#: Pairs per row of the block-design entry: blocks of 4 rows, so the audit's few rows make
#: several blocks and a replaced row moves one block's pairwise-present term.
BLOCK_PAIRS = 3


def _holes_and_blocks(D, rng) -> dict:
    """The public cut and a public block design for the audit's n rows (drawn from ``rng``)."""
    return {**holes_context(D, rng), "design": block_design(D.shape[0], BLOCK_PAIRS, rng)}


def _block_spatial_mechanism(X, c, rng):
    fit = gdppca_directions(punched(X, c), X.shape[1], eps=EPS, delta=DELTA, rng=rng,
                            calibration="analytic", ledger=Ledger(EPS, DELTA), missing="pairwise",
                            design="incomplete", pairs_per_row=BLOCK_PAIRS)
    return (fit.vectors * fit.eigenvalues) @ fit.vectors.T


register(AuditedRelease(
    "missing: g-DPPCA pairwise-present Kendall's tau matrix, block design",
    claim="2 sqrt(2)/n (Frob.)",
    statistic=lambda X, c: incomplete_kendall_tau_matrix(punched(X, c), c["design"],
                                                         block_sum=sum_block_present_kendall),
    sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT / n,
    mechanism=_block_spatial_mechanism, eps=EPS, delta=DELTA, p=3, context=_holes_and_blocks))


def _median_counts(X, c):
    x = punched(X, c)
    return np.concatenate([histogram_counts(column[~np.isnan(column)], MEDIAN_EDGES)[0]
                           for column in x.T]).astype(float)


register(AuditedRelease(
    "missing: private column medians (histogram counts)", claim="sqrt(2 p) (L2)",
    statistic=_median_counts, sensitivity=lambda n, p, c: math.sqrt(2.0 * p),
    mechanism=lambda X, c, rng: private_medians(punched(X, c), GaussianGroup(EPS, DELTA).share(1.0),
                                                rng),
    eps=EPS, delta=DELTA, p=3, context=holes_context))


def _refinement_context(D, rng) -> dict:
    """The public cut, and each column's refined grid inside the log-grid bin that holds the
    base dataset's median of its observed cells (in the package: the bin of stage 1's release)."""
    c = holes_context(D, rng)
    low, high = holding_bins(MEDIAN_EDGES, sample_medians(punched(D, c)))
    return {**c, "edges": refinement_edges(low, high)}


def _refined(X, c):
    return refined_counts(punched(X, c), c["edges"]).ravel().astype(float)


def _refinement_mechanism(X, c, rng):
    """One refinement stage's Gaussian release on its public grids, at the registry's budget."""
    return GaussianGroup(EPS, DELTA).share(1.0).release(
        _refined(X, c), math.sqrt(2.0 * X.shape[1]), rng, None, "median refinement")[0]


register(AuditedRelease(
    "missing: private column medians, refinement stage (linear grid counts)",
    claim="sqrt(2 p) (L2)", statistic=_refined, sensitivity=lambda n, p, c: math.sqrt(2.0 * p),
    mechanism=_refinement_mechanism, eps=EPS, delta=DELTA, p=3, context=_refinement_context))
