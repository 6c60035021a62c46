"""Add/remove neighbours with few rows: no refusal before the private count, and a refusal after
it that is a function of the released count only (n is private under add/remove)."""
import re

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca import DPPCAValueError, dp_pc_dir, dp_score, dp_score_group, dp_scree
from dppca.cli import main
from dppca.privacy import BudgetStore
from dppca.privacy import neighbouring as nb
from dppca.sklearn import DPPCA

EPS, DELTA = 1.0, 1e-5

#: The one message form of a refusal: its numbers are the released count, its lower bound, the
#: minimum and the bounds' failure probability (public), nothing else.
FORM = re.compile(r"(dp_pc_dir|dp_scree|dp_score) needs at least (\d) rows, and the released row count "
                  r"\(noisy n = (-?\d+\.\d), public lower bound n_lo = (\d+)\) does not guarantee "
                  r"them \(or its bounds failed, probability <= [\d.e-]+, in delta\); only the "
                  r"count was released, on the budget")


def _data(m, n=500):
    """n rows, of which m complete (the default missing= under add/remove drops the others)."""
    x = np.random.default_rng(0).standard_normal((n, 4))
    x[:, 3] = np.nan
    x[:m, 3] = 1.0
    return x


CALLS = {
    "dir": lambda x, **kw: dp_pc_dir(x, 2, eps=EPS, delta=DELTA, neighbouring="add_remove", **kw),
    "dir_rank": lambda x, **kw: dp_pc_dir(x, 2, eps=EPS, delta=DELTA, standardize="rank",
                                          neighbouring="add_remove", **kw),
    "scree": lambda x, **kw: dp_scree(x, 2, eps=EPS, delta=DELTA, neighbouring="add_remove", **kw),
    "scree_rank": lambda x, **kw: dp_scree(x, 2, eps=EPS, delta=DELTA, standardize="rank",
                                           neighbouring="add_remove", **kw),
    "score": lambda x, **kw: dp_score(x, EPS, DELTA, neighbouring="add_remove", **kw),
    # the labels a column of X (dropped with their rows), declared by levels= or selected
    "score_group": lambda x, **kw: dp_score_group(pd.DataFrame(x).assign(g="a"), "g", EPS, DELTA,
                                                  levels=["a"], neighbouring="add_remove", **kw),
    "score_selected": lambda x, **kw: dp_score_group(pd.DataFrame(x).assign(g="a"), "g", EPS,
                                                     DELTA, neighbouring="add_remove", **kw),
}
#: The fewest rows each entry needs (a pair of rows; the scree's standard errors need 4).
MINIMUM = {"dir": 2, "dir_rank": 2, "scree": 4, "scree_rank": 4, "score": 2, "score_group": 2,
           "score_selected": 2}


def _refusal(call, x, **kw):
    """The refusal's message, or None when the call runs."""
    try:
        call(x, **kw)
    except DPPCAValueError as error:
        return str(error)
    return None


@pytest.mark.parametrize("entry", sorted(CALLS))
def test_small_data_reach_the_count_and_are_refused_from_it_only(entry):
    messages = {m: _refusal(CALLS[entry], _data(m), rng=7) for m in range(5)}
    for m, message in messages.items():
        # at eps = 1 the count's sd is about 16 and n_lo = max(1, c - 5.1 sd - 1) = 1: every
        # small data set is refused, and only by the released count's form
        match = FORM.fullmatch(message)
        assert match, message
        assert int(match.group(2)) == MINIMUM[entry] and int(match.group(4)) == 1
    # Same seed, same noise draw: the noisy counts differ by the rows' difference (the message
    # reads the released count, nothing else of the data).
    noisy = [float(FORM.fullmatch(messages[m]).group(3)) for m in range(5)]
    assert np.allclose(np.diff(noisy), 1.0, atol=0.11)  # printed to 1 decimal
    assert _refusal(CALLS[entry], _data(500), rng=7) is None


