"""Issue 20 part B: accuracy predictors, warnings from public numbers, frames, Analyze Gauss's default."""
import warnings

import numpy as np
import pytest

from dppca.estimators.centre import centre_accuracy
from dppca.estimators.frame import frame_accuracy, private_frame
from dppca.methods.analyze_gauss import bound_noise_level, default_bound_quantile
from dppca.preprocessing import as_matrix, private_column_scales
from dppca.preprocessing.scales import scale_accuracy
from dppca.privacy.accuracy import DPAccuracyWarning
from dppca.privacy.composition import GaussianGroup


@pytest.mark.parametrize("n, p, eps, reliable", [(178, 13, 1.0, False), (5000, 20, 1.0, True)])
def test_scale_warning_follows_the_predictor_and_not_the_data(n, p, eps, reliable):
    assert scale_accuracy(n, p, eps, 1e-5, share=0.2).reliable is reliable
    rng = np.random.default_rng(0)
    # two data sets of the same public shape, very different values: same warning or none
    for X in (rng.normal(size=(n, p)), rng.standard_t(1, size=(n, p)) * 1e6):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            private_column_scales(as_matrix(X), rng=np.random.default_rng(1),
                                  noise=GaussianGroup(eps, 1e-5).share(0.2))
        assert any(issubclass(w.category, DPAccuracyWarning) for w in caught) is not reliable


def test_predictors_are_public_arithmetic_and_monotone_in_eps():
    for predict in (lambda e: scale_accuracy(2000, 10, e, 1e-5, share=0.2),
                    lambda e: centre_accuracy(2000, 10, e, 1e-5, share=0.2),
                    lambda e: frame_accuracy(2000, e, 1e-5)):
        errors = [predict(e).predicted for e in (0.5, 1, 2, 4, 8)]
        assert all(a >= b for a, b in zip(errors, errors[1:]))  # more budget, no larger error
    assert not centre_accuracy(150, 4, 1.0, 1e-5, share=0.2).reliable  # n eps_centre < 200


@pytest.mark.parametrize("n, eps", [(20, 0.05), (150, 0.1), (400, 1.0)])
def test_frame_never_has_zero_width(n, eps):
    scores = np.random.default_rng(3).normal(size=(n, 2)) * [2.0, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DPAccuracyWarning)
        frame = private_frame(scores, eps, 1e-5, np.random.default_rng(4))
    # the widths are the searches' radii or public fallbacks, never the 1e-9 floor
    assert min(np.ptp(frame.xlim), np.ptp(frame.ylim)) > 1e-3


def test_unreadable_frame_warns_before_release_and_uses_the_public_default():
    scores = np.random.default_rng(0).normal(size=(100, 2))
    assert not frame_accuracy(100, 0.1, 1e-5).reliable
    with pytest.warns(DPAccuracyWarning, match="frame"):
        frame = private_frame(scores, 0.1, 1e-5, np.random.default_rng(1))
    assert frame.half_width == frame.half_height == 3.0  # FRAME_DEFAULT_HALF_WIDTH


def test_frame_fits_each_axis_of_unequal_scores():
    # PC2 ten times narrower than PC1: a square frame would leave ~90% of its area empty; the
    # per-axis quantile frame's box of 1-99% quantiles fills ~57% for Gaussian scores
    # (frame docstring), so at least 35% with the searches' rank errors at n = 5000, eps = 1.
    scores = np.random.default_rng(2).normal(size=(5000, 2)) * [10.0, 1.0]
    frame = private_frame(scores, 1.0, 1e-5, np.random.default_rng(3))
    low, high = np.percentile(scores, [1, 99], axis=0)
    box = np.prod(high - low)
    assert box / (np.ptp(frame.xlim) * np.ptp(frame.ylim)) > 0.35


def test_analyze_gauss_default_bound_switches_on_public_numbers():
    # m bound_share eps < 300 (no private quantile can be found): the spatial signs (None);
    # above, the 0.9 quantile where nu >= 0.055 (noise still matters), 0.95 below
    assert bound_noise_level(2500, 20, 4.0, 1e-5) == pytest.approx(0.068, abs=5e-4)
    assert bound_noise_level(10095, 10, 1.0, 1e-5) == pytest.approx(0.024, abs=5e-4)
    assert default_bound_quantile(284, 30, 1.0, 1e-5) is None    # breast_cancer (x = 28)
    assert default_bound_quantile(898, 61, 2.0, 1e-5) is None    # digits at eps = 2 (x = 180)
    assert default_bound_quantile(5000, 2, 0.5, 1e-5) is None    # nu = 0.01, but x = 250
    assert default_bound_quantile(898, 61, 4.0, 1e-5) == 0.9     # digits at eps = 4 (x = 359)
    assert default_bound_quantile(2500, 20, 4.0, 1e-5) == 0.9    # gau at eps = 4 (nu = 0.068)
    assert default_bound_quantile(10095, 10, 1.0, 1e-5) == 0.95  # randhie (nu = 0.024)
    assert default_bound_quantile(10000, 8, 1.0, 1e-5) == 0.95   # a 20,000-row flights extract


