"""A throwaway PostgreSQL cluster (Debian's ``postgresql`` binaries) for tests and benchmarks.

initdb and pg_ctl run as an unprivileged user (``nobody`` when the caller is root: PostgreSQL
refuses root) in a temporary folder, on a Unix socket only; the cluster is stopped and deleted
when the context ends.
"""
import contextlib
import glob
import os
import shutil
import subprocess
import tempfile


def postgres_bin():
    """The newest ``/usr/lib/postgresql/*/bin``, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return os.path.dirname(found[-1]) if found else None


@contextlib.contextmanager
def throwaway_cluster(port=5499):
    """Start a cluster; yield the SQLAlchemy URL of its ``postgres`` database (user ``dppca``)."""
    bin_dir = postgres_bin()
    root = tempfile.mkdtemp(prefix="dppca-pg-")
    as_user = []
    if os.geteuid() == 0:
        os.chmod(root, 0o755)
        shutil.chown(root, "nobody", "nogroup")
        as_user = ["runuser", "-u", "nobody", "--"]
    data = os.path.join(root, "data")
    run = dict(check=True, capture_output=True, cwd=root)
    try:
        subprocess.run(as_user + [f"{bin_dir}/initdb", "-D", data, "-U", "dppca", "--auth=trust",
                                  "-E", "UTF8"], **run)
        subprocess.run(as_user + [f"{bin_dir}/pg_ctl", "-D", data, "-l", os.path.join(root, "log"),
                                  "-o", f"-k {root} -c listen_addresses='' -p {port}", "-w",
                                  "start"], **run)
        yield f"postgresql+psycopg://dppca@/postgres?host={root}&port={port}"
    finally:
        subprocess.run(as_user + [f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "stop"],
                       capture_output=True, cwd=root)
        shutil.rmtree(root, ignore_errors=True)
