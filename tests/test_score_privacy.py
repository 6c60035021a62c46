"""Sensitivities behind dp_score, checked by empirical neighbour searches (replace one row by
outliers, duplicates, random points, another group), plus the smooth-sensitivity and
unbounded-quantile mechanisms."""
import math

import numpy as np
import pytest

from dppca import DPPCAValueError, Ledger
from dppca.estimators.histograms import Grid, bin_counts
from dppca.privacy import smooth_sensitivity_quantile
from dppca.privacy.smooth import quantile_smooth_sensitivity
from dppca.privacy.quantiles import UNBOUNDED_GRID, unbounded_quantile


def _neighbours(data, rng, extra_rows):
    """Replace-one neighbours: each row replaced by outliers, a duplicate of another row, random
    points and the given extra rows."""
    n = data.shape[0]
    scale = np.abs(data).max() + 1
    candidates = [np.full(data.shape[1:], 1e6 * scale), np.full(data.shape[1:], -1e6 * scale),
                  *extra_rows]
    for i in rng.choice(n, size=min(n, 25), replace=False):
        for new in candidates + [data[rng.integers(n)], rng.normal(size=data.shape[1:]) * scale]:
            other = data.copy()
            other[i] = new
            yield other


# ------------------------------------------------------------------ histogram counts
def test_histogram_counts_move_by_at_most_two_cells_by_one():
    # Claimed: L1 sensitivity 2, L2 sqrt(2), over all (group, bin) cells, and a cell that is
    # non-zero in only one neighbour holds a count of 1 (at most 2 such cells).
    rng = np.random.default_rng(11)
    n, groups = 120, 3
    rows = np.column_stack([rng.normal(size=(n, 2)), rng.integers(0, groups, n)])
    grid = Grid.over((-2, 2), (-2, 2), (5, 5))

    def counts(data):
        return bin_counts(data[:, :2], grid, data[:, 2].astype(int), groups).ravel()

    base = counts(rows)
    worst_l1 = 0.0
    for other in _neighbours(rows, rng, [np.array([0.0, 0.0, g]) for g in range(groups)]):
        other[:, 2] = np.clip(np.round(np.abs(other[:, 2])), 0, groups - 1)
        diff = counts(other) - base
        assert np.abs(diff).sum() <= 2 and np.linalg.norm(diff) <= math.sqrt(2) + 1e-12
        only_one = (base > 0) != (counts(other) > 0)
        assert only_one.sum() <= 2 and np.maximum(base, counts(other))[only_one].max(initial=1) == 1
        worst_l1 = max(worst_l1, np.abs(diff).sum())
    assert worst_l1 == 2  # the bound is attained


# ------------------------------------------------------------------ unbounded quantile
def test_unbounded_quantile_counts_are_monotone_with_sensitivity_one():
    # The sparse-vector proof needs: every count #{x <= t_i} moves by at most 1, all in the same
    # direction, when one value is replaced.
    rng = np.random.default_rng(12)
    values = np.abs(rng.standard_cauchy(size=200))
    grid = UNBOUNDED_GRID[::7]
    base = np.searchsorted(np.sort(values), grid, side="right")
    attained = 0
    for other in _neighbours(values, rng, [np.array(0.0), np.array(2.0 ** -70)]):
        diff = np.searchsorted(np.sort(other), grid, side="right") - base
        assert np.abs(diff).max() <= 1
        assert not ((diff > 0).any() and (diff < 0).any())
        attained = max(attained, np.abs(diff).max())
    assert attained == 1


def test_unbounded_quantile_is_accurate_and_scale_free():
    # With n = 20,000 and eps = 1 the stopping rank is within a few hundred of q n (the noise
    # is O(log(#candidates)/eps) ranks), so the answer lies between the 0.97 and 0.995 quantiles
    # at every scale; the grid ratio adds at most 1%.
    rng = np.random.default_rng(13)
    for scale in (1e-6, 1.0, 1e6):
        x = np.abs(rng.normal(size=20000)) * scale
        answer = unbounded_quantile(x, 0.99, 1.0, rng)
        assert np.quantile(x, 0.97) <= answer <= 1.01 * np.quantile(x, 0.995)


def test_unbounded_quantile_records_a_pure_release():
    ledger = Ledger(1.0, 0.0 + 1e-9)
    unbounded_quantile(np.arange(10.0), 0.5, 0.5, np.random.default_rng(0), ledger=ledger, step="r")
    (release,) = ledger.releases
    assert (release.eps, release.delta, release.sensitivity) == (0.5, 0.0, 1.0)


