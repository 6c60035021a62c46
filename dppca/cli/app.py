"""``dppca app``: serve the interactive app (the [app] extra) on a dataset given on the command line."""
from __future__ import annotations

import argparse
from pathlib import Path

from .._validation import DPPCAValueError
from .budget import numeric_values
from .data import BUNDLED, load_data


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
    app.add_argument("--budget-store", default=None, dest="budget_store", metavar="URL",
                     help="SQLAlchemy URL of the budget store (default: $DPPCA_BUDGET_URL): with it, "
                          "--budget NAME is read there and uploads of registered data are charged "
                          "to their budget")
    app.add_argument("--user-header", default=None, metavar="HEADER",
                     help="HTTP header in which the reverse proxy in front of the app puts the "
                          "analyst's name (e.g. X-Forwarded-User), logged with every charge")
    app.set_defaults(func=run_app_command)
    return app


def run_app_command(args) -> int:
    """Serve the interactive app (``dppca.app.run_app``) until interrupted."""
    if args.budget_store is not None:  # the app and the store read it from the environment
        import os

        from ..privacy.store import URL_VARIABLE

        os.environ[URL_VARIABLE] = args.budget_store
    from ..app import run_app

    if args.budget is not None and args.data is None:
        raise DPPCAValueError("--budget NAME serves a registered dataset to analysts: give its file "
                              "on this server with --data FILE")
    # Bundled data as the R package ships them (adult: numeric columns only). A CSV file is read
    # as text cells: its schema comes from the header, never from the cells (dppca.app.data).
    if args.data is not None and args.data not in BUNDLED and args.data.lower().endswith(".csv") \
            and Path(args.data).is_file():
        from ..app.data import read_csv_cells

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


__all__ = ["add_app_parser", "run_app_command"]
