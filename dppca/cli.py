"""The ``dppca`` command: ``dppca report`` runs the private analysis of a dataset.

``dppca report --data adult --k 2 --eps 1 --delta 1e-5 --seed 1 --out report/``
prints the summaries and writes, per section, CSV/JSON tables and PNG figures.
The (eps, delta) given is the budget of the whole report: it is split evenly over
the sections run (basic composition), and ``ledger.json`` lists every release.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import datasets
from ._validation import DPPCATypeError, DPPCAValueError, delta_arg, eps_arg
from .directions import dp_pc_dir
from .preprocessing import as_matrix, private_column_scales
from .privacy import Ledger

#: Share of the report's budget for the private column scales when --standardize is given.
REPORT_SCALE_SHARE = 0.1

BUNDLED = {"gau": datasets.load_gau, "gau_g": datasets.load_gau_g, "adult": datasets.load_adult}


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
    parser = argparse.ArgumentParser(prog="dppca", description="Differentially private PCA.")
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser("report", help="private PCA report of a dataset")
    report.add_argument("--data", required=True,
                        help="bundled dataset (gau, gau_g, adult) or a CSV path")
    report.add_argument("--k", type=int, default=2, help="number of components (default 2)")
    report.add_argument("--eps", type=float, required=True, help="total epsilon of the report")
    report.add_argument("--delta", type=float, required=True, help="total delta of the report")
    report.add_argument("--seed", type=int, default=None, help="random seed")
    report.add_argument("--standardize", action="store_true",
                        help=f"divide columns by private scales released once "
                             f"({REPORT_SCALE_SHARE:.0%} of the budget)")
    report.add_argument("--group", default=None, help="column with group labels (score plots)")
    report.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run, from {list(SECTIONS)}")
    report.add_argument("--out", default="report", help="output folder (created)")
    report.set_defaults(func=run_report)
    return parser


def load_data(spec: str) -> pd.DataFrame:
    """A bundled dataset by name (``adult`` with its labels), or a CSV file."""
    if spec == "adult":
        return datasets.load_adult(labels=True)
    if spec in BUNDLED:
        return BUNDLED[spec]()
    path = Path(spec)
    if not path.exists():
        raise FileNotFoundError(f"--data: no bundled dataset or file named {spec!r} "
                                f"(bundled: {sorted(BUNDLED)})")
    return pd.read_csv(path)


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
    frame = load_data(args.data)
    numeric = frame.select_dtypes("number").drop(columns=[args.group] if args.group else [],
                                                 errors="ignore")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    eps_arg(args.eps), delta_arg(args.delta)
    streams = np.random.SeedSequence(args.seed).spawn(len(names) + 1)
    ledgers, share = {}, 1.0
    if args.standardize:
        numeric, ledgers["scales"] = _privately_standardized(numeric, args, streams[-1])
        share = 1.0 - REPORT_SCALE_SHARE
    eps, delta = share * args.eps / len(names), share * args.delta / len(names)
    print(f"dppca report on {args.data}: n={len(frame)}, p={numeric.shape[1]}, total eps={args.eps:g}, "
          f"delta={args.delta:g}; " + ("private scales first, then " if args.standardize else "")
          + f"split evenly over sections {names}\n")
    for name, stream in zip(names, streams):
        # Independent noise per section (composition assumes independent randomness).
        result = SECTIONS[name](frame, numeric, args, eps, delta, np.random.default_rng(stream), out)
        result.seed = f"{args.seed} (stream {name})" if args.seed is not None else "none"
        result.total_eps, result.budget_share = args.eps, eps / args.eps
        if args.standardize and hasattr(result, "scale_source"):
            result.scale_source = f"private, released once ({REPORT_SCALE_SHARE:.0%} of eps)"
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


def _ledger_payload(result):
    # A scree result keeps one ledger per method plus the combined one of the whole call.
    return getattr(result, "combined_ledger", result.ledger).to_dict()


def directions_section(frame, numeric, args, eps, delta, rng, out):
    """Private PC directions: directions.csv and loadings.png."""
    result = dp_pc_dir(numeric, args.k, g_dppca=True, eps=eps, delta=delta, rng=rng)
    result.directions.to_csv(out / "directions.csv", index_label="variable")
    result.plot().savefig(out / "loadings.png", dpi=110)
    return result


def score_section(frame, numeric, args, eps, delta, rng, out):
    """Private PC score plot (g-DPPCA directions): score.png and score_histograms.csv.

    With ``--group COLUMN`` the plot is grouped by that column (missing labels form their own
    group, so n stays public); the column is never a feature.
    """
    from .score import dp_score_plot, dp_score_plot_group

    options = dict(g_dppca=True, rng=rng)
    if args.group is None:
        result = dp_score_plot(numeric, eps, delta, **options)
    else:
        if args.group not in frame.columns:
            raise DPPCAValueError(f"--group must name a column of the data; no column {args.group!r} "
                                  f"in {list(frame.columns)}")
        labels = frame[args.group].astype(object)
        labels = labels.where(labels.notna(), "(missing)")
        result = dp_score_plot_group(numeric, labels.to_numpy(), eps, delta, **options)
    result.to_frame().to_csv(out / "score_histograms.csv", index=False)
    result.figure.savefig(out / "score.png", dpi=100)
    return result


def scree_section(frame, numeric, args, eps, delta, rng, out):
    """Private scree values and PVE (g-DPPCA directions, self-tuned clipped method): scree.csv, scree.png."""
    from .scree import dp_scree_plot

    result = dp_scree_plot(numeric, args.k, eps=eps, delta=delta, g_dppca=True, type="scree",
                           rng=rng)
    result.to_frame().to_csv(out / "scree.csv", index=False)
    result.figure.savefig(out / "scree.png", dpi=110)
    return result


#: Report sections in the order they run: name -> function(frame, numeric, args, eps, delta, rng, out).
SECTIONS = {"directions": directions_section, "score": score_section, "scree": scree_section}

if __name__ == "__main__":
    sys.exit(main())