# ----------------------------------------------------------------- smooth sensitivity
def _brute_smooth_sensitivity(xs, r, beta, lower, upper):
    """The definition, O(n^2): max_k exp(-beta k) max_t x_(r+t) - x_(r+t-k-1), padded order stats."""
    n = xs.size

    def x(i):
        return lower if i < 1 else upper if i > n else xs[i - 1]

    return max(math.exp(-beta * k) * max(x(r + t) - x(r + t - k - 1) for t in range(k + 2))
               for k in range(n + 2))


@pytest.mark.parametrize("seed", range(12))
def test_smooth_sensitivity_matches_its_definition(seed):
    # The O(m) convex-hull evaluation equals the O(m^2) definition, with ties, every rank,
    # small and large beta.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    xs = np.sort(np.round(rng.normal(size=n), int(rng.integers(0, 3))))  # with ties
    r, beta = int(rng.integers(1, n + 1)), float(10 ** rng.uniform(-3, 0.5))
    assert quantile_smooth_sensitivity(xs, r, beta, -4.0, 4.0) == pytest.approx(
        _brute_smooth_sensitivity(xs, r, beta, -4.0, 4.0), rel=1e-12)


@pytest.mark.parametrize("beta", [0.05, 2.0])
def test_smooth_sensitivity_bounds_local_changes_and_is_beta_smooth(beta):
    # Neighbour search: the median moves by at most S*(x) (it bounds the local sensitivity), the
    # local sensitivity is attained, and S*(x) <= e^beta S*(y) for every neighbour y (smoothness).
    rng = np.random.default_rng(8)
    lower, upper = -10.0, 10.0
    data = np.round(rng.normal(size=61), 1)
    r = 31

    def stats(values):
        xs = np.sort(np.clip(values, lower, upper))
        return xs[r - 1], quantile_smooth_sensitivity(xs, r, beta, lower, upper)

    median, s_star = stats(data)
    xs = np.sort(data)
    local = max(xs[r] - xs[r - 1], xs[r - 1] - xs[r - 2])
    worst = 0.0
    for other in _neighbours(data, rng, [np.array(median), np.array(upper), np.array(lower)]):
        other_median, other_s = stats(other)
        assert abs(other_median - median) <= s_star + 1e-12
        assert s_star <= math.exp(beta) * other_s * (1 + 1e-12)
        assert other_s <= math.exp(beta) * s_star * (1 + 1e-12)
        worst = max(worst, abs(other_median - median))
    assert worst == pytest.approx(local)


def test_smooth_sensitivity_quantile_noise_has_the_claimed_scale():
    # Laplace(0, 2 S*/eps) noise: its mean absolute deviation is 2 S*/eps; 4000 draws give it
    # within ~1.6% (sd of |Laplace| = its mean), so 8% is 5 s.e. beta uses ln(2/delta).
    rng = np.random.default_rng(9)
    x = rng.normal(size=501)
    eps, delta = 0.5, 1e-4
    beta = eps / (2 * math.log(2 / delta))
    s_star = quantile_smooth_sensitivity(np.sort(x), 251, beta, -20.0, 20.0)
    draws = np.array([smooth_sensitivity_quantile(x, 0.5, eps, delta, rng, -20.0, 20.0)
                      for _ in range(4000)])
    assert np.mean(np.abs(draws - np.median(x))) == pytest.approx(2 * s_star / eps, rel=0.08)


def test_smooth_sensitivity_ledger_hides_the_data_dependent_scale():
    ledger = Ledger(1.0, 1e-5)
    smooth_sensitivity_quantile(np.arange(11.0), 0.5, 1.0, 1e-5, np.random.default_rng(0), 0, 20,
                                ledger=ledger)
    (release,) = ledger.releases
    assert math.isnan(release.sensitivity) and math.isnan(release.noise_scale)
    assert (release.eps, release.delta) == (1.0, 1e-5)


def test_smooth_sensitivity_is_positive_on_constant_data():
    # R errors here (Laplace scale 0, its Observation B5); the padded domain keeps S* > 0.
    assert quantile_smooth_sensitivity(np.zeros(50000), 25000, 0.001, -1.0, 1.0) > 0


@pytest.mark.parametrize("kwargs,message", [
    (dict(x=[]), "non-empty"), (dict(x=[1.0, np.nan]), "NaN or inf"), (dict(q=1.0), "`q`"),
    (dict(eps=0.0), "`eps`"), (dict(delta=1.0), "`delta`"), (dict(lower=3.0), "`lower` must be smaller"),
])
def test_smooth_sensitivity_quantile_rejects_bad_input(kwargs, message):
    args = dict(x=[1.0, 2.0], q=0.5, eps=1.0, delta=1e-5, rng=np.random.default_rng(0),
                lower=0.0, upper=3.0) | kwargs
    with pytest.raises(DPPCAValueError, match=message):
        smooth_sensitivity_quantile(**args)
