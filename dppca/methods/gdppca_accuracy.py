"""g-DPPCA's post-release accuracy: the released directions' predicted error and bound, read
from the released eigenvalues (post-processing of the release)."""
from __future__ import annotations

import math

import numpy as np

from ..privacy.accuracy import StepAccuracy


#: At or above this post-release predicted sin-theta the directions are at random level (a
#: random k-dimensional subspace has sin-theta near 1 whenever k < p).
RANDOM_LEVEL = 0.9

#: Coverage of the post-release Davis-Kahan bound (the probability, over the noise, that it holds).
BOUND_LEVEL = 0.95


def released_direction_accuracy(spectrum, k, sigma, *, debias_gaps=False, vectors=None,
                                log_scale_sd=0.0) -> StepAccuracy:
    """Post-release predicted sin-theta of g-DPPCA's top-k directions, from the released eigenvalues.

    After the release the noisy Kendall matrix's eigenvalues are public (post-processing), so the
    gaps that set the directions' error need no longer be assumed (the pre-release
    :func:`direction_accuracy` assumes lambda_k - lambda_{k+1} = trace / p).

    Parameters
    ----------
    spectrum : array_like, shape (p,)
        All eigenvalues of the released matrix K + E, decreasing
        (:attr:`dppca.methods.DirectionFit.spectrum`).
    k : int
        Dimension of the released subspace, 1 <= k <= p.
    sigma : float
        The noise sd of the release (diagonal sd sigma, off-diagonal sigma / sqrt 2; the
        ledger's noise sd).
    debias_gaps : bool
        Read each released gap g through its noise inflation: the squared gap of the underlying
        matrix is estimated by g^2 - :data:`GAP_INFLATION` sigma^2 (Notes), and a gap within
        that inflation counts as no gap (prediction 1). :func:`dppca.dp_pc_dir` sets it for
        g-DPPCA. Default False (the plain released gaps).
    vectors : array_like of shape (p, k), optional
        The released top-k eigenvectors; with ``log_scale_sd`` they add the column scales'
        error (Notes).
    log_scale_sd : float, >= 0
        The sd of each column's ln(scale / sample SD) when the data were divided by private
        scales before the release (from their public accuracy model,
        :func:`dppca.preprocessing.scale_accuracy.scale_accuracy`); 0 for public scales or none.

    Returns
    -------
    StepAccuracy
        Step ``"directions (post-release)"``: the predicted (typical) sin-theta between the
        released top-k subspace and that of the non-private Kendall matrix K the call computed,
        threshold :data:`RANDOM_LEVEL`; its ``quantity`` also states the
        :func:`released_direction_bound` at level :data:`BOUND_LEVEL`. k = p: 0 (the subspace is
        all of R^p).

    Notes
    -----
    First-order perturbation (Stewart & Sun 1990, Ch. V, Thm 2.8): the top-k eigenvectors of
    K + E have components E'_ij / (lambda_i - lambda_j) along the j-th eigenvector of K
    (i <= k < j), with E' = V^T E V the noise in K's eigenbasis. The noise law (diagonal sd
    sigma, off-diagonal sigma / sqrt 2) is the scaled Gaussian orthogonal ensemble, invariant under
    rotation, so every off-diagonal E'_ij has sd sigma / sqrt 2, and the Frobenius norm of the
    k x (p - k) block of sines is T = sqrt(sum_{i <= k < j} w_ij Z_ij^2), Z_ij iid N(0, 1),
    w_ij = sigma^2 / (2 (lambda_i - lambda_j)^2). The prediction is min(1, median of T), the
    median by Satterthwaite's degrees of freedom nu = (sum w)^2 / sum w^2 and the Wilson-Hilferty
    cube-root approximation, median T^2 ~ sum w (1 - 2 / (9 nu))^3, with the released eigenvalues
    in place of the Kendall ones; 1 (random level) when their spread is within what noise alone
    gives (:func:`_noise_spread_only`, an exact chi2 test at level 1%: without it a release at an
    eps far too small read its noise-spread eigenvalues as gaps and predicted sin-theta
    0.36-0.88 in 4 of 8 seeds at eps = 0.001, n = 400, p = 4). For k = 1 the Frobenius norm is
    the sin-theta; for k > 1 it is an upper bound (at most sqrt(k) times). ``tests/test_direction_accuracy.py`` pins the 2x
    agreement with the measured median on simulated data; ``benchmarks/bench_direction_accuracy.py``
    measures it on real sets. Not a bound: see :func:`released_direction_bound`.

    Noise inflates released gaps: two eigenvalues lambda_i > lambda_j of K become, to first
    order, the eigenvalues of the 2 x 2 block [[lambda_i + a, b], [b, lambda_j + c]] of K + E
    in K's eigenbasis (a, c ~ N(0, sigma^2), b ~ N(0, sigma^2 / 2)), whose gap g has
    E g^2 = (lambda_i - lambda_j)^2 + Var(a - c) + Var(2 b) = (lambda_i - lambda_j)^2 +
    4 sigma^2. A true tie therefore reads as a gap of about 2 sigma (g^2 ~ 2 sigma^2 chi2_2)
    at every eps, and the plain first-order prediction then reads 0.3-0.6 whatever sigma is,
    while the released directions are at random level (a direction whose eigenvalue is tied
    with, or below the noise of, the next one is not determined). With ``debias_gaps`` each
    squared gap is g^2 - 4 sigma^2 (the moment estimate of the underlying squared gap) and
    the prediction is 1 where that is <= 0.

    Private column scales move the estimand itself: the data are divided by scales s_l that
    differ from the sample SDs by factors e^{delta_l}, and for elliptical data K becomes, to
    first order, K + Delta K + K Delta (Delta = diag(delta)), whose (i, j) entry in K's
    eigenbasis is (lambda_i + lambda_j) sum_l delta_l v_il v_jl (K's eigenvalues standing in for
    those of the shape matrix, whose eigenvectors K shares). With delta_l iid N(0, s^2)
    (s = ``log_scale_sd``) this is one more Gaussian sine component of variance
    s^2 (lambda_i + lambda_j)^2 / (lambda_i - lambda_j)^2 sum_l v_il^2 v_jl^2 per pair. Only the
    top-k vectors are released: the rest of each column's weight, sum_{j > k} v_jl^2 =
    1 - sum_{m <= k} v_ml^2, is taken as spread evenly over the p - k released eigenvalues below
    (an isotropic remainder, as the prediction is a typical value), one weight per i <= k,
    added to the mixture whose median is taken. The scales' model assumes light-tailed columns:
    on heavy-tailed ones the private scale reads a winsorized SD and the error is larger.

    Privacy: a function of the released eigenvalues and the public sigma only, so it is
    post-processing of the (eps, delta)-DP release; its verdict, and the
    :class:`dppca.DPAccuracyWarning` :func:`dppca.dp_pc_dir` issues when it reaches
    :data:`RANDOM_LEVEL`, leak nothing beyond the release (a warning that only noisy values
    decide).

    References
    ----------
    Stewart, G. W. and Sun, J.-G. (1990), Matrix Perturbation Theory, Academic Press, Ch. V.
    Davis, C. and Kahan, W. M. (1970), SIAM J. Numer. Anal. 7(1), the sin-theta theorem.

    Examples
    --------
    >>> step = released_direction_accuracy([0.6, 0.3, 0.1], k=1, sigma=0.01)
    >>> round(step.predicted, 4), step.reliable
    (0.0221, True)
    >>> released_direction_accuracy([0.6, 0.3, 0.1], k=3, sigma=0.01).predicted
    0.0
    >>> released_direction_accuracy([0.6, 0.015, 0.0], k=2, sigma=0.01, debias_gaps=True).predicted
    1.0
    """
    spectrum = np.asarray(spectrum, dtype=float)
    sigma = float(sigma)
    bound = released_direction_bound(spectrum, k, sigma)
    return StepAccuracy("directions (post-release)",
                        "typical sin-theta of the top-k subspace to the Kendall directions, from "
                        f"the released eigenvalues ({BOUND_LEVEL:.0%} Davis-Kahan bound "
                        f"{bound:.3g})",
                        _first_order_sin_theta(spectrum, k, sigma, debias_gaps,
                                               _scale_weights(spectrum, vectors, k, sigma,
                                                              log_scale_sd, debias_gaps)),
                        "sin-theta",
                        # unreliable from RANDOM_LEVEL on (reliable means <= threshold)
                        math.nextafter(RANDOM_LEVEL, 0.0),
                        "first-order perturbation, the released gaps in place of the Kendall ones"
                        + (" (each squared gap less its noise inflation 4 sigma^2)"
                           if debias_gaps else ""),
                        "more eps, more rows, fewer columns or a smaller k "
                        "(the released gaps say where they end)")


