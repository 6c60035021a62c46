"""as_matrix, scales (public, sample, private) and the private scale's sensitivity."""
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import Ledger
from dppca.preprocessing import as_matrix, public_scale, sample_scale
from dppca.preprocessing.scales import private_column_scales
from dppca.privacy.composition import GaussianGroup


def test_as_matrix_keeps_names_and_casts_integers():
    mat = as_matrix(pd.DataFrame({"x": [1, 2, 3], "y": [0.5, 1.5, 2.5]}))
    assert mat.columns == ["x", "y"] and mat.values.dtype == np.float64 and mat.n == 3


def test_public_scale_accepts_series_by_name():
    s = public_scale(pd.Series({"b": 2.0, "a": 1.0}), ["a", "b"])
    assert s.tolist() == [1.0, 2.0]


def test_private_scales_are_close_to_sd_at_large_n():
    # n = 20000, scale budget (1, 1e-5): per-column noise of the clipped moments ~ sqrt(3)/(1e4 *
    # 0.27 * 0.67) ~ 1e-3, i.e. ~0.3% relative noise of the SD: every scale within 10% of the SD
    # (the Gaussian-consistent estimate is unbiased at the Gaussian; 10% covers sampling error).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 3)) * [1, 10, 100] + [0, 1e6, -3]
    scales = private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(1))
    assert np.allclose(scales / sample_scale(as_matrix(X)), 1, atol=0.1)


def test_private_scales_record_three_releases_totalling_the_budget():
    ledger = Ledger(1.0, 1e-5)
    X = np.random.default_rng(2).normal(size=(2000, 2))
    private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(3), ledger=ledger)
    assert len(ledger) == 3
    assert ledger.spent_eps == pytest.approx(1.0) and ledger.spent_delta == pytest.approx(1e-5)


@pytest.mark.parametrize("n", [2, 3, 10, 100])
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_private_scales_never_refuse(n, eps):
    # Any finite data, any n >= 2: positive finite scales (refusals may depend only on public facts).
    rng = np.random.default_rng(n)
    X = np.column_stack([rng.normal(size=n), np.full(n, 3.0), rng.normal(size=n) * 1e300,
                         rng.normal(size=n) * 1e-300, (rng.random(n) < 0.1) * 1e5,
                         rng.normal(size=n) + 1e15, np.resize([-1.7e308, 1.7e308], n)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = private_column_scales(as_matrix(X), eps, 1e-5, np.random.default_rng(0))
    assert s.shape == (7,) and np.isfinite(s).all() and (s > 0).all()


def test_constant_column_is_floored_with_a_warning():
    X = np.column_stack([np.random.default_rng(5).normal(size=4000), np.full(4000, 3.0)])
    with pytest.warns(UserWarning, match="V2"):
        s = private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(6))
    assert (s > 0).all() and np.isfinite(s).all()


def test_gaussian_share_gives_the_scales_part_of_a_call_budget():
    ledger = Ledger(1.0, 1e-5)
    noise = GaussianGroup(1.0, 1e-5).share(0.2)
    X = np.random.default_rng(7).normal(size=(3000, 4))
    private_column_scales(as_matrix(X), rng=np.random.default_rng(8), ledger=ledger, noise=noise)
    assert ledger.spent_eps == pytest.approx(0.2)


def test_all_columns_constant_are_floored_not_refused():
    # Every column constant at a large n: all floored (warned), scales positive and finite.
    X = np.tile([1.0, -2.0, 5.0, 0.0], (20000, 1))
    with pytest.warns(UserWarning, match="look \\(near-\\)constant"):
        s = private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(0))
    assert np.isfinite(s).all() and (s > 0).all()
