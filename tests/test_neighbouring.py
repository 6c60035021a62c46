"""``neighbouring="add_remove"``: the private row count, the ledger, the refusals from the
arguments, and the surface test that the true n appears in no output."""
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCAValueError, dp_pc_dir, dp_score, dp_score_group, dp_scree, dp_scree_plot
from dppca.cli import main
from dppca.methods import METHODS
from dppca.methods.add_remove import (add_remove_fit, kendall_add_remove_sensitivity,
                                      rank_tau_add_remove_sensitivity)
from dppca.preprocessing.drop_rows import drop_incomplete_rows
from dppca.privacy import GaussianGroup, Ledger
from dppca.privacy.counted_group import count_first
from dppca.privacy.neighbouring import COUNT_DELTA_SHARE, COUNT_SHARE
from dppca.score_plot import dp_score_plot
from dppca.sklearn import DPPCA

#: A row count that no other number of these outputs is likely to print.
N = 4817
EPS, DELTA = 1.0, 1e-5


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    # two correlated pairs of columns: clear components for the Kendall and the rank paths
    z = rng.standard_normal((N, 4))
    mixing = np.array([[3.0, 2.4, 0, 0], [0, 1.8, 0, 0], [0, 0, 1.0, 0.5], [0, 0, 0, 0.866]])
    return pd.DataFrame(z @ mixing, columns=list("abcd"))


def _shows_n(text: str) -> bool:
    """Whether ``text`` holds N as a number of its own (not inside a longer one)."""
    return re.search(rf"(?<![\d.]){N}(?![\d])", text) is not None


@pytest.mark.parametrize("standardize", [False, "rank"])
def test_add_remove_ledger_has_the_count_its_bounds_and_the_whole_budget(data, standardize):
    result = dp_pc_dir(data, 2, standardize=standardize, eps=EPS, delta=DELTA, rng=1,
                       neighbouring="add_remove")
    frame = result.ledger.to_frame()
    assert list(frame["step"][:2]) == ["row count (add/remove neighbours)",
                                       "row count: public bounds n_lo, n_hi (failure probability)"]
    # the count: sensitivity 1 with COUNT_SHARE of the group's mu^2 (the group has delta minus
    # the bounds' failure probability COUNT_DELTA_SHARE delta)
    mu = GaussianGroup(EPS, DELTA * (1 - COUNT_DELTA_SHARE)).mu
    assert frame["noise_scale"][0] == pytest.approx(1 / (math.sqrt(COUNT_SHARE) * mu), rel=1e-9)
    assert frame["delta"][1] == pytest.approx(COUNT_DELTA_SHARE * DELTA, rel=1e-12)
    # the samplers' snapping raises each sigma a little (dppca.privacy.samplers), so the
    # absorbed share of the method is a hair under its 95%: spent within 1e-6 of eps, never above
    assert EPS * (1 - 1e-6) <= result.ledger.spent_eps <= EPS * (1 + 1e-9)
    assert result.ledger.spent_delta <= DELTA * (1 + 1e-9)
    assert result.ledger.to_dict()["neighbouring"] == "add/remove (n private)"
    # the noisy n is printed; it is within 6 noise sds of the true one (z = 6: probability 2e-9)
    assert abs(result.n_obs - N) <= 6 * frame["noise_scale"][0]


@pytest.mark.parametrize("method", ["gdppca", "rank"])
def test_add_remove_sensitivity_is_evaluated_at_the_public_bounds(data, method):
    options = {"design": "complete"} if method == "gdppca" else {}
    fit, count = add_remove_fit(METHODS[method], data.to_numpy(), 2, eps=EPS, delta=DELTA,
                                rng=np.random.default_rng(1), calibration="analytic",
                                ledger=Ledger(EPS, DELTA), options=options)
    assert count.lower < N < count.upper  # fails with probability COUNT_DELTA_SHARE delta
    expected = kendall_add_remove_sensitivity(count.lower, 4, slack_rows=count.upper) \
        if method == "gdppca" else rank_tau_add_remove_sensitivity(count.lower, 4)
    assert fit.sensitivity == pytest.approx(expected, rel=1e-15)


