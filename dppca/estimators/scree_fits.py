"""The private estimate of each scree method, and the private trace, for :func:`dppca.dp_scree`.

One function per method ("clipped", "pmwm", "huber") turns the projected scores into a
:class:`MethodFit` (private estimates of the k score variances, their noise and clamp intervals),
tuning its thresholds privately when the control does not fix them; :func:`private_trace` releases
the total variance. Sensitivities and proofs are in :mod:`dppca.estimators.pair_means` (pair
U-statistics and disjoint-pair means) and :mod:`dppca.privacy.quantiles` (tuning histograms).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import DPPCAValueError
from ..privacy.accuracy import CLIP_LEVEL, CLIP_MULTIPLIER
from ..privacy.counted_group import pair_rows
from ..privacy.neighbouring import row_bounds
from ..privacy.quantiles import dp_histogram_quantiles, unbounded_quantile_between
from ..stats.pair_statistics import paired_half_norms, paired_squares
from .clip_choice import TRACE_LOG2_RANGE, TailBias, dp_clip_choice, near_tail_size
from . import scree_accuracy as model
from .pair_means import dp_clipped_mean, dp_clipped_paired_mean, dp_huber_mean, dp_winsorized_mean
from .scree_accuracy import HUBER_TAU_MULTIPLIER
from .tuning import dp_log2_centre, dp_m2_histogram, tau_from_m2


@dataclass(frozen=True)
class MethodFit:
    """What one scree method released.

    Attributes
    ----------
    release : dppca.estimators.pair_means.MeanRelease
        Raw estimates, noise sd and clamp intervals per component.
    mechanism : str
        Short name for the summary.
    tuning : str
        How the thresholds were chosen (for the notes).
    histogram : ClipChoice, optional
        The clip choice with its released noisy counts (the post-release accuracy reads them,
        :func:`dppca.estimators.clip_choice.tail_bias`); None when the clip came from no
        histogram.
    trace_clip : bool
        Whether every clip is the public fallback, a multiple of the private trace (the
        post-release model reads it: :func:`dppca.results.scree_checks.unanchored_floor`).
    """

    release: object
    mechanism: str
    tuning: str
    histogram: object = None
    trace_clip: bool = False


#: The trace's clip when its quantile histogram would be noise-dominated (a public rule): this
#: many times the rough centre (a log-centre of the t's, about 0.28 x trace for one dominant
#: Gaussian component, so C_T ~ 4.5 x trace, clipping bias ~4%; about the trace when many
#: components share it).
TRACE_FALLBACK_CLIP_OVER_CENTRE = 16.0


#: Self-tuning histograms of the pair values: bins [0, 2^-16 T), [2^-16 T, 2^-15 T), ...,
#: [2^2 T, 2^3 T] around the private trace T: components down to ~2^-8 T are resolved.
TUNING_LOG2_BINS = (-16, 3)


#: Self-tuned PMWM trim level: this many noise sd of a histogram count (its rank error near the
#: top is about sigma sqrt(bins above)), relative to the number of pair values.
PMWM_RANK_SAFETY, PMWM_TRIM_RANGE = 6.0, (0.01, 0.25)


#: Default number of Huber steps: with eta0 = 1 a step from the private median is Bickel's
#: one-step M-estimator; each extra step costs noise (Gaussian-DP composition, sqrt(T)).
HUBER_STEPS = 1


#: The trace's clipping bias where no clip histogram measured it (estimate and bound 0).
_UNMEASURED = TailBias(np.zeros(1), np.zeros(1))


def private_trace(values, pairs, group, shares, rng, ledger, public_centre=None, rows=None):
    """Private tr(S) from disjoint pairs: (estimate, noise sd, positive anchor for tuning bins,
    clipping bias: a :class:`dppca.estimators.clip_choice.TailBias` of shape (1,)).

    The clipped rule applied to t = ||x_a - x_b||^2 / 2: a scale-free rough centre of the t's,
    a noisy log2 histogram around it from which C_T is chosen to minimise clipping bias + noise
    (:func:`dppca.estimators.clip_choice.dp_clip_choice`; a public fallback of
    ``TRACE_FALLBACK_CLIP_OVER_CENTRE`` x the centre when no bin is significant), then the
    clipped mean, with the shares of ``shares``
    (:func:`dppca.estimators.scree_accuracy.scree_shares`). With ``shares.trace_mean == 0``
    (k = p) only the centre is released and the trace is nan; with ``shares.centre == 0`` the
    centre is ``public_centre`` (standardized data: p / 2) and not released. The estimate is
    clamped to [0, C_T] (post-processing: the clipped mean lies there). The clipping bias is
    :func:`dppca.estimators.clip_choice.tail_bias` read from the clip histogram (estimate and
    upper bound; post-processing: the trace is biased low by up to the bound), zeros under the
    public fallback clip (no histogram: unmeasured).

    Under add/remove neighbours (``rows``, the count's :class:`dppca.privacy.neighbouring.RowBounds`)
    every use of the number of pairs m takes its public bounds
    (:func:`dppca.privacy.counted_group.pair_rows`): the clipped mean's sensitivity
    (:func:`dppca.estimators.pair_means.dp_clipped_paired_mean`) and the clip choice's noise sd
    and bias denominator; the histograms keep L2 sensitivity sqrt(2) (a coupled pairing adds
    or replaces one pair value: at most two counts move by 1).
    """
    halves = paired_half_norms(values, pairs)  # +inf is clamped by the clipped mean, silently
    low, high = pair_rows(halves.size, rows)
    if shares.centre > 0:
        centre = dp_log2_centre(halves, group.share(shares.centre), rng, ledger=ledger,
                                step="trace tuning: log2 histogram of ||x_a - x_b||^2/2")
    else:  # noise-dominated (scree_shares): the public default of standardized data
        centre = float(public_centre)
    if not shares.trace_mean > 0:  # the centre is about the median of the t's: 4 x it is near the trace
        return float("nan"), float("nan"), 4.0 * centre, _UNMEASURED
    clip, bias = TRACE_FALLBACK_CLIP_OVER_CENTRE * centre, _UNMEASURED
    noise = group.share(shares.trace_mean)
    if shares.trace_tuning > 0:  # else noise-dominated (scree_shares): the stated public rule
        choice = dp_clip_choice(halves[:, None], centre, group.share(shares.trace_tuning),
                                noise.sigma(1.0 / low), clip, rng, ledger=ledger,
                                step="trace tuning: clip histogram of ||x_a - x_b||^2/2",
                                log2_range=TRACE_LOG2_RANGE, m=low)
        # the trace's tail is every column's, spread thinly: every bin of the near octaves counts
        # (net of the noise in their sum)
        estimate = np.maximum(choice.tail_estimate, near_tail_size(choice))
        clip, bias = float(choice.clip[0]), TailBias(estimate, np.maximum(estimate, choice.tail_upper))
    trace, sd = dp_clipped_paired_mean(halves, clip, noise, rng, ledger=ledger,
                                       step="trace: clipped mean of ||x_a - x_b||^2/2",
                                       pairs=None if rows is None else (low, high))
    trace = min(max(trace, 0.0), clip)
    return trace, sd, trace if trace > 0 else centre, bias


def _tuning_edges(anchor) -> np.ndarray:
    low, high = TUNING_LOG2_BINS
    return np.concatenate(([0.0], anchor * 2.0 ** np.arange(low, high + 1)))


def _tuning_quantiles(w, anchor, levels, noise, rng, ledger, method):
    return dp_histogram_quantiles(w, _tuning_edges(anchor), levels, noise, rng, ledger=ledger,
                                  step=f"{method} tuning: pair-value histograms (PC1..PCk)")


def check_split_mode(controls, pair_design) -> None:
    if pair_design is not None and "pmwm" in controls and controls["pmwm"].split_mode:
        raise DPPCAValueError("pmwm_control(split_mode=True) uses the complete statistic on half "
                              "of the rows: give design='complete' (or split_mode=False)")


def fit_clipped(scores, pairs, anchor, control, group, share, pure_eps, rng, ledger,
                 design=None, rows=None) -> MethodFit:
    """The clipped method: U-statistics of min(u, C) with C tuned privately (or public C_clip).

    Under add/remove neighbours (``rows``, the count's
    :class:`dppca.privacy.neighbouring.RowBounds`) the U-statistics' sensitivity is their
    add/remove bound (:func:`dppca.estimators.pair_means.pair_release_sensitivity`), the tuning
    histograms keep sqrt(2k) (a coupled pairing adds or replaces one pair value per component,
    :func:`dppca.privacy.counted_group.pair_rows`), and every public branch and noise sd reads
    the public bounds of n and m, never the private n.
    """
    k = scores.shape[1]
    m = pair_rows(len(pairs[0]), rows)[0]
    rows_n = row_bounds(scores.shape[0], rows)[0]
    coarse = model.MEDIAN_TUNING_SHARE * share
    choice, clip_on_trace = None, False
    if control.C_clip is not None:
        noise, clip, tuning = group.share(share), np.full(k, float(control.C_clip)), "public C_clip"
    elif not model.tuning_reliable(m, k, control.tuning_share * share, group.mu) and \
            model.median_tuning_error(m, k, coarse, group.mu) <= model.TUNING_THRESHOLD:
        # The 90% quantile histogram would be noise-dominated, a coarse median is not: C from it.
        noise = group.share(share - coarse)
        edges = np.concatenate(([0.0], anchor * 4.0 ** np.arange(model.MEDIAN_LOG4_BINS[0],
                                                                 model.MEDIAN_LOG4_BINS[1] + 1)))
        median = dp_histogram_quantiles(paired_squares(scores, pairs), edges, [0.5],
                                        group.share(coarse), rng, ledger=ledger,
                                        step="clipped tuning: coarse pair-value histograms "
                                             "(PC1..PCk)")[:, 0]
        clip = model.MEDIAN_CLIP_MULTIPLIER * np.maximum(median, np.finfo(float).tiny)
        tuning = (f"C = {model.MEDIAN_CLIP_MULTIPLIER:.3g} x private median of the pair values "
                  "(coarse histogram: the 90% quantile one would be noise-dominated)")
    elif not model.tuning_reliable(m, k, control.tuning_share * share, group.mu):
        # Public arithmetic says the tuning histogram would be noise-dominated: the stated public
        # rule C = 6.5 x the private trace (>= 6.5 lambda_l for every component) instead.
        noise = group.share(share)
        clip, clip_on_trace = np.full(k, model.FALLBACK_CLIP_OVER_TRACE * anchor), True
        tuning = (f"C = {model.FALLBACK_CLIP_OVER_TRACE:.3g} x private trace (fallback: the accuracy "
                  "model predicts a noise-dominated tuning histogram)")
    else:
        noise = group.share((1 - control.tuning_share) * share)
        choice = dp_clip_choice(paired_squares(scores, pairs), anchor,
                                group.share(control.tuning_share * share),
                                noise.sigma(2.0 * math.sqrt(k) / rows_n),
                                model.FALLBACK_CLIP_OVER_TRACE * anchor, rng, ledger=ledger,
                                step="clipped tuning: log2 histograms of the pair values (PC1..PCk)",
                                m=m)
        clip = choice.clip
        tuning = ("C minimises the clipping bias (from a private log2 histogram of the pair "
                  f"values) + the noise sd; {model.FALLBACK_CLIP_OVER_TRACE:.3g} x private trace "
                  "for a component with no significant bin")
    release = dp_clipped_mean(scores, clip, noise, rng, ledger=ledger, design=design,
                              step="clipped: U-statistics of min(u, C) (PC1..PCk)", rows=rows)
    return MethodFit(release, "Gaussian", tuning, choice, trace_clip=clip_on_trace)


def fit_pmwm(scores, pairs, anchor, control, group, share, pure_eps, rng, ledger,
              design=None) -> MethodFit:
    n = scores.shape[0]
    if control.split_mode:  # quantiles from one random half of the rows, the mean from the other
        order = rng.permutation(n)
        quantile_rows, mean_rows = order[: n // 2], order[n // 2:]
        half = quantile_rows.size // 2
        w = paired_squares(scores, (quantile_rows[:half], quantile_rows[half:2 * half]))
    else:
        w, mean_rows = paired_squares(scores, pairs), np.arange(n)
    m, k = w.shape
    if control.a is None:
        noise = group.share((1 - control.tuning_share) * share)
        tuning_noise = group.share(control.tuning_share * share)
        eta = control.eta if control.eta is not None else min(max(
            PMWM_RANK_SAFETY * tuning_noise.sigma(math.sqrt(2 * k)) / m, PMWM_TRIM_RANGE[0]),
            PMWM_TRIM_RANGE[1])
        p = min(max(control.trim_const / m, eta), 0.49)
        low, high = _tuning_quantiles(w, anchor, [p, 1 - p], tuning_noise, rng, ledger, "pmwm").T
        tuning = "quantiles from a joint noisy histogram"
    else:
        noise = group.share(share)
        p = min(max(control.trim_const / m, PMWM_TRIM_RANGE[0] if control.eta is None else control.eta),
                0.49)
        low, high = _scan_quantiles(w, p, control, pure_eps, rng, ledger)
        tuning = "R's unbounded AboveThreshold quantile scans on [a, b]"
    widen = gaussian_widening(p) if control.widen is None else control.widen
    spread = widen * (high - low)
    lower, upper = np.maximum(low - spread, 0.0), high + spread
    release = dp_winsorized_mean(scores[mean_rows], lower, np.maximum(upper, lower), noise, rng,
                                 ledger=ledger, design=design,
                                 step="pmwm: U-statistics of clamp(u, L, U) (PC1..PCk)")
    return MethodFit(release, "Gaussian", f"{tuning}, p = {p:.3g}, widen = {widen:.3g}")


def gaussian_widening(p) -> float:
    """w with Q(1-p) + w (Q(1-p) - Q(p)) = CLIP_MULTIPLIER x Q(CLIP_LEVEL), Q the chi2_1 quantiles.

    For Gaussian scores the pair values are lambda chi2_1, so the widened PMWM interval then ends
    where the clipped method's self-tuned threshold sits (6.5 lambda); 0 when Q(1 - p) is already
    beyond it.
    """
    from scipy.stats import chi2

    low, high = chi2.ppf([p, 1 - p], 1)
    return max(0.0, (CLIP_MULTIPLIER * chi2.ppf(CLIP_LEVEL, 1) - high) / (high - low))


def _scan_quantiles(w, p, control, eps, rng, ledger):
    """R's PMWM quantiles: per component, lower then upper scan, each eps / (2k); fallback [a, b]."""
    k = w.shape[1]
    each = eps / (2 * k)
    low, high = np.empty(k), np.empty(k)
    for j in range(k):
        for level, out in ((p, low), (1 - p, high)):
            out[j] = unbounded_quantile_between(w[:, j], level, each, rng, control.a, control.b,
                                                control.beta, ledger=ledger,
                                                step=f"pmwm: quantile scan q={level:.3g}, PC{j + 1}")
    swapped = high < low
    low[swapped], high[swapped] = control.a, control.b
    return low, high


def fit_huber(scores, pairs, anchor, control, group, share, pure_eps, rng, ledger,
               design=None) -> MethodFit:
    n, k = scores.shape
    w = paired_squares(scores, pairs)
    steps = HUBER_STEPS if control.T is None else control.T
    if control.k_min_m2 is None:
        noise = group.share((1 - control.m2_frac) * share)
        median, q90 = _tuning_quantiles(w, anchor, [0.5, CLIP_LEVEL],
                                        group.share(control.m2_frac * share), rng, ledger, "huber").T
        tau = HUBER_TAU_MULTIPLIER * np.maximum(q90, np.finfo(float).tiny)
        start = median if control.mu0 is None else np.full(k, float(control.mu0))
        tuning = f"tau = {HUBER_TAU_MULTIPLIER:g} x private 90% quantile, start at the private median"
    else:
        noise = group.share(share)
        blocks = max(1, math.floor(math.sqrt(n) / 2)) if control.M is None else control.M
        m2 = dp_m2_histogram(w, int(control.k_min_m2), int(control.k_max_m2), blocks, pure_eps, rng,
                             ledger=ledger, step="huber: m2 histograms of block medians (PC1..PCk)")
        tau = tau_from_m2(m2, group.standalone(share)[0] / k, n)
        start = np.full(k, 0.0 if control.mu0 is None else float(control.mu0))
        tuning = "R's m2 histogram and tau_from_m2"
    release = dp_huber_mean(scores, tau, steps, start, control.eta0, noise, rng, ledger=ledger,
                            design=design, step="huber: noisy gradient descent (PC1..PCk)")
    return MethodFit(release, "Gaussian (approximate s.e.)", f"{tuning}, T = {steps}")


FITTERS = {"clipped": fit_clipped, "pmwm": fit_pmwm, "huber": fit_huber}


__all__ = ["FITTERS", "MethodFit", "check_split_mode", "fit_clipped", "fit_huber", "fit_pmwm", "gaussian_widening",
           "private_trace"]
