"""Private standardization: never refuses, one budget for the scales per call, accuracy."""
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import dp_pc_dir, dp_score, dp_scree, load_gau
from dppca.preprocessing import ColumnScales, as_matrix, column_scales, sample_scale
from dppca.directions import SCALE_SHARE
from dppca.preprocessing.scales import private_column_scales


def _scale_eps(ledger) -> float:
    return sum(r.eps for r in ledger if r.step.startswith("scale"))


@pytest.mark.parametrize("n", [100, 300])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_gau_grid_never_refuses(n, eps):
    # The private path of the README (standardize=True, g_dppca=True) on small samples: positive
    # finite scales whatever the data (refusals may only depend on n, p and the budget).
    X = load_gau().iloc[:n]
    for seed in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = dp_pc_dir(X, 2, standardize=True, g_dppca=True, eps=eps, delta=1e-5, rng=seed)
        assert np.isfinite(res.scale).all() and (res.scale > 0).all()


def test_real_small_datasets_never_refuse():
    datasets = pytest.importorskip("sklearn.datasets")
    for load in (datasets.load_iris, datasets.load_wine, datasets.load_diabetes):
        X = load(as_frame=True).data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = dp_pc_dir(X, 2, standardize=True, g_dppca=True, eps=1, delta=1e-5, rng=0)
        assert (res.scale > 0).all() and res.ledger.spent_eps == pytest.approx(1.0)


def test_gau_scales_within_factor_1_5_at_n_1000():
    # n = 1000 (m = 500 pairs), p = 20, 20% of (1, 1e-5) in Gaussian-DP terms: per-column mu =
    # 0.268 sqrt(0.2) / sqrt(20) = 0.027; the two clipped moments (80% of the scale budget) give
    # a relative noise of the SD of about 2.34 / (500 * 0.027 * sqrt(0.8)) = 0.19 before the
    # empirical-Bayes shrinkage, so a factor 1.5 (log 0.41 = 2.1 noise sd) fails for ~4% of columns
    # at most; over 3 seeds x 20 columns we require 90% (the benchmark shows 100% over 20 seeds).
    X = load_gau().iloc[:1000]
    sd = X.std().to_numpy()
    ratios = np.concatenate([
        dp_pc_dir(X, 2, standardize=True, g_dppca=True, eps=1, delta=1e-5, rng=s).scale.to_numpy() / sd
        for s in range(3)])
    assert np.mean((ratios < 1.5) & (ratios > 1 / 1.5)) >= 0.9


def test_readme_scales_within_2x_at_eps_4_on_the_real_sets_with_n_over_400():
    # The README's claim (issue 20's target): at eps = 4 and the default share, >= 80% of the
    # columns within 2x of the sample SD on diabetes (n = 442, p = 10) and breast_cancer
    # (569, 30). scale_accuracy predicts a median error of 0.11 and 0.14 octaves there (2x is 1
    # octave, > 7 predicted median errors), so the 80% bar fails only if the estimator breaks;
    # fixed seeds 0-2, pooled over seeds and columns.
    datasets = pytest.importorskip("sklearn.datasets")
    from dppca.privacy.composition import GaussianGroup

    for load in (datasets.load_diabetes, datasets.load_breast_cancer):
        X = np.asarray(load().data, float)
        mat, sd = as_matrix(X), X.std(axis=0, ddof=1)
        ratios = np.concatenate([private_column_scales(
            mat, rng=np.random.default_rng(seed), noise=GaussianGroup(4.0, 1e-5).share(SCALE_SHARE))
            / sd for seed in range(3)])
        assert np.mean((ratios > 0.5) & (ratios < 2)) >= 0.8, load.__name__


def test_dp_pc_dir_scales_take_their_share_in_gaussian_dp_terms():
    res = dp_pc_dir(load_gau().iloc[:500], 2, standardize=True, g_dppca=True, eps=1, delta=1e-5,
                    rng=0, scale_share=0.3, missing=0.0)
    assert _scale_eps(res.ledger) == pytest.approx(0.3)
    assert res.ledger.spent_eps == pytest.approx(1.0) and res.scale_source == "private (30% of eps)"


def test_dp_scree_releases_the_scales_once_with_scale_share_of_the_call():
    res = dp_scree(load_gau().iloc[:600], 2, standardize=True, g_dppca=True, eps=1, delta=1e-5, rng=0,
                   scale_share=0.2, missing=0.0)
    steps = [r.step for r in res.ledger["clipped"] if r.step.startswith("scale")]
    assert len(steps) == 3  # one scale release (three parts) for the whole call
    assert _scale_eps(res.ledger["clipped"]) == pytest.approx(0.2)
    assert res.ledger["clipped"].spent_eps == pytest.approx(1.0)


