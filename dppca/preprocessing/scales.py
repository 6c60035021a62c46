"""Private column scales (standard deviations) that never refuse.

See :func:`private_column_scales`. Lower layer than the pipelines: used through
:func:`dppca.preprocessing.matrix.column_scales`, the one standardization path.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..privacy import Ledger
from ..stats.paired_differences import pair_differences
from .scale_releases import SCALE_OCTAVES, clipped_moment, moment_sensitivity, private_octaves


#: Shares of the scale budget (of its Gaussian-DP mu^2): octave histograms, pilot, final moment.
SCALE_SHARES = (0.2, 0.4, 0.4)
#: Expected relative noise at which the final clip may be raised above the efficient c* (so
#: that heavy-tailed and mostly-zero columns get a scale close to their SD when n allows).
SCALE_HIGH_CLIP_NOISE = 0.05
#: A column is (near-)constant to the private estimate when its pilot and first final moments
#: are both below this many noise sd (a column placed at its own scale has moments ~0.4-0.5) ...
SCALE_DETECTION_SD = 2.0
#: ... and the pilot's noise sd (a public number: n, p, budget) is at most this, so that a
#: non-constant column is flagged with probability < 1e-3 (0.4 - 2 x 0.1 is 2 sd above 0).
SCALE_FLOOR_MAX_NOISE = 0.1
#: The final moment is released at the clips C3 x 4^k, k = 0..4 (a ladder spanning 8 octaves
#: above C3), with weights (1, 1/2, 1/2, 1/2, 1/2) in one Gaussian release: rung 0 (the
#: efficient clip) keeps most of the precision; the higher rungs reach the tails of heavy-tailed
#: columns (flights' delays) and the non-zero part of mostly-zero columns (their bulk is 0).
SCALE_LADDER_FACTOR = 4.0
SCALE_LADDER_WEIGHTS = (1.0, 0.5, 0.5, 0.5, 0.5)
#: An upper rung is used when its reading's relative sd is at most this (v >= 4 noise sd).
SCALE_RUNG_NOISE = 1 / 8


def _gaussian_clip_table():
    """r(c) = E min(Z^2, c^2) / c^2 and E(c) = -d log r / d log c on c = 2^-6..2^6 (Z ~ N(0, 1)).

    The grid is also the support of the posterior of :func:`_gaussian_scale`: a moment moves its
    clip by at most 6 octaves (the octave step places the clip to within a few, or at the pooled
    octave when a column has no evidence of its own)."""
    from scipy.special import ndtr

    c = 2.0 ** np.arange(-6.0, 6.0 + 1e-9, 1 / 64)
    tail = 2 * ndtr(-c)  # P(|Z| > c)
    inside = (1 - tail) - 2 * c * np.exp(-c * c / 2) / np.sqrt(2 * np.pi)  # E Z^2 1{|Z| < c}
    r = inside / c ** 2 + tail
    return c, r, 2 * (1 - tail / r)


_CLIP_C, _CLIP_R, _CLIP_ELASTICITY = _gaussian_clip_table()
#: c* = argmax r(c) E(c): the clip (in SDs of the differences) where the Gaussian-consistent
#: clipped second moment has the least noise per unit of budget (c* = 1.37).
SCALE_EFFICIENT_CLIP = float(_CLIP_C[np.argmax(_CLIP_R * _CLIP_ELASTICITY)])


def private_column_scales(mat, eps=None, delta=None, rng=None, *, calibration="analytic",
                          ledger: Ledger | None = None, noise=None) -> np.ndarray:
    """Private column standard deviations that never refuse: three joint Gaussian releases.

    The target is the column SD, estimated from the paired differences D = x_a - x_b of the
    m = floor(n/2) disjoint random pairs of :func:`dppca.preprocessing.matrix.random_pairs` (E D^2 =
    2 Var X, translation invariant, no private centre needed). For each column j, with a = |D|:

    1. **Where is the column?** Counts of a in the octave bins [2^b, 2^(b+1)), b = -64..63, plus
       one end bin below (zeros included) and one above, all p columns in one Gaussian release.
       Each column's noisy counts are matched against the octave profile of |N(0, s^2)|; the
       octave b_j maximises that evidence z_j(b)^2 / 2 minus ``SCALE_OCTAVE_PENALTY`` per octave
       of distance to the octave of the pooled counts (a log-prior: with little data the columns
       follow the pooled octave, with much data their own); the pooled octave itself pays
       ``SCALE_UNIT_PENALTY`` per octave of distance to scale 1. Only octaves with evidence
       z >= ``SCALE_OCTAVE_Z`` compete with the default (no evidence: scale about 1 pooled, the
       pooled octave per column). The chosen octave is refined to a fraction of an octave by
       parabolic interpolation of the evidence curve it came from.
    2. **Pilot.** The clipped second moment v = mean_i min(a_i, C)^2 / C^2 in [0, 1] at
       C = 2^(b_j + 1/2), released jointly. It is read as a *Gaussian-consistent* scale:
       v ~ N(r(C / s_D), sd_v^2), r(c) = E min(Z^2, c^2) / c^2 (Huber 1981, §5.3's consistency
       correction of a winsorized variance), and s_D = exp(E[log s_D | v]) on the grid
       C / s_D in [1/64, 64] under the prior log2 s_D ~ N(log2 C, b^2), b = 1, 2 or 4 octaves
       when the octave came from the column's counts, the pooled counts or the default
       (``SCALE_PRIOR_OCTAVES``; :func:`_gaussian_scale`). Where the noise is small this is the
       unique solution of r(C / s_D) = v; where v is within the noise of 0 or 1 it does not read
       a noise draw as a scale, and the posterior sd says how uncertain it is.
    3. **Final moment, on a clip ladder.** The same statistic at C3 = c s_D with c = c* = 1.37
       (the clip with the least noise per budget for Gaussian data; raised to c* 2^(k/2) when
       the public noise level makes that precise to ``SCALE_HIGH_CLIP_NOISE``), and at 4^k C3,
       k = 1..4, all in one Gaussian release with weights (1, 1/2, 1/2, 1/2, 1/2) (the first
       rung keeps most of the precision). Per column the highest rung k whose readings at rungs
       1..k are precise (relative sd <= ``SCALE_RUNG_NOISE``) wins: the largest clip the budget
       measures well. For Gaussian columns all rungs read the same SD; for heavy-tailed and
       mostly-zero columns a higher clip is closer to the SD. Scale = Gaussian-consistent
       s_D / sqrt(2); at rung 0 the pilot's posterior is the prior of the final moment
       (sequential Bayes, so both moments count by their precision).
    4. **Shrinkage** (post-processing, p >= 4): the log scales are shrunk by empirical Bayes
       (:func:`_shrunk`) towards the scale all columns would share if they had one, read from
       every column's pilot and first final moments together (:func:`_common_scale`, ~sqrt(p)
       times more precise than one column). It matters only when the noise is comparable to the
       spread of the column scales (small n or budget); columns on different scales are left
       alone.

    Why this estimator: private quantiles per column (exponential mechanism, smooth sensitivity)
    cost a budget that grows with p under pure-DP composition, and a Gaussian histogram of
    quantile-resolution bins has noise in every bin; a clipped mean of bounded terms has the
    smallest sensitivity (1/m per column), all p columns share one Gaussian release, and the
    Gaussian releases of the three steps compose in Gaussian DP (Dong, Roth and Su 2022). The
    consistency correction makes a *low* clip unbiased at the Gaussian, and a low clip is what
    keeps the noise small at n ~ 1000 (relative noise of the SD ~ 2.34 / (m mu_j) at c*, with
    mu_j the per-column Gaussian-DP parameter); clipped second moments of paired differences
    are Biswas et al. (2020, CoinPress)'s and Karwa & Vadhan (2018)'s private variance idea
    without their public range.

    What the scale means: for Gaussian columns, the SD. For heavy-tailed or mostly-zero columns
    (adult's capital_gain and capital_loss: 92% and 95% zeros), the Gaussian-consistent SD of
    the differences winsorized at the final clip: never 0 while the non-zero part is detectable
    (zeros fall in the end bin below and are not matched by the octave step), close to
    the SD when the budget lets the clip ladder reach the tail (flights' dep_delay, whose robust
    scale is 0.18 SD: 0.35-1.0 SD at eps = 1; capital_loss ~0.8 SD), and below the SD when a
    few extreme rows carry most of the variance (capital_gain's 99999, 0.5% of the rows, make
    ~90% of its variance: its scale is ~0.2 SD, the spread of the other non-zero gains).

    Floor: when the pilot's noise sd is at most ``SCALE_FLOOR_MAX_NOISE`` (public: n, p, budget),
    a column whose pilot and first final moments are both below ``SCALE_DETECTION_SD`` noise
    sd cannot be told from a constant: its scale is set to the detection limit
    C2 sqrt(2 sd_v) / sqrt(2) (the SD whose moment would sit at the threshold) and a
    ``UserWarning`` names it (the decision uses released numbers only). With more noise no
    column is flagged (the test would have no power) and every scale is the estimate.
    Dividing a (near-)constant column by any positive number does not change the directions of
    the translation-invariant methods. Scales are never 0 or inf: the clips are kept in
    [2^-72, 2^72] and a moment moves its clip by at most 64x.

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
        Columns floored at the detection limit (decided from the releases).

    Notes
    -----
    Privacy (replace-one, n public; the pairing is drawn from ``rng`` independently of the data,
    so a replaced row changes exactly one pair, hence one a_ij per column):

    * Release 1: one a_ij moves from one bin to another, so per column at most two counts change
      by 1: L2 sensitivity sqrt(2 p) for the p histograms. Counts are exact integers.
    * Releases 2 and 3: the clips are functions of earlier releases only (adaptive composition), and
      min(a, C) / C lies in [0, 1] in floating point (min(a, C) <= C, and correctly rounded
      division of a number <= C by C is <= 1), so each term is in [0, 1]; one term changes, so
      the exact mean of the (computed) terms moves by at most 1/m per column. Each group of
      ``SCALE_SUM_ROWS`` pairs is summed correctly rounded (``math.fsum``), S_g (1 + d_g), and the
      group sums again, T = sum_g S_g (1 + d_g) (1 + d), |d_g|, |d| <= u = 2^-53: the terms are
      non-negative, so |T - S| <= (2u + u^2) S <= (2u + u^2) m; dividing by m rounds once more:
      the computed mean is within 3u + u^2 < 2^-51 of the exact one, whatever the grouping (so
      also for the dask chunks), and moves by at most 1/m + 2^-50; L2 sensitivity
      sqrt(p) (1/m + 2^-50) jointly, and sqrt(p sum_k w_k^2) (1/m + 2^-50) for the weighted
      ladder (w_k times the mean of rung k).
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
    from .matrix import random_pairs

    noise = _scale_noise(noise, eps, delta, calibration)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    first, second = random_pairs(mat.n, rng)
    absdiff = pair_differences(mat.values, first, second)
    octave, prior = private_octaves(absdiff, noise.group.share(noise.fraction * SCALE_SHARES[0]),
                                     rng, ledger)
    pilot_clip = _clip_range(2.0 ** (octave + 0.5))  # 2^(b + 1/2), b fractional
    pilot = clipped_moment(absdiff, pilot_clip, noise.group.share(noise.fraction * SCALE_SHARES[1]),
                            rng, ledger, "scale: pilot clipped second moments of |x_a - x_b|")
    pilot["prior_octaves"] = prior
    final_noise = noise.group.share(noise.fraction * SCALE_SHARES[2])
    final_clip = _final_clip(pilot, final_noise.sigma(moment_sensitivity(absdiff.shape)))
    ladder = final_clip * SCALE_LADDER_FACTOR ** np.arange(len(SCALE_LADDER_WEIGHTS))[:, None]
    final = clipped_moment(absdiff, _clip_range(ladder), final_noise, rng, ledger,
                            "scale: final clipped second moments of |x_a - x_b| (clip ladder)",
                            weights=SCALE_LADDER_WEIGHTS)
    sd_diff, floored = _combine(pilot, final)
    if floored.any():
        warnings.warn(f"columns {[c for c, f in zip(mat.columns, floored) if f]} look (near-)constant "
                      "to the private scale estimate; their scales are set to its detection limit",
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


def _gaussian_scale(moment, prior=None) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian-consistent SD of the differences from a noisy clipped moment, and its uncertainty.

    v ~ N(r(C / s), sd^2) with r(c) = E min(Z^2, c^2) / c^2. The posterior of log s on the grid
    c = C / s in [1/64, 64] under ``prior`` = (mean, sd) of log s per column (a normal prior;
    None: flat on the grid) gives s = exp(E log s) and the posterior sd of log s. Where the
    noise is small this is the inversion s = C / r^-1(v) (Huber's consistency correction); where
    v is within the noise of 0 or 1 it does not read a noise draw as a scale, and reports its
    uncertainty (used as weights). Arrays (K, p) in and out (one row per clip).
    """
    v = np.atleast_2d(moment["value"])
    sd = np.broadcast_to(np.atleast_2d(moment["sd"]), v.shape)
    log_s = np.log(np.atleast_2d(moment["clip"]))[..., None] - np.log(_CLIP_C)
    logpost = -(v[..., None] - _CLIP_R) ** 2 / (2 * sd[..., None] ** 2)
    if prior is not None:
        mean, spread = (np.asarray(x, float)[None, :, None] for x in prior)
        logpost = logpost - (log_s - mean) ** 2 / (2 * spread ** 2)
    weights = np.exp(logpost - logpost.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    centre = np.sum(weights * log_s, axis=-1)
    spread = np.sqrt(np.maximum(np.sum(weights * (log_s - centre[..., None]) ** 2, axis=-1), 0.0))
    # The grid's own resolution (1/64 octave) is the least uncertainty reported.
    return np.exp(centre), np.maximum(spread, np.log(2) / 64)


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


def _pilot_scale(pilot) -> tuple[np.ndarray, np.ndarray]:
    """The pilot's posterior: prior log s_D ~ N(log C2, (b ln 2)^2), b from
    ``SCALE_PRIOR_OCTAVES``, as the octave step put C2 at the guessed SD of the differences."""
    clip = pilot["clip"][0]
    s2, r2 = _gaussian_scale(pilot, (np.log(clip), pilot["prior_octaves"] * np.log(2)))
    return s2[0], r2[0]


def _final_clip(pilot, sigma_v) -> np.ndarray:
    """c* x pilot SD, or the largest multiple of it whose predicted relative noise is small."""
    scale = _pilot_scale(pilot)[0]
    factors = SCALE_EFFICIENT_CLIP * 2.0 ** np.arange(0.0, 40.5, 0.5)
    factors = factors[factors <= _CLIP_C[-1]]
    rel = sigma_v / (np.interp(factors, _CLIP_C, _CLIP_R) * np.interp(factors, _CLIP_C, _CLIP_ELASTICITY))
    affordable = factors[rel <= SCALE_HIGH_CLIP_NOISE]
    highest = affordable[-1] if affordable.size else SCALE_EFFICIENT_CLIP
    return _clip_range(scale * highest)


def _clip_range(clip) -> np.ndarray:
    low, high = SCALE_OCTAVES
    return np.clip(clip, np.ldexp(1.0, low - 8), np.ldexp(1.0, high + 8))


def _combine(pilot, final) -> tuple[np.ndarray, np.ndarray]:
    """Final SD of the differences per column, and which columns are floored.

    Rung 0: the posterior given the final moment with the pilot's posterior as prior (sequential
    Bayes, so the two moments are pooled by their precision); a higher rung (chosen by
    :func:`_chosen_rung`): its own reading (:func:`_point_scale`). Then empirical-Bayes
    shrinkage.
    """
    s2, r2 = _pilot_scale(pilot)
    first = {key: final[key][:1] for key in ("value", "clip", "sd")}
    s0, r0 = (x[0] for x in _gaussian_scale(first, (np.log(s2), r2)))
    high, r_high = _point_scale(final)
    rung = _chosen_rung(r_high)
    cols = np.arange(rung.size)
    log_sd = np.where(rung == 0, np.log(s0), np.log(high[rung, cols]))
    noise = np.where(rung == 0, r0, r_high[rung, cols])
    v2, sd2 = pilot["value"][0], pilot["sd"][0]
    floored = (sd2 <= SCALE_FLOOR_MAX_NOISE) & (v2 < SCALE_DETECTION_SD * sd2) & \
        (final["value"][0] < SCALE_DETECTION_SD * final["sd"][0])
    floor = pilot["clip"][0] * np.sqrt(SCALE_DETECTION_SD * sd2)
    kept = ~floored
    centre = _common_scale(pilot, first, kept)
    log_sd[kept] = _shrunk(log_sd[kept], noise[kept], centre)
    return np.where(floored, floor, np.exp(log_sd)), floored


def _common_scale(pilot, first, kept) -> float | None:
    """log of the SD of the differences that all kept columns would share if they had one: the
    posterior mean given every column's pilot and first final moment (the product of their
    likelihoods, on a grid, with the octave step's prior around the median pilot clip). With p
    columns it is ~sqrt(p) times more precise than any one column when the moments carry
    information (n ~ 300 and up at eps = 1); at n ~ 100 it is as uncertain as the prior. It is
    the centre of the shrinkage. None when the columns' clips span more than ``_COMMON_SPAN``
    octaves (they do not share a scale)."""
    if not kept.any():
        return None
    logs = [np.log(m["clip"][0][kept]) for m in (pilot, first)]
    low, high = min(x.min() for x in logs), max(x.max() for x in logs)
    if high - low > _COMMON_SPAN * np.log(2):
        return None
    grid = np.arange(low - 6 * np.log(2), high + 6 * np.log(2), np.log(2) / 32)
    total = np.zeros(grid.size)
    for moment in (pilot, first):
        clip, value = moment["clip"][0][kept], moment["value"][0][kept]
        sd = np.broadcast_to(moment["sd"][0], value.shape)
        r = np.interp(np.log(clip)[:, None] - grid, np.log(_CLIP_C), _CLIP_R)  # r(C / s)
        total -= np.sum((value[:, None] - r) ** 2 / (2 * sd[:, None] ** 2), axis=0)
    centre, spread = np.median(logs[0]), np.max(pilot["prior_octaves"][kept]) * np.log(2)
    total -= (grid - centre) ** 2 / (2 * spread ** 2)  # the octave step's prior, as per column
    weights = np.exp(total - total.max())
    return float(np.sum(weights * grid) / np.sum(weights))


#: Beyond this spread (octaves) of the clips, the columns are not read as sharing one scale.
_COMMON_SPAN = 12


def _chosen_rung(noise) -> np.ndarray:
    """Per column, the highest rung k such that rungs 1..k all read the scale with relative sd at
    most ``SCALE_RUNG_NOISE`` (rung 0 when rung 1 does not): the largest clip the release
    measures precisely. At large clips the relative sd is ~ sd_v / (2 v), so a rung needs
    v >= 4 sd_v: a column whose spread lies far below a rung passes it by noise with
    probability 3e-5, and a higher rung needs every rung below it too. For a Gaussian column
    every rung estimates the same SD (the readings are consistent), so only precision matters;
    for a heavy-tailed or mostly-zero column a higher clip is closer to its SD."""
    precise = np.cumprod(noise[1:] <= SCALE_RUNG_NOISE, axis=0)  # rungs 1..k all precise
    return precise.sum(axis=0)


def _shrunk(log_sd, noise_sd, centre=None) -> np.ndarray:
    """Empirical-Bayes (James-Stein) shrinkage of the log scales towards a common centre.

    Model: log s_j = theta_j + e_j, e_j ~ N(0, noise_sd_j^2) (the predicted noise), theta_j ~
    N(centre, tau^2). The centre is :func:`_common_scale` (or the median of the log s_j) and
    tau^2 = max(0, (1.4826 MAD)^2 - median(noise_sd^2)), MAD about the centre (robust method of moments: at small n a few columns whose clips were
    placed far off have errors much larger than predicted); theta_j is estimated by its posterior
    mean. Columns on very different scales (tau >> noise) are left as they are; at small n the
    noisy scales are pulled together. Only with p >= 4 (James-Stein dominates the raw estimates
    from 3 coordinates on; Efron & Morris 1973). Post-processing of the releases.
    """
    if log_sd.size < 4:
        return log_sd
    centre = float(np.median(log_sd)) if centre is None else centre
    spread = 1.4826 * float(np.median(np.abs(log_sd - centre)))
    tau2 = max(0.0, spread ** 2 - float(np.median(noise_sd ** 2)))
    keep = tau2 / (tau2 + noise_sd ** 2)
    return centre + keep * (log_sd - centre)

__all__ = ["private_column_scales"]
