"""Declared public bounds and scales (``bounds=``, ``scale=``) on every entry point (issue 20, item 3).

Each entry point takes them through one helper (:func:`dppca.preprocessing.schema.declared_input`):
declared scales cost nothing (no scale release, a "public (declared)" ledger row), bounds clip the
values before anything else, cut the score frame to the declared box and bound the scree trace,
and a bad codebook is an error that names the argument.
"""
import re
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dppca import (DPPCATypeError, DPPCAValueError, dp_pc_dir, dp_score, dp_score_group,
                   dp_score_plot, dp_score_plot_group, dp_scree, dp_scree_plot)
from dppca.preprocessing import as_matrix
from dppca.preprocessing.schema import DECLARED, declared_input

EPS, DELTA = 2.0, 1e-5
SCALES = {"a": 1.0, "b": 10.0, "c": 300.0}
LABELS = np.array(["x", "y"] * 200, dtype=object)

#: name -> call(X, **declared): each entry point with cheap settings (2 components, seed 1).
ENTRY_POINTS = {
    "dp_pc_dir": lambda X, **kw: dp_pc_dir(X, 2, eps=EPS, delta=DELTA, rng=1, **kw),
    "dp_scree": lambda X, **kw: dp_scree(X, 2, eps=EPS, delta=DELTA, rng=1, **kw),
    "dp_scree_plot": lambda X, **kw: dp_scree_plot(X, 2, eps=EPS, delta=DELTA, rng=1, **kw),
    "dp_score": lambda X, **kw: dp_score(X, EPS, DELTA, method="add", rng=1, **kw),
    "dp_score_plot": lambda X, **kw: dp_score_plot(X, EPS, DELTA, method="add",
                                                   private_plot="histogram", rng=1, **kw),
    "dp_score_group": lambda X, **kw: dp_score_group(X, LABELS, EPS, DELTA, method="add",
                                                     levels=["x", "y"], rng=1, **kw),
    "dp_score_plot_group": lambda X, **kw: dp_score_plot_group(
        X, LABELS, EPS, DELTA, method="add", private_plot="histogram", levels=["x", "y"], rng=1,
        **kw),
}
SCORE_POINTS = [name for name in ENTRY_POINTS if name.startswith("dp_score")]


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, 3)) @ np.array([[1.0, 0.5, 0.2], [0, 1, 0.3], [0, 0, 1]])
                        * [1.0, 10.0, 300.0], columns=["a", "b", "c"])


