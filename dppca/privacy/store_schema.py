"""The budget store's schema: tables, the rules the database itself enforces, and the upgrade.

The store does not rely on its Python client to keep its rows sane. The database enforces:

* **ranges** (CHECK constraints, on SQLite and PostgreSQL): totals eps > 0 finite, delta and the
  Gaussian share in [0, 1); charges eps >= 0 finite, delta in [0, 1), mu NULL or > 0 finite,
  the filter ``basic`` or ``gaussian``, amounts charged >= 0 finite. A negative or infinite
  charge would give budget back (a charge of -inf makes every later run fit); mu = 0 charges
  nothing on the Gaussian filter (mu^2 = 0) however often it is run. Finite means at most the
  largest double, 1.7976931348623157e308: infinity and NaN compare false with it (PostgreSQL
  orders NaN above every number; SQLite stores NaN as NULL, which NOT NULL refuses);
* **append-only** tables: triggers refuse UPDATE and DELETE (and TRUNCATE on PostgreSQL), so a
  spend can never be taken back by rewriting the log;
* on PostgreSQL, **charges only through functions**: ``dppca_lock`` (the dataset's row lock),
  ``dppca_charge`` and ``dppca_record_outcome`` run as the store's owner (SECURITY DEFINER), so
  an analyst role granted only SELECT and EXECUTE (:func:`postgres_grants`) can be charged and
  record outcomes, but cannot insert, update or delete a row of any table itself.

Stores created by schema version 1 (no constraints, no PostgreSQL triggers or functions, no
``analyst`` column) are upgraded when a role that may alter them opens them
(:func:`upgrade`): the rules are added (on SQLite as BEFORE INSERT triggers, since SQLite
cannot add a CHECK constraint to an existing table; on PostgreSQL as ``NOT VALID``
constraints, which check every new row and leave old rows as they were logged), and a
``schema 2`` row is appended to ``meta``.
"""
from __future__ import annotations

import secrets

SCHEMA_VERSION = "2"
#: The tables every store has (schema 1 and 2).
CORE_TABLES = ("meta", "datasets", "charges", "outcomes")
#: The largest finite double: ``x <= FINITE`` is false for infinity and NaN.
FINITE = "1.7976931348623157e308"
#: Range rules per table: (name, SQL condition), the same text on both back ends; ``{n}`` is the
#: column prefix ("" in a CHECK constraint, "NEW." in a SQLite trigger).
RULES = {
    "datasets": [
        ("eps_total", f"{{n}}eps_total > 0 AND {{n}}eps_total <= {FINITE}"),
        ("delta_total", "{n}delta_total >= 0 AND {n}delta_total < 1"),
        ("gaussian_share", "{n}gaussian_share >= 0 AND {n}gaussian_share < 1"),
    ],
    "charges": [
        ("eps", f"{{n}}eps >= 0 AND {{n}}eps <= {FINITE}"),
        ("delta", "{n}delta >= 0 AND {n}delta < 1"),
        ("mu", f"{{n}}mu IS NULL OR ({{n}}mu > 0 AND {{n}}mu <= {FINITE})"),
        ("stream", "{n}stream IN ('basic', 'gaussian')"),
        ("charged_eps", f"{{n}}charged_eps >= 0 AND {{n}}charged_eps <= {FINITE}"),
        ("charged_delta", "{n}charged_delta >= 0 AND {n}charged_delta < 1"),
    ],
}
#: PostgreSQL functions an analyst role may execute (signatures for GRANT).
PG_FUNCTIONS = ("dppca_lock(text)",
                "dppca_charge(text, text, text, text, text, text, double precision, "
                "double precision, double precision, text, double precision, double precision)",
                "dppca_record_outcome(integer, text, text, text)")


