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
are recognised as the same dataset; one dataset has one budget (a second name for the same numbers
is refused). Rows are only ever inserted, and the database itself enforces its ranges and its
append-only log (:mod:`dppca.privacy.store_schema`). A store that cannot be reached, read, written
or that lacks its tables raises :class:`BudgetStoreError` naming its location and what happened;
it is never recreated or reset, and only :meth:`BudgetStore.register` (``dppca budget init``)
creates a store, where there is none (no file; an empty PostgreSQL database).
"""
from __future__ import annotations

import dataclasses
import datetime
import getpass
import hashlib
import hmac
import json
import os
import socket

import numpy as np

from .._validation import DPPCAValueError, float_arg
from . import store_schema
from .filter import Charge, PrivacyFilter, Spent, run_arguments
from .store_engine import BudgetStoreError, StoreErrors, engine_of, shown_url, sqlite_path

#: Environment variable holding the store's URL (any SQLAlchemy URL).
URL_VARIABLE = "DPPCA_BUDGET_URL"


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
        Seconds to wait for another process's lock, or for the server, before
        :class:`BudgetStoreError`.

    Raises
    ------
    BudgetStoreError
        If the URL is malformed or its driver missing, or the database cannot be reached or
        opened, is not a budget store, or lacks some of its tables (it is then left as it is).
        Opening a location where there is no store is not an error: every method but
        :meth:`register` then raises :class:`BudgetStoreError` ("no budget store at ..."), and
        nothing is created there.

    See Also
    --------
    dppca.budget : A dataset's handle, the ``budget=`` of every private call.
    dppca.privacy.filter.PrivacyFilter : The rule each debit applies.
    dppca.privacy.store_schema : The rules the database itself enforces, and the roles.

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
        self.engine, self.location = engine_of(self.url, self.timeout)
        self.tables, self.version = None, None
        self._open()

    # ------------------------------------------------------------------ curator
    def register(self, name, eps, delta, gaussian_share=0.0, values=None, created_by=None,
                 force=False) -> None:
        """Register dataset ``name`` with its total (eps, delta), once; create the store if absent.

        ``name`` is normalised (surrounding blanks removed, case folded): ``"Survey "`` and
        ``"survey"`` are one dataset. ``values`` (the numeric data, shape (n, p)) adds the keyed
        fingerprint; the values are not stored. One dataset has one budget: numbers whose
        fingerprint is already registered under another name are refused, unless ``force`` (then
        the registration row says so in ``created_by``). Raises
        :class:`~dppca.DPPCAValueError` if the name or the data are already registered.
        """
        name = _name_arg(name)
        PrivacyFilter(eps, delta, gaussian_share)  # checks the totals
        self._create_if_absent()
        fingerprint = None if values is None else self.fingerprint(values)
        datasets = self.tables["datasets"]
        creator = created_by or caller_name()
        with self._guard("register"), self.engine.begin() as conn:
            rows = conn.execute(datasets.select()).all()
            if any(_normalised(row.name) == name for row in rows):
                raise DPPCAValueError(f"dataset {name!r} is already registered in the budget store "
                                      f"at {self.location}; its total is set once and cannot be "
                                      "changed")
            same = sorted(row.name for row in rows if fingerprint and row.fingerprint == fingerprint)
            if same and not force:
                raise DPPCAValueError(
                    f"these data are already registered as {', '.join(map(repr, same))} in the "
                    f"budget store at {self.location}: one dataset has one budget, and a second "
                    f"name would give the same numbers a fresh one. Charge {same[0]!r}; only if "
                    "the data really must have a second budget, register with --force "
                    "(force=True), which is logged")
            if same:
                creator += f" (--force: same fingerprint as {', '.join(map(repr, same))})"
            conn.execute(datasets.insert().values(
                name=name, eps_total=float(eps), delta_total=float(delta),
                gaussian_share=float(gaussian_share), fingerprint=fingerprint, created_at=_now(),
                created_by=creator))

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
    def debit(self, name, eps, delta, mu=None, function="", settings=None, caller=None,
              analyst=None) -> Charge:
        """Charge a run of (eps, delta) (mu-GDP when given) to ``name``, in one locked transaction.

        eps must be finite and >= 0, delta in [0, 1), mu None or finite and > 0 (a negative or
        infinite charge would give budget back; mu = 0 would charge nothing):
        :class:`~dppca.DPPCAValueError` naming the argument otherwise, and the database refuses
        such a row too. ``analyst`` (default: the OS user) is logged with ``caller``
        (``user@host`` of the process). Returns the :class:`~dppca.privacy.filter.Charge` with
        its log id as ``charge_id``; raises :class:`~dppca.privacy.filter.BudgetExhaustedError`
        (nothing charged) when the filter refuses.
        """
        eps, delta, mu = run_arguments(eps, delta, mu)
        self._require()
        datasets, charges = self.tables["datasets"], self.tables["charges"]
        through_functions = self._pg_functions()
        with self._guard("charge"), self.engine.begin() as conn:
            row = _dataset_row(conn, datasets, name, lock=not through_functions)
            if through_functions:  # the owner's function takes the row lock for this role
                import sqlalchemy as sa

                conn.execute(sa.select(sa.func.dppca_lock(row.name))).scalar()
                row = _dataset_row(conn, datasets, row.name)
            spent = _spent(conn, charges, row.name)
            charge = _filter(row).admit(spent, eps, delta, mu)
            values = dict(dataset=row.name, at=_now(), caller=caller or caller_name(),
                          analyst=analyst or os_user(), function=function,
                          settings=json.dumps(settings or {}, default=str, sort_keys=True),
                          eps=eps, delta=delta, mu=mu, stream=charge.stream,
                          charged_eps=charge.eps, charged_delta=charge.delta)
            charge_id = self._insert(conn, "charges", values, through_functions)
        return dataclasses.replace(charge, charge_id=charge_id)

    def record_outcome(self, charge_id, status, ledger=None) -> None:
        """Append what became of a charged run: ``status`` ("ok"/"failed: Error") and its ledger JSON."""
        self._require()
        values = dict(charge_id=int(charge_id), at=_now(), status=str(status)[:32],
                      ledger=None if ledger is None else json.dumps(ledger, default=str))
        with self._guard("record an outcome"), self.engine.begin() as conn:
            self._insert(conn, "outcomes", values, self._pg_functions())

    def status(self, name) -> dict:
        """Total, spent and left (public numbers) of dataset ``name``."""
        self._require()
        with self._guard("read"), self._read() as conn:
            row = _dataset_row(conn, self.tables["datasets"], name)
            spent = _spent(conn, self.tables["charges"], row.name)
        return {"name": row.name, **_filter(row).left(spent), "fingerprint": row.fingerprint,
                "created_at": row.created_at, "created_by": row.created_by}

    def datasets(self):
        """Every registered dataset with its total, spent and left: a pandas DataFrame."""
        import pandas as pd

        self._require()
        with self._guard("read"), self._read() as conn:
            names = [r.name for r in conn.execute(self.tables["datasets"].select()
                                                  .order_by(self.tables["datasets"].c.name))]
        columns = ["name", "eps_total", "delta_total", "gaussian_share", "eps_spent", "delta_spent",
                   "eps_left", "delta_left", "mu2_left", "runs"]
        return pd.DataFrame([self.status(n) for n in names], columns=columns)

    def find(self, values) -> str | None:
        """The name of the dataset whose fingerprint is that of ``values``, or None."""
        self._require()
        fingerprint, datasets = self.fingerprint(values), self.tables["datasets"]
        with self._guard("read"), self._read() as conn:
            row = conn.execute(datasets.select().where(datasets.c.fingerprint == fingerprint)
                               .order_by(datasets.c.created_at)).first()
        return None if row is None else row.name

    def log(self, name):
        """The release log of ``name``: one row per charged run with its outcome (pandas).

        Columns: the charge's (id, at, caller, analyst, function, settings, eps, delta, mu,
        stream, charged_eps, charged_delta), then ``status`` ("ok", "failed: ErrorClass", or
        "charged (no outcome recorded)" for a run killed before it could say) and ``ledger``
        (JSON).
        """
        import pandas as pd
        import sqlalchemy as sa

        self._require()
        charges, outcomes = self.tables["charges"], self.tables["outcomes"]
        query = (sa.select(charges, outcomes.c.status, outcomes.c.ledger)
                 .select_from(charges.outerjoin(outcomes, outcomes.c.charge_id == charges.c.id))
                 .order_by(charges.c.id))
        with self._guard("read"), self._read() as conn:
            row = _dataset_row(conn, self.tables["datasets"], name)
            rows = conn.execute(query.where(charges.c.dataset == row.name)).mappings().all()
        frame = pd.DataFrame(rows, columns=[c.name for c in charges.columns] + ["status", "ledger"])
        if "analyst" not in frame:  # a schema-1 store read as it is
            frame.insert(3, "analyst", "")
        frame["status"] = frame["status"].fillna("charged (no outcome recorded)")
        for column in ("ledger", "analyst"):  # text columns without None (R, CSV)
            frame[column] = frame[column].fillna("")
        return frame

    # ------------------------------------------------------------------ internals
    def _open(self) -> None:
        """Read the schema; upgrade a schema-1 store when this role may; nothing if absent."""
        import sqlalchemy as sa

        path = sqlite_path(self.url)
        if path is not None and not os.path.exists(path):
            return  # no store here (yet): never created implicitly
        if path is not None and os.path.getsize(path) == 0:
            raise BudgetStoreError(
                f"the budget store at {self.location} is an empty file (0 bytes), not a budget "
                "store: if it held one, it was truncated; restore it from its latest backup. It is "
                "not turned into a new empty store (that would give every dataset a fresh budget)")
        with self._guard("open"), self._read() as conn:
            existing = set(sa.inspect(conn).get_table_names())
            if not existing:
                return
            missing = set(store_schema.CORE_TABLES) - existing
            if missing:
                raise BudgetStoreError(
                    f"the database at {self.location} is not a complete budget store (tables "
                    f"{sorted(existing)}, missing {sorted(missing)}); it is left as it is")
            self.version = store_schema.version(conn, store_schema.tables(sa)["meta"])
        if self.version == "1":
            try:
                with self._guard("upgrade"), self.engine.begin() as conn:
                    if store_schema.version(conn, store_schema.tables(sa)["meta"]) == "1":
                        store_schema.upgrade(conn, _now())
                self.version = store_schema.SCHEMA_VERSION
            except BudgetStoreError:  # read-only, or a role that may not alter: read it as it is
                pass
        self.tables = store_schema.tables(sa, analyst_column=self.version != "1")

    def _create_if_absent(self) -> None:
        import sqlalchemy as sa

        if self.tables is None:
            self._open()
        if self.tables is not None:
            return
        tables = store_schema.tables(sa)
        with self._guard("create"), self.engine.begin() as conn:  # BEGIN IMMEDIATE on SQLite
            if not sa.inspect(conn).get_table_names():  # one process creates the tables
                store_schema.create(conn, tables, _now())
        if self.engine.dialect.name == "sqlite":  # write-ahead log: one fsync per commit (kept
            raw = self.engine.raw_connection()    # in the file; outside any transaction)
            try:
                raw.driver_connection.execute("PRAGMA journal_mode=WAL")
            finally:
                raw.close()
        self._open()

    def _require(self) -> None:
        """Raise unless there is a store at this location (re-checked: another process may
        have created it since)."""
        if self.tables is None:
            self._open()
        if self.tables is None:
            raise BudgetStoreError(
                f"there is no budget store at {self.location}: check the location (--store, "
                f"${URL_VARIABLE}); a curator creates a store by registering its first dataset "
                "(`dppca budget init NAME --eps E --delta D`). Nothing was created here")

    def _pg_functions(self) -> bool:
        return self.engine.dialect.name == "postgresql" and self.version != "1"

    def _insert(self, conn, table, values, through_functions) -> int:
        """Insert one row (a charge or an outcome), through the owner's function on PostgreSQL."""
        import sqlalchemy as sa

        columns = [c.name for c in self.tables[table].columns if c.name != "id"]
        values = {c: values.get(c) for c in columns}
        if through_functions:
            function = sa.func.dppca_charge if table == "charges" else sa.func.dppca_record_outcome
            return conn.execute(sa.select(function(*values.values()))).scalar()
        return conn.execute(self.tables[table].insert().values(**values)).inserted_primary_key[0]

    def _read(self):
        """A connection for reading: a plain (deferred) transaction on SQLite, so a read-only
        file or mount can still be read."""
        return self.engine.connect().execution_options(dppca_read=True)

    def _meta(self, key) -> str:
        self._require()
        meta = self.tables["meta"]
        with self._guard("read"), self._read() as conn:
            return conn.execute(meta.select().where(meta.c.key == key)).one().value

    def _guard(self, action):
        return StoreErrors(self.location, action)

    def __repr__(self) -> str:
        return f"BudgetStore({shown_url(self.url)!r})"


