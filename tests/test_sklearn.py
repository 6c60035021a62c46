"""dppca.DPPCA: the scikit-learn estimator (issue 14, item 4)."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.pipeline import Pipeline, make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from dppca import DPPCA, DPPCAValueError, dp_pc_dir  # noqa: E402
from dppca.privacy import Ledger  # noqa: E402
from dppca.sklearn import CENTER_SHARE, _private_mean  # noqa: E402


@pytest.fixture(scope="module")
def frame():
    """A 3-factor Gaussian frame with named columns, located far from 0 (the centre matters)."""
    rng = np.random.default_rng(7)
    loadings = rng.normal(size=(3, 6))
    values = rng.normal(size=(2000, 3)) @ loadings + rng.normal(scale=0.3, size=(2000, 6)) + 10.0
    return pd.DataFrame(values, columns=[f"x{j}" for j in range(6)])


@parametrize_with_checks([DPPCA()])
def test_sklearn_estimator_checks(estimator, check):
    # Every check runs with random_state=0 (set_random_state), so fits are reproducible; none of
    # scikit-learn's checks judges the accuracy of the released directions, so none is skipped.
    check(estimator)


def test_import_dppca_does_not_import_sklearn():
    code = "import sys, dppca; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_ledger_totals_the_budget_with_the_documented_split(frame):
    for kwargs in ({}, {"standardize": True, "explained_variance": True}):
        pca = DPPCA(3, eps=2.0, delta=1e-6, random_state=1, **kwargs).fit(frame)
        spent = pca.ledger_.to_frame()
        # fp sums of shares: relative error a few ulps, far below 1e-12
        assert pca.ledger_.spent_eps == pytest.approx(2.0, rel=1e-12)
        assert pca.ledger_.spent_delta == pytest.approx(1e-6, rel=1e-12)
        centre = spent[spent.step.str.startswith("centre")]
        assert centre.eps.sum() == pytest.approx(CENTER_SHARE * 2.0, rel=1e-12)
        assert centre.delta.sum() == pytest.approx(CENTER_SHARE * 1e-6, rel=1e-12)


def test_components_are_dp_pc_dirs_on_the_rest_of_the_budget(frame):
    """Same seed, same split: the centre draws first, then dp_pc_dir on (1 - share)(eps, delta)."""
    eps, delta, seed = 1.5, 1e-5, 3
    pca = DPPCA(2, eps=eps, delta=delta, random_state=seed).fit(frame)
    rng = np.random.default_rng(seed)
    share = CENTER_SHARE
    centre = _private_mean(frame.to_numpy(), share * eps, share * delta, rng, "analytic",
                           Ledger(share * eps, share * delta))
    direct = dp_pc_dir(frame, 2, eps=(1 - share) * eps, delta=(1 - share) * delta, rng=rng)
    # identical draws and arithmetic: equal up to rounding of the same operations
    np.testing.assert_allclose(pca.mean_, centre, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pca.components_, direct.directions.to_numpy().T, rtol=0, atol=1e-12)
    assert list(pca.result_.directions.index) == list(frame.columns)


def test_random_state_conventions(frame):
    fitted = [DPPCA(2, random_state=5).fit(frame).components_ for _ in range(2)]
    np.testing.assert_array_equal(*fitted)
    fresh = [DPPCA(2).fit(frame).mean_ for _ in range(2)]
    assert not np.array_equal(*fresh)  # noise sd > 0: equal draws have probability 0
    legacy = [DPPCA(2, random_state=np.random.RandomState(4)).fit(frame).mean_ for _ in range(2)]
    np.testing.assert_array_equal(*legacy)


def test_transform_and_inverse_are_the_affine_maps(frame):
    pca = DPPCA(6, standardize=True, random_state=2).fit(frame)
    scores = pca.transform(frame)
    expected = ((frame.to_numpy() - pca.mean_) / pca.scale_) @ pca.components_.T
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
    # k = p: the components are an orthonormal basis, so inverse_transform recovers X up to
    # rounding (entries ~10, a few dozen flops each: 1e-9 is generous)
    np.testing.assert_allclose(pca.inverse_transform(scores), frame.to_numpy(), atol=1e-9)
    np.testing.assert_allclose(pca.components_ @ pca.components_.T, np.eye(6), atol=1e-12)


def test_private_centre_is_near_the_mean(frame):
    pca = DPPCA(2, eps=4.0, random_state=0).fit(frame)
    sigma = pca.ledger_.to_frame().set_index("step").noise_scale[
        "centre: mean of rows clipped around the rough mean"]
    # n eps center_share = 1600 (the docstring's table: median error 0.11 at n = 2000, eps = 4).
    # The last step adds N(0, sigma^2) per coordinate (sigma from the ledger, ~0.03 here); the
    # rough mean's error and the clipping bias add about as much again: 8 sigma covers both.
    np.testing.assert_allclose(pca.mean_, frame.mean().to_numpy(), rtol=0, atol=8 * sigma)


def test_center_false_or_public_spends_nothing_on_it(frame):
    public = np.full(6, 10.0)
    for center, expected in ((False, np.zeros(6)), (public, public)):
        pca = DPPCA(2, center=center, random_state=0).fit(frame)
        np.testing.assert_array_equal(pca.mean_, expected)
        assert not pca.ledger_.to_frame().step.str.startswith("centre").any()
        assert pca.ledger_.spent_eps == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(DPPCAValueError, match="center"):
        DPPCA(2, center=np.zeros(3)).fit(frame)


def test_pandas_output_and_feature_names(frame):
    pca = DPPCA(2, random_state=0).set_output(transform="pandas")
    out = pca.fit_transform(frame)
    assert list(out.columns) == ["dppca0", "dppca1"]
    assert out.index.equals(frame.index)
    assert list(pca.get_feature_names_out()) == ["dppca0", "dppca1"]
    assert list(pca.feature_names_in_) == list(frame.columns)


def test_pipeline_keeps_names(frame):
    pipe = make_pipeline(FunctionTransformer(np.log, feature_names_out="one-to-one"),
                         DPPCA(2, random_state=0)).set_output(transform="pandas")
    out = pipe.fit_transform(frame)
    assert list(out.columns) == ["dppca0", "dppca1"]
    assert list(pipe[-1].result_.directions.index) == list(frame.columns)
    assert isinstance(pipe, Pipeline)


def test_column_transformer_keeps_names(frame):
    data = frame.assign(group=np.where(np.arange(len(frame)) % 2 == 0, "a", "b"))
    columns = ColumnTransformer([("dp", DPPCA(2, random_state=0), list(frame.columns))],
                                remainder="passthrough").set_output(transform="pandas")
    out = columns.fit_transform(data)
    assert list(out.columns) == ["dp__dppca0", "dp__dppca1", "remainder__group"]
    assert (out["remainder__group"] == data["group"]).all()


def test_explained_variance_only_when_asked(frame):
    plain = DPPCA(2, random_state=0).fit(frame)
    with pytest.raises(AttributeError, match="explained_variance=True"):
        plain.explained_variance_
    assert not hasattr(plain, "explained_variance_ratio_")
    asked = DPPCA(2, explained_variance=True, random_state=0).fit(frame)
    assert asked.explained_variance_.shape == (2,)
    np.testing.assert_allclose(asked.explained_variance_ratio_,
                               asked.scree_.pve["clipped"].to_numpy())


@pytest.mark.parametrize("params, name", [
    ({"eps": 0.0}, "eps"), ({"delta": 1.5}, "delta"), ({"n_components": 7}, "n_components"),
    ({"center_share": 1.0}, "center_share"), ({"method": "nonprivate"}, "method"),
    ({"method": "analyze_gauss", "explained_variance": True}, "explained_variance"),
    ({"calibration": "exact"}, "calibration"),
])
def test_bad_parameters_raise_at_fit_naming_them(frame, params, name):
    pca = DPPCA(**params)  # __init__ only stores (scikit-learn convention)
    with pytest.raises(ValueError, match=name) as info:
        pca.fit(frame)
    assert isinstance(info.value, DPPCAValueError)


def test_not_fitted(frame):
    with pytest.raises(NotFittedError):
        DPPCA().transform(frame)
    with pytest.raises(NotFittedError):
        DPPCA().inverse_transform(np.zeros((1, 2)))


def test_inverse_transform_checks_the_score_shape(frame):
    pca = DPPCA(2, random_state=0).fit(frame)
    with pytest.raises(DPPCAValueError, match="n_components=2"):
        pca.inverse_transform(np.zeros((3, 4)))
