"""The app on a budget store in a real browser: sessions, reloads and restarts share one budget."""
import pytest

import dppca
from dppca.privacy import BudgetStore

from .conftest import start_app, stop
from .test_app_browser import budget_state, run, set_number, wait_message, wait_runs

pytestmark = pytest.mark.browser


def test_sessions_reloads_and_restarts_share_the_registered_budget(new_page, tmp_path,
                                                                   monkeypatch):
    store = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    monkeypatch.setenv("DPPCA_BUDGET_URL", store)  # the app's process inherits it
    data = tmp_path / "survey.csv"
    dppca.load_gau().iloc[:500].to_csv(data, index=False)
    BudgetStore(store).register("survey", eps=2.0, delta=1e-5)
    process, url = start_app("--data", str(data), "--budget", "survey")
    try:
        first, second = new_page(url), new_page(url)
        assert budget_state(first)["total"] == 2.0
        set_number(first, "k", 2)
        set_number(first, "eps", 1)
        run(first, "scree")
        wait_runs(first, 1)
        # Another session (a second tab) and a reload see the spend of the first.
        second.reload()
        second.wait_for_selector("#budget[data-eps-spent='1.0']")
        first.reload()
        first.wait_for_selector("#budget[data-eps-spent='1.0']")
    finally:
        stop(process)
    process, url = start_app("--data", str(data), "--budget", "survey")  # a server restart
    try:
        page = new_page(url)
        assert budget_state(page)["spent"] == 1.0
        set_number(page, "k", 3)
        set_number(page, "eps", 1.5)
        run(page, "scree")
        assert "budget is exhausted" in wait_message(page, "scree", "refused")
    finally:
        stop(process)
    assert BudgetStore(store).log("survey")["function"].tolist() == ["app: scree"]
