"""Directions under add/remove neighbours: the private row count, then the method at n_lo.

One idea: run a direction method whose add/remove sensitivity is proved (g-DPPCA, the rank
path) after releasing n privately (:mod:`dppca.privacy.neighbouring`), all in one Gaussian-DP
group with the count's failure probability charged to delta. The proofs of the add/remove
sensitivities are in the functions below; the methods compute them through
:class:`dppca.privacy.neighbouring.RowBounds` (the replace-one formula evaluated at n_lo + 1,
the rounding slack at n_hi).

The common step. Let f be the mean of a term t over the C(n, 2) pairs (or the n rows) of X, and
X+ = X plus one row x. Then (C(n+1, 2) = C(n, 2) + n)
f(X+) - f(X) = (sum_{j <= n} t(x, x_j) - n f(X)) / C(n+1, 2) = sum_j (t(x, x_j) - f(X)) / C(n+1, 2),
and f(X) lies in the convex hull of the terms, so ||t(x, x_j) - f(X)|| <= D_t, the largest
distance between two terms (the term's replace-one change). Hence
||f(X+) - f(X)|| <= n D_t / C(n+1, 2) = 2 D_t / (n + 1): the replace-one bound 2 D_t / n of the
U-statistic at n + 1 rows. For a mean of n rows, f(X+) - f(X) = (t(x) - f(X)) / (n + 1), of norm
<= D_t / (n + 1): again the replace-one bound D_t / n at n + 1. Removing a row is the same pair
read backwards, with n the smaller data set's rows. The bounds fall with n, so evaluating them
at n_lo + 1 <= m + 1 (m the smaller data set's rows, n_lo <= m on the good event) is valid.
"""
from __future__ import annotations

import math

from .._validation import DPPCAValueError
from ..privacy import GaussianGroup, Ledger
from ..privacy.neighbouring import (COUNT_DELTA_SHARE, COUNT_SHARE, LABELS, ADD_REMOVE,
                                    release_row_count)
from ..stats.pair_design import block_sum_slack
from .gdppca import GDPPCA_SENSITIVITY_CONSTANT, R_DPPCA_SENSITIVITY_CONSTANT
from .rank_sensitivity import UNIT_ROUNDOFF, rank_tau_sensitivity

__all__ = ["ADD_REMOVE_METHODS", "add_remove_fit", "check_add_remove_options",
           "kendall_add_remove_sensitivity", "rank_tau_add_remove_sensitivity",
           "share_add_remove_sensitivity"]

#: Direction methods whose add/remove sensitivity is proved (below).
ADD_REMOVE_METHODS = ("gdppca", "rank")


def kendall_add_remove_sensitivity(m: int, p: int, sign_bound: float = 1.0, noise="tight",
                                   slack_rows: int | None = None) -> float:
    """Frobenius sensitivity of g-DPPCA's K_g (complete design) under add/remove neighbours.

    Parameters
    ----------
    m : int
        Rows of the smaller data set of the pair (a public lower bound n_lo of it), >= 1.
    p : int
        Columns.
    sign_bound : float
        G = sup ||g(t)|| (1 for the spherical sign).
    noise : {"tight", "r_dppca"}
        The tight constant or the R package's 4.
    slack_rows : int, optional
        An upper bound on the larger data set's rows for the engine's rounding slack
        (default m + 1).

    Returns
    -------
    float
        2 sqrt(2) G^2 (1 + rho(slack_rows)) / (m + 1) (tight) or 4 G^2 / (m + 1) (r_dppca).

    Notes
    -----
    Proof. K_g is the mean over the C(n, 2) pairs of a a^T with a = g(x_i - x_j), ||a|| <= G.
    Two terms differ by ||a a^T - b b^T||_F = sqrt(||a||^4 + ||b||^4 - 2 (a^T b)^2)
    <= sqrt(2) G^2 (the replace-one step of :func:`dppca.methods.gdppca.gdppca_directions`), so
    by the module's common step adding a row moves K_g by at most
    2 sqrt(2) G^2 / (m + 1) (with the triangle bound 2 G^2 per term: 4 G^2 / (m + 1)).
    Floating point: each data set's computed K_g is within d e(n) G^2 of the exact one with
    e increasing in n (:func:`dppca.stats.kendall.rounding_slack`), so neighbours' computed
    matrices differ by at most the exact bound plus 2 d e(n_hi) G^2, a relative slack
    d e(n_hi) (m + 1) / sqrt(2) <= rho(n_hi) (m + 1 <= n_hi). The incomplete design is
    drawn for the private n and is not covered: add/remove calls use the complete statistic.

    Examples
    --------
    >>> round(kendall_add_remove_sensitivity(999, 5) * 1000, 3)  # 2 sqrt(2) / 1000, plus slack
    2.828
    """
    rows = m + 1 if slack_rows is None else slack_rows
    constant = R_DPPCA_SENSITIVITY_CONSTANT if noise == "r_dppca" else \
        GDPPCA_SENSITIVITY_CONSTANT * (1 + block_sum_slack(rows, None, p))
    return float(constant * sign_bound ** 2 / (m + 1))


