"""Row preprocessing and noise scales shared by the peer DP-PCA methods.

The peer methods (Analyze Gauss, k-DP-PCA, k-DP-Ojas, Cai-Xia-Zha, DP-SGGD, the
noisy power method) work with second moments x x^T, which are not translation
invariant. They never use the sample mean: they work with paired differences
w_i = (x_a - x_b)/sqrt(2) of disjoint random pairs (a, b), which have mean 0 and
covariance Cov(x) (Kim & Jung 2025, Appendix C; Cai, Xia & Zha 2024 use the same
trick). The pairing is a random permutation drawn from ``rng``, independent of the
data, so replacing one row changes exactly one paired difference (or none, for the
unpaired row when n is odd).

Row-norm bounds C for clipping are either declared public by the caller
(``norm_bound=``) or released here with the exponential mechanism (on the ledger).
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import float_arg
from ..stats.pair_statistics import clean_scores
from ..stats.signs import clip_rows, row_norms, spherise
from ..preprocessing import random_pairs
from ..privacy import Ledger
from ..privacy.quantiles import private_quantile_grid

#: Default private bound: C = BOUND_MULTIPLIER x (private ``bound_quantile`` of the row norms).
#: With the median, C = 2 x median norm clips a few per cent of Gaussian rows (the norm of a
#: Gaussian vector rarely exceeds twice its median) and cuts heavy tails, as a bound should.
BOUND_MULTIPLIER = 2.0
#: Default quantile of the row norms behind the private bound. The median is the quantile the
#: exponential mechanism finds most reliably: the candidates beyond the data have utility
#: -m/2, the worst case for them (Smith 2011).
BOUND_QUANTILE = 0.5
#: Default share of eps spent on the private bound (pure eps-DP, no delta).
BOUND_SHARE = 0.2


def paired_differences(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Differences of disjoint random pairs of rows, scaled by 1/sqrt(2).

    Parameters
    ----------
    values : ndarray, shape (n, p), n >= 2
    rng : numpy.random.Generator
        Draws the pairing (a permutation independent of the data).

    Returns
    -------
    ndarray, shape (floor(n/2), p)
        w_i = (x_{pi(i)} - x_{pi(i+m)}) / sqrt(2), m = floor(n/2). For iid rows,
        E[w] = 0 and Cov(w) = Cov(x); for elliptical rows w is elliptical with the same
        dispersion. One replaced row changes at most one w_i.
    """
    first, second = random_pairs(values.shape[0], rng)
    with np.errstate(over="ignore"):  # silently: a warning would depend on one pair
        return finite_rows((values[first] - values[second]) / math.sqrt(2.0))


#: Row-local cleaning, nan -> 0 and +-inf -> +-DBL_MAX (a difference of two finite rows that
#: overflowed): each row is mapped on its own, so a replaced row still changes one row.
finite_rows = clean_scores


def resolve_norm_bound(rows, norm_bound, bound_quantile, bound_share, eps, delta, rng,
                       ledger: Ledger, method: str, multiplier: float = BOUND_MULTIPLIER,
                       decay: float = 0.0):
    """The clipping bound C and the budget left for the method.

    Parameters
    ----------
    rows : ndarray, shape (m, p)
        Paired differences whose norms are bounded.
    norm_bound : float or None
        A bound declared public by the caller (then nothing is spent).
    bound_quantile : float in (0, 1)
        Quantile of the row norms behind the private bound.
    bound_share : float in (0, 1)
        Share of ``eps`` spent on the private bound.
    eps, delta : float
        The method's budget.
    rng, ledger
    method : str
        Label for the ledger step.
    multiplier : float
        C = multiplier x the private quantile (default BOUND_MULTIPLIER).
    decay : float
        Public tie-breaking towards small candidates (see
        :func:`dppca.privacy.quantiles.private_quantile_grid`).

    Returns
    -------
    (C, eps_left, delta_left)

    Notes
    -----
    Private bound: C = BOUND_MULTIPLIER x q, q the ``bound_quantile`` of the m row norms
    released by the exponential mechanism on the geometric grid 2^-48..2^48 (ratio 2^(1/4)),
    utility -|#{||w_i|| <= c} - q m| (sensitivity 1 under replace-one: one row norm moves).
    Pure (bound_share eps, 0)-DP (Smith 2011; :func:`dppca.privacy.quantiles.private_quantile_grid`).
    It needs bound_share eps m of about 30 or more: below that the released quantile is often
    far from the data, and the method's output is then close to random.
    """
    if norm_bound is not None:
        return float_arg(norm_bound, "norm_bound", positive=True), eps, delta
    quantile = float_arg(bound_quantile, "bound_quantile", open_unit=True)
    share = float_arg(bound_share, "bound_share", open_unit=True)
    level = private_quantile_grid(row_norms(rows), quantile, share * eps, rng, ledger=ledger,
                                  step=f"{method}: row-norm quantile for the clipping bound",
                                  decay=decay)
    return multiplier * level, (1 - share) * eps, delta


def second_moment_sensitivity(bound: float, m: int) -> float:
    """Frobenius sensitivity sqrt(2) C^2 / m of (1/m) sum_i w_i w_i^T with ||w_i|| <= C.

    Replace-one changes one term: ||a a^T - b b^T||_F^2 = ||a||^4 + ||b||^4 - 2 (a.b)^2
    <= 2 C^4, with equality for orthogonal a, b of norm C.
    """
    return math.sqrt(2.0) * bound ** 2 / m

__all__ = ["clip_rows", "paired_differences", "resolve_norm_bound", "row_norms",
           "second_moment_sensitivity", "spherise"]
