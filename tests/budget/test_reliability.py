"""The store under races, kills and damage: exact spending, no lost debit, never a silent reset."""
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

import dppca
from dppca.privacy.filter import BudgetExhaustedError
from dppca.privacy.store import BudgetStore, BudgetStoreError

#: A child process: opens the store, says it is ready, waits for the start signal, spends 1.0.
#: It loads the store's modules without dppca/__init__.py and dppca/privacy/__init__.py (which
#: import scipy, pandas and matplotlib: 8 such imports take over a minute on a busy 2-core CI).
RACER = textwrap.dedent("""
    import os, sys, time, types
    for name, folder in (("dppca", sys.argv[4]), ("dppca.privacy", os.path.join(sys.argv[4], "privacy"))):
        sys.modules[name] = module = types.ModuleType(name)
        module.__path__ = [folder]
    from dppca.privacy.filter import BudgetExhaustedError
    from dppca.privacy.store import BudgetStore
    url, folder, me = sys.argv[1], sys.argv[2], sys.argv[3]
    store = BudgetStore(url)
    open(os.path.join(folder, "ready-" + me), "w").close()
    while not os.path.exists(os.path.join(folder, "go")):
        time.sleep(0.002)
    try:
        store.debit("survey", 1.0, 1e-7, function="race", caller=me)
    except BudgetExhaustedError:
        sys.exit(3)
""")

#: A child process that runs dp_pc_dir with a method that says "computing" and never returns.
STUCK = textwrap.dedent("""
    import sys, time
    import dppca
    from dppca import methods
    def stuck(*args, **kwargs):
        open(sys.argv[2], "w").close()
        time.sleep(600)
    methods.METHODS["gdppca"] = stuck
    dppca.dp_pc_dir(dppca.load_gau().iloc[:100], k=2, eps=1.0, delta=1e-6,
                    budget=dppca.budget("survey", budget_store=sys.argv[1]))
""")


def _wait_for(path, processes, seconds=120):
    deadline = time.monotonic() + seconds
    while not all(os.path.exists(p) for p in path):
        if time.monotonic() > deadline or any(p.poll() not in (None, 0) for p in processes):
            pytest.fail("child processes did not get ready: "
                        + " | ".join(p.stderr.read().decode()[-500:] for p in processes
                                     if p.poll() is not None))
        time.sleep(0.01)


@pytest.mark.slow  # about 10 s: 8 Python processes start on 2 cores
def test_eight_processes_racing_for_five_runs(store_url, tmp_path):
    """8 processes spend 1.0 each from a total of 5.0 at the same moment: exactly 5 succeed."""
    BudgetStore(store_url).register("survey", eps=5.0, delta=1e-5)
    package = os.path.dirname(dppca.__file__)
    racers = [subprocess.Popen([sys.executable, "-c", RACER, store_url, str(tmp_path), str(i), package],
                               stderr=subprocess.PIPE) for i in range(8)]
    _wait_for([tmp_path / f"ready-{i}" for i in range(8)], racers)
    (tmp_path / "go").touch()
    codes = sorted(p.wait(timeout=120) for p in racers)
    assert codes == [0] * 5 + [3] * 3, [p.stderr.read().decode()[-300:] for p in racers]
    status = BudgetStore(store_url).status("survey")
    assert (status["eps_spent"], status["runs"]) == (5.0, 5)


@pytest.mark.slow  # about 7 s: a child process imports dppca
def test_kill_during_a_release_leaves_the_debit(sqlite_url, tmp_path):
    """The debit is committed before the private work starts, and a kill -9 does not undo it."""
    BudgetStore(sqlite_url).register("survey", eps=2.0, delta=1e-5)
    computing = tmp_path / "computing"
    child = subprocess.Popen([sys.executable, "-c", STUCK, sqlite_url, str(computing)],
                             stderr=subprocess.PIPE)
    _wait_for([computing], [child])
    store = BudgetStore(sqlite_url)
    assert store.status("survey")["eps_spent"] == 1.0  # visible while the method runs
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    log = store.log("survey")
    assert log["status"].tolist() == ["charged (no outcome recorded)"]
    assert store.status("survey")["eps_spent"] == 1.0
    with pytest.raises(BudgetExhaustedError):
        store.debit("survey", 1.5, 1e-6)


def test_a_locked_store_is_an_error_not_a_bypass(sqlite_url, tmp_path):
    BudgetStore(sqlite_url).register("survey", eps=1.0, delta=1e-5)
    impatient = BudgetStore(sqlite_url, timeout=0.2)
    holder = sqlite3.connect(str(tmp_path / "budget.sqlite3"), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(BudgetStoreError, match="lock"):
            impatient.debit("survey", 0.5, 1e-6)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert BudgetStore(sqlite_url).status("survey")["runs"] == 0


def test_a_read_only_store_refuses_to_charge(sqlite_url, tmp_path):
    BudgetStore(sqlite_url).register("survey", eps=1.0, delta=1e-5)
    read_only = f"sqlite:///file:{tmp_path / 'budget.sqlite3'}?mode=ro&uri=true"
    store = BudgetStore(read_only)
    assert store.status("survey")["eps_left"] == 1.0  # it can still be read
    with pytest.raises(BudgetStoreError, match="read-only"):
        store.debit("survey", 0.5, 1e-6)
    with pytest.raises(BudgetStoreError, match="read-only"):
        dppca.dp_pc_dir(dppca.load_gau().iloc[:100], k=2, eps=0.5, delta=1e-6,
                        budget=dppca.budget("survey", budget_store=store))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "missing table"])
def test_a_damaged_store_is_an_error_and_is_left_as_it_was(sqlite_url, tmp_path, damage):
    path = tmp_path / "budget.sqlite3"
    store = BudgetStore(sqlite_url)
    store.register("survey", eps=1.0, delta=1e-5)
    store.debit("survey", 0.5, 1e-6)
    store.engine.dispose()
    if damage == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:1500])
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("DROP TABLE outcomes")
    before = path.read_bytes()
    with pytest.raises(BudgetStoreError, match="cannot|not a complete budget store"):
        # sqlite+pysqlite: the same driver under another URL, so a new engine, as in a new process
        fresh = BudgetStore(sqlite_url.replace("sqlite:", "sqlite+pysqlite:"))
        fresh.debit("survey", 0.1, 1e-7)
    assert path.read_bytes() == before


def test_the_log_is_append_only(sqlite_url):
    import sqlalchemy as sa

    store = BudgetStore(sqlite_url)
    store.register("survey", eps=1.0, delta=1e-5)
    store.debit("survey", 1.0, 1e-6)
    with pytest.raises(BudgetStoreError, match="append-only"), store._guard("reset"), \
            store.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM charges"))
    assert store.status("survey")["eps_left"] == 0.0
