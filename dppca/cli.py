"""The ``dppca`` command: ``dppca report`` runs the private analysis of a dataset.

``dppca report --data adult --k 2 --eps 1 --delta 1e-5 --seed 1 --out report/``
prints the summaries and writes, per section, CSV/JSON tables and PNG figures.
The (eps, delta) given is the budget of the whole report: it is split evenly over
the sections run (basic composition), and ``ledger.json`` lists every release.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

import lazy_loader as lazy
import numpy as np

from ._validation import DPPCATypeError, DPPCAValueError, delta_arg, eps_arg

# `dppca --help` builds the parser only: pandas and the analysis (SciPy, statsmodels,
# matplotlib) load when a command first uses them (SPEC 1 lazy loading).
pd = lazy.load("pandas")


def _deferred(module: str, name: str):
    """A stand-in for ``dppca.<module>.<name>`` that imports the module on its first call."""
    def call(*args, **kwargs):
        return getattr(importlib.import_module(f"dppca.{module}"), name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``dppca.{module}.{name}``, imported on first call."
    return call


dp_pc_dir = _deferred("directions", "dp_pc_dir")
as_matrix = _deferred("preprocessing", "as_matrix")
private_column_scales = _deferred("preprocessing", "private_column_scales")
Ledger = _deferred("privacy", "Ledger")
_load_gau, _load_gau_g, _load_adult = (_deferred("datasets", name)
                                       for name in ("load_gau", "load_gau_g", "load_adult"))

#: Share of the report's budget for the private column scales when --standardize is given.
REPORT_SCALE_SHARE = 0.1
#: The label given to rows whose --group label is missing (a label like any other).
MISSING_LABEL = "(missing)"

BUNDLED = {"gau": _load_gau, "gau_g": _load_gau_g, "adult": lambda: _load_adult(labels=True)}


def main(argv=None) -> int:
    """Entry point of the console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (DPPCAValueError, DPPCATypeError, FileNotFoundError) as err:
        print(f"dppca: error: {err}", file=sys.stderr)
        return 2


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
                        help=_literal(f"divide columns by private scales released once "
                                      f"({REPORT_SCALE_SHARE:.0%} of the budget)"))
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
    app.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    app.set_defaults(func=run_app_command)
    return app


def _literal(text: str) -> str:
    """A help string shown as written: argparse %-formats help, so "10%" must read "10%%"."""
    return text.replace("%", "%%")


def load_data(spec: str, group: str | None = None) -> tuple:
    """A bundled dataset by name (``adult`` with its labels), a CSV file, or a Parquet file/folder.

    Returns ``(frame, bundled)``. A CSV's ``group`` column is read as text, so labels keep
    their spelling ("01" stays "01") and match ``--group-levels`` as written. The report
    reads the rows into memory (its score and scree sections need them; g-DPPCA uses the
    incomplete U-statistic at this size): 10^7 rows x 20 columns take 1.6 GB. To stream a
    bigger file, call :func:`dppca.dp_pc_dir` on its path (dask).

    Raises
    ------
    FileNotFoundError
        No bundled dataset and no file of that name.
    DPPCAValueError
        An empty or unreadable file, or a file with no rows.
    """
    if spec in BUNDLED:
        return BUNDLED[spec](), True
    path = Path(spec)
    if path.suffix.lower() in PARQUET_SUFFIXES and path.exists():
        frame = _read_parquet(path, spec, group)
    elif not path.is_file():
        raise FileNotFoundError(f"--data: no bundled dataset or file named {spec!r} "
                                f"(bundled: {sorted(BUNDLED)})")
    else:
        frame = _read_csv(path, spec, group)
    if len(frame) == 0:
        raise DPPCAValueError(f"--data: the file {spec!r} has {frame.shape[1]} columns and 0 rows; "
                              "a report needs data rows")
    return frame, False


#: File suffixes read as Parquet (a file, or a folder of a partitioned dataset).
PARQUET_SUFFIXES = (".parquet", ".pq")


