"""Concentration bounds for Kendall's tau U-statistics with ties, and for weighted Gaussian noise.

The rank scree's intervals (:class:`dppca.results.scree_rank.RankBound`) need three proven
tail bounds, all valid at any n:

* :func:`bernstein_radius`: the radius of a Bernstein-type bound for the mean of m independent
  bounded vectors in a Hilbert space (Pinelis 1994), which by Hoeffding's (1963, Section 5)
  convexity argument also bounds a U-statistic of order 2 with m = floor(n / 2);
* :func:`untied_share_interval`: a confidence interval for each column's population share of
  untied pairs t_j = P(X_j != X'_j), from its noisy released sample share (the diagonal of the
  released Kendall's tau-a matrix);
* :func:`weighted_chi2_bound`: an upper quantile bound of sum_i a_i Z_i^2, Z_i i.i.d. N(0, 1)
  (Laurent & Massart 2000).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import chi2, norm

from .._validation import DPPCAValueError

__all__ = ["SHARE_GRID", "bernstein_radius", "untied_share_interval", "weighted_chi2_bound"]

#: Points at which the untied-share interval is scanned (its ends are rounded outwards to them).
SHARE_GRID = np.linspace(0.0, 1.0, 4001)


def bernstein_radius(variance, bound, m, alpha, largest_weight=None):
    """The r with 2 exp(-r^2 / (2 v / m + 2 w a r / 3)) = alpha: a Bernstein-type tail radius.

    Parameters
    ----------
    variance : float or ndarray
        v, an upper bound of E ||X - E X||^2 for one summand (any shape, elementwise).
    bound : float or ndarray
        a, an upper bound of ||X - E X|| for one summand (almost surely).
    m : int
        The number of independent summands (for a U-statistic of order 2: floor(n / 2)).
    alpha : float in (0, 1)
        The tail probability.
    largest_weight : float, optional
        w, the largest weight of one summand in a weighted sum sum_i w_i X_i with
        sum_i w_i^2 = 1 / m (an incomplete U-statistic over a block design,
        :func:`dppca.stats.elementwise_kendall_blocks_design.largest_kernel_weight`); default
        1 / m (the mean of m summands).

    Returns
    -------
    float or ndarray
        r = L a w / 3 + sqrt((L a w / 3)^2 + 2 L v / m), L = log(2 / alpha); inf where v or
        a is.

    Raises
    ------
    DPPCAValueError
        m < 1 or alpha outside (0, 1).

    Notes
    -----
    Claim: for X_1..X_m independent in a Hilbert space (the real line included) with
    ||X_i - E X_i|| <= a and E ||X_i - E X_i||^2 <= v, and for a U-statistic
    U = binom(n, 2)^-1 sum_{i < i'} h(x_i, x_i') of i.i.d. rows with such a kernel h,
    P(||mean - E|| >= r) <= alpha and P(||U - E U|| >= r) <= alpha, m = floor(n / 2).

    Proof. Pinelis (1994, Theorem 3 with D = 1, the Hilbert-space case) bounds
    E cosh(lam ||S||) <= exp(m v (e^(lam a) - 1 - lam a) / a^2) for the centred sum S of the
    m summands (with e^x - 1 - x <= x^2 (e^(lam a) - 1 - lam a) / (lam a)^2 for 0 <= x <= lam a).
    Markov with cosh(lam t) >= e^(lam t) / 2 and the best lam give Bennett's form
    2 exp(-(m v / a^2) h(a t / (m v))), h(u) = (1 + u) log(1 + u) - u >= u^2 / (2 + 2 u / 3),
    i.e. P(||S|| >= t) <= 2 exp(-t^2 / (2 m v + 2 a t / 3)); t = m r gives the claim for the
    mean. For U (Hoeffding 1963, Section 5): U - E U is the average over the n! row
    permutations of W_pi - E U, W_pi the mean of h over the m disjoint pairs
    (pi(1), pi(2)), (pi(3), pi(4)), ..., a mean of m independent summands as above;
    x -> cosh(lam ||x||) is convex, so by Jensen E cosh(lam ||U - E U||) is at most the same
    bound, and the rest of the proof is unchanged. r solves r^2 = L (2 v / m + 2 w a r / 3).
    Weighted sums: the same proof applied to the summands w_i (X_i - E X_i), bounded by w a
    (w = max w_i) with total variance v sum w_i^2 = v / m, gives the same tail with w a in
    place of a / m; a block design's statistic is an average (over the rows' permutations
    within each block, Jensen as above) of such weighted sums of independent kernels
    (:func:`dppca.stats.elementwise_kendall_blocks_design.hoeffding_pairs`).

    References
    ----------
    Pinelis, I. (1994). Optimum bounds for the distributions of martingales in Banach spaces.
    Ann. Probab. 22(4), 1679-1706, Theorem 3 and its Bernstein corollary.
    Hoeffding, W. (1963). Probability inequalities for sums of bounded random variables.
    JASA 58, Section 5.

    Examples
    --------
    >>> from dppca.results.rank_concentration import bernstein_radius
    >>> round(float(bernstein_radius(0.25, 1.0, 1000, 0.05)), 4)
    0.0442
    """
    if int(m) < 1:
        raise DPPCAValueError(f"`m` must be a positive number of summands; got {m}")
    if not 0.0 < float(alpha) < 1.0:
        raise DPPCAValueError(f"`alpha` must be in (0, 1); got {alpha}")
    log_term = math.log(2.0 / float(alpha))
    weight = 1.0 / int(m) if largest_weight is None else max(float(largest_weight), 1.0 / int(m))
    linear = log_term * np.asarray(bound, dtype=float) * weight / 3.0
    with np.errstate(invalid="ignore"):
        radius = linear + np.sqrt(linear ** 2 + 2.0 * log_term * np.asarray(variance, float)
                                  / int(m))
    radius = np.where(np.isnan(radius), np.inf, radius)
    return float(radius) if radius.ndim == 0 else radius


def untied_share_interval(released_diagonal, n, sigma, alpha_sampling, alpha_noise,
                          largest_weight=None):
    """Simultaneous intervals for each column's population share of untied pairs t_j.

    Parameters
    ----------
    released_diagonal : array_like, shape (p,)
        The released diagonal M_jj = T_jj + N_jj of the noisy tau-a matrix: T_jj the sample
        share of pairs not tied in column j, N_jj ~ N(0, sigma^2) independent.
    n : int
        Rows (public), n >= 2.
    sigma : float
        The noise sd (public).
    alpha_sampling, alpha_noise : float in (0, 1)
        Miss probabilities allowed to the p sampling errors T_jj - t_j together and to the p
        noise draws N_jj together.
    largest_weight : float, optional
        The largest kernel weight of a block design's statistic (:func:`bernstein_radius`);
        ``n`` is then twice its m. Default: the complete statistic.

    Returns
    -------
    lower, upper : ndarray, shape (p,)
        Ends in [0, 1], rounded outwards to :data:`SHARE_GRID`; with probability at least
        1 - alpha_sampling - alpha_noise, lower_j <= t_j <= upper_j for every j.

    Raises
    ------
    DPPCAValueError
        n < 2, sigma < 0, or an alpha outside (0, 1).

    Notes
    -----
    The kernel 1[x_j != x'_j] of T_jj lies in [0, 1] with mean t_j and variance t_j (1 - t_j),
    so :func:`bernstein_radius` with v = t (1 - t), a = 1 and alpha_sampling / p gives
    P(|T_jj - t_j| > x(t_j)) <= alpha_sampling / p, x(t) = L / (3 m) +
    sqrt((L / (3 m))^2 + 2 L t (1 - t) / m), L = log(2 p / alpha_sampling); and
    P(|N_jj| > c) <= alpha_noise / p for c = sigma z_{1 - alpha_noise / (2 p)}. On the union of
    the complements (probability >= 1 - alpha_sampling - alpha_noise), t_j lies in
    {t in [0, 1] : |M_jj - t| <= x(t) + c}. That set is an interval: t (1 - t) is concave, so
    x is concave and |M_jj - t| - x(t) - c is convex. Scanning it on the grid and stepping one
    grid point outwards at each end keeps every point of it; an empty scan (the set lies
    between two grid points, or is empty) gives [0, 1].

    Examples
    --------
    >>> from dppca.results.rank_concentration import untied_share_interval
    >>> lower, upper = untied_share_interval([0.5], 2000, 0.0, 0.025, 0.025)
    >>> round(float(lower[0]), 3), round(float(upper[0]), 3)
    (0.452, 0.548)
    """
    diagonal = np.asarray(released_diagonal, dtype=float).ravel()
    p = diagonal.size
    if int(n) < 2:
        raise DPPCAValueError(f"`n` must be at least 2; got {n}")
    if not float(sigma) >= 0.0:
        raise DPPCAValueError(f"`sigma` must be >= 0; got {sigma}")
    for name, value in (("alpha_sampling", alpha_sampling), ("alpha_noise", alpha_noise)):
        if not 0.0 < float(value) < 1.0:
            raise DPPCAValueError(f"`{name}` must be in (0, 1); got {value}")
    grid = SHARE_GRID
    spread = bernstein_radius(grid * (1.0 - grid), 1.0, int(n) // 2, float(alpha_sampling) / p,
                              largest_weight)
    spread = spread + float(sigma) * norm.isf(float(alpha_noise) / (2.0 * p))
    feasible = np.abs(diagonal[:, None] - grid[None, :]) <= spread[None, :]
    lower, upper = np.zeros(p), np.ones(p)
    for j in np.flatnonzero(feasible.any(axis=1)):
        points = np.flatnonzero(feasible[j])
        lower[j] = grid[max(points[0] - 1, 0)]
        upper[j] = grid[min(points[-1] + 1, grid.size - 1)]
    return lower, upper


def weighted_chi2_bound(weights, alpha):
    """An upper (1 - alpha) bound of sum_i a_i Z_i^2, Z_i i.i.d. N(0, 1), a_i >= 0.

    Parameters
    ----------
    weights : array_like
        The a_i (any shape; NaN not allowed).
    alpha : float in (0, 1)
        The tail probability.

    Returns
    -------
    float
        The smaller of Laurent & Massart's sum a + 2 ||a||_2 sqrt(x) + 2 max(a) x,
        x = log(1 / alpha), and max(a) chi2_q(1 - alpha), q the number of weights; 0 for no
        weights.

    Raises
    ------
    DPPCAValueError
        A negative or non-finite weight, or alpha outside (0, 1).

    Notes
    -----
    Laurent & Massart (2000), Lemma 1: P(sum a_i (Z_i^2 - 1) >= 2 ||a||_2 sqrt(x)
    + 2 ||a||_inf x) <= exp(-x); and sum a_i Z_i^2 <= max(a) sum Z_i^2, whose (1 - alpha)
    quantile is max(a) chi2_q(1 - alpha) (exact when the weights are equal). Each is a
    deterministic level-alpha bound, so their minimum is one too.

    References
    ----------
    Laurent, B. and Massart, P. (2000). Adaptive estimation of a quadratic functional by model
    selection. Ann. Statist. 28(5), 1302-1338, Lemma 1.

    Examples
    --------
    >>> from dppca.results.rank_concentration import weighted_chi2_bound
    >>> round(weighted_chi2_bound([1.0] * 10, 0.05), 3)  # equal weights: the chi2_10 quantile
    18.307
    >>> round(weighted_chi2_bound([1.0] + [0.01] * 99, 0.05), 3)  # one dominant weight
    11.46
    """
    a = np.asarray(weights, dtype=float).ravel()
    if not (np.isfinite(a).all() and (a >= 0).all()):
        raise DPPCAValueError("`weights` must be finite and >= 0")
    if not 0.0 < float(alpha) < 1.0:
        raise DPPCAValueError(f"`alpha` must be in (0, 1); got {alpha}")
    if a.size == 0:
        return 0.0
    x = math.log(1.0 / float(alpha))
    laurent_massart = a.sum() + 2.0 * np.linalg.norm(a) * math.sqrt(x) + 2.0 * a.max() * x
    return float(min(laurent_massart, a.max() * chi2.ppf(1.0 - float(alpha), a.size)))
