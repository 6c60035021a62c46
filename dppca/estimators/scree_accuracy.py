"""The accuracy model of :func:`dppca.dp_scree`: its budget split and each step's predicted error.

Everything here is public arithmetic: n, p, k, eps, delta, the shares of the Gaussian-DP group
(:class:`dppca.privacy.composition.GaussianGroup`) and the controls. The same numbers decide the
budget split of a call (:func:`scree_shares`, used by :func:`dppca.dp_scree` itself) and predict
each private step's error (:func:`scree_accuracy`, shown by :func:`dppca.plan` and in every
scree summary). Because no data is read, a warning or a fallback chosen from a prediction leaks
nothing.

Each prediction is the noise sd of the step's Gaussian mechanism (sigma = sensitivity /
(sqrt(share) mu), both public) divided by the signal the step is after, under a stated
assumption about the data:

* a noisy histogram used to locate a quantile (tuning): the noise of the counts beyond the
  quantile against the number of values there (``sigma sqrt(TAIL_BINS) / ((1 - level) m)``);
* the trace's rough centre: the largest noise of a window of bins against the m values
  (``CENTRE_NOISE_FACTOR sigma / m``);
* a clipped mean with clip C = 6.5 lambda (Gaussian scores, the self-tuned rule): its noise sd
  relative to lambda, ``6.5 sigma_unit`` with sigma_unit the noise of the normalised statistic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..privacy.accuracy import CLIP_LEVEL, CLIP_OVER_LAMBDA, StepAccuracy
from .clip_choice import EXTEND_SD

#: Share of the remaining Gaussian-DP budget for the trace (its centre at least its default). Its
#: clip histogram gets half of it: it must see a far, sparse tail (income columns), while the
#: clipped mean is cheap.
TRACE_SHARE = 0.1
#: Share of the trace's mu^2 for its two tuning histograms (half each).
TRACE_TUNING_SHARE = 1 / 3
#: Self-tuned Huber: start at the private median of the pair values, tau = this x private q90
#: (so the effective clip is about median + 5.4 lambda for Gaussian scores).
HUBER_TAU_MULTIPLIER = 2.0
#: The rough centre's noise: the largest of ~124 window sums (5 bins) of N(0, sigma^2) noise is
#: about sqrt(5) sqrt(2 ln 124) sigma.
CENTRE_NOISE_FACTOR = math.sqrt(5.0) * math.sqrt(2.0 * math.log(124.0))
#: The centre gets the share that brings its predicted error to this value, if it can ...
CENTRE_TARGET = 0.3
#: ... taking at most this part of the budget left after the directions.
CENTRE_SHARE_CAP = 0.25
#: A quantile near the top is read from about this many bins above it (rank error sigma sqrt(.)).
TAIL_BINS = 4
#: Fallback clip (a stated public rule) when the tuning histogram is noise-dominated: this many
#: times the private trace (every component's lambda_l <= trace; 6.5 lambda for Gaussian scores).
FALLBACK_CLIP_OVER_TRACE = CLIP_OVER_LAMBDA
#: Second tier of the clipped tuning, when the 90% quantile histogram would be noise-dominated: a
#: private median from a coarse histogram (log4 bins, ``MEDIAN_LOG4_BINS`` around the trace) with
#: this share of the method's budget, and C = MEDIAN_CLIP_MULTIPLIER x median (6.5 lambda for
#: Gaussian scores: the chi2_1 median is 0.455).
MEDIAN_TUNING_SHARE = 0.5
MEDIAN_CLIP_MULTIPLIER = CLIP_OVER_LAMBDA / 0.4549
MEDIAN_LOG4_BINS = (-8, 2)
#: The coarse histogram's densest bin holds about 30% of chi2_1 values; counts under 2 noise sd
#: are zeroed, so that bin must stand about 3 sd clear: noise sd / (0.1 m) <= 1.
MEDIAN_BIN_SHARE = 0.1
#: Thresholds: a tuning step is unreliable when its noise is as large as its signal; an
#: estimate when its noise sd is half its target (two sd then reach 0).
TUNING_THRESHOLD, ESTIMATE_THRESHOLD, CENTRE_THRESHOLD = 1.0, 0.5, 0.5

_MORE_DATA = "more eps or more rows"


@dataclass(frozen=True)
class ScreeShares:
    """Shares of the Gaussian-DP group (of mu^2) of the steps of one :func:`dppca.dp_scree` call.

    Attributes
    ----------
    centre, trace_tuning, trace_mean : float
        The trace's rough centre, its clip histogram and its clipped mean (0 when k = p).
    method : float
        Each method's share (tuning and estimate).
    """

    centre: float
    trace_tuning: float
    trace_mean: float
    method: float


def scree_shares(n, rest, n_methods, mu, needed=True, public_centre=None) -> ScreeShares:
    """The budget split of :func:`dppca.dp_scree` after the directions (public arithmetic).

    The trace's rough centre gets what brings its predicted error to ``CENTRE_TARGET`` (at least
    its default, 1/6 of ``TRACE_SHARE`` of ``rest``, at most ``CENTRE_SHARE_CAP`` of ``rest``);
    the trace's clip histogram and mean get 1/2 and 1/3 of ``TRACE_SHARE`` of ``rest`` (none when
    ``needed`` is False, k = p); the methods split what is left.

    Parameters
    ----------
    n : int
        Rows (public).
    rest : float
        Share of mu^2 left after the scales and directions.
    n_methods : int
        Number of scree methods.
    mu : float
        The group's Gaussian-DP parameter.
    needed : bool
        Whether the trace is released (k < p).
    public_centre : float, optional
        A public default for the centre (standardized data: p / 2). Used, and the centre not
        released (share 0), when even the capped share leaves the centre noise-dominated.

    When the trace's histogram would be noise-dominated (:func:`histogram_tuning_error` above
    ``TUNING_THRESHOLD``) it is skipped (share 0): its share goes to the mean, whose clip is
    then the public rule ``TRACE_FALLBACK_CLIP_OVER_CENTRE`` x the centre.

    Returns
    -------
    ScreeShares

    Examples
    --------
    >>> s = scree_shares(100_000, 0.5, 1, 0.27)
    >>> round(s.centre, 4), round(s.method, 4)
    (0.0083, 0.45)
    """
    m = max(n // 2, 1)
    default = TRACE_SHARE * rest * TRACE_TUNING_SHARE / 2
    sigma = CENTRE_TARGET * m / CENTRE_NOISE_FACTOR
    centre = min(max(default, (math.sqrt(2.0) / (sigma * mu)) ** 2), CENTRE_SHARE_CAP * rest)
    if public_centre is not None and centre_error(m, centre, mu) > CENTRE_THRESHOLD:
        centre = 0.0
    tuning = 3 * default if needed else 0.0
    mean = TRACE_SHARE * rest * (1 - 2 * TRACE_TUNING_SHARE) if needed else 0.0
    if needed and histogram_tuning_error(m, 1, tuning, mu) > TUNING_THRESHOLD:
        tuning, mean = 0.0, mean + tuning  # fallback clip 16 x centre (private_trace)
    return ScreeShares(centre, tuning, mean, (rest - centre - tuning - mean) / n_methods)


def centre_error(m, share, mu) -> float:
    """Predicted error of the trace's rough centre: ``CENTRE_NOISE_FACTOR`` sigma / m.

    Examples
    --------
    >>> round(centre_error(75, 0.125, 0.92), 2)
    0.4
    """
    return CENTRE_NOISE_FACTOR * math.sqrt(2.0) / (math.sqrt(share) * mu) / max(m, 1)


def histogram_tuning_error(m, k, sigma_share, mu, level=CLIP_LEVEL) -> float:
    """Predicted relative error of a quantile read from a joint noisy histogram of k columns.

    The noise of the counts above the quantile, ``sigma sqrt(TAIL_BINS)`` with
    ``sigma = sqrt(2 k) / (sqrt(share) mu)``, over the number of values there,
    ``(1 - level) m`` (``min(level, 1 - level)``).

    Examples
    --------
    >>> round(histogram_tuning_error(75, 3, 0.11, 0.92), 1)
    2.1
    """
    sigma = math.sqrt(2.0 * k) / (math.sqrt(sigma_share) * mu)
    return sigma * math.sqrt(TAIL_BINS) / (min(level, 1 - level) * max(m, 1))


def median_tuning_error(m, k, share, mu) -> float:
    """Predicted error of the coarse median tuning: noise sd / (``MEDIAN_BIN_SHARE`` m).

    Examples
    --------
    >>> round(median_tuning_error(75, 3, 0.225, 0.92), 1)
    0.7
    """
    sigma = math.sqrt(2.0 * k) / (math.sqrt(share) * mu)
    return sigma / (MEDIAN_BIN_SHARE * max(m, 1))


def tuning_reliable(m, k, share, mu, level=CLIP_LEVEL) -> bool:
    """Whether a tuning histogram's predicted error is at most ``TUNING_THRESHOLD`` (public).

    Examples
    --------
    >>> tuning_reliable(75, 3, 0.11, 0.92), tuning_reliable(5000, 3, 0.11, 0.92)
    (False, True)
    """
    return histogram_tuning_error(m, k, share, mu, level) <= TUNING_THRESHOLD


def gaussian_clip_over_lambda(m, k, share, mu, dof=1) -> float:
    """C / lambda that the histogram clip rule picks for Gaussian scores (public arithmetic).

    The pair values are lambda chi2_1 (``dof`` = d: a sum of d equal Gaussian components,
    lambda chi2_d / d, as the trace's half squared distances of balanced data); the rule's clip is the top edge of the highest octave
    whose expected count m P(octave) exceeds the extension bar (``EXTEND_SD`` histogram noise sd,
    :mod:`dppca.estimators.clip_choice`). The octaves are aligned with the private trace, not
    with lambda: the result is the geometric mean over four alignments.

    Examples
    --------
    >>> 6 < gaussian_clip_over_lambda(2500, 3, 0.1, 0.5) < 20
    True
    """
    from scipy.stats import chi2

    bar = EXTEND_SD * math.sqrt(2.0 * k) / (math.sqrt(share) * mu)
    logs = []
    for offset in (0.0, 0.25, 0.5, 0.75):
        edges = 2.0 ** (np.arange(-8, 8) + offset)
        counts = max(m, 1) * (chi2.sf(edges[:-1] * dof, dof) - chi2.sf(edges[1:] * dof, dof))
        top = np.flatnonzero(counts > bar)
        logs.append(math.log2(edges[top[-1] + 1]) if top.size else math.log2(edges[10]))
    return float(2.0 ** np.mean(logs))


def scree_accuracy(n, p, k, mu, shares: ScreeShares, methods, controls) -> list:
    """Predicted error of the trace and scree steps of one :func:`dppca.dp_scree` call.

    Parameters
    ----------
    n, p, k : int
        Rows, columns, components (public).
    mu : float
        The Gaussian-DP parameter of the call's group.
    shares : ScreeShares
        From :func:`scree_shares`.
    methods : sequence of str
        The scree methods.
    controls : dict of str to control
        Their controls (a public ``C_clip`` skips the clipped method's tuning).

    Returns
    -------
    list of StepAccuracy
        Trace centre, trace tuning and trace (when k < p), then per method its tuning and its
        scree values.

    Examples
    --------
    >>> from dppca.controls import resolve_controls
    >>> s = scree_shares(150, 0.5, 1, 0.92)
    >>> steps = scree_accuracy(150, 4, 3, 0.92, s, ["clipped"], resolve_controls(None, ["clipped"]))
    >>> [(a.step, a.reliable) for a in steps][:2]
    [('trace: rough centre', True), ('trace', True)]
    """
    m = max(n // 2, 1)
    steps = []
    if shares.centre > 0:
        steps.append(StepAccuracy(
            "trace: rough centre", "largest window noise / m", centre_error(m, shares.centre, mu),
            "relative", CENTRE_THRESHOLD, "none (scale free: log2 bins 2^-64..2^64)",
            f"{_MORE_DATA}, standardize, or declared public scales"))
    if shares.trace_tuning > 0:
        steps.append(StepAccuracy(
            "trace: clip histogram", "tail-count noise / tail count",
            histogram_tuning_error(m, 1, shares.trace_tuning, mu), "relative", TUNING_THRESHOLD,
            "||x_a - x_b||^2/2 within 2^-16..2^48 x the centre; sparse far tails unseen",
            _MORE_DATA))
    if shares.trace_mean > 0:
        sigma = 1.0 / (math.sqrt(shares.trace_mean) * mu)
        # Between one dominant Gaussian component (dof 1) and p balanced ones (dof p): sqrt(p).
        dof = max(1, round(math.sqrt(p)))
        clip = (gaussian_clip_over_lambda(m, 1, shares.trace_tuning, mu, dof)
                if shares.trace_tuning > 0 else CLIP_OVER_LAMBDA)
        steps.append(StepAccuracy(
            "trace", "noise sd / trace", clip * sigma / m, "relative", ESTIMATE_THRESHOLD,
            (f"C_T = {clip:.3g} x trace (histogram rule; Gaussian data with about sqrt(p) = {dof} "
             "equal components)" if shares.trace_tuning > 0 else
             "fallback C_T = 16 x centre, about 6.5 x trace (one dominant Gaussian component)"),
            _MORE_DATA))
    for name in methods:
        steps.extend(_method_accuracy(name, controls[name], n, k, mu, shares.method))
    return steps


def _method_accuracy(name, control, n, k, mu, share) -> list:
    m = max(n // 2, 1)
    public_clip = name == "clipped" and control.C_clip is not None
    tuning_share = 0.0 if public_clip else getattr(control, "tuning_share",
                                                   getattr(control, "m2_frac", 0.25))
    unit = 2.0 * math.sqrt(k) / n / (math.sqrt((1 - tuning_share) * share) * mu)
    steps = []
    error = histogram_tuning_error(m, k, tuning_share * share, mu) if tuning_share else 0.0
    reliable = error <= TUNING_THRESHOLD
    median = name == "clipped" and not reliable and \
        median_tuning_error(m, k, MEDIAN_TUNING_SHARE * share, mu) <= TUNING_THRESHOLD
    if median:  # second tier: the coarse median
        reliable = True
        unit = 2.0 * math.sqrt(k) / n / (math.sqrt((1 - MEDIAN_TUNING_SHARE) * share) * mu)
        steps.append(StepAccuracy(
            f"{name}: tuning quantiles", "noise sd / (0.1 m) of a coarse median histogram",
            median_tuning_error(m, k, MEDIAN_TUNING_SHARE * share, mu), "relative",
            TUNING_THRESHOLD, "clip 14.3 x private median = 6.5 lambda_l (Gaussian scores; the "
            "90% quantile histogram would be noise-dominated)", "more eps or more rows"))
    elif name == "clipped" and not reliable:  # the fallback clip: no tuning release
        unit = 2.0 * math.sqrt(k) / n / (math.sqrt(share) * mu)
    elif not public_clip:
        steps.append(StepAccuracy(
            f"{name}: tuning quantiles", "tail-count noise / tail count", error, "relative",
            TUNING_THRESHOLD, "log2 bins 2^-24..2^24 x the private trace; sparse far tails unseen",
            "more eps, more rows, fewer components"
            + (" or a public C_clip" if name == "clipped" else "")))
    multiplier = HUBER_TAU_MULTIPLIER * 2.7055 if name == "huber" else CLIP_OVER_LAMBDA
    if public_clip:
        quantity, assumption = "noise sd / (C_clip / 6.5)", "lambda_l = C_clip / 6.5"
    elif name == "clipped" and reliable and not median:  # the histogram clip rule
        multiplier = gaussian_clip_over_lambda(m, k, tuning_share * share, mu)
        quantity = "noise sd / lambda_l"
        assumption = (f"clip {multiplier:.3g} lambda_l (Gaussian scores; heavier tails: larger "
                      "clip, more noise)")
    elif reliable or name != "clipped":
        quantity, assumption = "noise sd / lambda_l", "clip 6.5 lambda_l (Gaussian scores)"
    else:
        quantity, assumption = "noise sd / (trace / k)", "fallback clip 6.5 trace; lambda_l = trace / k"
        multiplier *= k
    steps.append(StepAccuracy(f"{name}: scree values", quantity, multiplier * unit, "relative",
                              ESTIMATE_THRESHOLD, assumption, _MORE_DATA + ", fewer components"))
    return steps


__all__ = ["HUBER_TAU_MULTIPLIER", "ScreeShares", "TRACE_SHARE", "TRACE_TUNING_SHARE", "centre_error", "histogram_tuning_error",
           "median_tuning_error", "scree_accuracy", "scree_shares", "tuning_reliable"]
