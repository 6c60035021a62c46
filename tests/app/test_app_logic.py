"""The app's server logic without a browser: budget accounting, cache, data, settings."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCAValueError
from dppca.app import create_app
from dppca.app.data import (MAX_UPLOAD_BYTES, AppDataError, default_delta, example_data,
                            infer_group_column, prepare, read_upload)
from dppca.app.runs import (SCREE_MIN_ROWS, placeholder_figure, png_bytes, run_score, run_scree,
                            score_settings, scree_png, scree_settings)
from dppca.app.session import BudgetExceeded, SessionBudget


# --------------------------------------------------------------------------- budget
class Counter:
    """A compute function that counts its calls (each call would be a fresh release)."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return f"result {self.calls}"


def test_runs_draw_from_the_total_by_basic_composition():
    budget = SessionBudget(2.0, 1e-5)
    compute = Counter()
    budget.release("scree", {"k": 2}, 0.5, 2e-6, compute)
    budget.release("score", {"axes": (1, 2)}, 1.0, 3e-6, compute)
    # Basic composition: spent = sum of the runs' (eps, delta); exact in binary for these eps.
    assert budget.spent[0] == 1.5 and budget.remaining[0] == 0.5
    assert budget.spent[1] == pytest.approx(5e-6, rel=1e-12)
    assert compute.calls == 2
    assert list(budget.table()["eps spent so far"]) == [0.5, 1.5]


def test_a_run_over_budget_is_refused_before_computing():
    budget = SessionBudget(1.0, 1e-5)
    compute = Counter()
    budget.release("scree", {"k": 2}, 0.75, 1e-6, compute)
    with pytest.raises(BudgetExceeded, match=r"asked 0.5, left 0.25"):
        budget.release("scree", {"k": 3}, 0.5, 1e-6, compute)
    with pytest.raises(BudgetExceeded, match="delta: asked"):
        budget.release("scree", {"k": 3}, 0.1, 2e-5, compute)
    assert compute.calls == 1 and len(budget.runs) == 1 and budget.spent[0] == 0.75


def test_the_whole_total_can_be_spent_in_equal_parts():
    # Five runs of eps/5 must fit although 5 x 0.2 != 1 in floating point (relative slack).
    budget = SessionBudget(1.0, 1e-5)
    for i in range(5):
        budget.release("scree", {"k": i}, 0.2, 2e-6, Counter())
    assert budget.remaining[0] == pytest.approx(0, abs=1e-12)
    with pytest.raises(BudgetExceeded):
        budget.release("scree", {"k": 9}, 1e-3, 1e-9, Counter())


def test_the_same_settings_are_shown_again_for_free():
    budget = SessionBudget(1.0, 1e-5)
    compute = Counter()
    first = budget.release("score", {"axes": (1, 2)}, 0.5, 1e-6, compute)
    again = budget.release("score", {"axes": (1, 2)}, 0.5, 1e-6, compute)
    assert (first.cached, again.cached) == (False, True) and first.result is again.result
    assert first.run == again.run == 1 and (first.charged, again.charged) == (0.5, 0.0)
    assert compute.calls == 1 and budget.spent[0] == 0.5
    # A different budget or setting is a new release.
    budget.release("score", {"axes": (1, 3)}, 0.5, 1e-6, compute)
    assert compute.calls == 2 and budget.spent[0] == 1.0


def test_the_total_is_fixed_at_the_first_run():
    budget = SessionBudget(1.0, 1e-5)
    budget.set_total(3.0, 1e-6)  # before any run: allowed
    assert (budget.eps_total, budget.delta_total) == (3.0, 1e-6)
    budget.release("scree", {}, 1.0, 1e-7, Counter())
    with pytest.raises(DPPCAValueError, match="fixed"):
        budget.set_total(10.0, 1e-6)
    budget.set_total(3.0, 1e-6)  # the same total is not a change
    with pytest.raises(DPPCAValueError, match="eps_total"):
        SessionBudget(0, 1e-5)


