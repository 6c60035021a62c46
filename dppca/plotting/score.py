"""The panel grid of a :class:`~dppca.results.ScoreResult` (R ``dp_score_plot``, §10-§12).

Rows: the histograms, then one row of synthetic samples per sampling method. Columns:
the NON-PRIVATE scatter and histogram (only when the result carries them), then one per
private method. Groups share one fixed categorical palette and one legend.
"""
from __future__ import annotations

import textwrap

import numpy as np

from ..controls import ScorePlotControl
from .labels import NOISE_FLOOR_SDS, budget_label, fallback_fonts, noise_floor

NONPRIVATE_LABEL = "NON-PRIVATE"
#: Label of each histogram target in sample-panel titles.
TARGET_LABELS = {"nonprivate": NONPRIVATE_LABEL, "add": "Add", "sparse": "Sparse"}
#: Layout in inches at base_size 10 (margins scale with the font): square panels, a left margin
#: for the y label, a gap right of each panel for its colour bar (its ticks, the two-line
#: "noise floor" tick and its title), a strip for the group legend.
PANEL_INCHES, LEFT_INCHES, GAP_INCHES, LEGEND_INCHES = 3.0, 0.85, 1.5, 1.4
#: Legend strip: colour patch and padding, plus the width of one character of a label (both at
#: base_size 10; DejaVu Sans averages about 0.6 em per character).
LEGEND_PATCH_INCHES, LEGEND_CHARACTER_INCHES = 0.75, 0.6 * 10 / 72
BOTTOM_INCHES, ROW_GAP_INCHES, TITLE_LINE_INCHES = 0.6, 0.5, 0.22
#: What a histogram panel's colour bar measures.
CELL_PROBABILITY = "probability per cell"
GOLDEN_RATIO_CONJUGATE = 0.6180339887498949
#: Colour of cells (and of sample points drawn from cells) below the additive noise floor.
BELOW_FLOOR_COLOUR = "0.7"


def score_figure(result, private_plot=("histogram", "sample"), control: ScorePlotControl | None = None,
                 samples=None):
    """Draw the panel grid of ``result`` and return the matplotlib Figure.

    Parameters
    ----------
    result : ScoreResult
        Its histograms and, when the call asked for them, its NON-PRIVATE scores and histogram.
    private_plot : sequence of {"histogram", "sample"}
        Rows to draw (the histogram row first, as in R).
    control : ScorePlotControl, optional
    samples : dict, optional
        Synthetic samples, target -> {sampling method -> DataFrame}; default ``result.samples``.

    Returns
    -------
    matplotlib.figure.Figure
        Fixed margins in inches (nothing cut off); every histogram panel has a colour bar
        (probability per cell), the
        suptitle states the budget and whether the directions were private.
    """
    import matplotlib.pyplot as plt

    control = control or ScorePlotControl()
    samples = result.samples if samples is None else samples
    targets = (["nonprivate"] if result.nonprivate_histogram is not None else []) + list(result.methods)
    sample_methods = list(next(iter(samples.values()), {}))
    rows = (["histogram"] if "histogram" in private_plot else []) + \
        ([("sample", sm) for sm in sample_methods] if "sample" in private_plot else [])
    scatter = result.scores is not None
    ncols = len(targets) + int(scatter)
    colours = control.group_colours(result.groups) if result.groups is not None else None
    legend = _legend_inches(colours) if colours and control.show_group_legend else 0.0
    names = [control.xlab or result.axis_labels[0], control.ylab or result.axis_labels[1]] + \
        [str(g) for g in (result.groups or [])]
    with fallback_fonts(names), \
            plt.rc_context({"font.size": control.base_size, "axes.titlesize": control.title_size}):
        fig, axes = plt.subplots(len(rows), ncols, squeeze=False)
        suptitle_lines = _figure_titles(fig, result, control, _Layout(len(rows), ncols, legend,
                                                                      control, result).width)
        layout = _Layout(len(rows), ncols, legend, control, result, suptitle_lines)
        layout.apply(fig)
        panel = _Panels(result, control, colours, samples)
        for i, row in enumerate(rows):
            first = axes[i, 0]
            if scatter:
                scatter_row = 1 if rows[0] == "histogram" and len(rows) > 1 else 0
                panel.scatter(first) if i == scatter_row else first.axis("off")
            for ax, target in zip(axes[i, int(scatter):], targets):
                panel.histogram(ax, target) if row == "histogram" else panel.sample(ax, target, row[1])
        _outer_labels(axes)
        if legend:
            _group_legend(fig, colours, 1.0 - layout.scale * legend / layout.width)
    return fig


