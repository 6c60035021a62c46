"""The rank path: dp_pc_dir(..., standardize="rank"), its release and its sensitivity."""
import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2

from dppca import DPAccuracyWarning, dp_pc_dir
from dppca._validation import DPPCATypeError, DPPCAValueError
from dppca.methods.latent_correlation import rank_tau_sensitivity
from dppca.metrics import sin_theta
from dppca.stats.copula_bridge import latent_correlation
from dppca.stats.elementwise_kendall import kendall_tau_matrix

#: A latent correlation with a clear top-2 subspace (eigenvalues about 2.0, 1.6, 0.8, 0.4, 0.3).
CORRELATION = np.array([[1.0, 0.6, 0.5, 0.0, 0.0],
                        [0.6, 1.0, 0.5, 0.0, 0.0],
                        [0.5, 0.5, 1.0, 0.1, 0.0],
                        [0.0, 0.0, 0.1, 1.0, 0.6],
                        [0.0, 0.0, 0.0, 0.6, 1.0]])


def _upper(matrix):
    return matrix[np.triu_indices(matrix.shape[0])]


def _change(X, Y):
    """||vec T(X) - vec T(Y)||_2 over the entries j <= k."""
    return float(np.linalg.norm(_upper(kendall_tau_matrix(X)) - _upper(kendall_tau_matrix(Y))))


@pytest.fixture(scope="module")
def gaussian():
    rng = np.random.default_rng(20261129)
    return pd.DataFrame(rng.multivariate_normal(np.zeros(5), CORRELATION, size=2000),
                        columns=list("abcde"))


# ----------------------------------------------------------------------------- sensitivity