def released_direction_bound(spectrum, k, sigma, level=BOUND_LEVEL) -> float:
    """A Davis-Kahan bound on the released directions' sin-theta, from the released eigenvalues.

    Parameters
    ----------
    spectrum : array_like, shape (p,)
        All eigenvalues of the released matrix K + E, decreasing.
    k : int
        Dimension of the released subspace, 1 <= k <= p.
    sigma : float
        The release's noise sd (diagonal sigma, off-diagonal sigma / sqrt 2).
    level : float in (0, 1)
        The probability, over the noise, with which the bound holds.

    Returns
    -------
    float in [0, 1]
        min(1, e / (lambda^_k - lambda^_{k+1} - e)) with e = sigma (2 sqrt(p) + sqrt(2 log(1 /
        (1 - level)))); 1 when the released gap is at most e; 0 when k = p.

    Notes
    -----
    With probability >= ``level``, ||E|| <= e: E has the law of (A + A^T) / sqrt 2 with A
    a p x p matrix of iid N(0, sigma^2 / 2), so E||E|| <= sqrt 2 E||A|| <= 2 sigma sqrt(p)
    (Gordon's inequality, Davidson & Szarek 2001, Thm II.13), and ||E|| is sigma-Lipschitz in the
    standardized noise (||E||_2 <= ||E||_F, vecd an isometry), so Gaussian concentration adds
    sigma sqrt(2 log(1 / (1 - level))). On that event, Weyl's inequality gives
    lambda_{k+1} <= lambda^_{k+1} + e, and the Davis-Kahan sin-theta theorem (the released
    top-k eigenvalues are >= lambda^_k, the rest of K's are <= lambda_{k+1}) gives
    sin-theta <= ||E|| / (lambda^_k - lambda_{k+1}) <= e / (lambda^_k - lambda^_{k+1} - e).
    Rounding in the eigenvalues (about 1e-16 ||K + E||) is far below e. Privacy: post-processing
    of the release (see :func:`released_direction_accuracy`).

    References
    ----------
    Davis, C. and Kahan, W. M. (1970), SIAM J. Numer. Anal. 7(1). Davidson, K. R. and Szarek,
    S. J. (2001), Local operator theory, random matrices and Banach spaces, Handbook of the
    Geometry of Banach Spaces, Vol. 1.

    Examples
    --------
    >>> round(released_direction_bound([0.6, 0.3, 0.1], k=1, sigma=0.01), 3)
    0.245
    """
    spectrum = np.asarray(spectrum, dtype=float)
    p = spectrum.size
    if k >= p:
        return 0.0
    e = sigma * (2.0 * math.sqrt(p) + math.sqrt(2.0 * math.log(1.0 / (1.0 - level))))
    margin = float(spectrum[k - 1] - spectrum[k]) - e
    return 1.0 if margin <= 0 else min(1.0, e / margin)


