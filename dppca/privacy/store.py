"""The budget store: datasets, their totals and the append-only log of charged runs, in a database.

SQLite by default (``budget.sqlite3`` under the user's data directory, from :mod:`platformdirs`);
PostgreSQL for teams (a ``postgresql+psycopg://`` URL in ``DPPCA_BUDGET_URL`` or ``url=``).
SQLAlchemy speaks both dialects. A debit is one transaction that holds the dataset's lock while it
reads what was spent, asks the :class:`~dppca.privacy.filter.PrivacyFilter` and appends the charge:
``BEGIN IMMEDIATE`` on SQLite (the database's write lock), ``SELECT ... FOR UPDATE`` of the
dataset's row on PostgreSQL. So concurrent processes never overspend, and a charge is committed
before the run computes anything: a run that fails or is killed afterwards stays charged.

The store never holds data values: a dataset may carry a keyed fingerprint of its numeric values
(HMAC-SHA256 with the store's own key), so that the same numbers under another file name or header
are recognised as the same dataset. Rows are only ever inserted; on SQLite triggers refuse UPDATE
and DELETE. A store that cannot be read, written or that lacks its tables raises
:class:`BudgetStoreError`; it is never recreated or reset.
"""
from __future__ import annotations

import dataclasses
import datetime
import functools
import getpass
import hashlib
import hmac
import json
import os
import secrets
import socket

import numpy as np

from .._validation import DPPCAValueError, float_arg
from .filter import PrivacyFilter, Spent

#: Environment variable holding the store's URL (any SQLAlchemy URL).
URL_VARIABLE = "DPPCA_BUDGET_URL"
SCHEMA_VERSION = "1"


class BudgetStoreError(RuntimeError):
    """The budget store cannot be used (locked, read-only, corrupted, missing tables, unknown URL).

    The store is never reset or recreated after this error: what was spent stays spent.

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


def default_url() -> str:
    """``DPPCA_BUDGET_URL`` when set, else SQLite under the user's data directory (platformdirs)."""
    if os.environ.get(URL_VARIABLE):
        return os.environ[URL_VARIABLE]
    import platformdirs

    return "sqlite:///" + os.path.join(platformdirs.user_data_dir("dppca", ensure_exists=True),
                                       "budget.sqlite3")


