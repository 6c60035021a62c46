"""The app in a real browser (headless Chromium): plots, budget bar, refusals, uploads,
downloads and the isolation of two browser sessions. Screenshots go to the test's tmp_path."""
import base64
import json

import numpy as np
import pandas as pd
import pytest

from dppca.app.data import MAX_UPLOAD_BYTES

from .conftest import start_app, stop

pytestmark = pytest.mark.browser


# --------------------------------------------------------------------------- helpers
#: Inputs the server echoes on the expected-accuracy table (data-k, data-eps, data-delta), an
#: output Shiny re-renders only while it is visible (the scree tab).
ECHOED = ("k", "eps", "delta")


def set_number(page, id_, value):
    page.fill(f"#{id_}", str(value))
    page.press(f"#{id_}", "Tab")  # Shiny reads numeric inputs on change
    if id_ in ECHOED and page.locator("#scree-plan").is_visible():
        # wait until the server has read the value (a run clicked before that uses the old one)
        page.wait_for_selector(f"#scree-plan[data-{id_}='{float(value):g}']", state="attached")


def budget_state(page) -> dict:
    bar = page.locator("#budget")
    return {"spent": float(bar.get_attribute("data-eps-spent")),
            "total": float(bar.get_attribute("data-eps-total")),
            "delta_spent": float(bar.get_attribute("data-delta-spent")),
            "runs": int(bar.get_attribute("data-runs"))}


def wait_runs(page, runs):
    page.wait_for_selector(f"#budget[data-runs='{runs}']")


def wait_message(page, kind, data_kind):
    page.wait_for_selector(f"#{kind}-message[data-kind='{data_kind}']")
    return page.inner_text(f"#{kind}-message")