#: E g^2 = (lambda_i - lambda_j)^2 + GAP_INFLATION sigma^2 for a released gap g (first order,
#: the 2 x 2 block of the noise in K's eigenbasis: Var(a - c) + Var(2 b) = 2 sigma^2 + 2 sigma^2).
GAP_INFLATION = 4.0


def _scale_weights(spectrum, vectors, k, sigma, log_scale_sd, debias_gaps) -> np.ndarray:
    """The column scales' sine variances, one per i <= k (see
    :func:`released_direction_accuracy`): s^2 mean_{j > k} ((lambda_i + lambda_j)^2 / g_ij^2)
    sum_l v_il^2 (1 - sum_{m <= k} v_ml^2), g_ij^2 the (debiased) squared gap; inf where a
    g_ij^2 <= 0; empty without vectors, scale error or when k = p."""
    if vectors is None or not log_scale_sd > 0 or k >= spectrum.size:
        return np.zeros(0)
    top = np.asarray(vectors, dtype=float)[:, :k]
    rest = np.maximum(1.0 - np.sum(top ** 2, axis=1), 0.0)
    squared = (spectrum[:k, None] - spectrum[None, k:]) ** 2 - (
        GAP_INFLATION * sigma ** 2 if debias_gaps else 0.0)
    if np.min(squared) <= 0:
        return np.full(k, np.inf)
    ratio = np.mean((spectrum[:k, None] + spectrum[None, k:]) ** 2 / squared, axis=1)
    return float(log_scale_sd) ** 2 * ratio * (top ** 2 * rest[:, None]).sum(axis=0)


