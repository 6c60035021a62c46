"""A private centre (mean vector) of rows with no public range: radius search, then clipped means.

Each of the ``len(MEAN_SHARES)`` steps releases a radius R_t = ``RADIUS_MULTIPLIER`` x the private
``RADIUS_QUANTILE``-quantile of the distances ||x_i - c_{t-1}|| (the sparse-vector search of
:func:`dppca.privacy.quantiles.unbounded_quantile`, pure DP, no range needed) and then
c_t = c_{t-1} + (mean of the rows x_i - c_{t-1} clipped to norm R_t) + Gaussian noise, starting
from c_0 = 0. Each step recentres at the scale of the spread seen from the previous centre, so
the error contracts (Biswas, Dong, Kamath and Ullman 2020, CoinPress); when the budget is too
small for the searches, a search usually stops low, the clipped means shrink towards the previous
centre, and the error is of the order of the data's distance from 0; a search that overshoots
is rare (the chance of stopping k grid points above the data is about 1/k at such budgets:
500 seeds at n eps = 25 gave one error of 2.4e4 for data at 10), which is why
:class:`dppca.DPPCA` releases no centre below ``MIN_N_EPS``.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._validation import DPPCAValueError, delta_arg, eps_arg
from ..privacy import Ledger, split_budget
from ..privacy.composition import GaussianGroup
from ..privacy.quantiles import unbounded_quantile
from ..stats.pair_statistics import UNIT_ROUNDOFF, clean_scores, mean_inflation
from ..stats.signs import clip_rows, row_norms

__all__ = ["centre_accuracy", "clipped_mean_sensitivity", "clipped_row_mean", "dp_centre"]

#: Level of the private distance quantile and the radius multiplier. A high level makes the
#: search succeed at smaller n eps (it must count past q n before its noise stops it early); a
#: low one makes it overshoot less often (the chance of stopping k grid points above the data is
#: about exp(-eps_r (1 - q) n / 2) / k). 0.75 balances the two (data of
#: ``benchmarks/bench_centre.py``, n = 2000, n eps = 200: largest error 9 over 300 seeds with
#: 0.75, 6e3 over 500 with 0.9); 1.5 x the 0.75-quantile clips few rows (small clipping bias).
RADIUS_QUANTILE, RADIUS_MULTIPLIER = 0.75, 1.5
#: Share of eps spent (pure DP) on the radius searches, split equally over the steps; the rest of
#: eps and all of delta form one Gaussian-DP group.
RADIUS_SHARE = 0.3
#: Shares of the Gaussian group's mu^2, one per (radius, clipped mean) step (the last step sets
#: the final error).
MEAN_SHARES = (0.25, 0.75)
#: Below this n x eps the radius searches usually stop early and the centre shrinks towards 0
#: (each search needs q n eps_r / 2 above about ln(#grid points below the data) + 3 = 11.4,
#: eps_r = 0.15 eps, q = 0.75: n eps >= 203): :func:`dp_centre` warns (public facts, no
#: privacy cost).
MIN_N_EPS = 200.0


def dp_centre(X, eps, delta, rng, *, calibration="analytic", ledger: Ledger | None = None,
              step="centre") -> np.ndarray:
    """(eps, delta)-DP centre (mean vector) of the rows of ``X``, with no public range.

    Parameters
    ----------
    X : ndarray, shape (n, p)
        Finite rows; n >= 1 and p are public.
    eps : float
        Budget of the centre, > 0.
    delta : float
        Budget of the centre, in (0, 1).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
        Gaussian calibration of the mean releases' group (:class:`GaussianGroup`).
    ledger : Ledger, optional
        Records the 2 x ``len(MEAN_SHARES)`` = 4 releases.
    step : str
        Prefix of the ledger labels.

    Returns
    -------
    ndarray, shape (p,)
        The private centre, in the units of ``X``. Its error per coordinate is about the last
        step's noise sd, 2 R / (n mu_2) (R the radius, mu_2 its Gaussian-DP parameter, both on
        the ledger), when n eps is large enough for the radius searches (n eps >= ~200 with the
        defaults); below that it usually shrinks towards 0 (error of the order of ||mean||)
        and rarely overshoots (module docstring).

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        eps <= 0, delta outside (0, 1), or ``X`` not a 2-D array with at least one row.

    Warns
    -----
    UserWarning
        When n x eps < ``MIN_N_EPS`` (public facts only).

    See Also
    --------
    clipped_row_mean, dppca.privacy.quantiles.unbounded_quantile

    Notes
    -----
    Privacy (replace-one neighbours, n public). Step t releases (a) the radius search on the
    distances d_i = ||x_i - c_{t-1}|| (one value per row, so one replaced row changes one
    distance: eps_r-DP, proof in :func:`dppca.privacy.quantiles.unbounded_quantile`) and (b) the
    clipped mean (:func:`clipped_row_mean`, L2 sensitivity :func:`clipped_mean_sensitivity`
    with the released R_t) plus Gaussian noise. Both depend on the data only through rows
    transformed one at a time by the earlier releases (adaptive composition). The radius
    searches take ``RADIUS_SHARE`` eps (basic composition, pure); the mean releases form one
    Gaussian-DP group on ((1 - RADIUS_SHARE) eps, delta) with ``MEAN_SHARES`` of its mu^2
    (:class:`dppca.privacy.composition.GaussianGroup`). Total: (eps, delta)-DP. Distances
    that overflow are set to DBL_MAX (row-local), so no step refuses on private data.

    References
    ----------
    Biswas, S., Dong, Y., Kamath, G. and Ullman, J. (2020). CoinPress: practical private mean
    and covariance estimation. NeurIPS 2020 (iterated clipped means).
    Durfee, D. (2023). Unbounded differentially private quantile and maximum estimation.
    NeurIPS 2023 (the radius search).

    Examples
    --------
    >>> import warnings

