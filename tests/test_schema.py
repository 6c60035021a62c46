"""Declared public metadata (preprocessing/schema.py) and its use by dp_pc_dir, DPPCA and the CLI."""
import json
import re

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCAValueError, dp_pc_dir
from dppca.preprocessing.schema import DECLARED, read_schema


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, 3)) * [1.0, 10.0, 300.0], columns=["a", "b", "c"])


def test_schema_from_dict_frame_csv_and_json_agree(tmp_path):
    rows = [{"column": "a", "lower": -3.0, "upper": 3.0, "scale": 1.0, "units": "cm"},
            {"column": "c", "scale": 300.0}]
    frame = pd.DataFrame(rows)
    frame.to_csv(tmp_path / "s.csv", index=False)
    (tmp_path / "s.json").write_text(json.dumps(rows))
    nested = {"a": {"lower": -3, "upper": 3, "scale": 1, "units": "cm"}, "c": {"scale": 300}}
    for source in (nested, frame, str(tmp_path / "s.csv"), tmp_path / "s.json"):
        schema = read_schema(source)
        assert np.array_equal(schema.declared_scales(["a", "b", "c"]), [1.0, np.nan, 300.0],
                              equal_nan=True)
        lower, upper = schema.bounds(["a", "b", "c"])
        assert lower.tolist() == [-3.0, -np.inf, -np.inf] and upper.tolist() == [3.0, np.inf, np.inf]
        assert schema["a"].units == "cm"


@pytest.mark.parametrize("source, message", [
    ({"a": {"lower": 2, "upper": 1}}, "lower < upper"),
    ({"a": {"lower": 1, "upper": 1}}, "lower < upper"),
    ({"a": {"scale": 0}}, "scale > 0"),
    ({"a": {"scale": -1}}, "scale > 0"),
    ({"a": {"scale": float("inf")}}, "scale > 0"),
    ({"a": {"width": 1}}, "unknown field"),
])
def test_bad_declarations_are_named_errors(source, message):
    with pytest.raises(DPPCAValueError, match=message):
        read_schema(source)


def test_unknown_column_is_an_error_naming_it():
    with pytest.raises(DPPCAValueError, match="unknown column.*'zz'"):
        dp_pc_dir(_data(), 1, eps=1, delta=1e-5, rng=0, bounds={"zz": (0, 1)})
    with pytest.raises(DPPCAValueError, match="unknown column.*'zz'"):
        dp_pc_dir(_data(), 1, standardize=True, eps=1, delta=1e-5, rng=0, scale={"zz": 1.0})


def test_declared_scales_cost_nothing_and_show_on_the_ledger():
    X = _data()
    full = dp_pc_dir(X, 1, standardize=True, eps=1, delta=1e-5, rng=0, scale={"a": 1, "b": 10, "c": 300})
    assert full.scale.tolist() == [1.0, 10.0, 300.0] and full.scale_source == "public"
    part = dp_pc_dir(X, 1, standardize=True, eps=1, delta=1e-5, rng=0, scale={"c": 300.0})
    assert part.scale["c"] == 300.0  # the declared value itself, not an estimate
    rows = [r for r in part.ledger.releases if r.mechanism == DECLARED]
    assert [r.step for r in rows] == ["declared scales: c"] and all(r.eps == 0 for r in rows)
    # the private scales cover the undeclared columns only: their releases have p = 2
    assert "1 public (declared)" in part.scale_source


def test_bounds_clip_the_data_before_the_release():
    X = _data()
    X.loc[0, "a"] = 1e9  # an outlier the declared bounds remove
    bounded = dp_pc_dir(X, 1, eps=1, delta=1e-5, rng=3, bounds={"a": (-5, 5)}, nonprivate=True)
    clipped = X.assign(a=X["a"].clip(-5, 5))
    reference = dp_pc_dir(clipped, 1, eps=1, delta=1e-5, rng=3, nonprivate=True)
    # same seed, same clipped data: the same doubles (clipping is the only difference)
    assert np.array_equal(bounded.directions.to_numpy(), reference.directions.to_numpy())
    assert [r.step for r in bounded.ledger.releases if r.mechanism == DECLARED] == ["declared bounds: a"]


def test_dppca_takes_bounds_and_scale():
    from dppca import DPPCA

    X = _data()
    model = DPPCA(1, eps=4, standardize=True, random_state=0, scale={"c": 300.0},
                  bounds={"a": (-4, 4)}).fit(X)
    assert model.scale_[2] == 300.0
    assert {r.step for r in model.ledger_.releases if r.mechanism == DECLARED} == \
        {"declared bounds: a", "declared scales: c"}


def test_cli_schema_option(tmp_path, capsys):
    from dppca.cli import main

    _data().to_csv(tmp_path / "d.csv", index=False)
    pd.DataFrame({"column": ["a", "b", "c"], "scale": [1, 10, 300]}).to_csv(tmp_path / "s.csv", index=False)
    main(["report", "--data", str(tmp_path / "d.csv"), "--eps", "1", "--delta", "1e-5", "--seed", "1",
          "--standardize", "--schema", str(tmp_path / "s.csv"), "--sections", "directions",
          "--out", str(tmp_path / "out")])
    ledger = json.loads((tmp_path / "out" / "ledger.json").read_text())
    scales = ledger["sections"]["scales"]
    # all scales declared: no scale budget spent, the declared rows only
    assert all(r["eps"] == 0 for r in scales["releases"])
    assert re.search(r"\nc +300\.0\n", capsys.readouterr().out)
