"""``dppca report``: the private analysis of a dataset, section by section.

``dppca report --data adult --k 2 --eps 1 --delta 1e-5 --seed 1 --out report/``
prints the summaries and writes, per section, CSV/JSON tables and PNG figures.
The (eps, delta) given is the budget of the whole report: it is split evenly over
the sections run (basic composition), and ``ledger.json`` lists every release.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import lazy_loader as lazy

from .._validation import DPPCAValueError, delta_arg, eps_arg, int_arg
from .budget import charge_report, record_report
from .data import MISSING_LABEL, deferred, feature_columns, group_levels, load_data

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
fill_missing, policy_applied = (deferred("preprocessing.missing_entry", name) for name in
                                ("fill_missing", "policy_applied"))
resolve_missing = deferred("preprocessing.missing", "resolve_missing")

#: Share of the report's budget for the private column scales when --standardize is given.
REPORT_SCALE_SHARE = 0.1


def _help_text(text: str) -> str:
    """A help string shown as written: argparse %-formats help, so "10%" must read "10%%"."""
    return text.replace("%", "%%")


#: ``--standardize`` values: no scaling, private SD scales (the bare flag), the rank path.
STANDARDIZE_CHOICES = ("none", "sd", "rank")


def add_standardize_option(parser) -> None:
    """``--standardize [{none,sd,rank}]`` on ``parser``: the bare flag means "sd" (as before)."""
    parser.add_argument("--standardize", nargs="?", const="sd", default="none",
                        choices=STANDARDIZE_CHOICES,
                        help=_help_text(f"sd (the bare flag): divide columns by private scales "
                                        f"released once ({REPORT_SCALE_SHARE:.0%} of the "
                                        f"budget); rank: the scale-free rank path (PCA of the "
                                        f"latent Gaussian-copula correlation from a private "
                                        f"Kendall's tau matrix, no scales); none (default)"))


def scaled_share(args) -> float:
    """Share of the report's budget left to its sections after the private SD scales."""
    return 1.0 - REPORT_SCALE_SHARE if args.standardize == "sd" else 1.0


def _rank_options(args) -> dict:
    """What each section passes on for the rank path (nothing otherwise: "sd" divides the data
    once, before the sections)."""
    return {"standardize": "rank"} if args.standardize == "rank" else {}


#: ``--neighbouring`` values (dppca.privacy.neighbouring.NEIGHBOURINGS, spelled here so that
#: ``dppca --help`` loads no numpy).
NEIGHBOURING_CHOICES = ("replace", "add_remove")


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
    add_standardize_option(report)
    report.add_argument("--missing", default="auto", type=missing_option,
                        help="what an empty or NaN cell means (public): median = private "
                             "column medians (10%% of the budget, released once for the report) "
                             "fill them; a number = that public value; drop = incomplete rows "
                             "removed (needs --neighbouring add_remove); auto (default) = median, "
                             "or drop with --neighbouring add_remove")
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
    report.add_argument("--neighbouring", default="replace", choices=NEIGHBOURING_CHOICES,
                        help="replace (default): one row replaced, n public; add_remove: one row "
                             "added or removed, n private (released first; the report prints the "
                             "noisy n of each section); every section without --standardize sd, "
                             "the score section without --standardize rank")
    report.set_defaults(func=run_report)
    return report


def missing_option(text: str):
    """``--missing``: a policy name or a number (a declared fill value).

    Examples
    --------
    >>> missing_option("median"), missing_option("0")
    ('median', 0.0)
    """
    try:
        return float(text)
    except ValueError:
        return text


