"""dp_score and dp_score_group: results, budget, reproducibility, bad input."""
import numpy as np
import pandas as pd
import pytest

from dppca import (DPPCATypeError, DPPCAValueError, ScoreResult, dp_score, dp_score_group,
                   sampling_control)


@pytest.fixture
def clusters():
    """n=600, p=3: three well separated clusters along the first axis, group labels a/b/c."""
    rng = np.random.default_rng(2026)
    centres = np.array([[-6.0, 0, 0], [0, 3, 0], [6, 0, 0]])
    labels = np.repeat(["a", "b", "c"], [300, 200, 100])
    X = centres[pd.Categorical(labels).codes] + rng.normal(size=(600, 3))
    frame = pd.DataFrame(X, columns=["x1", "x2", "x3"])
    frame["label"] = labels
    return frame


def _numeric(frame):
    return frame.drop(columns="label")


@pytest.mark.parametrize("g_dppca", [False, True])
@pytest.mark.parametrize("method", [("add", "sparse"), "add", ("sparse",)])
def test_ledger_spends_exactly_the_budget(clusters, g_dppca, method):
    res = dp_score(_numeric(clusters), 2.0, 1e-5, method=method, g_dppca=g_dppca, rng=1,
                   missing=0.0)  # a declared fill value: no median release on complete data
    assert res.ledger.spent_eps == pytest.approx(2.0) and res.ledger.spent_delta <= 1e-5 * (1 + 1e-9)  # the frame is pure DP
    steps = [r.step for r in res.ledger]
    assert steps[-len(res.methods):] == [f"histogram: {m}" for m in res.methods]
    assert ("directions: Kendall's tau matrix" in steps) == g_dppca
    hist_eps = sum(r.eps for r in res.ledger if r.step.startswith("histogram"))
    assert hist_eps == pytest.approx(2.0 / (3 if g_dppca else 2))  # R's split; methods share it


def test_private_standardization_is_on_the_ledger(clusters):
    # Private scales need a larger budget at n = 600 (they get 35% of the directions' third).
    res = dp_score(_numeric(clusters), 30.0, 1e-5, standardize=True, g_dppca=True, rng=1)
    assert any(r.step.startswith("scale") for r in res.ledger)
    assert res.ledger.spent_eps == pytest.approx(30.0)
    assert res.axis_labels[0] == "PC1 score (standardized units)"


def test_result_shape_and_probabilities(clusters):
    res = dp_score(_numeric(clusters), 3.0, 1e-5, bins=(8, 5), rng=3)
    assert isinstance(res, ScoreResult) and res.bins == (8, 5) and res.bins_rule == "user"
    assert list(res.histograms) == ["add", "sparse"]
    for hist in res.histograms.values():
        assert list(hist.columns) == ["xmin", "xmax", "ymin", "ymax", "prob"] and len(hist) == 40
        assert hist["prob"].sum() == pytest.approx(1.0) and (hist["prob"] >= 0).all()
    assert res.frame["xlim"][0] == pytest.approx(-res.half_width)  # centred on the private centre
    assert res.scores is None and res.nonprivate_histogram is None  # nothing NON-PRIVATE by default
    assert res.groups is None and res.group_sizes is None


def test_default_bins_come_from_the_public_rule(clusters):
    res = dp_score(_numeric(clusters), 3.0, 1e-5, rng=3)
    assert res.bins_rule == "default rule" and res.bins[0] == res.bins[1] >= 4


def test_scalar_bins_mean_square_grid(clusters):
    assert dp_score(_numeric(clusters), 3.0, 1e-5, bins=7.0, rng=3).bins == (7, 7)


def test_scores_are_not_centred_by_the_sample_mean(clusters):
    # The only per-row map is x -> x V (no sample mean): with center=False the reference scores
    # are exactly X V, so replacing a row changes that row's score and nothing else.
    X = _numeric(clusters)
    res = dp_score(X, 3.0, 1e-5, center=False, axes=(2, 1), g_dppca=True, nonprivate=True, rng=4)
    V = res.directions.directions.to_numpy()[:, [1, 0]]
    np.testing.assert_allclose(res.scores.to_numpy(), X.to_numpy() @ V, atol=1e-12)
    assert list(res.scores.columns) == ["PC2", "PC1"]
    # center=True only shifts by the private centre (post-processing).
    shifted = dp_score(X, 3.0, 1e-5, center=True, axes=(2, 1), g_dppca=True, nonprivate=True, rng=4)
    np.testing.assert_allclose(shifted.scores.to_numpy(), X.to_numpy() @ V - shifted.centre.to_numpy())


