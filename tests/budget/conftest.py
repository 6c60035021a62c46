"""Budget stores for the tests: SQLite in a temporary folder, and a throwaway PostgreSQL cluster
(pg_cluster.py; Debian's ``postgresql``, which tools/install_system_deps.sh installs for
``make test``), started once per session and deleted at its end."""
import hashlib

import pytest

from .pg_cluster import postgres_bin, throwaway_cluster


@pytest.fixture(scope="session")
def postgres_url():
    """URL of a fresh database in a throwaway cluster (skipped without the PostgreSQL binaries)."""
    if postgres_bin() is None:
        pytest.skip("PostgreSQL binaries absent (Debian package postgresql; `make test` installs it)")
    pytest.importorskip("psycopg", reason="psycopg (the [postgresql] extra) is not installed")
    with throwaway_cluster() as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path):
    """URL of a new SQLite store in the test's temporary folder."""
    return "sqlite:///" + str(tmp_path / "budget.sqlite3")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """A new store on each backend (PostgreSQL: a fresh database in the session's cluster)."""
    if request.param == "sqlite":
        return "sqlite:///" + str(tmp_path / "budget.sqlite3")
    import sqlalchemy as sa

    base = request.getfixturevalue("postgres_url")
    # One database per test (its node id hashed: truncated names of parametrised tests collide)
    name = "t_" + hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:20]
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine.dispose()
    return base.replace("/postgres?", f"/{name}?")
