"""dppca.DPPCA: the scikit-learn estimator (issue 14, item 4)."""
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.pipeline import Pipeline, make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from dppca import DPPCA, DPPCATypeError, DPPCAValueError, dp_pc_dir  # noqa: E402
from dppca.privacy import Ledger  # noqa: E402
from dppca.privacy.accuracy import DPAccuracyWarning  # noqa: E402
from dppca.estimators.centre import MIN_N_EPS, clipped_mean_sensitivity, clipped_row_mean, dp_centre  # noqa: E402
from dppca.sklearn import CENTER_SHARE, DPCentreWarning  # noqa: E402


@pytest.fixture(scope="module")
def frame():
    """A 3-factor Gaussian frame with named columns, located far from 0 (the centre matters)."""
    rng = np.random.default_rng(7)
    loadings = rng.normal(size=(3, 6))
    values = rng.normal(size=(2000, 3)) @ loadings + rng.normal(scale=0.3, size=(2000, 6)) + 10.0
    return pd.DataFrame(values, columns=[f"x{j}" for j in range(6)])


@parametrize_with_checks([DPPCA(), DPPCA(eps=1e3)])
def test_sklearn_estimator_checks(estimator, check):
    # Every check runs with random_state=0 (set_random_state), so fits are reproducible; none of
    # scikit-learn's checks judges the accuracy of the released directions, so none is skipped.
    # The checks' data are small (n >= 2): with eps = 1 no private centre is affordable
    # (n eps center_share < MIN_N_EPS), with eps = 1e3 the private centre runs in every check.
    check(estimator)


def test_import_dppca_does_not_import_sklearn():
    code = "import sys, dppca; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_ledger_totals_the_budget_with_the_documented_split(frame):
    for kwargs in ({}, {"standardize": True, "explained_variance": True}):
        pca = DPPCA(3, eps=2.0, delta=1e-6, random_state=1, missing=0.0, **kwargs).fit(frame)
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
    pca = DPPCA(2, eps=eps, delta=delta, random_state=seed, missing=0.0).fit(frame)
    rng = np.random.default_rng(seed)
    share = CENTER_SHARE
    centre = dp_centre(frame.to_numpy(), share * eps, share * delta, rng,
                       ledger=Ledger(share * eps, share * delta))
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
        "centre: clipped mean 2"]
    # n eps center_share = 1600 (the docstring's table: median error 0.07 at n = 2000, eps = 4).
    # The last step adds N(0, sigma^2) per coordinate (sigma from the ledger, ~0.02 here): 5 sigma
    # bounds the largest of 6 such draws but for a 3e-6 chance; the clipping bias (a few % of
    # rows clipped around the first centre, whose error is ~20 sigma) adds about 1 sigma: 8 sigma.
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


def test_a_bare_array_is_named_as_dp_pc_dir_names_it(frame):
    # The R package's convention V1, V2, ... (dp_pc_dir) in the result, its summary and the
    # ledger's declared rows (a bound declared by that name), not 0, 1, 2; the output names stay
    # scikit-learn's (dppca0, ...) and no feature_names_in_ is set for an array.
    X = frame.to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pca = DPPCA(2, random_state=0, bounds={"V1": (0.0, 20.0)}).fit(X)
        api = dp_pc_dir(X, 2, eps=1.0, delta=1e-5, rng=0, bounds={"V1": (0.0, 20.0)})
    names = [f"V{j + 1}" for j in range(X.shape[1])]
    assert list(api.directions.index) == names
    assert list(pca.result_.directions.index) == names
    assert "\nV6 " in str(pca.result_)
    for ledger in (pca.ledger_, api.ledger):
        assert "declared bounds: V1" in list(ledger.to_frame().step)
    assert list(pca.get_feature_names_out()) == ["dppca0", "dppca1"]
    assert not hasattr(pca, "feature_names_in_")


