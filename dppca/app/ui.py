"""The page of the app: R's layout (sidebar of data, budget and controls; scree and score
cards) plus the session budget bar, the session ledger and the downloads."""
from __future__ import annotations

from shiny import ui

from ..controls import SCREE_METHODS
from .data import EXAMPLES, MAX_UPLOAD_BYTES
from .runs import SCORE_METHODS, SCREE_TYPES

TITLE = "dppca: Differentially Private PCA Visualization"
#: Defaults of the page (R's where they make sense; see the README's app section).
#: runs_per_delta: a run's default delta is the total over 40, so that eps runs out before delta
#: with the default eps per run, also when scree runs compose as Gaussian DP (24 runs of eps 1
#: fit a total of 5 then, and their deltas, 24 / 40 of the total, leave 40% of delta when eps
#: is spent; a run's delta of total / 5 would end the session after 5 runs with most eps left).
DEFAULTS = dict(eps_total=5.0, eps=1.0, k=4, axis_x=1, axis_y=2, runs_per_delta=40)
#: The standardize select box: no scaling, private column SDs, or the rank path (the latent
#: Gaussian-copula correlation, scale-free); its values are :data:`dppca.app.inputs.SELECTS`'.
STANDARDIZE_CHOICES = {"none": "no", "sd": "by private SDs", "rank": "rank (latent correlation)"}
#: The "Missing cells" select box: the runs' ``missing=`` policy (the package's policies,
#: docs/missing.md). Its values are :data:`dppca.app.runs.MISSING_POLICIES` but "pairwise": only
#: the Kendall's tau directions can skip a cell, and the app's scree and score runs need every
#: cell, so that choice would be refused on every run (a request forged to send it still is).
MISSING_CHOICES = {"auto": "auto (recommended)", "median": "private column medians",
                   "value": "declared value"}
#: What the page says under the select: each policy's cost, and that nothing about the cells
#: themselves is shown (how many are missing, or where, is private).
MISSING_HELP = ("A cell that is not a number (empty, NA, text) is missing; inf is an extreme value "
                "(clamped). Auto: private column medians (10% of each run's eps and delta, on the "
                "ledger), since the scree and the scores need every cell. Declared value: a "
                "public fact (e.g. an empty count is 0), free. The app never shows how many cells "
                "are missing, or where.")

CSS = """
body { background: #f7f8fb; }
.card { border-radius: 10px; }
.budget-bar .progress { height: 0.9rem; }
.budget-bar .budget-label { font-size: 0.85em; font-weight: 600; margin-top: 0.3rem; }
.run-message { margin: 0.3rem 0; }
details.controls { margin: 0.3rem 0; padding: 0.3rem 0.5rem; background: #fff; border-radius: 6px; }
details.controls summary { font-weight: 600; cursor: pointer; }
.small-help { font-size: 0.85em; color: #555; }
"""


def _auto(id_, label, step=None):
    """A numeric input left empty by default: empty means self-tuned (the package's default)."""
    return ui.input_numeric(id_, label + " (empty: self-tuned)", None, step=step)


def _details(title, *children):
    return ui.tags.details(ui.tags.summary(title), *children, class_="controls")


def data_panel(provided: bool):
    """Data source: provided data (if any), an example dataset, or an uploaded CSV."""
    choices = ({"provided": "Provided data"} if provided else {}) | {
        "example": "Example data", "upload": "Upload CSV"}
    return ui.TagList(
        ui.h5("Data"),
        ui.input_radio_buttons("data_source", None, choices,
                               selected="provided" if provided else "example"),
        ui.panel_conditional(
            "input.data_source === 'example'",
            ui.input_select("example_dataset", "Example dataset",
                            {key: label for key, (label, _, _) in EXAMPLES.items()},
                            selected="gau_g")),
        ui.panel_conditional(
            "input.data_source === 'upload'",
            ui.input_file("csv_file", "CSV file", accept=[".csv", "text/csv"]),
            ui.p(f"At most {MAX_UPLOAD_BYTES // 2**20} MB. Every column but the group column is a "
                 "variable; a cell that is not a number is missing (see \u201cMissing cells\u201d "
                 "under PCA options).", class_="small-help"),
            ui.input_checkbox("csv_header", "First row holds column names", True),
            ui.input_select("upload_group_col", "Group column (labels, not a variable)",
                            {"": "(none)"})),
        ui.output_ui("data_summary"),
    )


def operator_panel(source: str, name: str):
    """Operator mode: the registered dataset only (no other source, no upload, no preview)."""
    return ui.TagList(
        ui.h5("Data"),
        ui.p("This app serves ", ui.strong(source, id="served-data"), " under the registered "
             "budget ", ui.strong(repr(name), id="served-budget"), " (its fingerprint was "
             "checked when the app started). Its rows are not shown; only private releases are, "
             "and every run is charged to that budget.", class_="small-help", id="operator-mode"),
        ui.output_ui("data_summary"),
    )


