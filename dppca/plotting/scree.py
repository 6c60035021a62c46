"""Scree and PVE line plots of a :class:`~dppca.results.ScreeResult` (R's ``dp_scree_plot``)."""
from __future__ import annotations

import textwrap

import numpy as np

from .labels import budget_label

#: Longest line of a default title (characters, at the default title size on a 6.4 in figure).
TITLE_CHARACTERS = 62

#: R's default series styles (reference/r-dppca-scree.md §11.2).
DEFAULT_LABELS = {"nonprivate": "NON-PRIVATE", "clipped": "Clipped", "pmwm": "PMWM", "huber": "Huber"}
DEFAULT_COLOURS = {"nonprivate": "black", "clipped": "red", "pmwm": "forestgreen", "huber": "blue"}
DEFAULT_MARKERS = {"nonprivate": 16, "clipped": 17, "pmwm": 15, "huber": 18}
#: Legend entry of the hollow markers drawn over values the accuracy model marks unreliable.
UNRELIABLE_LABEL = "hollow: UNRELIABLE (accuracy model)"
#: Legend entry of the arrows drawn for intervals with no finite upper end.
UNBOUNDED_LABEL = "arrow: no finite upper end"
#: R's line types and plotting symbols, translated to matplotlib.
R_LINE_TYPES = {1: "-", 2: "--", 3: ":", 4: "-.", 5: (0, (8, 3)), 6: (0, (8, 2, 2, 2)),
                "solid": "-", "dashed": "--", "dotted": ":", "dotdash": "-.",
                "longdash": (0, (8, 3)), "twodash": (0, (8, 2, 2, 2))}
R_MARKERS = {0: "s", 1: "o", 2: "^", 5: "D", 15: "s", 16: "o", 17: "^", 18: "D", 19: "o", 20: "."}
R_LEGEND_POSITIONS = {"topright": "upper right", "topleft": "upper left", "top": "upper center",
                      "bottomright": "lower right", "bottomleft": "lower left",
                      "bottom": "lower center", "left": "center left", "right": "center right",
                      "center": "center"}


