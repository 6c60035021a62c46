"""Frame, grid and binning, histogram mechanisms, synthetic sampling (dppca.estimators.histograms)."""
import math

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCATypeError, DPPCAValueError, Ledger
from dppca.controls import SamplingControl
from dppca.estimators.histograms import (Grid, additive_histogram, bin_counts, default_bins, histogram_frame, private_histograms,
                                         sparse_histogram)
from dppca.estimators.sampling import allocate_sample_sizes, sample_histogram
from dppca.estimators.frame import private_frame
from dppca.privacy import gaussian_sigma


# ------------------------------------------------------------------ grid and binning
def test_binning_follows_r_cut_rules():
    # R: cut(include.lowest=TRUE) is right-closed with the first bin closed on the left, and
    # findInterval(all.inside=TRUE) clamps points outside the frame into the edge bins.
    grid = Grid(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 2.0]))
    x = np.array([0.0, 1.0, 1.0001, 2.0, -5.0, 7.0])
    points = np.column_stack([x, np.zeros_like(x)])
    assert grid.bin_index(points).tolist() == [0, 0, 1, 1, 0, 1]
    points = np.column_stack([np.zeros_like(x), x])
    assert grid.bin_index(points).tolist() == [0, 0, 2, 2, 0, 2]


def test_cells_run_x_fastest():
    grid = Grid.over((0, 3), (0, 2), (3, 2))
    cells = grid.cells()
    assert grid.shape == (3, 2) and len(cells) == 6
    assert cells["xmin"].tolist() == [0, 1, 2, 0, 1, 2]
    assert cells["ymin"].tolist() == [0, 0, 0, 1, 1, 1]
    # The bin of a point is the row of the cell that contains it.
    k = grid.bin_index(np.array([[2.5, 1.5]]))[0]
    row = cells.iloc[k]
    assert row.xmin < 2.5 <= row.xmax and row.ymin < 1.5 <= row.ymax


def test_bin_counts_by_group_keep_every_point():
    rng = np.random.default_rng(3)
    points = rng.normal(size=(500, 2)) * 3  # many points outside the frame: clamped, not dropped
    codes = rng.integers(0, 3, size=500)
    counts = bin_counts(points, Grid.over((-1, 1), (-1, 1), (4, 4)), codes, 3)
    assert counts.shape == (3, 16)
    assert counts.sum() == 500
    assert counts.sum(axis=1).tolist() == np.bincount(codes, minlength=3).tolist()


def test_histogram_frame_columns_and_groups():
    grid = Grid.over((0, 1), (0, 1), (2, 2))
    prob = np.array([[0.5, 0.5, 0, 0], [0, 0, 0.25, 0.75]])
    frame = histogram_frame(grid, prob, ["a", "b"])
    assert list(frame.columns) == ["xmin", "xmax", "ymin", "ymax", "prob", "group"]
    assert frame.groupby("group", observed=True)["prob"].sum().tolist() == [1.0, 1.0]
    assert list(histogram_frame(grid, prob[:1]).columns) == ["xmin", "xmax", "ymin", "ymax", "prob"]


# -------------------------------------------------------------------------- bins rule
def test_default_bins_rule_uses_public_quantities():
    sigma = gaussian_sigma(math.sqrt(2), 0.75, 2.5e-6)
    assert default_bins(5000, ("add",), 0.75, 2.5e-6) == round(math.sqrt(5000 / (2.5 * sigma)))
    # More data or more budget never gives fewer bins; tiny data stays at the floor of 4.
    assert default_bins(50000, ("add",), 0.75, 2.5e-6) >= default_bins(5000, ("add",), 0.75, 2.5e-6)
    assert default_bins(5000, ("add",), 3.0, 2.5e-6) >= default_bins(5000, ("add",), 0.75, 2.5e-6)
    assert default_bins(10, ("add", "sparse"), 0.1, 1e-6) == 4
    assert default_bins(10 ** 9, ("add",), 10.0, 1e-3) == 64


# ------------------------------------------------------------------------ mechanisms
def test_additive_noise_has_the_calibrated_sd():
    # Counts far from 0 are never clipped, so noisy - counts is N(0, sigma^2): with 20,000
    # draws the sample sd is within ~0.5% (sd of a sample sd = sd / sqrt(2 x 20000)); 3% is 6 s.e.
    counts = np.full((1, 20000), 1e6)
    sigma = gaussian_sigma(math.sqrt(2), 1.0, 1e-5)
    release = additive_histogram(counts, 1.0, 1e-5, np.random.default_rng(0))
    noisy = release.prob * release.totals[:, None]
    assert release.noise_scale == pytest.approx(sigma)
    assert np.std(noisy - counts) == pytest.approx(sigma, rel=0.03)


