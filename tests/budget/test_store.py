"""The budget store (SQLite and PostgreSQL) and ``budget=`` on the public functions and the CLI."""
import json

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca import DPPCAValueError
from dppca.cli import main
from dppca.privacy.filter import BudgetExhaustedError, gaussian_mu
from dppca.privacy.store import BudgetStore


@pytest.fixture(scope="module")
def small_gau():
    return dppca.load_gau().iloc[:300]


def test_debits_until_refused_and_logs_every_charge(store_url):
    store = BudgetStore(store_url)
    store.register("survey", eps=2.0, delta=1e-5)
    for _ in range(4):
        store.debit("survey", 0.5, 1e-6, function="test")
    with pytest.raises(BudgetExhaustedError):
        store.debit("survey", 0.5, 1e-6, function="test")
    status = store.status("survey")
    assert (status["eps_spent"], status["eps_left"], status["runs"]) == (2.0, 0.0, 4)
    log = store.log("survey")
    assert list(log["eps"]) == [0.5] * 4 and list(log["function"]) == ["test"] * 4
    # A second handle on the same URL (another process, another day) sees the same spend.
    assert BudgetStore(store_url).status("survey")["eps_spent"] == 2.0


def test_a_total_is_set_once(store_url):
    store = BudgetStore(store_url)
    store.register("survey", eps=1.0, delta=1e-5)
    with pytest.raises(DPPCAValueError, match="already registered"):
        store.register("survey", eps=100.0, delta=1e-5)
    assert store.status("survey")["eps_total"] == 1.0


def test_unknown_dataset_is_refused(sqlite_url):
    BudgetStore(sqlite_url).register("other", eps=1.0, delta=1e-5)
    with pytest.raises(DPPCAValueError, match="no dataset 'nope'"):
        dppca.budget("nope", budget_store=sqlite_url)


def test_dp_pc_dir_charges_before_computing_and_logs_its_ledger(sqlite_url, small_gau):
    store = BudgetStore(sqlite_url)
    store.register("gau", eps=1.0, delta=1e-5, gaussian_share=0.5)
    with dppca.budget("gau", budget_store=store) as b:
        result = dppca.dp_pc_dir(small_gau, k=2, eps=0.5, delta=1e-6, rng=1, budget=b)
    row = b.log().iloc[0]
    # g-DPPCA is one Gaussian mechanism: the mu charged is sensitivity / sigma of its release.
    release = result.ledger.releases[0]
    assert row["mu"] == pytest.approx(release.sensitivity / release.noise_scale, rel=1e-9)
    assert row["mu"] == pytest.approx(gaussian_mu(0.5, 1e-6), rel=1e-12)
    assert row["stream"] == "gaussian" and row["status"] == "ok"
    assert json.loads(row["ledger"])["releases"][0]["noise_scale"] == release.noise_scale


def test_bad_arguments_are_not_charged(sqlite_url, small_gau):
    BudgetStore(sqlite_url).register("gau", eps=1.0, delta=1e-5)
    b = dppca.budget("gau", budget_store=sqlite_url)
    with pytest.raises(DPPCAValueError, match="`k`"):
        dppca.dp_pc_dir(small_gau, k=50, eps=0.5, delta=1e-6, budget=b)
    assert b.status()["runs"] == 0


def test_a_call_that_fails_after_the_debit_stays_charged(sqlite_url, small_gau, monkeypatch):
    from dppca import methods

    def broken(*args, **kwargs):
        raise np.linalg.LinAlgError("SVD did not converge")

    BudgetStore(sqlite_url).register("gau", eps=1.0, delta=1e-5)
    b = dppca.budget("gau", budget_store=sqlite_url)
    monkeypatch.setitem(methods.METHODS, "gdppca", broken)
    with pytest.raises(np.linalg.LinAlgError):
        dppca.dp_pc_dir(small_gau, k=2, eps=0.5, delta=1e-6, budget=b)
    assert b.status()["eps_spent"] == 0.5
    assert b.log()["status"].tolist() == ["failed: LinAlgError"]


def test_nested_calls_are_charged_once(sqlite_url, small_gau):
    # dp_score calls dp_pc_dir inside; the call is charged its (eps, delta) once.
    BudgetStore(sqlite_url).register("gau", eps=5.0, delta=1e-5)
    b = dppca.budget("gau", budget_store=sqlite_url)
    dppca.dp_score(small_gau, eps=1.0, delta=1e-6, method="add", rng=1, budget=b)
    dppca.dp_scree(small_gau, k=2, eps=0.5, delta=1e-6, rng=1, budget=b)
    log = b.log()
    assert log["function"].tolist() == ["dp_score", "dp_scree"]
    assert b.status()["eps_spent"] == 1.5


