"""A hostile client at the protocol level (no browser): the real server, forged messages.

A page's console can send any value for any input id (``Shiny.setInputValue``); these tests
send the same ``update`` messages over Shiny's WebSocket and check that the session keeps
answering (no value stops it), that the server opens no file it did not receive as this
session's upload, and that operator mode releases nothing non-private and charges nothing for
a refused run. The browser's own view of the same attacks is ``test_app_hostile_browser.py``.
"""
import glob
import os
import subprocess
import sys
import urllib.request

import pytest

import dppca
from dppca.privacy import BudgetStore

from .conftest import ROOT, start_app, stop
from .shiny_protocol import ShinyClient, text_of

pytest.importorskip("websockets")

#: Every input id of the page (both modes), and forged values of every JSON type.
INPUT_IDS = ("data_source", "example_dataset", "csv_file", "csv_header", "upload_group_col",
             "eps_total", "delta_total", "eps", "delta", "k", "center", "standardize", "g_dppca",
             "scree_method", "scree_type", "scree_mono", "C_clip", "pmwm_a", "pmwm_b",
             "pmwm_trim_const", "pmwm_eta", "pmwm_beta", "pmwm_split_mode", "huber_k_min_m2",
             "huber_k_max_m2", "huber_m2_frac", "huber_mu0", "huber_eta0", "huber_T", "huber_M",
             "axis_x", "axis_y", "score_method", "bins_x", "bins_y", "use_group", "group_levels",
             "missing", "missing_value", "settings_tab")
DATA_IDS = ("data_source", "example_dataset", "csv_file")
FORGED = ("", "abc", None, True, [1, "x"], {"datapath": "/etc/passwd"}, -1, 1e308,
          [{"name": "x.csv", "datapath": "/etc/passwd"}])
PASSWD = "root:x:0:0"
SMALL = dppca.load_gau().iloc[:200, :4]


@pytest.fixture(scope="module")
def plain_app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plain")
    SMALL.to_csv(folder / "small.csv", index=False)  # "Provided data": runs that take a moment
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(folder))  # the server's uploads land here (the test sees them)
        process, url = start_app("--data", str(folder / "small.csv"))
    yield url, folder
    stop(process)


@pytest.fixture(scope="module")
def operator_app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("operator")
    store = "sqlite:///" + str(folder / "budget.sqlite3")
    data = folder / "survey.csv"
    SMALL.to_csv(data, index=False)
    BudgetStore(store).register("survey", eps=1000.0, delta=1e-2, values=SMALL.to_numpy())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DPPCA_BUDGET_URL", store)
        process, url = start_app("--data", str(data), "--budget", "survey",
                                 "--user-header", "X-Forwarded-User")
    yield url, store
    stop(process)


#: What a page sends at its start (the provided data, one method of each plot).
PAGE = {"data_source": "provided", "example_dataset": "gau", "k": 2, "eps_total": 5.0,
        "delta_total": 1e-5, "eps": 1.0, "delta": 1e-6, "scree_method": ["clipped"],
        "score_method": ["add"], "axis_x": 1, "axis_y": 2, "center": True, "g_dppca": True}


def example_page(url):
    return ShinyClient(url, PAGE)


def all_text(client) -> str:
    return " ".join(text_of(html) for html in client.html.values()) + str(client.errors)


# --------------------------------------------------------------------------- uploads
def test_a_forged_upload_path_is_not_read(plain_app):
    url, _ = plain_app
    client = example_page(url)
    client.update(data_source="upload",
                  csv_file=[{"name": "x.csv", "datapath": "/etc/passwd", "size": 1, "type": ""}])
    message = text_of(client.wait_for("data_summary", "data-message"))
    assert "reads only files uploaded through this page" in message
    assert PASSWD not in all_text(client) and client.alive()
    client.close()