def test_add_remove_costs_little_noise_at_this_n(data):
    # Budget (1 - COUNT_SHARE)^(-1/2) = 1.026, delta 0.95 delta (mu 1% lower) and the bound
    # n / (n_lo + 1) with n - n_lo ~ z sigma_n = 5.0 x 16.8 = 84 (1.8% at n = 4,817): ~1.05.
    replace = dp_pc_dir(data, 2, eps=EPS, delta=DELTA, rng=1)
    add_remove = dp_pc_dir(data, 2, eps=EPS, delta=DELTA, rng=1, neighbouring="add_remove")
    assert 1.0 < add_remove.noise_sd / replace.noise_sd < 1.08


@pytest.mark.parametrize("call", [
    lambda X: dp_scree(X, 2, method="pmwm", eps=EPS, delta=DELTA, neighbouring="add_remove"),
    lambda X: dp_scree(X, 2, method=("clipped", "huber"), eps=EPS, delta=DELTA,
                       neighbouring="add_remove"),
    lambda X: dp_scree(X, 2, standardize=True, eps=EPS, delta=DELTA, neighbouring="add_remove"),
    lambda X: dp_scree(X, 2, g_dppca=False, eps=EPS, delta=DELTA, neighbouring="add_remove"),
    lambda X: dp_scree(X, 2, design="incomplete", eps=EPS, delta=DELTA,
                       neighbouring="add_remove"),
    lambda X: dp_scree(X, 2, noise="r_dppca", eps=EPS, delta=DELTA, neighbouring="add_remove"),
    lambda X: dp_scree(X, 2, standardize="rank", design="incomplete", eps=EPS, delta=DELTA,
                       neighbouring="add_remove"),
    lambda X: dp_scree_plot(X, 2, method="huber", eps=EPS, delta=DELTA,
                            neighbouring="add_remove"),
    lambda X: dp_score(X, EPS, DELTA, standardize="rank", neighbouring="add_remove"),
    lambda X: dp_score_group(X, np.zeros(len(X)), EPS, DELTA, levels=[0.0], g_dppca=False,
                             neighbouring="add_remove"),
    lambda X: dp_score_plot(X, EPS, DELTA, standardize=True, neighbouring="add_remove"),
    lambda X: dp_pc_dir(X, 2, method="analyze_gauss", eps=EPS, delta=DELTA,
                        neighbouring="add_remove"),
    lambda X: dp_pc_dir(X, 2, standardize=True, eps=EPS, delta=DELTA, neighbouring="add_remove"),
    lambda X: dp_pc_dir(X, 2, design="incomplete", eps=EPS, delta=DELTA,
                        neighbouring="add_remove"),
    lambda X: DPPCA(2, neighbouring="add_remove").fit(X),
    lambda X: DPPCA(2, center=False, explained_variance=True, neighbouring="add_remove").fit(X),
])
def test_uncovered_releases_are_refused_from_the_arguments(data, call):
    # the same refusal for every data set (here a tiny and a large one): public arguments only
    for X in (data, data.iloc[:3]):
        with pytest.raises(DPPCAValueError, match="neighbouring='add_remove' is not supported by"):
            call(X)


def test_unknown_relation_is_refused(data):
    with pytest.raises(DPPCAValueError, match="`neighbouring`"):
        dp_pc_dir(data, 2, eps=EPS, delta=DELTA, neighbouring="swap")