def os_user() -> str:
    """The OS user running this process (the log's default ``analyst``)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for the uid (containers)
        return str(os.getuid()) if hasattr(os, "getuid") else "unknown"


def caller_name() -> str:
    """``user@host`` of this process (the log's caller column)."""
    return f"{os_user()}@{socket.gethostname()}"


def _filter(row) -> PrivacyFilter:
    return PrivacyFilter(row.eps_total, row.delta_total, row.gaussian_share)


def _dataset_row(conn, datasets, name, lock=False):
    """The dataset's row, by its normalised name (or the name as given, for a store written
    before names were normalised)."""
    names = {str(name), _normalised(name)}
    query = datasets.select().where(datasets.c.name.in_(sorted(names))).order_by(datasets.c.name)
    row = conn.execute(query.with_for_update() if lock else query).first()
    if row is None:
        raise DPPCAValueError(f"no dataset {_normalised(name)!r} in the budget store; a curator "
                              "registers it first (`dppca budget init NAME --eps E --delta D`)")
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


def _normalised(name) -> str:
    """A dataset name as stored: surrounding blanks removed, case folded."""
    return str(name).strip().casefold()


def _name_arg(name) -> str:
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 200:
        raise DPPCAValueError(f"a dataset name must be a non-empty string of at most 200 "
                              f"characters; got {name!r}")
    return _normalised(name)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")



__all__ = ["BudgetStore", "BudgetStoreError", "URL_VARIABLE", "caller_name", "default_url",
           "os_user"]