def _read_parquet(path, spec, group):
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError, ImportError) as err:
        raise DPPCAValueError(f"--data: cannot read {spec!r} as Parquet ({err})") from None
    if group is not None and group in frame.columns:
        frame[group] = frame[group].astype("string")
    return frame


def _read_csv(path, spec, group):
    try:
        frame = pd.read_csv(path, dtype=None if group is None else {group: "string"})
    except pd.errors.EmptyDataError:
        raise DPPCAValueError(f"--data: the file {spec!r} is empty (no header, no rows)") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise DPPCAValueError(f"--data: cannot read {spec!r} as CSV ({err})") from None
    return frame


def feature_columns(frame: pd.DataFrame, args, bundled: bool) -> pd.DataFrame:
    """The columns to analyse: ``--columns``, else every column but ``--group``.

    Never drops a column silently: a chosen column that is not numeric is an error listing
    them. Without ``--columns`` a bundled dataset uses its numeric columns (its fixed,
    documented schema, e.g. adult's 5 numeric variables).
    """
    if args.group is not None and args.group not in frame.columns:
        raise DPPCAValueError(f"--group must name a column of the data; no column {args.group!r} "
                              f"in {list(frame.columns)}")
    if args.columns is not None:
        chosen = _name_list(args.columns, "--columns")
        unknown = [c for c in chosen if c not in frame.columns]
        if unknown:
            raise DPPCAValueError(f"--columns names no column {unknown}; the data has {list(frame.columns)}")
        if args.group in chosen:
            raise DPPCAValueError(f"--columns must not include the --group column {args.group!r}")
    elif bundled:
        chosen = [c for c in frame.select_dtypes("number").columns if c != args.group]
    else:
        chosen = [c for c in frame.columns if c != args.group]
    features = frame[chosen]
    text = [c for c in chosen if not pd.api.types.is_numeric_dtype(features[c].dtype)]
    if text:
        raise DPPCAValueError(f"--data: columns {text} are not numeric; choose the numeric columns "
                              "to analyse with --columns a,b,c (and the labels with --group)")
    return features


def group_levels(spec: str | None) -> list | None:
    """``--group-levels``: comma-separated labels, or ``@FILE`` with one label per line."""
    if spec is None:
        return None
    if spec.startswith("@"):
        path = Path(spec[1:])
        if not path.is_file():
            raise FileNotFoundError(f"--group-levels: no file {spec[1:]!r}")
        levels = [line.strip() for line in path.read_text().splitlines() if line.strip()]
        if not levels:
            raise DPPCAValueError(f"--group-levels: the file {spec[1:]!r} lists no label")
        return levels
    return _name_list(spec, "--group-levels")


def _name_list(spec: str, option: str) -> list:
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise DPPCAValueError(f"{option} must list at least one name (comma-separated); got {spec!r}")
    return names


def run_app_command(args) -> int:
    """Serve the interactive app (``dppca.app.run_app``) until interrupted."""
    from .app import run_app

    # Bundled data as the R package ships them (adult: numeric columns only).
    frame = BUNDLED[args.data]() if args.data in BUNDLED else \
        None if args.data is None else load_data(args.data)
    run_app(frame, args.group, eps_total=args.eps_total, delta_total=args.delta_total,
            host=args.host, port=args.port, launch_browser=not args.no_browser)
    return 0