class BudgetStore:
    """A database of datasets, their total (eps, delta) and the runs charged to them.

    Parameters
    ----------
    url : str, optional
        A SQLAlchemy URL (``sqlite:///path``, ``postgresql+psycopg://user@host/db``); default
        :func:`default_url`.
    timeout : float
        Seconds to wait for another process's lock before :class:`BudgetStoreError`.

    Raises
    ------
    BudgetStoreError
        If the URL is malformed or its driver missing, or the database cannot be opened, is not a
        budget store, or lacks some of its tables (it is then left as it is).

    See Also
    --------
    dppca.budget : A dataset's handle, the ``budget=`` of every private call.
    dppca.privacy.filter.PrivacyFilter : The rule each debit applies.

    Examples
    --------
    >>> import os, tempfile
    >>> from dppca.privacy.store import BudgetStore
    >>> path = os.path.join(tempfile.mkdtemp(), "budget.sqlite3")
    >>> store = BudgetStore("sqlite:///" + path)
    >>> store.register("survey", eps=2.0, delta=1e-5)
    >>> store.debit("survey", 1.0, 1e-6, function="example").stream
    'basic'
    >>> store.status("survey")["eps_left"]
    1.0
    """

    def __init__(self, url=None, timeout=30.0):
        self.url = str(url or default_url())
        self.timeout = float_arg(timeout, "timeout", positive=True)
        self.engine, self.tables = _engine(self.url, self.timeout)
        with self._guard("open"):
            _check_schema(self.engine, self.tables)

    # ------------------------------------------------------------------ curator
    def register(self, name, eps, delta, gaussian_share=0.0, values=None, created_by=None) -> None:
        """Register dataset ``name`` with its total (eps, delta), once.

        ``values`` (the numeric data, shape (n, p)) adds the keyed fingerprint; the values are
        not stored. Raises :class:`~dppca.DPPCAValueError` if the name is taken.
        """
        name = _name_arg(name)
        PrivacyFilter(eps, delta, gaussian_share)  # checks the totals
        fingerprint = None if values is None else self.fingerprint(values)
        datasets = self.tables["datasets"]
        with self._guard("register"), self.engine.begin() as conn:
            if conn.execute(datasets.select().where(datasets.c.name == name)).first():
                raise DPPCAValueError(f"dataset {name!r} is already registered; its total is set "
                                      "once and cannot be changed")
            conn.execute(datasets.insert().values(
                name=name, eps_total=float(eps), delta_total=float(delta),
                gaussian_share=float(gaussian_share), fingerprint=fingerprint, created_at=_now(),
                created_by=created_by or caller_name()))

    def fingerprint(self, values) -> str:
        """Keyed hash (HMAC-SHA256, the store's key) of the canonical form of numeric ``values``.

        Canonical form: float64, -0.0 as 0.0, rows sorted, with the shape; so column names,
        file names, row order and text formatting do not change it, and any changed value does.
        """
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 2:
            raise DPPCAValueError(f"`values` must be 2-D (rows x columns); got {values.ndim}-D")
        values = values + 0.0  # -0.0 -> 0.0
        rows = values[np.lexsort(values.T[::-1])] if values.size else values
        digest = hmac.new(bytes.fromhex(self._meta("fingerprint_key")), digestmod=hashlib.sha256)
        digest.update(np.asarray(values.shape, dtype="<i8").tobytes())
        digest.update(np.ascontiguousarray(rows, dtype="<f8").tobytes())
        return digest.hexdigest()

    # ------------------------------------------------------------------ analysts
    def debit(self, name, eps, delta, mu=None, function="", settings=None, caller=None) -> Charge:
        """Charge a run of (eps, delta) (mu-GDP when given) to ``name``, in one locked transaction.

        Returns the :class:`~dppca.privacy.filter.Charge` with its log id as ``charge_id``;
        raises :class:`~dppca.privacy.filter.BudgetExhaustedError` (nothing charged) when the
        filter refuses.
        """
        datasets, charges = self.tables["datasets"], self.tables["charges"]
        with self._guard("debit"), self.engine.begin() as conn:
            row = _dataset_row(conn, datasets, name, lock=True)
            spent = _spent(conn, charges, name)
            charge = _filter(row).admit(spent, float(eps), float(delta), mu)
            result = conn.execute(charges.insert().values(
                dataset=row.name, at=_now(), caller=caller or caller_name(), function=function,
                settings=json.dumps(settings or {}, default=str, sort_keys=True),
                eps=float(eps), delta=float(delta), mu=None if mu is None else float(mu),
                stream=charge.stream, charged_eps=charge.eps, charged_delta=charge.delta))
        return dataclasses.replace(charge, charge_id=result.inserted_primary_key[0])

    def record_outcome(self, charge_id, status, ledger=None) -> None:
        """Append what became of a charged run: ``status`` ("ok"/"failed") and its ledger JSON."""
        with self._guard("record"), self.engine.begin() as conn:
            conn.execute(self.tables["outcomes"].insert().values(
                charge_id=int(charge_id), at=_now(), status=str(status),
                ledger=None if ledger is None else json.dumps(ledger, default=str)))

    def status(self, name) -> dict:
        """Total, spent and left (public numbers) of dataset ``name``."""
        with self._guard("read"), self.engine.connect() as conn:
            row = _dataset_row(conn, self.tables["datasets"], name)
            spent = _spent(conn, self.tables["charges"], name)
        return {"name": row.name, **_filter(row).left(spent), "fingerprint": row.fingerprint,
                "created_at": row.created_at, "created_by": row.created_by}

    def datasets(self):
        """Every registered dataset with its total, spent and left: a pandas DataFrame."""
        import pandas as pd

        with self._guard("read"), self.engine.connect() as conn:
            names = [r.name for r in conn.execute(self.tables["datasets"].select()
                                                  .order_by(self.tables["datasets"].c.name))]
        columns = ["name", "eps_total", "delta_total", "gaussian_share", "eps_spent", "delta_spent",
                   "eps_left", "delta_left", "mu2_left", "runs"]
        return pd.DataFrame([self.status(n) for n in names], columns=columns)

    def find(self, values) -> str | None:
        """The name of the dataset whose fingerprint is that of ``values``, or None."""
        fingerprint, datasets = self.fingerprint(values), self.tables["datasets"]
        with self._guard("read"), self.engine.connect() as conn:
            row = conn.execute(datasets.select().where(datasets.c.fingerprint == fingerprint)).first()
        return None if row is None else row.name

    def log(self, name):
        """The release log of ``name``: one row per charged run with its outcome (pandas)."""
        import pandas as pd
        import sqlalchemy as sa

        charges, outcomes = self.tables["charges"], self.tables["outcomes"]
        query = (sa.select(charges, outcomes.c.status, outcomes.c.ledger)
                 .select_from(charges.outerjoin(outcomes, outcomes.c.charge_id == charges.c.id))
                 .where(charges.c.dataset == name).order_by(charges.c.id))
        with self._guard("read"), self.engine.connect() as conn:
            _dataset_row(conn, self.tables["datasets"], name)
            rows = conn.execute(query).mappings().all()
        frame = pd.DataFrame(rows, columns=[c.name for c in charges.columns] + ["status", "ledger"])
        frame["status"] = frame["status"].fillna("charged (no outcome recorded)")
        frame["ledger"] = frame["ledger"].fillna("")  # text columns without None (R, CSV)
        return frame

    # ------------------------------------------------------------------ internals
    def _meta(self, key) -> str:
        meta = self.tables["meta"]
        with self._guard("read"), self.engine.connect() as conn:
            return conn.execute(meta.select().where(meta.c.key == key)).one().value

    def _guard(self, action):
        return _StoreErrors(self.url, action)

    def __repr__(self) -> str:
        return f"BudgetStore({_shown_url(self.url)!r})"


