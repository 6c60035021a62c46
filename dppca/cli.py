"""The ``dppca`` command: ``dppca report`` runs the private analysis of a dataset.

``dppca report --data adult --k 2 --eps 1 --delta 1e-5 --seed 1 --out report/``
prints the summaries and writes, per section, CSV/JSON tables and PNG figures.
The (eps, delta) given is the budget of the whole report: it is split evenly over
the sections run (basic composition), and ``ledger.json`` lists every release.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import lazy_loader as lazy

from ._validation import DPPCATypeError, DPPCAValueError, delta_arg, eps_arg, int_arg
from .cli_budget import add_budget_parser, charge_report, numeric_values, record_report
from .cli_data import BUNDLED, MISSING_LABEL, deferred, feature_columns, group_levels, load_data

# `dppca --help` builds the parser only: numpy, pandas and the analysis (SciPy, statsmodels,
# matplotlib) load when a command first uses them (SPEC 1 lazy loading).
np = lazy.load("numpy")
pd = lazy.load("pandas")


dp_pc_dir = deferred("directions", "dp_pc_dir")
as_matrix = deferred("preprocessing", "as_matrix")
column_scales = deferred("preprocessing", "column_scales")
fully_declared = deferred("preprocessing.matrix", "fully_declared")
declared_input, read_schema = (deferred("preprocessing.schema", name) for name in
                               ("declared_input", "read_schema"))
GaussianGroup = deferred("privacy.composition", "GaussianGroup")
Ledger = deferred("privacy", "Ledger")

#: Share of the report's budget for the private column scales when --standardize is given.
REPORT_SCALE_SHARE = 0.1


def _help_text(text: str) -> str:
    """A help string shown as written: argparse %-formats help, so "10%" must read "10%%"."""
    return text.replace("%", "%%")


def main(argv=None) -> int:
    """Entry point of the console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Exception as err:  # noqa: BLE001 - user errors are printed, any other re-raised
        if not isinstance(err, _user_errors()):
            raise
        print(f"dppca: error: {err}", file=sys.stderr)
        return 2


def _user_errors() -> tuple:
    """The errors printed as ``dppca: error: ...`` (exit 2); the store's only once it is loaded
    (a store error cannot happen before, and importing it would slow down ``--help``)."""
    errors = (DPPCAValueError, DPPCATypeError, FileNotFoundError)
    store = sys.modules.get("dppca.privacy.store")
    return errors if store is None else errors + (store.BudgetStoreError,)


