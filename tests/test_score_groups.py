"""Group labels of the grouped score histograms: declared domains, private partition selection,
and no refusal or message that depends on a private count (issue 9, finding 2)."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dppca import DPPCATypeError, DPPCAValueError, dp_score_group, dp_score_plot_group
from dppca.estimators.groups import declared_groups, label_series, selected_groups
from dppca.estimators.histograms import Grid, bin_counts
from dppca.privacy.accuracy import DPAccuracyWarning
from dppca.privacy import (Ledger, partition_selection_threshold, select_partitions,
                           selection_probability)


@pytest.fixture
def lonely_pair():
    """Neighbours D and D' (replace-one): in D the label "c" is on 2 rows, in D' one of those
    rows is relabelled "a", so "c" holds a single row (the audit's eps = infinity pair)."""
    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["x1", "x2", "x3"])
    labels = np.array(["a"] * 150 + ["b"] * 148 + ["c", "c"], dtype=object)
    other = labels.copy()
    other[-1] = "a"
    return X, labels, other


# ----------------------------------------------------------------- the reported leak
@pytest.mark.parametrize("declare", [True, False])
def test_neighbours_around_a_lonely_label_both_run(lonely_pair, declare):
    # Before the fix D ran and D' raised "every group must have at least 2 rows" (a refusal that
    # depends on one person: eps = infinity). Now both run and give the same kind of output.
    X, labels, other = lonely_pair
    kwargs = dict(levels=["a", "b", "c"]) if declare else {}
    results = [dp_score_group(X, lab, 2.0, 1e-5, bins=4, g_dppca=True, rng=3, **kwargs)
               for lab in (labels, other)]
    if declare:
        assert results[0].groups == results[1].groups == ["a", "b", "c"]
        assert all(r.group_selection == "levels" for r in results)
    else:
        assert all(r.group_selection == "partition selection" for r in results)
    for res in results:
        assert res.ledger.spent_eps == pytest.approx(2.0) and res.ledger.spent_delta <= 1e-5 * (1 + 1e-9)  # the frame is pure DP


def test_a_group_with_one_or_no_rows_gets_its_noisy_histogram(lonely_pair):
    X, _, other = lonely_pair
    res = dp_score_group(X, other, 2.0, 1e-5, bins=4, method="add", levels=["a", "b", "c", "d"],
                         nonprivate=True, rng=4)
    assert res.groups == ["a", "b", "c", "d"]
    assert res.group_sizes["exact (NON-PRIVATE)"].tolist() == [151, 148, 1, 0]
    hist = res.histograms["add"]
    assert len(hist) == 4 * 16 and set(hist["group"]) == {"a", "b", "c", "d"}


def test_unused_categories_are_kept_in_declared_order():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 3))
    labels = pd.Categorical(np.repeat(["y", "x"], 100), categories=["x", "y", "never"])
    res = dp_score_group(X, labels, 3.0, 1e-5, bins=3, nonprivate=True, rng=5)
    assert res.groups == ["x", "y", "never"] and res.group_selection == "categories"
    assert res.group_sizes["exact (NON-PRIVATE)"].tolist() == [100, 100, 0]
    assert [r.step for r in res.ledger if r.step.startswith("groups")] == []  # no budget spent
    assert res.to_dict()["group_selection"] == "categories"


def test_levels_override_categories_and_rows_outside_are_in_no_group():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(120, 3))
    labels = pd.Categorical(np.repeat(["a", "b", "z"], 40))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing said about the 40 rows labelled "z"
        # (the accuracy model's public warning about the small frame budget is another matter)
        warnings.simplefilter("ignore", DPAccuracyWarning)
        res = dp_score_group(X, labels, 3.0, 1e-5, bins=3, method="add", levels=["b", "a"],
                             nonprivate=True, rng=6)
    assert res.groups == ["b", "a"]
    assert res.group_sizes["exact (NON-PRIVATE)"].tolist() == [40, 40]
    assert res.scores["group"].isna().sum() == 40  # the NON-PRIVATE reference shows them as NaN
    # Notes wrap at 100 characters: compare with the line breaks folded.
    assert "rows with other or missing labels are in no histogram" in _flat(res.summary().as_text())


def test_missing_labels_are_not_an_error():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(100, 3))
    labels = np.array(["a"] * 50 + ["b"] * 49 + [None], dtype=object)
    res = dp_score_group(X, labels, 3.0, 1e-5, bins=3, levels=["a", "b"], nonprivate=True, rng=1)
    assert res.group_sizes["exact (NON-PRIVATE)"].tolist() == [50, 49]


