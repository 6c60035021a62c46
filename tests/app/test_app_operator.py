"""Operator mode (issue 25, item 4): ``dppca app --data FILE --budget NAME`` in a real browser.

An analyst gets the registered dataset only: no upload, no other source, no raw preview, no
input that sets a total; inputs forged from the browser's console change nothing; no page
text, message or download contains a row; the page shows eps and delta, spent and left.
"""
import json

import numpy as np
import pytest

import dppca
from dppca.privacy import BudgetStore

from .conftest import start_app, stop
from .test_app_browser import budget_state, run, set_number, wait_message, wait_runs

pytestmark = pytest.mark.browser


def test_analysts_cannot_upload_set_a_total_or_read_a_row(new_page, tmp_path, monkeypatch):
    store = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    monkeypatch.setenv("DPPCA_BUDGET_URL", store)
    rows = dppca.load_gau().iloc[:300, :5]
    data = tmp_path / "secret.csv"
    rows.to_csv(data, index=False)
    BudgetStore(store).register("survey", eps=2.0, delta=1e-5, values=rows.to_numpy())
    process, url = start_app("--data", str(data), "--budget", "survey")
    try:
        page = new_page(url)
        for absent in ("#csv_file", "input[name='data_source']", "#example_dataset",
                       "#eps_total", "#delta_total", "#upload_group_col"):
            assert page.locator(absent).count() == 0, absent
        bar = page.inner_text("#budget")
        assert "eps spent 0 of 2 (2 left)" in bar and "delta spent 0 of 1e-05 (1e-05 left)" in bar
        assert "survey (registered)" in bar
        # Forged inputs (a client can send any input name): nothing changes.
        page.evaluate("""() => { Shiny.setInputValue('data_source', 'upload');
                                 Shiny.setInputValue('example_dataset', 'gau');
                                 Shiny.setInputValue('eps_total', 100);
                                 Shiny.setInputValue('delta_total', 0.5); }""")
        set_number(page, "k", 2)
        run(page, "scree")
        wait_runs(page, 1)
        wait_message(page, "scree", "ok")
        state = budget_state(page)
        assert state["total"] == 2.0 and state["spent"] == 1.0
        assert "delta spent 2.5e-07 of 1e-05" in page.inner_text("#budget")
        with page.expect_download() as download:
            page.click("#download_ledger")
        ledger = json.loads(open(download.value.path()).read())
        assert ledger["eps_total"] == 2.0 and ledger["eps_spent"] == 1.0
        text = page.inner_text("body") + json.dumps(ledger)
        cells = {f"{v:.6g}" for v in rows.to_numpy()[:20].ravel()} | \
            {repr(float(v)) for v in rows.to_numpy()[:20].ravel()}
        assert not [c for c in cells if c in text]  # no row of the data on the page
    finally:
        stop(process)
    status = BudgetStore(store).status("survey")
    assert (status["eps_total"], status["delta_total"], status["eps_spent"]) == (2.0, 1e-5, 1.0)
    assert list(BudgetStore(store).datasets()["name"]) == ["survey"]  # nothing registered


def test_a_host_beyond_loopback_needs_allow_remote(tmp_path):
    import subprocess
    import sys

    from .conftest import ROOT

    result = subprocess.run([sys.executable, "-m", "dppca.cli", "app", "--host", "0.0.0.0",
                             "--no-browser"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode != 0 and "--allow-remote" in result.stderr
    assert "Traceback" not in result.stderr
