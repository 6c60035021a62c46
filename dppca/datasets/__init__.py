"""The R package's example datasets: ``gau``, ``gau_g`` and ``adult``.

Files are installed with the package (``dppca/datasets/data``); provenance and
licences are in the repository's ``data/README.md``.
"""
from __future__ import annotations

from importlib import resources

import pandas as pd

ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
                 "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
                 "hours_per_week", "native_country", "income"]
ADULT_NUMERIC = ["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
ADULT_LABELS = ["workclass", "education", "marital_status", "occupation", "relationship", "race",
                "sex", "native_country", "income"]


def _read(name: str, **kwargs) -> pd.DataFrame:
    with resources.files(__name__).joinpath("data", name).open("rb") as handle:
        return pd.read_csv(handle, compression="gzip", **kwargs)


def load_gau() -> pd.DataFrame:
    """Five 20-dimensional Gaussian clusters (R ``data(gau)``).

    Returns
    -------
    pandas.DataFrame
        Shape (5000, 20), columns V1..V20 (float64).

    See Also
    --------
    load_gau_g : The same rows with their cluster label.

    Examples
    --------
    >>> from dppca import load_gau
    >>> load_gau().shape
    (5000, 20)
    """
    return _read("gau.csv.gz")


def load_gau_g() -> pd.DataFrame:
    """``gau`` plus its cluster label (R ``data(gau_g)``).

    Returns
    -------
    pandas.DataFrame
        Shape (5000, 21): V1..V20 (float64) and ``group`` (str, group1..group5).

    See Also
    --------
    load_gau : The same rows without the label.

    Examples
    --------
    >>> from dppca import load_gau_g
    >>> sorted(load_gau_g()["group"].unique())
    ['group1', 'group2', 'group3', 'group4', 'group5']
    """
    return _read("gau_g.csv.gz")


def load_adult(labels: bool = False) -> pd.DataFrame:
    """The numeric columns of UCI Adult (R ``data(adult)``), optionally with the categorical ones.

    Parameters
    ----------
    labels : bool
        False: the 5 numeric columns exactly as the R package ships them. True: also the
        categorical columns of the raw UCI file (workclass, education, marital_status,
        occupation, relationship, race, sex, native_country, income) as pandas
        ``category`` columns, "?" read as missing, for grouped score plots.

    Returns
    -------
    pandas.DataFrame
        Shape (32561, 5) or (32561, 14).

    See Also
    --------
    load_gau : Gaussian clusters (simulated).

    Examples
    --------
    >>> from dppca import load_adult
    >>> load_adult().shape
    (32561, 5)
    >>> load_adult(labels=True)["sex"].dtype.name
    'category'
    """
    numeric = _read("adult.csv.gz")
    if not labels:
        return numeric
    raw = _read("adult.data.gz", header=None, names=ADULT_COLUMNS, sep=",", skipinitialspace=True,
                na_values="?")
    if not raw[ADULT_NUMERIC].astype(float).equals(numeric.astype(float)):
        raise RuntimeError("installed adult files disagree; reinstall dppca")
    return pd.concat([numeric, raw[ADULT_LABELS].astype("category")], axis=1)


__all__ = ["load_adult", "load_gau", "load_gau_g"]