def test_true_n_appears_in_no_output(data, tmp_path, capsys):
    texts = []
    for standardize in (False, "rank"):
        result = dp_pc_dir(data, 2, standardize=standardize, eps=EPS, delta=DELTA, rng=2,
                           neighbouring="add_remove")
        assert result.n_obs != N
        texts += [str(result.summary()), repr(result), json.dumps(result.to_dict()),
                  result.to_frame().to_csv(), result.ledger.to_frame().to_csv(), repr(result.ledger)]
    model = DPPCA(2, center=False, random_state=2, neighbouring="add_remove").fit(data)
    texts += [repr(model), model.ledger_.to_frame().to_csv(), str(model.result_.summary())]
    csv = tmp_path / "data.csv"
    data.to_csv(csv, index=False)
    out = tmp_path / "report"
    assert main(["report", "--data", str(csv), "--k", "2", "--eps", "1", "--delta", "1e-5",
                 "--seed", "2", "--sections", "directions,scree,score",
                 "--neighbouring", "add_remove", "--out", str(out)]) == 0
    texts.append(capsys.readouterr().out)
    texts += [path.read_text() for path in out.iterdir() if path.suffix in (".csv", ".json")]
    assert texts and not [text[:200] for text in texts if _shows_n(text)]
    # every section of the report ran its own add/remove call, which released its own count
    sections = json.loads((out / "ledger.json").read_text())["sections"]
    assert set(sections) == {"directions", "scree", "score"}
    for name, payload in sections.items():
        assert payload["neighbouring"].startswith("add/remove"), name
        assert "row count (add/remove neighbours)" in [row["step"] for row in
                                                       payload["releases"]], name
    # the same outputs under replace-one do print it (the check can fail)
    assert _shows_n(str(dp_pc_dir(data, 2, eps=EPS, delta=DELTA, rng=2).summary()))


def _scree_texts(result) -> list:
    """Every printed or exported field of a scree result."""
    texts = [str(result.summary()), repr(result), json.dumps(result.to_dict(), default=str),
             result.to_frame().to_csv(), result.combined_ledger.to_frame().to_csv(),
             repr(result.combined_ledger), json.dumps(result.combined_ledger.to_dict())]
    texts += [ledger.to_frame().to_csv() for ledger in result.ledger.values()]
    return texts + [str(note) for note in result.accuracy.steps]


@pytest.mark.parametrize("options", [{}, {"standardize": "rank"},
                                     {"standardize": True, "scale": [1.0, 2.0, 1.0, 1.0]},
                                     {"control": {"C_clip": 50.0}},
                                     {"bounds": {c: (-40.0, 40.0) for c in "abcd"}}])
def test_scree_prints_the_noisy_n_and_never_the_true_one(data, options):
    import matplotlib

    matplotlib.use("Agg")
    result = dp_scree_plot(data, 2, eps=EPS, delta=DELTA, rng=2, neighbouring="add_remove",
                           **options)
    assert result.n_obs != N and abs(result.n_obs - N) <= 6 * 17.0  # count sd ~16.8, z = 6
    texts = _scree_texts(result) + [text.get_text() for ax in result.figure.axes
                                    for text in ax.texts + [ax.title, ax.xaxis.label,
                                                            ax.yaxis.label]]
    assert not [text[:200] for text in texts if _shows_n(text)]
    summary = str(result.summary())
    assert "No. Observations (noisy)" in summary and "add/remove" in summary
    assert str(result.n_obs) in summary
    steps = [step for step in result.combined_ledger.to_frame()["step"]
             if not step.startswith("declared")]  # declared bounds: zero-cost rows, first
    assert steps[:2] == ["row count (add/remove neighbours)",
                         "row count: public bounds n_lo, n_hi (failure probability)"]
    assert result.combined_ledger.spent_eps <= EPS * (1 + 1e-9)
    assert result.combined_ledger.spent_delta <= DELTA * (1 + 1e-9)
    # under replace-one the same fields print n (the check can fail)
    replace = dp_scree(data, 2, eps=EPS, delta=DELTA, rng=2, **options)
    assert any(_shows_n(text) for text in _scree_texts(replace))


