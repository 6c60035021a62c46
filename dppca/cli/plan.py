"""``dppca plan``: the expected accuracy of a report, from public numbers only (spends nothing)."""
from __future__ import annotations

import argparse

from .._validation import DPPCAValueError, delta_arg, eps_arg
from .data import feature_columns, load_data
from .report import SECTIONS, add_standardize_option, missing_option, scaled_share


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
    add_standardize_option(plan)
    plan.add_argument("--missing", default="auto", type=missing_option,
                      help="as in `report`: the private medians of the default take their share "
                           "of the budget before the sections (dppca.plan's missing=)")
    plan.add_argument("--sections", default=",".join(SECTIONS), help="as in `report`")
    plan.set_defaults(func=run_plan)
    return plan


def run_plan(args) -> int:
    """Print the expected accuracy of the report's scree section (directions included)."""
    from ..planning import plan

    if (args.data is None) == (args.n is None or args.p is None):
        raise DPPCAValueError("give --data, or both --n and --p (and not both)")
    if args.data is not None:
        frame, bundled = load_data(args.data, args.group)
        n, p = len(frame), feature_columns(frame, args, bundled).shape[1]
    else:
        n, p = args.n, args.p
    names = [s.strip() for s in args.sections.split(",") if s.strip()]
    share = scaled_share(args) / max(len(names), 1)
    eps, delta = eps_arg(args.eps), delta_arg(args.delta)
    print(f"dppca plan: n={n}, p={p}, k={args.k}; each of the {len(names)} section(s) gets "
          f"eps={share * eps:.4g}, delta={share * delta:.3g}\n")
    # "sd": the scales' share is already off the sections' budget (as the report spends it).
    standardize = "rank" if args.standardize == "rank" else False
    # The report releases its medians once, from the whole budget, and splits the rest: by basic
    # composition each section keeps (1 - MEDIAN_SHARE) of its share, as plan() computes.
    print(plan(n, p, args.k, share * eps, share * delta, standardize=standardize,
               missing=getattr(args, "missing", "auto")))
    return 0


__all__ = ["add_plan_parser", "run_plan"]