def test_numeric_labels_match_levels_by_value():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(90, 3))
    labels = np.repeat([1.0, 2.0, 3.0], 30)
    groups = declared_groups(label_series(labels, 90), levels=[3, 1, "2"])
    assert groups.names == ["3", "1", "2"]
    assert np.bincount(groups.codes).tolist() == [30, 30, 30] and groups.codes[0] == 1


@pytest.mark.parametrize("levels,error,message", [
    ("abc", DPPCATypeError, "`levels` must be a list"),
    ([], DPPCAValueError, "at least one group label"),
    (["a", None], DPPCAValueError, "must not contain missing"),
    (["a", "b", "a"], DPPCAValueError, r"repeated \['a'\]"),
])
def test_bad_levels_are_clear_errors(levels, error, message):
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(error, match=message):
        dp_score_group(X, ["a"] * 20, 1.0, 1e-5, levels=levels)


def test_partition_share_is_checked():
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(DPPCAValueError, match="`partition_share` must be a number in the open"):
        dp_score_group(X, ["a"] * 20, 1.0, 1e-5, partition_share=1.0)


# ---------------------------------------------------------- private partition selection
def test_partition_selection_is_on_the_ledger_and_drops_rare_labels():
    # eps = 4, share 0.1: the selection has eps_s = 0.4, delta_s = 1e-6, so b = 5 and
    # tau = 1 + 5 ln(1e6) = 70.1 rows. Groups of 300 pass with probability 1 - e^-46 / 2; a
    # label on 3 rows passes with probability e^-13.4 / 2 < 1e-6.
    rng = np.random.default_rng(12)
    X = rng.normal(size=(603, 3))
    labels = np.array(["b"] * 300 + ["a"] * 300 + ["rare"] * 3, dtype=object)
    res = dp_score_group(X, labels, 4.0, 1e-5, bins=4, g_dppca=True, rng=2, missing=0.0)
    assert res.groups == ["a", "b"] and res.group_selection == "partition selection"
    step = next(r for r in res.ledger if r.step == "groups: partition selection")
    assert (step.eps, step.delta, step.sensitivity) == pytest.approx((0.4, 1e-6, 2.0))
    assert res.ledger.spent_eps == pytest.approx(4.0) and res.ledger.spent_delta <= 1e-5 * (1 + 1e-9)  # the frame is pure DP
    text = _flat(res.summary().as_text())
    assert "Groups shown: a, b." in text and "labels with few rows may be missing" in text


def test_numbers_as_labels_are_selected_and_ordered_by_value():
    rng = np.random.default_rng(13)
    labels = pd.Series(np.repeat([10, 2, 1], 400))
    groups = selected_groups(labels, 1.0, 1e-6, rng, ledger=Ledger(1.0, 1e-6))
    assert groups.names == ["1", "2", "10"] and np.bincount(groups.codes).tolist() == [400] * 3


def test_selection_releasing_nothing_is_an_error_after_the_release():
    ledger = Ledger(1.0, 1e-6)
    with pytest.raises(DPPCAValueError, match="released no group label"):
        selected_groups(pd.Series(["a", "b", "c"]), 1.0, 1e-6, np.random.default_rng(0),
                        ledger=ledger)
    assert len(ledger) == 1  # the refusal is post-processing of the recorded selection


def test_threshold_formula():
    # b = Delta_0 / eps, tau = 1 + b ln(Delta_0 / (2 delta)), rounded up by a few ulps.
    scale, tau = partition_selection_threshold(0.5, 1e-5, max_partitions=2)
    assert scale == 4.0 and tau == pytest.approx(1 + 4 * math.log(1e5), rel=1e-14)
    assert tau >= 1 + 4 * math.log(1e5)
    scale, tau = partition_selection_threshold(1.0, 1e-5, max_partitions=1)
    assert scale == 1.0 and tau == pytest.approx(1 + math.log(0.5e5), rel=1e-14)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-6), (1.0, 1e-5), (5.0, 1e-3)])
def test_selection_probabilities_satisfy_the_dp_inequalities(eps, delta):
    # Replace-one touches two partitions: each must be (eps/2, delta/2)-DP on its own, i.e. for
    # every count c >= 1 and c + 1 both P(release) and P(no release) change by a factor at most
    # e^(eps/2) (equality holds: slack 1e-9 for rounding), and a lone row (count 1 vs absent)
    # is released with probability <= delta/2. Both tails from scipy's Laplace (accurate to a
    # few ulps relative, unlike 1 - p).
    scale, tau = partition_selection_threshold(eps, delta)
    counts = np.arange(1, 2000)
    release = stats.laplace.sf(tau - counts, scale=scale)
    stay = stats.laplace.cdf(tau - counts, scale=scale)
    factor = math.exp(eps / 2) * (1 + 1e-9)
    normal = stay[1:] > 1e-290  # beyond, the no-release tail underflows to 0 in float64
    assert np.all(release[1:] <= factor * release[:-1])
    assert np.all(stay[:-1][normal] <= factor * stay[1:][normal]) and normal.sum() > 100
    assert release[0] <= delta / 2 * (1 + 1e-9)
    assert np.allclose(selection_probability(counts, eps, delta), release, rtol=1e-12, atol=0)
    assert selection_probability(0, eps, delta) == 0