def test_a_frame_with_non_string_names_keeps_them_as_dp_pc_dir_does(frame):
    # scikit-learn sets no feature_names_in_ for integer column names; the result still names
    # the variables by the frame's columns (0, 1, ...), as dp_pc_dir does, not V1, V2, ...
    X = frame.set_axis(range(frame.shape[1]), axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pca = DPPCA(2, random_state=0).fit(X)
        api = dp_pc_dir(X, 2, eps=1.0, delta=1e-5, rng=0)
    names = [str(c) for c in X.columns]  # as_matrix names variables by str(column)
    assert list(pca.result_.directions.index) == list(api.directions.index) == names
    assert not hasattr(pca, "feature_names_in_")


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


# ----------------------------------------------------------------------------- the private centre

def _located_data(n, seed, location=10.0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)) @ rng.normal(size=(3, 6)) + rng.normal(size=(n, 6)) + location


def test_centre_error_is_of_the_order_of_its_noise_at_moderate_budgets():
    """n eps center_share = 400 (the case that gave 9 median, 6e11 90th percentile before)."""
    errors, sigmas = [], []
    for seed in range(10):
        X = _located_data(2000, seed)
        pca = DPPCA(2, eps=1.0, random_state=seed).fit(X)
        errors.append(np.max(np.abs(pca.mean_ - X.mean(axis=0))))
        sigmas.append(pca.ledger_.to_frame().set_index("step").noise_scale["centre: clipped mean 2"])
    # Each error is the largest of 6 coordinates of the last step's N(0, sigma^2) plus a clipping
    # bias of about sigma (see test_private_centre_is_near_the_mean): 8 sigma for every seed.
    assert np.all(np.array(errors) <= 8 * np.array(sigmas)), (errors, sigmas)


def test_no_centre_below_its_budget_and_the_directions_get_all(monkeypatch):
    """n eps center_share = 50 < MIN_N_EPS: no private centre (it would be ~0 or, rarely, wild)."""
    import dppca.sklearn

    monkeypatch.setattr(dppca.sklearn, "_SHOWN", set())  # shown once per session: start afresh
    X = _located_data(500, 0)
    with pytest.warns(DPCentreWarning, match="no private centre is released"):
        pca = DPPCA(2, eps=0.5, random_state=3).fit(X)
    np.testing.assert_array_equal(pca.mean_, np.zeros(6))
    spent = pca.ledger_.to_frame()
    assert not spent.step.str.startswith("centre").any()
    assert pca.ledger_.spent_eps == pytest.approx(0.5, rel=1e-12)
    # same draws as center=False: the directions had the whole budget
    plain = DPPCA(2, eps=0.5, center=False, random_state=3).fit(X)
    np.testing.assert_array_equal(pca.components_, plain.components_)


def test_dp_centre_warns_below_its_budget_and_shrinks_towards_zero():
    X = _located_data(500, 1)
    errors = []
    for seed in range(10):
        with pytest.warns(UserWarning, match="private centre is unreliable"):
            centre = dp_centre(X, 0.2, 1e-6, np.random.default_rng(seed))  # n eps = 100
        errors.append(np.max(np.abs(centre - X.mean(axis=0))))
    # The searches stop below the data (their usual failure, one-sided): the centre is near 0,
    # about ||mean||_inf = 10 away from the mean (300 seeds at n eps = 100: p99 18, max 36).
    assert 5 < np.median(errors) < 20


def test_centre_warning_depends_on_public_facts_only(recwarn):
    X = _located_data(2000, 0)
    DPPCA(2, eps=1.0, random_state=0).fit(X)  # n eps share = 400 >= MIN_N_EPS
    DPPCA(2, eps=1.0, random_state=0).fit(X * 1e6 + 1e9)  # the same n and budget, other data
    assert not [w for w in recwarn if "private centre" in str(w.message)]
    assert 2000 * 1.0 * CENTER_SHARE >= MIN_N_EPS


def test_dp_centre_spends_its_budget_on_four_releases():
    X = _located_data(3000, 1)
    ledger = Ledger(0.5, 1e-6)
    dp_centre(X, 0.5, 1e-6, np.random.default_rng(0), ledger=ledger)
    spent = ledger.to_frame()
    assert len(spent) == 4 and spent.step.str.startswith("centre").all()
    # basic composition of the pure searches and one Gaussian-DP group: fp sums of shares
    assert ledger.spent_eps == pytest.approx(0.5, rel=1e-12)
    assert ledger.spent_delta == pytest.approx(1e-6, rel=1e-12)