def test_dppca_estimator_and_plots_take_the_budget(sqlite_url, small_gau):
    pytest.importorskip("sklearn")
    BudgetStore(sqlite_url).register("gau", eps=5.0, delta=1e-5)
    b = dppca.budget("gau", budget_store=sqlite_url)
    dppca.DPPCA(n_components=2, eps=1.0, delta=1e-6, random_state=1, center=False,
                budget=b).fit(small_gau)
    dppca.dp_scree_plot(small_gau, k=2, eps=0.5, delta=1e-6, rng=1, budget=b)
    assert b.log()["function"].tolist() == ["DPPCA.fit", "dp_scree"]
    assert b.status()["eps_spent"] == 1.5


def test_refusal_is_the_same_for_neighbouring_data(sqlite_url, small_gau):
    """Only public numbers decide and word a refusal: neighbours (one row replaced) get the same."""
    neighbour = small_gau.copy()
    neighbour.iloc[0] = 1e6
    messages = []
    for name, data in (("x", small_gau), ("x_neighbour", neighbour)):
        BudgetStore(sqlite_url).register(name, eps=1.0, delta=1e-5)
        dppca.dp_pc_dir(data, k=2, eps=0.75, delta=1e-6, rng=1, budget=dppca.budget(
            name, budget_store=sqlite_url))
        with pytest.raises(BudgetExhaustedError) as refused:
            dppca.dp_pc_dir(data, k=2, eps=0.5, delta=1e-6, rng=1,
                            budget=dppca.budget(name, budget_store=sqlite_url))
        messages.append(str(refused.value))
    assert messages[0] == messages[1]


def test_fingerprint_ignores_names_order_and_format_not_values(sqlite_url, small_gau):
    store = BudgetStore(sqlite_url)
    store.register("x", eps=1.0, delta=1e-5)  # the first registration creates the store (its key)
    values = small_gau.to_numpy()
    same = store.fingerprint(values[::-1])  # rows in another order
    assert store.fingerprint(values) == same == store.fingerprint(-(-values))
    changed = values.copy()
    changed[5, 3] = np.nextafter(changed[5, 3], np.inf)
    assert store.fingerprint(changed) != same
    # Another store has another key: its fingerprints cannot be compared across stores.
    other = BudgetStore(sqlite_url.replace("budget.sqlite3", "other.sqlite3"))
    other.register("x", eps=1.0, delta=1e-5)
    assert other.fingerprint(values) != same


def test_cli_budget_commands_and_report(tmp_path, capsys, small_gau):
    url = "sqlite:///" + str(tmp_path / "b.sqlite3")
    data, renamed = tmp_path / "gau.csv", tmp_path / "copy with header.csv"
    small_gau.to_csv(data, index=False)
    small_gau.set_axis([f"x{j}" for j in range(small_gau.shape[1])], axis=1).iloc[::-1].to_csv(
        renamed, index=False)
    assert main(["budget", "init", "gau", "--eps", "1", "--delta", "1e-5", "--data", str(data),
                 "--store", url]) == 0
    report = ["report", "--data", str(renamed), "--sections", "directions", "--eps", "0.6",
              "--delta", "1e-6", "--seed", "1", "--out", str(tmp_path / "r"), "--budget", "gau",
              "--budget-store", url]
    assert main(report) == 0  # the same numbers under another name, header and row order
    assert main(report) == 2  # 0.6 + 0.6 > 1
    assert "budget is exhausted" in capsys.readouterr().err
    small_gau.iloc[1:].to_csv(data, index=False)
    assert main(report[:2] + [str(data)] + report[3:]) == 2
    assert "is not the data registered" in capsys.readouterr().err
    assert main(["budget", "log", "gau", "--store", url]) == 0
    log = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert log["function"].tolist() == ["dppca report"] and log["status"].tolist() == ["ok"]
    assert main(["budget", "show", "gau", "--store", url]) == 0
    assert "eps_left" in capsys.readouterr().out
    assert main(["budget", "list", "--store", url]) == 0
    assert "gau" in capsys.readouterr().out