class _Layout:
    """Figure size and subplot margins in inches for a grid of square panels."""

    def __init__(self, nrows, ncols, legend, control, result, suptitle_lines=1):
        """``legend``: width of the legend strip in inches at base_size 10 (0 without one)."""
        self.scale = control.base_size / 10.0
        self.nrows, self.ncols = nrows, ncols
        title_lines = 1 if result.directions_private else 2
        self.row_gap = self.scale * (ROW_GAP_INCHES + TITLE_LINE_INCHES * (title_lines + 1))
        self.top = self.scale * TITLE_LINE_INCHES * (suptitle_lines + title_lines + 1.2)
        self.width = self.scale * (LEFT_INCHES + ncols * GAP_INCHES + legend) + \
            ncols * PANEL_INCHES
        self.height = self.top + self.scale * BOTTOM_INCHES + nrows * PANEL_INCHES + \
            (nrows - 1) * self.row_gap

    def apply(self, fig):
        fig.set_size_inches(self.width, self.height)
        right = self.width - self.scale * LEFT_INCHES - self.ncols * PANEL_INCHES - \
            (self.ncols - 1) * self.scale * GAP_INCHES
        fig.subplots_adjust(left=self.scale * LEFT_INCHES / self.width, right=1 - right / self.width,
                            bottom=self.scale * BOTTOM_INCHES / self.height,
                            top=1 - self.top / self.height, wspace=self.scale * GAP_INCHES / PANEL_INCHES,
                            hspace=self.row_gap / PANEL_INCHES)


