"""The app's factory: the checks run before serving (host, extra, registered data) and the
Shiny application itself (:func:`create_app`, :func:`run_app`).

:mod:`dppca.app` re-exports these; :mod:`dppca.app.background` imports them from here, so that
the package and the child-process launcher do not import each other.
"""
from __future__ import annotations

import threading
import webbrowser
from dataclasses import replace

import numpy as np
import pandas as pd

from .._validation import DPPCATypeError, DPPCAValueError, float_arg, int_arg
from ..privacy.spending import budget_arg
from .data import MAX_UPLOAD_BYTES, AppData, AppDataError, prepare

__all__ = ["AppExtraMissing", "INSTALL", "LOOPBACK", "MAX_UPLOAD_BYTES", "check_host", "check_registered",
           "create_app", "require_app_extra", "run_app"]

#: The command that installs what the app needs (Shiny for Python and its server, uvicorn).
INSTALL = 'pip install "dppca[app]"'


class AppExtraMissing(DPPCAValueError, ImportError):
    """The app's optional dependencies (the ``app`` extra) are not installed."""


def require_app_extra() -> None:
    """Raise :class:`AppExtraMissing`, naming the extra to install, unless Shiny and uvicorn load.

    Raises
    ------
    AppExtraMissing
        A ``DPPCAValueError`` and an ``ImportError``: the CLI prints it as ``dppca: error:``.

    Examples
    --------
    >>> require_app_extra()  # installed here
    """
    missing = []
    for name in ("shiny", "uvicorn"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise AppExtraMissing(f"the app needs the [app] extra ({', '.join(missing)} not installed):"
                              f" run  {INSTALL}")


def check_registered(budget, values, source: str = "the data") -> None:
    """Refuse to serve ``values`` under a registered budget unless they are its data.

    Parameters
    ----------
    budget : dppca.privacy.Budget or str
        The registered dataset (a handle, or a name in the default store).
    values : array_like, shape (n, p)
        The numeric values of the data to serve, read as ``dppca budget init --data`` reads
        them (the numeric columns, NaN for a missing cell).
    source : str
        What the message calls the data (the file name).

    Raises
    ------
    DPPCAValueError
        The budget has no fingerprint (registered without ``--data``: the app could not tell
        which data it covers, and the same data could hold a second budget), or ``values`` do
        not have it.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> from dppca.privacy import BudgetStore
    >>> from dppca.privacy.spending import Budget
    >>> store = BudgetStore("sqlite:///" + tempfile.mkdtemp() + "/b.sqlite3")
    >>> store.register("survey", 1.0, 1e-5, values=np.eye(3))
    >>> check_registered(Budget("survey", store), np.eye(3))
    >>> check_registered(Budget("survey", store), np.ones((3, 3)), "other.csv")
    Traceback (most recent call last):
    ...
    dppca._validation.DPPCAValueError: other.csv is not the dataset registered as 'survey' (its fingerprint differs): serve the file the budget was registered with
    """
    handle = budget_arg(budget)
    registered = handle.status()["fingerprint"]
    if registered is None:
        raise DPPCAValueError(
            f"the budget {handle.name!r} has no fingerprint, so the app cannot check that it "
            f"serves the data the budget belongs to: register the dataset with its file "
            f"(dppca budget init NAME --eps E --delta D --data FILE) and serve that budget")
    if handle.store.fingerprint(np.asarray(values, dtype=float)) != registered:
        raise DPPCAValueError(f"{source} is not the dataset registered as {handle.name!r} (its "
                              "fingerprint differs): serve the file the budget was registered with")


def _provided(X, group) -> AppData | None:
    """Check X and group as R's ``dppca_app`` does (§16.1) and prepare them."""
    if X is None:
        if group is not None:
            raise DPPCAValueError("`group` needs `X`: give the data too, or neither")
        return None
    if not isinstance(X, (pd.DataFrame, np.ndarray)):
        raise DPPCATypeError(f"`X` must be a pandas DataFrame or a 2-D numpy array (R: a data "
                             f"frame or matrix); got {type(X).__name__}")
    if np.ndim(X) != 2 or X.shape[0] < 2:
        raise DPPCAValueError(f"`X` must be a table with at least 2 rows; got shape {np.shape(X)}")
    if isinstance(group, str) and not isinstance(X, pd.DataFrame):
        raise DPPCAValueError("`group` names a column, so `X` must be a DataFrame (R: a data frame);"
                              " for a matrix give one label per row")
    if group is not None and not isinstance(group, str) and len(group) != X.shape[0]:
        raise DPPCAValueError(f"`group` must name a column of X or give one label per row "
                              f"({X.shape[0]}); got {len(group)} labels")
    try:
        return prepare(X, group, key="provided", label="provided data")
    except AppDataError as err:
        raise DPPCAValueError(f"`X`/`group`: {err}") from None


def _fixed_total(eps_total, delta_total):
    if eps_total is None and delta_total is None:
        return None
    if eps_total is None or delta_total is None:
        raise DPPCAValueError("give both `eps_total` and `delta_total` (a fixed session total), "
                              "or neither (set in the page)")
    return (float_arg(eps_total, "eps_total", positive=True),
            float_arg(delta_total, "delta_total", open_unit=True))


def create_app(X=None, group=None, *, eps_total=None, delta_total=None, budget=None,
               registered_values=None, source=None, user_header=None):
    """The Shiny ``App`` object (for ``shiny run`` or a test server).

    Parameters
    ----------
    X : pandas.DataFrame or 2-D numpy array, optional
        Data offered as "Provided data" (the default source when given), n >= 2.
    group : str or array_like of length n, optional
        A column name of X (a DataFrame) or one label per row. None: the first column named
        group, label, class, cluster, ... (the header only; cell values are never read).
        Every other column is a variable; a cell that is not a number is a missing cell (the
        page's "Missing cells" policy, passed as ``missing=`` to every run), inf an extreme one.
    eps_total, delta_total : float, optional
        A fixed session total for every dataset (the page then cannot change it). None: set
        in the page before the first run (default eps 5, delta 10^-(ceil(log10 n) + 1)).
    budget : dppca.privacy.Budget or str, optional
        The registered budget of ``X`` (:func:`dppca.budget` or a name in the default store):
        its total is the page's, and every session's runs on X are charged to it before they
        compute, so reloads, new tabs and restarts share one budget. This is operator mode: the
        page offers private runs of X only (no upload, no other source, no non-private option,
        each also refused on the server), and X must be the data the budget was registered
        with (:func:`check_registered`).
    registered_values : array_like, optional
        With ``budget``: the numeric values whose fingerprint is checked (default: X's numeric
        columns); the CLI passes the file as ``dppca budget init --data`` reads it.
    source : str, optional
        What the page calls the data it serves in operator mode (e.g. the file name).
    user_header : str, optional
        The HTTP header in which a reverse proxy in front of the app puts the analyst's name
        (e.g. ``X-Forwarded-User``): logged with every run charged to a store. A page opened
        without it can run nothing. None: runs are logged as the server's user.

    Returns
    -------
    shiny.App

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        X not a DataFrame or array, fewer than 2 rows, a bad group, fewer than 2 variables
        (columns other than the group column), only one of eps_total / delta_total, or (with
        ``budget``) data that are not the registered ones.

    Examples
    --------
    >>> from dppca import load_gau_g
    >>> app = create_app(load_gau_g(), "group", eps_total=3, delta_total=1e-6)
    >>> type(app).__name__
    'App'
    """
    require_app_extra()
    from shiny import App

    from .server import make_server
    from .ui import app_ui

    provided = _provided(X, group)
    fixed = _fixed_total(eps_total, delta_total)
    store, operator = None, None
    if budget is not None:
        if provided is None:
            raise DPPCAValueError("`budget` is the budget of the provided data: give X too")
        if fixed is not None:
            raise DPPCAValueError("`budget` brings its registered total: leave `eps_total` and "
                                  "`delta_total` out")
        store = budget_arg(budget)
        check_registered(store, _numeric(X) if registered_values is None else registered_values,
                         source or "X")
        status = store.status()
        fixed = (status["eps_total"], status["delta_total"])
        provided = replace(provided, label=f"{store.name} (registered)")
        operator = (str(source or "the provided data"), store.name)
    if user_header is not None and (not isinstance(user_header, str) or not user_header.strip()):
        raise DPPCAValueError(f"`user_header` must name an HTTP header (e.g. 'X-Forwarded-User'); "
                              f"got {user_header!r}")
    return App(app_ui(provided=provided is not None, fixed=fixed, operator=operator),
               make_server(provided, fixed, store, user_header=user_header))


def _numeric(X) -> np.ndarray:
    """X's numeric columns as float64 (how ``dppca budget init --data`` fingerprints a table)."""
    if isinstance(X, pd.DataFrame):
        return X.select_dtypes("number").to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(X, dtype=np.float64)


#: Host names and addresses that serve this machine only.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def check_host(host, allow_remote=False) -> str:
    """``host`` if it is a loopback interface or ``allow_remote`` is set; else a clear error.

    Raises
    ------
    DPPCAValueError
        A host beyond loopback (e.g. 0.0.0.0) without ``allow_remote=True`` (CLI:
        ``--allow-remote``).

    Examples
    --------
    >>> check_host("127.0.0.1")
    '127.0.0.1'
    >>> check_host("0.0.0.0", allow_remote=True)
    '0.0.0.0'
    """
    host = str(host)
    if allow_remote or host in LOOPBACK or host.startswith("127."):
        return host
    raise DPPCAValueError(f"host {host!r} would serve the app beyond this machine: pass "
                          "allow_remote=True (dppca app --allow-remote) and put authentication in "
                          "front of it (a reverse proxy; see docs/budget.md, 'The app')")


def run_app(X=None, group=None, *, eps_total=None, delta_total=None, host="127.0.0.1", port=8000,
            launch_browser=True, budget=None, allow_remote=False, registered_values=None,
            source=None, user_header=None):
    """Serve the app until interrupted (R: ``dppca_app(X = NULL, group = NULL)``).

    Parameters
    ----------
    X, group, eps_total, delta_total, budget, registered_values, source, user_header
        See :func:`create_app`.
    host : str
        Interface to bind; the default 127.0.0.1 serves this machine only.
    port : int
        TCP port (0 < port < 65536).
    launch_browser : bool
        Open the page in the default web browser.
    allow_remote : bool
        Needed to bind beyond loopback (e.g. ``host="0.0.0.0"``); put authentication in front
        (a reverse proxy, docs/budget.md).

    Returns
    -------
    None
        When the server stops.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        As :func:`create_app`, a bad port, or a host beyond loopback without ``allow_remote``;
        :class:`AppExtraMissing` without the ``app`` extra.

    Examples
    --------
    >>> from dppca.app import create_app
    >>> app = create_app()          # what run_app() serves
    >>> type(app).__name__
    'App'
    """
    require_app_extra()
    import uvicorn

    host = check_host(host, allow_remote)
    app = create_app(X, group, eps_total=eps_total, delta_total=delta_total, budget=budget,
                     registered_values=registered_values, source=source, user_header=user_header)
    port = int_arg(port, "port", 1, 65535)
    if launch_browser:  # once the server below has had a moment to start
        url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
        threading.Timer(1.5, webbrowser.open, args=(url,)).start()
    print(f"dppca app on http://{host}:{port}/ (Ctrl+C to stop)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
