"""The clipped method's clip choice on heavy tails (issue 20): the histogram rule, its
post-release clipping-bias estimate, and the variance order of the private directions."""
import warnings

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca.estimators.clip_choice import (EXTEND_SD, SIGNIFICANT_SD, TAIL_LOOSE_SD, TAIL_WINDOW,
                                          choose_clips, clip_edges, dp_clip_choice, tail_bias)
from dppca.privacy.composition import GaussianGroup

EDGES = clip_edges(1.0, (-2, 6))  # [0, 1/4, 1/2, 1, 2, ..., 64]: bin b >= 1 is [e_b, 2 e_b)


def _counts(**bins):
    """Noisy counts (1, 9) with sigma = 1: bins given by their lower edge's log2 (b2=... is [4, 8))."""
    row = np.zeros(EDGES.size - 1)
    for name, value in bins.items():
        row[int(name[1:].replace("m", "-")) + 3] = value
    return row[None, :]


def test_clip_is_the_top_edge_of_the_highest_significant_bin_when_noise_is_cheap():
    noisy = _counts(b0=200, b1=100, b2=30)  # all three far above 4.5 sd
    choice = choose_clips(noisy, 1.0, EDGES, 330, 1e-4, 99.0)
    assert choice.clip[0] == 8.0 and not choice.fallback[0]
    assert choice.tail_estimate[0] == 0.0  # nothing above 8, the next octaves hold only zeros


def test_a_bin_below_the_bar_above_the_bulk_is_not_mass_unless_it_extends_the_bulk():
    bar = SIGNIFICANT_SD
    # [8, 16) at 2.5 sd continues the bulk (above EXTEND_SD): significant; [32, 64) at 4 sd is
    # isolated and below the bar: not.
    noisy = _counts(b0=200, b1=100, b2=30, b3=EXTEND_SD + 0.5, b5=bar - 0.5)
    choice = choose_clips(noisy, 1.0, EDGES, 330, 1e-4, 99.0)
    assert choice.clip[0] == 16.0
    # the bias estimate takes the bins of the TAIL_WINDOW octaves above C above TAIL_LOOSE_SD sd:
    # [16, 32) holds 0; [32, 64) (4 sd, lower edge 32 < 2^TAIL_WINDOW C) counts at its midpoint 48
    assert bar - 0.5 > TAIL_LOOSE_SD and 32 < 16 * 2 ** TAIL_WINDOW
    assert choice.tail_estimate[0] == pytest.approx((bar - 0.5) * (48 - 16) / 330)


def test_the_clip_trades_bias_against_noise():
    # A far significant bin [32, 64) of 10 values out of 330: clipping it at 4 costs about
    # 10 (48 - 8) / 330 = 1.2 in bias. With cheap noise C goes above it, with dear noise not.
    noisy = _counts(b0=200, b1=100, b2=30, b5=10)
    cheap = choose_clips(noisy * 1.0, 1.0, EDGES, 340, 1e-3, 99.0)
    dear = choose_clips(noisy * 1.0, 1.0, EDGES, 340, 1.0, 99.0)
    assert cheap.clip[0] == 64.0 and cheap.tail_estimate[0] == 0.0
    assert dear.clip[0] < 64.0
    # the bias left above the chosen clip is in the estimate (10 values at 48)
    assert dear.tail_estimate[0] >= 10 * (48 - dear.clip[0]) / 340


def test_the_tail_bias_of_choose_clips_is_tail_bias_of_its_choice():
    # choose_clips hands its significance mask to the tail bias instead of recomputing it: the
    # bounds it stores must be bitwise those tail_bias recomputes from the released counts.
    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(200):
        k, sigma = int(rng.integers(1, 5)), 10 ** rng.uniform(-1, 1)
        shape = (k, EDGES.size - 1)  # noise plus, in 40% of the bins, mass of a few tens of sd
        counts = rng.normal(0, sigma, shape) + \
            np.where(rng.random(shape) < 0.4, rng.exponential(30 * sigma, shape), 0.0)
        choice = choose_clips(counts, sigma, EDGES, int(rng.integers(5, 5000)),
                              10 ** rng.uniform(-5, 0), 99.0)
        again = tail_bias(choice)
        np.testing.assert_array_equal(choice.tail_estimate, again.estimate)
        np.testing.assert_array_equal(choice.tail_upper, again.upper)
        seen += int(np.sum(choice.tail_estimate > 0))
    assert seen > 50  # the draws leave mass above the chosen clips: the comparison is not 0 = 0