def test_selection_frequency_matches_the_exact_probability():
    # 20,000 independent decisions at the threshold (p = 1/2) and one b below it (p = e^-1/2):
    # the binomial sd is at most 0.0036, so 5 sd = 0.018.
    scale, tau = partition_selection_threshold(1.0, 1e-5)
    rng = np.random.default_rng(14)
    for count in (math.floor(tau), math.floor(tau - scale)):
        kept = select_partitions(np.full(20000, count), 1.0, 1e-5, rng)
        assert abs(kept.mean() - float(selection_probability(count, 1.0, 1e-5))) < 0.018


def test_select_partitions_rejects_bad_counts():
    with pytest.raises(DPPCAValueError, match="non-negative integers"):
        select_partitions([1.5, 3], 1.0, 1e-5, np.random.default_rng(0))


# ----------------------------------------------------------- grouped counts sensitivity
def test_counts_with_rows_in_no_group_keep_the_sensitivity():
    # Replace-one may move a row between groups, bins, and into or out of the groups shown
    # (code -1): at most two cells change, by 1 each (L1 <= 2, L2 <= sqrt(2)).
    rng = np.random.default_rng(15)
    grid = Grid.over((-2, 2), (-2, 2), (4, 4))
    points, codes = rng.normal(size=(80, 2)), rng.integers(-1, 3, 80)
    base = bin_counts(points, grid, codes, 3)
    assert base.sum() == (codes >= 0).sum()
    worst = 0.0
    for i in range(80):
        for code in (-1, 0, 1, 2):
            for new in (points[i], np.array([5.0, -5.0]), rng.normal(size=2)):
                p2, c2 = points.copy(), codes.copy()
                p2[i], c2[i] = new, code
                diff = bin_counts(p2, grid, c2, 3) - base
                assert np.abs(diff).sum() <= 2 and np.linalg.norm(diff) <= math.sqrt(2) + 1e-12
                worst = max(worst, np.abs(diff).sum())
    assert worst == 2


def test_plot_group_forwards_levels():
    rng = np.random.default_rng(16)
    X = pd.DataFrame(rng.normal(size=(150, 3)), columns=["a", "b", "c"])
    X["kind"] = np.repeat(["x", "y", "z"], 50)
    res = dp_score_plot_group(X, "kind", 3.0, 1e-5, private_plot="histogram", bins=4,
                              levels=["z", "y", "x", "w"], rng=3)
    assert res.groups == ["z", "y", "x", "w"] and res.figure is not None
    legend = res.figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["z", "y", "x", "w"]


@pytest.mark.parametrize("eps", [1.0, 3.0])
def test_the_group_sizes_stated_in_the_docstring(eps):
    """dp_score_group's `partition_share` entry: at the default share 0.1 of (eps, 1e-5), a label
    is released with probability 1/2 from `half` rows and 0.95 from `most` rows. Derived: the
    selection adds Laplace(b) noise, b = 2 / eps_s (Delta_0 = 2 partitions), to the count and
    keeps it at tau = 1 + b ln(2 / (2 delta_s)); P(count + Z >= tau) is 1/2 at count = tau and
    1 - exp(-(count - tau) / b) / 2 = 0.95 at count = tau + b ln 10."""
    import math

    import dppca

    eps_s, delta_s = 0.1 * eps, 0.1 * 1e-5
    b = 2 / eps_s
    tau = 1 + b * math.log(1 / delta_s)
    half, most = math.ceil(tau), math.ceil(tau + b * math.log(10))
    p = selection_probability(np.arange(1, 1000), eps_s, delta_s)
    assert int(np.argmax(p >= 0.5)) + 1 == half and int(np.argmax(p >= 0.95)) + 1 == most
    doc = _flat(dppca.dp_score_group.__doc__)
    stated = (f"1/2 from {half} rows, 0.95 from {most}" if eps == 1.0 else
              f"eps = 3: {half} and {most}")
    assert stated in doc, (half, most)


def _flat(text: str) -> str:
    """The text with runs of white space (the summary's line wrapping) folded to one space."""
    return " ".join(text.split())
