"""g-DPPCA on dask arrays, dask DataFrames, Parquet files and a LocalCluster."""
import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

from dppca import dp_pc_dir  # noqa: E402
from dppca._validation import DPPCATypeError, DPPCAValueError  # noqa: E402
from dppca.backends.dask import is_dask_input  # noqa: E402
from dppca.preprocessing import Matrix  # noqa: E402
from dppca.preprocessing.scales import private_column_scales  # noqa: E402

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
    with pytest.raises(DPPCAValueError, match="g-DPPCA and the private rank path only"):
        dp_pc_dir(X, k=2, method="analyze_gauss", eps=1, delta=1e-5)
    # a NaN cell is no error (the missing= policy, tests/test_dask_missing.py)
    assert is_dask_input(X) and is_dask_input(tmp_path / "x.parquet") and not is_dask_input(data)


# ----------------------------------------------------------------------------- private scales

#: Pairs per summation group in the scale tests: small, so that N = 6000 rows (3000 pairs) make
#: several groups and the chunk-by-chunk reduction is exercised.
SMALL_GROUPS = 400


def _private_scales(values, columns):
    return private_column_scales(Matrix(values, columns), 1.0, 1e-5, np.random.default_rng(5))


@pytest.fixture
def small_groups(monkeypatch):
    import dppca.preprocessing.scale_releases as module

    monkeypatch.setattr(module, "SCALE_SUM_ROWS", SMALL_GROUPS)


@pytest.mark.parametrize("chunks", [N, 1000, 777])
def test_private_scales_identical_for_numpy_and_any_chunking(data, chunks, small_groups):
    expected = _private_scales(data.to_numpy(), list(data.columns))
    got = _private_scales(da.from_array(data.to_numpy(), chunks=(chunks, 2)), list(data.columns))
    # Same pairs, same summation groups (a chunk is a group): the same doubles, not just close.
    np.testing.assert_array_equal(got, expected)


def test_standardized_directions_same_for_numpy_dask_and_cluster(data, small_groups):
    distributed = pytest.importorskip("distributed")
    options = {**OPTIONS, "standardize": True}
    expected = dp_pc_dir(data, **options)  # private medians on both: the same counts
    dask_result = dp_pc_dir(da.from_array(data.to_numpy(), chunks=(777, P)), **options)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        cluster_scales = _private_scales(da.from_array(data.to_numpy(), chunks=(1500, P)),
                                         list(data.columns))
        cluster_result = dp_pc_dir(dd.from_pandas(data, npartitions=3), **options)
    scales = _private_scales(data.to_numpy(), list(data.columns))
    np.testing.assert_array_equal(cluster_scales, scales)
    for result in (dask_result, cluster_result):
        np.testing.assert_array_equal(result.scale.to_numpy(), expected.scale.to_numpy())
        # The Kendall sums differ only in the order of the additions (see the tests above).
        np.testing.assert_allclose(result.directions.to_numpy(), expected.directions.to_numpy(),
                                   atol=1e-12)


def test_private_scales_on_dask_refuse_nan(data):
    bad = data.to_numpy().copy()
    bad[17, 2] = np.nan
    with pytest.raises(DPPCAValueError, match="NaN"):
        _private_scales(da.from_array(bad, chunks=(1000, P)), list(data.columns))


def test_grouped_sums_stay_within_the_proved_rounding_slack(small_groups):
    from dppca.preprocessing.scale_releases import mean_of_clipped
    from dppca.stats.paired_differences import block_pairs

    # Uniform terms are inexact sums in binary: the block statistic summed in groups of
    # SMALL_GROUPS pairs (several groups per block size) must be within 2^-42 of the exact
    # weighted mean of its terms (moment_sensitivity's docstring), in memory and on dask.
    from fractions import Fraction

    values = np.random.default_rng(3).uniform(0, 2, size=(307, 2))
    clip = np.array([1.0, 0.7])
    pairs = block_pairs(values, 16, np.random.default_rng(4))
    exact = [Fraction(0), Fraction(0)]
    for differences, weight in pairs.sets:
        first, second = differences.first, differences.second
        terms = (np.minimum(np.abs(values[first] - values[second]), clip) / clip) ** 2
        for j, col in enumerate(terms.T):
            exact[j] += Fraction(weight) * sum(map(Fraction, col)) / len(col)
    on_dask = block_pairs(da.from_array(values, chunks=(100, 2)), 16, np.random.default_rng(4))
    for got in (mean_of_clipped(pairs, clip), mean_of_clipped(on_dask, clip)):
        assert all(abs(Fraction(g) - e) < Fraction(2) ** -42 for g, e in zip(got, exact))
