"""The rank path's accuracy model: the predicted sin-theta of its directions, from public numbers
before the release and from released values after it.

Every function here is public arithmetic or post-processing of the release of
:mod:`dppca.methods.latent_correlation` (its noisy tau matrix, eigenvalues and eigenvectors).
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..privacy import bridge_noise, gaussian_sigma
from ..privacy.accuracy import AccuracyReport, StepAccuracy
from ..stats.copula_bridge import DIAGONAL_FLOOR
from .gdppca import DIRECTION_THRESHOLD, RANDOM_LEVEL
from .rank_sensitivity import rank_tau_sensitivity

__all__ = ["BOOTSTRAP_DRAWS", "RANK_WARNING_LEVEL", "bridged_noise_sd", "rank_accuracy",
           "rank_direction_accuracy", "released_sine_draws", "repelled_spectrum",
           "sine_block_noise_sd"]


def bridged_noise_sd(released, sigma: float, floor: float = DIAGONAL_FLOOR) -> float:
    """Largest sd of the noise that the tau-b normalisation and the sine bridge pass to R_jk.

    :func:`dppca.privacy.bridge_noise.bridged_noise_sd` at the release's
    :func:`dppca.privacy.bridge_noise.smallest_normaliser`: (pi / 2) sigma / min_{j != k}
    sqrt(d_j d_k), d = clip(released diagonal, floor, 1) (to first order). Post-processing.

    Parameters
    ----------
    released : ndarray, shape (p, p)
        The released (noisy) tau matrix.
    sigma : float
        The release's noise sd.
    floor : float
        The diagonal floor of :func:`dppca.stats.copula_bridge.latent_correlation`.

    Returns
    -------
    float
        The bound, in correlation units.

    Examples
    --------
    >>> import numpy as np
    >>> round(bridged_noise_sd(np.eye(3), 0.01), 5)
    0.01571
    """
    return bridge_noise.bridged_noise_sd(sigma, bridge_noise.smallest_normaliser(released, floor))


def sine_block_noise_sd(released, sigma: float, k: int, spectrum, vectors,
                        floor: float = DIAGONAL_FLOOR) -> float:
    """The noise level that sets the released directions' error, from the release alone.

    Parameters
    ----------
    released : ndarray, shape (p, p)
        The released (noisy) tau-a matrix, all columns continuous.
    sigma : float
        The release's noise sd (every entry j <= k, the diagonal included).
    k : int
        Number of directions, 1 <= k <= p.
    spectrum : array_like, shape (p,)
        All eigenvalues of the released latent correlation, decreasing.
    vectors : array_like, shape (p, p)
        Its eigenvectors, as columns in the same order.
    floor : float
        The diagonal floor of :func:`dppca.stats.copula_bridge.latent_correlation`.

    Returns
    -------
    float
        s such that noise of g-DPPCA's law (diagonal sd s, off-diagonal s / sqrt 2, invariant
        under rotation) gives the same first-order sine block as the rank path's noise, in
        correlation units (:func:`rank_accuracy`'s ``matrix_noise_sd``); k = p: the same average
        over every pair i != l.

    Notes
    -----
    Derivation (first order in the noise e of the release; every quantity below is a released
    value or the public sigma, so this is post-processing). With d_j = clip(T~_jj, floor, 1),
    t_jk = T~_jk / sqrt(d_j d_k) and R_jk = sin(pi t_jk / 2), the latent correlation moves by

        dR_jk = b_jk (e_jk / sqrt(d_j d_k) - (t_jk / 2) (e_jj / d_j + e_kk / d_k)),
        b_jk = (pi / 2) cos(pi t_jk / 2),

    and dR_jj = 0 (the diagonal is 1 by construction). So each entry's noise is scaled by the
    bridge's slope at its own value, not at its maximum pi / 2 (cos(pi t / 2) = sqrt(1 - R^2)
    is 0.6 at R = 0.8), and by its own pair's tie factor sqrt(d_j d_k), not the smallest one.
    In the eigenbasis (v_i, lambda_i) of the released latent correlation the top-k subspace
    moves, to first order (Stewart & Sun 1990, Ch. V, Thm 2.8), by the sine block
    S_il = v_i' dR v_l / (lambda_i - lambda_l), i <= k < l, whose entries have variance

        Var(v_i' dR v_l) = sigma^2 sum_{a < b} (G_ab (v_ai v_bl + v_bi v_al))^2
                           + (sigma^2 / 4) sum_a ((v_ai (B v_l)_a + (B v_i)_a v_al) / d_a)^2,

    G_ab = b_ab / sqrt(d_a d_b), B_ab = b_ab t_ab (zero diagonals): the own-entry noise and the
    diagonal noise that the tau-b normalisation shares along a row. The noise spreads over the
    k (p - k) pairs (i, l), each divided by its own gap, so E ||S||_F^2 = sum_il
    Var_il / (lambda_i - lambda_l)^2. Noise of g-DPPCA's law with diagonal sd s has
    Var_il = s^2 / 2 for every pair, so the equivalent s is s^2 = 2 sum_il (Var_il / g_il^2) /
    sum_il (1 / g_il^2), g_il = lambda_i - lambda_l the released gaps (all weights 1 where a
    released gap is not positive): the gap-weighted mean of 2 Var_il, and
    :func:`dppca.methods.gdppca.released_direction_accuracy` with it predicts the same
    E ||S||_F^2. For a pure-noise release (R = I: t = 0, b = pi / 2, d = 1) s = sqrt(2) (pi / 2)
    sigma, the largest value, so its noise-spread test (1 when the released spectrum is no more
    spread than noise alone gives) keeps its level there.

    References
    ----------
    Stewart, G. W. and Sun, J.-G. (1990), Matrix Perturbation Theory, Academic Press, Ch. V.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.latent_correlation import sine_block_noise_sd
    >>> s = sine_block_noise_sd(np.eye(3), 0.01, 1, [1.2, 1.0, 0.8], np.eye(3))
    >>> round(float(s / (np.sqrt(2) * np.pi / 2 * 0.01)), 6)
    1.0
    """
    released = np.asarray(released, dtype=float)
    released = (released + released.T) / 2.0
    p = released.shape[0]
    d = np.clip(np.diag(released), floor, 1.0)
    root = np.sqrt(np.outer(d, d))
    t = np.clip(released / root, -1.0, 1.0)
    slope = 0.5 * math.pi * np.cos(0.5 * math.pi * t)
    own, shared = slope / root, slope * t
    np.fill_diagonal(own, 0.0)
    np.fill_diagonal(shared, 0.0)
    spectrum, vectors = np.asarray(spectrum, dtype=float), np.asarray(vectors, dtype=float)
    upper = np.triu(own ** 2, 1)
    pairs = [(i, l) for i in range(k) for l in range(k, p)] if k < p else \
        [(i, l) for i in range(p) for l in range(i + 1, p)]
    variances, weights = [], []
    for i, l in pairs:
        vi, vl = vectors[:, i], vectors[:, l]
        mixed = np.outer(vi, vl)
        mixed = mixed + mixed.T
        row = (vi * (shared @ vl) + (shared @ vi) * vl) / d
        variances.append(sigma ** 2 * (np.sum(upper * mixed ** 2) + 0.25 * np.sum(row ** 2)))
        weights.append(spectrum[i] - spectrum[l])
    variances, gaps = np.asarray(variances), np.asarray(weights)
    weights = 1.0 / gaps ** 2 if np.all(gaps > 0) else np.ones_like(gaps)
    return float(math.sqrt(2.0 * np.sum(weights * variances) / np.sum(weights)))


def rank_direction_accuracy(n, p, k, eps, delta, calibration="analytic") -> StepAccuracy:
    """Pre-release predicted sin-theta of the rank path's directions, from public numbers.

    Parameters
    ----------
    n, p, k : int
        Rows, columns, components (public).
    eps, delta : float
        The release's budget.
    calibration : {"analytic", "classic"}
        Gaussian calibration.

    Returns
    -------
    StepAccuracy
        Step ``"directions"``: min(1, sqrt(k (p - k)) (pi / 2) sigma / gap), sigma the tau
        noise sd for sensitivity 2 p / n, every gap lambda_i - lambda_l (i <= k < l) of the
        latent correlation (trace p) assumed to be trace / p = 1, as g-DPPCA's model assumes
        (:func:`dppca.methods.gdppca.direction_accuracy`); k = p: 0.

    Notes
    -----
    First-order perturbation (Stewart & Sun 1990, Ch. V, Thm 2.8), the derivation of
    :func:`sine_block_noise_sd` with public numbers only. The release puts noise of sd sigma
    on every tau entry; before the release the correlations are unknown, so each entry's
    bridge slope (pi / 2) cos(pi t / 2) is taken at its largest, pi / 2 (t = 0, continuous
    untied columns, d = 1; the tie and diagonal terms vanish there). The latent correlation's
    noise is then off-diagonal, iid, sd (pi / 2) sigma, invariant in law under rotations, so
    each sine-block entry v_i' E v_l / (lambda_i - lambda_l), i <= k < l, has sd
    (pi / 2) sigma / gap, and E ||sin Theta||_F^2 = k (p - k) ((pi / 2) sigma)^2 / gap^2: the
    noise spreads over the k (p - k) directions that leave the subspace, not over one
    spectral norm (the Davis-Kahan ||E|| / gap, about 2 sqrt(p) (pi / 2) sigma, overstated it by
    2 sqrt(p) / sqrt(k (p - k)), 1.7x at p = 6, k = 2). The gaps are the unknown: real
    spectra make this a typical value, not a bound (the released gaps decide the
    post-release row, :func:`rank_accuracy`).

    Examples
    --------
    >>> from dppca.methods.latent_correlation import rank_direction_accuracy
    >>> rank_direction_accuracy(2000, 5, 2, 4.0, 1e-5).reliable
    True
    """
    sigma = gaussian_sigma(rank_tau_sensitivity(n, p), eps, delta, calibration)
    return _direction_step(p, k, math.sqrt(2.0) * 0.5 * math.pi * sigma)


def _direction_step(p, k, sigma_matrix) -> StepAccuracy:
    """First-order sine block with unit gaps; ``sigma_matrix`` in g-DPPCA's convention (diagonal
    sd, off-diagonal sd sigma_matrix / sqrt 2), see :func:`rank_direction_accuracy`."""
    predicted = min(1.0, math.sqrt(k * (p - k) / 2.0) * sigma_matrix)
    return StepAccuracy("directions", "sin-theta of the top-k subspace", predicted, "sin-theta",
                        DIRECTION_THRESHOLD, f"latent correlation eigengaps lambda_i - lambda_l "
                        f"(i <= {k} < l) >= 1 (its trace p / p)",
                        "more eps, more rows or fewer columns")


def repelled_spectrum(spectrum, noise_sd) -> np.ndarray:
    """The released eigenvalues with the noise's repulsion taken out of each adjacent gap.

    Parameters
    ----------
    spectrum : array_like, shape (p,)
        Released eigenvalues, decreasing.
    noise_sd : float
        The noise in g-DPPCA's convention (diagonal sd s, off-diagonal s / sqrt 2), e.g.
        :func:`sine_block_noise_sd`.

    Returns
    -------
    ndarray, shape (p,)
        Same first value; adjacent gaps sqrt(max(g^2 - 2 s^2, 0)), g the released ones.

    Notes
    -----
    Noise pushes neighbouring eigenvalues apart: in the 2 x 2 block of two eigenvalues with gap
    g the released gap is sqrt((g + d_1 - d_2)^2 + 4 e^2), d_i = v_i' E v_i the noise on the
    diagonal of the eigenbasis and e = v_1' E v_2 the off-diagonal one (sd s / sqrt 2), so
    E g^2_released = g^2 + Var(d_1 - d_2) + 4 (s^2 / 2) >= g^2 + 2 s^2 (Stewart & Sun 1990,
    Ch. IV, the 2 x 2 case). Var(d_1 - d_2) is 2 s^2 for noise of g-DPPCA's law but smaller for
    the rank path's, whose diagonal is exactly 0 before the rotation (it depends on how spread
    out the eigenvectors are), so only the part every law has, 2 s^2, is taken out: the
    correction never removes more than the noise adds on average. Read as gaps, the released
    values overstate small gaps most, which hides random-level directions (e.g. a released gap
    0.47 with s = 0.33 where the true one is 0.22); a gap within the noise becomes
    0 (random level). Post-processing of released values. The post-release rule
    (:func:`rank_accuracy`) no longer applies it: with the repair's pull the net bias of the
    released gaps is small, and taking 2 s^2 off them flagged clear runs (see
    :func:`released_sine_draws`); it stays as a diagnostic of how much of a gap the noise can
    explain.

    References
    ----------
    Stewart, G. W. and Sun, J.-G. (1990), Matrix Perturbation Theory, Academic Press, Ch. IV.

    Examples
    --------
    >>> from dppca.methods.latent_correlation import repelled_spectrum
    >>> repelled_spectrum([3.0, 1.0, 0.9], 0.1).round(3).tolist()
    [3.0, 1.005, 1.005]
    """
    spectrum = np.asarray(spectrum, dtype=float)
    gaps = -np.diff(spectrum)
    gaps = np.sqrt(np.maximum(gaps ** 2 - 2.0 * float(noise_sd) ** 2, 0.0))
    return np.concatenate([spectrum[:1], spectrum[0] - np.cumsum(gaps)])


#: Draws of the post-release parametric bootstrap (:func:`released_sine_draws`) for p <= 100; the
#: Monte-Carlo sd of their median is about 0.5 / (f sqrt(draws)), f the draws' density at the
#: median (>= 1 wherever the median is between 0.2 and 0.9), so <= 0.03 in sin-theta.
BOOTSTRAP_DRAWS = 256
#: Fewest draws at any p (the count falls as p^-3 above p = 100, each draw costing O(p^3)).
BOOTSTRAP_MIN_DRAWS = 16
#: Seed of the bootstrap's own noise: a constant, so the prediction and the warning are
#: deterministic functions of the released values.
BOOTSTRAP_SEED = 0
#: The post-release step warns from this predicted (median) sin-theta on. A run's sin-theta
#: spreads widely around the prediction for a given release (its bootstrap draws span about
#: 0.2-1 at a median of 0.5, and the run's own value falls in that law as one more draw), so a
#: median of 0.5 is where random-level runs (>= 0.9) start to be common; warning only at a
#: median of 0.9 misses most of them. The trade-off between random-level runs warned and runs
#: below 0.5 warned, measured on real data sets, is in
#: ``benchmarks/results/rank_accuracy_80sets_3seeds.txt``.
RANK_WARNING_LEVEL = 0.5


def released_sine_draws(spectrum, k, noise_sd, draws=BOOTSTRAP_DRAWS, seed=BOOTSTRAP_SEED):
    """Parametric bootstrap of the top-k subspace's sin-theta, from the released eigenvalues.

    Parameters
    ----------
    spectrum : array_like, shape (p,)
        All eigenvalues of the released latent correlation, decreasing.
    k : int
        Dimension of the subspace, 1 <= k <= p.
    noise_sd : float
        The noise in g-DPPCA's convention (diagonal sd s, off-diagonal s / sqrt 2), e.g.
        :func:`sine_block_noise_sd`.
    draws : int
        Number of bootstrap draws for p <= 100 (fewer above, at least
        :data:`BOOTSTRAP_MIN_DRAWS`).
    seed : int
        Seed of the bootstrap's noise.

    Returns
    -------
    ndarray, shape (draws,)
        Each draw's sin-theta (largest principal angle) between the top-k eigenvectors of
        diag(spectrum) + F and the first k coordinate axes, F symmetric Gaussian of the law
        above. k = p: zeros; ``noise_sd`` = 0: zeros, or ones where lambda_k = lambda_{k+1}
        (the subspace is then not determined).

    Notes
    -----
    The released matrix is R + E, R the non-private latent correlation and E the noise that the
    tau release passes through the bridge. In R's eigenbasis only the eigenvalues and the noise's
    law matter when that law is invariant under rotation, so the bootstrap world is
    diag(spectrum) + F: the released eigenvalues stand in for R's (a parametric bootstrap,
    Efron & Tibshirani 1993, Ch. 6), and the sin-theta between its top-k eigenvectors and the
    axes is the error a release of that world would make. It keeps every effect the first-order
    formula drops: the noise's eigenvalue crossings (a gap within the noise makes the
    subspace random, so a noise-only spectrum gives draws near 1 without a separate test), the
    largest principal angle rather than the Frobenius norm of the sine block (up to sqrt(k)
    smaller), and higher orders in noise / gap.

    Why the released eigenvalues are used as they are: the noise repels neighbouring
    eigenvalues (second order, E lambda^_i - lambda_i ~ sum_{j != i} Var(v_i' E v_j) /
    (lambda_i - lambda_j), Stewart & Sun 1990, Ch. V), but the bridge's nearest-correlation
    repair pulls the spectrum back in (it clips negative eigenvalues and keeps the trace p),
    and on real data sets the net bias of the gap lambda_2 - lambda_3 was small and negative
    (released gaps slightly SMALLER than the non-private ones, by 0.02-0.04 at median gaps near
    0.6), while inverting the repulsion alone (a fixed point of the bootstrap's mean spectrum)
    shrank the gaps far too much and flagged clear runs as random
    (``benchmarks/bench_rank_accuracy.py``). Post-processing of released values with a fixed
    seed: deterministic, and no privacy cost.

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993), An Introduction to the Bootstrap, Chapman & Hall.
    Stewart, G. W. and Sun, J.-G. (1990), Matrix Perturbation Theory, Academic Press, Ch. V.

    Examples
    --------
    >>> from dppca.methods.latent_accuracy import released_sine_draws
    >>> draws = released_sine_draws([3.0, 2.0, 0.5, 0.5], 2, 0.01)
    >>> draws.shape, bool(draws.max() < 0.05)
    ((256,), True)
    >>> float(released_sine_draws([1.0, 1.0], 1, 0.0)[0])
    1.0
    """
    spectrum = np.asarray(spectrum, dtype=float)
    p, noise_sd = spectrum.size, float(noise_sd)
    if p > 100:
        draws = max(BOOTSTRAP_MIN_DRAWS, int(draws * (100.0 / p) ** 3))
    if k >= p:
        return np.zeros(draws)
    if noise_sd == 0.0:
        return np.full(draws, 1.0 if spectrum[k - 1] <= spectrum[k] else 0.0)
    rng = np.random.default_rng(seed)
    batch = max(1, 2 ** 22 // (p * p))
    sines = []
    for start in range(0, draws, batch):
        size = min(batch, draws - start)
        noise = rng.standard_normal((size, p, p))
        # (Z + Z') / 2: diagonal sd 1, off-diagonal sd 1 / sqrt 2 (g-DPPCA's law, rotation-invariant)
        noise = 0.5 * noise_sd * (noise + np.swapaxes(noise, 1, 2))
        _, vectors = np.linalg.eigh(np.diag(spectrum)[None] + noise)
        top = vectors[:, :, p - k:]  # eigh sorts increasing: the k largest are last
        sines.append(np.linalg.norm(top[:, k:, :], ord=2, axis=(1, 2)))
    return np.clip(np.concatenate(sines), 0.0, 1.0)


def rank_accuracy(p, k, sigma, spectrum=None, matrix_noise_sd=None, *,
                  design_sd=0.0) -> AccuracyReport:
    """The rank path's accuracy: the pre-release model and, with the release, the post-release one.

    Parameters
    ----------
    p, k : int
        Columns and components.
    sigma : float
        The tau release's noise sd (public: the ledger's).
    spectrum : array_like, shape (p,), optional
        All eigenvalues of the released latent correlation, decreasing (post-processing).
    matrix_noise_sd : float, optional
        The latent correlation's noise in g-DPPCA's convention (diagonal sd; off-diagonal sd
        that over sqrt 2), read from the release (:attr:`DirectionFit.matrix_noise_sd`, the
        block design's sampling sd included); default sqrt(2) (pi / 2) sqrt(sigma^2 +
        design_sd^2) (untied columns).
    design_sd : float
        The block design's extra sampling sd per tau entry over the complete statistic
        (:func:`dppca.stats.elementwise_kendall_blocks_design.block_design_sd`, public from n
        and the design); 0 for the complete statistic. It enters as noise of that sd, in
        quadrature with sigma (see Notes).

    Returns
    -------
    AccuracyReport
        Step "directions (post-release)" only with a spectrum; always step
        "directions (pre-release)" (:func:`rank_direction_accuracy`'s model). The post-release
        prediction is the median of :func:`released_sine_draws` (the released eigenvalues and
        ``matrix_noise_sd``; for continuous columns :func:`sine_block_noise_sd`, each entry's
        noise through the bridge's slope at its released value, in the released eigenbasis): the
        typical sin-theta to the non-private latent correlation directions of the same rows
        (the complete tau U-statistic's sampling error to the population is not in it; a block
        design's extra error over it is). It is unreliable from :data:`RANK_WARNING_LEVEL` on,
        and its quantity states the share of draws at the random level 0.9.

    Notes
    -----
    The non-private reference is the complete statistic T_C of the same rows. A block design's
    T_D differs from it by an error with E[T_D - T_C | X] = 0 and per-entry sd at most
    ``design_sd``, uncorrelated with the release's noise, so the released matrix is T_C plus
    an error of per-entry variance at most sigma^2 + design_sd^2: the models take that error as
    noise of the release's law (isotropic across entries, a first-order stand-in for the
    sampling error's correlated entries).

    Examples
    --------
    >>> from dppca.methods.latent_correlation import rank_accuracy
    >>> report = rank_accuracy(3, 1, 0.002, [2.0, 0.6, 0.4])
    >>> [step.step for step in report.steps]
    ['directions (pre-release)', 'directions (post-release)']
    >>> report.steps[1].reliable
    True
    """
    untied = math.sqrt(2.0) * 0.5 * math.pi * math.hypot(sigma, design_sd)
    before = _direction_step(p, k, untied)
    steps = [replace(before, step="directions (pre-release)", quantity=before.quantity
                     + ", from public n, p, eps, delta and an assumed gap")]
    if spectrum is not None:
        noise = untied if matrix_noise_sd is None else matrix_noise_sd
        draws = released_sine_draws(spectrum, k, noise)
        random_share = float(np.mean(draws >= RANDOM_LEVEL))
        steps.append(StepAccuracy(
            "directions (post-release)",
            "typical (median) sin-theta of the top-k subspace to the non-private latent "
            "correlation directions, by a parametric bootstrap from the released eigenvalues "
            f"({random_share:.0%} of its draws at the random level {RANDOM_LEVEL:g})",
            float(np.median(draws)), "sin-theta",
            # unreliable from RANK_WARNING_LEVEL on (reliable means <= threshold)
            math.nextafter(RANK_WARNING_LEVEL, 0.0),
            "the released eigenvalues stand in for the non-private ones, noise of the released "
            "law", "more eps, more rows, fewer columns or a smaller k (the released gaps say "
            "where they end)"))
    return AccuracyReport(steps)
