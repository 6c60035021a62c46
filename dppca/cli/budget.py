"""``dppca budget``: register datasets with a total (eps, delta), show what is left, read the log.

``dppca budget init NAME --eps E --delta D [--data FILE] [--force]``, ``dppca budget show NAME``,
``dppca budget log NAME [--format csv|json]`` and ``dppca budget list``; ``--store URL`` (or
``DPPCA_BUDGET_URL``) picks the store, SQLite under the user's data directory by default. Only
``init`` creates a store, where there is none; the others never create one.
``dppca report --budget NAME`` charges the report's whole (eps, delta) to NAME before it
computes anything (:func:`charge_report`).
"""
from __future__ import annotations

import sys

import lazy_loader as lazy

from .._validation import DPPCAValueError
from .data import deferred

# `dppca --help` lists this sub-command: the store, numpy and pandas load when a command runs
# (lazy_loader.load of a dppca submodule would import its package, dppca.privacy, at once).
np = lazy.load("numpy")
pd = lazy.load("pandas")
Budget, debit = (deferred("privacy.spending", name) for name in ("Budget", "debit"))
BudgetStore = deferred("privacy.store", "BudgetStore")


def add_budget_parser(sub, load_data):
    """``dppca budget``: its sub-commands, with ``load_data(spec)`` reading ``--data`` files.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``dppca`` sub-parsers.
    load_data : callable
        ``load_data(spec) -> (frame, bundled)`` (:func:`dppca.cli.load_data`).

    Returns
    -------
    argparse.ArgumentParser
        The ``budget`` parser.

    Examples
    --------
    >>> import argparse
    >>> from dppca.cli.budget import add_budget_parser
    >>> sub = argparse.ArgumentParser(prog="dppca").add_subparsers(dest="command")
    >>> add_budget_parser(sub, None).prog
    'dppca budget'
    """
    parser = sub.add_parser("budget", help="privacy budgets of registered datasets (a store)",
                            description="A dataset's total (eps, delta) is set once; every call "
                                        "given its name is charged before it computes.")
    commands = parser.add_subparsers(dest="budget_command", required=True)
    init = commands.add_parser("init", help="register a dataset with its total (eps, delta)")
    init.add_argument("name")
    init.add_argument("--eps", type=float, required=True, help="total epsilon of the dataset")
    init.add_argument("--delta", type=float, required=True, help="total delta of the dataset")
    init.add_argument("--gaussian-share", type=float, default=0.0, dest="gaussian_share",
                      help="share of the total for Gaussian-DP runs (mu^2 adds); default 0")
    init.add_argument("--data", default=None,
                      help="file (or bundled name) whose keyed fingerprint identifies the dataset")
    init.add_argument("--force", action="store_true",
                      help="register even though the same numbers are already registered under "
                           "another name (a second budget for the same data; logged)")
    show = commands.add_parser("show", help="total, spent and left of a dataset")
    show.add_argument("name")
    log = commands.add_parser("log", help="the release log of a dataset, as CSV or JSON")
    log.add_argument("name")
    log.add_argument("--format", choices=("csv", "json"), default="csv", dest="log_format",
                     help="csv (default) or json (records, one object per charged run)")
    log.add_argument("--out", default=None, help="file (default: standard output)")
    commands.add_parser("list", help="every registered dataset")
    for command in (init, show, log, commands.choices["list"]):
        command.add_argument("--store", default=None,
                             help="SQLAlchemy URL of the store (default: $DPPCA_BUDGET_URL, else "
                                  "SQLite under the user's data directory)")
    parser.set_defaults(func=run_budget, load_data=load_data)
    return parser