def run_report(args) -> int:
    """Run the requested sections, each on an equal share of (eps, delta).

    With ``--standardize`` (``sd``) the column scales are released once, privately, with
    ``REPORT_SCALE_SHARE`` of the budget, and every section works on the data divided by
    them (post-processing of that release); the sections split the rest evenly. With
    ``--standardize rank`` every section takes the rank path (``standardize="rank"``).

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
    _check_neighbouring(args, names)
    # the relation decides what "auto" means and whether "drop" is allowed, as in dp_pc_dir
    args.missing_policy = resolve_missing(args.missing, entry="dppca report",
                                          neighbouring=args.neighbouring)
    args.levels = group_levels(args.group_levels)
    # add/remove: n is private, so no row count is checked before its release (dp_pc_dir
    # refuses too few rows from the released count only)
    frame, bundled = load_data(args.data, args.group, empty=args.neighbouring == "add_remove")
    numeric = feature_columns(frame, args, bundled)
    _check_shape(numeric, names, args.k, args.neighbouring)
    import shutil  # the report's modules load when it runs, not for `dppca --help`

    out = Path(args.out)
    staging = _staging_folder(out)
    try:
        charge = charge_report(args, frame)  # --budget: the whole (eps, delta), before any release
        try:  # it records its outcome ("ok" and the ledgers) when every section is released
            written = _write_sections(frame, numeric, args, names, staging, charge)
        except BaseException as error:  # logged by its class only (the message may hold data)
            record_report(charge, None, "failed: " + type(error).__name__)
            raise
        _publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"wrote {written} to {out}/")
    return 0


def _check_neighbouring(args, names) -> None:
    """``--neighbouring add_remove`` covers every section without private scales, and the score
    section off the rank path (what ``dp_pc_dir``, ``dp_scree_plot`` and ``dp_score_plot`` cover
    under add/remove): anything else is refused from the arguments, before any release."""
    neighbouring = getattr(args, "neighbouring", "replace")
    args.neighbouring = neighbouring
    if neighbouring != "add_remove":
        return
    if args.standardize == "sd":
        raise DPPCAValueError("--neighbouring add_remove does not cover private column scales "
                              "(--standardize sd): their release reads the public n; use "
                              "--standardize none or rank, or --neighbouring replace")
    if "score" in names and args.standardize == "rank":
        raise DPPCAValueError("--neighbouring add_remove does not cover the score section on the "
                              "rank path (--standardize rank: its normal scores read the public "
                              "n); leave out the score section (--sections directions scree) or "
                              "use --standardize none")


#: Fewest rows each section needs (the scree's standard errors need 4).
SECTION_MIN_ROWS = {"directions": 2, "score": 2, "scree": 4}


def _check_shape(numeric, names, k, neighbouring="replace"):
    """The public shape checks of every section, before any release: rows (n public only),
    values, --k."""
    as_matrix(numeric, "--data", min_rows=0 if neighbouring == "add_remove" else
              max(SECTION_MIN_ROWS.get(s, 2) for s in names))
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
    # The missing-value policy once for the whole report (its medians before any section).
    filled = fill_missing(numeric, args.missing_policy, eps=args.eps, delta=args.delta,
                          rng=np.random.default_rng(streams[-1]), entry="dppca report")
    numeric = filled.X
    if filled.medians is not None:
        ledgers["missing"] = filled.medians.to_dict()
        share -= filled.medians.eps / args.eps
    if args.standardize == "sd":
        numeric, ledgers["scales"], spent, scales = _privately_standardized(
            numeric, args, streams[-1], None if given is None else given.scale)
        share -= spent
    # Every section gets the declared bounds in its own units (the data divided by the
    # scales), as ``args.declared_bounds``: its ledger shows them, its frame and trace respect them.
    args.declared_bounds = None if schema is None else schema.scaled_bounds(list(numeric.columns),
                                                                            scales)
    eps, delta = share * args.eps / len(names), share * args.delta / len(names)
    rows = "private (add/remove neighbours)" if args.neighbouring == "add_remove" else len(frame)
    print(f"dppca report on {args.data}: n={rows}, p={numeric.shape[1]} "
          f"(columns {', '.join(map(str, numeric.columns))}), total eps={args.eps:g}, "
          f"delta={args.delta:g}; "
          + f"missing values: {args.missing_policy.label}; "
          + ("private scales first, then " if args.standardize == "sd" else "")
          + f"split evenly over sections {names}\n")
    for name, stream in zip(names, streams):
        # Independent noise per section (composition assumes independent randomness); the
        # report applied its missing-value policy once, so the sections' calls apply none.
        with policy_applied():
            result = SECTIONS[name](frame, numeric, args, eps, delta,
                                    np.random.default_rng(stream), out)
        result.seed = f"{args.seed} (stream {name})" if args.seed is not None else "none"
        result.total_eps, result.budget_share = args.eps, eps / args.eps
        print(result.summary(), end="\n\n")
        ledgers[name] = _ledger_payload(result)
    import json

    (out / "ledger.json").write_text(json.dumps({"total_eps": args.eps, "total_delta": args.delta,
                                                 "missing": args.missing_policy.label,
                                                 "sections": ledgers}, indent=2))
    record_report(charge, ledgers)
    return sorted(p.name for p in out.iterdir())


def _declared(args, numeric):
    """The report's data after the --schema codebook, and the codebook applied as the Python API
    applies ``bounds=`` (:func:`dppca.preprocessing.schema.declared_input`: checked against the
    columns, values clipped to the declared bounds); ``(numeric, None)`` without one."""
    if args.schema is None:
        return numeric, None
    given = declared_input(as_matrix(numeric, "--data",
                                     min_rows=0 if args.neighbouring == "add_remove" else 2),
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
    if args.standardize == "sd":
        result.scale_source = f"private ({REPORT_SCALE_SHARE:.0%} of eps, report)"
    return result


def _section_bounds(args):
    """The declared bounds a section passes on (None without --schema bounds)."""
    return getattr(args, "declared_bounds", None)


def _ledger_payload(result):
    # A scree result keeps one ledger per method plus the combined one of the whole call.
    return {**getattr(result, "combined_ledger", result.ledger).to_dict(),
            "estimand": result.estimand}


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
                       bounds=_section_bounds(args), neighbouring=args.neighbouring,
                       **_rank_options(args))
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
    from ..score_plot import dp_score_plot, dp_score_plot_group

    options = dict(g_dppca=True, rng=rng, bounds=_section_bounds(args),
                   neighbouring=args.neighbouring, **_rank_options(args))
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
    from ..scree import dp_scree_plot

    result = dp_scree_plot(numeric, args.k, eps=eps, delta=delta, g_dppca=True, type="scree",
                           rng=rng, bounds=_section_bounds(args), neighbouring=args.neighbouring,
                           **_rank_options(args))
    result.to_frame().to_csv(out / "scree.csv", index=False)
    _save_plot(result, args, out / "scree.png", dpi=110, type="scree")
    return result


#: Report sections in the order they run: name -> function(frame, numeric, args, eps, delta, rng, out).
SECTIONS = {"directions": directions_section, "score": score_section, "scree": scree_section}

__all__ = ["REPORT_SCALE_SHARE", "SECTIONS", "STANDARDIZE_CHOICES", "add_report_parser",
           "missing_option", "add_standardize_option", "scaled_share", "directions_section",
           "run_report", "score_section", "scree_section"]