def _parser() -> argparse.ArgumentParser:
    """The ``dppca`` parser: one sub-parser per entry of ``SUBCOMMANDS``."""
    parser = argparse.ArgumentParser(prog="dppca", description="Differentially private PCA.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add_subcommand in SUBCOMMANDS:
        add_subcommand(sub)
    return parser


def add_report_parser(sub) -> argparse.ArgumentParser:
    """``dppca report``: its options, and ``run_report`` as its action."""
    report = sub.add_parser("report", help="private PCA report of a dataset",
                            description="Private PCA report: every section's numbers are "
                                        "(eps, delta)-DP for the budget given (split over the "
                                        "sections run).")
    report.add_argument("--data", required=True,
                        help="bundled dataset (gau, gau_g, adult), a CSV file or a Parquet file "
                             "or folder (.parquet, .pq)")
    report.add_argument("--columns", default=None,
                        help="comma-separated numeric columns to analyse (default: every column "
                             "but --group; a CSV with non-numeric columns needs this option)")
    report.add_argument("--k", type=int, default=2, help="number of components (default 2)")
    report.add_argument("--eps", type=float, required=True, help="total epsilon of the report")
    report.add_argument("--delta", type=float, required=True, help="total delta of the report")
    report.add_argument("--seed", type=int, default=None, help="random seed")
    report.add_argument("--standardize", action="store_true",
                        help=_help_text(f"divide columns by private scales released once "
                                        f"({REPORT_SCALE_SHARE:.0%} of the budget)"))
    report.add_argument("--schema", default=None, metavar="FILE",
                        help="codebook of declared public bounds/scales (CSV or JSON: column, "
                             "lower, upper, scale, units); no budget")
    report.add_argument("--group", default=None,
                        help="column with group labels (score plots); missing labels read as "
                             f"{MISSING_LABEL!r}")
    report.add_argument("--group-levels", default=None, dest="group_levels",
                        help="the public list of group labels, comma-separated or @FILE (one "
                             "per line); without it the groups shown are chosen by private "
                             "partition selection and small groups may be missing")
    report.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run, from {list(SECTIONS)}")
    report.add_argument("--out", default="report", help="output folder (created)")
    report.add_argument("--budget", default=None, help="registered dataset whose privacy budget "
                        "is charged the report's (eps, delta) before it runs (dppca budget init)")
    report.add_argument("--budget-store", default=None, dest="budget_store",
                        help="SQLAlchemy URL of the budget store (default: $DPPCA_BUDGET_URL)")
    report.set_defaults(func=run_report)
    return report


def add_app_parser(sub) -> argparse.ArgumentParser:
    """``dppca app``: its options, and ``run_app_command`` as its action."""
    app = sub.add_parser("app", help="interactive app: private scree and score plots with a "
                                     "session privacy budget (needs the [app] extra)")
    app.add_argument("--data", default=None,
                     help="bundled dataset (gau, gau_g, adult) or a CSV path, offered as "
                          "'Provided data'")
    app.add_argument("--group", default=None, help="column with group labels (default: inferred)")
    app.add_argument("--eps-total", type=float, default=None,
                     help="fixed session total epsilon (with --delta-total)")
    app.add_argument("--delta-total", type=float, default=None,
                     help="fixed session total delta (with --eps-total)")
    app.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    app.add_argument("--host", default="127.0.0.1",
                     help="interface to bind (default 127.0.0.1: this machine only)")
    app.add_argument("--allow-remote", action="store_true",
                     help="allow a --host beyond loopback (put authentication in front: a reverse "
                          "proxy, see docs/budget.md)")
    app.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    app.add_argument("--budget", default=None, help="operator mode: registered dataset (dppca budget "
                     "init) whose budget every session's runs on --data are charged to "
                     "($DPPCA_BUDGET_URL); analysts get no upload, no preview, no total to set")
    app.add_argument("--user-header", default=None, metavar="HEADER",
                     help="HTTP header in which the reverse proxy in front of the app puts the "
                          "analyst's name (e.g. X-Forwarded-User), logged with every charge")
    app.set_defaults(func=run_app_command)
    return app


def run_app_command(args) -> int:
    """Serve the interactive app (``dppca.app.run_app``) until interrupted."""
    from .app import run_app

    if args.budget is not None and args.data is None:
        raise DPPCAValueError("--budget NAME serves a registered dataset to analysts: give its file "
                              "on this server with --data FILE")
    # Bundled data as the R package ships them (adult: numeric columns only). A CSV file is read
    # as text cells: its schema comes from the header, never from the cells (dppca.app.data).
    if args.data is not None and args.data not in BUNDLED and args.data.lower().endswith(".csv") \
            and Path(args.data).is_file():
        from .app.data import read_csv_cells

        frame = read_csv_cells(Path(args.data).read_bytes(), True, args.data)
    else:
        frame = BUNDLED[args.data]() if args.data in BUNDLED else \
            None if args.data is None else load_data(args.data, args.group)[0]
    options = {} if args.user_header is None else {"user_header": args.user_header}
    if args.budget is not None:  # the file's fingerprint as `dppca budget init --data` takes it
        options.update(budget=args.budget, source=args.data,
                       registered_values=numeric_values(load_data(args.data)[0]))
    run_app(frame, args.group, eps_total=args.eps_total, delta_total=args.delta_total,
            host=args.host, port=args.port, launch_browser=not args.no_browser,
            allow_remote=args.allow_remote, **options)
    return 0


def run_report(args) -> int:
    """Run the requested sections, each on an equal share of (eps, delta).

    With ``--standardize`` the column scales are released once, privately, with
    ``REPORT_SCALE_SHARE`` of the budget, and every section works on the data divided by
    them (post-processing of that release); the sections split the rest evenly.

    Every argument, the data's shape and the output folder are checked before anything is
    released or printed; the files are written to a temporary folder next to ``--out`` and
    moved there only when every section has succeeded (all files or none).
    """
    names = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in names if s not in SECTIONS]
    if unknown or not names:
        raise DPPCAValueError(f"--sections must name sections from {list(SECTIONS)}; got {args.sections!r}")
    if args.group_levels is not None and args.group is None:
        raise DPPCAValueError("--group-levels needs --group (the column holding the labels)")
    eps_arg(args.eps), delta_arg(args.delta)
    args.levels = group_levels(args.group_levels)
    frame, bundled = load_data(args.data, args.group)
    numeric = feature_columns(frame, args, bundled)
    _check_shape(numeric, names, args.k)
    import shutil  # the report's modules load when it runs, not for `dppca --help`

    out = Path(args.out)
    staging = _staging_folder(out)
    try:
        charge = charge_report(args, frame)  # --budget: the whole (eps, delta), before any release
        written = _write_sections(frame, numeric, args, names, staging, charge)
        _publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"wrote {written} to {out}/")
    return 0