def test_private_frame_contains_most_points(clusters):
    res = dp_score(_numeric(clusters), 3.0, 1e-5, g_dppca=True, nonprivate=True, rng=5)
    s = res.scores.to_numpy()
    inside = ((s[:, 0] >= res.frame["xlim"][0]) & (s[:, 0] <= res.frame["xlim"][1])
              & (s[:, 1] >= res.frame["ylim"][0]) & (s[:, 1] <= res.frame["ylim"][1])).mean()
    assert inside >= 0.95  # the target; the 0.99 radius is inflated by 20%


def test_nonprivate_histogram_is_exact_on_the_same_grid(clusters):
    res = dp_score(_numeric(clusters), 3.0, 1e-5, bins=6, nonprivate=True, rng=6)
    hist = res.nonprivate_histogram
    edges = ["xmin", "xmax", "ymin", "ymax"]
    assert hist[edges].equals(res.histograms["add"][edges])
    counts = np.round(hist["prob"].to_numpy() * 600)
    assert counts.sum() == 600 and np.allclose(counts, hist["prob"] * 600)


def test_same_seed_same_output_and_fresh_seed_differs(clusters):
    X = _numeric(clusters)
    first, second = (dp_score(X, 1.0, 1e-5, method="add", g_dppca=True, rng=7) for _ in range(2))
    assert first.frame == second.frame
    for m in first.methods:
        pd.testing.assert_frame_equal(first.histograms[m], second.histograms[m])
    other = dp_score(X, 1.0, 1e-5, method="add", g_dppca=True, rng=8)
    assert other.frame != first.frame
    generator = np.random.default_rng(7)
    assert dp_score(X, 1.0, 1e-5, method="add", g_dppca=True, rng=generator).frame == first.frame


def test_sample_is_reproducible_and_post_processing(clusters):
    res = dp_score(_numeric(clusters), 3.0, 1e-5, rng=9)
    spent = res.ledger.spent_eps
    points = res.sample(50, method="sparse", sampling="center", bandwidth_scale=0.0, rng=1)
    assert list(points.columns) == ["pc_x", "pc_y"] and len(points) == 50
    pd.testing.assert_frame_equal(points, res.sample(50, method="sparse", sampling="center",
                                                     bandwidth_scale=0.0, rng=1))
    assert len(res.sample()) == 600  # n is public
    assert res.ledger.spent_eps == spent
    with pytest.raises(KeyError, match="no histogram 'nonprivate'"):
        res.sample(5, method="nonprivate")


def test_to_dict_mirrors_r_value(clusters):
    res = dp_score(_numeric(clusters), 3.0, 1e-5, bins=(4, 4), method="add", rng=10)
    out = res.to_dict()
    assert set(out["frame"]) == {"xlim", "ylim"} and len(out["frame"]["xlim"]) == 2
    assert set(out["add"]) == {"xmin", "xmax", "ymin", "ymax", "prob"} and len(out["add"]["prob"]) == 16
    assert "nonprivate" not in out and "score" not in out and "sparse" not in out
    assert out["ledger"]["spent_eps"] == pytest.approx(3.0)


def test_summary_warns_loudly_without_private_directions(clusters):
    text = str(dp_score(_numeric(clusters), 3.0, 1e-5, g_dppca=False, rng=11).summary())
    assert "NON-PRIVATE covariance" in text and "NOT differentially private" in text
    private = str(dp_score(_numeric(clusters), 3.0, 1e-5, g_dppca=True, rng=11).summary())
    assert "g-DPPCA (private)" in private and "NON-PRIVATE" not in private
    for part in ("Private frame", "Histograms", "Ledger", "frame: radius", "histogram: sparse"):
        assert part in private
    assert "<table" in dp_score(_numeric(clusters), 3.0, 1e-5, rng=11)._repr_html_()


# ----------------------------------------------------------------------------- groups
def test_group_histograms_share_the_frame_and_hide_exact_sizes(clusters):
    res = dp_score_group(clusters, "label", 3.0, 1e-5, bins=6, g_dppca=True, rng=12,
                         levels=["a", "b", "c"])
    assert res.groups == ["a", "b", "c"] and res.n_features == 3  # the label column is not a feature
    hist = res.histograms["add"]
    assert list(hist.columns) == ["xmin", "xmax", "ymin", "ymax", "prob", "group"] and len(hist) == 3 * 36
    assert np.allclose(hist.groupby("group", observed=True)["prob"].sum(), 1.0)
    # The group sizes are private estimates: sum of noisy counts over 36 cells has sd
    # sigma * 6 (sigma ~ 7 counts here), so they are close to (300, 200, 100) but not equal.
    sizes = res.group_sizes["add"].to_numpy()
    assert np.abs(sizes - [300, 200, 100]).max() < 5 * 6 * 10
    assert not np.allclose(sizes, [300, 200, 100])
    assert list(res.group_sizes.columns) == ["add", "sparse"]
    assert res.ledger.spent_eps == pytest.approx(3.0)
    assert [r.step for r in res.ledger].count("histogram: add") == 1  # one release for all groups