class _Panels:
    """Draws one kind of panel on a given Axes, with the result's frame and labels."""

    def __init__(self, result, control, colours, samples):
        self.result, self.control, self.colours, self.samples = result, control, colours, samples
        self.xlab = control.xlab or result.axis_labels[0]
        self.ylab = control.ylab or result.axis_labels[1]

    def scatter(self, ax):
        scores = self.result.scores
        self._points(ax, scores.iloc[:, 0], scores.iloc[:, 1],
                     scores["group"] if "group" in scores else None)
        self._finish(ax, _labelled(self.control.scatter_title, NONPRIVATE_LABEL), private=False)

    def histogram(self, ax, target):
        hist = self.result.histogram(target)
        mass = _panel_mass(hist, self.result.group_weights(target))
        floor = noise_floor(self.result, target)
        if mass.max() <= 0:
            ax.text(0.5, 0.5, "empty: no bin\npassed the threshold", transform=ax.transAxes,
                    ha="center", va="center", color="0.4")
        else:
            self._bins(ax, hist, mass, floor)
        self._colour_bar(ax, mass, floor)
        title = self.control.title(target)
        if target == "nonprivate":
            title = _labelled(title, NONPRIVATE_LABEL)
        self._finish(ax, title, private=target != "nonprivate")

    def sample(self, ax, target, method):
        points = self.samples[target][method]
        groups = points["group"] if "group" in points else None
        floor = noise_floor(self.result, target)
        below = None if floor is None else self._below_floor(points, groups, target, floor)
        self._points(ax, points["pc_x"], points["pc_y"], groups, below)
        if below is not None:
            ax.text(0.02, 0.02, f"grey: drawn from cells below the noise floor\n(p < {floor:.2g}, "
                    f"{NOISE_FLOOR_SDS:g} sd of noise): {below.mean():.0%} of points",
                    transform=ax.transAxes, fontsize=self.control.base_size * 0.7, color="0.35",
                    va="bottom")
        self._finish(ax, f"{TARGET_LABELS[target]} Sample ({method.title()})",
                     private=target != "nonprivate")

    def _below_floor(self, points, groups, target, floor) -> np.ndarray:
        """Whether each point lies in a cell whose mass (its group's, weighted as in the panel)
        is below ``floor``: such cells are indistinguishable from noise on an empty cell."""
        hist = self.result.histogram(target)
        names = list(hist["group"].cat.categories) if "group" in hist else [None]
        masses = _panel_mass(hist, self.result.group_weights(target)).reshape(len(names), -1)
        m_x, m_y = self.result.bins
        (x0, x1), (y0, y1) = self.result.frame["xlim"], self.result.frame["ylim"]
        ix = np.clip(((points["pc_x"].to_numpy() - x0) / (x1 - x0) * m_x).astype(int), 0, m_x - 1)
        iy = np.clip(((points["pc_y"].to_numpy() - y0) / (y1 - y0) * m_y).astype(int), 0, m_y - 1)
        rows = np.zeros(len(points), dtype=int) if groups is None else \
            np.array([names.index(g) for g in np.asarray(groups, dtype=object)], dtype=int)
        return masses[rows, iy * m_x + ix] < floor

    def _points(self, ax, x, y, groups, below=None):
        # Points are drawn in a fixed interleaved order (golden-ratio sequence, no randomness) so
        # that no group hides another; points of cells below the noise floor are grey.
        order = np.argsort((np.arange(len(x)) * GOLDEN_RATIO_CONJUGATE) % 1.0, kind="stable")
        colour = [self.control.color] * len(x) if groups is None else \
            [self.colours[g] for g in np.asarray(groups, dtype=object)]
        if below is not None:
            colour = [BELOW_FLOOR_COLOUR if b else c for c, b in zip(colour, below)]
        colour = [colour[i] for i in order]
        ax.scatter(np.asarray(x)[order], np.asarray(y)[order], s=self.control.scatter_size ** 2,
                   c=colour, alpha=self.control.scatter_alpha, linewidths=0, rasterized=True)

    def _bins(self, ax, hist, mass, floor=None):
        """One RGBA image: each bin has the colour of its largest group (a mix of colours would
        read as another group's: red + green shows as brown) and an opacity growing with its
        total mass (empty bins are transparent); bins below the noise ``floor`` are grey."""
        from matplotlib.colors import to_rgb

        m_x, m_y = self.result.bins
        names = list(hist["group"].cat.categories) if "group" in hist else [None]
        rgb = np.array([to_rgb(self.control.color if g is None else self.colours[g]) for g in names])
        masses = mass.reshape(len(names), -1)
        total = masses.sum(axis=0)
        image = np.zeros((total.size, 4))
        filled = total > 0
        image[filled, :3] = rgb[np.argmax(masses[:, filled], axis=0)]
        if floor is not None:
            # as in the sample panels: the largest group's own mass against the floor
            image[filled & (masses.max(axis=0) < floor), :3] = to_rgb(BELOW_FLOOR_COLOUR)
        image[filled, 3] = self._opacity_norm(total.max())(total[filled])
        ax.imshow(image.reshape(m_y, m_x, 4), origin="lower", interpolation="nearest", aspect="equal",
                  extent=(*self.result.frame["xlim"], *self.result.frame["ylim"]))

    def _opacity_norm(self, top):
        """p -> a + (b - a) (p / top)^gamma: the opacity of a bin of probability p."""
        from matplotlib.colors import PowerNorm

        low, high = self.control.hist_alpha_range
        norm = PowerNorm(self.control.hist_gamma, vmin=0.0, vmax=top)
        return lambda p: low + (high - low) * np.asarray(norm(p))

    def _colour_bar(self, ax, mass, floor=None):
        """Colour bar of the panel: opacity against the probability per cell (0 to the panel's
        largest); grouped panels use a grey ramp, since the hue there is the groups' mix."""
        import matplotlib as mpl

        top = float(mass.max()) if mass.max() > 0 else 1.0
        grouped = self.colours is not None
        rgb = mpl.colors.to_rgb("0.2" if grouped else self.control.color)
        low, high = self.control.hist_alpha_range
        ramp = mpl.colors.ListedColormap([(*rgb, a) for a in np.linspace(low, high, 256)])
        mappable = mpl.cm.ScalarMappable(mpl.colors.PowerNorm(self.control.hist_gamma, 0.0, top), ramp)
        label = CELL_PROBABILITY + (" (all groups)" if grouped else "") + \
            f"\npower scale, gamma {self.control.hist_gamma:g}"
        # An inset colour bar in the gap right of the panel: panels keep one size and stay aligned.
        bar = ax.figure.colorbar(mappable, cax=ax.inset_axes([1.04, 0.1, 0.05, 0.8]))
        bar.set_label(label, fontsize=self.control.base_size * 0.85)
        bar.ax.tick_params(labelsize=self.control.base_size * 0.75)
        if floor is not None and floor < top:
            _mark_noise_floor(bar, floor, self.control.base_size * 0.75)

    def _finish(self, ax, title, private):
        ax.set_xlim(self.result.frame["xlim"])
        ax.set_ylim(self.result.frame["ylim"])
        ax.set_aspect("equal")
        ax.grid(True, color="0.92", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_xlabel(self.xlab)
        ax.set_ylabel(self.ylab)
        if private and not self.result.directions_private:
            title = f"{title or ''}\n({NONPRIVATE_LABEL} directions)"
        if title:
            ax.set_title(title, fontweight="bold")



#: Smallest gap, in the colour bar's normalised height, between the noise-floor label and a
#: value tick (closer ticks are dropped: the two labels would overlap at the tick font size).
FLOOR_TICK_GAP = 0.1


def _mark_noise_floor(bar, floor, size):
    """The noise floor on a colour bar: the part below it grey (the colour of the cells below
    it), a line at it, and a tick labelled "noise floor" (two lines) at the size of the value
    ticks."""
    bar.ax.axhspan(0.0, floor, color=BELOW_FLOOR_COLOUR, alpha=0.8, linewidth=0)
    bar.ax.axhline(floor, color="0.25", linewidth=1.5)
    at, top = float(bar.norm(floor)), bar.norm.vmax
    ticks = [t for t in bar.get_ticks()
             if 0 <= t <= top and abs(float(bar.norm(t)) - at) >= FLOOR_TICK_GAP]
    labels = list(bar.ax.yaxis.get_major_formatter().format_ticks(ticks))
    # two short lines: a wide label would push the bar's title into the next panel
    bar.set_ticks(ticks + [floor], labels=labels + ["noise\nfloor"])
    bar.ax.tick_params(labelsize=size)

def _outer_labels(axes):
    """Every panel shares the frame: keep the y label of the leftmost and the x label of the
    lowest drawn panel only."""
    for row in axes:
        for ax in [ax for ax in row if ax.axison][1:]:
            ax.set_ylabel("")
    for column in axes.T:
        for ax in [ax for ax in column if ax.axison][:-1]:
            ax.set_xlabel("")


def _labelled(title, label):
    if title is None:
        return label
    return title if label in title else f"{label}: {title}"


def _panel_mass(hist, weights) -> np.ndarray:
    """Bin masses to shade: prob, or for groups prob x private group share (the mixture)."""
    prob = np.nan_to_num(hist["prob"].to_numpy(dtype=float), nan=0.0).clip(min=0.0)
    if weights is None:
        return prob
    shares = np.asarray(weights, dtype=float).clip(min=0.0)
    shares = shares / shares.sum() if shares.sum() > 0 else np.full(shares.size, 1.0 / shares.size)
    return (prob.reshape(shares.size, -1) * shares[:, None]).reshape(-1)


def _figure_titles(fig, result, control, width_inches) -> int:
    """Set the suptitle (budget, and a warning for NON-PRIVATE directions); returns its lines."""
    budget = f"{budget_label(result)} ({result.calibration} calibration)"
    if result.directions_private:
        lines = [f"Differentially private PC scores: {budget}"]
    else:
        lines = [f"PC scores: private frame and histograms, {budget}",
                 f"WARNING: PC directions are {NONPRIVATE_LABEL} (g_dppca=False): not end-to-end "
                 "private; use g_dppca=True"]
    # Wrapped to the figure width (about 0.55 em per character).
    width = max(20, int(width_inches * 72 / (0.55 * control.title_size)))
    wrapped = [part for line in lines for part in textwrap.wrap(line, width, break_on_hyphens=False)]
    fig.suptitle("\n".join(wrapped), color="black" if result.directions_private else "firebrick",
                 fontsize=control.title_size)
    return len(wrapped)


def _legend_inches(colours) -> float:
    """Width of the legend strip at base_size 10: wide enough for the longest group label."""
    longest = max(len(str(g)) for g in colours)
    return max(LEGEND_INCHES, LEGEND_PATCH_INCHES + LEGEND_CHARACTER_INCHES * longest)


def _group_legend(fig, colours, left):
    from matplotlib.patches import Patch

    handles = [Patch(color=c, label=str(g)) for g, c in colours.items()]
    fig.legend(handles=handles, title="group", loc="center left", bbox_to_anchor=(left, 0.5),
               frameon=False)

__all__ = ["score_figure"]
