"""The store's own rules: one budget per dataset, impossible charges refused by the client and by
the database, the documented PostgreSQL roles, messages that say what happened and where, and a
log with every outcome, ledger and analyst."""
import getpass
import json
import math
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

import dppca
from dppca import DPPCAValueError
from dppca.cli import main
from dppca.privacy.store import BudgetStore, BudgetStoreError

from .pg_cluster import postgres_bin, throwaway_cluster


@pytest.fixture(scope="module")
def small_gau():
    return dppca.load_gau().iloc[:300]


# ---------------------------------------------------------------- one dataset, one budget
def test_the_same_numbers_get_one_budget(store_url, small_gau):
    store = BudgetStore(store_url)
    values = small_gau.to_numpy()
    store.register("gau-a", eps=1.0, delta=1e-5, values=values)
    with pytest.raises(DPPCAValueError, match="already registered as 'gau-a'"):
        store.register("gau-again", eps=1.0, delta=1e-5, values=values[::-1])
    store.register("gau-again", eps=1.0, delta=1e-5, values=values, force=True)
    assert "--force: same fingerprint as 'gau-a'" in store.status("gau-again")["created_by"]


def test_names_are_normalised(store_url):
    store = BudgetStore(store_url)
    store.register(" Survey ", eps=1.0, delta=1e-5)
    for other in ("survey", "SURVEY", "survey  "):
        with pytest.raises(DPPCAValueError, match="'survey' is already registered"):
            store.register(other, eps=5.0, delta=1e-5)
    store.debit("SURVEY ", 0.25, 1e-7)
    assert store.status("survey")["eps_spent"] == 0.25
    assert store.datasets()["name"].tolist() == ["survey"]


def test_cli_init_refuses_a_second_name_for_the_same_data(tmp_path, capsys, small_gau):
    url, data = "sqlite:///" + str(tmp_path / "b.sqlite3"), tmp_path / "gau.csv"
    small_gau.to_csv(data, index=False)
    init = ["budget", "init", "gau-a", "--eps", "1", "--delta", "1e-5", "--data", str(data),
            "--store", url]
    assert main(init) == 0
    assert main(init[:2] + ["gau-again"] + init[3:]) == 2
    assert "already registered as 'gau-a'" in capsys.readouterr().err
    assert main(init[:2] + ["gau-again"] + init[3:] + ["--force"]) == 0


# ---------------------------------------------------------------- impossible charges
@pytest.mark.parametrize("eps, delta, mu, argument", [
    (-1.0, 1e-6, None, "eps"), (-math.inf, 1e-6, None, "eps"), (math.nan, 1e-6, None, "eps"),
    (1.0, -1e-5, None, "delta"), (1.0, 1.0, None, "delta"), (1.0, 1e-6, 0.0, "mu"),
    (1.0, 1e-6, math.inf, "mu")])
def test_debit_refuses_impossible_charges(store_url, eps, delta, mu, argument):
    store = BudgetStore(store_url)
    store.register("survey", eps=1.0, delta=1e-5, gaussian_share=0.5)
    with pytest.raises(DPPCAValueError, match=f"`{argument}`"):
        store.debit("survey", eps, delta, mu=mu)
    assert store.status("survey")["runs"] == 0


ROWS = {"charges": "INSERT INTO charges (dataset, at, eps, delta, stream, charged_eps, "
                   "charged_delta) VALUES ('survey', 'now', {eps}, 0, 'basic', {eps}, 0)",
        "datasets": "INSERT INTO datasets (name, eps_total, delta_total, gaussian_share, "
                    "created_at) VALUES ('big', {eps}, 0, 0, 'now')"}


@pytest.mark.parametrize("table", ["charges", "datasets"])
def test_the_database_refuses_out_of_range_rows(store_url, table):
    store = BudgetStore(store_url)
    store.register("survey", eps=1.0, delta=1e-5)
    for eps in ("-5", "-1e400"):  # -1e400: -inf on both back ends
        with pytest.raises(BudgetStoreError, match="out of range"), store._guard("insert"), \
                store.engine.begin() as conn:
            conn.exec_driver_sql(ROWS[table].format(eps=eps))
    assert store.status("survey")["eps_left"] == 1.0


def test_the_log_is_append_only_on_both_back_ends(store_url):
    store = BudgetStore(store_url)
    store.register("survey", eps=1.0, delta=1e-5)
    store.debit("survey", 1.0, 1e-6)
    for statement in ("DELETE FROM charges", "UPDATE charges SET charged_eps = 0",
                      "UPDATE datasets SET eps_total = 100"):
        with pytest.raises(BudgetStoreError, match="append-only"), store._guard("reset"), \
                store.engine.begin() as conn:
            conn.exec_driver_sql(statement)
    assert store.status("survey")["eps_left"] == 0.0


