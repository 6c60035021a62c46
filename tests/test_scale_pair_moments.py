"""The private scales' clipped moments over a random block design (an incomplete U-statistic):
against a direct O(n^2) computation, their sensitivity on extreme neighbours, their variance."""
from fractions import Fraction
from itertools import combinations

import numpy as np

from dppca.preprocessing import random_pairs
from dppca.preprocessing.scale_releases import mean_of_clipped, moment_sensitivity
from dppca.preprocessing.scales import SCALE_BLOCK_ROWS, SCALE_EFFICIENT_CLIP
from dppca.stats.pair_design import block_design
from dppca.stats.paired_differences import abs_differences, block_pairs

#: The rounding slack proved in moment_sensitivity's docstring: the computed statistic is
#: within 2^-42 of the exact one (of the computed terms).
SLACK = Fraction(2) ** -42


def _direct(X, blocks, clip):
    """sum over blocks B of (|B| / n) x mean over the pairs i < j in B of min(|x_i - x_j|, C)^2 /
    C^2, exactly (rationals) from the double terms, by a double loop over the pairs."""
    total = [Fraction(0)] * X.shape[1]
    for rows in blocks:
        pairs = list(combinations(rows, 2))
        for j in range(X.shape[1]):
            terms = [Fraction(float((min(abs(X[a, j] - X[b, j]), clip[j]) / clip[j]) ** 2))
                     for a, b in pairs]
            total[j] += Fraction(len(rows), X.shape[0]) * sum(terms) / len(pairs)
    return total


def _close(got, exact) -> bool:
    return all(abs(Fraction(float(g)) - e) <= SLACK for g, e in zip(got, exact))


def test_complete_design_equals_the_mean_over_all_pairs():
    # One block of all n rows: the complete U-statistic, whatever the permutation.
    rng = np.random.default_rng(0)
    X = rng.standard_t(3, size=(23, 2)) * [1.0, 1e3]
    clip = np.array([1.5, 900.0])
    got = mean_of_clipped(block_pairs(X, X.shape[0], np.random.default_rng(1)), clip)
    assert _close(got, _direct(X, [list(range(X.shape[0]))], clip))


def test_block_statistic_equals_the_direct_weighted_sum_over_unequal_blocks():
    # n = 37 with blocks of ~16 rows: blocks of 18 and 19 rows, weights 18/37 and 19/37.
    X = np.random.default_rng(2).normal(size=(37, 3)) * [1.0, 0.01, 50.0]
    clip = np.array([1.0, 0.03, 40.0])
    design = block_design(37, SCALE_BLOCK_ROWS - 1, np.random.default_rng(3))
    blocks = [design.order[a:b].tolist() for a, b in zip(design.bounds[:-1], design.bounds[1:])]
    assert sorted(map(len, blocks)) == [18, 19]
    got = mean_of_clipped(block_pairs(X, SCALE_BLOCK_ROWS, np.random.default_rng(3)), clip)
    assert _close(got, _direct(X, blocks, clip))


def test_sensitivity_bound_holds_on_extreme_neighbours_and_is_nearly_reached():
    # Heavy-tailed data, one row replaced by 0, +-huge values (differences overflow and are
    # clamped) or another row, the design fixed (public): the L2 change of the p statistics is
    # at most moment_sensitivity(n, p) = sqrt(p) (2/n + 2^-41). A row moved far from every other
    # makes all its pairs' terms 1, so the worst change is a large part of the bound (a bound
    # that were too loose by 2x would show here).
    rng = np.random.default_rng(4)
    n, p = 41, 3
    X = rng.standard_t(2, size=(n, p)) * [1, 50, 0.01]
    clip = np.array([20.0, 1000.0, 0.2])  # ~20x the spread: most terms near 0

    def stat(Y):
        return mean_of_clipped(block_pairs(Y, SCALE_BLOCK_ROWS, np.random.default_rng(9)), clip)

    base, worst = stat(X), 0.0
    for i in range(n):
        for new in (np.zeros(p), 1e300 * np.ones(p), X[(i + 7) % n], -1e308 * np.ones(p)):
            Y = X.copy()
            Y[i] = new
            worst = max(worst, float(np.linalg.norm(stat(Y) - base)))
    bound = moment_sensitivity(n, p)
    assert 0.5 * bound < worst <= bound


def test_block_statistic_has_less_than_half_the_disjoint_pairs_variance_at_the_gaussian():
    # Gaussian columns, clip c* SD_D: by quadrature (Hoeffding's decomposition, zeta_1 = 0.0250,
    # zeta_2 = 0.137) the block design's variance is (4 (b-2)/(b-1) zeta_1 + 2/(b-1) zeta_2) / n
    # against 2 zeta_2 / n for n/2 disjoint pairs: ratio 0.41 at b = 16. With 300 replicates each
    # variance estimate has relative sd sqrt(2/299) = 0.08, the log-ratio sd 0.12: the ratio lies
    # in (0.41 e^-0.45, 0.41 e^0.35) = (0.26, 0.58) but for a 3-4 sd event.
    n, reps = 200, 300
    clip = np.array([SCALE_EFFICIENT_CLIP * np.sqrt(2.0)])
    blocks, disjoint = [], []
    for seed in range(reps):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, 1))
        blocks.append(mean_of_clipped(block_pairs(X, SCALE_BLOCK_ROWS, rng), clip)[0])
        terms = (np.minimum(abs_differences(X, *random_pairs(n, rng)), clip) / clip) ** 2
        disjoint.append(terms.mean())
    ratio = np.var(blocks, ddof=1) / np.var(disjoint, ddof=1)
    assert 0.26 < ratio < 0.58


def test_upper_rung_needs_an_excess_of_four_noise_sd_over_rung_zeros_fit():
    # The rule of _chosen_rung: rung k (k >= 1) is read only when rungs 1..k all exceed the
    # Gaussian prediction r(C_k / s_0) by SCALE_RUNG_EXCESS_SD = 4 noise sd. Columns: (a) every
    # rung at its prediction + 3.9 sd (a Gaussian column's noise): rung 0; (b) rung 1 at +4.1
    # sd, rung 2 at its prediction: rung 1; (c) rungs 1-4 all at +5 sd: rung 4; (d) rung 2 in
    # excess but not rung 1: rung 0.
    from dppca.preprocessing.scales import SCALE_RUNG_EXCESS_SD, _chosen_rung, clip_ratio

    assert SCALE_RUNG_EXCESS_SD == 4.0
    log_s0 = np.zeros(4)
    clip = SCALE_EFFICIENT_CLIP * 4.0 ** np.arange(5)[:, None] * np.ones((1, 4))
    sd = np.full((5, 4), 0.01)
    excess = np.array([[0, 3.9, 3.9, 3.9, 3.9], [0, 4.1, 0, 0, 0], [0, 5, 5, 5, 5], [0, 0, 5, 5, 5]]).T
    value = clip_ratio(clip) + excess * sd
    rung = _chosen_rung({"value": value, "clip": clip, "sd": sd}, log_s0)
    assert rung.tolist() == [0, 1, 4, 0]
