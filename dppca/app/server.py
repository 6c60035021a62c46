"""The server of the app: reads the page, asks the session budget, shows what was released.

All the logic lives in :mod:`dppca.app.data`, :mod:`dppca.app.session` and
:mod:`dppca.app.runs`; this module only wires it to Shiny. Every state is created inside
:func:`make_server`'s ``server`` function, i.e. once per browser session: two sessions never
share data, results or budgets (except a registered dataset's budget in the store). Errors are
shown as messages in the page, never as tracebacks.

Every value the client sends is checked by :mod:`dppca.app.inputs` before it is read, formatted
or opened: a forged value of any input id gives a message in the page, never a stopped session,
and never a file the session did not upload or, in operator mode, a non-private release.

Runs compute off Shiny's event loop: the inputs are read on the loop, then the run (its debit,
its computation and its record, :meth:`SessionBudget.release`) goes to the worker of
:data:`dppca.app.worker.RUN_QUEUE` through a per-session :class:`shiny.reactive.ExtendedTask`,
so one analyst's run does not freeze the other sessions' pages; a waiting run's message says
how many runs are ahead of it. A session's runs are queued one after the other by its task (its
in-memory budget is never checked by two runs at once); the store's debit is one transaction.
"""
from __future__ import annotations

import asyncio
import logging
import tempfile
import traceback

from shiny import reactive, render, ui

from .._validation import DPPCATypeError, DPPCAValueError
from .data import (EXAMPLES, SCHEMA_RULES, AppData, AppDataError, default_delta, example_data,
                   infer_group_column, prepare, read_upload)
from .inputs import (RunRefused, analyst_of, choice, flag, number, run_request, session_upload_dir, text,
                     uploaded_file, whole_or)
from .runs import (SCREE_TYPES, all_gaussian, placeholder_figure, png_bytes, run_score, run_scree,
                   scree_is_gaussian, scree_png)
from .session import BudgetExceeded, SessionBudget, registered_budget
from .ui import DEFAULTS, budget_bar_ui
from .worker import RUN_QUEUE

log = logging.getLogger("dppca.app")
#: shiny >= 1.5 names it download_button; older releases render.download.
_download_renderer = getattr(render, "download_button", None) or render.download
#: Errors whose message is written for the user (shown as they are).
USER_ERRORS = (AppDataError, DPPCAValueError, DPPCATypeError)
#: The sources of the data a page may choose (outside operator mode).
SOURCES = ("provided", "example", "upload")


def _message(kind: str, text: str, id_: str):
    css = {"error": "alert-danger", "refused": "alert-warning", "info": "alert-info",
           "ok": "alert-success", "running": "alert-secondary"}[kind]
    return ui.div(text, class_=f"alert {css} run-message", id=id_, **{"data-kind": kind})


def _user_text(err: Exception) -> str:
    if isinstance(err, USER_ERRORS):
        return str(err)
    log.error("unexpected error in the app:\n%s", "".join(traceback.format_exception(err)))
    # The error's text may depend on the data: it stays in the server's log.
    return (f"Unexpected error ({type(err).__name__}) during the run. The run was charged to the "
            "budget (its private steps may have run); no result is shown.")