def test_a_failed_run_stays_charged():
    """A run that fails after its checks may have computed private steps, and its failure may
    depend on the data: it is charged (by basic composition) whatever the outcome."""
    budget = SessionBudget(1.0, 1e-5)

    def fails():
        raise np.linalg.LinAlgError("SVD did not converge")

    with pytest.raises(np.linalg.LinAlgError):
        budget.release("scree", {}, 0.5, 1e-6, fails, gaussian=True)
    assert budget.spent == (0.5, 1e-6) and budget.fixed
    assert budget.runs[0].mu is None


def test_the_ledger_json_lists_every_run_with_its_own_ledger():
    budget = SessionBudget(1.0, 1e-5, dataset="gau")
    budget.release("scree", {"k": 2}, 0.5, 1e-6, Counter(), ledger_of=lambda r: {"eps": 0.5})
    payload = json.loads(budget.to_json())
    assert payload["eps_total"] == 1.0 and payload["eps_spent"] == 0.5
    assert payload["runs"][0]["ledger"] == {"eps": 0.5} and payload["runs"][0]["plot"] == "scree"


def gdp_delta(mu, eps):
    """Privacy profile of mu-GDP (Dong, Roth and Su 2022, Cor 2.13), written out here."""
    from scipy.stats import norm
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def test_gaussian_dp_runs_compose_as_gaussian_dp():
    from dppca.app.session import gdp_mu
    from dppca.privacy import gaussian_sigma

    budget = SessionBudget(5.0, 1e-5)
    first = budget.release("scree", {"k": 2}, 1.0, 1e-6, Counter(), gaussian=True)
    assert first.charged == 1.0  # one run: exactly its eps
    second = budget.release("scree", {"k": 3}, 1.0, 1e-6, Counter(), gaussian=True)
    spent = budget.spent[0]
    assert spent == pytest.approx(1.0 + second.charged, rel=1e-12) and spent < 2.0
    # The spent eps is where the sqrt(2) mu-GDP profile reaches the summed delta (exact
    # formula, 1e-6 relative: the root solver's tolerance is 1e-12 on eps).
    mu = math.sqrt(2) / gaussian_sigma(1.0, 1.0, 1e-6, "analytic")
    assert mu == pytest.approx(math.sqrt(2) * gdp_mu(1.0, 1e-6), rel=1e-12)
    assert gdp_delta(mu, spent) == pytest.approx(2e-6, rel=1e-6)
    # Independent accountant: dp_accounting's PLD (pessimistic discretisation: a little above).
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    accountant = pld_privacy_accountant.PLDAccountant()
    accountant.compose(dp_event.GaussianDpEvent(1.0 / gdp_mu(1.0, 1e-6)), 2)
    assert spent <= accountant.get_epsilon(2e-6) <= spent + 0.02
    assert [r["composition"] for _, r in budget.table().iterrows()] == ["Gaussian DP"] * 2


def test_basic_runs_add_to_the_gaussian_dp_part():
    budget = SessionBudget(5.0, 1e-5)
    budget.release("scree", {"k": 2}, 1.0, 1e-6, Counter(), gaussian=True)
    budget.release("score", {"a": 1}, 0.5, 1e-6, Counter())
    gdp_only = budget.spent[0] - 0.5
    assert gdp_only == 1.0
    third = budget.release("scree", {"k": 3}, 1.0, 1e-6, Counter(), gaussian=True)
    assert third.charged < 1.0 and budget.spent[1] == pytest.approx(3e-6, rel=1e-12)


def test_the_spent_eps_never_goes_down():
    # A small Gaussian run adds delta, which can lower the composed eps: charged 0, not < 0.
    budget = SessionBudget(5.0, 1e-5)
    for k, eps in [(2, 1.0), (3, 1.0), (4, 0.25)]:
        budget.release("scree", {"k": k}, eps, 2e-6, Counter(), gaussian=True)
    assert [run.charged >= 0 for run in budget.runs] == [True] * 3 and budget.runs[2].charged == 0