def test_group_as_labels_and_categorical_order(clusters):
    labels = pd.Categorical(clusters["label"], categories=["c", "b", "a", "unused"])
    res = dp_score_group(_numeric(clusters), labels, 3.0, 1e-5, bins=4, method="sparse",
                         nonprivate=True, rng=13)
    # The categories are the declared public domain: the unused one is kept (issue 9).
    assert res.groups == ["c", "b", "a", "unused"] and res.group_selection == "categories"
    assert res.group_sizes["exact (NON-PRIVATE)"].tolist() == [100, 200, 300, 0]
    assert list(res.scores["group"].cat.categories) == ["c", "b", "a", "unused"]
    groups = res.to_dict()["groups"]
    assert list(groups) == ["c", "b", "a", "unused"]
    assert set(groups["a"]) == {"n", "sparse", "nonprivate"}


def test_group_samples_follow_private_sizes(clusters):
    res = dp_score_group(clusters, "label", 3.0, 1e-5, bins=6, rng=14, missing=0.0)
    points = res.sample(600, method="add")
    assert list(points.columns) == ["pc_x", "pc_y", "group"] and len(points) == 600
    shares = points["group"].value_counts(normalize=True).reindex(["a", "b", "c"]).to_numpy()
    weights = res.group_sizes["add"].to_numpy()
    assert np.abs(shares - weights / weights.sum()).max() <= 1 / 600 + 1e-12  # largest remainder


# -------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs,error,message", [
    (dict(bins=0), DPPCAValueError, "`bins` must be an integer >= 1"),
    (dict(bins=(8, 2.5)), DPPCAValueError, "`bins` must be an integer"),
    (dict(bins=(3, 3, 3)), DPPCAValueError, "`bins` must be a positive integer or two"),
    (dict(bins="10"), DPPCAValueError, "`bins` must be a positive integer or two"),
    (dict(axes=(1, 1)), DPPCAValueError, "repeated axis"),
    (dict(axes=(0, 2)), DPPCAValueError, r"`axes` must be an integer in \[1, 3\]"),
    (dict(axes=(1, 4)), DPPCAValueError, r"`axes` must be an integer in \[1, 3\]"),
    (dict(axes=(1, 2, 3)), DPPCAValueError, "`axes` must be two distinct PC numbers"),
    (dict(axes=2), DPPCAValueError, "`axes` must be two distinct PC numbers"),
    (dict(method="sprase"), DPPCAValueError, "`method` must be one of"),
    (dict(method=("add", "sprase")), DPPCAValueError, "`method` must be one of"),  # no silent drop
    (dict(method=()), DPPCAValueError, "`method` must name at least one"),
    (dict(eps=0), DPPCAValueError, "`eps`"),
    (dict(delta=1.5), DPPCAValueError, "`delta`"),
    (dict(center="yes"), DPPCATypeError, "`center` must be True or False"),
    (dict(g_dppca=1), DPPCATypeError, "`g_dppca` must be True or False"),
    (dict(calibration="exact"), DPPCAValueError, "`calibration` must be one of"),
    (dict(rng="seed"), DPPCATypeError, "`rng`"),
])
def test_bad_arguments_are_clear_errors(clusters, kwargs, error, message):
    args = dict(X=_numeric(clusters), eps=1.0, delta=1e-5) | kwargs
    with pytest.raises(error, match=message):
        dp_score(**args)


@pytest.mark.parametrize("X,error,message", [
    (np.ones((1, 3)), DPPCAValueError, "at least 2 rows"),
    (np.ones((5, 1)), DPPCAValueError, "at least 2 numeric columns"),
    (pd.DataFrame({"a": [1.0, 2], "b": ["x", "y"]}), DPPCATypeError, "non-numeric"),
])
def test_bad_data_is_a_clear_error(X, error, message):
    with pytest.raises(error, match=message):
        dp_score(X, 1.0, 1e-5)


@pytest.mark.parametrize("group,message", [
    ("nope", "`group` must name a column of X"),
    (["a"] * 599, "one label per row of X \\(600\\); got 599"),
])
def test_bad_groups_are_clear_errors(clusters, group, message):
    with pytest.raises(DPPCAValueError, match=message):
        dp_score_group(clusters if group == "nope" else _numeric(clusters), group, 1.0, 1e-5)


def test_sampling_control_is_the_frozen_dataclass():
    control = sampling_control("center", 10)
    with pytest.raises(AttributeError):
        control.sample_size = 5