def rank_tau_add_remove_sensitivity(m: int, p: int) -> float:
    """L2 sensitivity of the rank path's tau vector (T_jk, j <= k) under add/remove neighbours.

    Parameters
    ----------
    m : int
        Rows of the smaller data set (a public lower bound n_lo of it), >= 1.
    p : int
        Columns.

    Returns
    -------
    float
        2 p / (m + 1) plus the rounding slack 2 sqrt(p (p + 1) / 2) 2^-53:
        :func:`dppca.methods.rank_sensitivity.rank_tau_sensitivity` at m + 1 rows.

    Notes
    -----
    Proof. T is the mean over the C(n, 2) pairs of f(s), s the pair's sign vector; two terms
    differ by at most p in L2 (the vertex bound of :func:`rank_tau_sensitivity`), so by the
    module's common step adding a row moves T by at most 2 p / (m + 1). Floating point: each
    entry is one exact integer count divided once by the exact pair count (both data sets), so
    the slack 2 sqrt(p (p + 1) / 2) 2^-53 of the replace-one proof carries over unchanged.

    Examples
    --------
    >>> round(rank_tau_add_remove_sensitivity(999, 5), 12)
    0.01
    """
    return rank_tau_sensitivity(m + 1, p)


def share_add_remove_sensitivity(m: int, b: int) -> float:
    """L2 sensitivity of the rank path's b binary shares of ones under add/remove neighbours.

    Parameters
    ----------
    m : int
        Rows of the smaller data set (a public lower bound of it), >= 1.
    b : int
        Binary columns.

    Returns
    -------
    float
        sqrt(b) / (m + 1) + 2 sqrt(b) 2^-53.

    Notes
    -----
    Proof. Each share is a mean of m values in {0, 1}; adding a row x moves it by
    (x_j - share_j) / (m + 1), at most 1 / (m + 1) in absolute value (module's common step), so
    the vector moves by at most sqrt(b) / (m + 1). Each share is one exact count divided once
    (relative error <= 2^-53, |share| <= 1): the slack 2 sqrt(b) 2^-53 covers both data sets.

    Examples
    --------
    >>> round(share_add_remove_sensitivity(99, 4), 12)
    0.02
    """
    return math.sqrt(b) / (m + 1) + 2.0 * math.sqrt(b) * UNIT_ROUNDOFF


def check_add_remove_options(method: str, standardize: bool, scale_declared: bool,
                             options: dict) -> None:
    """Refuse, from the arguments alone, what add/remove neighbours do not cover yet.

    Parameters
    ----------
    method : str
        The resolved method.
    standardize : bool
        Whether columns are divided by scales.
    scale_declared : bool
        Whether every scale is declared public (private scales are not covered).
    options : dict
        The method's options; g-DPPCA's and the rank path's ``design`` "auto" becomes
        "complete" here (the incomplete design is drawn for the private n).

    Raises
    ------
    DPPCAValueError
        Another method, private column scales, or an incomplete design.

    Examples
    --------
    >>> options = {"design": "auto", "pairs_per_row": None}
    >>> check_add_remove_options("gdppca", False, False, options)
    >>> options["design"]
    'complete'
    """
    if method not in ADD_REMOVE_METHODS:
        raise DPPCAValueError(f"neighbouring='add_remove' is not supported by method {method!r} "
                              f"yet; it covers {list(ADD_REMOVE_METHODS)} (g-DPPCA and "
                              "standardize='rank')")
    if standardize and not scale_declared:
        raise DPPCAValueError("neighbouring='add_remove' is not supported by private column "
                              "scales yet; declare every scale public (scale=) or use "
                              "standardize='rank'")
    if method in ("gdppca", "rank"):
        if options.get("design") == "incomplete" or options.get("pairs_per_row") is not None:
            raise DPPCAValueError("neighbouring='add_remove' is not supported by the incomplete "
                                  "design yet (it is drawn for the private n); use design="
                                  "'complete' or 'auto'")
        options["design"] = "complete"


