"""DPPCA takes declared metadata through the one helper of every entry point (issue 20, loose end).

``DPPCA.fit`` applies ``bounds=`` / ``scale=`` with :func:`dppca.preprocessing.schema.declared_input`,
as ``dp_pc_dir``, ``dp_scree`` and the score functions do: the bounds clip the data (the private
centre's too), the declared rows show once on ``ledger_`` as "public (declared)" at zero cost,
and with ``explained_variance=True`` the scree release sees the declared box as well (its trace is
capped by Popoviciu's bound, as ``dp_scree(bounds=...)`` caps it).
"""
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from dppca import DPPCA, DPPCATypeError, DPPCAValueError  # noqa: E402
from dppca.preprocessing import as_matrix  # noqa: E402
from dppca.preprocessing.schema import DECLARED, declared_input  # noqa: E402
from dppca import sklearn as dppca_sklearn  # noqa: E402

BOUNDS = {"a": (-1.0, 1.0), "b": (-1.0, 1.0), "c": (-1.0, 1.0)}


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, 3)) @ np.array([[1.0, 0.5, 0.2], [0, 1, 0.3], [0, 0, 1]])
                        * [1.0, 10.0, 300.0], columns=["a", "b", "c"])


def _fit(X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # accuracy warnings: public arithmetic, not tested here
        return DPPCA(2, eps=2, delta=1e-5, random_state=1, **params).fit(X)


def _declared(model):
    return [r for r in model.ledger_.releases if r.mechanism == DECLARED]


def test_fit_takes_the_declared_input_helper(monkeypatch):
    calls = []

    def spy(mat, bounds=None, scale=None):
        calls.append((list(mat.columns), bounds, scale))
        return declared_input(mat, bounds, scale)

    monkeypatch.setattr(dppca_sklearn, "declared_input", spy)
    _fit(_data(), bounds={"a": (-4, 4)}, scale={"c": 300.0}, standardize=True)
    assert calls == [(["a", "b", "c"], {"a": (-4, 4)}, {"c": 300.0})]


@pytest.mark.parametrize("explained_variance", [False, True])
def test_declared_rows_show_once_at_zero_cost(explained_variance):
    model = _fit(_data(), bounds={"a": (-4, 4)}, scale={"c": 300.0}, standardize=True,
                 explained_variance=explained_variance)
    rows = _declared(model)
    assert [r.step for r in rows] == ["declared bounds: a", "declared scales: c"]
    assert all(r.eps == 0 and r.delta == 0 for r in rows)
    assert model.scale_[2] == 300.0
    # declared facts cost nothing: the fit spends what the same fit without them spends
    # (the same shares, summed in another order: a few ulps, far below 1e-12 relative)
    undeclared = _fit(_data(), standardize=True, explained_variance=explained_variance)
    assert model.ledger_.spent_eps == pytest.approx(undeclared.ledger_.spent_eps, rel=1e-12)
    assert model.ledger_.spent_delta == pytest.approx(undeclared.ledger_.spent_delta, rel=1e-12)
    assert model.ledger_.spent_eps <= 2.0 * (1 + 1e-12)


@pytest.mark.parametrize("explained_variance", [False, True])
def test_bounds_clip_the_data_of_every_release(explained_variance):
    X = _data()
    X.loc[[0, 5], "a"] = [1e9, -1e9]  # outliers that the bounds of `a` remove
    bounded = _fit(X, bounds={"a": (-4, 4)}, explained_variance=explained_variance)
    plain = _fit(X.assign(a=X["a"].clip(-4, 4)), explained_variance=explained_variance)
    # same seed, same clipped data: the same doubles for the centre and the directions
    assert np.array_equal(bounded.mean_, plain.mean_)
    assert np.array_equal(bounded.components_, plain.components_)
    assert [r.step for r in _declared(bounded)] == ["declared bounds: a"]


def test_scree_trace_respects_the_declared_box():
    # Every column in [-1, 1]: the sample trace is <= 3 n / (n - 1) (Popoviciu), the bound that
    # dp_scree(bounds=...) caps its private trace at. Without the bounds the noisy trace of
    # these (mostly clipped, near-maximal-variance) columns exceeds it in about half the seeds.
    X = _data()
    n = len(X)
    bound = declared_input(as_matrix(X), BOUNDS).variance_bound()
    assert bound == pytest.approx(3 * n / (n - 1), rel=1e-11)
    for seed in range(6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = DPPCA(2, eps=2, delta=1e-5, random_state=seed, bounds=BOUNDS,
                          explained_variance=True).fit(X)
        assert model.scree_.trace <= bound
        assert [r.step for r in _declared(model)] == ["declared bounds: a, b, c"]


@pytest.mark.parametrize("params, error, message", [
    (dict(bounds={"a": (2, 1)}), DPPCAValueError, "`bounds`: column 'a' needs lower < upper"),
    (dict(bounds=42), DPPCATypeError, "`bounds` must be a dict"),
    (dict(bounds={"zz": (0, 1)}), DPPCAValueError, "`bounds`: unknown column.*'zz'"),
    (dict(scale={"zz": 1.0}, standardize=True), DPPCAValueError, "`scale`: unknown column.*'zz'"),
])
def test_bad_codebooks_are_the_entry_points_errors(params, error, message):
    with pytest.raises(error, match=message):
        _fit(_data(), **params)
