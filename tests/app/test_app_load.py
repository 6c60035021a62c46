"""Load: 8 browser sessions on one registered dataset with overlapping runs (issue 25, item 4).

Every session presses "Run scree" and "Run score" at once (the runs overlap across sessions and
queue within each). The total fits 12 of the 16 runs: exactly 12 are released, 4 refused, each
run is charged once in the store's log, and the spend is the sum of the charges. No timing is
asserted (page latency while runs compute is benchmarks/bench_app_load.py's job).
"""
import pytest

import dppca
from dppca.privacy import BudgetStore

from .conftest import start_app, stop
from .test_app_browser import budget_state, run, set_number

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # 8 pages, 16 runs: about 50 s

SESSIONS, EPS_RUN, RUNS_THAT_FIT = 8, 0.25, 12
DONE = "#{kind}-message[data-kind='ok'], #{kind}-message[data-kind='refused']"


def test_eight_sessions_with_overlapping_runs_are_each_charged_once(new_page, tmp_path,
                                                                    monkeypatch):
    store = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    monkeypatch.setenv("DPPCA_BUDGET_URL", store)
    data = tmp_path / "survey.csv"
    rows = dppca.load_gau().iloc[:400, :6]
    rows.to_csv(data, index=False)
    # 0.25 is a power of two: 12 charges add up to 3.0 exactly in floating point.
    BudgetStore(store).register("survey", eps=RUNS_THAT_FIT * EPS_RUN, delta=1e-5,
                                values=rows.to_numpy())
    process, url = start_app("--data", str(data), "--budget", "survey")
    try:
        pages = [new_page(url) for _ in range(SESSIONS)]
        for page in pages:
            set_number(page, "k", 2)
            set_number(page, "eps", EPS_RUN)
        for page in pages:  # all at once: no page waits for its runs before the next starts
            run(page, "scree")
            run(page, "score")
        outcomes = []
        for page in pages:
            for kind in ("scree", "score"):
                page.wait_for_selector(DONE.format(kind=kind))
                outcomes.append(page.get_attribute(f"#{kind}-message", "data-kind"))
        assert outcomes.count("ok") == RUNS_THAT_FIT
        assert outcomes.count("refused") == 2 * SESSIONS - RUNS_THAT_FIT
        pages[0].reload()
        pages[0].wait_for_selector("#budget")
        assert budget_state(pages[0])["spent"] == RUNS_THAT_FIT * EPS_RUN
    finally:
        stop(process)
    log = BudgetStore(store).log("survey")
    assert len(log) == RUNS_THAT_FIT  # one debit per released run, none for a refused one
    assert sorted(log["function"].value_counts().index) == ["app: score", "app: scree"]
    status = BudgetStore(store).status("survey")
    assert status["eps_spent"] == log["eps"].sum() == RUNS_THAT_FIT * EPS_RUN
    assert (log["status"] == "ok").all()  # every released run has its outcome and ledger
