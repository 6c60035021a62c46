"""Connecting to the budget store's database, and saying what went wrong, and where.

One SQLAlchemy engine per URL and process; SQLite transactions that take the write lock first
(``BEGIN IMMEDIATE``) for a charge and a plain ``BEGIN`` for a read, so a read-only file or mount
can still be read; and :class:`StoreErrors`, which turns a driver's error into one
:class:`BudgetStoreError` naming the store's location and what happened: unreachable, locked,
read-only, refused by a rule or a role, or damaged (only then: restore a backup).
"""
from __future__ import annotations

import functools
import os


class BudgetStoreError(RuntimeError):
    """The budget store cannot be used: absent, unreachable, locked, read-only, damaged, unknown URL.

    The message names the store's location and which of these happened. The store is never
    reset or recreated after this error: what was spent stays spent.

    See Also
    --------
    BudgetStore : The store.

    Examples
    --------
    >>> from dppca.privacy.store import BudgetStore, BudgetStoreError
    >>> try:
    ...     BudgetStore("nosuchdb://x")
    ... except BudgetStoreError as error:
    ...     print("budget store" in str(error))
    True
    """


class StoreErrors:
    """Turns the driver's errors into one BudgetStoreError that says what happened, and where."""

    def __init__(self, location, action):
        self.location, self.action = location, action

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        import sqlalchemy.exc

        if error is None or not isinstance(error, sqlalchemy.exc.SQLAlchemyError):
            return False
        text = (str(getattr(error, "orig", None) or error).strip().splitlines() or [""])[0]
        raise BudgetStoreError(f"the budget store at {self.location} cannot {self.action}: "
                               f"{text} ({_diagnosis(text, error)})") from error


def _diagnosis(text, error) -> str:
    """What the driver's message means for the user: unreachable, locked, read-only, refused by
    a rule or a role, or damaged (only then: restore a backup)."""
    low = text.lower()
    if "append-only" in low:
        return "the store's rows are never changed or deleted"
    if "check constraint" in low or "violates check" in low:
        return "the database refuses a value out of range"
    if "locked" in low or "lock timeout" in low:
        return "another process holds the store's lock; try again. Nothing was charged"
    if "readonly" in low or "read-only" in low:
        return ("the store is read-only here (file, folder or mount): it can be read (budget "
                "show, list, log) but not charged. It is not damaged")
    if "permission denied" in low or "must be owner" in low:
        return ("this database role may not do that: analysts are charged through the store's "
                "functions, only the owner registers datasets (docs/budget.md, roles). The store "
                "is not damaged")
    if getattr(error, "connection_invalidated", False) or any(word in low for word in (
            "could not connect", "connection refused", "connection failed", "server closed",
            "terminating connection", "connection is closed", "timeout expired",
            "is the server running", "no such file or directory")):
        return ("the database server cannot be reached: is it running, and is the URL right? "
                "The store is not damaged and nothing was charged; try again when it is up")
    if "unable to open database file" in low:
        return ("the file or its folder cannot be opened (missing folder, or no permission); "
                "nothing was charged")
    return ("the store looks damaged: ask its curator to restore the latest backup (restoring an "
            "older one loses the debits made since); it is never reset")


def shown_url(url) -> str:
    """The URL without its password."""
    try:
        import sqlalchemy as sa

        return sa.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a malformed URL is shown as given
        return str(url)


def sqlite_path(url) -> str | None:
    """The absolute path of a SQLite store's file (None for other back ends and in-memory)."""
    import sqlalchemy as sa

    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    database = parsed.database
    if database.startswith("file:"):  # a URI filename (uri=true): the path before its query
        database = database[len("file:"):].split("?")[0]
    return os.path.abspath(database)


@functools.lru_cache(maxsize=None)
def engine_of(url, timeout):
    """One engine per URL and process (SQLAlchemy pools connections within it), and the
    store's location as messages show it (a SQLite file's path; a URL without its password)."""
    import sqlalchemy as sa

    try:
        parsed = sa.make_url(url)
        sqlite = parsed.get_backend_name() == "sqlite"
        path = sqlite_path(url)
        read_only = path is not None and os.path.exists(path) and not (
            os.access(path, os.W_OK) and os.access(os.path.dirname(path), os.W_OK))
        extra = {"creator": functools.partial(_read_only_sqlite, path, timeout)} if read_only else {}
        engine = sa.create_engine(url, connect_args={"timeout": timeout} if sqlite else
                                  {"connect_timeout": max(1, int(timeout))}, **extra)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as error:
        raise BudgetStoreError(f"the budget store URL {shown_url(url)!r} cannot be used: "
                               f"{error}") from error
    if sqlite:
        _sqlite_transactions(engine)
    return engine, (f"SQLite file {path}" + (" (read-only here)" if read_only else "")
                    if path else shown_url(url))


def _read_only_sqlite(path, timeout):
    """A connection to a SQLite store on a read-only file, folder or mount (show, list and log
    still work; a charge is refused as read-only). A write-ahead-log store there cannot create
    its shared-memory file, so it is opened ``immutable`` when its log file is absent or empty
    (then the main file holds every committed charge); with a non-empty log that would hide the
    latest charges, the store is not read here."""
    import sqlite3
    import urllib.parse

    uri = "file:" + urllib.parse.quote(path)
    connection = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=timeout)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.OperationalError:
        connection.close()
    wal = path + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        raise sqlite3.OperationalError(
            "unable to open database file: the store is read-only here and its write-ahead log "
            f"{wal} holds charges not yet in the main file; read it where it is writable")
    return sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, timeout=timeout)


def _sqlite_transactions(engine):
    """SQLite: the driver's own transaction handling off; a write transaction is BEGIN IMMEDIATE
    (the write lock is taken first, so two debits cannot both read the old spend), a read
    (``dppca_read``) a plain BEGIN, which a read-only file or mount allows."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, record):
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get("dppca_read")
                             else "BEGIN IMMEDIATE")



__all__ = ["BudgetStoreError", "StoreErrors", "engine_of", "shown_url", "sqlite_path"]