@pytest.fixture
def analyst_url(store_url):
    """The store's URL for a PostgreSQL role given the documented analyst rights only."""
    from dppca.privacy.store_schema import postgres_grants

    if not store_url.startswith("postgresql"):
        pytest.skip("roles are PostgreSQL's")
    BudgetStore(store_url).register("survey", eps=2.0, delta=1e-5)
    engine = sa.create_engine(store_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        if not conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = 'analyst'").first():
            conn.exec_driver_sql("CREATE ROLE analyst LOGIN")
        for grant in postgres_grants("analyst"):
            conn.exec_driver_sql(grant)
    engine.dispose()
    return store_url.replace("dppca@", "analyst@")


def test_an_analyst_role_is_charged_but_writes_no_row(analyst_url, small_gau):
    store = BudgetStore(analyst_url)
    result = dppca.dp_pc_dir(small_gau, k=2, eps=0.5, delta=1e-6, rng=1,
                             budget=dppca.budget("survey", budget_store=store))
    log = store.log("survey")
    assert log["status"].tolist() == ["ok"] and store.status("survey")["eps_spent"] == 0.5
    assert json.loads(log["ledger"][0])["releases"][0]["noise_scale"] == \
        result.ledger.releases[0].noise_scale
    for statement in ("INSERT INTO charges (dataset, at, eps, delta, stream, charged_eps, "
                      "charged_delta) VALUES ('survey', 'now', 0, 0, 'basic', 0, 0)",
                      "INSERT INTO datasets (name, eps_total, delta_total, gaussian_share, "
                      "created_at) VALUES ('mine', 100, 0, 0, 'now')",
                      "UPDATE charges SET charged_eps = 0", "DELETE FROM outcomes"):
        with pytest.raises(BudgetStoreError, match="may not do that"), store._guard("write"), \
                store.engine.begin() as conn:
            conn.exec_driver_sql(statement)
    with pytest.raises(BudgetStoreError, match="may not do that"):
        store.register("mine", eps=100.0, delta=1e-5)
    assert store.status("survey")["runs"] == 1


V1_TABLES = [
    "CREATE TABLE meta (key VARCHAR(64) PRIMARY KEY, value VARCHAR(400) NOT NULL)",
    "CREATE TABLE datasets (name VARCHAR(200) PRIMARY KEY, eps_total FLOAT NOT NULL, delta_total "
    "FLOAT NOT NULL, gaussian_share FLOAT NOT NULL, fingerprint VARCHAR(64), created_at "
    "VARCHAR(400) NOT NULL, created_by VARCHAR(400))",
    "CREATE TABLE charges (id {serial} PRIMARY KEY, dataset VARCHAR(200) NOT NULL REFERENCES "
    "datasets (name), at VARCHAR(400) NOT NULL, caller VARCHAR(400), function VARCHAR(400), "
    "settings TEXT, eps FLOAT NOT NULL, delta FLOAT NOT NULL, mu FLOAT, stream VARCHAR(16) NOT "
    "NULL, charged_eps FLOAT NOT NULL, charged_delta FLOAT NOT NULL)",
    "CREATE TABLE outcomes (id {serial} PRIMARY KEY, charge_id INTEGER NOT NULL REFERENCES "
    "charges (id), at VARCHAR(400) NOT NULL, status VARCHAR(32), ledger TEXT)",
    "INSERT INTO meta VALUES ('schema_version', '1'), ('fingerprint_key', '" + "ab" * 32 + "')",
    "INSERT INTO datasets VALUES ('survey', 2.0, 1e-05, 0.0, NULL, 'then', 'curator')",
    "INSERT INTO charges (dataset, at, eps, delta, stream, charged_eps, charged_delta) "
    "VALUES ('survey', 'then', 0.5, 1e-06, 'basic', 0.5, 1e-06)"]


def test_a_schema_1_store_is_upgraded_on_open(store_url):
    engine = sa.create_engine(store_url)
    serial = "INTEGER" if engine.dialect.name == "sqlite" else "SERIAL"
    with engine.begin() as conn:
        for statement in V1_TABLES:
            conn.exec_driver_sql(statement.replace("{serial}", serial))
    engine.dispose()
    store = BudgetStore(store_url)
    assert store.version == "2" and store.status("survey")["eps_spent"] == 0.5
    store.debit("survey", 0.5, 1e-6, analyst="alice")
    assert store.log("survey")["analyst"].tolist() == ["", "alice"]
    with pytest.raises(BudgetStoreError, match="out of range"), store._guard("insert"), \
            store.engine.begin() as conn:
        conn.exec_driver_sql(ROWS["charges"].format(eps="-5"))
    with pytest.raises(BudgetStoreError, match="append-only"), store._guard("reset"), \
            store.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM charges")


# ---------------------------------------------------------------- messages and locations
def test_no_store_is_created_implicitly(tmp_path, capsys):
    path = tmp_path / "typo.sqlite3"
    url = "sqlite:///" + str(path)
    assert main(["budget", "show", "survey", "--store", url]) == 2
    assert f"no budget store at SQLite file {path}" in capsys.readouterr().err
    with pytest.raises(BudgetStoreError, match="no budget store at"):
        dppca.budget("survey", budget_store=url)
    assert not path.exists()


def test_an_empty_file_is_not_a_new_store(tmp_path):
    path = tmp_path / "budget.sqlite3"
    path.touch()
    for attempt in (lambda s: s.status("survey"), lambda s: s.register("survey", 1.0, 1e-5)):
        with pytest.raises(BudgetStoreError, match=f"at SQLite file {path} is an empty file"):
            attempt(BudgetStore("sqlite:///" + str(path)))
    assert path.stat().st_size == 0


@pytest.fixture
def read_only_mount(tmp_path):
    """A folder and a read-only bind mount of it (needs root and mount; skipped otherwise)."""
    source, mount = tmp_path / "rw", tmp_path / "ro"
    source.mkdir(), mount.mkdir()
    done = subprocess.run(f"mount --bind {source} {mount} && mount -o remount,bind,ro {mount}",
                          shell=True, capture_output=True)
    if done.returncode:
        pytest.skip("cannot make a read-only bind mount here: " + done.stderr.decode()[-200:])
    try:
        yield source, mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_read_only_mount_is_read_not_charged(read_only_mount, capsys):
    source, mount = read_only_mount
    writer = BudgetStore("sqlite:///" + str(source / "b.sqlite3"))
    writer.register("survey", eps=1.0, delta=1e-5)
    writer.debit("survey", 0.5, 1e-6)
    writer.engine.dispose()  # the last connection closes: the write-ahead log is checkpointed
    url = "sqlite:///" + str(mount / "b.sqlite3")
    for command in (["show", "survey"], ["log", "survey"], ["list"]):
        assert main(["budget", *command, "--store", url]) == 0
    assert "survey" in capsys.readouterr().out
    with pytest.raises(BudgetStoreError, match=r"read-only here.*not damaged") as refused:
        BudgetStore(url).debit("survey", 0.1, 1e-7)
    assert str(mount / "b.sqlite3") in str(refused.value)


def test_a_stopped_postgres_server_is_unreachable_not_damaged():
    if postgres_bin() is None:
        pytest.skip("PostgreSQL binaries absent")
    with throwaway_cluster(port=5498) as url:
        BudgetStore(url).register("survey", eps=1.0, delta=1e-5)
        root = url.split("host=")[1].split("&")[0]
        as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        subprocess.run(as_user + [f"{postgres_bin()}/pg_ctl", "-D", f"{root}/data", "-m", "fast",
                                  "-w", "stop"], check=True, capture_output=True)
        for attempt in (lambda: BudgetStore(url).status("survey"),
                        lambda: BudgetStore(url, timeout=2)):
            with pytest.raises(BudgetStoreError, match="cannot be reached") as refused:
                attempt()
            assert "damaged" not in str(refused.value).replace("not damaged", "")
            assert f"host={root}" in str(refused.value).replace("%2F", "/")


@pytest.mark.parametrize("eps, delta", [(1.0, 5e-324), (1e-300, 1e-5), (2.3e-16, 2.3e-308)])
def test_tiny_budgets_are_refused_with_a_reason(small_gau, eps, delta):
    # delta = 5e-324 and (2.3e-16, 2.3e-308) made the analytic calibration loop for ever;
    # eps = 1e-300 overflowed in it.
    with pytest.raises(DPPCAValueError, match="eps|delta"):
        dppca.dp_pc_dir(small_gau, k=2, eps=eps, delta=delta, rng=1)


# ---------------------------------------------------------------- the log
def test_a_report_failing_in_its_second_section_logs_its_error_class(tmp_path, small_gau,
                                                                      monkeypatch):
    from dppca import cli

    def broken(*args, **kwargs):
        raise ArithmeticError("the scree broke")

    url, data = "sqlite:///" + str(tmp_path / "b.sqlite3"), tmp_path / "gau.csv"
    small_gau.to_csv(data, index=False)
    BudgetStore(url).register("gau", eps=2.0, delta=1e-5)
    monkeypatch.setitem(cli.SECTIONS, "scree", broken)
    with pytest.raises(ArithmeticError):
        main(["report", "--data", str(data), "--sections", "directions,scree", "--eps", "1",
              "--delta", "1e-6", "--seed", "1", "--out", str(tmp_path / "r"), "--budget", "gau",
              "--budget-store", url])
    assert BudgetStore(url).log("gau")["status"].tolist() == ["failed: ArithmeticError"]


def test_a_charged_scree_logs_its_full_ledger(sqlite_url, small_gau):
    BudgetStore(sqlite_url).register("gau", eps=2.0, delta=1e-5)
    b = dppca.budget("gau", budget_store=sqlite_url)
    result = dppca.dp_scree(small_gau, k=2, eps=0.5, delta=1e-6, rng=1, budget=b)
    logged = json.loads(b.log()["ledger"][0])
    assert len(logged["combined"]["releases"]) == len(result.combined_ledger) > 0
    assert set(logged["methods"]) == set(result.ledger)


def test_the_analyst_is_logged(store_url):
    store = BudgetStore(store_url)
    store.register("survey", eps=1.0, delta=1e-5)
    store.debit("survey", 0.25, 1e-7)
    dppca.privacy.spending.debit(dppca.budget("survey", budget_store=store), "f", 0.25, 1e-7,
                                 analyst="alice@proxy")
    assert store.log("survey")["analyst"].tolist() == [getpass.getuser(), "alice@proxy"]


def test_budget_log_for_auditors_as_csv_and_json(sqlite_url, capsys):
    BudgetStore(sqlite_url).register("survey", eps=1.0, delta=1e-5)
    BudgetStore(sqlite_url).debit("survey", 0.5, 1e-6, function="f", analyst="bob")
    assert main(["budget", "log", "survey", "--format", "json", "--store", sqlite_url]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["analyst"], r["eps"], r["status"]) for r in rows] == \
        [("bob", 0.5, "charged (no outcome recorded)")]
    assert main(["budget", "log", "survey", "--format", "csv", "--store", sqlite_url]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("id,dataset,at,caller,analyst,")


# ---------------------------------------------------------------- day one (CLI)
def test_budget_list_of_an_empty_store_says_so(sqlite_url, capsys):
    BudgetStore(sqlite_url)._create_if_absent()
    assert main(["budget", "list", "--store", sqlite_url]) == 0
    out = capsys.readouterr().out
    assert "Empty DataFrame" not in out and "no dataset is registered" in out


def test_a_closed_pipe_ends_quietly(sqlite_url):
    BudgetStore(sqlite_url).register("survey", eps=1.0, delta=1e-5)
    child = subprocess.Popen([sys.executable, "-m", "dppca.cli", "budget", "show", "survey",
                              "--store", sqlite_url], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": os.path.dirname(
                                 os.path.dirname(dppca.__file__))})
    child.stdout.close()  # the reader (`| head`) is gone before the output comes
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141 and "Traceback" not in err and "Broken" not in err, err