def budget_panel(fixed: tuple | None):
    """The session total (fixed at the first run) and the budget of each run."""
    if fixed is None:
        totals = ui.TagList(
            ui.layout_columns(
                ui.input_numeric("eps_total", "Session total eps", DEFAULTS["eps_total"], min=1e-6,
                                 step=0.5),
                ui.input_numeric("delta_total", "Session total delta", 1e-5, min=1e-12, max=0.99)),
            ui.p("Fixed at the first run on these data; every run is drawn from it.",
                 class_="small-help"))
    else:
        totals = ui.p(ui.strong(f"Session total: eps = {fixed[0]:g}, delta = {fixed[1]:g}"),
                      " (set when the app was started).", class_="small-help")
    return ui.TagList(
        ui.h5("Privacy budget"), totals,
        ui.layout_columns(
            ui.input_numeric("eps", "eps of each run", DEFAULTS["eps"], min=1e-6, step=0.1),
            ui.input_numeric("delta", "delta of each run", 2e-6, min=1e-14, max=0.99)),
    )


def common_panel(private_only: bool = False):
    """k, centring and scaling; the choice of NON-PRIVATE directions unless ``private_only``."""
    nonprivate = () if private_only else (
        ui.input_checkbox("g_dppca", "Use private PC directions (g-DPPCA)", True),
        ui.panel_conditional(
            "!input.g_dppca",
            ui.div("NON-PRIVATE directions: the plots are then not differentially private end "
                   "to end, whatever the budget.", class_="alert alert-warning small-help")))
    return ui.TagList(
        ui.h5("PCA options"),
        ui.input_numeric("k", "Number of leading PCs for the scree plot (k)", DEFAULTS["k"], min=1,
                         step=1),
        ui.input_checkbox("center", "Center", True),
        ui.input_select("standardize", "Standardize the variables", STANDARDIZE_CHOICES,
                        selected="none"),
        missing_panel(),
        *nonprivate,
    )


def missing_panel():
    """The "Missing cells" policy (passed as ``missing=`` to every run) and its declared value."""
    return ui.TagList(
        ui.input_select("missing", "Missing cells", MISSING_CHOICES, selected="auto"),
        ui.panel_conditional(
            "input.missing === 'value'",
            ui.input_numeric("missing_value", "Declared value for missing cells", 0)),
        ui.p(MISSING_HELP, class_="small-help", id="missing-help"))


def budget_bar_ui(label: str, budget, analyst: str | None = None):
    """The budget bar: eps and delta spent and left, the number of runs, two progress bars.

    ``budget`` is the data's :class:`dppca.app.session.SessionBudget`; with a store, the
    numbers (runs included) are the store's, i.e. of every session. Each bar's label stands
    above it, so that a bar a few pixels wide still shows it whole.
    """
    (spent_eps, spent_delta), (left_eps, left_delta) = budget.spent, budget.remaining
    runs = budget.run_count
    share = 100 * spent_eps / budget.eps_total
    delta_share = 100 * spent_delta / budget.delta_total
    if budget.store is not None:
        rule = ("runs of every session are charged to the registered budget by basic "
                "composition (the store's filter). The total is fixed for these data.")
    else:
        rule = ("scree runs compose as Gaussian DP, the rest by basic composition. " +
                ("The total is fixed for these data." if budget.fixed else
                 "The total is fixed at the first run on these data."))
    who = () if analyst is None else (ui.br(), f"Runs are logged as {analyst}.")

    def bar(name, percent, colour):
        return (ui.div(f"{name}: {percent:.0f}% spent", class_="budget-label",
                       id=f"budget-{name}-label"),
                ui.div(ui.div(class_=f"progress-bar {colour}", style=f"width: {percent:.2f}%",
                              role="progressbar", **{"aria-label": f"{name} spent"}),
                       class_="progress"))

    return ui.div(
        ui.div(ui.strong(f"Session privacy budget: {label}"), ui.br(),
               f"eps spent {spent_eps:.4g} of {budget.eps_total:g} ({left_eps:.4g} left) · "
               f"delta spent {spent_delta:.3g} of {budget.delta_total:.3g} "
               f"({left_delta:.3g} left) · {runs} run(s); " + rule, *who),
        *bar("eps", share, "bg-danger"), *bar("delta", delta_share, "bg-warning"),
        class_="budget-bar card p-2 mb-2", id="budget",
        **{"data-eps-spent": repr(spent_eps), "data-eps-total": repr(budget.eps_total),
           "data-delta-spent": repr(spent_delta), "data-delta-total": repr(budget.delta_total),
           "data-runs": str(runs)})