def test_cli_refuses_add_remove_for_uncovered_sections(data, tmp_path, capsys):
    csv = tmp_path / "data.csv"
    data.iloc[:50].to_csv(csv, index=False)
    for standardize, sections, rule in (
            ("sd", ["directions"], "does not cover private column scales"),
            ("rank", ["directions", "score"], "does not cover the score section on the rank path")):
        out = tmp_path / f"r_{standardize}"
        assert main(["report", "--data", str(csv), "--eps", "1", "--delta", "1e-5",
                     "--standardize", standardize, "--sections", ",".join(sections),
                     "--neighbouring", "add_remove", "--out", str(out)]) == 2
        assert f"--neighbouring add_remove {rule}" in capsys.readouterr().err
        assert not out.exists()  # refused from the arguments, before anything was released


def test_drop_incomplete_rows_keeps_complete_rows_only_under_add_remove():
    x = np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, np.inf], [4.0, 5.0]])
    assert drop_incomplete_rows(x, "add_remove").tolist() == [[1.0, 2.0], [3.0, np.inf],
                                                              [4.0, 5.0]]
    frame = pd.DataFrame({"a": [1.0, None, 3.0], "b": pd.array([1, 2, None], dtype="Int64")})
    assert drop_incomplete_rows(frame, "add_remove").index.tolist() == [0]
    with pytest.raises(DPPCAValueError, match="neighbouring='add_remove'"):
        drop_incomplete_rows(x, "replace")


def test_drop_incomplete_rows_maps_add_remove_neighbours_to_neighbours_or_equals():
    # stability 1: adding a row adds it to the kept rows when complete, and nothing otherwise
    rng = np.random.default_rng(0)
    x = rng.standard_normal((30, 3))
    x[rng.random((30, 3)) < 0.2] = np.nan
    kept = drop_incomplete_rows(x, "add_remove")
    for row in (np.array([1.0, 2.0, 3.0]), np.array([1.0, np.nan, 3.0])):
        grown = drop_incomplete_rows(np.vstack([x, row]), "add_remove")
        assert len(grown) - len(kept) == int(not np.isnan(row).any())
        assert np.array_equal(grown[:len(kept)], kept, equal_nan=True)


