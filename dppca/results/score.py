"""``ScoreResult``: the result of :func:`dppca.dp_score` and its relatives."""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from ..controls.sampling import DEFAULT_SAMPLE_CAP
from ..privacy.neighbouring import observations_label, relation_label
from .base import NONPRIVATE, DPResult, fmt, frame_table, ledger_table, scaling_label


class ScoreResult(DPResult):
    """Private 2-D histograms of principal component scores inside a private frame.

    Made by :func:`dppca.dp_score` and its relatives (users do not construct it): the pipeline
    passes what it released, and the result stores, formats and delegates sampling.

    Parameters
    ----------
    frame : dppca.estimators.frame.Frame
        The private frame (centre, half width, limits in projection coordinates).
    shift : (float, float)
        Subtracted from the frame limits for plotting (the private centre, or 0).
    grid : dppca.estimators.histograms.Grid
        The bins.
    releases : dict of str to dppca.estimators.histograms.HistogramRelease
        Per histogram method, its private release (probabilities and group totals).
    histograms : dict of str to pandas.DataFrame
        The same releases as tables (xmin, xmax, ymin, ymax, prob[, group]).
    groups : list of str or None
        Group labels shown (None when ungrouped).
    ledger : Ledger
        Every release of the call.
    directions : PCDirections
        The directions used.
    axes : (int, int)
        1-based PC numbers for x and y.
    eps, delta : float
        The call's budget.
    calibration : str
        The Gaussian calibration used.
    seed : int or str
        The seed the call was given.
    n_obs : int
        Number of rows n (public), or its released noisy count under add/remove neighbours
        (n private; the summary says "No. Observations (noisy)").
    center : bool
        The call's flag.
    standardize : bool or "rank"
        The call's flag; "rank": normal scores on the latent copula correlation directions
        (the frame is public).
    g_dppca : bool
        The call's flag.
    bins_rule : str
        Where the number of bins came from.
    rng : numpy.random.Generator
        The call's generator, used again by :meth:`draw_samples`.
    sampler : callable
        Draws synthetic samples from a released histogram (post-processing).
    sampling_control : type
        The control class that validates sampling arguments.
    scores : pandas.DataFrame, optional
        NON-PRIVATE scores, when the call asked for them.
    nonprivate_counts : ndarray, optional
        NON-PRIVATE exact counts on the grid, when the call asked for them.
    nonprivate_histogram : pandas.DataFrame, optional
        The same counts as a table of probabilities.
    group_selection : str, optional
        Where ``groups`` came from.
    directions_private : bool, optional
        Whether the directions are private (default: ``directions.private``).
    extra_notes : sequence of str, optional
        Notes the summary adds (e.g. that n is private and ``n_obs`` its noisy count).

    Attributes
    ----------
    frame : dict
        ``{"xlim": (lo, hi), "ylim": (lo, hi)}``, the private square frame in plotted
        coordinates (relative to the private centre when ``center=True``).
    centre : pandas.Series
        The private centre (exponential-mechanism medians) in projection coordinates X V.
    half_width : float
        Half the side of the frame (private).
    bins : (int, int)
        Bins along x and y; ``bins_rule`` says where they came from.
    grid : dppca.estimators.histograms.Grid
        The bins (edges along x and y).
    histograms : dict of str to pandas.DataFrame
        Private histograms, method -> DataFrame with columns xmin, xmax, ymin, ymax, prob
        (and ``group`` for grouped results; prob sums to 1 within each group).
    group_sizes : pandas.DataFrame or None
        Grouped results: private estimates of the group sizes (rows = groups, one column per
        method, read off the same released histograms); a NON-PRIVATE exact column is added
        only when the call asked for references.
    groups : list of str or None
        Group labels shown: a declared public domain, or the labels released by private
        partition selection (``group_selection`` says which).
    group_selection : {"levels", "categories", "partition selection"} or None
        Where ``groups`` came from: ``levels=``, the categories of a Categorical, or private
        partition selection (then labels with few rows may be missing).
    samples : dict
        Synthetic samples, target -> {sampling method -> DataFrame pc_x, pc_y[, group]}, filled
        by :func:`dppca.dp_score_plot` or :meth:`draw_samples`.
    ledger : Ledger
        Every release of the call (directions when private, frame, histograms).
    directions : PCDirections
        The directions used (private only when ``g_dppca=True``).
    private : bool
        True when every released number is (eps, delta)-DP end to end (``g_dppca=True``).
    directions_private : bool
        Whether the directions are a private release (False for ``g_dppca=False``: the summary
        header and every plot title then say NON-PRIVATE directions).
    scale_source : str
        How the columns were scaled before projecting (default: the directions'
        ``scale_source``); axis labels say "standardized units" unless it is "none".
    scores, nonprivate_histogram : pandas.DataFrame or None
        NON-PRIVATE references (the individual scores, the exact histogram on the same grid),
        only when the call passed ``nonprivate=True``.
    figure : matplotlib Figure or None
        Set by :func:`dppca.dp_score_plot` (:meth:`plot` returns a Figure and leaves it alone).

    See Also
    --------
    dp_score, dp_score_group : Make this result.
    dp_score_plot, dp_score_plot_group : The same with a figure.

    Notes
    -----
    Built by the pipeline (:mod:`dppca.score`), which passes the released histograms as
    DataFrames, its sampler (:func:`dppca.estimators.sampling.sample_released`) and the sampling
    control class: the result stores, formats and delegates; it imports no estimator.

    Examples
    --------
    >>> from dppca import dp_score, load_gau
    >>> result = dp_score(load_gau().iloc[:1000], eps=1, delta=1e-5, method="add", rng=1)
    >>> result.methods, result.axes
    (('add',), (1, 2))
    >>> result.ledger.spent_eps <= 1
    True
    """

    _subject = "PC Score Histograms"

    @property
    def axis_labels(self) -> tuple:
        """Default x and y labels: "PC<a> score (<units>)"."""
        return tuple(f"{pc} score ({self.units})" for pc in _pc(self.axes))

    def __init__(self, *, frame, shift, grid, releases, histograms, groups, ledger, directions,
                 axes, eps, delta, calibration, seed, n_obs, center, standardize, g_dppca,
                 bins_rule, rng, sampler, sampling_control, scores=None, nonprivate_counts=None,
                 nonprivate_histogram=None, group_selection=None, directions_private=None,
                 extra_notes=()):
        self.centre = pd.Series(frame.centre, index=_pc(axes), name="private centre")
        self.half_width = float(frame.half_width)
        self.frame = {"xlim": tuple(float(v) for v in np.subtract(frame.xlim, shift[0])),
                      "ylim": tuple(float(v) for v in np.subtract(frame.ylim, shift[1]))}
        self.grid, self.bins, self.bins_rule = grid, grid.shape, bins_rule
        self.groups = None if groups is None else list(groups)
        self.group_selection = group_selection
        self.methods = tuple(releases)
        self._releases = releases
        self.histograms = dict(histograms)
        self.ledger, self.directions, self.axes = ledger, directions, tuple(axes)
        self.eps, self.delta, self.calibration, self.seed = eps, delta, calibration, seed
        self.n_obs, self.n_features = int(n_obs), directions.n_features
        self.center, self.standardize, self.g_dppca = center, standardize, g_dppca
        self.private = bool(g_dppca)
        self.directions_private = bool(directions.private if directions_private is None
                                       else directions_private)
        self.scale_source = directions.scale_source
        self.scores = scores
        self._nonprivate_counts = nonprivate_counts
        self.nonprivate_histogram = nonprivate_histogram
        self.group_sizes = self._group_sizes()
        self.samples = {}
        self.figure = None
        self._extra_notes = list(extra_notes)
        self._rng = rng
        # Sampling is computation: the estimator layer passes its sampler (and its validated
        # control) in, so results/ imports no estimator.
        self._sampler, self._sampling_control = sampler, sampling_control

    # ----------------------------------------------------------------- access
    def _estimand_keys(self):
        return self.directions._estimand_keys() + [("Scores", "scores")]

    def histogram(self, target: str) -> pd.DataFrame:
        """The histogram of ``target``: a private method, or "nonprivate" (if attached)."""
        if target == "nonprivate" and self.nonprivate_histogram is not None:
            return self.nonprivate_histogram
        if target not in self.histograms:
            raise KeyError(f"no histogram {target!r}; this result has {self._targets()}")
        return self.histograms[target]

    def group_weights(self, target: str):
        """Group sizes used to weight groups of ``target`` (private estimates; None if ungrouped)."""
        if self.groups is None:
            return None
        if target == "nonprivate":
            return self._nonprivate_counts.sum(axis=1)
        return self._releases[target].totals

    @property
    def sample_methods(self) -> list:
        """Sampling methods present in ``samples`` (in drawing order)."""
        first = next(iter(self.samples.values()), {})
        return list(first)

    def _targets(self) -> list:
        return (["nonprivate"] if self.nonprivate_histogram is not None else []) + list(self.methods)

    # --------------------------------------------------------------- sampling
    def sample(self, n=None, method=None, *, sampling="uniform", bandwidth_scale=None,
               rng=None) -> pd.DataFrame:
        """Synthetic points drawn from a released histogram (post-processing, no budget).

        Parameters
        ----------
        n : int, optional
            Number of points (default min(n_obs, 20,000): n_obs is public; see ``sampling_control``).
        method : str, optional
            Histogram to sample: a private method (default the first) or "nonprivate" (if attached).
        sampling : {"uniform", "center"}
            Base point in the drawn bin: uniform inside it, or its centre.
        bandwidth_scale : float, optional
            Gaussian jitter in median bin widths (default 0.25 for uniform, 0.5 for center).
        rng : None, int or Generator
            None continues the call's generator (so a seeded call gives reproducible samples).

        Returns
        -------
        pandas.DataFrame
            Columns pc_x, pc_y (and ``group`` for grouped results: points are allocated to the
            groups in proportion to their private size estimates).
        """
        from .._validation import rng_arg

        control = self._sampling_control(sampling, n, bandwidth_scale)
        target = self.methods[0] if method is None else method
        self.histogram(target)
        generator = self._rng if rng is None else rng_arg(rng)
        return self._sample_target(target, control, control.method[0], generator)

    def draw_samples(self, control=None) -> dict:
        """Attach ``samples``: every histogram x sampling method of ``control``; returns them.

        The one result method that changes its object, on purpose: :func:`dppca.dp_score_plot`
        and the R wrapper call it to attach the samples R's value carries (like ``.figure``).
        It continues the call's generator. ``control``: a
        :class:`dppca.estimators.histograms.SamplingControl` (default: its defaults).
        """
        self.samples = self._drawn_samples(control or self._sampling_control(), self._rng)
        return self.samples

    def _drawn_samples(self, control, rng) -> dict:
        return {t: {sm: self._sample_target(t, control, sm, rng) for sm in control.method}
                for t in self._targets()}

    def _sample_target(self, target, control, sm, rng) -> pd.DataFrame:
        size = control.sample_size or min(self.n_obs, DEFAULT_SAMPLE_CAP)
        return self._sampler(self.histogram(target), size, sm,
                             control.bandwidth_scale[sm], rng, groups=self.groups,
                             weights=self.group_weights(target))

    # ----------------------------------------------------------------- output
    def plot(self, private_plot=("histogram", "sample"), plot_control=None):
        """The panel grid (matplotlib); returns the Figure.

        The sample rows show ``samples``; when "sample" is requested and none were drawn, the
        figure shows samples drawn with the default ``sampling_control()`` (post-processing)
        from a copy of the call's generator: the result (its ``samples``, its generator, and
        ``figure``) is left unchanged and repeated plots are identical (call
        :meth:`draw_samples` first to keep samples). See
        :func:`dppca.plotting.score.score_figure`.
        """
        from ..plotting.score import score_figure

        samples = self.samples
        if "sample" in private_plot and not samples:
            # A copy of the call's generator: the plot is reproducible and the result unchanged.
            samples = self._drawn_samples(self._sampling_control(), copy.deepcopy(self._rng))
        return score_figure(self, private_plot, plot_control, samples=samples)

    def to_frame(self) -> pd.DataFrame:
        """Every private histogram stacked, with a ``method`` column."""
        return pd.concat([h.assign(method=m) for m, h in self.histograms.items()], ignore_index=True)

    def to_dict(self) -> dict:
        """Plain payload shaped like R's ``dp_score`` / ``dp_score_group`` value (for the R bridges).

        Ungrouped: ``frame`` (xlim, ylim) and one column dict (xmin, xmax, ymin, ymax, prob) per
        method. Grouped: ``frame`` and ``groups``: label -> {n: private size estimate of the
        first method, <method>: column dict} and ``group_selection``. Plus ``ledger``, ``bins``, ``private``, and the
        NON-PRIVATE ``nonprivate`` / ``score`` entries only when they were computed.
        """
        out = {"frame": {k: list(v) for k, v in self.frame.items()}, "bins": list(self.bins),
               "centre": self.centre.tolist(), "private": self.private, "ledger": self.ledger.to_dict()}
        targets = {t: self.histogram(t) for t in self._targets()}
        if self.groups is None:
            out.update({t: _columns(h) for t, h in targets.items()})
        else:
            out["group_selection"] = self.group_selection
            out["groups"] = {g: {"n": float(self._releases[self.methods[0]].totals[i]),
                                 **{t: _columns(h[h["group"] == g].drop(columns="group"))
                                    for t, h in targets.items()}}
                             for i, g in enumerate(self.groups)}
        if self.scores is not None:
            out["score"] = _columns(self.scores)
        return out

    def __repr__(self) -> str:
        groups = "" if self.groups is None else f", groups={len(self.groups)}"
        return (f"ScoreResult(methods={list(self.methods)}, n_obs={self.n_obs}, bins={self.bins}"
                f"{groups}, eps={self.eps:g}, delta={self.delta:g}, private={self.private})")

    # ---------------------------------------------------------------- summary
    def _header(self):
        mechanisms = {"add": f"Gaussian ({self.calibration})", "sparse": "Laplace (thresholded)"}
        left = [("Methods", ", ".join(self.methods)),
                ("Mechanisms", ", ".join(mechanisms[m] for m in self.methods)),
                ("Epsilon", self.eps), ("Delta", self.delta), ("Calibration", self.calibration),
                ("Directions", self._directions_label()),
                ("End-to-end DP", "yes" if self.private else "NO (directions)")]
        right = [("Neighbouring", relation_label(self.ledger)),
                 (observations_label(self.ledger), self.n_obs),
                 ("No. Variables", self.n_features), ("Axes", ", ".join(_pc(self.axes))),
                 ("Scaling", "normal scores (private quantiles)" if self._rank
                  else scaling_label(self.scale_source, self.ledger)),
                 ("Bins", f"{self.bins[0]} x {self.bins[1]} ({self.bins_rule})"),
                 ("No. Groups", None if self.groups is None else len(self.groups)), ("Seed", self.seed)]
        return left, right

    @property
    def units(self) -> str:
        """"normal scores" on the rank path, else the units of the data the directions saw."""
        return "normal scores" if self._rank else super().units

    @property
    def _rank(self) -> bool:
        return isinstance(self.standardize, str) and self.standardize == "rank"

    @property
    def _target(self) -> str:
        return "latent copula correlation" if self._rank else "sample covariance"

    def _directions_label(self) -> str:
        if not self.directions_private:
            return f"{NONPRIVATE} {self._target.removeprefix('sample ')}"
        return "latent copula correlation (private)" if self._rank else "g-DPPCA (private)"

    def _tables(self, alpha=0.05):
        frame = pd.DataFrame({"private centre": self.centre.to_numpy(),
                              "lower": [self.frame["xlim"][0], self.frame["ylim"][0]],
                              "upper": [self.frame["xlim"][1], self.frame["ylim"][1]]},
                             index=[f"{pc} ({axis})" for pc, axis in zip(_pc(self.axes), "xy")])
        tables = [frame_table(frame, title="Public frame" if self._rank else "Private frame"),
                  frame_table(self._histogram_table(), title="Histograms")]
        if self.group_sizes is not None:
            tables.append(frame_table(self.group_sizes, title="Group sizes (private estimates)", digits=1))
        tables.append(ledger_table(self.ledger))
        return tables

    def _histogram_table(self) -> pd.DataFrame:
        by_step = {r.step.removeprefix("histogram: "): r for r in self.ledger}
        rows = {}
        for target in self._targets():
            hist = self.histogram(target)
            release = self._releases.get(target)
            rows[target if release else f"{target} ({NONPRIVATE})"] = {
                "eps": fmt(by_step[target].eps) if release else "-",
                "delta": fmt(by_step[target].delta) if release else "-",
                "noise scale": fmt(release.noise_scale) if release else "-",
                "threshold": fmt(release.threshold) if release else "-",
                "non-empty bins": str(int((hist["prob"] > 0).sum())),
                "mass": fmt(float(hist["prob"].sum()) / (len(self.groups) if self.groups else 1))}
        return pd.DataFrame.from_dict(rows, orient="index")

    def _notes(self):
        notes = []
        if not self.directions_private:
            notes.append(f"WARNING: the PC directions are NON-PRIVATE ({self._target}, g_dppca=False), "
                         "as in the R package: the frame and histograms are private given the "
                         "directions, but the plot as a whole is NOT differentially private. "
                         "Use g_dppca=True.")
        if self._rank:
            notes.append("Rank path: each value is mapped to its normal score Phi^-1(F_j(x)), F_j "
                         "the CDF through private quantiles of its column, bounded by "
                         "Phi^-1(1 - 1/(2m)); the scores project them on the latent "
                         "Gaussian-copula correlation directions. The frame is public "
                         "(sqrt(p) times that bound: no release).")
        else:
            notes.append("Frame: exponential-mechanism medians (rank utility, Smith 2011) on a "
                         "private magnitude bound, and a private "
                         "0.99-quantile of the Chebyshev distances (sparse vector, pure DP), "
                         "inflated by 20%.")
            notes.append("Coordinates are relative to the private centre (center=True); the "
                         "sample mean is never used." if self.center else
                         "Coordinates are the raw projections X V.")
        if len(self.methods) > 1:
            notes.append("The histogram budget is split evenly between the methods (basic composition).")
        if self.groups is not None:
            notes.append(_groups_note(self.groups, self.group_selection))
        for method, release in self._releases.items():
            if release.empty_groups:
                notes.append(f"The {method!r} histogram kept no mass for {len(release.empty_groups)} "
                             "group(s): its probabilities are all 0.")
        if self.scores is not None or self.nonprivate_histogram is not None:
            notes.append(f"{NONPRIVATE} references (scores, exact histogram) are attached because "
                         "nonprivate=True: do not publish them.")
        notes.append("Synthetic samples are post-processing; another release on the same data "
                     "costs its own budget (basic composition).")
        return notes + self._extra_notes

    def _group_sizes(self):
        if self.groups is None:
            return None
        sizes = pd.DataFrame({m: r.totals for m, r in self._releases.items()}, index=self.groups)
        if self._nonprivate_counts is not None:
            sizes[f"exact ({NONPRIVATE})"] = self._nonprivate_counts.sum(axis=1)
        return sizes


def _groups_note(groups, source) -> str:
    released = f"Groups shown: {', '.join(groups)}."
    if source == "partition selection":
        return (f"{released} No domain of labels was declared, so they were released by private "
                "partition selection (ledger: 'groups: partition selection'): labels with few rows "
                "may be missing, and their rows are in no histogram. Pass levels= to show every label.")
    origin = "levels=" if source == "levels" else "the Categorical's categories"
    return (f"{released} Declared public by {origin}; rows with other or missing labels are in no "
            "histogram. Group sizes are released only through the noisy histograms.")


def _pc(axes) -> list:
    return [f"PC{a}" for a in axes]


def _columns(frame: pd.DataFrame) -> dict:
    return {c: (frame[c].astype(str) if frame[c].dtype.name == "category" else frame[c]).tolist()
            for c in frame.columns}

__all__ = ["ScoreResult"]
