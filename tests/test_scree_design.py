"""dp_scree with a block design (incomplete pair statistics) and on dask / Parquet / a LocalCluster."""
import numpy as np
import pandas as pd
import pytest

from dppca import DPPCAValueError, dp_scree, pmwm_control

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

N, P = 4000, 5
OPTIONS = dict(method=("clipped", "pmwm", "huber"), eps=1.0, delta=1e-5, rng=7,
               design="incomplete", pairs_per_row=499, standardize=True,
               missing=0.0)  # declared fill value: no median release, as on dask input


@pytest.fixture(scope="module")
def frame():
    X = np.random.default_rng(2).standard_t(5, size=(N, P)) * [4.0, 2.0, 1.0, 1.0, 0.5]
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(P)])


@pytest.fixture(scope="module")
def in_memory(frame):
    return dp_scree(frame, 3, **OPTIONS)


def _assert_same(result, expected):
    # Scales and pair statistics are the same doubles (design-aligned chunks); the Kendall
    # matrix of the directions differs only in the order of its additions (~1e-15), which the
    # scores carry into the clamped statistics at that level.
    np.testing.assert_allclose(result.scree.to_numpy(), expected.scree.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(result.trace, expected.trace, rtol=1e-10)


@pytest.mark.parametrize("chunks", [N, 1000, 333])
def test_same_seed_same_scree_for_any_chunking(frame, in_memory, chunks):
    _assert_same(dp_scree(da.from_array(frame.to_numpy(), chunks=(chunks, 2)), 3, **OPTIONS),
                 in_memory)


def test_parquet_and_dataframe_keep_names_and_values(frame, in_memory, tmp_path):
    frame.to_parquet(tmp_path / "x.parquet")
    result = dp_scree(str(tmp_path / "x.parquet"), 3, **OPTIONS)
    _assert_same(result, in_memory)
    assert list(result.directions.index) == list(frame.columns)
    assert list(dp_scree(dd.from_pandas(frame, npartitions=3), 3, **OPTIONS).directions.index) \
        == list(frame.columns)


def test_local_cluster_gives_the_same_scree(frame, in_memory):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        result = dp_scree(da.from_array(frame.to_numpy(), chunks=(1500, P)), 3, **OPTIONS)
    _assert_same(result, in_memory)


def test_auto_is_complete_in_memory_and_incomplete_on_dask(frame):
    options = {**OPTIONS, "design": "auto", "pairs_per_row": None}
    complete = dp_scree(frame, 3, **{**options, "design": "complete"})
    np.testing.assert_array_equal(dp_scree(frame, 3, **options).scree, complete.scree)
    lazy = dp_scree(da.from_array(frame.to_numpy(), chunks=(1000, P)), 3, **options)
    incomplete = dp_scree(frame, 3, **{**options, "design": "incomplete"})
    _assert_same(lazy, incomplete)


def test_design_errors_name_the_rule(frame):
    with pytest.raises(DPPCAValueError, match="design"):
        dp_scree(frame, 2, eps=1, delta=1e-5, design="sometimes")
    with pytest.raises(DPPCAValueError, match="pairs_per_row"):
        dp_scree(frame, 2, eps=1, delta=1e-5, design="complete", pairs_per_row=10)
    with pytest.raises(DPPCAValueError, match="split_mode"):
        dp_scree(frame, 2, method="pmwm", control=pmwm_control(split_mode=True), eps=1,
                 delta=1e-5, design="incomplete")
    lazy = da.from_array(frame.to_numpy(), chunks=(1000, P))
    with pytest.raises(DPPCAValueError, match="g_dppca=True"):
        dp_scree(lazy, 2, eps=1, delta=1e-5, g_dppca=False)
    with pytest.raises(DPPCAValueError, match="nonprivate"):
        dp_scree(lazy, 2, eps=1, delta=1e-5, nonprivate=True)
    # a NaN cell is a missing value under the call's missing= policy, never a refusal
    # (tests/test_dask_missing.py checks the dask routes' neighbours)
