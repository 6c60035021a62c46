"""The ``dppca`` command: one module per sub-command, the parser and ``main`` here.

``dppca report --data adult --k 2 --eps 1 --delta 1e-5 --seed 1 --out report/`` runs the
private analysis (:mod:`dppca.cli.report`); ``dppca plan`` predicts its accuracy from public
numbers (:mod:`dppca.cli.plan`); ``dppca budget`` keeps the privacy budgets of registered
datasets (:mod:`dppca.cli.budget`); ``dppca app`` serves the interactive app
(:mod:`dppca.cli.app`). :mod:`dppca.cli.data` reads ``--data`` for all of them.
``dppca --version`` prints the installed version.

Building the parser imports the standard library only: numpy, pandas and the analysis load
when a command first uses them, so ``dppca --help`` stays fast.
"""
from __future__ import annotations

import argparse
import os
import sys

from .._validation import DPPCATypeError, DPPCAValueError
from .app import add_app_parser, run_app_command
from .budget import add_budget_parser
from .data import feature_columns, group_levels, load_data
from .plan import add_plan_parser, run_plan
from .report import SECTIONS, add_report_parser, directions_section, run_report, score_section, \
    scree_section


def main(argv=None) -> int:
    """Entry point of the console script; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``dppca`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a user error (printed as one ``dppca: error: ...`` line).

    Examples
    --------
    >>> from dppca.cli import main
    >>> main(["plan", "--n", "2000", "--p", "5", "--eps", "1", "--delta", "1e-5"])
    dppca plan: n=2000, p=5, k=2; each of the 3 section(s) gets eps=0.3333, delta=3.33e-06
    ...
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # inside the try: a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:
        # The reader of the output (`dppca budget log NAME | head`) stopped reading: stop
        # quietly, as Unix tools do, with the status of a process ended by SIGPIPE (128 + 13).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
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


def version() -> str:
    """The version of the imported dppca: ``dppca.__version__``, single-sourced in ``dppca/_version.py``.

    Read from the module, not from the distribution's metadata, so that an editable install whose
    metadata predates a version bump still prints the code's version.

    Returns
    -------
    str
        The version, e.g. ``"0.2.0"``.

    Examples
    --------
    >>> from dppca.cli import version
    >>> import dppca
    >>> version() == dppca.__version__
    True
    """
    from .._version import __version__

    return __version__


class _VersionAction(argparse.Action):
    """``--version``: print ``dppca <version>`` and exit 0 (the version is read only when asked,
    so that building the parser reads no package metadata)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="print the version and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {version()}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    """The ``dppca`` parser: one sub-parser per entry of ``SUBCOMMANDS``."""
    parser = argparse.ArgumentParser(prog="dppca", description="Differentially private PCA.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)
    for add_subcommand in SUBCOMMANDS:
        add_subcommand(sub)
    return parser


#: Sub-commands: each function adds its sub-parser (with ``func`` set to its action).
SUBCOMMANDS = [add_report_parser, add_app_parser, add_plan_parser,
               lambda sub: add_budget_parser(sub, load_data)]

__all__ = ["SECTIONS", "SUBCOMMANDS", "add_app_parser", "add_plan_parser", "add_report_parser",
           "directions_section", "feature_columns", "group_levels", "load_data", "main",
           "run_app_command", "run_plan", "run_report", "score_section", "scree_section",
           "version"]
