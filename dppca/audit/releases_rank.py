"""Registry entries of the rank path: the elementwise Kendall's tau-a release.

The statistic is the vector (T_jk)_{j <= k} computed by the package's engine
(:func:`dppca.stats.elementwise_kendall.kendall_tau_matrix`) and the mechanism is the method's
own release (:func:`dppca.methods.latent_correlation.release_kendall_tau`), its noisy vector
(the directions are post-processing, which only weakens a distinguishing test). A second entry
rounds the data to a public grid first (a map of each row alone, so the claimed sensitivity is
unchanged) so that the search meets ties in every column, joint ties and duplicated rows.

The last two entries audit the block design as the public entry point
(:func:`dppca.dp_pc_dir` with ``standardize="rank"``) computes and releases it: its design
resolver, its statistic (:func:`dppca.methods.latent_correlation.rank_tau_statistic`) at the
sensitivity it releases with, and as mechanisms its release function and, on rounded data with
ties, the whole call (its directions, post-processing of the release). The release-level
entry is also a half-noise canary family (:data:`dppca.audit.canary.CANARY_FAMILIES`): the
Gaussian shift test must reject it with its noise halved and accept it as released.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..directions import dp_pc_dir
from ..methods.latent_correlation import (rank_tau_sensitivity, rank_tau_statistic,
                                          release_kendall_tau)
from ..methods.rank_sensitivity import rank_release_sensitivity
from ..stats.elementwise_kendall import kendall_tau_matrix
from ..stats.elementwise_kendall_blocks_design import resolve_rank_design
from .registry import AuditedRelease, register

EPS, DELTA = 1.0, 1e-5


def upper_triangle(matrix) -> np.ndarray:
    return matrix[np.triu_indices(matrix.shape[0])]


def _tau(X, c):
    return upper_triangle(kendall_tau_matrix(X))


def _tau_mechanism(X, c, rng):
    return upper_triangle(release_kendall_tau(X, EPS, DELTA, rng)[0])


def grid_context(D, rng) -> dict:
    """A public rounding step from the base dataset: a few levels per column (many ties)."""
    spread = float(np.nanmax(np.abs(D))) if np.all(np.isfinite(D)) else 1.0
    return {"step": (spread if spread > 0 else 1.0) * 10.0 ** rng.uniform(-1.5, 0)}


def rounded_to_grid(X, c):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.nan_to_num(np.round(X / c["step"]), nan=0.0)


register(AuditedRelease(
    "rank: elementwise Kendall's tau (j <= k)", claim="2 p/n (L2)",
    statistic=_tau, sensitivity=lambda n, p, c: rank_tau_sensitivity(n, p),
    mechanism=_tau_mechanism, eps=EPS, delta=DELTA, p=4))

register(AuditedRelease(
    "rank: elementwise Kendall's tau (j <= k), rounded data with ties", claim="2 p/n (L2)",
    statistic=lambda X, c: _tau(rounded_to_grid(X, c), c),
    sensitivity=lambda n, p, c: rank_tau_sensitivity(n, p),
    mechanism=lambda X, c, rng: _tau_mechanism(rounded_to_grid(X, c), c, rng), eps=EPS, delta=DELTA,
    p=4, context=grid_context))


def _binary(p) -> np.ndarray:
    return np.arange(p) % 2 == 0  # columns 0, 2, ... binary (level 1 above 0.5), the rest continuous


def _shares(X, c):
    from ..methods.latent_correlation import binary_proportions

    return binary_proportions(X, _binary(X.shape[1]))


def _mixed_mechanism(X, c, rng):
    """The whole mixed release (tau vector and shares, one Gaussian-DP group), as released."""
    from ..methods.latent_correlation import release_mixed

    released, _, _, thresholds = release_mixed(X, _binary(X.shape[1]), EPS, DELTA, rng,
                                                "analytic", None)
    return np.concatenate([upper_triangle(released), thresholds[_binary(X.shape[1])]])


register(AuditedRelease(
    "rank: binary columns' shares of ones", claim="sqrt(b)/n (L2)",
    statistic=_shares,
    sensitivity=lambda n, p, c: (math.sqrt(_binary(p).sum()) / n
                                 + 2.0 * math.sqrt(_binary(p).sum()) * 2.0 ** -53),
    mechanism=_mixed_mechanism, eps=EPS, delta=DELTA, p=4))


# ------------------------------------------------- the block design through the public entry point

#: Pairs per row of the audited block design: blocks of 4-5 rows at the search's sizes (n = 5,
#: 12, 50), so a replaced row meets blocks of both sizes (the sum's two weights 2 / (n (b - 1))).
BLOCK_PAIRS = 3
#: Calls per neighbour in the quick distinguishing test of the whole-call entry: each is a full
#: dp_pc_dir call (validation, repair, accuracy model), about 50 ms, so the default 300 would add
#: half a minute; the release-level entry above keeps the default.
WHOLE_CALL_RUNS = 100


def _entry_design(D, rng) -> dict:
    """The design exactly as dp_pc_dir(standardize="rank", design="incomplete") resolves it (from
    the public n, p and the random stream only), fixed for both neighbours."""
    n, p = D.shape
    return {"design": resolve_rank_design("incomplete", BLOCK_PAIRS, n, p, False, rng)}


def _entry_tau(X, c):
    return upper_triangle(rank_tau_statistic(X, c["design"])[0])


def _entry_release(X, c, rng):
    return upper_triangle(release_kendall_tau(X, EPS, DELTA, rng, design=c["design"])[0])


def _entry_call(X, c, rng):
    """One whole dp_pc_dir(standardize="rank") call with the block design (drawn inside from
    ``rng``, independently of the data): its released directions, flattened. The audited data
    are complete and ``missing=0.0`` declares a fill value (free, a no-op there), so the call's
    whole (EPS, DELTA) goes to the tau release whose sensitivity the entry claims (the default
    would first spend a tenth on private column medians)."""
    with warnings.catch_warnings():  # accuracy warnings at these sizes are expected
        warnings.simplefilter("ignore")
        result = dp_pc_dir(X, 2, standardize="rank", eps=EPS, delta=DELTA, design="incomplete",
                           pairs_per_row=BLOCK_PAIRS, rng=rng, missing=0.0)
    return result.directions.to_numpy().ravel()


register(AuditedRelease(
    "rank: dp_pc_dir(standardize='rank') Kendall's tau, block design", claim="2 p/n (L2)",
    statistic=_entry_tau, sensitivity=lambda n, p, c: rank_release_sensitivity(n, p, BLOCK_PAIRS),
    mechanism=_entry_release, eps=EPS, delta=DELTA, p=4, context=_entry_design))

register(AuditedRelease(
    "rank: dp_pc_dir(standardize='rank') Kendall's tau, block design, rounded data with ties",
    claim="2 p/n (L2)",
    statistic=lambda X, c: _entry_tau(rounded_to_grid(X, c), c),
    sensitivity=lambda n, p, c: rank_release_sensitivity(n, p, BLOCK_PAIRS),
    mechanism=lambda X, c, rng: _entry_call(rounded_to_grid(X, c), c, rng), eps=EPS, delta=DELTA,
    p=4, context=lambda D, rng: {**_entry_design(D, rng), **grid_context(D, rng)},
    fast_runs=WHOLE_CALL_RUNS))

__all__ = ["grid_context", "rounded_to_grid", "upper_triangle"]