def test_sparse_keeps_no_empty_cell_and_uses_the_threshold():
    # Empty cells get no noise and are never kept; cells at exactly the threshold are kept with
    # probability 1/2 (Laplace is symmetric): over 4000 cells the kept share is 0.5 +/- 0.008 (sd),
    # so +/- 0.05 is > 6 s.d.
    eps, delta = 1.0, 1e-5
    threshold = 1 + 2 * math.log(2 / delta) / eps
    counts = np.concatenate([np.zeros(4000), np.full(4000, threshold)])[None, :]
    release = sparse_histogram(counts, eps, delta, np.random.default_rng(1))
    assert release.threshold == pytest.approx(threshold)
    assert release.noise_scale == pytest.approx(2 / eps)
    assert (release.prob[0, :4000] == 0).all()
    assert (release.prob[0, 4000:] > 0).mean() == pytest.approx(0.5, abs=0.05)


def test_sparse_singleton_is_kept_with_probability_delta_over_4():
    # A count of 1 passes with probability P(Lap(2/eps) >= t - 1) = delta/4 (the delta term of
    # the stability argument). With delta = 0.4 that is 0.1: over 20,000 cells sd 0.002.
    counts = np.ones((1, 20000))
    release = sparse_histogram(counts, 1.0, 0.4, np.random.default_rng(2))
    assert (release.prob[0] > 0).mean() == pytest.approx(0.1, abs=0.01)


def test_private_histograms_split_the_budget_and_record_it():
    ledger = Ledger(2.0, 2e-5)
    counts = np.array([[100.0, 0, 50, 0], [0, 80, 0, 10]])
    out = private_histograms(counts, ("sparse", "add"), 2.0, 2e-5, np.random.default_rng(0),
                             ledger=ledger)
    assert list(out) == ["add", "sparse"]  # result order is fixed, whatever the request order
    assert [r.eps for r in ledger] == [1.0, 1.0] and ledger.spent_delta == pytest.approx(2e-5)
    assert [r.sensitivity for r in ledger] == [pytest.approx(math.sqrt(2)), 2.0]
    for release in out.values():
        assert release.prob.shape == (2, 4)
        assert np.allclose(release.prob.sum(axis=1), 1.0)


def test_empty_histogram_warns_and_gives_zeros():
    counts = np.array([[1.0, 0, 0, 0]])
    with pytest.warns(UserWarning, match="kept no mass"):
        out = private_histograms(counts, ("sparse",), 0.5, 1e-6, np.random.default_rng(0))
    assert (out["sparse"].prob == 0).all() and out["sparse"].empty_groups == (0,)


# ----------------------------------------------------------------------------- frame
def test_private_frame_covers_the_data_and_records_its_budget():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=(4000, 2)) * [3.0, 1.0] + [50.0, -20.0]
    ledger = Ledger(1.0, 1e-5)
    frame = private_frame(scores, 1.0, 1e-5, rng, ledger=ledger)
    inside = ((scores[:, 0] >= frame.xlim[0]) & (scores[:, 0] <= frame.xlim[1])
              & (scores[:, 1] >= frame.ylim[0]) & (scores[:, 1] <= frame.ylim[1])).mean()
    assert inside >= 0.98  # 1.2 x inflated private 0.99-quantiles of |s_j - c_j| per axis
    # The centre is near the medians (50, -20): the exponential mechanism's rank error here is
    # ~(2 / 0.25) ln(4000) ~ 66 of 4000 ranks, ~0.04 sd, so 1 unit is loose but catches a
    # missing domain shift.
    assert frame.centre == pytest.approx((50.0, -20.0), abs=1.0)
    # Fits each axis: the 0.99 quantile of |N(0, s^2)| is 2.58 s, so 1.2 x 2.58 x (3, 1) =
    # (9.3, 3.1); the search errs by a few percent of the ranks.
    assert 9.3 / 1.5 < frame.half_width < 1.5 * 9.3
    assert 3.1 / 1.5 < frame.half_height < 1.5 * 3.1
    assert ledger.spent_eps == pytest.approx(1.0) and ledger.spent_delta == 0.0  # pure DP
    assert [r.step for r in ledger] == ["frame: magnitude bound", "frame: x median",
                                        "frame: y median", "frame: radius (x)", "frame: radius (y)"]