def run_report(args) -> int:
    """Run the requested sections, each on an equal share of (eps, delta).

    With ``--standardize`` the column scales are released once, privately, with
    ``REPORT_SCALE_SHARE`` of the budget, and every section works on the data divided by
    them (post-processing of that release); the sections split the rest evenly.
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
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    streams = np.random.SeedSequence(args.seed).spawn(len(names) + 1)
    ledgers, share = {}, 1.0
    if args.standardize:
        numeric, ledgers["scales"] = _privately_standardized(numeric, args, streams[-1])
        share = 1.0 - REPORT_SCALE_SHARE
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
    (out / "ledger.json").write_text(json.dumps({"total_eps": args.eps, "total_delta": args.delta,
                                                 "sections": ledgers}, indent=2))
    print(f"wrote {sorted(p.name for p in out.iterdir())} to {out}/")
    return 0


def _privately_standardized(numeric, args, stream):
    """The data divided by private column scales, and the ledger of that release."""
    eps, delta = REPORT_SCALE_SHARE * args.eps, REPORT_SCALE_SHARE * args.delta
    ledger = Ledger(eps, delta)
    scales = private_column_scales(as_matrix(numeric), eps, delta, np.random.default_rng(stream),
                                   ledger=ledger)
    print("private column scales (released once for the whole report):")
    print(pd.Series(scales, index=numeric.columns).round(4).to_string(), end="\n\n")
    return numeric / scales, ledger.to_dict()


def _scaled(result, args):
    """The section's result labelled with the report's private scaling (its data were divided
    by the scales released once for the report), for its summary header and figure units."""
    if args.standardize:
        result.scale_source = f"private ({REPORT_SCALE_SHARE:.0%} of eps, report)"
    return result


def _ledger_payload(result):
    # A scree result keeps one ledger per method plus the combined one of the whole call.
    return getattr(result, "combined_ledger", result.ledger).to_dict()


def directions_section(frame, numeric, args, eps, delta, rng, out):
    """Private PC directions: directions.csv and loadings.png."""
    result = dp_pc_dir(numeric, args.k, g_dppca=True, eps=eps, delta=delta, rng=rng)
    result.directions.to_csv(out / "directions.csv", index_label="variable")
    _scaled(result, args).plot().savefig(out / "loadings.png", dpi=110)
    return result


def score_section(frame, numeric, args, eps, delta, rng, out):
    """Private PC score plot (g-DPPCA directions): score.png and score_histograms.csv.

    With ``--group COLUMN`` the plot is grouped by that column (missing labels read as
    ``MISSING_LABEL``); the column is never a feature. The groups shown are
    ``--group-levels`` (public; rows with other labels are in no histogram) or, without it,
    the labels released by private partition selection (see :func:`dppca.dp_score_group`).
    """
    from .score_plot import dp_score_plot, dp_score_plot_group

    options = dict(g_dppca=True, rng=rng)
    if args.group is None:
        result = dp_score_plot(numeric, eps, delta, **options)
    else:
        labels = frame[args.group].astype(object)
        labels = labels.where(labels.notna(), MISSING_LABEL)
        result = dp_score_plot_group(numeric, labels.to_numpy(), eps, delta,
                                     levels=getattr(args, "levels", None), **options)
    result.to_frame().to_csv(out / "score_histograms.csv", index=False)
    _scaled(result, args).plot().savefig(out / "score.png", dpi=100)
    return result


def scree_section(frame, numeric, args, eps, delta, rng, out):
    """Private scree values and PVE (g-DPPCA directions, self-tuned clipped method): scree.csv, scree.png."""
    from .scree import dp_scree_plot

    result = dp_scree_plot(numeric, args.k, eps=eps, delta=delta, g_dppca=True, type="scree",
                           rng=rng)
    result.to_frame().to_csv(out / "scree.csv", index=False)
    _scaled(result, args).plot(type="scree").savefig(out / "scree.png", dpi=110)
    return result


#: Report sections in the order they run: name -> function(frame, numeric, args, eps, delta, rng, out).
SECTIONS = {"directions": directions_section, "score": score_section, "scree": scree_section}
#: Sub-commands: each function adds its sub-parser (with ``func`` set to its action).
SUBCOMMANDS = [add_report_parser, add_app_parser]

if __name__ == "__main__":
    sys.exit(main())

__all__ = ["add_app_parser", "add_report_parser", "directions_section", "feature_columns",
           "group_levels", "load_data", "main", "run_app_command", "run_report", "score_section",
           "scree_section"]