def test_another_sessions_upload_is_not_read_but_the_sessions_own_is(plain_app):
    url, folder = plain_app
    owner, thief = example_page(url), example_page(url)
    owner.update(data_source="upload")
    owner.upload("mine.csv", SMALL.to_csv(index=False).encode())
    assert "upload: mine.csv: n = 200 rows, p = 4 variables" in text_of(owner.html["data_summary"])
    [path] = glob.glob(str(folder / "fileupload-*" / "*" / "0.csv"))  # the owner's upload
    thief.update(data_source="upload",
                 csv_file=[{"name": "mine.csv", "datapath": path, "size": 1, "type": ""}])
    assert "reads only files uploaded" in text_of(thief.wait_for("data_summary", "data-message"))
    # a path that climbs out of the session's own folder is refused too
    thief.upload("own.csv", b"a,b\n1,2\n3,4\n")
    [own] = [p for p in glob.glob(str(folder / "fileupload-*" / "*" / "0.csv")) if p != path]
    thief.update(csv_file=[{"name": "x.csv", "datapath": own + "/../../../" +
                            os.path.relpath(path, folder), "size": 1, "type": ""}])
    assert "reads only files uploaded" in text_of(thief.wait_for("data_summary", "data-message"))
    assert thief.alive() and owner.alive()
    owner.close(), thief.close()


# --------------------------------------------------------------------------- forged values
@pytest.mark.parametrize("value", FORGED, ids=repr)
def test_no_forged_value_stops_a_session(plain_app, value):
    """Every input id at once (but the data's: forged alone below), then each run: the session
    answers, and no file is read."""
    url, _ = plain_app
    client = example_page(url)
    client.update(**{input_id: value for input_id in INPUT_IDS if input_id not in DATA_IDS})
    client.press("run_scree")
    client.press("run_score")
    assert client.alive() and PASSWD not in all_text(client)
    client.close()


def test_no_input_id_forged_alone_stops_a_session(plain_app):
    """Each input id alone with text where the page sends a number, a flag or a list."""
    url, _ = plain_app
    client = example_page(url)
    for input_id in INPUT_IDS:
        client.update(**{input_id: "abc"})
        client.press("run_scree")
        client.press("run_score")
        assert client.alive(), input_id
        client.update(**{input_id: PAGE.get(input_id)})
    assert PASSWD not in all_text(client)
    client.close()


@pytest.mark.parametrize("eps", [None, "", "1", [1]], ids=repr)
def test_a_blank_or_text_eps_is_a_message(plain_app, eps):
    url, _ = plain_app
    client = example_page(url)
    client.update(eps=eps)
    client.press("run_scree")
    message = text_of(client.wait_for("scree_plot_message", "scree-message"))
    assert '"eps of each run"' in message and client.alive()
    assert client.html["budget_bar"].count('data-runs="0"') == 1  # nothing was charged
    client.close()


# --------------------------------------------------------------------------- operator mode
def test_operator_page_has_no_nonprivate_option_and_names_what_it_serves(operator_app):
    url, _ = operator_app
    page = urllib.request.urlopen(url, timeout=30).read().decode()
    for absent in ('id="g_dppca"', "NON-PRIVATE directions", 'id="csv_file"',
                   'id="data_source"', 'id="eps_total"'):
        assert absent not in page, absent
    assert "survey.csv" in page and "'survey'" in page and 'id="operator-mode"' in page


@pytest.mark.parametrize("forged", [False, 0, "false", "", [False]], ids=repr)
def test_operator_mode_refuses_forged_nonprivate_directions(operator_app, forged):
    url, store = operator_app
    before = BudgetStore(store).status("survey")["runs"]
    client = ShinyClient(url, {"k": 2, "eps": 1.0, "delta": 1e-6, "scree_method": ["clipped"],
                               "score_method": ["add"], "axis_x": 1, "axis_y": 2},
                         headers={"X-Forwarded-User": "alice"})
    client.update(g_dppca=forged)
    for kind in ("scree", "score"):
        client.press(f"run_{kind}")
        message = text_of(client.wait_for(f"{kind}_plot_message", f"{kind}-message"))
        assert "releases private results only" in message or "must be ticked" in message, message
    assert BudgetStore(store).status("survey")["runs"] == before  # refused before any charge
    assert client.alive()
    client.close()