def test_private_frame_of_constant_scores_is_not_degenerate():
    frame = private_frame(np.full((100, 2), 7.0), 1.0, 1e-5, np.random.default_rng(0))
    grid = Grid.over(frame.xlim, frame.ylim, (10, 10))
    assert np.unique(grid.x_breaks).size == 11  # distinct breaks even for a zero spread


# -------------------------------------------------------------------------- sampling
def _hist():
    grid = Grid.over((0, 4), (0, 2), (4, 2))
    prob = np.zeros(8)
    prob[[1, 6]] = [0.25, 0.75]
    return histogram_frame(grid, prob[None, :])


def test_uniform_samples_stay_in_the_drawn_bins():
    points = sample_histogram(_hist(), 2000, "uniform", 0.0, np.random.default_rng(0))
    in_bin1 = (points.pc_x.between(1, 2)) & (points.pc_y.between(0, 1))
    in_bin6 = (points.pc_x.between(2, 3)) & (points.pc_y.between(1, 2))
    assert (in_bin1 | in_bin6).all()
    # Bin 6 has probability 0.75: with 2000 draws the share is 0.75 +/- 0.01 (sd).
    assert in_bin6.mean() == pytest.approx(0.75, abs=0.05)


def test_center_samples_sit_on_bin_centres_and_jitter_scales_with_bins():
    centre = sample_histogram(_hist(), 50, "center", 0.0, np.random.default_rng(0))
    assert set(map(tuple, centre.to_numpy())) <= {(1.5, 0.5), (2.5, 1.5)}
    one_bin = _hist().assign(prob=lambda h: (h.index == 6).astype(float))  # centre (2.5, 1.5)
    jittered = sample_histogram(one_bin, 20000, "center", 0.5, np.random.default_rng(0))
    # Jitter sd = 0.5 x median bin width (1 on both axes); with 20,000 draws the sample sd is
    # within 0.5% (s.e. sd / sqrt(2n)), so 3% is 6 s.e.
    assert np.std(jittered.pc_x - 2.5) == pytest.approx(0.5, rel=0.03)
    assert np.std(jittered.pc_y - 1.5) == pytest.approx(0.5, rel=0.03)


def test_sampling_an_empty_histogram_warns():
    empty = _hist().assign(prob=0.0)
    with pytest.warns(UserWarning, match="no positive mass"):
        points = sample_histogram(empty, 10, "uniform", 0.25, np.random.default_rng(0))
    assert points.shape == (0, 2)


def test_sampling_is_reproducible():
    draw = [sample_histogram(_hist(), 30, "uniform", 0.25, np.random.default_rng(9)) for _ in range(2)]
    pd.testing.assert_frame_equal(*draw)


@pytest.mark.parametrize("weights,total,expected", [([1, 1, 1], 10, [4, 3, 3]), ([5, 3, 2], 4, [2, 1, 1]),
                                                    ([0, 0], 5, [0, 0]), ([-3, 1], 4, [0, 4])])
def test_largest_remainder_allocation(weights, total, expected):
    # The first two are the R spec's examples (r-dppca-score.md §8.4).
    assert allocate_sample_sizes(weights, total).tolist() == expected


def test_sampling_control_defaults_and_rules():
    control = SamplingControl()
    assert control.method == ("uniform",) and control.sample_size is None
    assert control.bandwidth_scale == {"uniform": 0.25}
    both = SamplingControl(("center", "uniform"), 7.0, 0.1)
    assert both.method == ("center", "uniform") and both.sample_size == 7
    assert both.bandwidth_scale == {"center": 0.1, "uniform": 0.1}
    assert SamplingControl(None).method == ("uniform",)  # None is the default, not R's "center"


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(method="unifrom"), DPPCAValueError, "`method` must be one of"),  # no silent dropping
    (dict(method=("uniform", "uniform")), DPPCAValueError, "must not repeat"),
    (dict(sample_size=0), DPPCAValueError, "`sample_size` must be an integer >= 1"),
    (dict(sample_size=2.5), DPPCAValueError, "`sample_size` must be an integer"),
    (dict(bandwidth_scale=-1), DPPCAValueError, "`bandwidth_scale` must be a finite number >= 0"),
    (dict(bandwidth_scale={"center": 0.1}), DPPCAValueError, "missing \\['uniform'\\]"),
    (dict(bandwidth_scale={"uniform": 0.1, "foo": 1}), DPPCAValueError, "unknown \\['foo'\\]"),
    (dict(bandwidth_scale="wide"), DPPCATypeError, "`bandwidth_scale` must be a number"),
])
def test_sampling_control_rejects_bad_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        SamplingControl(**kwargs)
