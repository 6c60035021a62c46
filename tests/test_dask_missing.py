"""Dask arrays, dask DataFrames and Parquet/CSV files follow the same missing= policy as data in
memory: a NaN or inf cell is never refused, a data set and its neighbour with one more missing
(and one more infinite) cell give the same ledger, warnings and output shapes, and the dask
result equals the in-memory one on the same data (same seed)."""
import warnings

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import dppca  # noqa: E402
from dppca.preprocessing.missing import private_medians  # noqa: E402
from dppca.privacy.composition import GaussianGroup  # noqa: E402
from dppca.sklearn import DPPCA  # noqa: E402

N, P, CHUNK = 3000, 4, 700
BUDGET = dict(eps=2.0, delta=1e-5, rng=3)
BLOCKS = dict(design="incomplete", pairs_per_row=100)

#: The dp_pc_dir variants that have a dask route: g-DPPCA (all pairs, a block design, private
#: scales, declared fills), the rank path (all pairs, a block design).
DIRECTIONS = {
    "gdppca, all pairs (pairwise)": dict(design="complete"),
    "gdppca, block design (pairwise)": BLOCKS,
    "gdppca, private scales (median)": dict(standardize=True, **BLOCKS),
    "gdppca, median": dict(missing="median", **BLOCKS),
    "gdppca, declared fill": dict(missing=0.5, **BLOCKS),
    "rank, all pairs (pairwise)": dict(standardize="rank", design="complete"),
    "rank, block design (pairwise)": dict(standardize="rank", **BLOCKS),
    "rank, median": dict(standardize="rank", missing="median", **BLOCKS),
}


def _data(extra: bool) -> pd.DataFrame:
    """10% of the cells missing, one +inf; ``extra``: row 10 (one row, so a replace-one
    neighbour) gets one more missing cell and a -inf."""
    rng = np.random.default_rng(0)
    x = rng.standard_t(5, size=(N, P)) @ np.diag([4.0, 2.0, 1.0, 1.0])
    x[rng.random(x.shape) < 0.1] = np.nan
    x[20, 3] = np.inf
    x[10] = rng.normal(size=P)
    if extra:
        x[10, 0], x[10, 2] = np.nan, -np.inf
    return pd.DataFrame(x, columns=[f"x{j}" for j in range(P)])


@pytest.fixture(scope="module")
def frames():
    return {extra: _data(extra) for extra in (False, True)}


def _lazy(frame):
    return da.from_array(frame.to_numpy(), chunks=(CHUNK, P))


