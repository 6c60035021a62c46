"""Budget stores for the tests: SQLite in a temporary folder, and a throwaway PostgreSQL cluster.

The cluster comes from Debian's ``postgresql`` package (tools/install_system_deps.sh installs it
for ``make test``): initdb and pg_ctl run as an unprivileged user (``nobody`` when the tests run
as root: PostgreSQL refuses root) in a temporary folder, listening on a Unix socket only, and the
cluster is stopped and deleted at the end of the session.
"""
import glob
import os
import shutil
import subprocess
import tempfile

import pytest


def _postgres_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return os.path.dirname(found[-1]) if found else None


@pytest.fixture(scope="session")
def postgres_url():
    """URL of a fresh database in a throwaway cluster (skipped without the PostgreSQL binaries)."""
    bin_dir = _postgres_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL binaries absent (Debian package postgresql; `make test` installs it)")
    pytest.importorskip("psycopg", reason="psycopg (the [postgresql] extra) is not installed")
    root = tempfile.mkdtemp(prefix="dppca-pg-")
    as_user = []
    if os.geteuid() == 0:
        os.chmod(root, 0o755)
        shutil.chown(root, "nobody", "nogroup")
        as_user = ["runuser", "-u", "nobody", "--"]
    data = os.path.join(root, "data")
    run = dict(check=True, capture_output=True, cwd=root)
    subprocess.run(as_user + [f"{bin_dir}/initdb", "-D", data, "-U", "dppca", "--auth=trust",
                              "-E", "UTF8"], **run)
    subprocess.run(as_user + [f"{bin_dir}/pg_ctl", "-D", data, "-l", os.path.join(root, "log"),
                              "-o", f"-k {root} -c listen_addresses='' -p 5499", "-w", "start"],
                   **run)
    try:
        yield f"postgresql+psycopg://dppca@/postgres?host={root}&port=5499"
    finally:
        subprocess.run(as_user + [f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "stop"],
                       capture_output=True, cwd=root)
        shutil.rmtree(root, ignore_errors=True)


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
    name = "t_" + request.node.name.lower().translate(str.maketrans("[]-.", "____"))[:50]
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine.dispose()
    return base.replace("/postgres?", f"/{name}?")