def scree_figure(result, type="scree", plot_control=None, ax=None, alpha=0.05):
    """One line per method, NON-PRIVATE if present; the y axis starts at 0.

    Parameters
    ----------
    result : ScreeResult
    type : {"scree", "pve"}
    plot_control : ScreePlotControl, dict or None
    ax : matplotlib Axes, optional
    alpha : float in (0, 1)
        Scree plots show the (1 - alpha) noise intervals ``result.conf_int(alpha)`` as error
        bars around the raw estimates.

    Values that ``result.reliable`` marks unreliable (the accuracy model's verdict from public
    numbers) get a hollow marker and a legend entry saying so, on scree and PVE plots.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from .._validation import control_arg, float_arg, option_arg
    from ..controls import ScreePlotControl

    option_arg(type, "type", ("pve", "scree"))
    alpha = float_arg(alpha, "alpha", open_unit=True)
    control = control_arg(plot_control, ScreePlotControl, "plot_control")
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    else:
        fig = ax.figure
    frame = result.scree if type == "scree" else result.pve
    x = np.arange(1, result.k + 1)
    series = list(frame.columns)
    ci = result.conf_int(alpha) if type == "scree" else None
    flagged = unbounded = False
    for name in (["nonprivate"] if "nonprivate" in series else []) + list(result.methods):
        colour = _style(control.col, DEFAULT_COLOURS, name)
        ax.plot(x, frame[name].to_numpy(), label=_style(control.legend_labels, DEFAULT_LABELS, name),
                color=colour, linestyle=_line_type(_style(control.lty, {}, name, 1)),
                marker=_marker(_style(control.pch, DEFAULT_MARKERS, name)),
                linewidth=control.lwd, markersize=6 * control.point_cex)
        if ci is not None and name in result.methods:
            unbounded |= _interval_bars(ax, x, ci[(name, "lower")].to_numpy(),
                                        ci[(name, "upper")].to_numpy(), colour, control.lwd)
        if name in result.methods:
            flagged |= _hollow_unreliable(ax, x, frame[name].to_numpy(), result.reliable[name],
                                          colour, 6 * control.point_cex)
    if flagged:  # one legend entry says what a hollow marker means
        ax.plot([], [], linestyle="none", marker="o", markerfacecolor="white",
                markeredgecolor="dimgrey", label=UNRELIABLE_LABEL)
    if unbounded:  # an arrow to the top: the interval has no finite upper end
        ax.plot([], [], linestyle="none", marker=r"$\uparrow$", color="dimgrey",
                label=UNBOUNDED_LABEL)
    _decorate(ax, result, type, control, x, frame, alpha)
    return fig


def _hollow_unreliable(ax, x, values, reliable, colour, size) -> bool:
    """White-filled markers over the values the result marks unreliable (``result.reliable``:
    the public accuracy model's verdict, not a look at the data); True if any was drawn."""
    unreliable = ~np.asarray(reliable, dtype=bool)
    if unreliable.any():
        ax.plot(x[unreliable], values[unreliable], linestyle="none", marker="o",
                markerfacecolor="white", markeredgecolor=colour, markersize=size * 1.1, zorder=3,
                gid="unreliable")
    return bool(unreliable.any())


def _interval_bars(ax, x, lower, upper, colour, width) -> bool:
    """Capped vertical bars from ``lower`` to ``upper`` (the intervals of ``conf_int``, which
    are centred on the raw estimates, not on the monotone values the line shows); an interval
    with no finite upper end (the private trace bounds nothing there) is an arrow from
    ``lower`` to the top of the axes. True if any was drawn."""
    finite = np.isfinite(upper)
    ax.errorbar(x[finite], (lower[finite] + upper[finite]) / 2,
                yerr=(upper[finite] - lower[finite]) / 2, fmt="none", ecolor=colour,
                elinewidth=width, capsize=3)
    for at, low in zip(x[~finite], lower[~finite]):
        ax.annotate("", xy=(at, 1.0), xytext=(at, low), xycoords=("data", "axes fraction"),
                    textcoords="data", gid="unbounded",
                    arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": width})
    return bool((~finite).any())


def _decorate(ax, result, type, control, x, frame, alpha):
    base = 10.0
    ax.set_xticks(x)
    ax.tick_params(labelsize=base * control.cex_axis)
    ax.set_xlabel(control.xlab or "Component", fontsize=base * control.cex_lab)
    ylab = control.ylab or (f"Variance ({result.units} squared)" if type == "scree"
                            else "Proportion of total variance explained")
    ax.set_ylabel(ylab, fontsize=base * control.cex_lab)
    # R's cex_main = 1.5 is for a one-line title; the second line here says what is private.
    ax.set_title(control.title or _title(result, type, alpha),
                 fontsize=base * control.cex_main * (1.0 if control.title else 0.8))
    top = float(np.nanmax(frame.to_numpy())) if frame.size else 1.0
    top = max(ax.get_ylim()[1], top * 1.08, 1e-12)
    entries = len(ax.get_legend_handles_labels()[0])
    loc = R_LEGEND_POSITIONS.get(control.legend_position, control.legend_position)
    ax.set_ylim(bottom=0.0, top=top / (1.0 - _legend_band(entries, loc, control.cex_legend)))
    if entries:
        ax.legend(loc=loc, fontsize=base * control.cex_legend, frameon=control.legend_bty != "n")


#: Height of one legend row as a share of the axes (a 10 pt row on a 4.2 in figure's axes, with
#: the legend's padding), for the band kept free above the lines and interval caps.
LEGEND_ROW = 0.075


def _legend_band(entries: int, loc, cex: float) -> float:
    """The share of the axes height kept empty at the top so that a legend placed there does
    not cover a line or an interval's cap (0 when the legend sits elsewhere or is empty)."""
    if not entries or not str(loc).startswith("upper"):
        return 0.0
    return min(0.5, LEGEND_ROW * cex * entries + 0.03)


def _title(result, type, alpha) -> str:
    what = "DP Scree Plot" if type == "scree" else "DP PVE Plot"
    privacy = f"private, {budget_label(result)}"
    if not result.directions_private:
        privacy += "; directions NON-PRIVATE"
    if result.has_nonprivate:
        privacy += "; vs NON-PRIVATE reference"
    lines = [what] + textwrap.wrap(f"({privacy})", TITLE_CHARACTERS, break_on_hyphens=False)
    if type == "scree":  # the clipped method's upper ends add its clipping-bias bound
        bias = " + clipping-bias bound" if "clipped" in result.methods else ""
        lines.append(f"bars: {1 - alpha:.0%} intervals: privacy noise{bias}")
    return "\n".join(lines)


def _style(chosen, defaults, name, fallback=None):
    if chosen and name in chosen:
        return chosen[name]
    return defaults.get(name, fallback)


def _line_type(value):
    return R_LINE_TYPES.get(value, value)


def _marker(value):
    return R_MARKERS.get(value, value)

__all__ = ["scree_figure"]