def test_a_run_that_turns_out_not_gaussian_is_composed_basically():
    budget = SessionBudget(5.0, 1e-5)
    budget.release("scree", {"k": 2}, 1.0, 1e-6, Counter(), gaussian=True)
    second = budget.release("scree", {"k": 3}, 1.0, 1e-6, Counter(), gaussian=True,
                            confirm=lambda result: False)
    assert second.charged == 1.0 and budget.runs[1].mu is None


def test_a_refusal_says_what_the_run_would_cost():
    budget = SessionBudget(1.3, 1e-5)
    budget.release("scree", {"k": 2}, 1.0, 1e-6, Counter(), gaussian=True)
    with pytest.raises(BudgetExceeded, match=r"asked 1 \(costs 0.40\d* with Gaussian-DP composition\)"):
        budget.release("scree", {"k": 3}, 1.0, 1e-6, Counter(), gaussian=True)


def test_scree_runs_are_gaussian_unless_r_tuning_is_asked():
    from dppca.app.runs import all_gaussian, scree_is_gaussian
    data = example_data("gau")
    settings = scree_settings(SCREE_VALUES, data)
    assert scree_is_gaussian(settings)
    assert all_gaussian(run_scree(data, settings, 1.0, 1e-6))
    r_tuned = scree_settings(SCREE_VALUES | {"scree_method": ["huber"], "huber_k_min_m2": -10,
                                             "huber_k_max_m2": 10}, data)
    assert not scree_is_gaussian(r_tuned)
    assert not all_gaussian(run_scree(data, r_tuned, 1.0, 1e-6))


# --------------------------------------------------------------------------- data
def test_default_delta_is_below_one_over_ten_n():
    for n in (2, 500, 1000, 5000, 32561):
        assert default_delta(n) <= 1 / (10 * n)
    assert default_delta(5000) == 1e-5 and default_delta(32561) == 1e-6


@pytest.mark.parametrize("columns, expected", [
    (["x", "y", "Group"], "Group"),            # rule 1: a group-like name (any case)
    (["x", "colour", "kind"], "colour"),
    (["x", "y", "kind"], None),                # a text column is not guessed: values are never read
    (["x", "y", "z"], None),
])
def test_group_column_inferred_from_the_header_only(columns, expected):
    frame = pd.DataFrame({c: ["a", "b", "c"] for c in columns})
    assert infer_group_column(frame.columns) == expected
    assert prepare(frame, None, key="k", label="l").group_name == expected


def test_integer_columns_with_few_values_are_not_taken_as_groups():
    # R's rule 3 reads the values (private); here adult keeps all 5 columns as variables.
    data = example_data("adult")
    assert data.labels is None and data.p == 5


def test_example_datasets():
    grouped = example_data("gau_g")
    assert grouped.p == 20 and grouped.group_name == "group" and grouped.labels.nunique() == 5
    assert "group" not in grouped.features.columns
    assert example_data("gau").labels is None
    with pytest.raises(AppDataError, match="unknown example"):
        example_data("iris")


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def test_upload_reads_a_csv_with_or_without_header(tmp_path):
    path = write(tmp_path, "d.csv", "a,b,g\n1,2,x\n3,5,y\n4,4,x\n")
    frame = read_upload(path, "d.csv", header=True)
    assert list(frame.columns) == ["a", "b", "g"]
    data = prepare(frame, "g", key="k", label="l", infer=False)
    assert list(data.features.columns) == ["a", "b"] and list(data.labels) == ["x", "y", "x"]
    bare = read_upload(write(tmp_path, "e.csv", "1,2\n3,5\n4,4\n"), "e.csv", header=False)
    assert list(bare.columns) == ["V1", "V2"] and len(bare) == 3


@pytest.mark.parametrize("name, content, message", [
    ("data.txt", "a,b\n1,2\n", "not a CSV file"),
    ("data.csv", "", "is empty"),
    ("data.csv", "\n\n", "no rows or columns"),
])
def test_bad_uploads_get_a_clear_message(tmp_path, name, content, message):
    with pytest.raises(AppDataError, match=message):
        read_upload(write(tmp_path, name, content), name)