def test_dp_score_releases_the_scales_once_with_their_share():
    res = dp_score(load_gau().iloc[:600], eps=1, delta=1e-5, standardize=True, g_dppca=True, rng=0, missing=0.0)
    assert len([r for r in res.ledger if r.step.startswith("scale")]) == 3
    assert _scale_eps(res.ledger) == pytest.approx(SCALE_SHARE)  # basic composition in dp_score
    assert res.ledger.spent_eps == pytest.approx(1.0)


def test_released_scales_are_reused_not_spent_again():
    mat = as_matrix(load_gau().iloc[:300])
    scales = ColumnScales(np.ones(mat.p), "private", 0.2)
    res = dp_pc_dir(mat.to_frame(), 2, standardize=True, g_dppca=True, eps=1, delta=1e-5, rng=0,
                    scale=scales)
    assert _scale_eps(res.ledger) == 0 and res.scale_source == "private (20% of eps)"


def test_column_scales_paths():
    mat = as_matrix(pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [0.0, 1.0, 0.0]}))
    assert column_scales(mat, False) is None
    assert column_scales(mat, True, [1, 2]).source == "public"
    assert np.allclose(column_scales(mat, True, private=False).values, sample_scale(mat))


def test_same_seed_same_scales():
    mat = as_matrix(load_gau().iloc[:400])
    a = private_column_scales(mat, 1.0, 1e-5, np.random.default_rng(3))
    b = private_column_scales(mat, 1.0, 1e-5, np.random.default_rng(3))
    assert np.array_equal(a, b)


def test_mostly_zero_column_gets_a_scale_near_its_sd():
    # 90% zeros, 10% N(100, 20^2): SD ~ 30.7, while a robust scale (median |x_a - x_b|) is 0.
    # n = 20000, eps = 1: the clip ladder reaches the non-zero part; within 25% of the SD
    # (the clipped moment at a clip of several SDs loses little; noise ~1%).
    rng = np.random.default_rng(0)
    n = 20000
    X = np.column_stack([(rng.random(n) < 0.1) * rng.normal(100, 20, n), rng.normal(size=n)])
    mat = as_matrix(X)
    ratio = private_column_scales(mat, 1.0, 1e-5, np.random.default_rng(1)) / sample_scale(mat)
    assert np.allclose(ratio, 1, atol=0.25)


def test_summary_header_shows_the_section_share():
    res = dp_pc_dir(load_gau().iloc[:300], 2, g_dppca=True, eps=0.3, delta=1e-6, rng=0)
    res.total_eps, res.budget_share = 1.0, 0.3
    assert "0.3 of 1 (section share)" in str(res)


def test_dp_score_group_uses_the_same_scale_path_and_share():
    X = load_gau().iloc[:600]
    labels = np.repeat(["a", "b"], 300)
    from dppca import dp_score_group

    res = dp_score_group(X, labels, eps=1, delta=1e-5, standardize=True, g_dppca=True, rng=0,
                         scale_share=0.25, missing=0.0)
    assert _scale_eps(res.ledger) == pytest.approx(0.25)
    assert res.directions.scale_source == "private (25% of eps)"


def test_each_column_is_read_from_its_own_evidence_across_many_octaves():
    # Issue 20: pooling pulled heterogeneous columns (wine's proline, breast_cancer's areas) to a
    # common scale. Columns spanning 2^-10 .. 2^12 at n = 600, eps = 4 (scale share 0.2, the
    # README path): the final moment's relative noise is ~2.34 / (m mu_j) ~ 0.15 here, so a
    # located column is far inside 2x; the pilot ladder must locate every one of them.
    rng = np.random.default_rng(11)
    sds = 2.0 ** np.linspace(-10, 12, 12)
    X = rng.normal(size=(600, 12)) * sds
    from dppca.privacy.composition import GaussianGroup

    for seed in range(3):
        s = private_column_scales(as_matrix(X), rng=np.random.default_rng(seed),
                                  noise=GaussianGroup(4.0, 1e-5).share(0.2))
        ratio = s / X.std(axis=0, ddof=1)
        assert np.all((ratio > 0.5) & (ratio < 2)), ratio
    # one outlying column among many alike keeps its own scale (no shrinkage towards the rest)
    Y = rng.normal(size=(600, 10)) * np.r_[np.ones(9), 1000.0]
    s = private_column_scales(as_matrix(Y), rng=np.random.default_rng(0),
                              noise=GaussianGroup(4.0, 1e-5).share(0.2))
    assert 500 < s[-1] < 2000