#: Fewest rows each section needs (the scree's standard errors need 4).
SECTION_MIN_ROWS = {"directions": 2, "score": 2, "scree": 4}


def _check_shape(numeric, names, k):
    """The public shape checks of every section, before any release: rows, values, --k."""
    as_matrix(numeric, "--data", min_rows=max(SECTION_MIN_ROWS.get(s, 2) for s in names))
    if {"directions", "scree"} & set(names):
        int_arg(k, "--k", 1, numeric.shape[1])


def _staging_folder(out: Path) -> Path:
    """A new temporary folder on the file system of ``--out``; the errors name ``--out``."""
    import tempfile

    if out.exists() and not out.is_dir():
        raise DPPCAValueError(f"--out must be a folder; {str(out)!r} is a file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".dppca-report-", dir=out if out.is_dir() else out.parent))
    except OSError as err:
        raise DPPCAValueError(f"--out: cannot write the report to {str(out)!r} ({err.strerror})") from None


def _publish(staging: Path, out: Path):
    """Move the finished report into ``out``: rename the folder, or its files into an existing one."""
    if staging.parent != out:
        staging.rename(out)
        return
    for path in staging.iterdir():
        path.replace(out / path.name)


def _write_sections(frame, numeric, args, names, out, charge) -> list:
    """Release and write every section into ``out`` (the outcome logged on ``charge``, if any).

    Returns the names of the files written.
    """
    streams = np.random.SeedSequence(args.seed).spawn(len(names) + 1)
    ledgers, share, scales = {}, 1.0, None
    numeric, given = _declared(args, numeric)
    schema = None if given is None else given.schema
    if given is not None:
        ledgers["declared"] = _declared_section(given, args)
    if args.standardize:
        numeric, ledgers["scales"], spent, scales = _privately_standardized(
            numeric, args, streams[-1], None if given is None else given.scale)
        share = 1.0 - spent
    # Every section gets the declared bounds in its own units (the data divided by the
    # scales), as ``args.declared_bounds``: its ledger shows them, its frame and trace respect them.
    args.declared_bounds = None if schema is None else schema.scaled_bounds(list(numeric.columns),
                                                                            scales)
    eps, delta = share * args.eps / len(names), share * args.delta / len(names)
    print(f"dppca report on {args.data}: n={len(frame)}, p={numeric.shape[1]} "
          f"(columns {', '.join(map(str, numeric.columns))}), total eps={args.eps:g}, "
          f"delta={args.delta:g}; " + ("private scales first, then " if args.standardize else "")
          + f"split evenly over sections {names}\n")
    for name, stream in zip(names, streams):
        # Independent noise per section (composition assumes independent randomness).
        result = SECTIONS[name](frame, numeric, args, eps, delta, np.random.default_rng(stream), out)
        result.seed = f"{args.seed} (stream {name})" if args.seed is not None else "none"
        result.total_eps, result.budget_share = args.eps, eps / args.eps
        print(result.summary(), end="\n\n")
        ledgers[name] = _ledger_payload(result)
    import json

    (out / "ledger.json").write_text(json.dumps({"total_eps": args.eps, "total_delta": args.delta,
                                                 "sections": ledgers}, indent=2))
    record_report(charge, ledgers)
    return sorted(p.name for p in out.iterdir())


def _declared(args, numeric):
    """The report's data after the --schema codebook, and the codebook applied as the Python API
    applies ``bounds=`` (:func:`dppca.preprocessing.schema.declared_input`: checked against the
    columns, values clipped to the declared bounds); ``(numeric, None)`` without one."""
    if args.schema is None:
        return numeric, None
    given = declared_input(as_matrix(numeric, "--data"),
                           bounds=read_schema(args.schema, kind="--schema"))
    clipped = pd.DataFrame(given.matrix.values, index=numeric.index, columns=numeric.columns)
    return clipped, given


def _declared_section(given, args) -> dict:
    """Print the --schema facts the report uses and return their ledger (zero-cost rows,
    mechanism "public (declared)", as the API's ``given.record``), the report's "declared"
    section."""
    schema, columns = given.schema, list(map(str, given.matrix.columns))
    lower, upper = schema.bounds(columns)
    table = pd.DataFrame({"lower": lower, "upper": upper, "scale": schema.declared_scales(columns),
                          "units": [schema[c].units if c in schema.entries else "" for c in columns]},
                         index=columns)
    print('declared public metadata (--schema; no budget, "public (declared)" on the ledger):')
    print(table[table[["lower", "upper", "scale"]].abs().lt(np.inf).any(axis=1)].to_string(),
          end="\n\n")
    ledger = Ledger(args.eps, args.delta)
    given.record(ledger)
    return ledger.to_dict()


def _privately_standardized(numeric, args, stream, schema=None):
    """The data divided by the column scales (declared in --schema, private for the others),
    the ledger of that release, the share of the budget it spent (0 if all are declared) and
    the scales."""
    mat = as_matrix(numeric)
    spent = 0.0 if fully_declared(schema, mat.columns) else REPORT_SCALE_SHARE
    eps, delta = spent * args.eps, spent * args.delta
    ledger = Ledger(max(eps, 1e-300), max(delta, 1e-300))
    noise = GaussianGroup(eps, delta).share(1.0) if spent else None
    scales = column_scales(mat, True, schema, noise=noise, share=spent,
                           rng=np.random.default_rng(stream), ledger=ledger).values
    print("column scales (released once for the whole report):")
    print(pd.Series(scales, index=numeric.columns).round(4).to_string(), end="\n\n")
    return numeric / scales, ledger.to_dict(), spent, scales


def _scaled(result, args):
    """The section's result labelled, before its figure is drawn, with the report's total
    budget (titles and summaries say "eps 0.3333 of 1 (section share)") and private scaling
    (its data were divided by the scales released once for the report)."""
    result.total_eps, result.budget_share = args.eps, result.eps / args.eps
    if args.standardize:
        result.scale_source = f"private ({REPORT_SCALE_SHARE:.0%} of eps, report)"
    return result


def _section_bounds(args):
    """The declared bounds a section passes on (None without --schema bounds)."""
    return getattr(args, "declared_bounds", None)


def _ledger_payload(result):
    # A scree result keeps one ledger per method plus the combined one of the whole call.
    return getattr(result, "combined_ledger", result.ledger).to_dict()


def _save_plot(result, args, path, dpi, **plot_args) -> None:
    """Draw the section's figure with the report's labels (:func:`_scaled`), write it and close
    it, with the figure ``dp_scree_plot`` / ``dp_score_plot`` attached before the labels were
    set (a caller running many reports in one process would otherwise keep them all open)."""
    import matplotlib.pyplot as plt

    fig = _scaled(result, args).plot(**plot_args)
    fig.savefig(path, dpi=dpi)
    for figure in (fig, getattr(result, "figure", None)):
        if figure is not None:
            plt.close(figure)


def directions_section(frame, numeric, args, eps, delta, rng, out):
    """Private PC directions: directions.csv and loadings.png (``args.declared_bounds``: the
    --schema bounds in the units of ``numeric``, or None)."""
    result = dp_pc_dir(numeric, args.k, g_dppca=True, eps=eps, delta=delta, rng=rng,
                       bounds=_section_bounds(args))
    result.directions.to_csv(out / "directions.csv", index_label="variable")
    _save_plot(result, args, out / "loadings.png", dpi=110)
    return result


def score_section(frame, numeric, args, eps, delta, rng, out):
    """Private PC score plot (g-DPPCA directions): score.png and score_histograms.csv.

    With ``--group COLUMN`` the plot is grouped by that column (missing labels read as
    ``MISSING_LABEL``); the column is never a feature. The groups shown are
    ``--group-levels`` (public; rows with other labels are in no histogram) or, without it,
    the labels released by private partition selection (see :func:`dppca.dp_score_group`).
    """
    from .score_plot import dp_score_plot, dp_score_plot_group

    options = dict(g_dppca=True, rng=rng, bounds=_section_bounds(args))
    if args.group is None:
        result = dp_score_plot(numeric, eps, delta, **options)
    else:
        labels = frame[args.group].astype(object)
        labels = labels.where(labels.notna(), MISSING_LABEL)
        result = dp_score_plot_group(numeric, labels.to_numpy(), eps, delta,
                                     levels=getattr(args, "levels", None), **options)
    result.to_frame().to_csv(out / "score_histograms.csv", index=False)
    _save_plot(result, args, out / "score.png", dpi=100)
    return result


def scree_section(frame, numeric, args, eps, delta, rng, out):
    """Private scree values and PVE (g-DPPCA directions, self-tuned clipped method): scree.csv,
    scree.png (with ``args.declared_bounds`` as in :func:`directions_section`)."""
    from .scree import dp_scree_plot

    result = dp_scree_plot(numeric, args.k, eps=eps, delta=delta, g_dppca=True, type="scree",
                           rng=rng, bounds=_section_bounds(args))
    result.to_frame().to_csv(out / "scree.csv", index=False)
    _save_plot(result, args, out / "scree.png", dpi=110, type="scree")
    return result


def add_plan_parser(sub) -> argparse.ArgumentParser:
    """``dppca plan``: the report's options (``--data`` or ``--n``/``--p``), and ``run_plan``."""
    plan = sub.add_parser("plan", help="expected accuracy of a report, before any release",
                          description="Expected accuracy of `dppca report` with the same "
                          "arguments, from public numbers only (n, p, k, eps, delta): spends "
                          "nothing. --data is read only for n and p.")
    plan.add_argument("--data", default=None, help="as in `report` (only n and p are read)")
    plan.add_argument("--n", type=int, default=None, help="number of rows (instead of --data)")
    plan.add_argument("--p", type=int, default=None, help="number of columns (instead of --data)")
    for option in ("--columns", "--group", "--group-levels", "--seed", "--out"):
        plan.add_argument(option, default=None, dest=option[2:].replace("-", "_"),
                          help="as in `report` (accepted; no effect on the plan)")
    plan.add_argument("--k", type=int, default=2, help="number of components (default 2)")
    plan.add_argument("--eps", type=float, required=True, help="total epsilon of the report")
    plan.add_argument("--delta", type=float, required=True, help="total delta of the report")
    plan.add_argument("--standardize", action="store_true", help="as in `report`")
    plan.add_argument("--sections", default=",".join(SECTIONS), help="as in `report`")
    plan.set_defaults(func=run_plan)
    return plan


def run_plan(args) -> int:
    """Print the expected accuracy of the report's scree section (directions included)."""
    from .planning import plan

    if (args.data is None) == (args.n is None or args.p is None):
        raise DPPCAValueError("give --data, or both --n and --p (and not both)")
    if args.data is not None:
        frame, bundled = load_data(args.data, args.group)
        n, p = len(frame), feature_columns(frame, args, bundled).shape[1]
    else:
        n, p = args.n, args.p
    names = [s.strip() for s in args.sections.split(",") if s.strip()]
    share = (1.0 - REPORT_SCALE_SHARE if args.standardize else 1.0) / max(len(names), 1)
    eps, delta = eps_arg(args.eps), delta_arg(args.delta)
    print(f"dppca plan: n={n}, p={p}, k={args.k}; each of the {len(names)} section(s) gets "
          f"eps={share * eps:.4g}, delta={share * delta:.3g}\n")
    print(plan(n, p, args.k, share * eps, share * delta))
    return 0


#: Report sections in the order they run: name -> function(frame, numeric, args, eps, delta, rng, out).
SECTIONS = {"directions": directions_section, "score": score_section, "scree": scree_section}
#: Sub-commands: each function adds its sub-parser (with ``func`` set to its action).
SUBCOMMANDS = [add_report_parser, add_app_parser, add_plan_parser,
               lambda sub: add_budget_parser(sub, load_data)]

if __name__ == "__main__":
    sys.exit(main())

__all__ = ["add_app_parser", "add_plan_parser", "add_report_parser", "directions_section", "feature_columns",
           "group_levels", "load_data", "main", "run_app_command", "run_report", "score_section",
           "run_plan", "scree_section"]
