"""From the app's inputs to the package's calls: settings, runs and PNG figures.

Plain Python (no Shiny). A run's *settings* are every input that changes what is released;
they key the session cache (:class:`dppca.app.session.SessionBudget`). What only changes
the drawing (PVE or eigenvalues) is applied to a released result and costs nothing. The
app's data hold no missing cell (:mod:`dppca.app.data` gives every non-finite cell the public
value :data:`~dppca.app.data.PUBLIC_FILL`), so its runs declare that value as their ``missing=``
policy: no median release.
"""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # the server draws off screen, whatever the user's default backend
import matplotlib.pyplot as plt  # noqa: E402

from .._validation import DPPCAValueError  # noqa: E402
from ..score_plot import dp_score_plot, dp_score_plot_group  # noqa: E402
from ..controls import SCREE_METHODS, clipped_control, huber_control, pmwm_control  # noqa: E402
from ..scree import dp_scree  # noqa: E402
from .data import PUBLIC_FILL, AppData  # noqa: E402

SCORE_METHODS = ("add", "sparse")
SCREE_TYPES = {"pve": "PVE (share of the total variance)", "scree": "Eigenvalues (scree values)"}

#: App input -> argument of the method's control (None in the page means self-tuned).
CONTROL_INPUTS = {
    "clipped": {"C_clip": "C_clip"},
    "pmwm": {"pmwm_a": "a", "pmwm_b": "b", "pmwm_trim_const": "trim_const", "pmwm_eta": "eta",
             "pmwm_beta": "beta", "pmwm_split_mode": "split_mode"},
    "huber": {"huber_k_min_m2": "k_min_m2", "huber_k_max_m2": "k_max_m2",
              "huber_m2_frac": "m2_frac", "huber_mu0": "mu0", "huber_eta0": "eta0",
              "huber_T": "T", "huber_M": "M"},
}
_INTEGER_CONTROLS = {"k_min_m2", "k_max_m2", "T", "M"}
CONTROL_MAKERS = {"clipped": clipped_control, "pmwm": pmwm_control, "huber": huber_control}


#: Fewest rows dp_scree accepts.
SCREE_MIN_ROWS = 4


def standardize_value(value):
    """The page's standardize choice as the API's ``standardize=``: "rank" (the rank path),
    True for "sd" (or a checked box), else False."""
    return "rank" if value == "rank" else value is True or value == "sd"


def _common(values: dict) -> dict:
    return {"center": bool(values["center"]), "g_dppca": bool(values["g_dppca"]),
            "standardize": standardize_value(values["standardize"])}


def _whole(value, name, lower, upper=None) -> int:
    """A whole number typed in the page, in [lower, upper]."""
    bound = f"in [{lower}, {upper}]" if upper is not None else f">= {lower}"
    if value is None or float(value) != int(float(value)) or not lower <= int(value) <= (upper or int(value)):
        raise DPPCAValueError(f"{name} must be a whole number {bound}; got {value}")
    return int(value)


def scree_settings(values: dict, data: AppData) -> dict:
    """Validated, hashable settings of a scree run from the page's values.

    ``values`` holds ``k``, ``scree_method`` (sequence), ``scree_mono``, ``center``,
    ``standardize``, ``g_dppca`` and the control inputs of :data:`CONTROL_INPUTS`.

    Raises
    ------
    DPPCAValueError
        Fewer than ``SCREE_MIN_ROWS`` rows, k outside [1, min(n - 1, p)], no method, or an
        invalid control value (public checks).
    """
    if data.n < SCREE_MIN_ROWS:  # before k: "k in [1, 1]" misread a two-row file
        raise DPPCAValueError(f"the scree needs at least {SCREE_MIN_ROWS} rows (its standard "
                              f"errors use pairs of pairs); these data have {data.n}")
    k = _whole(values["k"], "Number of leading PCs (k)", 1, min(data.n - 1, data.p))
    common = _common(values)
    if common["standardize"] == "rank":  # its values are the latent correlation's eigenvalues
        return dict(k=k, methods=("rank",), mono=bool(values["scree_mono"]), **common)
    methods = tuple(m for m in SCREE_METHODS if m in (values.get("scree_method") or ()))
    if not methods:
        raise DPPCAValueError("choose at least one scree method (clipped, pmwm or huber)")
    settings = dict(k=k, methods=methods, mono=bool(values["scree_mono"]), **common)
    for method in methods:
        for field, argument in CONTROL_INPUTS[method].items():
            value = values.get(field)
            if value is not None and argument in _INTEGER_CONTROLS:
                value = _whole(value, f"{method} {argument}", -10**6)
            settings[f"{method}.{argument}"] = value
    _controls(settings)  # validates now, before any budget is touched
    return settings


def _controls(settings: dict) -> dict:
    controls = {}
    for method in settings["methods"]:
        arguments = {arg: settings[f"{method}.{arg}"] for arg in CONTROL_INPUTS[method].values()
                     if settings[f"{method}.{arg}"] is not None}
        controls[method] = CONTROL_MAKERS[method](**arguments)
    return controls