def test_scree_sensitivities_are_their_add_remove_bounds_at_the_count(data):
    # The call draws its count first from the seed's generator, so the same draw here gives the
    # bounds n_lo, n_hi it used; each ledger row must be its proved bound there.
    from dppca.estimators.pair_means import pair_release_sensitivity, paired_mean_sensitivity
    from dppca.privacy.counted_group import pair_rows

    result = dp_scree(data, 2, eps=EPS, delta=DELTA, rng=5, neighbouring="add_remove")
    count, _ = count_first(N, EPS, DELTA, "analytic", np.random.default_rng(5), Ledger(EPS, DELTA))
    assert result.n_obs == count.reported and count.lower < N < count.upper
    rows = dict(zip(result.combined_ledger.to_frame()["step"],
                    result.combined_ledger.to_frame()["sensitivity"]))
    # directions: 2 sqrt(2) / (n_lo + 1) plus the engine's slack at n_hi
    assert rows["directions: Kendall's tau matrix"] == pytest.approx(
        kendall_add_remove_sensitivity(count.lower, 4, slack_rows=count.upper), rel=1e-12)
    # the clipped U-statistics of k = 2 components: 2 sqrt(2) / (n_lo + 1) plus 2 sqrt(2) E(n_hi)
    clipped = rows["clipped: U-statistics of min(u, C) (PC1..PCk)"]
    # (the rounding slack (n_lo + 1) E(n_hi) is about 1.1e-5 at n = 5,000:
    # dppca.stats.pair_statistics.fp_inflation)
    assert clipped == pytest.approx(2 * math.sqrt(2) / (count.lower + 1), rel=2e-5)
    assert clipped == pytest.approx(pair_release_sensitivity(
        0, np.zeros(2), np.ones(2), rows=count.rows), rel=1e-12)
    assert clipped > 2 * math.sqrt(2) / N  # larger than the replace-one bound at the true n
    # the trace: 1 / floor(n_lo / 2) plus the rounding slack at floor(n_hi / 2) pairs
    assert rows["trace: clipped mean of ||x_a - x_b||^2/2"] == pytest.approx(
        paired_mean_sensitivity(*pair_rows(N // 2, count.rows)), rel=1e-12)
    assert pair_rows(N // 2, count.rows) == (count.lower // 2, count.upper // 2)
    # the histograms keep their replace-one L2 bounds: a coupled pairing adds or replaces one
    # pair value per component (sqrt(2) for the trace's, sqrt(2k) for the clip's, k = 2)
    assert rows["trace tuning: log2 histogram of ||x_a - x_b||^2/2"] == pytest.approx(math.sqrt(2))
    assert rows["clipped tuning: log2 histograms of the pair values (PC1..PCk)"] == \
        pytest.approx(2.0)


def test_rank_scree_sensitivity_is_the_add_remove_bound_at_the_count(data):
    result = dp_scree(data, 2, standardize="rank", eps=EPS, delta=DELTA, rng=5,
                      neighbouring="add_remove")
    count, _ = count_first(N, EPS, DELTA, "analytic", np.random.default_rng(5), Ledger(EPS, DELTA))
    frame = result.combined_ledger.to_frame()
    assert frame["sensitivity"].iloc[-1] == pytest.approx(
        rank_tau_add_remove_sensitivity(count.lower, 4), rel=1e-12)
    assert result.n_obs == count.reported


def test_pair_release_sensitivity_add_remove_formula():
    # sqrt(k') (2 / (n_lo + 1) + 2 E(n_hi)): k' = 2 active components, rho = 0
    from dppca.estimators.pair_means import pair_release_sensitivity
    from dppca.privacy.neighbouring import RowBounds
    from dppca.stats.pair_statistics import pair_rounding_error

    got = pair_release_sensitivity(10, np.zeros(3), np.array([1.0, 2.0, 0.0]),
                                   rows=RowBounds(101.0, 130))
    assert got == pytest.approx(math.sqrt(2) * (2 / 101 + 2 * pair_rounding_error(130)),
                                rel=1e-15)
    # replace-one at n: the same form at (n, n)
    assert pair_release_sensitivity(101, [0.0], [1.0]) == pytest.approx(
        pair_release_sensitivity(7, [0.0], [1.0], rows=RowBounds(101.0, 101)), rel=1e-15)


@pytest.mark.parametrize("standardize", [False, "rank"])
def test_scree_on_tiny_data_runs_or_is_refused_from_the_released_count(standardize):
    # At n = 12 and eps = 1 the count's noise (sd ~17) puts n_lo at its floor 1: the released
    # count cannot guarantee the 4 rows the entry needs, so the call stops right after it, with
    # a message of the released numbers only. At eps = 40 the count's sd is about 1.3, n_lo =
    # c - 5.03 sd - 1 >= 4 for these seeds, and every step runs at n_lo.
    x = np.random.default_rng(0).normal(size=(12, 3))
    for seed in range(3):
        with pytest.raises(DPPCAValueError, match=r"^dp_scree needs at least 4 rows, and the "
                           r"released row count \(noisy n = -?[\d.]+, public lower bound "
                           r"n_lo = 1\)"):
            dp_scree(x, 2, eps=EPS, delta=DELTA, rng=seed, standardize=standardize,
                     neighbouring="add_remove")
        result = dp_scree(x, 2, eps=40.0, delta=DELTA, rng=seed, standardize=standardize,
                          neighbouring="add_remove")
        assert np.isfinite(result.scree.to_numpy()).all()