def _shifted(monkeypatch, shift):
    """Release n + shift + noise: a forced large released count (its lower bound >= 4)."""
    real = nb.count_bounds
    monkeypatch.setattr(nb, "count_bounds",
                        lambda noisy, sigma, failure: real(noisy + shift, sigma, failure))


@pytest.mark.parametrize("entry", sorted(CALLS))
def test_true_n_below_the_minimum_under_a_large_released_bound_gives_the_same_form(
        entry, monkeypatch):
    """n < minimum <= n_lo is the bounds' failure (within delta): the same message form."""
    _shifted(monkeypatch, 1000.0)
    message = _refusal(CALLS[entry], _data(1), rng=7)
    match = FORM.fullmatch(message)
    assert match, message
    assert int(match.group(4)) > 800  # the forced bound, far above the minimum


def test_dppca_under_add_remove_refuses_only_from_the_count():
    rng = np.random.default_rng(1)
    for m in range(5):
        for x in (rng.standard_normal((m, 3)), pd.DataFrame(rng.standard_normal((m, 3)),
                                                             columns=list("abc"))):
            with pytest.raises(DPPCAValueError) as info:
                DPPCA(n_components=1, eps=EPS, delta=DELTA, center=False,
                      neighbouring="add_remove", random_state=1).fit(x)
            assert FORM.fullmatch(str(info.value)), str(info.value)
    fitted = DPPCA(n_components=1, eps=EPS, delta=DELTA, center=False,
                   neighbouring="add_remove", random_state=1).fit(rng.standard_normal((500, 3)))
    assert fitted.components_.shape == (1, 3)


def test_cli_report_under_add_remove_refuses_only_from_the_count(tmp_path, capsys):
    for m in range(3):
        path = tmp_path / f"rows{m}.csv"
        pd.DataFrame(np.ones((m, 3)) * np.arange(3), columns=list("abc")).to_csv(path,
                                                                               index=False)
        status = main(["report", "--data", str(path), "--sections", "directions", "--k", "1",
                       "--eps", "1", "--delta", "1e-5", "--neighbouring", "add_remove",
                       "--seed", "1", "--out", str(tmp_path / f"out{m}")])
        error = capsys.readouterr().err.strip()
        assert status != 0 and error.startswith("dppca: error: "), error
        assert FORM.fullmatch(error.removeprefix("dppca: error: ")), error


def test_replace_one_keeps_its_public_row_checks():
    """Under replace-one n is public: too few rows are refused before anything is released."""
    x = np.random.default_rng(0).standard_normal((3, 4))
    with pytest.raises(DPPCAValueError, match="at least 4 rows; got 3"):
        dp_scree(x, 2, eps=EPS, delta=DELTA)
    with pytest.raises(DPPCAValueError, match="at least 2 rows; got 1"):
        dp_pc_dir(x[:1], 2, eps=EPS, delta=DELTA)
    with pytest.raises(DPPCAValueError, match="has no rows"):
        dp_pc_dir(pd.DataFrame(x[:0], columns=list("abcd")), 2, eps=EPS, delta=DELTA)


def test_the_budget_is_debited_alike_whether_the_call_is_refused_or_not(tmp_path):
    store = BudgetStore("sqlite:///" + str(tmp_path / "budget.sqlite3"))
    for name in ("small", "large"):
        store.register(name, eps=10.0, delta=1e-4)
    handle = {name: dppca.budget(name, budget_store=store) for name in ("small", "large")}
    assert _refusal(CALLS["scree"], _data(1), rng=3, budget=handle["small"]) is not None
    assert _refusal(CALLS["scree"], _data(500), rng=3, budget=handle["large"]) is None
    small, large = store.status("small"), store.status("large")
    assert small["runs"] == large["runs"] == 1
    for key in ("eps_spent", "delta_spent", "mu2_spent"):
        assert small[key] == large[key], key