def tables(sa, analyst_column=True) -> dict:
    """The SQLAlchemy tables (with their CHECK constraints); ``analyst_column`` False for a
    schema-1 store that could not be upgraded (read as it is)."""
    metadata = sa.MetaData()
    text, real = sa.String(400), sa.Float(precision=53)

    def checks(table):
        return [sa.CheckConstraint(rule.format(n=""), name=f"ck_{table}_{column}")
                for column, rule in RULES.get(table, [])]

    sa.Table("meta", metadata, sa.Column("key", sa.String(64), primary_key=True),
             sa.Column("value", text, nullable=False))
    sa.Table("datasets", metadata, sa.Column("name", sa.String(200), primary_key=True),
             sa.Column("eps_total", real, nullable=False), sa.Column("delta_total", real, nullable=False),
             sa.Column("gaussian_share", real, nullable=False),
             sa.Column("fingerprint", sa.String(64), index=True),
             sa.Column("created_at", text, nullable=False), sa.Column("created_by", text),
             *checks("datasets"))
    sa.Table("charges", metadata, sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
             sa.Column("dataset", sa.String(200), sa.ForeignKey("datasets.name"), nullable=False,
                       index=True),
             sa.Column("at", text, nullable=False), sa.Column("caller", text),
             *([sa.Column("analyst", text)] if analyst_column else []),
             sa.Column("function", text), sa.Column("settings", sa.Text),
             sa.Column("eps", real, nullable=False), sa.Column("delta", real, nullable=False),
             sa.Column("mu", real), sa.Column("stream", sa.String(16), nullable=False),
             sa.Column("charged_eps", real, nullable=False),
             sa.Column("charged_delta", real, nullable=False), *checks("charges"))
    sa.Table("outcomes", metadata, sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
             sa.Column("charge_id", sa.Integer, sa.ForeignKey("charges.id"), nullable=False,
                       index=True),
             sa.Column("at", text, nullable=False), sa.Column("status", sa.String(32)),
             sa.Column("ledger", sa.Text))
    return dict(metadata.tables)


def version(conn, meta) -> str:
    """``"2"`` for a store created or upgraded by schema 2, else ``"1"``."""
    keys = {row.key: row.value for row in conn.execute(meta.select())}
    return SCHEMA_VERSION if keys.get("schema_version") == SCHEMA_VERSION or "schema 2" in keys \
        else "1"


def create(conn, table_map, now) -> None:
    """Create a schema-2 store in an empty database (inside the caller's transaction)."""
    next(iter(table_map.values())).metadata.create_all(conn)
    conn.execute(table_map["meta"].insert(), [
        {"key": "schema_version", "value": SCHEMA_VERSION},
        {"key": "fingerprint_key", "value": secrets.token_hex(32)},
        {"key": "created_at", "value": now}])
    _append_only(conn)
    if conn.dialect.name == "postgresql":
        _pg_functions(conn)


def upgrade(conn, now) -> None:
    """Bring a schema-1 store to schema 2 (inside the caller's transaction; see the module)."""
    conn.exec_driver_sql("ALTER TABLE charges ADD COLUMN analyst VARCHAR(400)")
    if conn.dialect.name == "sqlite":
        for table, rules in RULES.items():
            condition = " AND ".join(f"({rule.format(n='NEW.')})" for _, rule in rules)
            conn.exec_driver_sql(
                f"CREATE TRIGGER {table}_ranges BEFORE INSERT ON {table} WHEN NOT ({condition}) "
                f"BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: {table} ranges'); END")
        _append_only(conn)  # schema 1 had these on SQLite: created only where missing
    else:
        for table, rules in RULES.items():
            for column, rule in rules:
                conn.exec_driver_sql(f"ALTER TABLE {table} ADD CONSTRAINT ck_{table}_{column} "
                                     f"CHECK ({rule.format(n='')}) NOT VALID")
        _append_only(conn)
        _pg_functions(conn)
    conn.exec_driver_sql(f"INSERT INTO meta (key, value) VALUES ('schema 2', '{now}')")


def _append_only(conn) -> None:
    if conn.dialect.name == "sqlite":
        for table in CORE_TABLES:
            for action in ("UPDATE", "DELETE"):
                conn.exec_driver_sql(
                    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{action.lower()} BEFORE {action} "
                    f"ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, 'the budget store is append-only'); END")
        return
    conn.exec_driver_sql(
        "CREATE OR REPLACE FUNCTION dppca_append_only() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN RAISE EXCEPTION 'the budget store is append-only'; END$$")
    for table in CORE_TABLES:
        conn.exec_driver_sql(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE OR "
                             f"TRUNCATE ON {table} FOR EACH STATEMENT "
                             "EXECUTE FUNCTION dppca_append_only()")