def make_server(provided: AppData | None = None, fixed: tuple | None = None, store=None,
                user_header: str | None = None):
    """The Shiny server function, with the provided data and an optional fixed total.

    ``store`` (a :func:`dppca.budget` handle) holds the provided data's budget: every session's
    runs on them are charged there, before they compute (see :class:`SessionBudget`). It is
    operator mode: the provided data are the only source, whatever the client sends (the inputs
    of the source, the upload and the totals are not read), the total is the store's, and only
    private runs are released (:func:`dppca.app.inputs.operator_values`). ``user_header`` names
    the HTTP header in which a reverse proxy puts the analyst's identity (logged with every
    charge to the store); a session whose request lacks it can run nothing.
    """
    operator = store is not None

    def server(input, output, session):
        upload_dir = session_upload_dir(session)
        analyst = analyst_of(session, user_header)

        def raw(name):
            """What the client sent for input ``name`` (None when nothing): checked before use."""
            value = input[name]
            return value() if value.is_set() else None

        budgets: dict[str, SessionBudget] = {}
        version = reactive.value(0)  # bumped after every spend (re-renders bar and ledger)
        shown = {"scree": reactive.value(None), "score": reactive.value(None)}
        notes = {"scree": reactive.value(None), "score": reactive.value(None)}

        # ------------------------------------------------------------------ data
        @reactive.calc
        def upload():
            """(cells, file name) of this session's upload, or None; never in operator mode."""
            if operator:
                return None
            received = uploaded_file(raw("csv_file"), upload_dir)
            if received is None:
                return None
            path, name = received
            return read_upload(path, name, flag(raw("csv_header"), "csv_header")), name

        @reactive.effect
        def _group_choices():
            try:
                frame = upload()[0]
            except Exception:  # noqa: BLE001 - loaded() shows the message
                return
            choices = {"": "(none)"} | {str(c): str(c) for c in frame.columns}
            ui.update_select("upload_group_col", choices=choices,
                             selected=str(infer_group_column(frame.columns) or ""))

        @reactive.calc
        def loaded():
            """(AppData or None, message or None) for the chosen source."""
            try:
                if operator:
                    return provided, None
                source = choice(raw("data_source"), SOURCES, "data_source",
                                "provided" if provided is not None else "example")
                if source == "provided" and provided is not None:
                    return provided, None
                if source == "example":
                    return example_data(choice(raw("example_dataset"), tuple(EXAMPLES),
                                               "example_dataset", "gau_g")), None
                received = upload()
                if received is None:
                    return None, ("info", "Choose a CSV file to upload.")
                frame, name = received
                group = text(raw("upload_group_col"), "upload_group_col") or None
                if group is not None and group not in map(str, frame.columns):
                    group = None  # the choices are being updated for a new file
                header = flag(raw("csv_header"), "csv_header")
                return prepare(frame, group, infer=False, label=f"upload: {name}",
                               key=f"upload:{name}:{frame.attrs['sha256']}:{header}"), None
            except Exception as err:  # noqa: BLE001 - shown in the page
                return None, ("error", _user_text(err))

        def data() -> AppData | None:
            return loaded()[0]

        def budget(data_: AppData) -> SessionBudget:
            if data_.key not in budgets:
                eps, delta = fixed or (DEFAULTS["eps_total"], default_delta(data_.n))
                shared = store if provided is not None and data_.key == provided.key else \
                    registered_budget(data_.features)
                budgets[data_.key] = SessionBudget(eps, delta, dataset=data_.label, store=shared,
                                                   analyst=analyst)
            return budgets[data_.key]

        @reactive.effect
        def _new_data():
            data_ = data()
            if data_ is None:
                return
            with reactive.isolate():
                current = budget(data_)
                if fixed is None:
                    ui.update_numeric("delta_total", value=current.delta_total)
                    ui.update_numeric("eps_total", value=current.eps_total)
                ui.update_numeric("delta", value=float(f"{current.delta_total / DEFAULTS['runs_per_delta']:.3g}"))
                top = data_.max_pc
                for name, lowest in (("k", 1), ("axis_x", 1), ("axis_y", 2)):
                    ui.update_numeric(name, value=min(max(whole_or(raw(name), lowest), lowest), top),
                                      max=top)
                version.set(version() + 1)

        @reactive.effect
        def _totals():
            if fixed is not None:
                return
            eps_total, delta_total = raw("eps_total"), raw("delta_total")
            with reactive.isolate():
                data_ = data()
                if data_ is None:
                    return
                if budget(data_).fixed:
                    _show_fixed_total(budget(data_), eps_total, delta_total)
                    return
                try:
                    budget(data_).set_total(eps_total, delta_total)
                except USER_ERRORS:
                    return  # the bar shows the current total; the run says why it is refused
                version.set(version() + 1)

        @render.ui
        def data_summary():
            data_, message = loaded()
            if message is not None:
                return _message(message[0], message[1], "data-message")
            # The number of labels is not shown: the label set is private until released.
            group = f"; groups: {data_.group_name}" if data_.labels is not None \
                else "; no group column"
            return ui.p(f"{data_.label}: n = {data_.n} rows, p = {data_.p} variables{group}. The "
                        f"schema comes from the header, never from the cells: {SCHEMA_RULES}.",
                        class_="small-help", id="data-summary")

        @render.ui
        def scree_plan():
            data_ = data()
            if data_ is None:
                return None
            return _plan_table(data_, raw, operator)

        # ------------------------------------------------------------------ budget
        @render.ui
        def budget_bar():
            version()
            data_, message = loaded()
            if data_ is None:
                return _message(message[0], f"No data loaded: {message[1]}", "no-data")
            current = budget(data_)
            if fixed is None and not current.fixed:
                raw("eps_total"), raw("delta_total")  # re-render while the total is being set
            return budget_bar_ui(data_.label, current, analyst if user_header else None)

        @render.ui
        def ledger_table():
            version()
            data_ = data()
            if data_ is None or not budget(data_).runs:
                return ui.p("Nothing released yet on these data.", class_="small-help")
            table = budget(data_).table()
            html = table.to_html(index=False, classes="table table-sm table-striped", justify="left",
                                 float_format=lambda v: f"{v:.4g}", border=0)
            return ui.div(ui.HTML(html), id="ledger")

        # ------------------------------------------------------------------ runs
        @reactive.extended_task
        async def run_task(kind, data_key, spending, settings, eps, delta, compute, gaussian,
                           ticket):
            """The run in the queue's worker: (kind, data key, eps, delta, Released or None, error)."""
            def work():
                try:
                    released = spending.release(kind, settings, eps, delta, compute,
                                                private=settings["g_dppca"], ledger_of=_ledger_of,
                                                gaussian=gaussian, confirm=all_gaussian)
                    return kind, data_key, eps, delta, released, None
                except Exception as err:  # noqa: BLE001 - shown in the page
                    return kind, data_key, eps, delta, None, err
            return await asyncio.get_running_loop().run_in_executor(
                RUN_QUEUE.executor, RUN_QUEUE.run, ticket, work)

        def run(kind, compute, gaussian=lambda settings: False):
            """Check the inputs (on the loop), then hand the run to the queue."""
            data_ = data()
            try:
                if data_ is None:
                    raise AppDataError(loaded()[1][1] if loaded()[1] else "no data loaded")
                if user_header and analyst is None:
                    raise DPPCAValueError(
                        f"Refused: this app takes the analyst's name from the {user_header!r} "
                        "header set by its reverse proxy, and this page was not opened through "
                        "it; nothing was charged.")
                spending = budget(data_)
                if fixed is None and not spending.fixed:
                    spending.set_total(number(raw("eps_total"), "eps_total", required=True),
                                       number(raw("delta_total"), "delta_total", required=True))
                settings, eps, delta = run_request(kind, raw, data_, operator=operator)
            except Exception as err:  # noqa: BLE001 - shown in the page
                _show_failure(kind, err)
                return
            ticket = RUN_QUEUE.ticket()
            notes[kind].set(("running", f"Run of the {kind} plot (eps = {eps:g}, delta = "
                                        f"{delta:g})", ticket))
            run_task.invoke(kind, data_.key, spending, settings, eps, delta,
                            lambda: compute(data_, settings, eps, delta), gaussian(settings), ticket)

        def _show_failure(kind, err):
            style, text = ("refused", str(err)) if isinstance(err, (BudgetExceeded, RunRefused)) \
                else ("error", _user_text(err))
            if current_of(kind) is not None:
                text += " The plot shown is still the last one released."
            notes[kind].set((style, text))

        @reactive.effect
        def _run_done():
            kind, key, eps, delta, released, err = run_task.result()
            with reactive.isolate():
                version.set(version() + 1)  # a failed run may have been charged too
                if err is not None:
                    _show_failure(kind, err)
                    return
                shown[kind].set((key, released.result))
            text = (f"Shown again from run {released.run}: no budget spent." if released.cached else
                    f"Run {released.run}: released with eps = {eps:g}, delta = {delta:g}; "
                    f"charged eps {released.charged:.4g} to the session budget"
                    + (" (Gaussian-DP composition with the earlier scree runs)."
                       if released.charged < eps else "."))
            notes[kind].set(("info" if released.cached else "ok", text))

        @reactive.effect
        @reactive.event(input.run_scree)
        def _run_scree():
            run("scree", run_scree, scree_is_gaussian)

        @reactive.effect
        @reactive.event(input.run_score)
        def _run_score():
            run("score", run_score)

        def current_of(kind):
            with reactive.isolate():
                return current(kind)

        def current(kind):
            data_, value = data(), shown[kind]()
            if data_ is None or value is None or value[0] != data_.key:
                return None
            return value[1]

        @reactive.calc
        def scree_figure() -> bytes | None:
            result = current("scree")
            try:
                kind = choice(raw("scree_type"), tuple(SCREE_TYPES), "scree_type", "pve")
            except USER_ERRORS:
                kind = "pve"  # a forged plot type draws the default
            return None if result is None else scree_png(result, kind)

        @reactive.calc
        def score_figure() -> bytes | None:
            result = current("score")
            return None if result is None else png_bytes(result.figure)

        for kind in ("scree", "score"):
            _outputs(kind, notes[kind], {"scree": scree_figure, "score": score_figure}[kind],
                     output)

        @_download_renderer(filename="dppca-scree.csv", media_type="text/csv")
        def download_scree_csv():
            result = current("scree")
            yield "" if result is None else result.to_frame().to_csv(index=False)

        @_download_renderer(filename="dppca-score-histograms.csv", media_type="text/csv")
        def download_score_csv():
            result = current("score")
            yield "" if result is None else result.to_frame().to_csv(index=False)

        @_download_renderer(filename="dppca-session-ledger.json", media_type="application/json")
        def download_ledger():
            data_ = data()
            yield "{}" if data_ is None else budget(data_).to_json()

    return server