def run_scree(data: AppData, settings: dict, eps: float, delta: float):
    """``dp_scree`` on the data's features with the settings; a ScreeResult (no figure yet)."""
    if settings["standardize"] == "rank":  # one release: clipped/pmwm/huber do not apply
        return dp_scree(data.features, settings["k"], eps=eps, delta=delta, standardize="rank",
                        g_dppca=settings["g_dppca"], missing=PUBLIC_FILL)
    return dp_scree(data.features, settings["k"], list(settings["methods"]), _controls(settings),
                    eps=eps, delta=delta, center=settings["center"],
                    standardize=settings["standardize"], g_dppca=settings["g_dppca"],
                    mono=settings["mono"], missing=PUBLIC_FILL)


def scree_is_gaussian(settings: dict) -> bool:
    """Whether a scree run with these (public) settings is one Gaussian-DP group.

    True unless R's own pure-DP tuning is asked for (pmwm with a, b; huber with k_min_m2,
    k_max_m2): every other release of :func:`dppca.dp_scree` is a share of one
    :class:`dppca.privacy.composition.GaussianGroup` of the run's (eps, delta).
    """
    return not (settings.get("pmwm.a") is not None or settings.get("huber.k_min_m2") is not None)


def all_gaussian(result) -> bool:
    """Whether every release of a scree result is a share of its Gaussian-DP group."""
    return all(r.mechanism.startswith("Gaussian (analytic)") and "GDP share" in r.mechanism
               for r in result.combined_ledger)


def scree_png(result, type: str = "pve") -> bytes:
    """The result's scree or PVE figure (the package's own) as PNG bytes."""
    return png_bytes(result.plot(type=type))


def score_settings(values: dict, data: AppData) -> dict:
    """Validated, hashable settings of a score run from the page's values.

    ``values`` holds ``axis_x``, ``axis_y``, ``score_method``, ``bins_x``, ``bins_y``,
    ``use_group``, ``group_levels`` (comma-separated public labels, optional), ``center``,
    ``standardize``, ``g_dppca``.

    Raises
    ------
    DPPCAValueError
        Axes not distinct or outside [1, max PC], no method, bins not positive whole numbers.
    """
    top = data.max_pc
    axes = (_whole(values["axis_x"], "PC on the x axis", 1, top),
            _whole(values["axis_y"], "PC on the y axis", 1, top))
    if axes[0] == axes[1]:
        raise DPPCAValueError(f"the x and y axes must be different PCs; both are PC{axes[0]}")
    methods = tuple(m for m in SCORE_METHODS if m in (values.get("score_method") or ()))
    if not methods:
        raise DPPCAValueError("choose at least one histogram method (add or sparse)")
    bins = tuple(None if values[b] is None else _whole(values[b], f"bins ({b[-1]})", 1, 500)
                 for b in ("bins_x", "bins_y"))
    if (bins[0] is None) != (bins[1] is None):
        raise DPPCAValueError("give both numbers of bins, or leave both empty for the default rule")
    grouped = bool(values["use_group"]) and data.labels is not None
    levels = tuple(s.strip() for s in (values.get("group_levels") or "").split(",") if s.strip())
    return dict(axes=axes, methods=methods, bins=None if bins[0] is None else bins,
                groups=data.group_name if grouped else None,
                levels=levels if grouped and levels else None, **_common(values))


def run_score(data: AppData, settings: dict, eps: float, delta: float):
    """``dp_score_plot`` (or ``dp_score_plot_group``) with the settings; figure set."""
    options = dict(bins=settings["bins"], method=list(settings["methods"]),
                   center=settings["center"], standardize=settings["standardize"],
                   g_dppca=settings["g_dppca"], axes=settings["axes"], missing=PUBLIC_FILL)
    if settings["groups"] is not None:
        levels = None if settings.get("levels") is None else list(settings["levels"])
        return dp_score_plot_group(data.features, data.labels.astype(str), eps, delta,
                                   levels=levels, **options)
    return dp_score_plot(data.features, eps, delta, **options)


def placeholder_figure(kind: str):
    """The figure a "Figure (PNG)" download gives before any run of ``kind`` (never an empty
    file): a message saying that nothing has been released yet and how to release it."""
    fig = plt.figure(figsize=(6.4, 1.6))
    fig.text(0.5, 0.5, f"No {kind} figure yet: nothing has been released.\n"
                       f"Press \u201cRun {kind}\u201d in the {kind.capitalize()} controls tab, "
                       "then download again.", ha="center", va="center", fontsize=11)
    return fig


def png_bytes(figure, dpi: int = 96) -> bytes:
    """A matplotlib figure as PNG bytes; the figure is closed (the server keeps no figures)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()

__all__ = ["all_gaussian", "placeholder_figure", "png_bytes", "run_score", "run_scree", "score_settings",
           "scree_is_gaussian", "scree_png", "scree_settings"]
