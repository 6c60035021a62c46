"""The bundled datasets equal the R package's CSVs in ../shared/data (or data/)."""
from pathlib import Path

import pandas as pd
import pytest

from dppca import load_adult, load_gau, load_gau_g

DATA = Path(__file__).parent.parent / "data"


@pytest.mark.parametrize("loader,name,shape", [(load_gau, "gau", (5000, 20)),
                                               (load_gau_g, "gau_g", (5000, 21)),
                                               (load_adult, "adult", (32561, 5))])
def test_dataset_equals_csv(loader, name, shape):
    frame = loader()
    assert frame.shape == shape
    pd.testing.assert_frame_equal(frame, pd.read_csv(DATA / f"{name}.csv.gz"))


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
