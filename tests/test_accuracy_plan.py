"""The accuracy model, ``dppca.plan``, the DPAccuracyWarning and the fail-safe scree releases."""
import warnings

import numpy as np
import pytest

import dppca
from dppca import DPAccuracyWarning, DPPCAValueError, dp_pc_dir, dp_scree, plan
from dppca.cli import main
from dppca.estimators.scree_accuracy import scree_shares, tuning_reliable

# The small budgets here are meant to be flagged; the warning itself is tested explicitly.
pytestmark = pytest.mark.filterwarnings("ignore::dppca.DPAccuracyWarning")


def small_data(seed=0, n=150, p=4):
    """Iris-sized Gaussian data with spread-out eigenvalues (4, 1, 0.25, 0.06)."""
    scales = 2.0 ** -np.arange(p)
    return np.random.default_rng(seed).normal(size=(n, p)) * 2 * scales


def accuracy_warnings(X, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dp_scree(X, **kwargs)
    return result, [str(w.message) for w in caught if w.category is DPAccuracyWarning]


def test_plan_is_reliable_with_many_rows_and_flags_small_ones():
    big, small = plan(20_000, 10, 3, 1.0, 1e-5), plan(150, 4, 3, 1.0, 1e-5)
    assert big.reliable and not small.reliable
    frame = small.to_frame()
    assert {"step", "predicted", "threshold", "reliable", "assumptions", "fix"} <= set(frame)
    text = str(small)
    assert "UNRELIABLE" in text and "Notes:" in text and "fix:" in text


def test_plan_predicts_the_private_scales_of_standardize():
    # standardize=True with g-DPPCA releases private scales first: the plan shows their predicted
    # error (scale_accuracy, the same public arithmetic as the scales' own warning) and says that
    # the directions inherit it; without standardize, or with non-private directions, no such step.
    from dppca.preprocessing.scale_accuracy import scale_accuracy

    steps = plan(569, 30, 2, 4.0, 1e-5, standardize=True, scale_share=0.3,
                 missing=0.0).to_frame()  # a declared fill value: no medians before the scales
    first = steps.iloc[0]
    expected = scale_accuracy(569, 30, 4.0, 1e-5, share=0.3)
    assert first["step"] == "column scales" and first["predicted"] == expected.predicted
    assert "directions are those of the data divided by these scales" in first["assumptions"]
    assert not plan(178, 13, 2, 1.0, 1e-5, standardize=True).to_frame().iloc[0]["reliable"]
    for other in (plan(569, 30, 2, 4.0, 1e-5), plan(569, 30, 2, 4.0, 1e-5, standardize=True,
                                                     g_dppca=False)):
        assert "column scales" not in set(other.to_frame()["step"])


def test_plan_predictions_fall_with_more_eps_and_rows():
    # Every prediction is a noise sd over a signal: more eps or more rows can only lower it.
    def predicted(n, eps):
        return plan(n, 6, 2, eps, 1e-5).to_frame().set_index("step")["predicted"]

    base = predicted(2000, 1.0)
    for other in (predicted(2000, 4.0), predicted(8000, 1.0)):
        common = base.index.intersection(other.index)
        assert len(common) >= 4 and (other[common] <= base[common] + 1e-12).all()


def test_plan_validates_its_arguments():
    with pytest.raises(DPPCAValueError, match="`k`"):
        plan(100, 3, 4, 1.0, 1e-5)
    with pytest.raises(DPPCAValueError, match="`eps`"):
        plan(100, 3, 2, -1.0, 1e-5)
    with pytest.raises(DPPCAValueError, match="`method`"):
        plan(100, 3, 2, 1.0, 1e-5, method="mean")


def test_warning_is_public_arithmetic_and_names_the_fix():
    # Neighbouring data sets (one row replaced by a far outlier) get the identical warning.
    X = small_data()
    Y = X.copy()
    Y[0] = 1e6
    # The post-release warnings ("released values only": PC1 within one noise sd of 0 predicts
    # an error of 1, the trace's row) are post-processing of noisy values and may differ.
    _, first = accuracy_warnings(X, k=3, eps=1.0, delta=1e-5, rng=1)
    _, second = accuracy_warnings(Y, k=3, eps=1.0, delta=1e-5, rng=2)
    first, second = ([m for m in w if "(public numbers only)" in m] for w in (first, second))
    assert first == second and len(first) == 1
    assert "more eps" in first[0]
    _, none = accuracy_warnings(small_data(n=20_000, p=4), k=2, eps=2.0, delta=1e-5, rng=1)
    assert none == []


@pytest.mark.parametrize("method", ["clipped", "pmwm", "huber"])
def test_released_values_are_never_negative_nor_above_the_clip(method):
    # mono=False at a small budget: raw estimates go negative; released values are clamped.
    X = small_data(n=400, p=5)
    for seed in range(3):
        res = dp_scree(X, k=4, method=method, eps=0.5, delta=1e-5, mono=False, rng=seed)
        assert (res.scree >= 0).all().all() and (res.pve >= 0).all().all()
        assert res.trace >= 0 and (res.pve <= 1).all().all()
        if method != "huber":
            assert (res.scree[method] <= res.fits[method].release.upper + 0.0).all()


def test_noise_dominated_tuning_falls_back_to_public_rules():
    # n = 150: the public model says the clipped method's clip histogram and the trace's clip
    # histogram would be noise-dominated, so neither is released. At eps = 4 a coarse
    # median histogram is not (second tier); at eps = 1 neither is, and C = 6.5 x private trace.
    assert not tuning_reliable(75, 3, 0.11, 0.92)
    for eps, released, rule in ((4.0, True, "median"), (1.0, False, "fallback")):
        res = dp_scree(small_data(), k=3, eps=eps, delta=1e-5, rng=3)
        steps = [r.step for r in res.ledger["clipped"]]
        assert not any("trace tuning: clip histogram" in s for s in steps)
        assert not any(s.startswith("clipped tuning: log2 histograms") for s in steps)
        assert any(s.startswith("clipped tuning: coarse") for s in steps) == released
        clip = res.fits["clipped"].release.upper
        assert np.isfinite(clip).all() and (clip > 0).all()
        assert rule in res.fits["clipped"].tuning


def test_standardized_data_use_a_public_centre_when_the_private_one_is_noise():
    shares = scree_shares(150, 0.5, 1, 0.27, True, public_centre=2.0)
    assert shares.centre == 0
    res = dp_scree(small_data(), k=2, eps=0.5, delta=1e-5, standardize=True, g_dppca=False,
                   rng=1)
    assert not any("log2 histogram" in r.step for r in res.ledger["clipped"])
    assert 0 < res.trace < 1e3  # standardized: trace 4; never 0-by-accident or 1e17


def test_values_off_by_10x_are_marked_unreliable():
    # Small n and eps: whatever the values, the ones more than 10x from their target (v'Sv of
    # the released directions) carry reliable = False (the rule is post-processing + model).
    X = small_data()
    cov = np.cov(X, rowvar=False)
    for seed in range(4):
        res, _ = accuracy_warnings(X, k=3, eps=1.0, delta=1e-5, rng=seed)
        v = res.directions.to_numpy()
        ratio = res.scree["clipped"].to_numpy() / np.einsum("jl,jk,kl->l", v, cov, v)
        off = (ratio < 0.1) | (ratio > 10)
        assert not res.reliable["clipped"].to_numpy()[off].any()


def test_summaries_show_the_expected_accuracy_block():
    res, _ = accuracy_warnings(small_data(), k=2, eps=1.0, delta=1e-5, rng=0)
    text = str(res.summary())
    assert "Expected accuracy" in text and "reliable" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "reliable" in res.to_frame() and "reliable" in res.to_dict()["clipped"]
    dirs = dp_pc_dir(small_data(), 2, eps=1.0, delta=1e-5, g_dppca=True, rng=0)
    assert "Expected accuracy" in str(dirs.summary())
    assert [s.step for s in dirs.accuracy.steps] == ["directions (pre-release)",
                                                 "directions (post-release)"]


def test_cli_plan(capsys):
    assert main(["plan", "--n", "150", "--p", "4", "--k", "2", "--eps", "1", "--delta", "1e-5"]) == 0
    out = capsys.readouterr().out
    assert "Expected accuracy" in out and "UNRELIABLE" in out
    assert main(["plan", "--data", "gau", "--eps", "1", "--delta", "1e-5"]) == 0
    assert "n=5000, p=20" in capsys.readouterr().out
    assert main(["plan", "--eps", "1", "--delta", "1e-5"]) == 2
    assert "--data" in capsys.readouterr().err


def test_exports():
    assert dppca.plan is plan and issubclass(dppca.DPAccuracyWarning, UserWarning)


def test_app_shows_the_plan_before_a_run():
    pytest.importorskip("shiny")
    from types import SimpleNamespace

    from dppca.app.server import _plan_table

    # what the page sends, read through the app's checks (dppca.app.inputs.run_request)
    sent = dict(k=3, eps=1.0, delta=1e-5, scree_method=["clipped"], standardize="none",
                g_dppca=True)
    html = str(_plan_table(SimpleNamespace(n=150, p=4), sent.get, False))
    assert "Expected accuracy" in html and "UNRELIABLE" in html
    sent["k"] = None  # an empty field: nothing shown (the run explains)
    assert _plan_table(SimpleNamespace(n=150, p=4), sent.get, False) is None


def _predicted(report):
    return report.to_frame().set_index("step")["predicted"]


def test_plan_predicts_what_the_call_predicts_after_its_medians():
    # dp_scree's default missing="auto" releases private medians (MEDIAN_SHARE of eps and delta)
    # before its steps, whether or not a cell is missing; its pre-release block is computed on
    # the rest. The plan's rows are the same public arithmetic, so they agree to rounding.
    X = small_data(n=2000, p=6)
    for kwargs in ({}, {"missing": 0.0}):
        call = dp_scree(X, 2, eps=1.0, delta=1e-5, rng=0, **kwargs)
        released = {s.step: s.predicted for s in call.accuracy.steps}
        planned = _predicted(plan(2000, 6, 2, 1.0, 1e-5, **kwargs))
        assert planned.to_dict() == pytest.approx({s: released[s] for s in planned.index},
                                                  rel=1e-12)


def test_plan_takes_the_median_share_from_the_code():
    from dppca.preprocessing.missing import MEDIAN_SHARE

    left = 1.0 - MEDIAN_SHARE
    for standardize in (False, True, "rank"):
        auto = plan(3000, 6, 2, 2.0, 1e-5, standardize=standardize)
        declared = plan(3000, 6, 2, 2.0 * left, 1e-5 * left, standardize=standardize,
                        missing=0.0)
        pair = _predicted(auto).to_numpy(), _predicted(declared).to_numpy()
        np.testing.assert_allclose(*pair, rtol=1e-12)
        free = _predicted(plan(3000, 6, 2, 2.0, 1e-5, standardize=standardize, missing=0.0))
        assert (free.to_numpy() < pair[0]).any()  # the medians' share costs accuracy
        assert auto.eps == 2.0 and "private column medians take" in str(auto)
    # a dict naming every column declares them all (free); one naming fewer leaves medians
    every = {f"V{j}": 0.0 for j in range(6)}
    assert _predicted(plan(3000, 6, 2, 2.0, 1e-5, missing=every)).equals(
        _predicted(plan(3000, 6, 2, 2.0, 1e-5, missing=0.0)))
    assert _predicted(plan(3000, 6, 2, 2.0, 1e-5, missing={"V0": 0.0})).equals(
        _predicted(plan(3000, 6, 2, 2.0, 1e-5)))


def test_plan_under_add_remove_uses_the_count_share_and_the_lower_bound():
    # The rank path's directions under add/remove neighbours: the call's pre-release prediction
    # uses its noisy count's lower bound, the plan the bound at the count's expected value n;
    # they differ by the count's noise (sd 17 at eps 1: 1% of n_lo = 1915 at most 5 sd), which
    # moves the tau's sensitivity 2 p / n_lo, hence the prediction, by that relative amount.
    from dppca.planning import budget_after_shares
    from dppca.privacy.neighbouring import COUNT_SHARE

    X = small_data(n=2000, p=5)
    spent = budget_after_shares(2000, 5, 1.0, 1e-5, neighbouring="add_remove")
    assert spent.rows < 2000 and spent.eps < 1.0 and spent.delta < 1e-5
    assert f"{COUNT_SHARE:.0%} of mu^2" in spent.notes[0]
    planned = plan(2000, 5, 2, 1.0, 1e-5, standardize="rank", neighbouring="add_remove")
    replace = plan(2000, 5, 2, 1.0, 1e-5, standardize="rank", missing=0.0)
    first = planned.accuracy.steps[0].predicted
    assert first > replace.accuracy.steps[0].predicted
    for seed in range(3):
        call = dp_pc_dir(X, 2, standardize="rank", eps=1.0, delta=1e-5, rng=seed,
                         neighbouring="add_remove")
        assert call.accuracy.steps[0].predicted == pytest.approx(first, rel=5 * 17 / 1915)
    with pytest.raises(DPPCAValueError, match="drop"):
        plan(2000, 5, 2, 1.0, 1e-5, missing="drop")  # refused by the call too (n public)


def test_cli_plan_takes_the_report_medians_off_the_budget(capsys):
    # `dppca report` releases its medians once from the whole budget ("auto"), none with a
    # declared value: `dppca plan --missing` prints the plan of each case.
    printed = {}
    for extra in ([], ["--missing", "0"]):
        assert main(["plan", "--n", "2000", "--p", "6", "--k", "2", "--eps", "1", "--delta",
                     "1e-5", "--sections", "scree", *extra]) == 0
        printed[bool(extra)] = capsys.readouterr().out
    assert "private column medians take" in printed[False]
    assert "private column medians" not in printed[True]
    for missing, out in ((None, printed[False]), (0.0, printed[True])):
        expected = plan(2000, 6, 2, 1.0, 1e-5, **({} if missing is None else {"missing": missing}))
        assert f"{expected.accuracy.steps[0].predicted:.4f}" in out