def test_uploads_larger_than_the_limit_are_refused(tmp_path):
    path = tmp_path / "big.csv"
    with open(path, "wb") as handle:
        handle.truncate(MAX_UPLOAD_BYTES + 1)
    with pytest.raises(AppDataError, match=f"up to {MAX_UPLOAD_BYTES // 2**20} MB"):
        read_upload(path, "big.csv")


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"a": [1.0, 2.0], "g": ["x", "y"]}), "at least 2 variables"),
    (pd.DataFrame({"a": [1.0], "b": [2.0]}), "at least 2 rows"),
])
def test_bad_data_get_a_clear_message(frame, message):
    with pytest.raises(AppDataError, match=message):
        prepare(frame, None, key="k", label="l", infer=True)


def test_cells_that_are_not_numbers_are_missing_and_inf_stays_extreme():
    # Each cell is mapped alone (public rule): no refusal, no column dropped, no message; a
    # missing cell stays NaN for the run's missing= policy, +-inf for the package's clamp.
    frame = pd.DataFrame({"a": [1.0, np.nan, np.inf], "b": ["2", "x", ""], "c": [-np.inf, 3, 4]})
    data = prepare(frame, None, key="k", label="l")
    np.testing.assert_array_equal(data.features.to_numpy(),
                                  [[1, 2, -np.inf], [np.nan, np.nan, 3], [np.inf, np.nan, 4]])


def test_group_problems_get_a_clear_message():
    frame = pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2], "g": ["x", None, "y"]})
    # A missing label is a label (no refusal that would depend on the data).
    assert list(prepare(frame, "g", key="k", label="l").labels) == ["x", "(missing)", "y"]
    with pytest.raises(AppDataError, match="not a column"):
        prepare(frame, "h", key="k", label="l")
    with pytest.raises(AppDataError, match="one label per row"):
        prepare(frame[["a", "b"]], ["x", "y"], key="k", label="l")


def test_every_column_but_the_group_column_is_a_variable():
    frame = pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2], "note": ["x", "y", "z"]})
    data = prepare(frame, None, key="k", label="l", infer=False)
    assert list(data.features.columns) == ["a", "b", "note"] and data.labels is None


# --------------------------------------------------------------------------- entry points
def test_create_app_checks_its_arguments_like_r():
    X = pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2], "g": ["x", "y", "x"]})
    assert type(create_app(X, "g")).__name__ == "App"
    assert type(create_app(X.to_numpy()[:, :2].astype(float), ["x", "y", "x"])).__name__ == "App"
    with pytest.raises(TypeError, match="DataFrame or a 2-D numpy array"):
        create_app([[1, 2], [3, 4]])
    with pytest.raises(DPPCAValueError, match="at least 2 rows"):
        create_app(X.iloc[:1])
    with pytest.raises(DPPCAValueError, match="must be a DataFrame"):
        create_app(X.to_numpy()[:, :2].astype(float), "g")
    with pytest.raises(DPPCAValueError, match="one label per row"):
        create_app(X, ["x", "y"])
    with pytest.raises(DPPCAValueError, match="both `eps_total` and `delta_total`"):
        create_app(X, eps_total=1.0)


# --------------------------------------------------------------------------- runs
SCREE_VALUES = dict(k=3, scree_method=["clipped", "huber"], scree_mono=True, center=True,
                    standardize=False, g_dppca=True, C_clip=None, huber_m2_frac=0.25,
                    huber_eta0=1.0)
SCORE_VALUES = dict(axis_x=1, axis_y=2, score_method=["add"], bins_x=8, bins_y=8, use_group=True,
                    center=True, standardize=False, g_dppca=True)