def _outputs(kind, note, figure, output):
    """The message, image and PNG download of one plot card."""

    @output(id=f"{kind}_plot_message")
    @render.ui
    def _message_ui():
        value = note()
        if value is None:
            return ui.p(f"Nothing released yet: press \u201cRun {kind}\u201d (in the "
                        f"{kind.capitalize()} controls tab); a new run spends the eps and delta "
                        "of each run from the session budget.", class_="small-help")
        if value[0] == "running":
            return _message("running", _queue_text(value[1], value[2]), f"{kind}-message")
        return _message(value[0], value[1], f"{kind}-message")

    @output(id=f"{kind}_plot")
    @render.image(delete_file=True)
    def _image():
        png = figure()
        if png is None:
            return None
        with tempfile.NamedTemporaryFile(suffix=".png", delete=False) as handle:
            handle.write(png)  # shiny reads it, sends it inline and deletes it
        return {"src": handle.name, "alt": f"DP {kind} plot",
                "style": "max-width: 100%; height: auto;"}

    @output(id=f"download_{kind}_png")
    @_download_renderer(filename=f"dppca-{kind}.png", media_type="image/png")
    def _download():
        png = figure()  # before any run: a figure saying so, never a 0-byte file
        yield png if png is not None else png_bytes(placeholder_figure(kind))