def test_the_text_column_hint_can_be_followed(tmp_path, capsys):
    data = tmp_path / "t.csv"
    data.write_text("a,b,c\n1,2,x\n3,4,y\n5,6,z\n7,8,w\n")
    report = ["report", "--data", str(data), "--sections", "directions", "--eps", "1",
              "--delta", "1e-5", "--seed", "1", "--out", str(tmp_path / "r")]
    assert main(report + ["--columns", "a,b,c"]) == 2
    hint = capsys.readouterr().err.split("--columns ")[1].split()[0]
    assert hint == "a,b"
    assert main(report + ["--columns", hint]) == 0


def test_accuracy_warnings_point_at_the_callers_line(sqlite_url, small_gau):
    BudgetStore(sqlite_url).register("gau", eps=5.0, delta=1e-5)
    with pytest.warns(dppca.DPAccuracyWarning) as caught:
        dppca.dp_scree(small_gau, k=2, eps=0.01, delta=1e-6, rng=1,
                       budget=dppca.budget("gau", budget_store=sqlite_url))
    assert {w.filename for w in caught} == {__file__}


def test_the_readmes_first_screen_names_the_store_and_operator_mode():
    from pathlib import Path

    first_screen = "\n".join((Path(__file__).parents[2] / "README.md").read_text()
                             .splitlines()[:40])
    for term in ("budget store", "operator mode", "DPPCA_BUDGET_URL", "--allow-remote"):
        assert term in first_screen, term