def test_scree_settings_are_validated_before_any_release():
    data = example_data("gau")
    settings = scree_settings(SCREE_VALUES, data)
    assert settings["methods"] == ("clipped", "huber") and "pmwm.a" not in settings
    with pytest.raises(DPPCAValueError, match=r"whole number in \[1, 20\]"):
        scree_settings(SCREE_VALUES | {"k": 21}, data)
    with pytest.raises(DPPCAValueError, match="at least one scree method"):
        scree_settings(SCREE_VALUES | {"scree_method": []}, data)
    with pytest.raises(DPPCAValueError, match="C_clip"):
        scree_settings(SCREE_VALUES | {"C_clip": -1.0}, data)


def test_scree_k_range_on_a_file_with_too_few_rows_names_the_rows():
    """Issue 24 finding 12: a 6-column, two-row file said "k must be a whole number in [1, 1]"."""
    two_rows = prepare(pd.DataFrame(np.arange(12.0).reshape(2, 6)), key="two", label="two rows")
    with pytest.raises(DPPCAValueError, match=r"at least 4 rows .*these data have 2$"):
        scree_settings(SCREE_VALUES | {"k": 1}, two_rows)
    assert SCREE_MIN_ROWS == 4
    four = prepare(pd.DataFrame(np.random.default_rng(0).normal(size=(4, 6))), key="four",
                   label="four rows")
    # with enough rows the range is [1, min(n - 1, p)] and the page's k input offers the same
    assert scree_settings(SCREE_VALUES, four)["k"] == 3 == four.max_pc
    with pytest.raises(DPPCAValueError, match=r"whole number in \[1, 3\]; got 4"):
        scree_settings(SCREE_VALUES | {"k": 4}, four)


def test_figure_download_before_any_run_is_a_message_not_an_empty_file():
    """Issue 24 finding 11: "Figure (PNG)" before any run downloaded a 0-byte file."""
    import io

    import matplotlib.image

    for kind in ("scree", "score"):
        fig = placeholder_figure(kind)
        text = " ".join(t.get_text() for t in fig.texts)
        assert f"No {kind} figure yet" in text and f"Run {kind}" in text
        png = png_bytes(fig)
        assert matplotlib.image.imread(io.BytesIO(png)).shape[2] == 4  # a PNG that decodes


def test_score_settings_are_validated_before_any_release():
    data = example_data("gau_g")
    settings = score_settings(SCORE_VALUES, data)
    assert settings["groups"] == "group" and settings["bins"] == (8, 8)
    assert score_settings(SCORE_VALUES | {"use_group": False}, data)["groups"] is None
    assert score_settings(SCORE_VALUES | {"bins_x": None, "bins_y": None}, data)["bins"] is None
    with pytest.raises(DPPCAValueError, match="different PCs"):
        score_settings(SCORE_VALUES | {"axis_y": 1}, data)
    with pytest.raises(DPPCAValueError, match="bins"):
        score_settings(SCORE_VALUES | {"bins_x": 0}, data)


def test_runs_call_the_package_within_their_budget():
    data = example_data("gau_g")
    scree = run_scree(data, scree_settings(SCREE_VALUES, data), 1.0, 1e-6)
    assert scree.combined_ledger.spent_eps <= 1.0 * (1 + 1e-9)
    assert scree_png(scree, "scree").startswith(b"\x89PNG")
    score = run_score(data, score_settings(SCORE_VALUES, data), 1.0, 1e-6)
    assert score.groups == [f"group{i}" for i in range(1, 6)]
    # the figure the page shows draws this result: its histogram panel, frame and group legend
    fig = score.figure
    panel = next(ax for ax in fig.axes if ax.get_title() == "Add DP Histogram")
    assert panel.get_xlim() == pytest.approx(score.frame["xlim"])
    assert panel.images[0].get_array().shape[:2] == tuple(reversed(score.bins))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == score.groups
    assert score.ledger.spent_eps <= 1.0 * (1 + 1e-9)
    assert not math.isnan(score.to_frame()["prob"].sum())