def test_clipped_row_mean_moves_by_at_most_its_sensitivity():
    rng = np.random.default_rng(3)
    X = rng.standard_t(2, size=(40, 4)) * 10.0 ** rng.uniform(-3, 3, size=(40, 1))
    radius = 2.5
    for row in (np.full(4, 1e300), np.zeros(4), -X[0] * 1e8, np.array([radius, 0, 0, 0])):
        Y = X.copy()
        Y[0] = row
        moved = np.linalg.norm(clipped_row_mean(X, radius) - clipped_row_mean(Y, radius))
        assert moved <= clipped_mean_sensitivity(radius, 40, 4)
    # exactly 2R/n is reached by opposite clipped rows (up to rounding, covered by the factor)
    Y = X.copy()
    X[0], Y[0] = np.array([1e6, 0, 0, 0]), np.array([-1e6, 0, 0, 0])
    moved = np.linalg.norm(clipped_row_mean(X, radius) - clipped_row_mean(Y, radius))
    assert moved == pytest.approx(2 * radius / 40, rel=1e-12)


def test_centre_warning_is_its_own_class_once_per_configuration(monkeypatch):
    """Issue 24 finding 10: cross_val_score warned once per fit; now once per configuration."""
    from sklearn.model_selection import cross_val_score

    import dppca.sklearn

    monkeypatch.setattr(dppca.sklearn, "_SHOWN", set())  # shown once per session: start afresh
    X = _located_data(500, 2)  # 400 training rows per fold: 400 x 0.3 x 0.2 = 24 < MIN_N_EPS
    pipe = make_pipeline(DPPCA(2, eps=0.3, random_state=0, missing=0.0),
                         FunctionTransformer(lambda Z: Z))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # even so: scikit-learn resets filters at every fit
        cross_val_score(pipe, X, np.zeros(len(X)), cv=5,
                        scoring=lambda est, X, y: 0.0)
        cross_val_score(make_pipeline(DPPCA(2, eps=0.25, random_state=0, missing=0.0),
                                      FunctionTransformer(lambda Z: Z)),
                        X, np.zeros(len(X)), cv=5, scoring=lambda est, X, y: 0.0)
    centre = [w for w in caught if issubclass(w.category, DPCentreWarning)]
    # two configurations (eps 0.3 and 0.25), five fits each: one warning each
    assert len(centre) == 2, [str(w.message) for w in centre]
    assert "eps=0.3," in str(centre[0].message) and "eps=0.25," in str(centre[1].message)
    with warnings.catch_warnings():  # users filter it by its class (a configuration not yet shown)
        warnings.filterwarnings("error")
        warnings.filterwarnings("ignore", category=DPCentreWarning)
        # the directions' own accuracy warning is another class (p = 6, three factors of
        # similar size at n = 500, eps = 0.45: the released gaps may read as noise)
        warnings.filterwarnings("ignore", category=DPAccuracyWarning)
        DPPCA(2, eps=0.45, random_state=0).fit(X)


@pytest.mark.parametrize("frame, error, match", [
    # finding 8: a text column failed inside pandas ("could not convert string to float")
    (pd.DataFrame({"x": [1.0, 2, 3], "s": ["a0", "a1", "a2"]}), DPPCATypeError,
     r"non-numeric: \['s'\] \(dtypes \['(str|object)'\]\)"),
    # finding 8: a header-only frame is a frame without rows, not "non-numeric"
    (pd.DataFrame(columns=list("abcdef")), DPPCAValueError, r"`X` has no rows \(6 columns, 0 rows\)"),
    # finding 7: duplicate names are named as such
    (pd.DataFrame(np.ones((3, 3)), columns=["a", "a", "b"]), DPPCAValueError,
     r"duplicate column names \['a'\]"),
])
def test_fit_names_what_is_wrong_with_a_frame(frame, error, match):
    with pytest.raises(error, match=match):
        DPPCA(2).fit(frame)
