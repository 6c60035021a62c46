"""A hostile analyst in headless Chromium: forged inputs from the browser's console.

``Shiny.setInputValue(id, value)`` sends any value for any input id, also ids the page does not
show. For every input id of both modes and values of every type: the session keeps answering
(no grey "disconnected" page), no file outside the session's uploads is read, and operator mode
releases nothing non-private. Blank and text fields typed in the page give messages too.
"""
import json

import pytest

import dppca
from dppca.privacy import BudgetStore

from .conftest import start_app, stop
from .test_app_browser import run, set_number, show_tab, wait_message

pytestmark = pytest.mark.browser

PAGE_IDS = ("data_source", "example_dataset", "csv_file", "csv_header", "upload_group_col",
            "eps_total", "delta_total", "eps", "delta", "k", "center", "standardize", "g_dppca",
            "scree_method", "scree_type", "scree_mono", "C_clip", "pmwm_a", "pmwm_b",
            "pmwm_trim_const", "pmwm_eta", "pmwm_beta", "pmwm_split_mode", "huber_k_min_m2",
            "huber_k_max_m2", "huber_m2_frac", "huber_mu0", "huber_eta0", "huber_T", "huber_M",
            "axis_x", "axis_y", "score_method", "bins_x", "bins_y", "use_group", "group_levels")
FORGED = ["", "abc", None, True, [1, "x"], {"datapath": "/etc/passwd"}, -1, 1e308,
          [{"name": "x.csv", "datapath": "/etc/passwd"}]]
PASSWD = "root:x:0:0"


def forge(page, values: dict):
    page.evaluate("values => { for (const [id, v] of Object.entries(values)) "
                  "Shiny.setInputValue(id, v, {priority: 'event'}); }", values)


#: Valid values of every input (what the page sends untouched), to put back after forging.
VALID = {input_id: None for input_id in PAGE_IDS} | {
    "data_source": "example", "example_dataset": "gau_g", "csv_header": True, "eps_total": 5,
    "delta_total": 1e-5, "eps": 1, "delta": 2e-6, "k": 2, "center": True, "standardize": False,
    "g_dppca": True, "scree_method": ["clipped"], "scree_type": "pve", "scree_mono": True,
    "pmwm_split_mode": False, "axis_x": 1, "axis_y": 2, "score_method": ["add"],
    "use_group": True, "group_levels": "", "upload_group_col": ""}


def assert_connected(page):
    """The session still answers: connected, no grey overlay, and a new value is rendered."""
    assert page.evaluate("Shiny.shinyapp.isConnected()")
    assert page.locator("#shiny-disconnected-overlay").count() == 0
    forge(page, VALID)
    show_tab(page, "Scree controls")
    # let the valid values reach the server and its answers (new data reset k) come back
    page.wait_for_timeout(1000)
    page.wait_for_function("!document.documentElement.classList.contains('shiny-busy')")
    page.wait_for_selector("#scree-plan[data-eps='1']", state="attached")
    set_number(page, "k", 3)  # the expected-accuracy table echoes k once the server read it
    set_number(page, "k", 2)


def test_a_forged_upload_path_shows_a_message_and_reads_nothing(app_url, new_page):
    page = new_page(app_url)
    forge(page, {"data_source": "upload",
                 "csv_file": [{"name": "x.csv", "datapath": "/etc/passwd", "size": 1, "type": ""}]})
    page.check("input[name='data_source'][value='upload']")
    # the server's answer replaces the page's own prompt: wait for it (not just for the element)
    page.wait_for_function("(document.querySelector('#data-message') || {innerText: ''})"
                           ".innerText.includes('reads only files uploaded through this page')",
                           timeout=30_000)
    assert PASSWD not in page.inner_text("body")
    page.check("input[name='data_source'][value='example']")
    assert_connected(page)


@pytest.mark.parametrize("typed", ["", "1e", "abc"])
def test_a_blank_or_text_eps_is_a_message_not_a_dead_page(app_url, new_page, typed):
    page = new_page(app_url)
    page.fill("#eps", "")
    page.locator("#eps").press_sequentially(typed)  # not a number: the browser sends null
    page.press("#eps", "Tab")
    run(page, "scree")
    assert '"eps of each run"' in wait_message(page, "scree", "error")
    forge(page, {"eps": "1"})  # a string from the console
    run(page, "scree")
    page.wait_for_function("document.querySelector('#scree-message').textContent"
                           ".includes('must be a number')")
    assert_connected(page)


@pytest.mark.parametrize("value", FORGED, ids=repr)
def test_every_input_id_forged_keeps_the_session(app_url, new_page, value):
    page = new_page(app_url)
    for input_id in PAGE_IDS:
        forge(page, {input_id: value})
    run(page, "scree")
    run(page, "score")
    page.wait_for_timeout(500)  # not a timing assertion: let the forged values reach the server
    assert PASSWD not in page.inner_text("body")
    forge(page, {"data_source": "example", "example_dataset": "gau_g"})
    assert_connected(page)


@pytest.fixture(scope="module")
def operator_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("operator")
    store = "sqlite:///" + str(folder / "budget.sqlite3")
    rows = dppca.load_gau().iloc[:200, :4]
    rows.to_csv(folder / "survey.csv", index=False)
    BudgetStore(store).register("survey", eps=100.0, delta=1e-3, values=rows.to_numpy())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DPPCA_BUDGET_URL", store)
        process, url = start_app("--data", str(folder / "survey.csv"), "--budget", "survey")
    yield url, store
    stop(process)


def test_operator_mode_offers_and_releases_nothing_nonprivate(operator_url, new_page):
    url, store = operator_url
    page = new_page(url)
    assert page.locator("#g_dppca").count() == 0 and "NON-PRIVATE" not in page.inner_text("body")
    assert "survey.csv" in page.inner_text("#served-data")
    assert "'survey'" in page.inner_text("#served-budget")
    runs = BudgetStore(store).status("survey")["runs"]
    for forged in (False, "false", 0):
        forge(page, {"g_dppca": forged})
        run(page, "score")
        page.wait_for_function("document.querySelector('#score-message') && document."
                               "querySelector('#score-message').dataset.kind === 'refused'")
        assert "releases private results only" in page.inner_text("#score-message")
    assert BudgetStore(store).status("survey")["runs"] == runs  # nothing charged, nothing released
    assert_connected(page)


@pytest.mark.parametrize("value", FORGED, ids=repr)
def test_operator_mode_survives_every_forged_input(operator_url, new_page, value):
    url, store = operator_url
    page = new_page(url)
    forge(page, {input_id: value for input_id in PAGE_IDS})
    run(page, "scree")
    run(page, "score")
    page.wait_for_timeout(500)
    assert PASSWD not in page.inner_text("body")
    log = BudgetStore(store).log("survey")
    # every charged run was a private one (the settings the store logged)
    assert all(json.loads(s).get("settings", json.loads(s)).get("g_dppca", True) is True
               for s in log["settings"]), log["settings"].tolist()
    assert_connected(page)


def test_the_delta_bar_label_is_shown_whole(app_url, new_page):
    page = new_page(app_url)
    set_number(page, "eps", 0.5)
    run(page, "scree")
    wait_message(page, "scree", "ok")  # delta 1/40 of the total spent: a bar 2.5% wide
    label = page.locator("#budget-delta-label")
    assert label.count() == 1 and label.inner_text() == "delta: 2% spent"
    assert label.evaluate("e => e.scrollWidth <= e.clientWidth")