def test_a_bulk_spread_over_octaves_is_found_by_the_window():
    # No single bin reaches 4.5 sd, three adjacent ones together do (3.5 x 3 > 4.5 sqrt 3).
    noisy = _counts(b0=3.5, b1=3.5, b2=3.5)
    choice = choose_clips(noisy, 1.0, EDGES, 12, 1e-4, 99.0)
    assert choice.clip[0] == 8.0 and not choice.fallback[0]


def test_no_significant_bin_gives_the_public_fallback():
    choice = choose_clips(_counts(b0=1.0, b1=-2.0), 1.0, EDGES, 10, 1e-4, 99.0)
    assert choice.clip[0] == 99.0 and choice.fallback[0] and choice.tail_estimate[0] == 0.0


def test_dp_clip_choice_reaches_rare_huge_values():
    """Income-like column: 97% zeros, 3% at 1e4 (variance ~ 2.9e6). The former rule,
    2.4 x the 90% quantile of the pair values (0 here), clipped it all; the histogram sees the
    far bin (about 290 of 5,000 pairs, far above 4.5 noise sd at eps = 1)."""
    rng = np.random.default_rng(3)
    y = np.where(rng.random(10_000) < 0.03, 1e4, 0.0)
    w = ((y[:5000] - y[5000:]) ** 2 / 2)[:, None]
    choice = dp_clip_choice(w, float(np.var(y)), GaussianGroup(1.0, 1e-5).share(0.1), 1e-4,
                            6.5 * np.var(y), rng)
    assert choice.clip[0] >= w.max() and not choice.fallback[0]


def _income_frame(n=4000, seed=0):
    """Two Gaussian columns and a mostly-zero one (5% near 1.1e4) carrying most of the variance:
    about 190 of the 2,000 disjoint pairs hold one large value, within an octave or so."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.normal(0, 3, n), "b": rng.normal(0, 1, n),
                         "gain": np.where(rng.random(n) < 0.05, rng.uniform(1e4, 1.2e4, n), 0.0)})


def test_dp_scree_on_an_income_column_is_within_its_interval():
    frame = _income_frame()
    cov = np.cov(frame.to_numpy(), rowvar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dppca.DPAccuracyWarning)
        res = dppca.dp_scree(frame, k=3, eps=2.0, delta=1e-5, rng=1)
    v = res.directions.to_numpy()
    target = np.einsum("jl,jk,kl->l", v, cov, v)
    ci = res.conf_int()
    # The first value is the income column's variance (orders above the others): within 10%
    # (its noise sd is a few % here; the clip reaches the rare values) and inside its interval.
    assert target[0] > 1000 * target[1]
    assert abs(res.scree["clipped"].iloc[0] / target[0] - 1) < 0.1
    assert ci[("clipped", "lower")].iloc[0] <= target[0] <= ci[("clipped", "upper")].iloc[0]


def test_private_directions_are_relabelled_by_their_private_variance():
    frame = _income_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dppca.DPAccuracyWarning)
        res = dppca.dp_scree(frame, k=3, eps=2.0, delta=1e-5, rng=1)
        kept = dppca.dp_scree(frame, k=3, eps=2.0, delta=1e-5, rng=1, mono=False)
    raw = res.raw["clipped"].to_numpy()
    assert (np.diff(raw) <= 0).all()  # largest private variance first
    assert list(res.directions.columns) == ["PC1", "PC2", "PC3"]
    # the income direction (Kendall's tau is blind to scale, so g-DPPCA need not rank it first)
    assert abs(res.directions.loc["gain", "PC1"]) > 0.9
    # without mono nothing is relabelled: the same draws in g-DPPCA's order, which the
    # relabelling sorts by the private variances
    order = np.argsort(-kept.raw["clipped"].to_numpy(), kind="stable")
    np.testing.assert_array_equal(res.directions.to_numpy(), kept.directions.to_numpy()[:, order])
    np.testing.assert_array_equal(raw, kept.raw["clipped"].to_numpy()[order])


def test_both_clip_histograms_are_on_the_ledger_with_their_sensitivities():
    # gau: n = 5,000, p = 20, k = 3 < p, so the trace is released; both histograms are affordable.
    res = dppca.dp_scree(dppca.load_gau(), k=3, eps=1.0, delta=1e-5, rng=0)
    ledger = res.ledger["clipped"].to_frame().set_index("step")["sensitivity"]
    assert ledger["trace tuning: clip histogram of ||x_a - x_b||^2/2"] == pytest.approx(np.sqrt(2))
    assert ledger["clipped tuning: log2 histograms of the pair values (PC1..PCk)"] == \
        pytest.approx(np.sqrt(6))  # sqrt(2 k): two counts per component move by 1
    assert res.fits["clipped"].histogram is not None
