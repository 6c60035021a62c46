"""dp_pc_dir: shapes, names, determinism, accuracy, privacy accounting, sensitivity."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCATypeError, DPPCAValueError, PCDirections, dp_pc_dir
from dppca.stats.kendall import kendall_tau_matrix, rounding_slack, sign_bound
from dppca.metrics import sin_theta


def test_nonprivate_matches_numpy_eigh(gaussian_frame):
    res = dp_pc_dir(gaussian_frame, 2)
    values, vectors = np.linalg.eigh(np.cov(gaussian_frame.to_numpy(), rowvar=False))
    assert isinstance(res, PCDirections)
    assert res.ledger is None and not res.private
    # Same subspace as numpy up to rounding: sin-theta at machine precision.
    assert sin_theta(res.directions.to_numpy(), vectors[:, ::-1][:, :2]) < 1e-10
    assert np.allclose(res.eigenvalues, values[::-1][:2])


def test_directions_frame_keeps_names_and_is_orthonormal(gaussian_frame):
    res = dp_pc_dir(gaussian_frame, 3, g_dppca=True, eps=1, delta=1e-5, rng=0)
    assert list(res.directions.index) == ["a", "b", "c", "d"]
    assert list(res.directions.columns) == ["PC1", "PC2", "PC3"]
    V = res.directions.to_numpy()
    assert np.allclose(V.T @ V, np.eye(3), atol=1e-12)
    # Sign convention: the largest-|.| loading of each column is positive.
    assert (V[np.abs(V).argmax(axis=0), range(3)] > 0).all()
    assert np.asarray(res).shape == (4, 3)
    assert (gaussian_frame.to_numpy() @ res).shape == (400, 3)


def test_numpy_input_gets_v_names():
    res = dp_pc_dir(np.random.default_rng(0).normal(size=(30, 3)), 1)
    assert list(res.directions.index) == ["V1", "V2", "V3"]


def test_same_seed_same_output_different_seed_different(gaussian_frame):
    a = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=7)
    b = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=7)
    c = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=8)
    pd.testing.assert_frame_equal(a.directions, b.directions)
    assert not np.allclose(a.directions, c.directions)


def test_private_recovers_top_direction_at_large_budget(gaussian_frame):
    # Kendall's tau shares Sigma's eigenvectors (Kim & Jung 2025, Prop. 3.1). At eps=50 the noise
    # sd is ~4*0.45/(400*50) ~ 1e-4 << the eigengap (~0.3), so the private PC1 is the Kendall PC1
    # up to ~1e-3, and the Kendall PC1 is within sampling error (~0.05 at n=400) of the sample PC1.
    private = dp_pc_dir(gaussian_frame, 1, g_dppca=True, eps=50, delta=1e-5, rng=1)
    reference = dp_pc_dir(gaussian_frame, 1)
    assert sin_theta(private.directions.to_numpy(), reference.directions.to_numpy()) < 0.1


def test_ledger_totals_the_budget(gaussian_frame):
    # Private scales (35% of the budget, one Gaussian-DP group with the directions) at eps=20.
    res = dp_pc_dir(gaussian_frame * [1, 2, 3, 4], 2, standardize=True, g_dppca=True, eps=20,
                    delta=1e-5, rng=0)
    assert res.ledger.spent_eps == pytest.approx(20.0)
    assert res.ledger.spent_delta == pytest.approx(1e-5)
    steps = list(res.ledger.to_frame()["step"])
    assert steps[-1] == "directions: Kendall's tau matrix" and any("scale" in s for s in steps)
    assert res.scale_source == "private (35% of eps)"


def test_sensitivity_and_sigma_on_the_ledger(gaussian_frame):
    res = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=0,
                    calibration="classic")
    row = res.ledger.to_frame().iloc[-1]
    # Tight constant 2 sqrt(2) (the paper's 4 uses a triangle inequality; see gdppca_directions).
    # Both carry (1 + rho), rho <= the engine's rounding slack at n = 400, p = 4 (2e-6).
    rho = rounding_slack(400, 4)
    assert 2 * math.sqrt(2) / 400 <= row["sensitivity"] <= 2 * math.sqrt(2) / 400 * (1 + 1.01 * rho)
    assert row["noise_scale"] == pytest.approx(2 * math.sqrt(2) * math.sqrt(2 * math.log(1.25e5)) / 400,
                                               rel=1.01 * rho + 1e-9)
    wins = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=0, sign="winsorized")
    assert wins.ledger.to_frame().iloc[-1]["sensitivity"] == pytest.approx(2 * math.sqrt(2) * 4 / 400,
                                                                           rel=1.01 * rho)


def test_private_standardize_does_not_use_sample_sd(gaussian_frame):
    # Scaling one column by 1000 must be undone by the (private) scales: the directions at the
    # same seed agree closely with the unscaled call's when both standardize.
    X = gaussian_frame.copy()
    X["a"] *= 1000
    res = dp_pc_dir(X, 1, standardize=True, g_dppca=True, eps=20, delta=1e-5, rng=3)
    assert res.scale["a"] / res.scale["b"] > 300


def test_public_scale_is_used_verbatim(gaussian_frame):
    res = dp_pc_dir(gaussian_frame, 2, standardize=True, g_dppca=True, eps=1, delta=1e-5, rng=0,
                    scale=[1, 2, 3, 4])
    assert res.scale.tolist() == [1, 2, 3, 4] and res.scale_source == "public"
    assert len(res.ledger) == 1


def test_nonprivate_reference_only_when_asked(gaussian_frame):
    plain = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=0)
    asked = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=0, nonprivate=True)
    assert plain.nonprivate_directions is None
    assert "NON-PRIVATE" not in str(plain)
    assert asked.nonprivate_directions.shape == (4, 2)
    assert "NON-PRIVATE reference loadings" in str(asked)


def test_summary_header_facts(gaussian_frame):
    res = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=11)
    text = str(res.summary())
    for fact in ["gdppca", "Gaussian (analytic)", "replace-one", "400", "Seed:", "11", "Noise sd:",
                 "Sensitivity:", "PC1", "PC2"]:
        assert fact in text
    assert res._repr_html_().startswith("<table")


def test_duplicate_rows_work():
    # The R package refuses duplicate rows; g(0) = 0 makes them contribute nothing here.
    X = np.repeat(np.random.default_rng(0).integers(0, 5, size=(40, 3)).astype(float), 3, axis=0)
    res = dp_pc_dir(X, 2, g_dppca=True, eps=1, delta=1e-5, rng=0)
    assert np.isfinite(res.directions.to_numpy()).all()


def test_g_dppca_sensitivity_empirical_neighbour_search():
    # Search neighbouring datasets (one row replaced by outliers, duplicates of other rows,
    # random points, near-duplicates) for a Frobenius change of K larger than 2 sqrt2 ||g||^2 / n.
    rng = np.random.default_rng(12)
    n, d = 40, 3
    X = rng.standard_t(1, size=(n, d))
    for sign in ("spherical", "winsorized"):
        bound = 2 * math.sqrt(2) * sign_bound(d, sign=sign) ** 2 / n
        K = kendall_tau_matrix(X, sign=sign)
        worst = 0.0
        candidates = [rng.normal(size=d) * s for s in (1e-3, 1, 1e3, 1e9)] + [X[5], X[6] + 1e-9]
        for i in range(0, n, 3):
            for new in candidates:
                Y = X.copy()
                Y[i] = new
                worst = max(worst, np.linalg.norm(kendall_tau_matrix(Y, sign=sign) - K))
        assert 0 < worst <= bound
        # Not loose by orders of magnitude: random replacements reach a good share of it ...
        assert worst > bound / 4
    # ... and the adversarial geometry of the proof attains it: a far row moved from e_1 to e_2.
    Y, Z = X.copy(), X.copy()
    Y[0], Z[0] = [1e9, 0, 0], [0, 1e9, 0]
    attained = np.linalg.norm(kendall_tau_matrix(Y) - kendall_tau_matrix(Z))
    # Each of the n-1 pair terms changes by e1 e1^T - e2 e2^T (Frobenius sqrt 2) up to 1e-9.
    assert attained == pytest.approx(2 * math.sqrt(2) / n, rel=1e-6)


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(k=0), DPPCAValueError, "`k` must be an integer in \\[1, 4\\]"),
    (dict(k=5), DPPCAValueError, "`k`"),
    (dict(k=1.5), DPPCAValueError, "`k`"),
    (dict(k="2"), DPPCATypeError, "`k`"),
    (dict(g_dppca=True, eps=None, delta=1e-5), DPPCAValueError, "`eps` is required"),
    (dict(g_dppca=True, eps=1, delta=None), DPPCAValueError, "`delta` is required"),
    (dict(g_dppca=True, eps=0, delta=1e-5), DPPCAValueError, "`eps` must be a finite number > 0"),
    (dict(g_dppca=True, eps=-1, delta=1e-5), DPPCAValueError, "`eps`"),
    (dict(g_dppca=True, eps=float("inf"), delta=1e-5), DPPCAValueError, "`eps`"),
    (dict(g_dppca=True, eps=1, delta=1), DPPCAValueError, "`delta` must be a number in the open"),
    (dict(g_dppca=True, eps=1, delta=0), DPPCAValueError, "`delta`"),
    (dict(g_dppca="yes"), DPPCATypeError, "`g_dppca` must be True or False"),
    (dict(center=None), DPPCATypeError, "`center`"),
    (dict(method="pca"), DPPCAValueError, "`method` must be one of"),
    (dict(g_dppca=True, eps=1, delta=1e-5, sign="sphere"), ValueError, "`sign`"),
    (dict(g_dppca=True, eps=1, delta=1e-5, xi=np.sqrt), ValueError, "xi_bound"),
    (dict(g_dppca=True, eps=1, delta=1e-5, calibration="exact"), DPPCAValueError, "`calibration`"),
    (dict(g_dppca=True, eps=1, delta=1e-5, xi=3), DPPCATypeError, "`xi`"),
    (dict(g_dppca=True, eps=1, delta=1e-5, bogus=1), DPPCATypeError, "bogus"),
    (dict(standardize=True, scale=[1, 2]), DPPCAValueError, "`scale` must have one value per column"),
    (dict(standardize=True, scale=[1, 2, 0, 1]), DPPCAValueError, "`scale`"),
    (dict(g_dppca=True, eps=1, delta=1e-5, rng="seed"), DPPCATypeError, "`rng`"),
])
def test_bad_arguments_raise_clear_errors(gaussian_frame, kwargs, error, match):
    kwargs = {"k": 2} | kwargs
    with pytest.raises(error, match=match):
        dp_pc_dir(gaussian_frame, **kwargs)


@pytest.mark.parametrize("X,error,match", [
    (pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "z"]}), DPPCATypeError, "non-numeric: \\['s'\\]"),
    (np.ones((1, 3)), DPPCAValueError, "at least 2 rows"),
    (np.array([["a", "b"], ["c", "d"]]), DPPCATypeError, "must be numeric"),
    (np.zeros((2, 2, 2)), DPPCAValueError, "2-D"),
    (pd.DataFrame({"a": [True, False, True]}), DPPCATypeError, "non-numeric"),
])
def test_bad_data_raise_clear_errors(X, error, match):
    with pytest.raises(error, match=match):
        dp_pc_dir(X, 1)


def test_constant_column_with_standardize():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 5.0], "b": [2.0, 2.0, 2.0, 2.0]})
    with pytest.raises(DPPCAValueError, match="constant columns: \\['b'\\]"):
        dp_pc_dir(X, 1, standardize=True)
    big = pd.DataFrame({"a": np.random.default_rng(0).normal(size=400), "b": 2.0})
    # Private: never a refusal that depends on the data; the column is floored, with a warning
    # decided from the releases.
    with pytest.warns(UserWarning, match="\\['b'\\] look \\(near-\\)constant"):
        res = dp_pc_dir(big, 1, standardize=True, g_dppca=True, eps=50, delta=1e-5, rng=0)
    assert (res.scale > 0).all()


def test_plot_returns_figure(gaussian_frame):
    import matplotlib

    matplotlib.use("Agg")
    res = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=0)
    fig = res.plot()
    assert fig is not None and not hasattr(res, "figure")  # plot() leaves the result alone
    assert "eps=1" in fig.axes[0].get_title()


def test_user_xi_is_clipped_at_its_declared_bound(gaussian_frame):
    # A user scale function that exceeds its declared bound must not get less noise than it
    # needs: dp_pc_dir clips xi at xi_bound, so the result equals the one for min(xi, bound).
    def greedy(s):
        return 10.0 * np.ones_like(s)

    def honest(s):
        return np.ones_like(s)

    a = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=4, xi=greedy, xi_bound=1.0)
    b = dp_pc_dir(gaussian_frame, 2, g_dppca=True, eps=1, delta=1e-5, rng=4, xi=honest, xi_bound=1.0)
    pd.testing.assert_frame_equal(a.directions, b.directions)


@pytest.mark.parametrize("standardize, match", [
    (False, r"too large for the NON-PRIVATE sample covariance.*2\^400.*2.58e\+120"),
    (True, r"cannot standardize columns \['V1'\]: their sample SD overflows"),
])
def test_nonprivate_pca_on_overflowing_data_is_an_error(standardize, match):
    """Issue 24 finding 9: 1e308 made np.cov overflow to inf/NaN and the eigenvectors came back
    as the coordinate axes after a RuntimeWarning; now a clear error (and no numpy warning)."""
    X = np.random.default_rng(0).normal(size=(50, 3))
    X[0, 0] = 1e308
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(DPPCAValueError, match=match):
            dp_pc_dir(X, 2, g_dppca=False, standardize=standardize)