class _StoreErrors:
    """Turns the driver's errors into one clear BudgetStoreError (never a reset)."""

    def __init__(self, url, action):
        self.url, self.action = url, action

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        import sqlalchemy.exc

        if error is None or not isinstance(error, sqlalchemy.exc.SQLAlchemyError):
            return False
        text = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        hint = ("another process holds the store's lock; try again" if "locked" in text else
                "the store is read-only: the budget cannot be charged" if "readonly" in text
                or "read-only" in text else
                "the store is damaged; restore it from a backup (it is not reset)")
        raise BudgetStoreError(f"the budget store {_shown_url(self.url)} cannot {self.action}: "
                               f"{text} ({hint})") from error


def caller_name() -> str:
    """``user@host`` of this process (the log's caller column)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for the uid (containers)
        user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
    return f"{user}@{socket.gethostname()}"


def _filter(row) -> PrivacyFilter:
    return PrivacyFilter(row.eps_total, row.delta_total, row.gaussian_share)


def _dataset_row(conn, datasets, name, lock=False):
    query = datasets.select().where(datasets.c.name == str(name))
    row = conn.execute(query.with_for_update() if lock else query).first()
    if row is None:
        raise DPPCAValueError(f"no dataset {name!r} in the budget store; a curator registers it "
                              "first (`dppca budget init NAME --eps E --delta D`)")
    return row


def _spent(conn, charges, name) -> Spent:
    """The database's sums of the dataset's charges (one scan, in SQL; rounding as in Spent)."""
    import sqlalchemy as sa

    basic, gaussian = charges.c.stream == "basic", charges.c.stream == "gaussian"
    row = conn.execute(sa.select(
        sa.func.coalesce(sa.func.sum(sa.case((gaussian, charges.c.mu * charges.c.mu), else_=0.0)), 0.0),
        sa.func.coalesce(sa.func.sum(sa.case((basic, charges.c.charged_eps), else_=0.0)), 0.0),
        sa.func.coalesce(sa.func.sum(sa.case((basic, charges.c.charged_delta), else_=0.0)), 0.0),
        sa.func.count()).where(charges.c.dataset == str(name))).one()
    return Spent(float(row[0]), float(row[1]), float(row[2]), int(row[3]))


def _name_arg(name) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise DPPCAValueError(f"a dataset name must be a non-empty string of at most 200 "
                              f"characters; got {name!r}")
    return name


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def _shown_url(url) -> str:
    """The URL without its password."""
    try:
        import sqlalchemy as sa

        return sa.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a malformed URL is shown as given
        return str(url)


@functools.lru_cache(maxsize=None)
def _engine(url, timeout):
    """One engine per URL and process (SQLAlchemy pools connections within it)."""
    import sqlalchemy as sa

    try:
        parsed = sa.make_url(url)
        sqlite = parsed.get_backend_name() == "sqlite"
        engine = sa.create_engine(url, connect_args={"timeout": timeout} if sqlite else
                                  {"connect_timeout": max(1, int(timeout))})
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as error:
        raise BudgetStoreError(f"the budget store URL {_shown_url(url)!r} cannot be used: "
                               f"{error}") from error
    if sqlite:
        _sqlite_immediate(engine)
    return engine, _tables(sa)


def _sqlite_immediate(engine):
    """SQLite: the driver's own transaction handling off, every transaction BEGIN IMMEDIATE
    (the write lock is taken first, so two debits cannot both read the old spend)."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, record):
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _tables(sa) -> dict:
    metadata = sa.MetaData()
    text, real = sa.String(400), sa.Float(precision=53)
    sa.Table("meta", metadata, sa.Column("key", sa.String(64), primary_key=True),
             sa.Column("value", text, nullable=False))
    sa.Table("datasets", metadata, sa.Column("name", sa.String(200), primary_key=True),
             sa.Column("eps_total", real, nullable=False), sa.Column("delta_total", real, nullable=False),
             sa.Column("gaussian_share", real, nullable=False),
             sa.Column("fingerprint", sa.String(64), index=True),
             sa.Column("created_at", text, nullable=False), sa.Column("created_by", text))
    sa.Table("charges", metadata, sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
             sa.Column("dataset", sa.String(200), sa.ForeignKey("datasets.name"), nullable=False,
                       index=True),
             sa.Column("at", text, nullable=False), sa.Column("caller", text),
             sa.Column("function", text), sa.Column("settings", sa.Text),
             sa.Column("eps", real, nullable=False), sa.Column("delta", real, nullable=False),
             sa.Column("mu", real), sa.Column("stream", sa.String(16), nullable=False),
             sa.Column("charged_eps", real, nullable=False),
             sa.Column("charged_delta", real, nullable=False))
    sa.Table("outcomes", metadata, sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
             sa.Column("charge_id", sa.Integer, sa.ForeignKey("charges.id"), nullable=False,
                       index=True),
             sa.Column("at", text, nullable=False), sa.Column("status", sa.String(32)),
             sa.Column("ledger", sa.Text))
    return dict(metadata.tables)