def _first_order_sin_theta(spectrum, k, sigma, debias_gaps=False, extra=()) -> float:
    """min(1, median of sqrt(sum_{i <= k < j} w_ij chi2_1)), w_ij = sigma^2 / (2 (lambda_i -
    lambda_j)^2), by Satterthwaite's degrees of freedom and Wilson-Hilferty; 1 when the spectrum
    is spread by noise alone (:func:`_noise_spread_only`); 0 when k = p. ``debias_gaps``: the
    squared gaps less ``GAP_INFLATION`` sigma^2, 1 where that leaves none. ``extra``: more
    variances in the mixture (the column scales')."""
    gaps = spectrum[:k, None] - spectrum[None, k:]
    if gaps.size == 0:
        return 0.0
    squared = gaps ** 2 - (GAP_INFLATION * sigma ** 2 if debias_gaps else 0.0)
    if np.min(gaps) <= 0 or np.min(squared) <= 0 or _noise_spread_only(spectrum, sigma):
        return 1.0  # not determined
    weights = np.concatenate([np.ravel(0.5 * sigma ** 2 / squared), np.asarray(extra, float)])
    if not np.all(np.isfinite(weights)):
        return 1.0
    weights = weights[weights > 0]
    dof = np.sum(weights) ** 2 / np.sum(weights ** 2)
    return float(min(1.0, math.sqrt(np.sum(weights) * (1.0 - 2.0 / (9.0 * dof)) ** 3)))


#: Level of the test that the released spectrum's spread exceeds the noise's (a pure-noise
#: release reads as separated in at most this share of draws).
SPREAD_TEST_LEVEL = 0.01


def _noise_spread_only(spectrum, sigma) -> bool:
    """Whether the released eigenvalues are no more spread out than noise alone spreads them.

    E -> (diagonal, sqrt 2 x upper triangle) maps the noise (diagonal sd sigma, off-diagonal
    sigma / sqrt 2) isometrically onto p (p + 1) / 2 iid N(0, sigma^2), so for K = I / p the
    spread sum_i (lambda^_i - mean)^2 = ||E - tr(E) I / p||_F^2 is sigma^2 chi2(p (p + 1) / 2 - 1)
    exactly. Read as gaps, such eigenvalues predict the same sin-theta at every sigma; a spread
    at or below its 1 - ``SPREAD_TEST_LEVEL`` quantile is no evidence of any gap. Post-processing."""
    from scipy.stats import chi2

    p = spectrum.size
    spread = float(np.sum((spectrum - spectrum.mean()) ** 2))
    return spread <= sigma ** 2 * chi2.ppf(1.0 - SPREAD_TEST_LEVEL, p * (p + 1) / 2.0 - 1.0)


__all__ = ["BOUND_LEVEL", "GAP_INFLATION", "RANDOM_LEVEL", "SPREAD_TEST_LEVEL",
           "released_direction_accuracy", "released_direction_bound"]
