"""Private column scales (standard deviations) that never refuse, each read from its own evidence.

See :func:`private_column_scales`. Lower layer than the pipelines: used through
:func:`dppca.preprocessing.matrix.column_scales`, the one standardization path.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..privacy import Ledger
from ..stats.paired_differences import block_pairs, pair_differences, random_pairs
from .scale_accuracy import scale_accuracy, warn_if_unlocated
from .scale_design import (SCALE_BLOCK_ROWS, SCALE_EFFICIENT_CLIP, SCALE_LADDER_FACTOR,
                           SCALE_LADDER_WEIGHTS, SCALE_PILOT_SPACING, SCALE_PILOT_WEIGHTS, SCALE_SHARES,
                           clip_ratio, gaussian_clip_table)
from .scale_pooling import common_log_scale, pooled_log_scales
from .scale_releases import SCALE_OCTAVES, clipped_moment, moment_sensitivity, octave_loglik
from .scale_shape import bulk_edges


#: The grid of log2 (SD of the differences) on which each column's posterior is computed, and
#: its public prior: log2 s_D ~ N(0, SCALE_PRIOR_OCTAVES^2) (a weak prior: data in any units
#: from 2^-20 to 2^20 are within ~1.7 prior sd; it only breaks ties between noise peaks).
SCALE_GRID_STEP = 1 / 8
_GRID = np.arange(SCALE_OCTAVES[0] - 8, SCALE_OCTAVES[1] + 8 + 1e-9, SCALE_GRID_STEP)
SCALE_PRIOR_OCTAVES = 12.0
#: Non-zero fractions pi of the differences on which the posterior is computed (a column with
#: many zeros: D ~ (1 - pi) delta_0 + pi N(0, s^2), whose SD is sqrt(pi) s).
_FRACTIONS = 2.0 ** -np.arange(0.0, 9.1, 0.75)
#: Pooling (:func:`dppca.preprocessing.scale_pooling.pooled_log_scales`) works on each column's
#: posterior mean and sd of ln SD_D where that sd is at most ``SCALE_SHARP_OCTAVES`` (a located,
#: near-normal posterior); a broader (possibly multi-modal) posterior gets the same prior on the
#: grid, whose 1/8-octave step carries no pooled half narrower than ``SCALE_GRID_PRIOR_OCTAVES``.
SCALE_SHARP_OCTAVES = 0.25
SCALE_GRID_PRIOR_OCTAVES = 0.25
#: Expected relative noise at which the final clip may be raised above the efficient c*. 0: the
#: final clip is always c* (the upper rungs of the ladder reach the tails of heavy-tailed and
#: mostly-zero columns). A raised clip costs noise (the relative noise grows as 1 / (r(c) E(c)),
#: least at c*), and that noise reaches the directions of every standardized call; measured in
#: benchmarks/results/small_data_readme_parts.txt.
SCALE_HIGH_CLIP_NOISE = 0.0
#: A column is (near-)constant to the private estimate when its pilot and first final moments
#: are both below this many noise sd (a column placed at its own scale has moments ~0.4-0.5) ...
SCALE_DETECTION_SD = 2.0
#: ... and the pilot's noise sd (a public number: n, p, budget) is at most this, so that a
#: non-constant column is flagged with probability < 1e-3 (0.4 - 2 x 0.1 is 2 sd above 0).
SCALE_FLOOR_MAX_NOISE = 0.1
#: An upper rung is used when its reading exceeds what rung 0's (Gaussian) fit predicts there by
#: at least this many noise sd: evidence of a heavier tail than the Gaussian (a Gaussian column
#: passes by noise with probability 3e-5 per rung). Measured: the former rule (reading precise
#: to 1/8, v >= 4 sd, whatever rung 0 predicts) let noise pick a rung 1 whose expected reading is
#: ~2 sd, then read that noise as a scale 1.5x-1.7x too large for a Gaussian column.
SCALE_RUNG_EXCESS_SD = 4.0


_CLIP_C, _CLIP_R, _CLIP_ELASTICITY = gaussian_clip_table()
_CLIP_R_STAR, _CLIP_E_STAR = (float(a[np.argmax(_CLIP_R * _CLIP_ELASTICITY)])
                              for a in (_CLIP_R, _CLIP_ELASTICITY))


def private_column_scales(mat, eps=None, delta=None, rng=None, *, calibration="analytic",
                          ledger: Ledger | None = None, noise=None) -> np.ndarray:
    """Private column standard deviations that never refuse: three joint Gaussian releases.

    The target is the column SD, estimated from paired differences D = x_a - x_b (E D^2 =
    2 Var X, translation invariant, no private centre needed): the histograms of step 1 use the
    m = floor(n/2) disjoint random pairs of :func:`dppca.stats.paired_differences.random_pairs`; the
    clipped moments of steps 2-3 average over all pairs inside the blocks of ~``SCALE_BLOCK_ROWS``
    rows of a random block design (:func:`dppca.stats.paired_differences.block_pairs`, an
    incomplete U-statistic): the same sensitivity as the disjoint pairs' mean, about half its
    sampling variance. For each column j, with a = |D|:

    Each column is read from its own releases (no pooled octave; the other columns only pull in
    columns whose readings are alike within their noise, or that say nothing, step 4): a Bayesian
    posterior of (pi_j, log2 s_j) on a grid, where the model is
    D ~ (1 - pi) delta_0 + pi N(0, s^2) (pi < 1 for columns with many zeros) and the target is
    the SD of the differences, sqrt(pi) s. The public prior is weak: log2 s ~ N(0, 12^2)
    (``SCALE_PRIOR_OCTAVES``), log pi uniform on 2^0 .. 2^-9. With a = |D|:

    1. **Where is the column?** Counts of a in the octave bins [2^b, 2^(b+1)), b = -64..63, plus
       one end bin below (zeros included) and one above, all p columns in one Gaussian release.
       Their likelihood under the model (:func:`dppca.preprocessing.scale_releases.octave_loglik`)
       covers 128 octaves at once.
    2. **Pilot: a wide ladder (a private log-scale search in one release).** The clipped second
       moment v = mean_i min(a_i, C)^2 / C^2 in [0, 1] at C_k = 2^(c_j + 3k), k = -3..3, around
       the posterior median c_j of step 1, jointly with equal weights. Each reading is
       v_k ~ N(pi r(C_k / s), sd^2), r(c) = E min(Z^2, c^2) / c^2 (Huber 1981, §5.3's consistency
       correction of a winsorized variance): a rung far below s reads ~pi, one far above reads
       ~0, and the rungs near s locate it to a fraction of an octave, over ~+-13 octaves.
    3. **Final moment, on a clip ladder.** The same statistic at C3 = c s_j, s_j the posterior
       median after steps 1-2 and c = c* = 1.37 (the clip with the least noise per budget for
       Gaussian data; raised to c* 2^(k/2) when the public noise level makes that precise to
       ``SCALE_HIGH_CLIP_NOISE``, 0 by default: never), and at 4^k C3, k = 1..4, in one
       Gaussian release with weights ``SCALE_LADDER_WEIGHTS`` (1, 1/4, 1/4, 1/4, 1/4). Per
       column the highest rung k whose readings at rungs 1..k exceed rung 0's Gaussian
       prediction by ``SCALE_RUNG_EXCESS_SD`` noise sd (evidence of a heavier tail) wins: its
       own reading, a C sqrt-like inversion of v (for heavy-tailed columns a higher clip is
       closer to the SD); at rung 0 the scale is the posterior mean of ln(sqrt(pi) s) given all of steps 1-3.
       Binary and few-valued columns (post-processing of step 1): where the released octave
       counts put every |D| below an octave edge 2^e (a two-point fit, or a bound on the counts
       missed above), C3 = 2^e instead and the rung-0 scale is C3 sqrt(v), no shape correction
       (:func:`dppca.preprocessing.scale_shape.bulk_edges`; with the Gaussian correction a
       binary column read 1.1-1.3x its SD with the noise off).
    4. **Borrowing strength as far as the columns are alike** (post-processing, >= 4 columns
       read at rung 0, edge-read ones included): each column's reading of ln SD_D and its
       standard error (the posterior sd, or the edge reading's delta-method sd) go into a
       positive-part James-Stein pooling towards the columns' median, with their robust spread
       less the noise as tau (at least 1/32 octave), half of the prior left to the weak one
       (:func:`dppca.preprocessing.scale_pooling.pooled_log_scales`); a column whose posterior
       sd exceeds ``SCALE_SHARP_OCTAVES`` gets that prior on the grid instead (tau at least
       ``SCALE_GRID_PRIOR_OCTAVES``). Scales spanning octaves keep their readings (tau of
       octaves against standard errors of a few percent: shrinkage ~0.001), columns the
       releases cannot tell apart are pulled together (columns standardized to one SD), an
       outlying column keeps its own.

    Why this estimator: private quantiles per column (exponential mechanism, smooth sensitivity)
    cost a budget that grows with p under pure-DP composition, and a Gaussian histogram of
    quantile-resolution bins has noise in every bin; a clipped mean of bounded terms has the
    smallest sensitivity (2/n per column), all p columns share one Gaussian release, and the
    Gaussian releases of the three steps compose in Gaussian DP (Dong, Roth and Su 2022). The
    consistency correction makes a *low* clip unbiased at the Gaussian, and a low clip is what
    keeps the noise small at n ~ 1000 (relative noise of the SD ~ 2.34 / (m mu_j) at c*, with
    mu_j the per-column Gaussian-DP parameter); clipped second moments of paired differences
    are Biswas et al. (2020, CoinPress)'s and Karwa & Vadhan (2018)'s private variance idea
    without their public range.

    What the scale means: for Gaussian columns, the SD. For heavy-tailed or mostly-zero columns
    (e.g. 92-95% zeros), the Gaussian-consistent SD of the differences winsorized at the final
    clip: never 0 while the non-zero part is detectable (zeros fall in the end bin below and
    are not matched by the octave step), close to the SD when the budget lets the clip ladder
    reach the tail (a heavy tail whose robust scale is a fifth of its SD reads 0.35-1.0 SD at
    eps = 1), and below the SD when a few extreme rows carry most of the variance (a top-code
    on 0.5% of the rows holding ~90% of the variance: the scale is the spread of the other
    rows, ~0.2 SD). Winsorizing is what bounds the sensitivity; no private release can see a
    variance carried by a handful of rows.

    Columns that look constant: when the pilot's noise sd is at most ``SCALE_FLOOR_MAX_NOISE``
    (public: n, p, budget) and the sum of the pilot rungs and the first final moment is below
    ``SCALE_DETECTION_SD`` noise sd, the releases cannot tell the column from a constant; a
    ``UserWarning`` names it (the decision uses released numbers only) and its posterior
    estimate is kept (dividing a (near-)constant column by any positive number does not change
    the directions of the translation-invariant methods). Scales are never 0 or inf: the grid
    is bounded (2^-72 .. 2^72) and the clips are kept in [2^-72, 2^72].

    Parameters
    ----------
    mat : dppca.preprocessing.Matrix, shape (n, p), n >= 2
        ``values`` a numpy array, or a dask array: then each group of ``SCALE_SUM_ROWS`` pairs
        is gathered, differenced and reduced on the workers (three passes), and the scales are
        the same doubles as in memory for any chunking or scheduler.
    eps, delta : float, optional
        The scale budget, when ``noise`` is not given.
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger, optional
        Receives three releases (shares of the budget in Gaussian-DP terms).
    noise : dppca.privacy.composition.GaussianShare, optional
        A share of a call-wide Gaussian-DP group (then eps and delta are ignored).

    Returns
    -------
    ndarray, shape (p,)
        Positive, finite scales (data units).

    Raises
    ------
    DPPCAValueError
        Only for public facts: neither a budget nor ``noise`` given.

    Warns
    -----
    UserWarning
        Columns that look constant to the releases (decided from the releases).

    Notes
    -----
    Privacy (replace-one, n public; the pairings are drawn from ``rng`` independently of the data):

    * Release 1 (disjoint pairs: a replaced row changes exactly one pair): one a_ij moves from
      one bin to another, so per column at most two counts change
      by 1: L2 sensitivity sqrt(2 p) for the p histograms. Counts are exact integers.
    * Releases 2 and 3: the clips are functions of earlier releases only (adaptive composition),
      and the block design is drawn from ``rng`` independently of the data. Each term
      min(a, C)^2 / C^2 lies in [0, 1] in floating point; a replaced row is in S - 1 of the
      S(S - 1)/2 pairs of its block (S rows), so the statistic sum_S (R_S / n) mean_S (R_S rows
      in the blocks of size S) moves by at most 2/n per column in exact arithmetic, and by
      at most 2/n + 2^-41 as computed (the grouped sums, the division and the
      weights: :func:`dppca.preprocessing.scale_releases.moment_sensitivity`); L2 sensitivity
      sqrt(p) (2/n + 2^-41) jointly, and sqrt(p sum_k w_k^2) (2/n + 2^-41) for the weighted
      ladder (w_k times the statistic at rung k).
    * The three Gaussian releases, with shares ``SCALE_SHARES`` of mu^2 of the budget, compose to
      one mu-GDP mechanism, (eps, delta)-DP (Dong, Roth and Su 2022, Cor. 3.3); the rest is
      post-processing. |x_a - x_b| is computed per pair (a difference, no cancelling sums) and an
      overflow to inf is clamped to the largest double, so every value is finite.

    References
    ----------
    Huber, P. J. (1981). Robust Statistics, §5.3. Dong, J., Roth, A. and Su, W. J. (2022).
    Gaussian differential privacy. JRSS-B 84(1). Karwa, V. and Vadhan, S. (2018). Finite sample
    differentially private confidence intervals. ITCS. Biswas, S., Dong, Y., Kamath, G. and
    Ullman, J. (2020). CoinPress: practical private mean and covariance estimation. NeurIPS.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing import as_matrix, private_column_scales
    >>> X = np.random.default_rng(0).normal(size=(5000, 3)) * [1, 10, 100]
    >>> s = private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(1))
    >>> bool(np.all((s > 0.8 * np.array([1, 10, 100])) & (s < 1.25 * np.array([1, 10, 100]))))
    True
    """
    noise = _scale_noise(noise, eps, delta, calibration)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    warn_if_unlocated(noise, mat.n // 2, mat.p)
    first, second = random_pairs(mat.n, rng)
    absdiff = pair_differences(mat.values, first, second)
    loglik, histogram = octave_loglik(absdiff, noise.group.share(noise.fraction * SCALE_SHARES[0]), rng,
                           ledger, _GRID, _FRACTIONS)
    pairs = block_pairs(mat.values, SCALE_BLOCK_ROWS, rng)
    centre = _posterior_median(loglik)
    steps = np.arange(len(SCALE_PILOT_WEIGHTS)) - len(SCALE_PILOT_WEIGHTS) // 2
    pilot_clips = _clip_range(np.exp2(centre + SCALE_PILOT_SPACING * steps[:, None]))
    pilot = clipped_moment(pairs, pilot_clips, noise.group.share(noise.fraction * SCALE_SHARES[1]),
                           rng, ledger, "scale: pilot clipped second moments of |x_a - x_b| (wide ladder)",
                           weights=SCALE_PILOT_WEIGHTS)
    loglik = loglik + _moment_loglik(pilot)
    final_noise = noise.group.share(noise.fraction * SCALE_SHARES[2])
    sigma_final = final_noise.sigma(moment_sensitivity(mat.n, mat.p))
    median = _posterior_median(loglik)
    edge = bulk_edges(histogram, median, np.exp(_log_sd(loglik, _weak_prior())[0]), sigma_final,
                      sigma_final / (_CLIP_R_STAR * _CLIP_E_STAR))
    final_clip = np.where(np.isnan(edge), _final_clip(np.exp2(median), sigma_final), edge)
    ladder = final_clip * SCALE_LADDER_FACTOR ** np.arange(len(SCALE_LADDER_WEIGHTS))[:, None]
    final = clipped_moment(pairs, _clip_range(ladder), final_noise, rng, ledger,
                           "scale: final clipped second moments of |x_a - x_b| (clip ladder)",
                           weights=SCALE_LADDER_WEIGHTS)
    sd_diff, floored = _combine(loglik, pilot, final, ~np.isnan(edge))
    if floored.any():
        warnings.warn(f"columns {[c for c, f in zip(mat.columns, floored) if f]} look (near-)constant "
                      "to the private scale estimate (no moment is above its noise); their scales are not "
                      "identified by the releases (their estimates are used)",
                      UserWarning, stacklevel=2)
    return sd_diff / np.sqrt(2.0)


def _scale_noise(noise, eps, delta, calibration):
    from .._validation import DPPCAValueError
    from ..privacy.composition import GaussianGroup

    if noise is not None:
        return noise
    if eps is None or delta is None:
        raise DPPCAValueError("private column scales need a budget: give `eps` and `delta`")
    return GaussianGroup(eps, delta, calibration).share(1.0)


def _moment_loglik(moment, rows=None) -> np.ndarray:
    """Gaussian log-likelihood of noisy clipped moments, v_k ~ N(pi r(C_k / s), sd_k^2), summed
    over the rungs ``rows`` (all by default), for each column, non-zero fraction pi on
    ``_FRACTIONS`` and log2 s on ``_GRID``: (p, F, G). Where v is within the noise of 0 or 1
    the likelihood is flat on that side: a noise draw is not read as a scale."""
    v, clip = np.atleast_2d(moment["value"]), np.atleast_2d(moment["clip"])
    sd = np.broadcast_to(np.atleast_2d(moment["sd"]), v.shape)
    rows = range(v.shape[0]) if rows is None else rows
    total = np.zeros((v.shape[1], _FRACTIONS.size, _GRID.size))
    for k in rows:
        r = clip_ratio(np.exp2(np.log2(clip[k])[:, None] - _GRID))[:, None, :] * _FRACTIONS[:, None]
        total -= (v[k][:, None, None] - r) ** 2 / (2 * sd[k][:, None, None] ** 2)
    return total


def _posterior(loglik, prior) -> np.ndarray:
    """Posterior weights over (pi, log2 s), (p, F, G), under the log-prior ``prior`` (broadcast)."""
    logpost = loglik + prior
    weights = np.exp(logpost - logpost.max(axis=(1, 2), keepdims=True))
    return weights / weights.sum(axis=(1, 2), keepdims=True)


def _posterior_median(loglik) -> np.ndarray:
    """Per column, the posterior median of log2 s (the non-zero part's SD) on ``_GRID`` under
    the weak public prior (robust to a second mode)."""
    cdf = np.cumsum(_posterior(loglik, _weak_prior()).sum(axis=1), axis=1)
    return _GRID[np.minimum(np.argmax(cdf >= 0.5, axis=1), _GRID.size - 1)]


def _weak_prior() -> np.ndarray:
    """log2 s ~ N(0, ``SCALE_PRIOR_OCTAVES``^2), log pi uniform on its grid: shape (1, 1, G)."""
    return -(_GRID ** 2 / (2 * SCALE_PRIOR_OCTAVES ** 2))[None, None, :]


def _log2_sd() -> np.ndarray:
    """log2 of the SD of the differences, sqrt(pi) s, on the (pi, log2 s) grid: (F, G)."""
    return _GRID[None, :] + 0.5 * np.log2(_FRACTIONS)[:, None]


def _log_sd(loglik, prior) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and sd of u = ln(sqrt(pi) s), the SD of the differences (E D^2 = pi s^2);
    the sd at least the grid's rounding sd, step / sqrt(12) (a posterior on one grid point)."""
    weights = _posterior(loglik, prior)
    u = _log2_sd() * np.log(2)
    centre = np.einsum("pfg,fg->p", weights, u)
    spread = np.sqrt(np.maximum(np.einsum("pfg,pfg->p", weights, (u - centre[:, None, None]) ** 2), 0))
    return centre, np.maximum(spread, np.log(2) * SCALE_GRID_STEP / np.sqrt(12))


def _pooled_prior(mu, tau) -> np.ndarray:
    """The log-prior on the grid, (1, F, G): a half-half mixture of the weak prior and N(mu, tau^2)
    on u = ln SD_D (:func:`dppca.preprocessing.scale_pooling.pooled_log_scales`' model)."""
    u = _log2_sd() * np.log(2)
    pooled = -(u - mu) ** 2 / (2 * tau ** 2) - np.log(tau) + np.log(np.log(2) * SCALE_PRIOR_OCTAVES)
    return np.logaddexp(_weak_prior()[0], pooled)[None] + np.log(0.5)


def _point_scale(moment) -> tuple[np.ndarray, np.ndarray]:
    """The inversion s = C / r^-1(v) and its delta-method relative sd, sd_v / (v E(c)) (inf where
    v is outside the grid's range: the moment does not locate the scale). Used for the upper rungs,
    whose clips lie at several SDs where r(c) ~ 1/c^2 and the reading is C sqrt(v)."""
    v = np.atleast_2d(moment["value"])
    inside = (v > _CLIP_R[-1]) & (v < _CLIP_R[0])
    clipped = np.clip(v, _CLIP_R[-1], _CLIP_R[0])
    c = np.interp(-clipped, -_CLIP_R, _CLIP_C)  # r is decreasing in c
    elasticity = np.interp(-clipped, -_CLIP_R, _CLIP_ELASTICITY)
    relative = np.where(inside, moment["sd"] / (clipped * np.maximum(elasticity, 1e-3)), np.inf)
    return np.atleast_2d(moment["clip"]) / c, relative


def _final_clip(scale, sigma_v) -> np.ndarray:
    """c* x the SD of the differences so far, or the largest multiple of it whose predicted
    relative noise is small."""
    factors = SCALE_EFFICIENT_CLIP * 2.0 ** np.arange(0.0, 40.5, 0.5)
    factors = factors[factors <= _CLIP_C[-1]]
    rel = sigma_v / (np.interp(factors, _CLIP_C, _CLIP_R) * np.interp(factors, _CLIP_C, _CLIP_ELASTICITY))
    affordable = factors[rel <= SCALE_HIGH_CLIP_NOISE]
    highest = affordable[-1] if affordable.size else SCALE_EFFICIENT_CLIP
    return _clip_range(scale * highest)


def _clip_range(clip) -> np.ndarray:
    low, high = SCALE_OCTAVES
    return np.clip(clip, np.ldexp(1.0, low - 8), np.ldexp(1.0, high + 8))


def _combine(loglik, pilot, final, bounded) -> tuple[np.ndarray, np.ndarray]:
    """Final SD of the differences per column, and which columns are floored.

    Each column's own reading of ln SD_D and its standard error: at rung 0, the posterior mean
    and sd given the histograms, the pilot ladder and the first final moment (``loglik`` holds
    the first two) under the weak prior; where the first clip is the edge above the bulk of |D|
    (``bounded``, :func:`dppca.preprocessing.scale_shape.bulk_edges`), no shape correction:
    C sqrt(v) (v read in [2^-40, 1]), with its delta-method sd sd_v / (2 v). The rung-0 readings
    are then pooled (:func:`dppca.preprocessing.scale_pooling.pooled_log_scales`); a column
    whose higher rung is chosen (:func:`_chosen_rung`) keeps that rung's own reading
    (:func:`_point_scale`).
    """
    value0 = np.clip(final["value"][0], 2.0 ** -40, 1.0)
    edge_read = np.log(final["clip"][0] * np.sqrt(value0))
    bounded = bounded & (final["value"][0] > 0)  # a reading at or below 0 says nothing: posterior
    loglik = loglik + np.where(bounded[:, None, None], 0.0, _moment_loglik(final, rows=[0]))
    own, spread = _log_sd(loglik, _weak_prior())
    sd0 = np.broadcast_to(np.atleast_2d(final["sd"]), np.atleast_2d(final["value"]).shape)[0]
    own = np.where(bounded, edge_read, own)
    spread = np.where(bounded, sd0 / (2 * value0), spread)
    rung = _chosen_rung(final, own)
    log_s0, _ = pooled_log_scales(own, spread, rung == 0, np.log(2) * SCALE_PRIOR_OCTAVES)
    common = common_log_scale(own, spread, rung == 0)
    if common is not None:  # columns not sharp enough for a normal summary: on the grid
        grid_tau = max(common[1], np.log(2) * SCALE_GRID_PRIOR_OCTAVES)
        on_grid, _ = _log_sd(loglik, _pooled_prior(common[0], grid_tau))
        log_s0 = np.where(bounded | (spread <= np.log(2) * SCALE_SHARP_OCTAVES), log_s0, on_grid)
    high, _ = _point_scale(final)
    cols = np.arange(rung.size)
    log_sd = np.where(rung == 0, log_s0, np.log(high[rung, cols]))
    sd2 = pilot["sd"][0]
    # the pilot rungs and the first final moment summed: a constant column reads 0 + noise in
    # each, a column with any spread reads ~pi or more in the rungs below its scale
    total = pilot["value"].sum(axis=0) + final["value"][0]
    noise = np.sqrt(np.sum(np.broadcast_to(pilot["sd"], pilot["value"].shape) ** 2, axis=0)
                    + final["sd"][0] ** 2)
    silent = total < SCALE_DETECTION_SD * noise
    return np.exp(log_sd), (sd2 <= SCALE_FLOOR_MAX_NOISE) & silent


def _chosen_rung(final, log_s0) -> np.ndarray:
    """Per column, the highest rung k such that rungs 1..k all read more than rung 0's Gaussian
    fit predicts, v_k >= r(C_k / s_0) + ``SCALE_RUNG_EXCESS_SD`` sd_k (rung 0 when rung 1 does
    not): the largest clip at which the release shows a heavier tail than the Gaussian. For a
    Gaussian column every rung estimates the same SD, so an upper rung would only add its noise
    (and the selection would favour noise that reads the scale too large); for a heavy-tailed or
    mostly-zero column a higher clip is closer to its SD. Post-processing of the releases."""
    v, clip = np.atleast_2d(final["value"]), np.atleast_2d(final["clip"])
    sd = np.broadcast_to(np.atleast_2d(final["sd"]), v.shape)
    predicted = clip_ratio(clip / np.exp(log_s0))
    excess = v - predicted >= SCALE_RUNG_EXCESS_SD * sd
    return np.cumprod(excess[1:], axis=0).sum(axis=0)  # rungs 1..k all in excess


__all__ = ["clip_ratio", "private_column_scales", "scale_accuracy"]