def _check_schema(engine, tables):
    """Create the tables in an empty database; refuse a database that has some but not all."""
    import sqlalchemy as sa

    ours = set(tables)
    if ours <= set(sa.inspect(engine).get_table_names()):
        return
    metadata = next(iter(tables.values())).metadata
    with engine.begin() as conn:  # BEGIN IMMEDIATE on SQLite: one process creates the tables
        existing = set(sa.inspect(conn).get_table_names())
        if ours <= existing:
            return
        if existing:
            raise BudgetStoreError(f"the database {_shown_url(engine.url)} is not a complete "
                                   f"budget store (tables {sorted(existing)}); it is left as it is")
        metadata.create_all(conn)
        conn.execute(tables["meta"].insert(), [{"key": "schema_version", "value": SCHEMA_VERSION},
                                              {"key": "fingerprint_key",
                                               "value": secrets.token_hex(32)}])
        if engine.dialect.name == "sqlite":
            for table in ("datasets", "charges", "outcomes", "meta"):
                for action in ("UPDATE", "DELETE"):
                    conn.exec_driver_sql(
                        f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                        f"BEGIN SELECT RAISE(ABORT, 'the budget store is append-only'); END")
    if engine.dialect.name == "sqlite":  # write-ahead log: one fsync per commit (kept in the file)
        raw = engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()


__all__ = ["BudgetStore", "BudgetStoreError", "URL_VARIABLE", "caller_name", "default_url"]