def test_operator_mode_ignores_forged_sources_and_totals(operator_app):
    url, store = operator_app
    client = ShinyClient(url, {"k": 2, "eps": 1.0, "delta": 1e-6, "scree_method": ["clipped"]},
                         headers={"X-Forwarded-User": "alice"})
    client.update(data_source="upload", example_dataset="adult", eps_total=1e6,
                  csv_file=[{"name": "x.csv", "datapath": "/etc/passwd", "size": 1, "type": ""}])
    bar = text_of(client.html["budget_bar"])
    assert "survey (registered)" in bar and "of 1000" in bar and PASSWD not in all_text(client)
    client.close()


def test_app_runs_are_logged_with_the_proxys_analyst_and_the_bar_counts_every_session(
        operator_app):
    url, store = operator_app
    first = ShinyClient(url, {"k": 2, "eps": 0.5, "delta": 1e-6, "scree_method": ["clipped"]},
                        headers={"X-Forwarded-User": "alice@example.org"})
    runs = BudgetStore(store).status("survey")["runs"]
    first.press("run_scree")
    first.wait_for("scree_plot_message", 'data-kind="ok"')
    assert "alice@example.org" in BudgetStore(store).log("survey").iloc[-1].to_json()
    reloaded = ShinyClient(url, {"k": 2}, headers={"X-Forwarded-User": "bob"})  # a reload
    assert f'data-runs="{runs + 1}"' in reloaded.wait_for("budget_bar", "data-runs")
    # a page that did not come through the proxy (no header) can run nothing
    stranger = ShinyClient(url, {"k": 3, "eps": 0.5, "delta": 1e-6, "scree_method": ["clipped"]})
    stranger.press("run_scree")
    assert "X-Forwarded-User" in text_of(stranger.wait_for("scree_plot_message", "scree-message"))
    assert BudgetStore(store).status("survey")["runs"] == runs + 1
    for client in (first, reloaded, stranger):
        client.close()


# --------------------------------------------------------------------------- the command
def run_cli(*arguments, env=None, prelude=""):
    code = f"{prelude}\nimport sys\nfrom dppca.cli import main\nsys.exit(main({list(arguments)!r}))"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})), timeout=300)


def test_operator_mode_refuses_data_that_are_not_the_registered_ones(tmp_path):
    store = "sqlite:///" + str(tmp_path / "budget.sqlite3")
    data, other = tmp_path / "survey.csv", tmp_path / "other.csv"
    SMALL.to_csv(data, index=False)
    SMALL.iloc[::-1].assign(V1=SMALL["V1"] + 1).to_csv(other, index=False)
    BudgetStore(store).register("survey", eps=1.0, delta=1e-5, values=SMALL.to_numpy())
    BudgetStore(store).register("unbound", eps=1.0, delta=1e-5)
    for budget, path, expected in (("survey", other, "fingerprint differs"),
                                   ("unbound", data, "has no fingerprint")):
        result = run_cli("app", "--data", str(path), "--budget", budget, "--no-browser",
                         env={"DPPCA_BUDGET_URL": store})
        assert result.returncode == 2 and expected in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_the_app_without_its_extra_names_the_extra():
    blocker = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
               "        if name.split('.')[0] in ('shiny', 'uvicorn'):\n"
               "            raise ModuleNotFoundError(f'No module named {name!r}')\n"
               "sys.meta_path.insert(0, Block())")
    result = run_cli("app", "--no-browser", prelude=blocker)
    assert result.returncode == 2 and 'pip install "dppca[app]"' in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