def run_budget(args) -> int:
    """Run ``dppca budget <command>``; returns the exit status.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        0.

    Examples
    --------
    >>> import os, tempfile
    >>> from dppca.cli import main
    >>> store = "sqlite:///" + os.path.join(tempfile.mkdtemp(), "b.sqlite3")
    >>> main(["budget", "init", "gau", "--eps", "2", "--delta", "1e-5", "--store", store])
    registered 'gau': total eps=2, delta=1e-05
    0
    """
    store = BudgetStore(args.store)
    if args.budget_command == "init":
        values = None if args.data is None else numeric_values(args.load_data(args.data)[0])
        store.register(args.name, args.eps, args.delta, args.gaussian_share, values=values,
                       force=args.force)
        print(f"registered {store.status(args.name)['name']!r}: total eps={args.eps:g}, "
              f"delta={args.delta:g}"
              + (f", Gaussian-DP share {args.gaussian_share:g}" if args.gaussian_share else "")
              + ("" if values is None else f", fingerprint of {args.data}"))
    elif args.budget_command == "show":
        status = store.status(args.name)
        print(pd.Series(status).to_string())
    elif args.budget_command == "log":
        frame, out = store.log(args.name), args.out if args.out else sys.stdout
        if args.log_format == "json":
            frame.to_json(out, orient="records", indent=1)
            if out is sys.stdout:
                print()
        else:
            frame.to_csv(out, index=False)
    else:
        frame = store.datasets()
        print(frame.to_string(index=False) if len(frame) else
              f"no dataset is registered in the budget store at {store.location} "
              "(a curator registers one: dppca budget init NAME --eps E --delta D)")
    return 0


def charge_report(args, frame):
    """``dppca report --budget NAME``: the report's whole (eps, delta) charged to NAME, or None.

    When NAME has a fingerprint, ``frame``'s numeric values must have it (the same numbers under
    any file name or header); the check happens before the charge.

    Parameters
    ----------
    args : argparse.Namespace
        The report's arguments (``budget``, ``store``, ``eps``, ``delta``, ``data``, ``sections``).
    frame : pandas.DataFrame
        The data read from ``--data``.

    Returns
    -------
    (BudgetStore, int) or None
        The store and the charge's id in its log (None without ``--budget``).

    Raises
    ------
    DPPCAValueError
        If the data are not those registered under NAME, or NAME is unknown;
        :class:`~dppca.privacy.filter.BudgetExhaustedError` when the budget refuses.

    Examples
    --------
    >>> import argparse
    >>> from dppca.cli.budget import charge_report
    >>> charge_report(argparse.Namespace(budget=None), None) is None
    True
    """
    if getattr(args, "budget", None) is None:
        return None
    handle = Budget(args.budget, BudgetStore(getattr(args, "budget_store", None)))
    registered = handle.status()["fingerprint"]
    if registered is not None and handle.store.fingerprint(numeric_values(frame)) != registered:
        raise DPPCAValueError(f"--data {args.data!r} is not the data registered as "
                              f"{args.budget!r} (its fingerprint differs)")
    charge = debit(handle, "dppca report", args.eps, args.delta, data=args.data,
                   sections=args.sections, k=args.k, standardize=args.standardize)
    return handle.store, charge.charge_id


def record_report(charged, ledgers, status="ok") -> None:
    """Append the report's outcome (its ledgers) to the log of its charge (nothing without one).

    Parameters
    ----------
    charged : (BudgetStore, int) or None
        What :func:`charge_report` returned.
    ledgers : dict or None
        The report's ledgers (JSON payloads), or None when it failed.
    status : str
        ``"ok"``, or ``"failed: ErrorClass"`` (the class only; its message is not logged).

    Examples
    --------
    >>> from dppca.cli.budget import record_report
    >>> record_report(None, {})
    """
    if charged is not None:
        store, charge_id = charged
        store.record_outcome(charge_id, status, ledgers)


def numeric_values(frame) -> np.ndarray:
    """The numeric columns of ``frame`` as float64 (the fingerprint's input; headers dropped).

    Parameters
    ----------
    frame : pandas.DataFrame
        The data.

    Returns
    -------
    numpy.ndarray, shape (n, p_numeric)
        Values of the numeric columns, NaN for missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from dppca.cli.budget import numeric_values
    >>> numeric_values(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})).tolist()
    [[1.0], [2.0]]
    """
    return frame.select_dtypes("number").to_numpy(dtype=np.float64, na_value=np.nan)


__all__ = ["add_budget_parser", "charge_report", "numeric_values", "record_report", "run_budget"]
