"""g-DPPCA on dask arrays, dask DataFrames, Parquet files and a LocalCluster."""
import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

from dppca import dp_pc_dir  # noqa: E402
from dppca._validation import DPPCATypeError, DPPCAValueError  # noqa: E402
from dppca.backends.dask import is_dask_input  # noqa: E402

N, P = 6000, 5
OPTIONS = dict(k=2, g_dppca=True, eps=1.0, delta=1e-5, rng=11, design="incomplete", pairs_per_row=150)


@pytest.fixture(scope="module")
def data():
    X = np.random.default_rng(0).standard_t(3, size=(N, P)) @ np.diag([3.0, 2.0, 1.0, 1.0, 1.0])
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(P)])


@pytest.fixture(scope="module")
def in_memory(data):
    return dp_pc_dir(data, **OPTIONS).directions


@pytest.mark.parametrize("chunks", [N, 1000, 777])
def test_same_seed_same_directions_for_any_chunking(data, in_memory, chunks):
    result = dp_pc_dir(da.from_array(data.to_numpy(), chunks=(chunks, P)), **OPTIONS)
    # Only the order of the floating-point additions differs between chunkings.
    np.testing.assert_allclose(result.directions.to_numpy(), in_memory.to_numpy(), atol=1e-12)


def test_dataframe_and_parquet_keep_column_names(data, in_memory, tmp_path):
    frame = dd.from_pandas(data, npartitions=4)
    assert list(dp_pc_dir(frame, **OPTIONS).directions.index) == list(data.columns)
    data.to_parquet(tmp_path / "data.parquet")
    from_file = dp_pc_dir(str(tmp_path / "data.parquet"), **OPTIONS).directions
    np.testing.assert_allclose(from_file.to_numpy(), in_memory.to_numpy(), atol=1e-12)
    assert list(from_file.index) == list(data.columns)


def test_local_cluster_gives_the_same_directions(data, in_memory):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        result = dp_pc_dir(da.from_array(data.to_numpy(), chunks=(1500, P)), **OPTIONS)
    np.testing.assert_allclose(result.directions.to_numpy(), in_memory.to_numpy(), atol=1e-12)


def test_dask_input_errors_name_the_rule(data, tmp_path):
    frame = dd.from_pandas(data.assign(label="a"), npartitions=2)
    with pytest.raises(DPPCATypeError, match="non-numeric: \\['label'\\]"):
        dp_pc_dir(frame, **OPTIONS)
    X = da.from_array(data.to_numpy(), chunks=(1000, P))
    with pytest.raises(DPPCAValueError, match="g-DPPCA only"):
        dp_pc_dir(X, k=2, method="analyze_gauss", eps=1, delta=1e-5)
    with pytest.raises(DPPCAValueError, match="public scales"):
        dp_pc_dir(X, k=2, g_dppca=True, eps=1, delta=1e-5, standardize=True)
    bad = data.to_numpy().copy()
    bad[17, 2] = np.nan
    for design in ("incomplete", "complete"):
        with pytest.raises(DPPCAValueError, match="NaN"):
            dp_pc_dir(da.from_array(bad, chunks=(1000, P)), **{**OPTIONS, "design": design,
                                                                 "pairs_per_row": None})
    assert is_dask_input(X) and is_dask_input(tmp_path / "x.parquet") and not is_dask_input(data)