def _plan_table(data_, raw, operator):
    """:func:`dppca.plan` of the scree run as set (public numbers only), as a small table."""
    from ..planning import plan

    try:
        settings, eps, delta = run_request("scree", raw, data_, operator=operator)
        planned = plan(data_.n, data_.p, settings["k"], eps, delta,
                       missing=settings["missing"],  # the plan takes the medians' share out
                       method=None if settings["standardize"] == "rank" else list(settings["methods"]),
                       standardize=settings["standardize"],
                       g_dppca=settings["g_dppca"])
    except USER_ERRORS:
        return None  # the run says what is wrong with the settings
    rows = [ui.tags.tr(ui.tags.td(s.step), ui.tags.td(f"{s.predicted:.2g}"),
                       ui.tags.td("ok" if s.reliable else "UNRELIABLE"))
            for s in planned.accuracy.steps]
    head = ui.tags.tr(ui.tags.th("step"), ui.tags.th("predicted error"), ui.tags.th("verdict"))
    # the settings it was computed for, as the server read them (public): a page can tell
    # that a changed input has reached the server before it asks for a run
    echo = {f"data-{key}": f"{value:g}" for key, value in
            (("k", settings["k"]), ("eps", eps), ("delta", delta))}
    return ui.div(ui.tags.b("Expected accuracy (spends nothing)"),
                  ui.tags.table(head, *rows, class_="table table-sm small-help"),
                  id="scree-plan", **echo)


def _queue_text(what: str, ticket: int) -> str:
    """A waiting run's message: its place in the queue, re-read every second until it runs."""
    ahead = RUN_QUEUE.ahead(ticket)
    if RUN_QUEUE.pending(ticket):
        reactive.invalidate_later(1.0)
    if ahead:
        return (f"{what}: queued, {ahead} run(s) ahead of it (runs of every session are "
                "computed one at a time) ...")
    return f"{what}: computing ..."


def _show_fixed_total(budget: SessionBudget, eps_total, delta_total):
    """Put a fixed total back in the inputs, and say why."""
    if (eps_total, delta_total) == (budget.eps_total, budget.delta_total):
        return
    ui.update_numeric("eps_total", value=budget.eps_total)
    ui.update_numeric("delta_total", value=budget.delta_total)
    ui.notification_show(f"The session total is fixed at eps = {budget.eps_total:g}, delta = "
                         f"{budget.delta_total:g} since the first run on these data; load other "
                         "data to start a new budget.", type="warning", duration=8)


def _ledger_of(result) -> dict:
    """The run's ledger as a dict, with its missing-value policy as the package labels it
    (``ledger.missing``, e.g. "median imputation (auto)": public, from the run's arguments)."""
    ledger = getattr(result, "combined_ledger", None)
    ledger = result.ledger if ledger is None else ledger
    return {**ledger.to_dict(), "missing": getattr(ledger, "missing", None)}

__all__ = ["make_server"]
