"""Distinguishing audit: an empirical lower bound on eps from releases on two neighbours.

Jagielski, Ullman & Oprea (2020), "Auditing differentially private machine learning: how
private is private SGD?"; Nasr, Song, Thakurta, Papernot & Carlini (2021), "Adversary
instantiation: lower bounds for differentially private machine learning".

Given neighbours D, D' and a mechanism M, draw ``runs`` releases on each, reduce each to a
scalar s (the projection of the release on f(D') - f(D), the most powerful test for a Gaussian
mechanism), choose the threshold t on the first half that maximises the empirical eps of the
test "s > t => D'", and on the other half bound FPR = P(s > t | D) and FNR = P(s <= t | D')
from above with Clopper-Pearson intervals. Any (eps, delta)-DP mechanism has
FPR e^eps + FNR >= 1 - delta (Kairouz, Oh & Viswanath 2015), so with probability >= 1 - alpha

    eps >= eps_lb = log((1 - delta - FNR_ub) / FPR_ub).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta, binomtest

#: Two-sided level of each Clopper-Pearson interval (the upper end is a 97.5% one-sided bound).
CONFIDENCE = 0.95


@dataclass(frozen=True)
class DistinguishingResult:
    """The empirical lower bound eps_lb and the counts behind it (evaluation half).

    Parameters
    ----------
    eps_lb : float
        Lower bound on eps (>= 0) at 95% Clopper-Pearson confidence on each error rate.
    threshold : float
        The test's threshold on the scalar score (chosen on the selection half).
    false_positives : int
        Releases on D above the threshold (evaluation half).
    false_negatives : int
        Releases on D' at or below the threshold (evaluation half).
    runs : int
        Releases in the evaluation half (both neighbours).

    See Also
    --------
    eps_lower_bound : Computes it from scores.
    distinguishing_audit : Computes it from a mechanism and two neighbours.

    Examples
    --------
    >>> from dppca.audit import DistinguishingResult
    >>> DistinguishingResult(0.0, 0.5, 480, 510, 2000).eps_lb
    0.0
    """

    eps_lb: float
    threshold: float
    false_positives: int
    false_negatives: int
    runs: int


def scores_along(outputs, direction) -> np.ndarray:
    """Scalar test statistic: each flattened output projected on ``direction``."""
    outputs = np.asarray(outputs, float).reshape(len(outputs), -1)
    direction = np.asarray(direction, float).ravel()
    norm = np.linalg.norm(direction)
    if not (np.isfinite(norm) and norm > 0):
        direction = np.ones_like(direction)
    outputs = np.nan_to_num(outputs, nan=0.0, posinf=np.finfo(float).max, neginf=-np.finfo(float).max)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.nan_to_num(outputs @ (direction / (np.linalg.norm(direction) or 1.0)))


def eps_lower_bound(scores_d, scores_dprime, delta) -> DistinguishingResult:
    """Lower bound on eps from scalar scores of releases on D (``scores_d``) and D' (``scores_dprime``).

    The first half of each sample chooses the threshold, the second half evaluates it.

    Parameters
    ----------
    scores_d : array_like, shape (r,)
        Scores of r releases on D.
    scores_dprime : array_like, shape (r,)
        Scores of r releases on D'.
    delta : float
        Claimed delta of the mechanism.

    Returns
    -------
    DistinguishingResult
        The bound eps_lb = log((1 - delta - FNR_ub) / FPR_ub), the upper ends of the 95% Clopper-Pearson
        intervals of the error rates on the evaluation half (0 when that is not positive).

    See Also
    --------
    distinguishing_audit : Draws the releases and calls this.

    Notes
    -----
    Jagielski et al. (2020) and Nasr et al. (2021): a threshold chosen on one half of the scores
    is a test of D against D'; its error rates bound eps from below.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> same = eps_lower_bound(rng.normal(size=2000), rng.normal(size=2000), 1e-5)
    >>> same.eps_lb < 0.3  # no evidence of a leak between identical distributions
    True
    """
    scores_d, scores_dprime = np.asarray(scores_d, float), np.asarray(scores_dprime, float)
    half_d, half_p = scores_d.size // 2, scores_dprime.size // 2
    threshold = _best_threshold(scores_d[:half_d], scores_dprime[:half_p], delta)
    test_d, test_p = scores_d[half_d:], scores_dprime[half_p:]
    fp = int(np.sum(test_d > threshold))
    fn = int(np.sum(test_p <= threshold))
    fpr_ub = binomtest(fp, test_d.size).proportion_ci(CONFIDENCE, method="exact").high
    fnr_ub = binomtest(fn, test_p.size).proportion_ci(CONFIDENCE, method="exact").high
    top = 1.0 - delta - fnr_ub
    eps_lb = math.log(top / fpr_ub) if top > 0 and fpr_ub > 0 else 0.0
    return DistinguishingResult(max(eps_lb, 0.0), threshold, fp, fn, test_d.size + test_p.size)


def _best_threshold(scores_d, scores_dprime, delta) -> float:
    """The threshold whose Clopper-Pearson eps bound is largest on this (selection) half.

    Maximising the bound rather than the point estimate avoids the extreme thresholds (FPR 0,
    FNR near 1) that look best by chance and carry no evidence on fresh samples.
    """
    pooled = np.concatenate([scores_d, scores_dprime])
    candidates = np.unique(np.quantile(pooled, np.linspace(0, 1, 401)))
    fp = scores_d.size - np.searchsorted(np.sort(scores_d), candidates, side="right")
    fn = np.searchsorted(np.sort(scores_dprime), candidates, side="right")
    top = 1.0 - delta - _clopper_pearson_upper(fn, scores_dprime.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.log(np.maximum(top, 1e-300) / _clopper_pearson_upper(fp, scores_d.size))
    return float(candidates[int(np.argmax(bound))])


def _clopper_pearson_upper(k, n):
    """Vectorised upper end of the two-sided CONFIDENCE Clopper-Pearson interval (k of n)."""
    k = np.asarray(k, float)
    upper = beta.ppf(1 - (1 - CONFIDENCE) / 2, k + 1, np.maximum(n - k, 1e-12))
    return np.where(k >= n, 1.0, upper)


def distinguishing_audit(mechanism, D, D_prime, ctx, runs, delta, *, direction=None, seed=0,
                         ) -> DistinguishingResult:
    """Run ``mechanism(X, ctx, rng)`` ``runs`` times on each of D, D_prime and bound eps from below.

    Parameters
    ----------
    mechanism : callable (X, ctx, rng) -> array_like
        One release of the mechanism under test on the dataset X.
    D, D_prime : ndarray, shape (n, p)
        Neighbours (typically the worst pair of :func:`dppca.audit.neighbour_search`).
    ctx : dict
        Public values shared by both runs.
    runs : int
        Releases per neighbour (half choose the threshold, half evaluate it).
    delta : float
        Claimed delta of the mechanism.
    direction : array_like, optional
        Projection direction of the outputs; default: mean output on D' minus on D over the
        threshold half (so only that half informs the test).
    seed : int
        Seed of the releases' generator.

    Returns
    -------
    DistinguishingResult
        The lower bound on eps and the counts of the evaluation half.

    See Also
    --------
    eps_lower_bound, neighbour_search : The test on scalar scores; the search for neighbours.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.samplers import gaussian_noise
    >>> leaky = lambda X, ctx, rng: X.mean(axis=0) + gaussian_noise(0.001, 1, rng)
    >>> D, D_prime = np.zeros((10, 1)), np.r_[np.ones((1, 1)), np.zeros((9, 1))]
    >>> distinguishing_audit(leaky, D, D_prime, {}, 400, 1e-5).eps_lb > 3
    True
    """
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. empty-histogram warnings of thousands of releases
        out_d = [np.asarray(mechanism(D, ctx, rng), float).ravel() for _ in range(runs)]
        out_p = [np.asarray(mechanism(D_prime, ctx, rng), float).ravel() for _ in range(runs)]
    if direction is None:
        half = runs // 2
        direction = np.nan_to_num(np.mean(out_p[:half], axis=0) - np.mean(out_d[:half], axis=0))
    return eps_lower_bound(scores_along(out_d, direction), scores_along(out_p, direction), delta)

__all__ = ["DistinguishingResult", "distinguishing_audit", "eps_lower_bound", "scores_along"]
