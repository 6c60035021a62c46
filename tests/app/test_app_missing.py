"""The app's "Missing cells" control: the policy reaches every run, is on the ledger, and
nothing the page shows depends on where (or how many) cells are missing.

Unit tests of the wiring (page values -> settings -> the package's call -> the session ledger)
run without a server; the neighbour test runs the real server over Shiny's protocol (no
browser): two uploads that differ by one empty cell must give the same text in every output.
"""
import json

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca import DPPCAValueError
from dppca.app import runs as app_runs
from dppca.app.data import prepare, read_csv_cells
from dppca.app.inputs import run_request
from dppca.app.runs import run_score, run_scree
from dppca.app.server import _ledger_of
from dppca.app.session import SessionBudget

from .conftest import start_app, stop
from .shiny_protocol import ShinyClient, text_of

#: 200 rows of gau (4 columns) with 15% of the cells emptied at random (seeded): a survey extract.
ROWS = dppca.load_gau().iloc[:200, :4].reset_index(drop=True)
HOLES = ROWS.mask(np.random.default_rng(35).random(ROWS.shape) < 0.15)
#: What a page sends for one scree and one score run (the policy inputs are added per test).
SCREE = {"k": 2, "scree_method": ["clipped"], "scree_mono": True, "center": True,
         "standardize": "none", "g_dppca": True, "eps": 1.0, "delta": 1e-6}
SCORE = {"axis_x": 1, "axis_y": 2, "score_method": ["add"], "bins_x": 4, "bins_y": 4,
         "use_group": False, "center": True, "standardize": "none", "g_dppca": True,
         "eps": 1.0, "delta": 1e-6}
#: Page choice -> (the missing= argument the run gets, the package's label on its ledger).
POLICIES = {"auto": ({"missing": "auto"}, "auto", "median imputation (auto)"),
            "median": ({"missing": "median"}, "median", "median imputation"),
            "value": ({"missing": "value", "missing_value": 2.5}, 2.5,
                      "declared value imputation")}


def data_with_holes():
    return prepare(HOLES, None, key="holes", label="holes")


def test_missing_cells_stay_missing_in_the_apps_data():
    frame = read_csv_cells(HOLES.to_csv(index=False, na_rep="").encode())
    data = prepare(frame, None, key="k", label="l")
    np.testing.assert_array_equal(np.isnan(data.features.to_numpy()), HOLES.isna().to_numpy())


@pytest.mark.parametrize("choice", sorted(POLICIES))
@pytest.mark.parametrize("kind", ["scree", "score"])
def test_the_chosen_policy_reaches_the_packages_call(monkeypatch, choice, kind):
    inputs, argument, _ = POLICIES[choice]
    seen = {}

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return "released"

    target = {"scree": "dp_scree", "score": "dp_score_plot"}[kind]
    monkeypatch.setattr(app_runs, target, spy)
    data = data_with_holes()
    settings, eps, delta = run_request(kind, {**{"scree": SCREE, "score": SCORE}[kind],
                                              **inputs}.get, data)
    assert settings["missing"] == argument
    {"scree": run_scree, "score": run_score}[kind](data, settings, eps, delta)
    assert seen["missing"] == argument and type(seen["missing"]) is type(argument)


def test_the_pages_default_is_auto():
    settings, _, _ = run_request("scree", SCREE.get, data_with_holes())  # no "missing" sent
    assert settings["missing"] == "auto"


@pytest.mark.parametrize("choice", sorted(POLICIES))
def test_the_session_ledger_names_the_policy_as_the_package_labels_it(choice):
    inputs, argument, label = POLICIES[choice]
    data = data_with_holes()
    budget = SessionBudget(5.0, 1e-5, dataset=data.label)
    for kind, page, compute in (("scree", SCREE, run_scree), ("score", SCORE, run_score)):
        settings, eps, delta = run_request(kind, {**page, **inputs}.get, data)
        released = budget.release(kind, settings, eps, delta,
                                  lambda: compute(data, settings, eps, delta),
                                  ledger_of=_ledger_of)
        ledger = getattr(released.result, "combined_ledger", None) or released.result.ledger
        assert ledger.missing == label  # the package's own label of the call's policy
        steps = list(ledger.to_frame()["step"])
        # private medians are a release on the run's ledger, within its eps; a declared
        # value releases nothing
        assert ("missing values: private column medians" in steps) == (argument != 2.5)
    table = budget.table()
    assert list(table["missing values"]) == [label, label]
    assert all(f"missing={argument:g}" in s if isinstance(argument, float) else
               f"missing={argument}" in s for s in table["settings"])
    runs = json.loads(budget.to_json())["runs"]
    assert [r["ledger"]["missing"] for r in runs] == [label, label]


def test_the_page_offers_only_policies_its_runs_can_use():
    # Every app run (scree, score) needs every cell, so the select offers no "pairwise" (it
    # would be refused on every run); the request's check still knows it (refused below).
    import re

    from dppca.app.ui import MISSING_CHOICES, missing_panel

    offered = re.findall(r'<option value="([^"]+)"', str(missing_panel()))
    assert offered == list(MISSING_CHOICES) == ["auto", "median", "value"]
    assert set(app_runs.MISSING_POLICIES) - set(offered) == {"pairwise"}
    for kind in ("scree", "score"):  # each one offered reaches the run without a refusal
        for choice in offered:
            app_runs.missing_setting({"missing": choice, "missing_value": 0.0}, kind)