def show_tab(page, name, attempts=5):
    """Open the sidebar tab ``name`` ("Scree controls" or "Score controls"), clicking again
    until the tab is selected.

    A click can miss while the server re-renders the data summary above the tabs (new data
    after forged or changed inputs): the tabs move between mouse-down and mouse-up, the browser
    then sends the click to the two targets' common ancestor, and the tab gets the focus but is
    not opened. Seen in about 1 of 4 runs of the hostile-browser file on a loaded machine (the
    focused tab not selected). A person clicks again; so does this helper.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # with the browser

    tab = page.get_by_role("tab", name=name)
    for attempt in range(attempts):
        tab.click()
        try:
            # Bootstrap sets aria-selected in the click handler, before its fade transition
            page.wait_for_function("el => el.getAttribute('aria-selected') === 'true'",
                                   arg=tab.element_handle(), timeout=5_000)
            return
        except PlaywrightTimeoutError:
            if attempt == attempts - 1:
                raise


def run(page, kind):
    """Press the run button of "scree" or "score" (on its tab)."""
    show_tab(page, f"{kind.capitalize()} controls")
    page.click(f"#run_{kind}")


def assert_plot_rendered(page, kind):
    image = page.locator(f"#{kind}_plot img")
    image.wait_for()
    page.wait_for_function(f"document.querySelector('#{kind}_plot img').complete")
    size = image.evaluate("img => [img.naturalWidth, img.naturalHeight, img.src.length]")
    assert size[0] > 100 and size[1] > 100 and size[2] > 1000, size


def assert_no_traceback(page):
    text = page.content()
    assert "Traceback" not in text and 'File "' not in text


def select_example(page, name):
    page.check("input[name='data_source'][value='example']")
    page.select_option("#example_dataset", name)
    page.wait_for_function(
        "name => document.querySelector('#budget') && "
        "document.querySelector('#budget').textContent.includes(name)", arg=f": {name}: ")


# --------------------------------------------------------------------------- tests
@pytest.mark.parametrize("dataset", ["gau", "gau_g", "adult"])
def test_example_data_scree_and_score_render_and_spend_the_budget(app_url, new_page, dataset,
                                                                  tmp_path):
    page = new_page(app_url)
    select_example(page, dataset)
    assert budget_state(page) == {"spent": 0.0, "total": 5.0, "delta_spent": 0.0, "runs": 0}
    set_number(page, "k", 3)
    set_number(page, "eps", 0.5)
    run(page, "scree")
    wait_runs(page, 1)
    assert_plot_rendered(page, "scree")
    # Exactly the run's eps leaves the session budget (0.5 and 1.25 are exact in binary).
    assert budget_state(page)["spent"] == 0.5
    set_number(page, "eps", 0.75)
    run(page, "score")
    wait_runs(page, 2)
    assert_plot_rendered(page, "score")
    state = budget_state(page)
    assert state["spent"] == 1.25 and state["total"] == 5.0
    assert "eps spent 1.25 of 5 (3.75 left)" in page.inner_text("#budget")
    ledger = page.inner_text("#ledger")
    assert "scree" in ledger and "score" in ledger
    if dataset == "gau_g":
        assert "groups=group" in ledger
    assert_no_traceback(page)
    page.screenshot(path=tmp_path / f"app-{dataset}.png", full_page=True)


def test_over_budget_is_refused_and_cached_results_are_free(app_url, new_page, tmp_path):
    page = new_page(app_url)
    select_example(page, "gau")
    set_number(page, "eps_total", 1.5)
    page.wait_for_selector("#budget[data-eps-total='1.5']")
    set_number(page, "k", 2)
    set_number(page, "eps", 1)
    run(page, "scree")
    wait_runs(page, 1)
    assert "Run 1: released with eps = 1, delta = 2.5e-07; charged eps 1 " in \
        wait_message(page, "scree", "ok")
    # The same settings again: shown from the session's releases, nothing spent.
    run(page, "scree")
    assert "Shown again from run 1: no budget spent" in wait_message(page, "scree", "info")
    assert budget_state(page)["spent"] == 1.0
    # A second scree run composes with the first as Gaussian DP: charged less than its eps 1.
    set_number(page, "k", 3)
    run(page, "scree")
    wait_runs(page, 2)
    assert "Gaussian-DP composition" in wait_message(page, "scree", "ok")
    spent = budget_state(page)["spent"]
    assert 1.0 < spent < 1.5
    # A score run (basic composition) of eps 1 does not fit in what is left: refused.
    run(page, "score")
    text = wait_message(page, "score", "refused")
    assert "Refused" in text and f"asked 1, left {1.5 - spent:.4g}" in text
    assert budget_state(page) == {"spent": spent, "total": 1.5, "delta_spent": 5e-7, "runs": 2}
    # The total is fixed after the first run: the input is put back, with a notice.
    set_number(page, "eps_total", 100)
    page.wait_for_selector(".shiny-notification:has-text('The session total is fixed')")
    page.wait_for_function("document.querySelector('#eps_total').value === '1.5'")
    set_number(page, "k", 4)
    run(page, "scree")
    text = wait_message(page, "scree", "refused")
    assert "costs" in text and "with Gaussian-DP composition" in text
    assert "The plot shown is still the last one released" in text
    assert budget_state(page)["total"] == 1.5
    page.screenshot(path=tmp_path / "app-refused.png", full_page=True)
    assert_no_traceback(page)


def gau_scree_page(new_page, app_url):
    """A fresh session on gau with one scree run (k = 2, eps 1) released."""
    page = new_page(app_url)
    select_example(page, "gau")
    set_number(page, "k", 2)
    run(page, "scree")
    wait_runs(page, 1)
    return page


def test_changing_the_dataset_starts_a_new_budget(app_url, new_page):
    page = gau_scree_page(new_page, app_url)
    select_example(page, "adult")
    assert budget_state(page) == {"spent": 0.0, "total": 5.0, "delta_spent": 0.0, "runs": 0}
    assert page.input_value("#delta_total") == "0.000001"  # 10^-(ceil(log10 32561) + 1)
    assert page.locator("#scree_plot img").count() == 0  # gau's plot is not shown for adult
    select_example(page, "gau")  # back: gau's budget and releases are still there
    assert budget_state(page)["runs"] == 1


def upload(page, path):
    page.check("input[name='data_source'][value='upload']")
    page.set_input_files("#csv_file", str(path))


def test_an_uploaded_csv_works_with_its_group_column(app_url, new_page, tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(600, 4)) @ np.diag([3, 2, 1, 0.5]),
                         columns=["w", "x", "y", "z"])
    frame["species"] = np.repeat(["a", "b", "c"], 200)
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False)
    page = new_page(app_url)
    upload(page, path)
    # The name "species" is not group-like and the cells are never read: the user picks it.
    page.wait_for_selector("#data-summary:has-text('p = 5 variables; no group column')")
    assert page.input_value("#upload_group_col") == ""
    page.select_option("#upload_group_col", "species")
    page.wait_for_selector("#data-summary:has-text('groups: species')")
    assert "n = 600 rows, p = 4 variables; groups: species" in page.inner_text("#data-summary")
    assert budget_state(page)["total"] == 5.0 and page.input_value("#delta_total") == "0.0001"
    # The labels are declared public (200 rows each would be below the partition-selection
    # threshold at this budget: 1 + 20 ln(1e5) = 231 rows at the run's eps share 0.1).
    show_tab(page, "Score controls")
    page.fill("#group_levels", "a,b,c")
    page.press("#group_levels", "Tab")  # text inputs update on change
    run(page, "score")
    wait_runs(page, 1)
    assert_plot_rendered(page, "score")
    assert "groups=species" in page.inner_text("#ledger")
    page.screenshot(path=tmp_path / "app-upload.png", full_page=True)


@pytest.mark.parametrize("name, content, message", [
    ("notes.txt", "a,b\n1,2\n", "is not a CSV file"),
    ("empty.csv", "", "is empty"),
    ("one.csv", "a\n1\n2\n", "at least 2 variables"),  # p from the header (public)
])
def test_bad_uploads_show_a_message_not_a_traceback(app_url, new_page, tmp_path, name, content,
                                                    message):
    path = tmp_path / name
    path.write_text(content)
    page = new_page(app_url)
    upload(page, path)
    page.wait_for_selector("#data-message[data-kind='error']")
    assert message in page.inner_text("#data-message")
    assert message in page.inner_text("#no-data")  # also above the plots
    run(page, "scree")  # a run without valid data is refused with the same message
    assert message in wait_message(page, "scree", "error")
    assert_no_traceback(page)


def test_an_upload_over_the_size_limit_is_refused(app_url, new_page, tmp_path):
    path = tmp_path / "huge.csv"
    row = "1.0,2.0,3.0\n"
    path.write_text("a,b,c\n" + row * (MAX_UPLOAD_BYTES // len(row) + 1))
    page = new_page(app_url)
    upload(page, path)
    page.wait_for_selector("#data-message[data-kind='error']")
    assert "the app accepts CSV files up to 20 MB" in page.inner_text("#data-message")
    page.screenshot(path=tmp_path / "app-too-large.png", full_page=True)


def test_two_browser_sessions_never_share_data_or_budgets(app_url, new_page, tmp_path):
    first, second = gau_scree_page(new_page, app_url), new_page(app_url)
    select_example(second, "gau")
    assert budget_state(first)["spent"] == 1.0
    second.reload()
    second.wait_for_selector("#budget")
    select_example(second, "gau")
    assert budget_state(second) == {"spent": 0.0, "total": 5.0, "delta_spent": 0.0, "runs": 0}
    assert second.locator("#scree_plot img").count() == 0
    assert "Nothing released yet" in second.inner_text("#ledger_table")
    # An upload in the second session is not offered to the first.
    path = tmp_path / "private.csv"
    pd.DataFrame({"secret_a": [1.0, 2, 3, 4], "secret_b": [2.0, 1, 4, 3]}).to_csv(path, index=False)
    upload(second, path)
    second.wait_for_selector("#data-summary:has-text('private.csv')")
    first.check("input[name='data_source'][value='upload']")
    assert "private.csv" not in first.content() and "secret_a" not in first.content()


def test_figure_download_before_any_run_says_so(app_url, new_page, tmp_path):
    """Issue 24 finding 11: the button gave a 0-byte file before any run."""
    from dppca.app.runs import placeholder_figure, png_bytes

    page = new_page(app_url)
    select_example(page, "gau")
    for kind in ("scree", "score"):
        with page.expect_download() as download:
            page.click(f"#download_{kind}_png")
        path = tmp_path / f"before-{kind}.png"
        download.value.save_as(path)
        # the message figure of runs.placeholder_figure (its text is tested in test_app_logic)
        assert path.read_bytes() == png_bytes(placeholder_figure(kind))
    assert budget_state(page)["runs"] == 0


def test_downloads_of_figures_tables_and_ledger(app_url, new_page, tmp_path):
    page = gau_scree_page(new_page, app_url)
    assert_plot_rendered(page, "scree")
    files = {}
    for button in ("download_scree_png", "download_scree_csv", "download_ledger"):
        with page.expect_download() as download:
            page.click(f"#{button}")
        files[button] = tmp_path / download.value.suggested_filename
        download.value.save_as(files[button])
    # the downloaded figure is the one the page shows (the <img> carries it inline)
    src = page.locator("#scree_plot img").get_attribute("src")
    assert src.startswith("data:image/png;base64,")
    assert files["download_scree_png"].read_bytes() == base64.b64decode(src.split(",", 1)[1])
    table = pd.read_csv(files["download_scree_csv"])
    assert set(table["method"]) == {"clipped", "pmwm", "huber"} and len(table) == 6
    ledger = json.loads(files["download_ledger"].read_text())
    assert ledger["eps_spent"] == 1.0 and ledger["runs"][0]["plot"] == "scree"
    # The run's own ledger (every release inside it) fits in the run's budget.
    assert ledger["runs"][0]["ledger"]["spent_eps"] <= 1.0 * (1 + 1e-9)


def test_provided_data_and_a_fixed_total_from_the_command_line(new_page, tmp_path):
    process, url = start_app("--data", "gau_g", "--eps-total", "2", "--delta-total", "1e-6")
    try:
        page = new_page(url)
        assert page.is_checked("input[name='data_source'][value='provided']")
        assert "groups: group" in page.inner_text("#data-summary")
        assert budget_state(page)["total"] == 2.0
        assert page.locator("#eps_total").count() == 0  # the total cannot be changed in the page
        assert "Session total: eps = 2, delta = 1e-06" in page.content()
        set_number(page, "eps", 1.5)
        run(page, "score")
        wait_runs(page, 1)
        assert_plot_rendered(page, "score")
        set_number(page, "eps", 1)
        run(page, "scree")
        assert "asked 1, left 0.5" in wait_message(page, "scree", "refused")
        page.screenshot(path=tmp_path / "app-provided.png", full_page=True)
    finally:
        stop(process)