def _standardized_iris():
    from sklearn.datasets import load_iris

    X = load_iris().data
    return (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)


def test_analyze_gauss_small_default_is_the_spatial_signs_with_the_whole_budget():
    from dppca import dp_pc_dir

    Z = _standardized_iris()
    res = dp_pc_dir(Z, 2, method="analyze_gauss", eps=2.0, delta=1e-5, rng=0,
                    missing=0.0)  # complete data, declared so: no median release
    (release,) = res.ledger.releases  # no bound is released
    assert "spatial signs" in release.step and release.eps == 2.0
    assert release.sensitivity == pytest.approx(np.sqrt(2) / 75, rel=1e-12)  # ||s_i|| <= 1, m = 75


def test_analyze_gauss_default_within_1_2_of_the_better_bound_on_iris():
    # Issue 20's target (default within 1.2x of the better of the median and 0.95 bounds) on
    # iris at eps = 2, where the median bound was 2.2x worse (benchmarks/results/
    # small_data_gauss.txt: default .20, median .49, q95 .22 over 20 seeds); 10 seeds here.
    from dppca import dp_pc_dir
    from dppca.metrics import sin_theta

    Z = _standardized_iris()
    truth = np.linalg.eigh(np.cov(Z.T))[1][:, ::-1][:, :2]

    def mean_error(**options):
        return np.mean([sin_theta(dp_pc_dir(Z, 2, method="analyze_gauss", eps=2.0, delta=1e-5,
                                            rng=seed, **options).directions.to_numpy(), truth)
                        for seed in range(10)])

    better = min(mean_error(bound_quantile=0.5), mean_error(bound_quantile=0.95))
    assert mean_error() <= 1.2 * better


def test_analyze_gauss_upper_quantile_bound_is_not_pulled_to_the_bottom_of_the_grid():
    # 2,000 Gaussian pairs in 2-D at eps = 1 (m eps_bound = 200), the 0.95 quantile: the old
    # tie-breaking decay (0.005 m eps_bound per candidate, 1.9 m ranks over the grid) drew
    # C = 2^-48. Now its pull is at most 0.1 m ranks and the mechanism's own rank error is
    # about 2 ln(385) / eps_bound = 119 ranks (6% of m), so C lies between the 0.75 quantile
    # of the norms and a quarter octave above the largest.
    from dppca import dp_pc_dir
    from dppca.methods._shared import paired_differences

    X = np.random.default_rng(0).normal(size=(4000, 2)) * [3.0, 1.0]
    for seed in range(3):
        res = dp_pc_dir(X, 1, method="analyze_gauss", eps=1.0, delta=1e-5, rng=seed,
                        bound_quantile=0.95)
        release = [r for r in res.ledger.releases if "second-moment" in r.step][0]
        bound = np.sqrt(release.sensitivity * 2000 / np.sqrt(2))
        norms = np.linalg.norm(paired_differences(X, np.random.default_rng(seed)), axis=1)
        assert np.quantile(norms, 0.75) <= bound <= 2 ** 0.25 * norms.max()


def test_analyze_gauss_upper_bound_is_not_drawn_above_an_atom():
    # Discrete rows: the norms of the paired differences take 4 values, the largest with
    # probability 1/4, so the 0.95 quantile sits on that atom and every candidate above it ties;
    # the public tie-breaking keeps the bound within a few quarter-octaves of the atom.
    from dppca import dp_pc_dir

    rng = np.random.default_rng(0)
    X = rng.choice([-1.0, 1.0], size=(4000, 2)) * np.sqrt([10.0, 5.0])
    res = dp_pc_dir(X, 1, method="analyze_gauss", eps=20, delta=1e-5, rng=1, bound_quantile=0.95)
    bound = 2 * np.sqrt(15.0)  # the largest norm of a paired difference
    release = [r for r in res.ledger.releases if "second-moment" in r.step][0]
    assert release.sensitivity <= np.sqrt(2) * (4 * bound) ** 2 / 2000
