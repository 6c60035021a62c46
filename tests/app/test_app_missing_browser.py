"""The "Missing cells" control in a real browser (headless Chromium): choose a policy, run, and
read it on the session ledger. Screenshots go to the test's tmp_path."""
import numpy as np
import pandas as pd
import pytest

from .test_app_browser import (assert_no_traceback, assert_plot_rendered, run, set_number, upload,
                               wait_message, wait_runs)

pytestmark = pytest.mark.browser


def test_the_missing_cells_policy_is_chosen_in_the_page_and_named_on_the_ledger(app_url, new_page,
                                                                                tmp_path):
    # A survey extract: 2000 rows, 4 variables, 15% of the cells empty (seeded).
    rng = np.random.default_rng(35)
    frame = pd.DataFrame(rng.normal(size=(2000, 4)) @ np.diag([3, 2, 1, 0.5]),
                         columns=["income", "age", "hours", "visits"])
    frame = frame.mask(rng.random(frame.shape) < 0.15)
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False, na_rep="")
    page = new_page(app_url)
    upload(page, path)
    page.wait_for_selector("#data-summary:has-text('n = 2000 rows, p = 4 variables')")
    # The default is auto; the declared value's field shows only for "declared value".
    assert page.input_value("#missing") == "auto"
    assert not page.locator("#missing_value").is_visible()
    page.select_option("#missing", "median")
    set_number(page, "k", 2)
    set_number(page, "eps", 2)
    run(page, "scree")
    wait_runs(page, 1)
    assert "Run 1: released" in wait_message(page, "scree", "ok")
    assert_plot_rendered(page, "scree")
    page.select_option("#missing", "value")
    page.wait_for_selector("#missing_value", state="visible")
    assert page.input_value("#missing_value") == "0"
    set_number(page, "missing_value", 1)
    run(page, "score")
    wait_runs(page, 2)
    assert_plot_rendered(page, "score")
    ledger = page.inner_text("#ledger")
    assert "missing=median" in ledger and "median imputation" in ledger
    assert "missing=1" in ledger and "declared value imputation" in ledger
    # Nothing on the page counts the missing cells (how many there are is private).
    count = int(frame.isna().to_numpy().sum())
    assert f"{count} missing" not in page.inner_text("body")
    page.screenshot(path=tmp_path / "app-missing.png", full_page=True)
    # Pairwise-present is not offered: every run here needs every cell (a forged request is
    # refused by the server: tests/app/test_app_missing.py).
    options = page.locator("#missing option").evaluate_all("options => options.map(o => o.value)")
    assert options == ["auto", "median", "value"]
    assert "pairwise" not in page.inner_text("#missing-help").lower()
    assert_no_traceback(page)
