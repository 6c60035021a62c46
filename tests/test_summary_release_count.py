"""The summary note "(N private releases)" counts the releases that spend budget (issue 20, loose
end): the zero-cost "public (declared)" ledger rows of declared bounds / scales are named apart."""
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import dp_pc_dir
from dppca.preprocessing.schema import DECLARED


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, 3)) * [1.0, 10.0, 300.0], columns=["a", "b", "c"])


def _note(result) -> str:
    text = str(result.summary())
    found = re.findall(r"total eps=\S+, delta=\S+ \((.*?)\)\.", " ".join(text.split()))
    assert len(found) == 1, text
    return found[0]


@pytest.mark.parametrize("declared, rows", [
    ({}, 0),
    (dict(bounds={"a": (-4, 4)}), 1),
    (dict(bounds={"a": (-4, 4)}, scale={"c": 300.0}), 2),
])
def test_note_counts_private_releases_and_declared_rows_apart(declared, rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # accuracy warnings: public arithmetic, not tested here
        result = dp_pc_dir(_data(), 2, eps=2, delta=1e-5, standardize=True, rng=1, **declared)
    releases = result.ledger.releases
    private = [r for r in releases if r.mechanism != DECLARED]
    assert len(releases) - len(private) == rows and all(r.eps > 0 for r in private)
    expected = f"{len(private)} private releases"
    if rows:
        expected += f', {rows} "{DECLARED}" row' + ("s" if rows > 1 else "")
    assert _note(result) == expected
