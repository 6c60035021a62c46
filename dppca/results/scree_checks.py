"""Post-release accuracy of released scree values: pure post-processing.

After :func:`dppca.dp_scree` has released its numbers, what they say about their own error is
public: the clip-choice histograms' noisy counts and their sd, the chosen clips, the released
values and their noise sd, and the private trace. From them, per value:

* a clipping-bias estimate and bound (:func:`value_bias`): the clipped mean only lowers the
  variance it estimates, by the mass of the pair values above the clip, which the histogram
  measures (:func:`dppca.estimators.clip_choice.tail_bias`) or, without one, the Gaussian-tail
  model bounds;
* a predicted relative error (:func:`post_release_error`), shown as the "post-release" rows of
  the summary's "Expected accuracy" block next to the pre-release model's;
* for the robust methods (pmwm, huber), whether their values are comparable to v'Sv
  (:func:`robust_comparable`).

Nothing here reads the data: every input is a released noisy value or public, so every mark,
warning and interval computed here is post-processing of the (eps, delta)-DP release.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..privacy.accuracy import CLIP_OVER_LAMBDA, StepAccuracy
from .scree_values import gaussian_clip_bias

#: A value is unreliable when its clipping-bias bound exceeds this many times the value: its
#: target could then be more than 10x the value.
BIAS_LIMIT = 9.0
#: The clip binds when C / value is below this (with a clip histogram: Gaussian scores give
#: C / lambda >= 5.6 under the histogram rule; heavy tails cut off at the clip give less) ...
BINDING_HISTOGRAM = 4.0
#: ... or below this without one (the Gaussian rule's C = 6.49 lambda).
BINDING_NONE = CLIP_OVER_LAMBDA
#: Without a clip histogram (a clip from the Gaussian-tail rule, or a public C_clip) no count
#: measured the tail: the bound adds this many noise sd of the value, for a tail heavier than
#: the Gaussian one. Like the ``UNSEEN_SHARE`` term of
#: :func:`dppca.estimators.clip_choice.tail_bias` (h / m x C) the sd is C times a public
#: constant proportional to 1 / (n eps), so the allowance vanishes on large data, while on small
#: data it covers the misses that fall just past the upper end (a clip far above the median,
#: C = 14 x the median, cuts off a tail of which no count could tell).
UNMEASURED_SD = 0.5
#: Post-release error at or above which a method's values are flagged in the accuracy block
#: (relative error 0.9: the value may be under a tenth of its target).
POST_RELEASE_THRESHOLD = 0.9


#: Where the pre-release model predicts a method's values within FLOOR_GATE (public), a value
#: with raw < NOISE_FLOOR x sd is released as NOISE_FLOOR x sd, not 0 (never within 10x of its
#: target, then of the order of the sd, whereas 0 is infinitely far from it in relative terms).
NOISE_FLOOR, FLOOR_GATE = 1.0 / 3.0, 1.0


def noise_floors(std_err, accuracy):
    """Lower clamp of the released values: NOISE_FLOOR x sd for the methods whose pre-release
    "scree values" step predicts at most FLOOR_GATE (public arithmetic: far noisier values would
    be raised to many times their target), else 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from dppca.privacy.accuracy import AccuracyReport, StepAccuracy
    >>> report = AccuracyReport([StepAccuracy("clipped: scree values", "", 0.4, "relative",
    ...                                       0.5, "", "")])
    >>> noise_floors(pd.DataFrame({"clipped": [0.3]}), report)["clipped"].tolist()
    [0.1]
    """
    steps = {} if accuracy is None else {s.step: s.predicted for s in accuracy.steps}
    gate = [steps.get(f"{m}: scree values", np.inf) <= FLOOR_GATE for m in std_err.columns]
    return NOISE_FLOOR * std_err * np.asarray(gate, float)


@dataclass(frozen=True)
class ValueBias:
    """Clipping bias of each released value of one method (units of the values), shape (k,).

    Attributes
    ----------
    estimate : ndarray
        Point estimate (enters the predicted error).
    bound : ndarray
        Upper bound used by the ``reliable`` mark (bound > ``BIAS_LIMIT`` x value: unreliable).
    interval : ndarray
        Upper end of the (1 - alpha) interval's allowance: ``bound``, raised to the trace's
        bound where the clip binds (:func:`value_bias`).
    """

    estimate: np.ndarray
    bound: np.ndarray
    interval: np.ndarray


def value_bias(fit, raw, trace_room) -> ValueBias:
    """The clipping bias of one clipped fit's values (post-processing).

    Parameters
    ----------
    fit : MethodFit
        The clipped method's fit (``release.upper`` is the clip C; ``histogram`` its clip
        choice, whose ``tail_estimate`` and ``tail_upper`` are
        :func:`dppca.estimators.clip_choice.tail_bias` of its noisy counts, or None).
    raw : ndarray, shape (k,)
        The released raw estimates.
    trace_room : ndarray, shape (k,)
        For each component, how far above its value its target can be given the private trace:
        trace + z sd_T - (sum of the other components' lower ends) - value (inf when no trace
        was released). v'Sv of orthonormal directions sum to at most tr S.

    Returns
    -------
    ValueBias

    Notes
    -----
    The Gaussian-tail bias raw b(c) / (1 - b(c)), c = C / raw
    (:func:`dppca.results.scree_values.gaussian_clip_bias`), is a floor of the bound, and the
    estimate when no histogram measured the tail. With a clip histogram,
    :func:`dppca.estimators.clip_choice.tail_bias` gives the estimate and raises the bound
    (a 2-sd upper bound of the mass above C over the two octaves above C, or up to the
    highest 2.5-sd bin within six, plus an allowance for the pairs a bin could hide beyond).
    Where the clip binds (C / raw under
    ``BINDING_HISTOGRAM``, or under ``BINDING_NONE`` without a histogram) the tail above C is
    unmeasured: the interval's allowance becomes at least ``trace_room``, and, without a
    histogram, so does the bound. Without a histogram the bound also adds ``UNMEASURED_SD``
    noise sd of the value (a tail heavier than the clip rule assumed, which no count measured).
    Privacy: released values and public constants only (post-processing).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> release = SimpleNamespace(upper=np.array([6.5, 2.0]), noise_sd=np.array([0.1, 0.1]))
    >>> b = value_bias(SimpleNamespace(release=release, histogram=None), np.array([1.0, 1.0]),
    ...                np.array([50.0, 50.0]))
    >>> round(float(b.estimate[0]), 3), round(float(b.bound[0]), 3), float(b.interval[1])
    (0.02, 0.07, 50.0)
    """
    positive = np.maximum(np.asarray(raw, float), 0.0)
    clip = np.asarray(fit.release.upper, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(positive > 0, clip / positive, np.inf)
    share = np.clip(gaussian_clip_bias(ratio), 0.0, 0.5)
    estimate = bound = positive * share / (1 - share)
    histogram = getattr(fit, "histogram", None)
    room = np.maximum(np.nan_to_num(np.asarray(trace_room, float), nan=0.0, posinf=np.inf), 0.0)
    if histogram is not None:
        # The measured tail replaces the assumed one in the estimate (the Gaussian term counts
        # a tail the histogram did not see, and doubles the predicted error where the clip
        # sits far above the bulk); the bound keeps both.
        estimate = np.asarray(histogram.tail_estimate, float)
        bound = np.maximum(bound, histogram.tail_upper)
        binding = ratio < BINDING_HISTOGRAM
        return ValueBias(estimate, bound, np.where(binding, np.maximum(bound, room), bound))
    bound = bound + UNMEASURED_SD * np.asarray(fit.release.noise_sd, float)
    bound = np.where(ratio < BINDING_NONE, np.maximum(bound, room), bound)
    return ValueBias(estimate, bound, bound)


def method_bias(fits, raw, std_err, trace, trace_sd, z) -> dict:
    """:func:`value_bias` of the clipped fit, zeros for the others: method -> ValueBias.

    ``raw`` and ``std_err`` are DataFrames (one column per method); the trace room uses the
    z-sd lower ends of the clipped values (:func:`trace_room`).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from types import SimpleNamespace
    >>> release = SimpleNamespace(upper=np.array([65.0]), noise_sd=np.array([1.0]))
    >>> frame = pd.DataFrame({"clipped": [10.0]})
    >>> fit = SimpleNamespace(release=release, histogram=None)
    >>> out = method_bias({"clipped": fit}, frame, frame * 0.1, 20.0, 1.0, 1.96)
    >>> round(float(out["clipped"].bound[0]), 3)  # Gaussian tail at C = 6.5 x value (2%) + sd / 2
    0.699
    """
    out = {}
    for m in fits:
        values, sd = raw[m].to_numpy(), std_err[m].to_numpy()
        if m != "clipped":
            zero = np.zeros(values.shape)
            out[m] = ValueBias(zero, zero, zero)
            continue
        room = trace_room(trace, trace_sd, values, np.maximum(values - z * sd, 0.0), z)
        out[m] = value_bias(fits[m], values, room)
    return out


def trace_room(trace, trace_sd, raw, lower, z) -> np.ndarray:
    """How far above each value its target can lie given the private trace, shape (k,).

    trace + z trace_sd - (sum of the other values' interval lower ends) - max(raw, 0): the
    variances of orthonormal directions sum to at most tr S. inf when no trace was released
    (k = p), or when the values' lower ends sum above trace + z trace_sd: the trace (a clipped
    mean, biased low) is then shown to miss tr S and bounds nothing (a trace clipped under a
    heavy tail can be a few percent of tr S). Post-processing of released values.

    Examples
    --------
    >>> trace_room(10.0, 0.5, [5.0, 2.0], [4.0, 1.0], 2.0).tolist()
    [5.0, 5.0]
    >>> trace_room(3.0, 0.5, [5.0, 2.0], [4.0, 1.0], 2.0).tolist()
    [inf, inf]
    """
    raw, lower = np.asarray(raw, float), np.asarray(lower, float)
    if not np.isfinite(trace) or lower.sum() > trace + z * trace_sd:
        return np.full(raw.shape, np.inf)
    return trace + z * trace_sd - (lower.sum() - lower) - np.maximum(raw, 0.0)


_TINY = np.finfo(float).tiny
#: The post-release trace row's threshold (the pre-release trace row's): above it the private
#: trace may be under about half of tr S, and "Total variance" and the PVE are marked.
TRACE_THRESHOLD = 0.5


def trace_bias_parts(bias) -> tuple:
    """(estimate, upper bound) of the trace's clipping bias from a float upper bound (estimate 0)
    or a :class:`dppca.estimators.clip_choice.TailBias` of shape (1,).

    Examples
    --------
    >>> trace_bias_parts(2.5)
    (0.0, 2.5)
    """
    if hasattr(bias, "upper"):
        return float(np.ravel(bias.estimate)[0]), float(np.ravel(bias.upper)[0])
    return 0.0, float(bias)


def trace_step(trace, trace_sd, bias_estimate, bias_upper, plan=()) -> list:
    """The summary's post-release trace row: ``[StepAccuracy]``, or ``[]`` when no trace was
    released (k = p).

    The private trace is a clipped mean of t = ||x_a - x_b||^2 / 2, biased low by the mass of
    the t's above its clip, which its released clip histogram estimates
    (:func:`dppca.estimators.clip_choice.tail_bias`): the predicted relative error is
    :func:`post_release_error` of the trace, its noise sd and that estimate. Where the plan
    (``plan``, public) gave the trace no clip histogram, its clip is the public fallback on a
    rough centre and its bias is unmeasured: the row is then at least the plan's own trace
    prediction, capped at 1 (:func:`unmeasured_trace_error`). Above ``TRACE_THRESHOLD``
    "Total variance" and the PVE (scree / T) are marked (:func:`total_variance_label`). The
    pre-release row predicts the noise only: a clip under a top-coded value's pairs leaves the
    trace a fraction of tr S whatever the noise, which only the measured tail can show.
    Privacy: released numbers and public arithmetic only (post-processing).

    Parameters
    ----------
    trace, trace_sd : float
        The private trace and its noise sd (nan when k = p).
    bias_estimate, bias_upper : float
        Its clipping-bias estimate and upper bound (0 under the public fallback clip).
    plan : sequence of StepAccuracy
        The call's pre-release rows (public), read by :func:`unmeasured_trace_error`.

    Returns
    -------
    list of StepAccuracy

    Examples
    --------
    >>> step = trace_step(10.0, 1.0, 40.0, 90.0)[0]
    >>> round(step.predicted, 2), step.reliable
    (0.8, False)
    >>> trace_step(float("nan"), float("nan"), 0.0, 0.0)
    []
    """
    if not np.isfinite(trace):
        return []
    error = max(post_release_error([trace], [trace_sd], [bias_estimate])[0],
                unmeasured_trace_error(plan))
    return [StepAccuracy(
        "trace (post-release)", "relative error of the private trace from its noise sd and the "
        f"clipping-bias estimate of its released clip histogram (bound {bias_upper:.3g}: T and "
        f"the PVE may be off by up to {(trace + bias_upper) / max(trace, _TINY):.3g}x)", error,
        "relative", TRACE_THRESHOLD, "bias from the released clip histogram (without one: at "
        "least the plan's trace row, at most 1)", "declared bounds (bounds=) or more eps")]


def unmeasured_trace_error(plan) -> float:
    """The post-release trace row's floor where the trace had no clip histogram: min(1, the
    plan's ``"trace"`` prediction) when ``plan`` has a ``"trace"`` row and no ``"trace: clip
    histogram"`` row (the share was noise-dominated: public arithmetic), else 0.

    Without a histogram the clip is the public fallback on a noisy rough centre and its bias
    is unmeasured, so the release knows no more of its error than the plan; the cap: a
    prediction of 1 already says the trace may be anywhere from 0 to twice tr S (as a value
    within one sd of 0, :func:`post_release_error`). Read from the release alone (noise sd /
    released trace, bias taken as 0) the row would claim what the release cannot know: an
    unmeasured bias can be most of the trace.

    Examples
    --------
    >>> from dppca.privacy.accuracy import StepAccuracy
    >>> row = StepAccuracy("trace", "noise sd / trace", 2.98, "relative", 0.5, "", "")
    >>> unmeasured_trace_error([row])
    1.0
    >>> histogram = StepAccuracy("trace: clip histogram", "", 0.2, "relative", 1.0, "", "")
    >>> unmeasured_trace_error([histogram, row])
    0.0
    """
    steps = {s.step: s.predicted for s in plan}
    if "trace" not in steps or "trace: clip histogram" in steps:
        return 0.0
    return min(1.0, steps["trace"])


def total_variance_label(trace, trace_sd, steps) -> str:
    """The summary header's "Total variance" entry: marked UNRELIABLE when the post-release
    trace row (in ``steps``) is (that row states the clipping-bias bound).

    Examples
    --------
    >>> total_variance_label(10.0, 1.0, trace_step(10.0, 1.0, 40.0, 90.0))
    '10 (s.e. 1) UNRELIABLE'
    """
    if not np.isfinite(trace):
        return "sum of the k values (k = p)"
    label = f"{trace:.4g} (s.e. {trace_sd:.2g})"
    if any(s.step == "trace (post-release)" and not s.reliable for s in steps):
        label += " UNRELIABLE"
    return label


#: Median of |Z| for Z ~ N(0, 1): the typical size of the noise part of an error.
MEDIAN_ABS_NORMAL = 0.6745


def post_release_error(raw, sd, bias) -> np.ndarray:
    """Predicted (median) relative error of each released value, shape (k,).

    sqrt((0.6745 sd)^2 + bias^2) / max(value + bias, sd): the noise's median absolute size
    (``MEDIAN_ABS_NORMAL`` sd) and the clipping bias, which only lowers the estimate (the
    target is about value + bias), over the target. A value within one sd of 0 says nothing of
    its target's size (from 0 to a few sd): at least 1 (the noise alone, read against a value
    of the order of its sd, would predict about 0.67 where the error can be 100%).

    Examples
    --------
    >>> post_release_error([10.0, 0.5], [1.0, 1.0], [0.0, 0.0]).round(4).tolist()
    [0.0674, 1.0]
    """
    raw, sd, bias = (np.asarray(a, float) for a in (raw, sd, bias))
    error = np.sqrt((MEDIAN_ABS_NORMAL * sd) ** 2 + bias ** 2) / \
        np.maximum(np.maximum(raw, 0.0) + bias, sd)
    return np.where(raw <= sd, np.maximum(error, 1.0), error)


def unanchored_floor(method, fit, plan) -> np.ndarray:
    """Floor of each value's post-release error, shape (k,): 1 where the value's clip is a
    multiple of a private trace whose noise the plan (``plan``, public) predicts at least as
    large as the trace itself, else 0.

    The clipped method's fallback clip (all components under the public fallback rule: the
    fit's ``trace_clip``, or a component whose clip histogram showed no significant bin: its
    ``histogram.fallback``) is 6.49 x the private trace. A trace whose noise sd is at least its
    size anchors nothing: it is released near 0 or far above tr S in a large share of runs, and
    the clip with it, so the value collapses toward 0 or is noise that its own noise sd only
    scales, whatever that sd says: such values can be released many orders of magnitude off
    their target while their own sd predicts a moderate error. Where the plan's trace row is
    under 1 the trace anchors the clip and no floor applies. The gate is the plan's row (public
    arithmetic), not the post-release trace row: the latter is itself noisy and would floor
    values whose clip was well anchored. Public arithmetic and released numbers only.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dppca.privacy.accuracy import StepAccuracy
    >>> fit = SimpleNamespace(trace_clip=True, histogram=None,
    ...                       release=SimpleNamespace(estimate=[1.0, 0.5]))
    >>> plan = [StepAccuracy("trace", "noise sd / trace", 1.33, "relative", 0.5, "", "")]
    >>> unanchored_floor("clipped", fit, plan).tolist()
    [1.0, 1.0]
    >>> unanchored_floor("clipped", fit, []).tolist()
    [0.0, 0.0]
    """
    k = np.asarray(fit.release.estimate).size
    unanchored = any(s.step == "trace" and s.predicted >= 1.0 for s in plan)
    if method != "clipped" or not unanchored:
        return np.zeros(k)
    if getattr(fit, "histogram", None) is not None:
        return np.asarray(fit.histogram.fallback, float)
    return np.full(k, float(getattr(fit, "trace_clip", False)))


def post_release_step(method, error) -> StepAccuracy:
    """The summary's post-release row of one method: PC1's predicted relative error.

    Examples
    --------
    >>> post_release_step("clipped", [0.05, 0.2]).reliable
    True
    """
    error = np.asarray(error, float)
    return StepAccuracy(
        f"{method}: scree values (post-release)",
        "PC1's predicted relative error from the released values, noise sd and clipping-bias "
        f"estimate (all: result.value_error; largest {np.max(error):.3g})", float(error[0]),
        "relative", POST_RELEASE_THRESHOLD,
        "bias from the released clip histogram, or Gaussian tails without one" if
        method == "clipped" else "noise only: a robust variance, v'Sv for light tails only",
        "declared bounds (bounds=), more eps, or fewer components")


def robust_comparable(raw, sd, clipped_lower, clipped_upper, z) -> np.ndarray:
    """Whether robust values (pmwm, huber) are comparable to v'Sv, shape (k,) of bool.

    A robust method estimates a robust variance; on heavy tails it is far below v'Sv. The
    clipped method of the same call estimates v'Sv of the same directions, with an interval
    that allows for its clipping bias: a robust value is comparable when its own z-sd interval
    meets the clipped one. Post-processing of released values.

    Examples
    --------
    >>> robust_comparable([1.0, 0.2], [0.1, 0.01], [0.9, 0.9], [1.2, 1.2], 2.0).tolist()
    [True, False]
    """
    raw, sd = np.asarray(raw, float), np.asarray(sd, float)
    return (raw + z * sd >= np.asarray(clipped_lower, float)) & \
        (raw - z * sd <= np.asarray(clipped_upper, float))


__all__ = ["BIAS_LIMIT", "FLOOR_GATE", "NOISE_FLOOR", "TRACE_THRESHOLD", "UNMEASURED_SD",
           "ValueBias", "method_bias", "noise_floors", "post_release_error", "post_release_step",
           "robust_comparable", "total_variance_label", "trace_bias_parts", "trace_room",
           "trace_step", "unanchored_floor", "unmeasured_trace_error", "value_bias"]
