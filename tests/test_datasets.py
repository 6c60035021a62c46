"""The bundled datasets are the R package's CSVs: checked against recorded checksums of the R
exports, against the exports themselves in ../shared/data when they are there, and against
how gau was generated (data/README.md)."""
import gzip
import hashlib
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dppca import load_adult, load_gau, load_gau_g

ROOT = Path(__file__).resolve().parent.parent
#: The R package's exports (data/README.md): ../shared/data beside the checkout, where present.
R_EXPORTS = [p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data")
             if p.is_dir()]
#: sha256 of the decompressed CSV text of the R package's exports (R 0.1.0.9000, data(gau),
#: data(gau_g), data(adult)), recorded from /work/shared/data/*.csv.gz with `zcat | sha256sum`.
R_CSV_SHA256 = {"gau": "e2a3a46cc8d3f54ac674a9cbd94ad1fdfb8be0036b6dcac7dc55ac00ffbe41a1",
                "gau_g": "ad8df52a5b37ec09e2d1ab775688f6fea4eed4661b2be9618046c6625f46efb2",
                "adult": "feac9f4ed6b45e815eebce0753e4065144e6f5c190e7300f64e32b5bb18a4804"}
LOADERS = [(load_gau, "gau", (5000, 20)), (load_gau_g, "gau_g", (5000, 21)),
           (load_adult, "adult", (32561, 5))]


def _csv_sha256(path) -> str:
    with gzip.open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.mark.parametrize("loader,name,shape", LOADERS)
def test_bundled_csv_is_the_r_export(loader, name, shape):
    bundled = resources.files("dppca.datasets").joinpath("data", f"{name}.csv.gz")
    with resources.as_file(bundled) as path:
        assert _csv_sha256(path) == R_CSV_SHA256[name]
    assert loader().shape == shape


@pytest.mark.skipif(not R_EXPORTS, reason="the R exports (../shared/data) are not beside this checkout")
@pytest.mark.parametrize("loader,name,shape", LOADERS)
def test_loaded_frame_equals_the_r_export(loader, name, shape):
    export = R_EXPORTS[0] / f"{name}.csv.gz"
    assert _csv_sha256(export) == R_CSV_SHA256[name]
    pd.testing.assert_frame_equal(loader(), pd.read_csv(export))


def test_gau_is_what_its_generator_says():
    """data/README.md: 5 groups of 1000 rows; means 0, 5 on V1-V5, -3 on V1-V5, -1 on V6-V10,
    3 on V6-V10; covariances I, I, 5I, 5I, 8I. A group mean of 1000 rows has sd
    sqrt(c/1000) <= sqrt(8/1000) = 0.089, so 5 sd = 0.45 bounds every coordinate's error; a
    variance estimate has sd c sqrt(2/999), so 5 sd = 0.22 c bounds the relative error."""
    frame = load_gau_g()
    means = {"group1": (0, None), "group2": (5, slice(0, 5)), "group3": (-3, slice(0, 5)),
             "group4": (-1, slice(5, 10)), "group5": (3, slice(5, 10))}
    variances = {"group1": 1, "group2": 1, "group3": 5, "group4": 5, "group5": 8}
    for group, (shift, where) in means.items():
        rows = frame[frame["group"] == group].drop(columns="group").to_numpy()
        assert rows.shape == (1000, 20)
        expected = np.zeros(20)
        if where is not None:
            expected[where] = shift
        np.testing.assert_allclose(rows.mean(axis=0), expected, atol=0.45)
        np.testing.assert_allclose(rows.var(axis=0, ddof=1), variances[group],
                                   rtol=5 * np.sqrt(2 / 999))  # 5 sd of s^2 / c
    pd.testing.assert_frame_equal(load_gau(), frame.drop(columns="group"))


def test_gau_g_groups():
    assert sorted(load_gau_g()["group"].unique()) == [f"group{i}" for i in range(1, 6)]


def test_adult_labels():
    frame = load_adult(labels=True)
    assert frame.shape == (32561, 14)
    assert list(frame.columns[:5]) == list(load_adult().columns)
    assert set(frame["sex"].cat.categories) == {"Female", "Male"}
    assert set(frame["income"].cat.categories) == {"<=50K", ">50K"}
    assert frame["workclass"].isna().sum() == 1836  # "?" in the raw UCI file


def test_adult_has_the_duplicate_rows_r_refuses():
    # data/README.md: 21,454 rows repeat an earlier row (why R's g_dppca=TRUE fails on adult).
    assert load_adult().duplicated().sum() == 21454