def _adversarial_rows(X, rng):
    n, p = X.shape
    rows = [np.zeros(p), X[0].copy(), X[-1].copy(), np.full(p, 1e300), np.full(p, -1e300),
            np.where(np.arange(p) % 2 == 0, 1e300, -1e300), np.where(np.arange(p) < p // 2, -0.0, 1e300),
            X.max(axis=0), X.min(axis=0), np.median(X, axis=0)]
    rows += [rng.choice(X.ravel(), size=p) for _ in range(4)]  # values of other rows: ties
    rows += [rng.normal(size=p) * 10.0 ** rng.uniform(-300, 300) for _ in range(3)]
    return rows


@pytest.mark.parametrize("seed", range(8))
def test_sensitivity_holds_for_random_and_adversarial_neighbours(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(3, 16)), int(rng.integers(1, 6))
    kind = seed % 4
    if kind == 0:
        X = rng.normal(size=(n, p))
    elif kind == 1:  # heavy ties
        X = rng.integers(0, 3, size=(n, p)).astype(float)
    elif kind == 2:  # duplicated rows and the origin
        X = np.repeat(rng.normal(size=(1, p)), n, axis=0)
        X[: n // 3] = 0.0
    else:  # huge magnitudes of both signs
        X = rng.choice([1e300, -1e300, 0.0, 1.0], size=(n, p))
    bound = rank_tau_sensitivity(n, p)
    worst = 0.0
    for i in range(n):
        for row in _adversarial_rows(X, rng):
            Y = X.copy()
            Y[i] = row
            worst = max(worst, _change(X, Y))
    assert worst <= bound


def test_sensitivity_exhaustive_on_a_small_grid():
    # every dataset of n = 3 rows, p = 2 columns with values in {0, 1} and every replacement
    # of row 0 by a row in {0, 1, 2}^2: ties in each column, joint ties, duplicates
    n, p, worst = 3, 2, 0.0
    cells = list(itertools.product([0.0, 1.0], repeat=n * p))
    replacements = [np.array(r) for r in itertools.product([0.0, 1.0, 2.0], repeat=p)]
    for cell in cells:
        X = np.array(cell).reshape(n, p)
        for row in replacements:
            Y = X.copy()
            Y[0] = row
            worst = max(worst, _change(X, Y))
    assert worst <= rank_tau_sensitivity(n, p)


@pytest.mark.parametrize("n, p", [(6, 2), (10, 4), (9, 6)])
def test_sensitivity_is_attained_for_even_p(n, p):
    # row 0 above every other row in all coordinates moves below them in half of them: every
    # one of its n - 1 pair terms changes by the same vector of norm p (the proof's equality)
    rng = np.random.default_rng(p)
    X = rng.normal(size=(n, p))
    X[0] = 1e300
    Y = X.copy()
    Y[0, p // 2:] = -1e300
    assert _change(X, Y) == pytest.approx(2 * p / n, rel=1e-12)
    assert _change(X, Y) <= rank_tau_sensitivity(n, p)


# ----------------------------------------------------------------------------- dp_pc_dir

def test_private_rank_directions_near_pearson_correlation_pca(gaussian):
    eps, delta, k = 4.0, 1e-5, 2
    result = dp_pc_dir(gaussian, k, standardize="rank", eps=eps, delta=delta, rng=3)
    assert result.method == "rank"
    pearson = np.linalg.eigh(np.corrcoef(gaussian.to_numpy(), rowvar=False))[1][:, ::-1][:, :k]
    values = np.sort(np.linalg.eigvalsh(CORRELATION))[::-1]
    gap = values[k - 1] - values[k]
    # Davis-Kahan in the form of Yu, Wang & Samworth (2015): sin-theta <= 2 ||E||_F / gap, for
    # the gap of the population matrix. E collects (a) the noise: each released tau entry has sd
    # sigma; sin(pi t / 2) is (pi / 2)-Lipschitz; the diagonal's noise (|1 / sqrt(d_j d_k) - 1|
    # <= 8 sigma at this level) adds at most 8 sigma per entry; the repair to a correlation
    # matrix is a projection onto a convex set (no larger in Frobenius norm); with probability
    # 1 - 1e-6 the p (p - 1) / 2 off-diagonal draws have norm <= sigma sqrt(chi2 quantile);
    # (b) the sampling error between the latent and the Pearson estimates of CORRELATION
    # (both within ||.||_F of it; measured here without noise).
    sigma = result.noise_sd
    pairs = 5 * 4 / 2
    noise = math.sqrt(2) * 0.5 * math.pi * (sigma * math.sqrt(chi2.ppf(1 - 1e-6, pairs))
                                            + 8 * sigma * math.sqrt(pairs))
    sampling = np.linalg.norm(latent_correlation(kendall_tau_matrix(gaussian.to_numpy()))
                              - np.corrcoef(gaussian.to_numpy(), rowvar=False))
    tolerance = 2 * (noise + sampling) / gap
    assert tolerance < 0.9  # the check can fail: a random 2-plane is about 0.9-1 away
    assert sin_theta(result.directions, pearson) <= tolerance


def test_monotone_transforms_leave_the_nonprivate_result_unchanged(gaussian):
    transformed = gaussian.assign(a=np.exp(gaussian["a"]), b=gaussian["b"] ** 3,
                                  c=10 * gaussian["c"] + 7)
    before = dp_pc_dir(gaussian, 2, standardize="rank")
    after = dp_pc_dir(transformed, 2, standardize="rank")
    assert not before.private and "NON-PRIVATE" in str(before.summary())
    np.testing.assert_array_equal(before.directions.to_numpy(), after.directions.to_numpy())
    np.testing.assert_array_equal(before.eigenvalues.to_numpy(), after.eigenvalues.to_numpy())


def test_nonprivate_reference_is_the_latent_correlation_pca(gaussian):
    result = dp_pc_dir(gaussian, 2, standardize="rank", eps=1, delta=1e-5, rng=0, nonprivate=True)
    plain = dp_pc_dir(gaussian, 2, standardize="rank", g_dppca=False)
    np.testing.assert_array_equal(result.nonprivate_directions.to_numpy(),
                                  plain.directions.to_numpy())


# missing=0.0 below: a declared fill value, a no-op on complete data, pins the complete-data
# release (the default, private column medians, also releases the medians).
def test_same_seed_same_output_and_ledger_sums_to_the_budget(gaussian):
    first = dp_pc_dir(gaussian, 2, standardize="rank", eps=1.5, delta=1e-6, rng=11, missing=0.0)
    second = dp_pc_dir(gaussian, 2, standardize="rank", eps=1.5, delta=1e-6, rng=11, missing=0.0)
    other = dp_pc_dir(gaussian, 2, standardize="rank", eps=1.5, delta=1e-6, rng=12, missing=0.0)
    np.testing.assert_array_equal(first.directions.to_numpy(), second.directions.to_numpy())
    assert not np.array_equal(first.directions.to_numpy(), other.directions.to_numpy())
    assert first.ledger.spent_eps == pytest.approx(1.5, rel=1e-12)
    assert first.ledger.spent_delta == pytest.approx(1e-6, rel=1e-12)
    assert len(first.ledger) == 1
    # the sensitivity 2 p / n (plus its 1e-15 rounding slack) sets the ledger's noise
    assert first.sensitivity == pytest.approx(2 * 5 / 2000, rel=1e-12)


def test_summary_states_the_estimand(gaussian):
    text = str(dp_pc_dir(gaussian, 2, standardize="rank", eps=1, delta=1e-5, rng=0).summary())
    assert "latent Gaussian-copula correlation (Han & Liu 2012)" in text
    assert "equals Pearson correlation PCA for Gaussian data" in text
    assert "latent copula correlation" in text  # the Target row


def test_random_level_release_warns():
    X = np.random.default_rng(5).normal(size=(100, 6))
    with pytest.warns(DPAccuracyWarning, match="directions"):
        result = dp_pc_dir(X, 2, standardize="rank", eps=0.05, delta=1e-5, rng=0)
    assert result.accuracy.steps[0].predicted == 1.0  # the pre-release model: noise-dominated


def test_accurate_release_does_not_warn(gaussian):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DPAccuracyWarning)
        result = dp_pc_dir(gaussian, 2, standardize="rank", eps=4, delta=1e-5, rng=0, missing=0.0)
    assert [s.step for s in result.accuracy.steps] == ["directions (pre-release)",
                                                       "directions (post-release)"]


@pytest.mark.parametrize("value, error", [("ranks", DPPCAValueError), ("RANK", DPPCAValueError),
                                          (None, DPPCATypeError), (2, DPPCATypeError)])
def test_bad_standardize_values(gaussian, value, error):
    with pytest.raises(error, match="`standardize` must be False, True or 'rank'"):
        dp_pc_dir(gaussian, 2, standardize=value, eps=1, delta=1e-5)


def test_rank_path_rejects_other_methods_and_scales(gaussian):
    with pytest.raises(DPPCAValueError, match="rank method"):
        dp_pc_dir(gaussian, 2, standardize="rank", method="gdppca", eps=1, delta=1e-5)
    with pytest.raises(DPPCAValueError, match="scale-free"):
        dp_pc_dir(gaussian, 2, standardize="rank", scale=np.ones(5), eps=1, delta=1e-5)
    with pytest.raises(DPPCAValueError, match="scale-free"):
        dp_pc_dir(gaussian, 2, standardize=True, method="rank", eps=1, delta=1e-5)


def test_method_rank_without_standardize_is_the_same_release(gaussian):
    by_method = dp_pc_dir(gaussian, 2, method="rank", eps=1, delta=1e-5, rng=4)
    by_flag = dp_pc_dir(gaussian, 2, standardize="rank", eps=1, delta=1e-5, rng=4)
    np.testing.assert_array_equal(by_method.directions.to_numpy(), by_flag.directions.to_numpy())



def test_plan_predicts_the_rank_directions_as_the_result_does(gaussian):
    from dppca import plan

    planned = plan(2000, 5, 2, 4.0, 1e-5, standardize="rank", missing=0.0)  # no medians, as the call
    result = dp_pc_dir(gaussian, 2, standardize="rank", eps=4, delta=1e-5, rng=0, missing=0.0)
    # the plan covers dp_scree's rank path too: its directions row, then the values' half-width
    assert [s.step for s in planned.accuracy.steps] == ["directions (pre-release)",
                                                        "rank: scree values (half-width)"]
    assert planned.accuracy.steps[0].predicted == pytest.approx(result.accuracy.steps[0].predicted,
                                                                rel=1e-12)
    assert not plan(100, 6, 2, 0.05, 1e-5, standardize="rank").reliable


def _mixed_frame(n, seed):
    rng = np.random.default_rng(seed)
    z = rng.multivariate_normal(np.zeros(5), CORRELATION, size=n)
    return pd.DataFrame({"a": np.exp(z[:, 0]), "b": z[:, 1] > 0.5,
                         "c": pd.Categorical(np.where(z[:, 2] > -0.3, "yes", "no"),
                                             categories=["no", "yes"]),
                         "d": z[:, 3] ** 3, "e": z[:, 4]})


def test_binary_bridges_recover_the_latent_correlation():
    # NON-PRIVATE: the tau-a of a dichotomized latent Gaussian, inverted through the Fan, Liu,
    # Ning & Zou (2017) bridges, estimates the latent correlation. At n = 20000 a tau-a has sd
    # <= 2 / sqrt(n) = 0.014 (Hoeffding's U-statistic variance bound 4 / n); the inverse bridges
    # here have slope <= 2.5 on the correlations of CORRELATION, and the thresholds' error adds
    # less: 0.06 is about 1.7 sd of the worst entry, 4 of a typical one.
    from dppca.methods.latent_correlation import nonprivate_latent_directions
    from dppca.stats.copula_bridge import latent_correlation
    from dppca.methods.latent_correlation import binary_proportions, _thresholds

    frame = _mixed_frame(20000, 1)
    binary = np.array([False, True, True, False, False])
    values = frame.assign(c=frame["c"].cat.codes).to_numpy(dtype=float)
    estimate = latent_correlation(kendall_tau_matrix(values),
                                  thresholds=_thresholds(binary_proportions(values, binary), binary))
    np.testing.assert_allclose(estimate, CORRELATION, atol=0.06)
    assert nonprivate_latent_directions(values, 2, binary=binary).vectors.shape == (5, 2)


def test_binary_dtypes_release_their_shares_in_one_gaussian_group():
    frame = _mixed_frame(3000, 2)
    result = dp_pc_dir(frame, 2, standardize="rank", eps=2, delta=1e-5, rng=0, nonprivate=True, missing=0.0)
    steps = list(result.ledger.to_frame()["step"])
    assert steps == ["directions: elementwise Kendall's tau (j <= k)",
                     "directions: binary columns' shares of ones"]
    assert result.ledger.spent_eps == pytest.approx(2, rel=1e-9)
    assert result.ledger.spent_delta == pytest.approx(1e-5, rel=1e-9)
    # the shares' sensitivity is sqrt(2) / n (two binary columns), plus its 1e-16 slack
    assert result.ledger.to_frame()["sensitivity"].iloc[1] == pytest.approx(math.sqrt(2) / 3000,
                                                                           rel=1e-9)
    reference = dp_pc_dir(frame, 2, standardize="rank")
    np.testing.assert_array_equal(result.nonprivate_directions.to_numpy(),
                                  reference.directions.to_numpy())


def test_categorical_with_other_than_two_levels_is_refused_by_name(gaussian):
    frame = gaussian.assign(group=pd.Categorical(np.where(gaussian["b"] > 0, "x", "y"),
                                                 categories=["x", "y", "z"]))
    with pytest.raises(DPPCAValueError, match=r"2 categories\) only; \{'group': 3\}"):
        dp_pc_dir(frame, 2, standardize="rank", eps=1, delta=1e-5)


def test_bridge_and_mask_arguments_are_checked():
    from dppca.methods.latent_correlation import latent_correlation_directions
    from dppca.privacy import Ledger

    with pytest.raises(DPPCAValueError, match="`tau` must be a square matrix of finite numbers"):
        latent_correlation(np.ones((2, 3)))
    with pytest.raises(DPPCAValueError, match=r"`floor` must be in \(0, 1\]"):
        latent_correlation(np.eye(2), floor=0.0)
    with pytest.raises(DPPCAValueError, match="`binary` must have one entry per column"):
        latent_correlation_directions(np.eye(3), 1, eps=1.0, delta=1e-5, calibration="analytic",
                                      rng=np.random.default_rng(0), ledger=Ledger(1.0, 1e-5),
                                      binary=[True])