@pytest.mark.parametrize("kind", ["scree", "score"])
def test_pairwise_is_refused_for_runs_that_need_every_cell_before_any_charge(kind):
    # Not in the page's select: a request forged to send it gets the reason, nothing charged.
    page = {"scree": SCREE, "score": SCORE}[kind]
    with pytest.raises(DPPCAValueError, match="needs every cell.*Nothing was charged"):
        run_request(kind, {**page, "missing": "pairwise"}.get, data_with_holes())


def test_an_empty_declared_value_or_a_forged_policy_is_refused_by_name():
    data = data_with_holes()
    with pytest.raises(DPPCAValueError, match='"Declared value for missing cells" is empty'):
        run_request("scree", {**SCREE, "missing": "value", "missing_value": None}.get, data)
    for forged in ("mean", True, ["auto"], 0):
        with pytest.raises(DPPCAValueError, match='"Missing cells" must be one of'):
            run_request("scree", {**SCREE, "missing": forged}.get, data)
    with pytest.raises(DPPCAValueError, match='"Declared value for missing cells" must be a'):
        run_request("scree", {**SCREE, "missing": "value", "missing_value": "0"}.get, data)


def test_the_scree_plan_leaves_the_medians_share_out():
    # The plan predicts the statistic's noise: with medians it gets (1 - MEDIAN_SHARE) of the run.
    # The app hands the run's whole budget and its policy to dppca.plan, which takes the share
    # out once (budget_after_shares): the app taking it out too would count it twice.
    from dppca.planning import budget_after_shares

    spent = budget_after_shares(200, 4, 2.0, 1e-6, missing="median")
    assert (spent.eps, spent.delta) == pytest.approx((1.8, 9e-7), rel=1e-12)
    spent = budget_after_shares(200, 4, 2.0, 1e-6, missing=1.0)
    assert (spent.eps, spent.delta) == (2.0, 1e-6)
    # the page's table is dppca.plan of the run's whole budget under its policy
    from dppca.app.server import _plan_table

    data = data_with_holes()
    settings, eps, delta = run_request("scree", SCREE.get, data)
    expected = dppca.plan(data.n, data.p, settings["k"], eps, delta,
                          method=list(settings["methods"]), standardize=settings["standardize"],
                          g_dppca=settings["g_dppca"], missing=settings["missing"])
    shown = str(_plan_table(data, SCREE.get, False))
    assert [f"<td>{step.predicted:.2g}</td>" in shown for step in expected.accuracy.steps] == \
        [True] * len(expected.accuracy.steps)


# --------------------------------------------------------------------------- the real server
@pytest.fixture(scope="module")
def app_url_missing():
    process, url = start_app()
    yield url
    stop(process)


#: What a page sends at its start (an upload; one method of each plot, small fixed bins).
PAGE = {"data_source": "upload", "k": 2, "eps_total": 5.0, "delta_total": 1e-5, "eps": 1.0,
        "delta": 1e-6, "scree_method": ["clipped"], "score_method": ["add"], "axis_x": 1,
        "axis_y": 2, "bins_x": 4, "bins_y": 4, "center": True, "g_dppca": True,
        "csv_header": True}


def page_text(url, csv_text: str, inputs: dict) -> str:
    """Every output's text after an upload, a scree run and a score run under ``inputs``."""
    client = ShinyClient(url, {**PAGE, **inputs})
    try:
        client.upload("survey.csv", csv_text.encode())
        client.wait_for("data_summary", "n = 200 rows")
        client.press("run_scree")
        client.wait_for("scree_plot_message", "Run 1|Nothing was charged")
        client.press("run_score")
        client.wait_for("score_plot_message", "Run 2|Nothing was charged")
        client.settle()
        return {name: text_of(html) for name, html in client.html.items()}
    finally:
        client.close()


# "median": auto's path; "pairwise": not in the page's select, a forged request (refused)
@pytest.mark.parametrize("choice", ["auto", "value", "pairwise"])
def test_two_uploads_one_missing_cell_apart_show_the_same_text(app_url_missing, choice):
    """D and D' (one more empty cell) under each policy: the page's text is the same in every
    output (data summary, budget bar, run messages, plan, ledger); the released numbers are in
    the figures and downloads only. No output counts or locates the missing cells."""
    inputs = POLICIES[choice][0] if choice in POLICIES else {"missing": "pairwise"}
    csv_d = HOLES.to_csv(index=False, na_rep="")
    holes_prime = HOLES.copy()
    row = int(np.flatnonzero(HOLES.iloc[:, 2].notna())[0])
    holes_prime.iloc[row, 2] = np.nan  # one more missing cell
    csv_prime = holes_prime.to_csv(index=False, na_rep="")
    assert csv_prime != csv_d
    seen_d, seen_prime = page_text(app_url_missing, csv_d, inputs), \
        page_text(app_url_missing, csv_prime, inputs)
    assert seen_d == seen_prime
    ledger = seen_d.get("ledger_table", "")
    if choice == "pairwise":
        assert "Nothing was charged" in seen_d["scree_plot_message"] and "0 run(s)" in \
            seen_d["budget_bar"]
    else:
        assert POLICIES[choice][2] in ledger and "2 run(s)" in seen_d["budget_bar"]
    count = str(int(HOLES.isna().to_numpy().sum()))
    assert not any(f"{count} missing" in text or f"{count} cells" in text
                   for text in seen_d.values())
