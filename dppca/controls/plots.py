"""Appearance controls of the figures (R: ``scree_plot_control``, ``score_plot_control``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import DPPCATypeError, DPPCAValueError, bool_arg, float_arg
from .scree import SCREE_METHODS


SERIES = ("nonprivate",) + SCREE_METHODS


@dataclass(frozen=True)
class ScreePlotControl:
    """Appearance of :func:`dp_scree_plot`; build it with :func:`scree_plot_control`.

    Parameters
    ----------
    title, xlab, ylab : str, optional
        Title and axis labels (None: defaults that say whether the figure is private).
    legend_position : str
        R keyword ("topright", ...) or a matplotlib ``loc`` string.
    legend_labels, col, lty, pch : dict, optional
        Per-series labels, colours, line types and markers, keyed by series name.
    lwd, point_cex, cex_main, cex_lab, cex_axis, cex_legend : float > 0
        Line width and size multipliers, as in R.
    legend_bty : str
        "n": no legend box, "o": boxed.

    See Also
    --------
    scree_plot_control : The constructor, with each setting explained.

    Examples
    --------
    >>> from dppca.controls import ScreePlotControl
    >>> ScreePlotControl(lwd=2.0).lwd
    2.0
    """

    title: str | None = None
    xlab: str | None = None
    ylab: str | None = None
    legend_position: str = "topright"
    legend_labels: dict | None = None
    col: dict | None = None
    lty: dict | None = None
    pch: dict | None = None
    lwd: float = 1.0
    point_cex: float = 1.0
    cex_main: float = 1.5
    cex_lab: float = 1.2
    cex_axis: float = 1.1
    cex_legend: float = 1.1
    legend_bty: str = "n"

    def __post_init__(self):
        for name in ("title", "xlab", "ylab"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise DPPCATypeError(f"`{name}` must be None or a string; got {getattr(self, name)!r}")
        for name in ("legend_position", "legend_bty"):
            if not isinstance(getattr(self, name), str):
                raise DPPCATypeError(f"`{name}` must be a string; got {getattr(self, name)!r}")
        for name in ("lwd", "point_cex", "cex_main", "cex_lab", "cex_axis", "cex_legend"):
            float_arg(getattr(self, name), name, positive=True)
        for name in ("legend_labels", "col", "lty", "pch"):
            _series_dict(getattr(self, name), name, strings=name in ("legend_labels", "col"))


def scree_plot_control(title=None, xlab=None, ylab=None, legend_position="topright",
                       legend_labels=None, col=None, lty=None, pch=None, lwd=1.0, point_cex=1.0,
                       cex_main=1.5, cex_lab=1.2, cex_axis=1.1, cex_legend=1.1,
                       legend_bty="n") -> ScreePlotControl:
    """Appearance of :func:`dp_scree_plot` (R: ``scree_plot_control``).

    Parameters
    ----------
    title, xlab, ylab : str, optional
        Defaults depend on ``type`` (and say whether the figure is private).
    legend_position : str
        R keyword ("topright", "bottomleft", "top", ...) or a matplotlib ``loc`` string.
    legend_labels, col, lty, pch : dict, optional
        Per series, keys among "nonprivate", "clipped", "pmwm", "huber"; only the named
        series change. ``col`` and labels are strings; ``lty`` an R number (1-6) or a matplotlib
        line style; ``pch`` an R number (15-18, ...) or a matplotlib marker.
    lwd, point_cex, cex_main, cex_lab, cex_axis, cex_legend : float > 0
        Line width and size multipliers, as in R.
    legend_bty : str
        "n": no legend box (R's default), "o": boxed.

    Returns
    -------
    ScreePlotControl
        Frozen and validated; pass it as ``plot_control`` (only appearance, no privacy effect).

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Non-string titles, non-positive sizes, dict keys outside the series names, non-string
        colours or labels.

    See Also
    --------
    dp_scree_plot : Uses it (``plot_control=``).
    score_plot_control : The appearance of :func:`dp_score_plot`.

    Examples
    --------
    >>> from dppca import scree_plot_control
    >>> scree_plot_control(title="Private scree").title
    'Private scree'
    """
    return ScreePlotControl(title, xlab, ylab, legend_position, legend_labels, col, lty, pch, lwd,
                            point_cex, cex_main, cex_lab, cex_axis, cex_legend, legend_bty)


def _series_dict(value, name, strings):
    if value is None:
        return
    if not isinstance(value, dict):
        raise DPPCATypeError(f"`{name}` must be None or a dict keyed by series {SERIES}; got {value!r}")
    unknown = [key for key in value if key not in SERIES]
    if unknown:
        raise DPPCAValueError(f"`{name}` keys must be among {SERIES}; got {unknown}")
    if strings and not all(isinstance(v, str) for v in value.values()):
        raise DPPCATypeError(f"`{name}` values must be strings; got {value!r}")


@dataclass(frozen=True)
class ScorePlotControl:
    """Appearance of the score panels (R ``score_plot_control``), validated at construction.

    Parameters
    ----------
    color : str
        Any matplotlib colour for ungrouped points and bins (default R's "#6A5ACD").
    scatter_alpha : float in [0, 1]
        Opacity of points.
    scatter_size : float > 0
        Marker diameter in points (matplotlib units; R's ggplot size is in mm).
    hist_alpha_range : (float, float), 0 <= a <= b <= 1
        Opacity of the fullest bin is b, of a bin with probability p it is
        a + (b - a) (p / max p)^hist_gamma; empty bins are transparent (R rescales min..max per
        panel, so its emptiest non-empty bin vanishes and an empty histogram is drawn
        half-tinted, its Observation B4).
    hist_gamma : float > 0
        1 is R's linear opacity; the default 0.5 (square root) keeps clusters of moderate
        density visible next to a sharp peak.
    base_size, title_size : float > 0
        Font sizes in points.
    scatter_title, nonprivate_title, add_title, sparse_title : str or None
        Panel titles (None: no title). NON-PRIVATE panels always carry the NON-PRIVATE label.
    xlab, ylab : str or None
        Axis labels; None gives "PC<a> score (<units>)".
    group_colors : sequence of colours, dict label -> colour, or None
        Group colours; a sequence is recycled over the groups in order, a dict must name every
        group. None uses ``palette``.
    palette : str
        A matplotlib qualitative colormap name (default "tab10"; "tab20" is used past 10 groups).
    show_group_legend : bool
        One legend of group colours beside the grid.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        For invalid colours, values out of range, or non-string titles.

    See Also
    --------
    dp_score_plot, dp_score_plot_group : Use it (``plot_control=``).

    Notes
    -----
    R's ``group_ncol`` was accepted but unused (Observation B10) and is not offered; group
    labels are never used as colours (Observation B8).

    Examples
    --------
    >>> from dppca import score_plot_control
    >>> score_plot_control(color="black").color
    'black'
    """

    color: str = "#6A5ACD"
    scatter_alpha: float = 0.6
    scatter_size: float = 3.0
    hist_alpha_range: tuple = (0.0, 1.0)
    hist_gamma: float = 0.5
    base_size: float = 10.0
    title_size: float = 11.0
    scatter_title: str | None = "NON-PRIVATE Scatter"
    nonprivate_title: str | None = "NON-PRIVATE Histogram"
    add_title: str | None = "Add DP Histogram"
    sparse_title: str | None = "Sparse DP Histogram"
    xlab: str | None = None
    ylab: str | None = None
    group_colors: object = None
    palette: str = "tab10"
    show_group_legend: bool = True

    def __post_init__(self):
        _colour(self.color, "color")
        float_arg(self.scatter_alpha, "scatter_alpha", closed_unit=True)
        for name in ("scatter_size", "hist_gamma", "base_size", "title_size"):
            float_arg(getattr(self, name), name, positive=True)
        object.__setattr__(self, "hist_alpha_range", _alpha_range(self.hist_alpha_range))
        for name in ("scatter_title", "nonprivate_title", "add_title", "sparse_title", "xlab", "ylab"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise DPPCATypeError(f"`{name}` must be a string or None; got {getattr(self, name)!r}")
        _group_colours_arg(self.group_colors)
        _palette(self.palette)
        bool_arg(self.show_group_legend, "show_group_legend")

    def title(self, target: str):
        """Histogram panel title of ``target`` ("nonprivate", "add", "sparse")."""
        return getattr(self, f"{target}_title")

    def group_colours(self, groups) -> dict:
        """Group label -> colour, from ``group_colors`` or the fixed palette."""
        import matplotlib

        given = self.group_colors
        if isinstance(given, dict):
            missing = [g for g in groups if g not in given]
            if missing:
                raise DPPCAValueError(f"`group_colors` must name every group; missing {missing}")
            return {g: given[g] for g in groups}
        if given is not None:
            colours = [given] if isinstance(given, str) else list(given)
            return {g: colours[i % len(colours)] for i, g in enumerate(groups)}
        name = "tab20" if len(groups) > 10 and self.palette == "tab10" else self.palette
        cmap = matplotlib.colormaps[name]
        return {g: matplotlib.colors.to_hex(cmap(i % cmap.N)) for i, g in enumerate(groups)}


def _colour(value, name):
    from matplotlib.colors import is_color_like

    if not isinstance(value, str) or not is_color_like(value):
        raise DPPCAValueError(f"`{name}` must be a matplotlib colour string; got {value!r}")


def _alpha_range(value) -> tuple:
    rule = f"`hist_alpha_range` must be two numbers 0 <= a <= b <= 1; got {value!r}"
    if isinstance(value, str) or np.ndim(value) != 1 or len(value) != 2:
        raise DPPCAValueError(rule)
    low, high = (float_arg(v, "hist_alpha_range", closed_unit=True) for v in value)
    if low > high:
        raise DPPCAValueError(f"`hist_alpha_range` must satisfy a <= b; got {value!r}")
    return (low, high)


def _group_colours_arg(value):
    if value is None:
        return
    if not isinstance(value, (str, dict)) and not np.iterable(value):
        raise DPPCATypeError("`group_colors` must be a colour, a sequence of colours or a dict "
                             f"label -> colour; got {type(value).__name__} {value!r}")
    colours = list(value.values()) if isinstance(value, dict) else \
        [value] if isinstance(value, str) else list(value)
    if not colours:
        raise DPPCAValueError("`group_colors` must not be empty")
    for colour in colours:
        _colour(colour, "group_colors")


def _palette(name):
    import matplotlib

    if not isinstance(name, str) or name not in matplotlib.colormaps:
        raise DPPCAValueError(f"`palette` must be a matplotlib colormap name; got {name!r}")


score_plot_control = ScorePlotControl

__all__ = ["SERIES", "ScorePlotControl", "ScreePlotControl", "score_plot_control", "scree_plot_control"]
