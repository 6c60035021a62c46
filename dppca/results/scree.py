"""``ScreeResult``: the result of :func:`dppca.dp_scree`, with its post-processing.

Post-processing (free of privacy cost): the raw noisy estimates become the released scree
values (non-negative, non-increasing fit when ``mono``), PVE of the private total variance,
R's PVE among the k values, and cumulative PVE. The post-processing functions live in
:mod:`dppca.results.scree_values` (re-exported here).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from .estimands import ESTIMANDS, direction_estimand
from ..privacy.accuracy import AccuracyReport
from .base import NONPRIVATE, DPResult, combined_ledger, frame_table, scaling_label
from ..privacy.neighbouring import observations_label, relation_label
from .directions import pc_names
from .scree_checks import (method_bias, noise_floors, post_release_error, post_release_step,
                           robust_comparable, total_variance_label, trace_bias_parts, trace_step,
                           unanchored_floor)
from .scree_values import antitonic, gaussian_clip_bias, monotone_scree, share_of_sum
from .directions_tails import heavy_tail_note, scree_tail_evidence

#: Column / key of the NON-PRIVATE reference (the R package's list name).
REFERENCE = "nonprivate"
#: A released value is marked reliable only when raw >= this x its noise sd (raw - 3 sd >= raw/10)
#: and raw <= CLIP_BINDING x the top of its clamp interval (the clip does not bind).
RELIABLE_MIN_SD, CLIP_BINDING = 10.0 / 3.0, 1.0 / 3.0
#: ... and the monotone fit moved it by at most this factor.
MONO_MOVE = 2.0
#: ... and its clipping-bias bound is small: at most this x the value, so that the bound puts
#: the target within 2x of the value (a noise-free value 10x off its target passed the former
#: 9x limit whenever the released tail counts under-read a heavy tail: the bound is an estimate
#: from noisy counts, not a certainty, so only a small bound is evidence of a small bias).
SMALL_BIAS = 1.0
#: ... and the private trace's own clipping-bias bound is at most this x the trace: beyond it
#: the clipped trace may miss most of tr S, i.e. a tail heavier than every clip carries variance
#: the values' histograms cannot see (a handful of rows), so no value's bias is bounded.
TRACE_BIAS_LIMIT = 1.0


class ScreeResult(DPResult):
    """Private scree values (variances along PC directions), PVE and their uncertainty.

    Made by :func:`dppca.dp_scree` (users do not construct it): the pipeline passes what it
    released, and the result only post-processes (no privacy cost) and formats.

    Parameters
    ----------
    fits : dict of str to fit
        Per method, its fit; ``fit.release`` holds the raw noisy ``estimate`` and ``noise_sd``
        of each of the k values.
    trace, trace_std_err : float
        The private trace and its noise sd (nan when k = p).
    ledgers : dict of str to Ledger
        Per method, every release its numbers depend on.
    shared_releases : int
        How many of the first releases of each ledger are shared by all methods (directions,
        trace), counted once in ``combined_ledger``.
    directions : pandas.DataFrame, shape (p, k)
        The directions used.
    private_directions : bool
        Whether the directions are a private release.
    scale_source : str
        How the columns were scaled (as in :class:`dppca.PCDirections`).
    n_obs : int
        Number of rows n (public).
    eps, delta : float
        Total budget of the :func:`dppca.dp_scree` call, shared by all methods.
    calibration : {"analytic", "classic"}
        How the Gaussian noise was calibrated (for the summary header).
    seed : int or str
        As given to :func:`dppca.dp_scree` (shown in the summary).
    mono : bool
        Whether to fit a non-increasing sequence (values are clamped to [0 or sd / 3
        (``NOISE_FLOOR``), their clamp's top] either way).
    controls : dict of str to control
        The resolved control object of each method.
    nonprivate : dict, optional
        NON-PRIVATE reference ``{"scree": values, "trace": float}``, when the call asked for it.
    extra_notes : sequence of str
        Extra lines for the summary.
    directions_private : bool, optional
        The same as ``private_directions`` (the name every result shares); wins when given.
    accuracy : AccuracyReport, optional
        The call's accuracy model (public numbers only): the summary's "Expected accuracy"
        block, and the gate of the ``reliable`` marks.
    trace_bias : float or TailBias, optional
        Upper bound of the trace's clipping bias (added to the trace in the intervals' room), or
        the trace's :class:`dppca.estimators.clip_choice.TailBias` (estimate and bound: the
        post-release "trace" row, :func:`dppca.results.scree_checks.trace_step`).

    Attributes
    ----------
    scree : pandas.DataFrame, shape (k, r [+1])
        Released scree values (units of the data squared), rows PC1..PCk, one column per method,
        plus ``nonprivate`` only when the call asked for it.
    raw : pandas.DataFrame
        The noisy estimates before post-processing (unbiased for the clipped quantities).
    std_err : pandas.DataFrame
        Standard deviation of the privacy noise of each raw estimate (approximate for Huber).
    pve : pandas.DataFrame
        Share of the total variance: scree / T, T = max(private trace, sum of the k values).
    pve_among_k : pandas.DataFrame
        Share among the k values (the R package's "pve").
    cumulative_pve : pandas.DataFrame
        Cumulative sums of ``pve``.
    total_variance : pandas.Series
        T per method (and the NON-PRIVATE trace when asked).
    trace, trace_std_err : float
        The private trace estimate (before the max above) and its noise sd; nan when k = p
        (then T is the sum of the k values and no trace is released).
    ledger : dict of str to Ledger
        Per method, every release its numbers depend on (shared directions and trace included).
    combined_ledger : Ledger
        Every release of the call once: what publishing all methods together costs.
    directions : pandas.DataFrame, shape (p, k)
        The directions used (private g-DPPCA, or NON-PRIVATE when ``directions_private`` is False).
    directions_private : bool
        Whether the directions are a private release (``private_directions`` is an alias).
    methods : tuple of str
        The methods, in the order of the columns.
    controls : dict of str to control
        As passed.
    n_obs, n_features, k : int
        Rows, columns and components.
    eps, delta : float
        The call's budget.
    calibration, scale_source : str
        As passed.
    mono : bool
        As passed.
    accuracy : AccuracyReport
        As passed (empty when not given), followed by one post-release row per method
        (:func:`dppca.results.scree_checks.post_release_step`).
    bias : dict of str to ValueBias
        Per method, the post-release clipping-bias estimate, bound and interval allowance of
        each value (:meth:`clipping_bias`; post-processing of released numbers).
    value_error : pandas.DataFrame, shape (k, r)
        Post-release predicted (median) relative error of each value: noise and clipping bias
        (:func:`dppca.results.scree_checks.post_release_error`), at least 1 where the value's
        clip rests on a private trace the plan predicts noise-dominated
        (:func:`dppca.results.scree_checks.unanchored_floor`).
    reliable : pandas.DataFrame of bool, shape (k, r)
        Per method and component, whether the value can be trusted to be within 10x of what
        it estimates: the model's gating steps are reliable, raw >= ``RELIABLE_MIN_SD`` s.e. and
        raw <= ``CLIP_BINDING`` x its clip, the monotone fit moved it by at most a factor
        ``MONO_MOVE``, its clipping-bias bound is at most ``SMALL_BIAS`` x raw (small: the target
        within 2x), the trace's bias bound at most ``TRACE_BIAS_LIMIT`` x the trace, its interval
        has a finite upper end, and (pmwm, huber, with "clipped") its interval meets the clipped
        one.
    seed : int or str
        As passed.
    figure : matplotlib Figure or None
        Set by :func:`dppca.dp_scree_plot` (:meth:`plot` returns a Figure and leaves it alone).

    See Also
    --------
    dp_scree : Makes this result.
    dp_scree_plot : The same with a figure.

    Examples
    --------
    >>> from dppca import dp_scree, load_gau
    >>> result = dp_scree(load_gau().iloc[:1000], k=3, method="clipped", eps=1, delta=1e-5,
    ...                   rng=1)
    >>> result.methods, result.k
    (('clipped',), 3)
    >>> bool((result.pve >= 0).all().all())
    True
    """

    _subject = "Scree"
    #: The direction method of :func:`dppca.dp_pc_dir` behind ``directions`` when not
    #: g-DPPCA's (private) or sample PCA's (non-private); names the estimand.
    direction_method = None

    def _estimand_keys(self):
        # Private directions are g-DPPCA's (Kendall) unless ``direction_method`` names
        # another path (e.g. "rank"); non-private ones are sample PCA's.
        standardized = self.scale_source != "none"
        method = self.direction_method or ("gdppca" if self.directions_private
                                           else "nonprivate")
        return [("Directions", direction_estimand(method, standardized))] + \
            [(f"Values ({name})", name) for name in self.methods if name in ESTIMANDS]

    @property
    def private_directions(self) -> bool:
        """Alias of ``directions_private`` (its first name)."""
        return self.directions_private

    def __init__(self, fits, *, trace, trace_std_err, ledgers, shared_releases, directions,
                 private_directions, scale_source, n_obs, eps, delta, calibration, seed, mono,
                 controls, nonprivate=None, extra_notes=(), directions_private=None,
                 accuracy=None, trace_bias=0.0):
        self.methods = tuple(fits)
        self.fits = dict(fits)
        self.k = directions.shape[1]
        index = pc_names(self.k)
        self.raw = pd.DataFrame({m: f.release.estimate for m, f in fits.items()}, index=index)
        self.std_err = pd.DataFrame({m: f.release.noise_sd for m, f in fits.items()}, index=index)
        # Fail-safe (post-processing): every released value lies in [NOISE_FLOOR x its noise sd,
        # its public or private upper bound] (the clamp's top for clipped and winsorized means).
        bounded = self.raw.clip(lower=noise_floors(self.std_err, accuracy), upper=pd.DataFrame(
            {m: f.release.upper if m != "huber" else np.inf for m, f in fits.items()}, index=index),
            axis=None)
        scree = bounded.apply(monotone_scree) if mono else bounded
        self.trace, self.trace_std_err = float(trace), float(trace_std_err)
        self.trace_bias_estimate, self.trace_bias = trace_bias_parts(trace_bias)
        # T >= the sum of the k values (orthonormal directions); nan trace (k = p): T is the sum.
        total = {m: max(np.nan_to_num(self.trace), float(np.maximum(scree[m], 0).sum()),
                        np.finfo(float).tiny) for m in self.methods}
        if nonprivate is not None:
            scree[REFERENCE] = nonprivate["scree"]
            total[REFERENCE] = nonprivate["trace"]
        self.scree = scree
        self.total_variance = pd.Series(total, name="total variance")
        self.pve = scree / self.total_variance
        self.pve_among_k = scree.apply(share_of_sum)
        self.cumulative_pve = self.pve.cumsum()
        self.ledger = dict(ledgers)
        self.combined_ledger = combined_ledger(ledgers, shared_releases, eps, delta)
        self.directions = directions
        # ``directions_private`` is the name shared by every result; ``private_directions`` its
        # first name (either may be passed).
        self.directions_private = bool(private_directions if directions_private is None
                                       else directions_private)
        self.scale_source = scale_source
        self.n_obs, self.n_features = int(n_obs), directions.shape[0]
        self.eps, self.delta, self.calibration, self.seed = eps, delta, calibration, seed
        self.mono = mono
        self.controls = dict(controls)
        self.has_nonprivate = nonprivate is not None
        self.bias = self.clipping_bias()
        before = [] if accuracy is None else list(accuracy.steps)
        traced = trace_step(self.trace, self.trace_std_err, self.trace_bias_estimate,
                            self.trace_bias, before)
        self.value_error = pd.DataFrame(
            {m: np.maximum(post_release_error(self.raw[m], self.std_err[m], self.bias[m].estimate),
                           unanchored_floor(m, self.fits[m], before))
             for m in self.methods}, index=index)
        self.accuracy = AccuracyReport(before + [post_release_step(m, self.value_error[m])
                                                 for m in self.methods] + traced)
        self.reliable = self._reliable_values()
        self._extra_notes = list(extra_notes)
        self.figure = None

    # ------------------------------------------------------------------ numbers

    def _reliable_values(self) -> pd.DataFrame:
        """Which released values to trust (post-processing of released numbers and the model).

        A value is reliable when the model's gating steps are (the trace's rough centre and the
        method's tuning quantiles, public arithmetic), its raw estimate is at least
        ``RELIABLE_MIN_SD`` noise sd (so raw - 3 sd >= raw / 10: within 10x of the clipped
        quantity up to a 3-sd event) and, for the clipped and winsorized means, at most
        ``CLIP_BINDING`` of its clamp's top (else the clip may bind and bias it down).
        """
        gate = {s.step: s.reliable for s in self.accuracy.steps}
        marks = {}
        for m, f in self.fits.items():
            ok = gate.get("trace: rough centre", True) and gate.get(f"{m}: tuning quantiles", True)
            raw, sd = self.raw[m].to_numpy(), self.std_err[m].to_numpy()
            value_ok = raw >= RELIABLE_MIN_SD * sd
            if m != "huber":
                value_ok &= raw <= CLIP_BINDING * np.asarray(f.release.upper, float)
            # The monotone fit pooled this value with others far from it (e.g. directions out
            # of variance order): the released value is not this component's estimate.
            fitted = self.scree[m].to_numpy()
            with np.errstate(divide="ignore", invalid="ignore"):
                value_ok &= (fitted <= MONO_MOVE * raw) & (raw <= MONO_MOVE * fitted)
            # Post-release: the bias bound is not small (the target may be > 2x the value), the
            # clip binds and the private trace bounds nothing (the interval has no finite upper
            # end), or the trace's own bias bound says a tail beyond every clip holds variance.
            bias = self.bias[m]
            value_ok &= (bias.bound <= SMALL_BIAS * np.maximum(raw, 0.0)) & np.isfinite(bias.interval)
            value_ok &= not self._trace_tail_unbounded()
            marks[m] = ok & value_ok
        if "clipped" in self.fits:  # robust values must agree with the clipped v'Sv
            z = float(norm.ppf(0.975))
            ci = self.conf_int()
            for m in set(self.methods) - {"clipped"}:
                marks[m] = marks[m] & robust_comparable(
                    self.raw[m], self.std_err[m], ci[("clipped", "lower")],
                    ci[("clipped", "upper")], z)
        return pd.DataFrame(marks, index=self.raw.index)

    def tail_evidence(self) -> list:
        """Released evidence of heavy tails or skew, as short descriptions (empty: none).

        :func:`dppca.results.directions_tails.scree_tail_evidence` of the clipped method's clip
        histograms and the Kendall-order row; the summary's notes then say what it means for
        the estimand. Post-processing of released values.

        Returns
        -------
        list of str
        """
        histogram = getattr(self.fits.get("clipped"), "histogram", None)
        if histogram is None or histogram.counts is None:
            return scree_tail_evidence(None, np.nan, self.accuracy.steps)
        return scree_tail_evidence(histogram.counts, histogram.sigma, self.accuracy.steps)

    def _trace_tail_unbounded(self) -> bool:
        """Whether the private trace's clipping-bias bound exceeds ``TRACE_BIAS_LIMIT`` x the
        trace (post-processing of released values; False when no trace was released)."""
        trace, bound = self.trace, float(np.max(np.nan_to_num(self.trace_bias, nan=0.0)))
        return bool(np.isfinite(trace) and bound > TRACE_BIAS_LIMIT * max(trace, 0.0))

    def clipping_bias(self, alpha=0.05) -> dict:
        """Per method, the post-release clipping bias of its values (post-processing).

        Parameters
        ----------
        alpha : float in (0, 1)
            Level of the intervals whose lower ends and trace bound enter the trace room.

        Returns
        -------
        dict of str to ValueBias
            :class:`dppca.results.scree_checks.ValueBias` (zero for pmwm and huber);
            ``result.bias`` is the one at alpha = 0.05.
        """
        return method_bias(self.fits, self.raw, self.std_err, self.trace + self.trace_bias,
                           self.trace_std_err, float(norm.ppf(1 - alpha / 2)))

    def conf_int(self, alpha=0.05) -> pd.DataFrame:
        """(1 - alpha) intervals: raw -/+ z sd, clipped at 0; the clipped method's upper end
        also allows for its clipping bias (:func:`dppca.results.scree_checks.value_bias`).

        Clipping only lowers the estimate: for u = lambda chi2_1 and clip C = c lambda,
        E min(u, C) = lambda (1 - b(c)), b(c) = P(chi2_3 > c) - c P(chi2_1 > c) (2% at
        c = 6.5). The upper end adds the larger of raw b(c) / (1 - b(c)) with c = C / raw and,
        for a self-tuned clip, the bias bound read from its released log2 histogram (a 2-sd
        upper bound of the mass above C, bins at their upper edges, over the two octaves above
        C or up to the highest 2.5-sd bin within six; plus significant bins further up); where
        the clip binds (C / raw < 4 with a histogram, < 6.5 without) it reaches the bound the
        private trace plus its bias bound sets (scree_checks.trace_room). A tail too sparse
        for the histogram to see, far above the clip, is not covered (docs/small_data.md).

        Returns
        -------
        pandas.DataFrame
            Rows PC1..PCk, columns (method, "lower"/"upper").
        """
        z = float(norm.ppf(1 - alpha / 2))
        bias = self.bias if alpha == 0.05 else self.clipping_bias(alpha)
        parts = {}
        for m in self.methods:
            raw, sd = self.raw[m], self.std_err[m]
            allowance = bias[m].interval
            parts[(m, "lower")] = np.maximum(raw - z * sd, 0.0)
            parts[(m, "upper")] = np.maximum(raw + z * sd + allowance, 0.0)
        return pd.DataFrame(parts, index=self.raw.index)

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (method, component) with every number of the result."""
        ci = self.conf_int()
        rows = []
        for m in self.scree.columns:
            private = m in self.methods
            for pc in self.scree.index:
                rows.append({"method": m, "component": pc, "scree": self.scree.at[pc, m],
                             "raw": self.raw.at[pc, m] if private else np.nan,
                             "std_err": self.std_err.at[pc, m] if private else np.nan,
                             "ci_lower": ci.at[pc, (m, "lower")] if private else np.nan,
                             "ci_upper": ci.at[pc, (m, "upper")] if private else np.nan,
                             "pve": self.pve.at[pc, m], "pve_among_k": self.pve_among_k.at[pc, m],
                             "cumulative_pve": self.cumulative_pve.at[pc, m],
                             "reliable": bool(self.reliable.at[pc, m]) if private else True})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """R-shaped payload: ``nonprivate`` (only when asked), then one entry per method.

        Each entry has named vectors (dicts PC1..PCk -> float) ``scree``, ``pve`` (share of the
        total variance), ``pve_among_k`` (the R package's ``pve``), ``cumulative_pve``, and for
        private methods ``raw``, ``std_err``, ``conf_int_lower``, ``conf_int_upper``, plus
        ``total_variance`` and the method's ``ledger`` (``Ledger.to_dict()``).
        """
        ci = self.conf_int()
        payload = {}
        for m in ([REFERENCE] if self.has_nonprivate else []) + list(self.methods):
            entry = {name: getattr(self, name)[m].to_dict()
                     for name in ("scree", "pve", "pve_among_k", "cumulative_pve")}
            entry["total_variance"] = float(self.total_variance[m])
            if m in self.methods:
                entry.update(raw=self.raw[m].to_dict(), std_err=self.std_err[m].to_dict(),
                             conf_int_lower=ci[(m, "lower")].to_dict(),
                             conf_int_upper=ci[(m, "upper")].to_dict(),
                             reliable=self.reliable[m].to_dict(),
                             ledger=self.ledger[m].to_dict())
            payload[m] = entry
        return payload

    def plot(self, type="scree", plot_control=None, ax=None, alpha=0.05):
        """Scree or PVE line plot (matplotlib); returns the Figure (the result is unchanged).

        Parameters
        ----------
        type : {"scree", "pve"}
        plot_control : ScreePlotControl, dict or None
            See :func:`dppca.scree_plot_control`.
        ax : matplotlib Axes, optional
        alpha : float in (0, 1)
            Error bars on scree plots are the (1 - alpha) noise intervals of :meth:`conf_int`.
        """
        from ..plotting.scree import scree_figure

        return scree_figure(self, type=type, plot_control=plot_control, ax=ax, alpha=alpha)

    def __repr__(self) -> str:
        return (f"ScreeResult(methods={self.methods}, k={self.k}, n_obs={self.n_obs}, "
                f"eps={self.eps:g}, delta={self.delta:g})")

    # ------------------------------------------------------------------ summary

    def _header(self):
        directions = "g-DPPCA (private)" if self.private_directions else f"{NONPRIVATE} sample PCA"
        left = [("Methods", ", ".join(self.methods)),
                ("Mechanism", "; ".join(dict.fromkeys(f.mechanism for f in self.fits.values()))),
                ("Epsilon", self.eps), ("Delta", self.delta), ("Calibration", self.calibration),
                ("Directions", directions),
                ("Total variance", total_variance_label(self.trace, self.trace_std_err,
                                                        self.accuracy.steps))]
        right = [("Neighbouring", relation_label(self.combined_ledger)),
                 (observations_label(self.combined_ledger), self.n_obs),
                 ("No. Variables", self.n_features), ("No. Components", self.k),
                 ("Scaling", scaling_label(self.scale_source, self.combined_ledger)), ("Monotone", self.mono), ("Seed", self.seed)]
        return left, right

    def _tables(self, alpha=0.05):
        ci = self.conf_int(alpha)
        lower, upper = f"[{alpha / 2:g}", f"{1 - alpha / 2:g}]"
        tables = []
        for m in self.methods:
            frame = pd.DataFrame({"scree": self.scree[m], "std err": self.std_err[m],
                                  lower: ci[(m, "lower")], upper: ci[(m, "upper")],
                                  "raw": self.raw[m], "PVE": self.pve[m],
                                  "cum. PVE": self.cumulative_pve[m],
                                  "PVE among k": self.pve_among_k[m],
                                  "reliable": self.reliable[m].map({True: "yes", False: "NO"})})
            label = "private" if self.directions_private else \
                f"private given {NONPRIVATE} directions"
            tables.append(frame_table(frame, title=f"{m} ({label})"))
        if self.has_nonprivate:
            m = REFERENCE
            frame = pd.DataFrame({"scree": self.scree[m], "PVE": self.pve[m],
                                  "cum. PVE": self.cumulative_pve[m],
                                  "PVE among k": self.pve_among_k[m]})
            tables.append(frame_table(frame, title=f"{NONPRIVATE} reference (sample covariance)"))
        return tables

    def _notes(self):
        notes = []
        if not self.directions_private:
            notes.append(f"NOT PRIVATE END TO END: the directions are the {NONPRIVATE} "
                         "sample-covariance eigenvectors (g_dppca=False, as in R), which depend on "
                         "every row without noise; the scree values are private only given them. "
                         "Use g_dppca=True for (eps, delta)-DP numbers.")
        notes.extend(heavy_tail_note(self.tail_evidence()))
        combined = self.combined_ledger
        notes.append(f"Privacy: all numbers together spend eps={combined.spent_eps:.4g}, "
                     f"delta={combined.spent_delta:.4g} ({relation_label(combined)} "
                     "neighbours). "
                     + ("" if len(self.methods) == 1 else
                        f"The {len(self.methods)} methods share the directions and the trace and "
                        "split the rest of the budget; one method's numbers alone depend only on "
                        "its own ledger (`result.ledger[method]`)."))
        notes.append("Std err and intervals cover the privacy noise (for clipped, plus its "
                     "clipping bias read from its released clip histogram, or the Gaussian-tail "
                     "bias without one; where the clip binds, up to the bound the private trace "
                     "sets), not sampling error or direction error. A tail far above the clip and "
                     "too sparse for the histogram (a few rows carrying much of a component's "
                     "variance) is still missed (benchmarks/results/small_data_scree.txt); "
                     "intervals are raw -/+ z(1 - alpha/2) s.e. (+ the clipped allowance) "
                     "(conf_int(alpha); summary(alpha)), clipped at 0"
                     + (" (Huber: noise of the last step, approximate)."
                        if "huber" in self.methods else "."))
        notes.append("scree = non-negative, non-increasing least-squares fit of the raw estimates "
                     "(mono=True)." if self.mono else "scree = raw noisy estimates (mono=False).")
        notes.append("PVE = scree / T, T = max(private total variance, sum of the k scree values); "
                     "'PVE among k' is the R package's pve (share of the k values only).")
        notes.extend(f"{m}: {f.tuning}." for m, f in self.fits.items())
        notes.append("Released values are clamped to [0 (sd / 3 where the model predicts the "
                     "values within 1), the top of their clamp interval] "
                     "(post-processing). 'reliable' = NO: the accuracy model flags a step they "
                     "rest on, raw < 3.3 s.e., raw > 1/3 of the clip, the monotone fit moved "
                     "it by more than 2x, its post-release clipping-bias bound exceeds the value "
                     "(the target may be over 2x it), or the private trace's bias bound exceeds "
                     "the trace (a tail beyond every clip): declare bounds= or spend more eps"
                     + ("; pmwm/huber: the value's interval misses the clipped one of the same "
                        "direction (on heavy tails a robust method estimates a robust variance, "
                        "not v'Sv)" if "clipped" in self.methods and len(self.methods) > 1 else
                        "" if "clipped" in self.methods else
                        "; pmwm/huber estimate a robust variance, equal to v'Sv for light tails "
                        "only: add method 'clipped' to check them against it")
                     + "; such values may be off by more than 10x.")
        return notes + self._extra_notes


__all__ = ["ScreeResult", "antitonic", "gaussian_clip_bias", "monotone_scree", "share_of_sum"]