def _pg_functions(conn) -> None:
    """The three SECURITY DEFINER functions (run as the owner; search_path pinned to this
    schema so a caller's objects cannot stand in for the store's tables)."""
    schema = conn.exec_driver_sql("SELECT current_schema()").scalar()
    definer = f"LANGUAGE plpgsql SECURITY DEFINER SET search_path = {schema}, pg_temp AS "
    conn.exec_driver_sql(
        "CREATE OR REPLACE FUNCTION dppca_lock(p_dataset text) RETURNS boolean " + definer +
        "$$BEGIN PERFORM 1 FROM datasets WHERE name = p_dataset FOR UPDATE; RETURN FOUND; END$$")
    conn.exec_driver_sql(
        "CREATE OR REPLACE FUNCTION dppca_charge(p_dataset text, p_at text, p_caller text, "
        "p_analyst text, p_function text, p_settings text, p_eps double precision, "
        "p_delta double precision, p_mu double precision, p_stream text, "
        "p_charged_eps double precision, p_charged_delta double precision) RETURNS integer "
        + definer + "$$DECLARE new_id integer; BEGIN "
        "PERFORM 1 FROM datasets WHERE name = p_dataset FOR UPDATE; "
        "IF NOT FOUND THEN RAISE EXCEPTION USING MESSAGE = 'no dataset ' || quote_literal(p_dataset) "
        "|| ' in the budget store'; END IF; "
        "INSERT INTO charges (dataset, at, caller, analyst, function, settings, eps, delta, mu, "
        "stream, charged_eps, charged_delta) VALUES (p_dataset, p_at, p_caller, p_analyst, "
        "p_function, p_settings, p_eps, p_delta, p_mu, p_stream, p_charged_eps, p_charged_delta) "
        "RETURNING id INTO new_id; RETURN new_id; END$$")
    conn.exec_driver_sql(
        "CREATE OR REPLACE FUNCTION dppca_record_outcome(p_charge_id integer, p_at text, "
        "p_status text, p_ledger text) RETURNS integer " + definer +
        "$$DECLARE new_id integer; BEGIN INSERT INTO outcomes (charge_id, at, status, ledger) "
        "VALUES (p_charge_id, p_at, p_status, p_ledger) RETURNING id INTO new_id; "
        "RETURN new_id; END$$")
    for function in PG_FUNCTIONS:
        conn.exec_driver_sql(f"REVOKE ALL ON FUNCTION {function} FROM PUBLIC")


def postgres_grants(role: str, kind: str = "analyst") -> list[str]:
    """The SQL the store's owner runs to give PostgreSQL role ``role`` its rights.

    Parameters
    ----------
    role : str
        An existing PostgreSQL role (a plain identifier).
    kind : {"analyst", "auditor"}
        ``"analyst"``: read every table and be charged (EXECUTE on the three functions), never
        write a row directly. ``"auditor"``: read every table only.

    Returns
    -------
    list of str
        GRANT statements, in order.

    Raises
    ------
    DPPCAValueError
        If ``role`` is not a plain identifier or ``kind`` is unknown.

    Examples
    --------
    >>> from dppca.privacy.store_schema import postgres_grants
    >>> postgres_grants("alice", "auditor")[1]
    'GRANT SELECT ON meta, datasets, charges, outcomes TO alice'
    """
    from .._validation import DPPCAValueError, option_arg

    option_arg(kind, "kind", ("analyst", "auditor"))
    if not isinstance(role, str) or not role.isidentifier():
        raise DPPCAValueError(f"`role` must be a plain identifier (letters, digits, _); got {role!r}")
    grants = ["GRANT USAGE ON SCHEMA public TO " + role,
              f"GRANT SELECT ON {', '.join(CORE_TABLES)} TO {role}"]
    if kind == "analyst":
        grants += [f"GRANT EXECUTE ON FUNCTION {function} TO {role}" for function in PG_FUNCTIONS]
    return grants


__all__ = ["CORE_TABLES", "SCHEMA_VERSION", "create", "postgres_grants", "tables", "upgrade",
           "version"]
