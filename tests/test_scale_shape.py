"""Private column scales of binary and few-valued columns (the final clip at the edge above |D|)."""
import warnings

import numpy as np
import pytest

from dppca.preprocessing import as_matrix
from dppca.preprocessing.scale_releases import octave_counts
from dppca.preprocessing.scale_shape import bulk_edges
from dppca.preprocessing.scales import SCALE_BLOCK_ROWS, private_column_scales
from dppca.privacy.composition import GaussianGroup


def _columns(n=442):
    rng = np.random.default_rng(123)
    return {"binary 0.47": (rng.random(n) < 0.47) + 1.0, "binary 0.1": (rng.random(n) < 0.1) * 1.0,
            "3 values": rng.integers(0, 3, n) * 1.0, "5 values": rng.integers(1, 6, n) * 1.0,
            "4 values, skewed": rng.choice([0.0, 1, 2, 3], n, p=[0.6, 0.25, 0.1, 0.05])}


def _design_tolerance(x):
    # With the noise off (eps = 1e6: noise sd ~1e-7 of the moments) the final clip lies above every
    # |D| (the octave edge above the largest one), so the scale is C sqrt(T) / sqrt(2), T the
    # block design's mean of D^2 / C^2 over the pairs inside random blocks of b = 16 rows: unbiased
    # for the all-pairs mean of D^2 (= 2 x the ddof-1 variance), with variance about
    # (2 / (b - 1)) Var(D^2) / n (Hoeffding, the block term; the projection term is smaller and
    # only lowers it). Relative sd of the scale: half that of T. Tolerance: 4 of those sds.
    d2 = (x[:, None] - x[None, :]) ** 2
    relative = np.sqrt(2 / (SCALE_BLOCK_ROWS - 1) * d2.var() / x.size) / d2.mean()
    return 4 * relative / 2


@pytest.mark.parametrize("name", list(_columns()))
def test_discrete_column_scale_with_the_noise_off_is_its_sample_sd(name):
    # Before the edge clip these read 1.30x, 1.23x, 1.21x, 1.09x and 1.11x the sample SD (the
    # Gaussian consistency correction at 1.37 SD_D assumes a Gaussian tail); the tolerances are
    # 1.4%-3.5%.
    columns = _columns()
    X = np.column_stack(list(columns.values()))
    j = list(columns).index(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = private_column_scales(as_matrix(X), rng=np.random.default_rng(0),
                                  noise=GaussianGroup(1e6, 1e-5).share(0.35))
    ratio = s[j] / X[:, j].std(ddof=1)
    assert abs(np.log(ratio)) <= _design_tolerance(X[:, j])


def test_gaussian_column_keeps_the_gaussian_clip_at_the_readme_budget():
    # n = 442, p = 10 at eps = 4 (the README path's scale share 0.35, the histograms' 20% of it):
    # count noise sd 18.3 against ~70 pairs in a Gaussian's largest octave; its octave profile is
    # spread over 4-5 bins, so neither the tail bound (3 x 3.5 x 18.3 / (221 v) > 3, v <= 1/4) nor the
    # two-point fit applies, and the edge rule leaves the column at c* = 1.37 SD_D.
    rng = np.random.default_rng(4)
    x = rng.normal(size=(442, 1))
    release = _readme_budget_release(x, rng)
    assert np.isnan(bulk_edges(release, np.array([0.5]), np.array([np.sqrt(2)]), 0.04, 0.04 / 0.428)).all()


def test_binary_column_gets_the_edge_clip_at_the_readme_budget():
    # The same budget, a binary column with values 0 and 1.5 (all ~110 non-zero |D| in the octave
    # [1, 2)): noise sd of the counts 18.3, so the two-point fit beats any zero-inflated Gaussian
    # by about 0.53 x 110^2 / (2 x 18.3^2) ~ 10 nats (a Gaussian's best octave holds at most ~47%
    # of its profile's squared norm) against log 100 = 4.6 needed; the edge C = 2 is 1.89 SD_D
    # (SD_D = 1.5 sqrt(1/2) = 1.06), so its reading's relative noise 0.04 x 1.89^2 / 2 = 0.071 is
    # below the Gaussian one's 0.04 / 0.428 = 0.093 (+ 0.1). Noise sd of the final moment: 0.04.
    rng = np.random.default_rng(4)
    x = (rng.random((442, 1)) < 0.47) * 1.5
    release = _readme_budget_release(x, rng)
    assert bulk_edges(release, np.array([0.0]), np.array([1.06]), 0.04, 0.04 / 0.428)[0] == 2.0


def _readme_budget_release(x, rng):
    """Release 1 of one column at the README budget (eps 4, scale share 0.35, histograms' 20%
    of it, p = 10): noisy octave counts of the 221 disjoint pairs' |D|, their sd and fit."""
    a = np.abs(x[0::2][:221] - x[1::2][:221])
    sigma = GaussianGroup(4.0, 1e-5).share(0.35 * 0.2).sigma(np.sqrt(2.0 * 10))
    counts = octave_counts(a) + rng.normal(scale=sigma, size=(1, 130))
    return {"counts": counts, "sd": sigma, "pairs": 221,
            "gauss_fit": np.array([_gauss_fit(counts, sigma)])}


def _gauss_fit(counts, sigma):
    from dppca.preprocessing.scale_releases import _octave_profiles

    profile = _octave_profiles(np.arange(-10, 10, 1 / 8))[:, 1:]
    dot, norm2 = profile @ counts[0, 1:], np.sum(profile ** 2, axis=1)
    free = np.clip(dot / norm2, 0, 221)
    return float(np.max(free * dot - free ** 2 * norm2 / 2) / sigma ** 2)