def _run(call):
    """The call's result and its warnings (category, message); never an exception."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, sorted((w.category.__name__, str(w.message)) for w in caught)


def _ledger(result) -> pd.DataFrame:
    ledger = getattr(result, "combined_ledger", None) or result.ledger
    return ledger.to_frame()


@pytest.mark.parametrize("name", sorted(DIRECTIONS))
def test_dask_directions_same_public_outputs_for_neighbours_and_equal_to_memory(frames, name):
    options = DIRECTIONS[name]
    results = {extra: _run(lambda: dppca.dp_pc_dir(_lazy(frames[extra]), 2, **options,
                                                   **BUDGET)) for extra in frames}
    (base, base_warnings), (other, other_warnings) = results[False], results[True]
    pd.testing.assert_frame_equal(_ledger(base), _ledger(other))
    assert base_warnings == other_warnings
    assert base.directions.shape == other.directions.shape == (P, 2)
    assert base.missing == other.missing
    # Same seed, same data: the dask route computes the same statistic as memory (the same
    # blocks, exact median counts), so only the order of floating-point additions may differ
    # between chunkings (1e-12, as tests/test_dask_backend.py).
    memory = dppca.dp_pc_dir(frames[True], 2, **options, **BUDGET)
    pd.testing.assert_frame_equal(_ledger(memory), _ledger(other))
    np.testing.assert_allclose(other.directions.to_numpy(), memory.directions.to_numpy(),
                               atol=1e-12)


def test_files_and_dask_dataframes_follow_the_policy(frames, tmp_path):
    options = dict(standardize=True, **BLOCKS, **BUDGET)
    memory = dppca.dp_pc_dir(frames[True], 2, **options)
    frames[True].to_parquet(tmp_path / "x.parquet")
    frames[True].to_csv(tmp_path / "x.csv", index=False)
    for source in (tmp_path / "x.parquet", str(tmp_path / "x.csv"),
                   dd.from_pandas(frames[True], npartitions=3)):
        result = dppca.dp_pc_dir(source, 2, **options)
        assert list(result.directions.index) == list(frames[True].columns)
        pd.testing.assert_frame_equal(_ledger(result), _ledger(memory))
        np.testing.assert_allclose(result.directions.to_numpy(), memory.directions.to_numpy(),
                                   atol=1e-12)


def test_nullable_integer_column_with_na_on_dask(frames):
    """pd.NA in an Int64 column is a missing cell (pairwise and median policies alike)."""
    rows = {}
    for extra in (False, True):
        frame = frames[False].assign(count=pd.array(np.arange(N) % 7, dtype="Int64"))
        if extra:
            frame.loc[10, "count"] = pd.NA
        lazy = dd.from_pandas(frame, npartitions=3)
        rows[extra] = [_ledger(dppca.dp_pc_dir(lazy, 2, **options, **BUDGET))
                       for options in (BLOCKS, dict(missing="median", **BLOCKS))]
    for base, other in zip(rows[False], rows[True]):
        pd.testing.assert_frame_equal(base, other)


@pytest.mark.parametrize("route", ["dp_scree", "dp_score", "DPPCA"])
def test_other_dask_routes_same_public_outputs_for_neighbours(frames, route):
    def call(frame):
        lazy = _lazy(frame)
        if route == "dp_scree":
            return dppca.dp_scree(lazy, 2, **BUDGET, **BLOCKS)
        if route == "dp_score":
            return dppca.dp_score(lazy, **BUDGET)
        return DPPCA(2, eps=2.0, delta=1e-5, random_state=3).fit(lazy)

    (base, base_warnings), (other, other_warnings) = (_run(lambda: call(frames[extra]))
                                                      for extra in (False, True))
    if route == "DPPCA":
        pd.testing.assert_frame_equal(base.ledger_.to_frame(), other.ledger_.to_frame())
        assert base.components_.shape == other.components_.shape == (2, P)
        assert list(base.fill_) == list(other.fill_)
        # the estimator computes dask input into memory: the in-memory fit, bitwise
        memory = DPPCA(2, eps=2.0, delta=1e-5, random_state=3).fit(frames[True].to_numpy())
        np.testing.assert_array_equal(memory.components_, other.components_)
    else:
        pd.testing.assert_frame_equal(_ledger(base), _ledger(other))
        shapes = (lambda r: r.scree.shape) if route == "dp_scree" else \
            (lambda r: {m: h.shape for m, h in r.histograms.items()})
        assert shapes(base) == shapes(other)
    assert base_warnings == other_warnings


@pytest.mark.parametrize("chunks", [N, 1000, 333])
def test_private_medians_out_of_core_equal_in_memory(frames, chunks, monkeypatch):
    """Every stage's counts (the log grid, then each refinement's linear grids, whose edges come
    from the earlier stages' releases) are exact integers summed over chunks, one pass per
    stage: the same counts, so the same noise draws give bitwise the same medians and ledger.
    Column x1 is moved to 1990 + t5 (narrow for its location), so the refinements move its
    median (within 1 of 1990, where the log grid's bin is [1448, 2048))."""
    from dppca.preprocessing import median_stages
    from dppca.privacy import Ledger

    x = frames[True].to_numpy().copy()
    x[:, 1] += 1990.0
    noise = GaussianGroup(0.5, 1e-6).share(1.0)
    memory, lazy = Ledger(0.5, 1e-6), Ledger(0.5, 1e-6)
    expected = private_medians(x, noise, np.random.default_rng(7), memory)
    passes = []
    original = median_stages.chunk_totals
    monkeypatch.setattr(median_stages, "chunk_totals",
                        lambda *a: passes.append(1) or original(*a))
    got = private_medians(da.from_array(x, chunks=(chunks, 2)), noise, np.random.default_rng(7),
                          lazy)
    np.testing.assert_array_equal(got, expected)
    pd.testing.assert_frame_equal(memory.to_frame(), lazy.to_frame())
    assert len(passes) == len(memory) == median_stages.MEDIAN_STAGES
    # the t5 column's sd is 2 x 1.29: within 1 of its centre is within 0.4 sd
    assert abs(expected[1] - 1990.0) < 1.0


@pytest.fixture
def no_full_compute(monkeypatch):
    """Fail if an N-row dask array is brought into memory whole (compute or __array__)."""
    for method in ("compute", "__array__"):
        original = getattr(da.Array, method)

        def guarded(self, *args, _original=original, **kwargs):
            if self.ndim == 2 and self.shape[0] == N:
                raise AssertionError("the whole data were computed into memory")
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(da.Array, method, guarded)


@pytest.mark.parametrize("name", ["gdppca, block design (pairwise)", "gdppca, private scales "
                                  "(median)", "gdppca, declared fill", "rank, block design "
                                  "(pairwise)", "rank, median"])
def test_block_paths_never_compute_the_data_whole(frames, no_full_compute, name):
    result = dppca.dp_pc_dir(_lazy(frames[True]), 2, **DIRECTIONS[name], **BUDGET)
    assert result.directions.shape == (P, 2)


def test_binary_and_nullable_columns_follow_the_median_policy_in_memory():
    """Rank path with imputation: a hole in a nullable boolean, Int64 or 2-category Categorical
    column is filled (the column's type from its dtype, never from the cells), so a data set and
    its neighbour with the holes give the same ledger and no error."""
    rng = np.random.default_rng(1)
    n = 2000
    ledgers = []
    for extra in (False, True):
        frame = pd.DataFrame({
            "x": rng.normal(size=n), "y": rng.normal(size=n),
            "flag": pd.array(rng.random(n) < 0.4, dtype="boolean"),
            "count": pd.array(rng.integers(0, 5, n), dtype="Int64"),
            "kind": pd.Categorical(np.where(rng.random(n) < 0.5, "lo", "hi"),
                                   categories=["lo", "hi"])})
        if extra:
            frame.loc[3, ["flag", "count", "kind"]] = [pd.NA, pd.NA, np.nan]
        for missing in ("median", 0.0, {"count": 2.0}):
            result = dppca.dp_pc_dir(frame, 2, standardize="rank", missing=missing, **BUDGET)
            ledgers.append((extra, str(missing), _ledger(result)))
    for (_, name, base), (_, other_name, other) in zip(ledgers[:3], ledgers[3:]):
        assert name == other_name
        pd.testing.assert_frame_equal(base, other)


def test_present_kernel_equals_the_numpy_pair_loop_at_adversarial_magnitudes():
    """The compiled spherical-sign kernel of blocks with holes against present_spatial_kendall
    block by block: magnitudes 1e-200..2^400, a duplicate row, a row with no observed cell, a
    subnormal row and a row at the origin.
    Both add terms of norm <= 1 in different orders: they agree to m u per block
    (m = b (b - 1) / 2 pairs, u = 2^-53), here 1e-12 relative to the largest entry."""
    from dppca.stats.pair_design import block_design
    from dppca.stats.present_spatial_kendall import (present_spatial_kendall,
                                                      sum_block_present_kendall)

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 5)) * np.array([1.0, 1e200, 1e-200, 2.0 ** 400, 3.0])
    x[rng.random(x.shape) < 0.15] = np.nan
    x[5], x[7], x[8:80:2], x[9:80:2] = x[6], np.nan, 5e-324, 0.0  # subnormals, origin rows
    design = block_design(600, 40, np.random.default_rng(1))
    fast = sum_block_present_kendall(x, design.order, design.bounds)
    slow = sum((b - a) * present_spatial_kendall(x[design.order[a:b]])
               for a, b in zip(design.bounds[:-1], design.bounds[1:]))
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12 * np.abs(slow).max())


def test_drop_policy_removes_incomplete_rows_lazily(frames, no_full_compute):
    """missing='drop' (add/remove neighbours) on dask input: the same rows as dropna in memory,
    still lazy (the guard fails on any computation of the whole N-row array)."""
    from dppca.preprocessing.missing import MissingPolicy
    from dppca.preprocessing.missing_entry import fill_missing

    policy = MissingPolicy("drop", "drop")
    expected = frames[True].dropna().to_numpy()
    for X in (_lazy(frames[True]), dd.from_pandas(frames[True], npartitions=3)):
        dropped = fill_missing(X, policy, eps=1.0, delta=1e-5, rng=0).X
        assert type(dropped).__module__.split(".")[0] == "dask"
        values = dropped.to_dask_array(lengths=True) if hasattr(dropped, "columns") else dropped
        np.testing.assert_array_equal(np.asarray(values.compute_chunk_sizes()), expected)
