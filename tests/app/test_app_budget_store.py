"""The app on a budget store: one budget for every session, tab, reload and restart."""
import numpy as np
import pytest

import dppca
from dppca import DPPCAValueError
from dppca.app import create_app
from dppca.app.runs import run_scree, scree_settings
from dppca.app.session import BudgetExceeded, SessionBudget
from dppca.privacy import BudgetStore


@pytest.fixture
def registered(tmp_path):
    url = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    BudgetStore(url).register("gau", eps=1.0, delta=1e-5)
    return url


def test_sessions_share_the_stores_budget(registered):
    first, second = (SessionBudget(99, 1e-3, store=dppca.budget("gau", budget_store=registered))
                     for _ in range(2))
    assert (first.eps_total, first.delta_total, first.fixed) == (1.0, 1e-5, True)
    first.release("scree", {"k": 2}, 0.5, 1e-6, lambda: "released")
    second.release("scree", {"k": 3}, 0.25, 1e-6, lambda: "released")
    # A reload (a new session) starts from what both sessions spent, not from 0.
    reloaded = SessionBudget(99, 1e-3, store=dppca.budget("gau", budget_store=registered))
    assert reloaded.spent == (0.75, 2e-6) and reloaded.remaining[0] == 0.25
    with pytest.raises(BudgetExceeded, match="has eps=0.25, delta=8e-06 left"):
        reloaded.release("scree", {"k": 4}, 0.5, 1e-6, lambda: "not computed")
    assert [run.number for run in first.runs] == [1] and len(reloaded.runs) == 0


def test_a_run_that_fails_after_its_debit_stays_charged(registered):
    budget = SessionBudget(1, 1e-5, store=dppca.budget("gau", budget_store=registered))

    def fails():
        raise np.linalg.LinAlgError("eigenvalues did not converge")

    with pytest.raises(np.linalg.LinAlgError):
        budget.release("scree", {"k": 2}, 0.5, 1e-6, fails)
    assert budget.spent[0] == 0.5
    log = budget.store.log()
    assert log["function"].tolist() == ["app: scree"]
    assert log["status"].tolist() == ["failed: LinAlgError"]


def test_an_app_run_is_logged_with_its_ledger(registered):
    from dppca.app.data import prepare

    prepared = prepare(dppca.load_gau().iloc[:300], key="gau", label="gau")
    values = {"k": 2, "scree_method": ["clipped"], "scree_mono": True, "center": True,
              "standardize": False, "g_dppca": True}
    settings = scree_settings(values, prepared)
    budget = SessionBudget(1, 1e-5, store=dppca.budget("gau", budget_store=registered))
    released = budget.release("scree", settings, 0.5, 1e-6,
                              lambda: run_scree(prepared, settings, 0.5, 1e-6))
    assert released.charged == 0.5 and budget.store.log()["status"].tolist() == ["ok"]


def test_create_app_takes_the_budget_of_its_data(registered):
    X = dppca.load_gau().iloc[:300]
    BudgetStore(registered).register("gau300", eps=1.0, delta=1e-5, values=X.to_numpy())
    app = create_app(X, budget=dppca.budget("gau300", budget_store=registered))
    assert type(app).__name__ == "App"
    with pytest.raises(DPPCAValueError, match="fingerprint differs"):
        create_app(X.iloc[:299], budget=dppca.budget("gau300", budget_store=registered))
    with pytest.raises(DPPCAValueError, match="has no fingerprint"):
        create_app(X, budget=dppca.budget("gau", budget_store=registered))
    with pytest.raises(DPPCAValueError, match="give X too"):
        create_app(budget=dppca.budget("gau", budget_store=registered))


@pytest.mark.parametrize("gaussian", [True, False])
def test_default_run_budgets_spend_eps_before_delta(gaussian):
    """With the page's defaults (total eps 5, eps 1 and delta = total / runs_per_delta per run),
    runs stop because eps is spent, never while eps is left and delta is not."""
    from dppca.app.ui import DEFAULTS

    budget = SessionBudget(DEFAULTS["eps_total"], 1e-5)
    delta = 1e-5 / DEFAULTS["runs_per_delta"]
    with pytest.raises(BudgetExceeded, match="eps: asked") as refused:
        for run in range(1000):
            budget.release("scree", {"run": run}, DEFAULTS["eps"], delta, lambda: None,
                           gaussian=gaussian)
    assert "delta: asked" not in str(refused.value)
