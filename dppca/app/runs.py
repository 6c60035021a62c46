"""From the app's inputs to the package's calls: settings, runs and PNG figures.

Plain Python (no Shiny). A run's *settings* are every input that changes what is released;
they key the session cache (:class:`dppca.app.session.SessionBudget`). What only changes
the drawing (PVE or eigenvalues) is applied to a released result and costs nothing. The
app's data keep their missing cells as NaN (:mod:`dppca.app.data`); what a NaN cell means is
the page's "Missing cells" choice, a public setting passed as ``missing=`` to every run
(:func:`missing_setting`), so it keys the cache and is on the ledger like any other setting.
"""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # the server draws off screen, whatever the user's default backend
import matplotlib.pyplot as plt  # noqa: E402

from .._validation import DPPCAValueError  # noqa: E402
from ..preprocessing.missing import resolve_missing  # noqa: E402
from ..score_plot import dp_score_plot, dp_score_plot_group  # noqa: E402
from ..controls import SCREE_METHODS, clipped_control, huber_control, pmwm_control  # noqa: E402
from ..scree import dp_scree  # noqa: E402
from .data import AppData  # noqa: E402

SCORE_METHODS = ("add", "sparse")
#: The "Missing cells" values a request may send: the page's options
#: (:data:`dppca.app.ui.MISSING_CHOICES` has their labels; "value" stands for the number typed
#: in "Declared value") and "pairwise", which the page does not offer but the package knows:
#: a request sending it gets :func:`missing_setting`'s refusal, which says why (every run here
#: needs every cell), rather than a bare "must be one of".
MISSING_POLICIES = ("auto", "median", "pairwise", "value")
#: The public function each kind of run calls (its ``missing=`` is resolved as that function's).
RUN_ENTRIES = {"scree": "dp_scree", "score": "dp_score"}
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


def _common(values: dict, kind: str) -> dict:
    return {"center": bool(values["center"]), "g_dppca": bool(values["g_dppca"]),
            "standardize": standardize_value(values["standardize"]),
            "missing": missing_setting(values, kind)}


def missing_setting(values: dict, kind: str):
    """The run's ``missing=`` from the page's "Missing cells" inputs (public choices only).

    Parameters
    ----------
    values : dict
        Checked page values: ``missing`` (one of :data:`MISSING_POLICIES`, None for the page's
        default "auto") and ``missing_value`` (a finite number or None; read for "value" only).
    kind : {"scree", "score"}
        The run, whose public function (:data:`RUN_ENTRIES`) must offer the policy.

    Returns
    -------
    str or float
        "auto", "median" or "pairwise", or the declared value as a float.

    Raises
    ------
    DPPCAValueError
        "value" with an empty declared value, or a policy that the run's function does not
        offer (pairwise-present estimation, which only the Kendall's tau directions have: the
        scree's variances and the scores need every cell). Both follow from the inputs alone
        and are raised before any budget is touched.

    Examples
    --------
    >>> missing_setting({"missing": "value", "missing_value": 0.0}, "scree")
    0.0
    >>> missing_setting({}, "score")
    'auto'
    """
    policy = values.get("missing") or "auto"
    if policy == "value":
        if values.get("missing_value") is None:
            raise DPPCAValueError('"Declared value for missing cells" is empty: type the number '
                                  'that a missing cell stands for, or choose another policy')
        policy = float(values["missing_value"])
    try:
        resolve_missing(policy, entry=RUN_ENTRIES[kind])  # the package's rule, arguments only
    except DPPCAValueError:
        raise DPPCAValueError(
            f'"Missing cells": pairwise-present estimation is available for the Kendall\'s tau '
            f"directions alone, which can skip a cell; the {kind} plot needs every cell (its "
            f"{'variances' if kind == 'scree' else 'scores'} are computed from whole rows). "
            "Choose \u201cauto\u201d, private column medians or a declared value. Nothing was "
            "charged.") from None
    return policy


def _whole(value, name, lower, upper=None) -> int:
    """A whole number typed in the page, in [lower, upper]."""
    bound = f"in [{lower}, {upper}]" if upper is not None else f">= {lower}"
    if value is None or float(value) != int(float(value)) or not lower <= int(value) <= (upper or int(value)):
        raise DPPCAValueError(f"{name} must be a whole number {bound}; got {value}")
    return int(value)


def scree_settings(values: dict, data: AppData) -> dict:
    """Validated, hashable settings of a scree run from the page's values.

    ``values`` holds ``k``, ``scree_method`` (sequence), ``scree_mono``, ``center``,
    ``standardize``, ``g_dppca``, ``missing`` and ``missing_value`` (:func:`missing_setting`)
    and the control inputs of :data:`CONTROL_INPUTS`.

    Raises
    ------
    DPPCAValueError
        Fewer than ``SCREE_MIN_ROWS`` rows, k outside [1, min(n - 1, p)], no method, or an
        invalid control value, or a "Missing cells" choice the scree does not offer
        (:func:`missing_setting`); public checks.
    """
    if data.n < SCREE_MIN_ROWS:  # before k: "k in [1, 1]" misread a two-row file
        raise DPPCAValueError(f"the scree needs at least {SCREE_MIN_ROWS} rows (its standard "
                              f"errors use pairs of pairs); these data have {data.n}")
    k = _whole(values["k"], "Number of leading PCs (k)", 1, min(data.n - 1, data.p))
    common = _common(values, "scree")
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
                        g_dppca=settings["g_dppca"], missing=settings["missing"])
    return dp_scree(data.features, settings["k"], list(settings["methods"]), _controls(settings),
                    eps=eps, delta=delta, center=settings["center"],
                    standardize=settings["standardize"], g_dppca=settings["g_dppca"],
                    mono=settings["mono"], missing=settings["missing"])


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
    ``standardize``, ``g_dppca``, ``missing`` and ``missing_value`` (:func:`missing_setting`).

    Raises
    ------
    DPPCAValueError
        Axes not distinct or outside [1, max PC], no method, bins not positive whole numbers,
        or a "Missing cells" choice the scores do not offer (:func:`missing_setting`).
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
                levels=levels if grouped and levels else None, **_common(values, "score"))


def run_score(data: AppData, settings: dict, eps: float, delta: float):
    """``dp_score_plot`` (or ``dp_score_plot_group``) with the settings; figure set."""
    options = dict(bins=settings["bins"], method=list(settings["methods"]),
                   center=settings["center"], standardize=settings["standardize"],
                   g_dppca=settings["g_dppca"], axes=settings["axes"],
                   missing=settings["missing"])
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

__all__ = ["MISSING_POLICIES", "all_gaussian", "missing_setting", "placeholder_figure", "png_bytes", "run_score", "run_scree", "score_settings",
           "scree_is_gaussian", "scree_png", "scree_settings"]