def _run(name, X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # accuracy warnings: public arithmetic, not tested here
        result = ENTRY_POINTS[name](X, **kw)
    if getattr(result, "figure", None) is not None:
        plt.close(result.figure)
    return result


def _ledger(result):
    return getattr(result, "combined_ledger", None) or result.ledger


def _numbers(result) -> np.ndarray:
    """The released numbers of a result (directions, scree values, or frame and histograms)."""
    if hasattr(result, "scree"):
        return np.concatenate([result.scree.to_numpy().ravel(), [result.trace]])
    if hasattr(result, "histograms"):
        probs = [h["prob"].to_numpy() for h in result.histograms.values()]
        return np.concatenate([*result.frame.values(), *probs])
    return result.directions.to_numpy().ravel()


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_declared_scales_are_not_released_and_show_as_declared(name):
    result = _run(name, _data(), standardize=True, scale=SCALES)
    ledger = _ledger(result)
    steps = [r.step for r in ledger.releases]
    assert not [s for s in steps if s.startswith("scale")], steps  # no private scale release
    declared = [r for r in ledger.releases if r.mechanism == DECLARED]
    assert [r.step for r in declared] == ["declared scales: a, b, c"]
    assert all(r.eps == 0 and r.delta == 0 for r in declared)
    # the share a private scale release would have taken goes to the other steps: the ledger
    # still sums to the call's budget (rounding of a few additions: 1e-12 relative)
    assert sum(r.eps for r in ledger.releases) == pytest.approx(EPS, rel=1e-12)
    assert result.scale_source == "public"


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_partly_declared_scales_release_the_others_only(name):
    result = _run(name, _data(), standardize=True, scale={"c": 300.0})
    steps = [r.step for r in _ledger(result).releases]
    assert "declared scales: c" in steps
    assert any(s.startswith("scale") for s in steps)  # a, b still get private scales
    assert "1 public (declared)" in result.scale_source


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_bounds_clip_the_values_before_anything_else(name):
    X = _data()
    X.loc[[0, 5], "a"] = [1e9, -1e9]  # outliers that the declared bounds of `a` remove
    clipped = X.assign(a=X["a"].clip(-4, 4))
    # Only `a` is bounded: every direction also uses b and c, so no frame or trace is cut and
    # the bounded call must release exactly the doubles of the plain call on clipped data.
    bounded = _run(name, X, bounds={"a": (-4, 4)})
    plain = _run(name, clipped)
    assert np.array_equal(_numbers(bounded), _numbers(plain), equal_nan=True)
    rows = [r for r in _ledger(bounded).releases if r.mechanism == DECLARED]
    assert [r.step for r in rows] == ["declared bounds: a"] and rows[0].eps == 0


def _box(result, bounds):
    """The declared box of the plotted scores, recomputed here: sum_i of [min, max](d_i l_i, d_i u_i)."""
    d = result.directions.directions.to_numpy()[:, [a - 1 for a in result.axes]]
    lower, upper = (np.array([bounds[c][i] for c in result.directions.directions.index]) for i in (0, 1))
    ends = np.stack([d * lower[:, None], d * upper[:, None]])
    return np.column_stack([ends.min(axis=0).sum(axis=0), ends.max(axis=0).sum(axis=0)])


@pytest.mark.parametrize("name", SCORE_POINTS)
def test_score_frame_is_never_wider_than_the_declared_box(name):
    # Data at the corners of the unit cube (0/1 values, jittered inwards): the private frame
    # (1.2 x a 0.99-quantile radius around the median) sticks out of the box of the scores,
    # so the cut has work to do.
    rng = np.random.default_rng(3)
    corners = rng.integers(0, 2, size=(400, 3))
    X = pd.DataFrame(np.abs(corners - rng.uniform(0, 0.05, size=(400, 3))), columns=["a", "b", "c"])
    bounds = {c: (0.0, 1.0) for c in X}
    cut = _run(name, X, bounds=bounds, center=False)
    free = _run(name, X, center=False)
    box = _box(cut, bounds)
    # slack: the box is widened by 2 p 2^-52 of its terms (floating-point scores), |terms| <= 1
    slack = 2 * 3 * np.finfo(float).eps * 3
    for axis, limits in enumerate((cut.frame["xlim"], cut.frame["ylim"])):
        assert box[axis, 0] - slack <= limits[0] < limits[1] <= box[axis, 1] + slack
    wider = [free.frame[k][0] < box[i, 0] - slack or free.frame[k][1] > box[i, 1] + slack
             for i, k in enumerate(("xlim", "ylim"))]
    assert any(wider)  # without bounds the same seed gives a frame outside the box


def test_declared_variance_bound_holds_at_its_extreme():
    # Half the rows at each end of [l, u]: the sample variance (ddof 1) is exactly
    # n/(n-1) (u - l)^2 / 4, Popoviciu's case of equality; the bound must not fall below it.
    n = 10
    values = np.column_stack([np.repeat([-2.0, 3.0], n // 2), np.repeat([0.0, 0.1], n // 2)])
    given = declared_input(as_matrix(values), bounds={"V1": (-2, 3), "V2": (0, 0.1)})
    trace = np.trace(np.cov(values, rowvar=False, ddof=1))
    assert trace <= given.variance_bound() <= trace * (1 + 1e-9)
    assert given.variance_bound([5.0, 0.1]) == pytest.approx(n / (n - 1) * (0.25 + 0.25), rel=1e-9)
    assert declared_input(as_matrix(values), bounds={"V1": (-2, 3)}).variance_bound() == np.inf


def test_scree_trace_never_exceeds_the_declared_bound():
    X = pd.DataFrame(np.random.default_rng(4).uniform(size=(300, 3)), columns=["a", "b", "c"])
    bounds = {c: (0.0, 1.0) for c in X}
    bound = 3 * 0.25 * 300 / 299
    for seed in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = dp_scree(X, 2, eps=0.5, delta=DELTA, rng=seed, bounds=bounds)
        assert result.trace <= bound


BAD = [
    (dict(bounds={"a": (2, 1)}), DPPCAValueError, "`bounds`: column 'a' needs lower < upper"),
    (dict(bounds={"a": {"width": 1}}), DPPCAValueError, "`bounds`: unknown field"),
    (dict(bounds=42), DPPCATypeError, "`bounds` must be a dict"),
    (dict(bounds={"zz": (0, 1)}), DPPCAValueError, "`bounds`: unknown column.*'zz'"),
    (dict(scale={"a": -1.0}, standardize=True), DPPCAValueError, "`scale`: column 'a' needs a finite scale"),
    (dict(scale={"zz": 1.0}, standardize=True), DPPCAValueError, "`scale`: unknown column.*'zz'"),
]


@pytest.mark.parametrize("name", ENTRY_POINTS)
@pytest.mark.parametrize("kwargs, error, message", BAD)
def test_bad_codebooks_are_errors_naming_the_argument(name, kwargs, error, message):
    with pytest.raises(error, match=message):
        _run(name, _data(n=40), **kwargs)


def test_a_codebook_file_feeds_bounds_and_scales(tmp_path):
    path = tmp_path / "codebook.csv"
    pd.DataFrame({"column": ["a", "b", "c"], "lower": [-4, -40, -1200], "upper": [4, 40, 1200],
                  "scale": [1.0, 10.0, 300.0], "units": ["cm", "kg", "$"]}).to_csv(path, index=False)
    result = _run("dp_score", _data(), bounds=str(path), standardize=True)
    steps = [r.step for r in result.ledger.releases if r.mechanism == DECLARED]
    assert steps == ["declared bounds: a, b, c", "declared scales: a, b, c"]
    assert result.scale_source == "public"


def test_cli_schema_feeds_every_section_and_prints_the_declared_section(tmp_path, capsys):
    from dppca.cli import main

    _data().to_csv(tmp_path / "d.csv", index=False)
    pd.DataFrame({"column": ["a", "b", "c"], "lower": [-4, -40, -1200], "upper": [4, 40, 1200],
                  "scale": [1.0, 10.0, 300.0], "units": ["cm", "kg", "usd"]}).to_csv(
        tmp_path / "s.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main(["report", "--data", str(tmp_path / "d.csv"), "--eps", "3", "--delta", "1e-5",
              "--seed", "1", "--k", "2", "--standardize", "--schema", str(tmp_path / "s.csv"),
              "--out", str(tmp_path / "out")])
    import json

    sections = json.loads((tmp_path / "out" / "ledger.json").read_text())["sections"]
    declared = [r["step"] for r in sections["declared"]["releases"]]
    assert declared == ["declared bounds: a, b, c", "declared scales: a, b, c"]
    assert all(r["eps"] == 0 and r["mechanism"] == DECLARED for r in sections["declared"]["releases"])
    assert all(r["eps"] == 0 for r in sections["scales"]["releases"])  # every scale declared
    for name in ("directions", "score", "scree"):  # each section used the bounds (scaled units)
        steps = [r["step"] for r in sections[name]["releases"]]
        assert "declared bounds: a, b, c" in steps, name
    out = capsys.readouterr().out
    assert 'declared public metadata (--schema; no budget, "public (declared)" on the ledger)' in out
    assert re.search(r"\nc +-1200\.0 +1200\.0 +300\.0 +usd\n", out)


def test_cli_schema_declares_and_clips_as_the_api_does(tmp_path):
    # `dppca report --schema F` takes the API's path for declared metadata (declared_input): its
    # "declared" section holds the "public (declared)" rows dp_pc_dir(X, bounds=F) records, and its
    # directions section, on the data clipped the same way, releases the API call's directions
    # bitwise (same seed stream, same budget). Row 0 of a lies outside a's declared box.
    import json

    from dppca.cli import main

    X = _data()
    X.iloc[0, 0] = 50.0
    X.to_csv(tmp_path / "d.csv", index=False)
    path = tmp_path / "s.csv"
    pd.DataFrame({"column": ["a", "c"], "lower": [-4.0, np.nan], "upper": [4.0, np.nan],
                  "scale": [np.nan, 300.0]}).to_csv(path, index=False)
    main(["report", "--data", str(tmp_path / "d.csv"), "--eps", "3", "--delta", "1e-5", "--seed",
          "1", "--k", "2", "--schema", str(path), "--sections", "directions",
          "--missing", "0", "--out", str(tmp_path / "out")])  # complete data, declared so
    sections = json.loads((tmp_path / "out" / "ledger.json").read_text())["sections"]
    stream = np.random.SeedSequence(1).spawn(2)[0]  # the CLI's stream of its first section
    api = dp_pc_dir(X, 2, eps=3.0, delta=1e-5, rng=np.random.default_rng(stream), bounds=str(path),
                    missing=0.0)
    declared = [r for r in api.ledger.to_dict()["releases"] if r["mechanism"] == DECLARED]
    assert [r["step"] for r in declared] == ["declared bounds: a", "declared scales: c"]
    assert sections["declared"]["releases"] == declared
    cli = pd.read_csv(tmp_path / "out" / "directions.csv", index_col="variable")
    np.testing.assert_array_equal(cli.to_numpy(), api.directions.to_numpy())


def test_scree_takes_directions_released_with_declared_bounds():
    # The declared rows of the directions' ledger cost nothing: the scree call must not count
    # them as Gaussian releases of its group (they have no noise).
    X, bounds = _data(), {"a": (-4, 4)}
    directions = dp_pc_dir(X, 2, eps=1, delta=DELTA, rng=2, bounds=bounds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dp_scree(X, 2, eps=EPS, delta=DELTA, rng=1, bounds=bounds, directions=directions)
    ledger = result.combined_ledger
    assert sum(r.eps for r in ledger.releases) == pytest.approx(EPS, rel=1e-12)
    assert "directions: Kendall's tau matrix" in [r.step for r in ledger.releases]
