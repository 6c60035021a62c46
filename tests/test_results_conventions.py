"""Result objects follow scipy/statsmodels conventions (issue 14.5).

``plot()`` returns a Figure and leaves the result untouched; only the ``*_plot`` functions
attach ``.figure`` (and the samples) for R parity; ``sample(rng=...)`` follows SPEC 7; the
result layer computes nothing and imports no estimator.
"""
import ast
import pickle
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import dppca
from dppca import dp_pc_dir, dp_score, dp_score_group, dp_score_plot, dp_score_plot_group
from dppca import dp_scree, dp_scree_plot

RESULTS = Path(dppca.__file__).parent / "results"


@pytest.fixture(scope="module")
def data():
    """n=400, p=4 Gaussian with spread-out variances, and three public group labels."""
    rng = np.random.default_rng(14)
    X = pd.DataFrame(rng.normal(size=(400, 4)) * [3.0, 2.0, 1.0, 0.5], columns=list("abcd"))
    labels = pd.Series(np.repeat(["u", "v", "w"], [200, 120, 80]), name="g")
    return X, labels


def snapshot(result) -> bytes:
    """Every attribute, by value (pickle covers DataFrames, ledgers and the generator's state)."""
    return pickle.dumps(vars(result))


def scree_result(data):
    return dp_scree(data[0], 2, eps=2.0, delta=1e-5, rng=3)


def score_result(data):
    return dp_score(data[0], 2.0, 1e-5, g_dppca=True, rng=3)


def group_result(data):
    X, labels = data
    return dp_score_group(X.assign(g=labels), "g", 2.0, 1e-5, method="add", g_dppca=True,
                          rng=3, levels=["u", "v", "w"])


def directions_result(data):
    return dp_pc_dir(data[0], 2, eps=2.0, delta=1e-5, rng=3)


@pytest.mark.parametrize("make, kwargs", [
    (scree_result, {}), (scree_result, {"type": "pve"}),
    (score_result, {}), (score_result, {"private_plot": ("histogram",)}),
    (group_result, {}), (directions_result, {}),
])
def test_plot_returns_a_figure_and_leaves_the_result_unchanged(data, make, kwargs):
    result = make(data)
    before = snapshot(result)
    figure = result.plot(**kwargs)
    assert isinstance(figure, matplotlib.figure.Figure)
    assert snapshot(result) == before  # no .figure, no samples, generator not advanced
    assert getattr(result, "figure", None) is None


def test_score_plot_samples_do_not_consume_the_results_generator(data):
    # Two results from the same seed: plotting one must not change what sample() gives next.
    plotted, untouched = score_result(data), score_result(data)
    plotted.plot()
    plotted.plot()
    pd.testing.assert_frame_equal(plotted.sample(100), untouched.sample(100))
    assert plotted.samples == {}


def test_score_plot_draws_the_same_samples_every_time(data):
    result = score_result(data)
    first, second = result.plot(private_plot=("sample",)), result.plot(private_plot=("sample",))
    points = [[c.get_offsets() for ax in fig.axes for c in ax.collections] for fig in (first, second)]
    assert sum(len(p) for p in points[0]) > 0
    for a, b in zip(*points):
        np.testing.assert_array_equal(a, b)


def test_plot_functions_attach_the_figure_and_samples(data):
    X, labels = data
    scree = dp_scree_plot(X, 2, eps=2.0, delta=1e-5, rng=3)
    assert isinstance(scree.figure, matplotlib.figure.Figure)
    score = dp_score_plot(X, 2.0, 1e-5, g_dppca=True, rng=3)
    assert isinstance(score.figure, matplotlib.figure.Figure)
    assert set(score.samples) == set(score.methods) and score.sample_methods == ["uniform"]
    grouped = dp_score_plot_group(X.assign(g=labels), "g", 2.0, 1e-5, method="add",
                                  g_dppca=True, rng=3, levels=["u", "v", "w"])
    assert isinstance(grouped.figure, matplotlib.figure.Figure)
    assert list(grouped.samples["add"]["uniform"]["group"].cat.categories) == ["u", "v", "w"]


def test_sample_rng_follows_spec_7(data):
    result = score_result(data)
    by_int = result.sample(50, rng=5)
    pd.testing.assert_frame_equal(by_int, result.sample(50, rng=np.random.default_rng(5)))
    assert not by_int.equals(result.sample(50, rng=6))
    # None continues the call's generator: a seeded call gives reproducible samples.
    pd.testing.assert_frame_equal(result.sample(50), score_result(data).sample(50))
    with pytest.raises(dppca.DPPCATypeError, match="rng"):
        result.sample(5, rng="five")


def test_grouped_sample_splits_by_the_private_sizes(data):
    result = group_result(data)
    points = result.sample(1000, rng=1)
    counts = points["group"].value_counts().reindex(result.groups).to_numpy()
    weights = np.maximum(result.group_weights("add"), 0)
    # Largest-remainder allocation: each group within one point of its exact share.
    assert np.all(np.abs(counts - 1000 * weights / weights.sum()) < 1)


def _imported_modules(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            package = ["dppca", "results"][:len(["dppca", "results"]) - node.level + 1]
            yield ".".join(package + ([node.module] if node.module else []))
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


@pytest.mark.parametrize("path", sorted(RESULTS.glob("*.py")), ids=lambda p: p.name)
def test_results_import_no_estimator_or_pipeline(path):
    # Allowed: the layers below results that are not computations (lint-imports checks the
    # rest): the result layer itself, the ledger, validation, controls and plotting.
    allowed = ("dppca.results", "dppca.privacy", "dppca._validation", "dppca.plotting",
               "dppca.controls")
    own = [m for m in _imported_modules(path) if m.startswith("dppca")]
    assert [m for m in own if not m.startswith(allowed)] == []


def test_default_sample_is_capped_for_a_readable_scatter(monkeypatch):
    # R draws n points; past DEFAULT_SAMPLE_CAP the default stops there (a scatter of 10^7 opaque
    # points is a solid block), and sample_size=n still gives R's behaviour.
    import dppca.results.score as module
    from dppca import dp_score, load_gau, sampling_control

    monkeypatch.setattr(module, "DEFAULT_SAMPLE_CAP", 50)
    result = dp_score(load_gau().iloc[:400], eps=1, delta=1e-5, method="add", rng=3)
    assert len(result.sample(rng=1)) == 50
    explicit = result.draw_samples(sampling_control(sample_size=400))
    assert len(explicit["add"]["uniform"]) == 400
