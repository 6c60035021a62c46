"""Scree and PVE line plots of a :class:`~dppca.results.ScreeResult` (R's ``dp_scree_plot``)."""
from __future__ import annotations

import numpy as np

#: R's default series styles (reference/r-dppca-scree.md §11.2).
DEFAULT_LABELS = {"nonprivate": "NON-PRIVATE", "clipped": "Clipped", "pmwm": "PMWM", "huber": "Huber"}
DEFAULT_COLOURS = {"nonprivate": "black", "clipped": "red", "pmwm": "forestgreen", "huber": "blue"}
DEFAULT_MARKERS = {"nonprivate": 16, "clipped": 17, "pmwm": 15, "huber": 18}
#: R's line types and plotting symbols, translated to matplotlib.
R_LINE_TYPES = {1: "-", 2: "--", 3: ":", 4: "-.", 5: (0, (8, 3)), 6: (0, (8, 2, 2, 2)),
                "solid": "-", "dashed": "--", "dotted": ":", "dotdash": "-.",
                "longdash": (0, (8, 3)), "twodash": (0, (8, 2, 2, 2))}
R_MARKERS = {0: "s", 1: "o", 2: "^", 5: "D", 15: "s", 16: "o", 17: "^", 18: "D", 19: "o", 20: "."}
R_LEGEND_POSITIONS = {"topright": "upper right", "topleft": "upper left", "top": "upper center",
                      "bottomright": "lower right", "bottomleft": "lower left",
                      "bottom": "lower center", "left": "center left", "right": "center right",
                      "center": "center"}
#: Two-sided 95% normal quantile for the noise error bars.
Z95 = 1.959963984540054


def scree_figure(result, type="scree", plot_control=None, ax=None):
    """One line per method (error bars: -/+ 1.96 noise s.e. on scree plots), NON-PRIVATE if present.

    Parameters
    ----------
    result : ScreeResult
    type : {"scree", "pve"}
    plot_control : ScreePlotControl, dict or None
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from .._validation import option_arg
    from ..scree import _resolve_plot_control

    option_arg(type, "type", ("pve", "scree"))
    control = _resolve_plot_control(plot_control)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
    else:
        fig = ax.figure
    frame = result.scree if type == "scree" else result.pve
    x = np.arange(1, result.k + 1)
    series = list(frame.columns)
    for name in (["nonprivate"] if "nonprivate" in series else []) + list(result.methods):
        errors = Z95 * result.std_err[name].to_numpy() if type == "scree" and name in result.methods \
            else None
        ax.errorbar(x, frame[name].to_numpy(), yerr=errors, capsize=3 if errors is not None else 0,
                    label=_style(control.legend_labels, DEFAULT_LABELS, name),
                    color=_style(control.col, DEFAULT_COLOURS, name),
                    linestyle=_line_type(_style(control.lty, {}, name, 1)),
                    marker=_marker(_style(control.pch, DEFAULT_MARKERS, name)),
                    linewidth=control.lwd, markersize=6 * control.point_cex)
    _decorate(ax, result, type, control, x, frame)
    fig.tight_layout()
    return fig


def _decorate(ax, result, type, control, x, frame):
    base = 10.0
    ax.set_xticks(x)
    ax.tick_params(labelsize=base * control.cex_axis)
    ax.set_xlabel(control.xlab or "Component", fontsize=base * control.cex_lab)
    ylab = control.ylab or ("Variance (data units squared)" if type == "scree"
                            else "Proportion of total variance explained")
    ax.set_ylabel(ylab, fontsize=base * control.cex_lab)
    # R's cex_main = 1.5 is for a one-line title; the second line here says what is private.
    ax.set_title(control.title or _title(result, type),
                 fontsize=base * control.cex_main * (1.0 if control.title else 0.8))
    if type == "pve":
        top = float(np.nanmax(frame.to_numpy())) if frame.size else 1.0
        ax.set_ylim(bottom=0.0, top=max(top * 1.08, 1e-12))
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc=R_LEGEND_POSITIONS.get(control.legend_position, control.legend_position),
                  fontsize=base * control.cex_legend, frameon=control.legend_bty != "n")


def _title(result, type) -> str:
    what = "DP Scree Plot" if type == "scree" else "DP PVE Plot"
    privacy = f"private, eps={result.eps:g}, delta={result.delta:g}"
    if not result.private_directions:
        privacy += "; directions NON-PRIVATE"
    if result.has_nonprivate:
        privacy += "; vs NON-PRIVATE reference"
    return f"{what}\n({privacy})"


def _style(chosen, defaults, name, fallback=None):
    if chosen and name in chosen:
        return chosen[name]
    return defaults.get(name, fallback)


def _line_type(value):
    return R_LINE_TYPES.get(value, value)


def _marker(value):
    return R_MARKERS.get(value, value)