def add_remove_fit(fit_method, values, k, *, eps, delta, rng, calibration, ledger: Ledger,
                   options: dict, min_rows: int = 2):
    """Release n, then fit ``fit_method`` at the bounds; one Gaussian-DP group within (eps, delta).

    Parameters
    ----------
    fit_method : callable
        A registered direction method of :data:`ADD_REMOVE_METHODS` (it takes ``rows=``).
    values : ndarray, shape (n, p)
        The data, n private.
    k : int
        Directions.
    eps, delta : float
        The call's budget.
    rng : numpy.random.Generator
        Source of every noise draw.
    calibration : {"analytic", "classic"}
        Gaussian calibration of the group.
    ledger : Ledger
        The call's ledger: the count, the bounds' failure probability and the method's
        releases (re-recorded as shares of the group); its ``neighbouring`` becomes
        "add/remove (n private)".
    options : dict
        The method's options.
    min_rows : int
        The fewest rows the method needs (public; 2: a pair of rows). No row count is checked
        before the count release (n is private); right after it the call is refused unless the
        released lower bound n_lo is at least ``min_rows``
        (:func:`dppca.privacy.neighbouring.refuse_few_rows`).

    Returns
    -------
    fit : DirectionFit
        The method's fit.
    count : dppca.privacy.neighbouring.PrivateCount
        The released count and its bounds.

    Raises
    ------
    DPPCAValueError
        Right after the count, when it does not guarantee ``min_rows`` rows (a message of the
        released numbers only; with n < ``min_rows`` <= n_lo, the bounds' failure, the same
        message, an event within delta_n).

    Notes
    -----
    Privacy: the count (sensitivity 1, :data:`~dppca.privacy.neighbouring.COUNT_SHARE` of
    mu^2) and the method's releases (the rest of mu^2, sensitivities at n_lo proved above) are
    one Gaussian-DP group of (eps, delta - delta_n), mu-GDP (Dong, Roth & Su 2022); the bounds
    fail with probability delta_n = COUNT_DELTA_SHARE delta, so the call is (eps, delta)-DP
    under add/remove neighbours (:mod:`dppca.privacy.neighbouring`).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods import METHODS
    >>> x = np.random.default_rng(0).normal(size=(300, 3))
    >>> ledger = Ledger(1.0, 1e-5)
    >>> fit, count = add_remove_fit(METHODS["gdppca"], x, 1, eps=1.0, delta=1e-5,
    ...                             rng=np.random.default_rng(1), calibration="analytic",
    ...                             ledger=ledger, options={"design": "complete"})
    >>> count.lower < 300 < count.upper, len(ledger), ledger.neighbouring
    (True, 3, 'add/remove (n private)')
    """
    failure = COUNT_DELTA_SHARE * delta
    group = GaussianGroup(eps, delta - failure, calibration)
    ledger.neighbouring = LABELS[ADD_REMOVE]
    count = release_row_count(values.shape[0], group.share(COUNT_SHARE), rng, ledger, failure,
                              min_rows, "dp_pc_dir")
    eps_m, delta_m = group.standalone(1.0 - COUNT_SHARE)
    inner = Ledger(eps_m, delta_m)
    fit = fit_method(values, k, eps=eps_m, delta=delta_m, rng=rng, calibration=calibration,
                     ledger=inner, rows=count.rows, **options)
    group.absorb(inner.releases, ledger)
    fit.notes.append(f"Add/remove neighbours: n is private; No. Observations is the noisy count "
                     f"(sd {count.sigma:.3g}); sensitivities at its public lower bound "
                     f"n_lo = {count.lower} (failure probability {count.failure:.2g}, in delta).")
    return fit, count