def test_start_app_serves_in_a_child_process_and_stops():
    from urllib.request import urlopen

    from dppca.app import start_app

    X = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [2.0, 1, 4, 3], "g": ["x", "y", "x", "y"]})
    app = start_app(X, "g", eps_total=1.0, delta_total=1e-6)
    try:
        assert app.url.startswith("http://127.0.0.1:") and app.running()
        page = urlopen(app.url, timeout=30).read().decode()
        assert "Differentially Private PCA Visualization" in page and "Provided data" in page
    finally:
        app.stop()
    assert not app.running()
    with pytest.raises(DPPCAValueError, match="at least 2 rows"):
        start_app(X.iloc[:1])


def test_the_app_subcommand_passes_its_options_to_run_app(monkeypatch, capsys):
    import dppca.app
    from dppca.cli import main

    calls = []
    monkeypatch.setattr(dppca.app, "run_app", lambda *args, **kwargs: calls.append((args, kwargs)))
    assert main(["app", "--data", "gau_g", "--group", "group", "--eps-total", "3",
                 "--delta-total", "1e-6", "--port", "8050", "--no-browser"]) == 0
    (X, group), options = calls[0]
    assert X.shape == (5000, 21) and group == "group"
    assert options == dict(eps_total=3.0, delta_total=1e-6, host="127.0.0.1", port=8050,
                           launch_browser=False, allow_remote=False)
    assert main(["app"]) == 0 and calls[1][0] == (None, None)  # example data and uploads only
    assert calls[1][1]["launch_browser"] is True
    assert main(["app", "--host", "0.0.0.0", "--allow-remote"]) == 0
    assert calls[2][1]["allow_remote"] is True
    assert main(["app", "--budget", "survey"]) == 2 and len(calls) == 3  # printed, not served
    assert "--budget NAME serves a registered dataset" in capsys.readouterr().err


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.org"])
def test_binding_beyond_loopback_needs_allow_remote(host):
    from dppca.app import check_host, run_app

    with pytest.raises(DPPCAValueError, match="allow_remote=True.*reverse proxy"):
        run_app(host=host, launch_browser=False)  # refused before anything is served
    assert check_host(host, allow_remote=True) == host
    for loopback in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert check_host(loopback) == loopback


@pytest.mark.parametrize("module", ["dppca.app.factory", "dppca.app.data", "dppca.app.session"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    failures, tried = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_a_rank_scree_run_ignores_the_scree_methods():
    # standardize="rank": the values are the latent correlation's eigenvalues, from one release;
    # the page's clipped/pmwm/huber choice does not apply (dp_scree would refuse it)
    import warnings

    from dppca.app.data import example_data
    from dppca.app.inputs import run_request
    from dppca.app.runs import run_scree, scree_png

    data = example_data("gau")
    sent = {"k": 3, "scree_method": ["clipped", "huber"], "eps": 1, "delta": 1e-6,
            "standardize": "rank"}
    settings, eps, delta = run_request("scree", sent.get, data)
    assert settings["methods"] == ("rank",)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_scree(data, settings, eps, delta)
    assert list(result.scree.columns) == ["rank"] and len(result.scree) == 3
    assert scree_png(result).startswith(b"\x89PNG")


def test_the_app_subcommand_takes_the_budget_store(monkeypatch):
    # `dppca app --budget-store URL`: the store the server charges and matches uploads against,
    # as `dppca report --budget-store` (before, only $DPPCA_BUDGET_URL could name it)
    import os

    import dppca.app
    from dppca.cli import main
    from dppca.privacy.store import URL_VARIABLE

    # setenv first, so that monkeypatch records the variable's state and removes what the
    # command sets at teardown (delenv of an absent variable records nothing: the URL leaked
    # into the app servers that later tests start, which then charged a shared store)
    monkeypatch.setenv(URL_VARIABLE, "unset")
    monkeypatch.delenv(URL_VARIABLE)
    seen = []
    monkeypatch.setattr(dppca.app, "run_app",
                        lambda *args, **kwargs: seen.append(os.environ.get(URL_VARIABLE)))
    assert main(["app", "--no-browser", "--budget-store", "sqlite:////tmp/x.sqlite3"]) == 0
    assert seen == ["sqlite:////tmp/x.sqlite3"]
