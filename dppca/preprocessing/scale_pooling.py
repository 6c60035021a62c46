"""Empirical-Bayes pooling of the private column scales' log readings (post-processing).

:func:`dppca.preprocessing.scales.private_column_scales` reads each column's scale from its own
releases; :func:`pooled_log_scales` then lets columns whose readings are alike within their noise
borrow strength from each other (Efron and Morris 1973's positive-part James-Stein estimator with
a robust estimate of the spread, and a contamination half that leaves an outlying column alone).
"""
from __future__ import annotations

import numpy as np

#: Floor of tau, the spread of the columns' true log-scales around their common value (octaves):
#: columns whose scales differ by less than ~2% are pooled as if alike (a 2% scale error moves no
#: PCA that matters); above it, tau is estimated from the readings. A floor of a quarter octave
#: (19%) would leave columns of equal SD read with ~5% noise ~92% of that noise: a floor far
#: above the noise pools nothing.
POOL_TAU_FLOOR_OCTAVES = 1 / 32
#: Fewest columns from which a spread is estimated (with fewer, nothing is pooled).
POOL_MIN_COLUMNS = 4


def pooled_log_scales(centre, spread, eligible, weak_sd) -> tuple[np.ndarray, np.ndarray]:
    """Positive-part James-Stein pooling of column log-scales, robust to outlying columns.

    Model (empirical Bayes): each eligible column's reading u_j of its log-scale theta_j has a
    known standard error s_j (from public numbers and released values: the posterior of the
    releases), u_j ~ N(theta_j, s_j^2), and a priori theta_j ~ 1/2 N(mu, tau^2) + 1/2 N(0, W^2):
    either near the columns' common scale, or anywhere (the weak public prior, sd W). mu is the
    median of the readings and tau^2 = max((1.4826 MAD)^2 - median s_j^2, floor^2) (the readings'
    robust variance less the noise's, at least ``POOL_TAU_FLOOR_OCTAVES``). The result is each
    column's posterior mean: a mixture of mu + tau^2 / (tau^2 + s_j^2) (u_j - mu) and u_j,
    weighted by how well each half predicts u_j. Columns whose scales span many octaves (raw
    units of different quantities) get tau of octaves and keep their readings (shrinkage ~0);
    columns that the releases cannot tell apart (columns of equal SD, e.g. standardized ones)
    are pulled to their common scale; one column far from the rest keeps its own reading (the contamination half).

    Parameters
    ----------
    centre : array_like, shape (p,)
        Each column's reading u_j (natural log of its scale, any units).
    spread : array_like, shape (p,)
        Its standard error s_j > 0 (natural-log units).
    eligible : array_like of bool, shape (p,)
        Columns that take part; the others are returned unchanged. With fewer than
        ``POOL_MIN_COLUMNS`` eligible columns nothing is pooled.
    weak_sd : float
        W, the sd of the weak public prior of u (natural-log units), > 0.

    Returns
    -------
    pooled : ndarray, shape (p,)
        The posterior means (natural log of the scales).
    kept : ndarray, shape (p,)
        The weight each column keeps on its own reading, d pooled_j / d u_j in [0, 1]
        (1: untouched; 1 - kept is its shrinkage).

    Notes
    -----
    Privacy: post-processing. The readings and their standard errors are functions of the
    released values and public numbers only, so the pooled scales are as private as the releases
    (nothing is spent, no sensitivity involved).

    Why the robust spread: with p ~ 10 columns a maximum-likelihood tau can be captured by a tight
    subgroup; the median absolute deviation over all eligible columns measures how far apart the
    columns' scales are as a whole, so a set whose scales span octaves is not pooled at all.

    References
    ----------
    Efron, B. and Morris, C. (1973). Stein's estimation rule and its competitors: an empirical
    Bayes approach. JASA 68(341), 117-130.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing.scale_pooling import pooled_log_scales
    >>> u = np.log([1.04, 0.97, 1.02, 0.95, 1.01, 64.0])  # five alike columns and one far away
    >>> pooled, kept = pooled_log_scales(u, np.full(6, 0.05), np.ones(6, bool), 8.0)
    >>> bool(np.ptp(pooled[:5]) < 0.5 * np.ptp(u[:5])), bool(abs(pooled[5] - u[5]) < 1e-6)
    (True, True)
    """
    centre = np.asarray(centre, dtype=float)
    spread = np.asarray(spread, dtype=float)
    eligible = np.asarray(eligible, dtype=bool)
    pooled, kept = centre.copy(), np.ones(centre.shape)
    common = common_log_scale(centre, spread, eligible)
    if common is None:
        return pooled, kept
    mu, tau = common
    u, s2, tau2 = centre[eligible], spread[eligible] ** 2, tau ** 2
    near = _normal_log_density(u - mu, tau2 + s2)
    anywhere = _normal_log_density(u, weak_sd ** 2 + s2)
    w_near = np.exp(near - np.logaddexp(near, anywhere))
    factor = tau2 / (tau2 + s2)
    pooled[eligible] = w_near * (mu + factor * (u - mu)) + (1 - w_near) * u
    kept[eligible] = 1 - w_near * (1 - factor)
    return pooled, kept


def common_log_scale(centre, spread, eligible) -> tuple[float, float] | None:
    """The columns' common log-scale mu and the spread tau of their true log-scales around it.

    mu is the median of the eligible readings, tau^2 = max((1.4826 MAD)^2 - median s_j^2,
    floor^2) with floor ``POOL_TAU_FLOOR_OCTAVES`` ln 2: the readings' robust variance less the
    noise's (positive part). Post-processing of the readings (see :func:`pooled_log_scales`).

    Parameters
    ----------
    centre, spread, eligible : array_like, shape (p,)
        As in :func:`pooled_log_scales`.

    Returns
    -------
    tuple of float or None
        (mu, tau) in natural-log units, or None with fewer than ``POOL_MIN_COLUMNS`` eligible
        columns.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing.scale_pooling import common_log_scale
    >>> mu, tau = common_log_scale(np.log([1.0, 1.1, 0.9, 1.05]), np.full(4, 0.2), np.ones(4, bool))
    >>> round(mu, 3), round(float(tau / np.log(2)), 4)  # the spread is all noise: tau at its floor
    (0.024, 0.0312)
    """
    centre, spread = np.asarray(centre, dtype=float), np.asarray(spread, dtype=float)
    eligible = np.asarray(eligible, dtype=bool)
    if eligible.sum() < POOL_MIN_COLUMNS:
        return None
    u = centre[eligible]
    mu = float(np.median(u))
    mad = 1.4826 * float(np.median(np.abs(u - mu)))
    noise = float(np.median(spread[eligible] ** 2))
    tau2 = max(mad ** 2 - noise, (np.log(2) * POOL_TAU_FLOOR_OCTAVES) ** 2)
    return mu, float(np.sqrt(tau2))


def _normal_log_density(x, variance) -> np.ndarray:
    return -0.5 * (x ** 2 / variance + np.log(2 * np.pi * variance))


__all__ = ["POOL_MIN_COLUMNS", "POOL_TAU_FLOOR_OCTAVES", "common_log_scale", "pooled_log_scales"]