import numpy as np
    >>> X = np.random.default_rng(0).normal(loc=10.0, size=(5000, 3))
    >>> c = dp_centre(X, 1.0, 1e-5, np.random.default_rng(1))
    >>> bool(np.all(np.abs(c - 10.0) < 0.1))
    True
    """
    eps, delta = eps_arg(eps), delta_arg(delta)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 1:
        raise DPPCAValueError(f"`X` must be a 2-D array with at least one row; got shape {X.shape}")
    if X.shape[0] * eps < MIN_N_EPS:
        warnings.warn(f"n x eps = {X.shape[0] * eps:.3g} is below {MIN_N_EPS:g}: the private centre "
                      "is unreliable at this budget (it shrinks towards 0); give it more budget "
                      "or declare a public centre", UserWarning, stacklevel=2)
    parts = split_budget(eps, delta, {"radius": RADIUS_SHARE, "means": 1 - RADIUS_SHARE})
    eps_radius = parts["radius"][0] / len(MEAN_SHARES)
    group = GaussianGroup(parts["means"][0], delta, calibration)
    centre = np.zeros(X.shape[1])
    for t, fraction in enumerate(MEAN_SHARES, start=1):
        rows = _centred(X, centre)
        # distances capped at DBL_MAX (row-local: an overflow must not make the search refuse)
        distances = np.minimum(row_norms(rows), np.finfo(float).max)
        radius = RADIUS_MULTIPLIER * unbounded_quantile(
            distances, RADIUS_QUANTILE, eps_radius, rng, ledger=ledger,
            step=f"{step}: distance quantile {t} (radius)")
        sensitivity = clipped_mean_sensitivity(radius, *X.shape)
        noisy, _ = group.share(fraction).release(clipped_row_mean(rows, radius), sensitivity, rng,
                                                 ledger, f"{step}: clipped mean {t}")
        centre = centre + noisy
    return centre


def clipped_row_mean(rows, radius) -> np.ndarray:
    """Mean of the rows each scaled to Euclidean norm at most ``radius``; shape (p,).

    Pre-noise statistic of :func:`dp_centre` (L2 sensitivity :func:`clipped_mean_sensitivity`).
    Norms are computed on rows divided by a power of two near their largest entry, so they
    neither overflow nor underflow.

    Examples
    --------
    >>> clipped_row_mean(np.array([[3.0, 4.0], [0.0, 1.0]]), 2.0)
    array([0.6, 1.3])
    """
    rows = np.asarray(rows, dtype=float)
    return clip_rows(rows, radius).sum(axis=0) / rows.shape[0]


def clipped_mean_sensitivity(radius, n, p) -> float:
    """L2 sensitivity of the computed :func:`clipped_row_mean`: (2 R / n) x rounding factors.

    Exactly, one replaced row moves the sum by at most 2R (two vectors of norm <= R), the mean
    by 2R/n. In floating point a clipped row's norm is at most R (1 + (p + 4) u) (u = 2^-53:
    the scaled norm's relative error is below (p/2 + 2) u and the scaling by a power of two is
    exact), and numpy's sum has error at most gamma_n sum_i |x_ij| per coordinate, hence at most
    gamma_n n R in L2 (Minkowski); the factor :func:`dppca.stats.pair_statistics.mean_inflation`
    covers that and the division by n (its derivation, with |x| <= 1 after dividing by R).

    Examples
    --------
    >>> bool(0.002 < clipped_mean_sensitivity(1.0, 1000, 3) < 0.002 * (1 + 1e-9))
    True
    """
    return 2.0 * radius / n * mean_inflation(n) * (1.0 + (p + 4) * UNIT_ROUNDOFF)


def _centred(X, centre) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return clean_scores(X - centre)


def centre_accuracy(n, p, eps, delta, *, share, calibration="analytic"):
    """Predicted error of :func:`dp_centre` on ``share`` of (eps, delta), from public numbers.

    The last clipped mean has noise sd 2 R / (n mu_2) per coordinate (sensitivity 2R/n), with
    R = 1.5 x the 0.75-quantile of the distances, about 1.5 x 1.1 sqrt(p) s for roughly Gaussian
    rows of per-coordinate spread s, and mu_2 the Gaussian-DP parameter of its share (0.75) of
    the means' group ((1 - ``RADIUS_SHARE``) of eps). So ||error|| / (sqrt(p) s), the error
    relative to the rows' RMS distance from their mean, is about 3.3 sqrt(p) / (n mu_2). Below
    n eps = ``MIN_N_EPS`` the radius searches usually stop early (the centre shrinks towards 0)
    and the step is unreliable whatever the formula says.

    Parameters
    ----------
    n, p : int
        Number of rows and of columns of the data, both public.
    eps, delta : float
        Budget of the whole fit (the centre gets ``share`` of it).
    share : float
        Share of (eps, delta) spent on the centre (basic composition, as in DPPCA).
    calibration : {"analytic", "classic"}

    Returns
    -------
    dppca.privacy.accuracy.StepAccuracy
        ||centre error|| / (sqrt(p) x spread), relative; unreliable above 0.5.

    Notes
    -----
    Public arithmetic only.

    Examples
    --------
    >>> from dppca.estimators.centre import centre_accuracy
    >>> centre_accuracy(5000, 3, 1.0, 1e-5, share=0.2).reliable
    True
    >>> centre_accuracy(150, 4, 1.0, 1e-5, share=0.2).reliable
    False
    """
    from ..privacy.accuracy import StepAccuracy

    eps_c, delta_c = float(eps) * share, float(delta) * share
    mu = GaussianGroup((1 - RADIUS_SHARE) * eps_c, delta_c, calibration).mu * np.sqrt(MEAN_SHARES[-1])
    predicted = 2 * RADIUS_MULTIPLIER * 1.1 * np.sqrt(p) / (int(n) * mu)
    if int(n) * eps_c < MIN_N_EPS:
        predicted = max(predicted, 1.0)  # the searches stop early: error ~ the distance from 0
    return StepAccuracy("centre", "||centre error|| / (sqrt(p) x per-coordinate spread)",
                        float(predicted), "relative", 0.5,
                        "roughly Gaussian rows; n x eps_centre >= MIN_N_EPS for the radius searches",
                        "more eps or center_share, or declare a public centre (center=...)")