def scree_controls():
    return ui.nav_panel(
        "Scree controls",
        ui.input_checkbox_group("scree_method", "Methods", list(SCREE_METHODS),
                                selected=list(SCREE_METHODS), inline=True),
        ui.input_radio_buttons("scree_type", "Plot", SCREE_TYPES, selected="pve"),
        ui.input_checkbox("scree_mono", "Monotone (non-negative, non-increasing)", True),
        _details("Clipped", _auto("C_clip", "Clipping threshold C")),
        _details("PMWM",
                 _auto("pmwm_a", "Lower end a of the quantile search"),
                 _auto("pmwm_b", "Upper end b of the quantile search"),
                 ui.input_numeric("pmwm_trim_const", "Trim constant", 10, min=1e-6),
                 _auto("pmwm_eta", "Minimum trim proportion eta"),
                 ui.input_numeric("pmwm_beta", "Grid ratio beta (used with a, b)", 1.001, min=1.0001),
                 ui.input_checkbox("pmwm_split_mode", "Split the rows (quantiles / mean)", False)),
        _details("Huber",
                 _auto("huber_k_min_m2", "log2 range of m2: k_min"),
                 _auto("huber_k_max_m2", "log2 range of m2: k_max"),
                 ui.input_numeric("huber_m2_frac", "Tuning share m2_frac", 0.25, min=0.01, max=0.99),
                 _auto("huber_mu0", "Starting value mu0"),
                 ui.input_numeric("huber_eta0", "Step size eta0", 1, min=1e-6),
                 _auto("huber_T", "Number of steps T"),
                 _auto("huber_M", "Number of blocks M")),
        ui.output_ui("scree_plan"),  # the expected accuracy, before the run (spends nothing)
        ui.input_action_button("run_scree", "Run scree", class_="btn-primary w-100 mt-2"),
    )


def score_controls():
    return ui.nav_panel(
        "Score controls",
        ui.layout_columns(ui.input_numeric("axis_x", "PC on x", DEFAULTS["axis_x"], min=1, step=1),
                          ui.input_numeric("axis_y", "PC on y", DEFAULTS["axis_y"], min=1, step=1)),
        ui.input_checkbox_group("score_method", "Histogram methods", list(SCORE_METHODS),
                                selected=list(SCORE_METHODS), inline=True),
        ui.layout_columns(ui.input_numeric("bins_x", "Bins on x", None, min=1, step=1),
                          ui.input_numeric("bins_y", "Bins on y", None, min=1, step=1)),
        ui.p("Empty (default): as many bins as the noise allows, from n and the budget "
             "(R's app: 10 x 10).", class_="small-help"),
        ui.input_checkbox("use_group", "Colour by group (when the data have a group column)", True),
        ui.input_text("group_levels", "Group labels (public, comma-separated)", ""),
        ui.p("The labels you declare public are the groups shown (empty ones too). Left empty, "
             "the groups are chosen by private partition selection (10% of the run's budget): "
             "labels with few rows may be missing.", class_="small-help"),
        ui.p("The frame is a private square around the scores (inflated by 20%).",
             class_="small-help"),
        ui.input_action_button("run_score", "Run score", class_="btn-primary w-100 mt-2"),
    )


def _card(title, output, downloads):
    return ui.card(ui.card_header(title), ui.output_ui(f"{output}_message"),
                   ui.output_image(output, height="auto"),
                   ui.card_footer(*downloads))


def app_ui(provided: bool = False, fixed: tuple | None = None, operator: tuple | None = None):
    """The page; ``provided`` adds the "Provided data" source, ``fixed`` the fixed total;
    ``operator`` = (label, registered name): operator mode, the registered dataset only."""
    data = data_panel(provided) if operator is None else operator_panel(*operator)
    sidebar = ui.sidebar(data, budget_panel(fixed), common_panel(private_only=operator is not None),
                         ui.navset_tab(scree_controls(), score_controls(), id="settings_tab"),
                         width="30%", open="always", bg="#ffffff")
    return ui.page_fluid(
        ui.tags.style(CSS),
        ui.h3(TITLE, class_="my-3"),
        ui.layout_sidebar(
            sidebar,
            ui.output_ui("budget_bar"),
            _card("DP Scree Plot", "scree_plot",
                  [ui.download_button("download_scree_png", "Figure (PNG)"),
                   ui.download_button("download_scree_csv", "Scree table (CSV)")]),
            _card("DP Score Plot", "score_plot",
                  [ui.download_button("download_score_png", "Figure (PNG)"),
                   ui.download_button("download_score_csv", "Histograms (CSV)")]),
            ui.card(ui.card_header("Session ledger (every release on these data)"),
                    ui.output_ui("ledger_table"),
                    ui.card_footer(ui.download_button("download_ledger", "Ledger (JSON)"))),
            fillable=False, fill=False, border=False),
        title=TITLE,
    )

__all__ = ["MISSING_CHOICES", "STANDARDIZE_CHOICES", "app_ui", "budget_bar_ui", "budget_panel", "common_panel", "data_panel", "operator_panel", "score_controls",
           "missing_panel", "scree_controls"]
