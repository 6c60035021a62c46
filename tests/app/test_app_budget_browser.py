"""The app on a budget store in a real browser: sessions, reloads and restarts share one budget."""
import pytest

import dppca
from dppca.privacy import BudgetStore

from .conftest import start_app, stop
from .test_app_browser import budget_state, run, set_number, upload, wait_message, wait_runs

pytestmark = pytest.mark.browser


def test_sessions_reloads_and_restarts_share_the_registered_budget(new_page, tmp_path,
                                                                   monkeypatch):
    store = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    monkeypatch.setenv("DPPCA_BUDGET_URL", store)  # the app's process inherits it
    data = tmp_path / "survey.csv"
    rows = dppca.load_gau().iloc[:500]
    rows.to_csv(data, index=False)
    BudgetStore(store).register("survey", eps=2.0, delta=1e-5, values=rows.to_numpy())
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


def test_uploads_of_registered_numbers_share_its_budget(new_page, tmp_path, monkeypatch):
    """The same numbers under another file name, header and row order, with a trailing blank
    line, uploaded in another session, are charged to the dataset registered with them."""
    from dppca.cli.budget import numeric_values

    store = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    monkeypatch.setenv("DPPCA_BUDGET_URL", store)
    frame = dppca.load_gau().iloc[:400, :5]
    BudgetStore(store).register("survey", eps=2.0, delta=1e-5, values=numeric_values(frame))
    first_file, second_file = tmp_path / "survey.csv", tmp_path / "copy of survey.csv"
    frame.to_csv(first_file, index=False)
    second_file.write_text(frame.iloc[::-1].set_axis(list("abcde"), axis=1).to_csv(index=False)
                           + "\n")
    process, url = start_app()
    try:
        first, second = new_page(url), new_page(url)
        upload(first, first_file)
        first.wait_for_selector("#budget[data-eps-total='2.0']")
        set_number(first, "k", 2)
        set_number(first, "eps", 1)
        run(first, "scree")
        wait_runs(first, 1)
        upload(second, second_file)
        second.wait_for_selector("#budget[data-eps-spent='1.0'][data-eps-total='2.0']")
    finally:
        stop(process)
    assert BudgetStore(store).status("survey")["runs"] == 1
