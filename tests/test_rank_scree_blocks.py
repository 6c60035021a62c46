"""The rank scree over a block design: dask and file input, and the intervals' sampling part.

dp_scree(standardize="rank") takes dask arrays, dask DataFrames and Parquet files through the
same block design and the same one Kendall's tau release as dp_pc_dir(standardize="rank"). Its
intervals (RankBound) count the design's independent kernels (hoeffding_pairs) and take
Bernstein's linear term at the design's largest kernel weight (largest_kernel_weight): the
incomplete statistic is an average of weighted sums of independent kernels, so the same proof
covers it, with its larger variance than the complete statistic's.
"""
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCAValueError, dp_pc_dir, dp_scree
from dppca.methods.latent_correlation import nonprivate_latent_directions
from dppca.results.rank_concentration import bernstein_radius
from dppca.results.scree_rank import RankBound
from dppca.scree_rank import rank_scree_plan
from dppca.stats.elementwise_kendall_blocks import block_kendall_tau_matrix
from dppca.stats.elementwise_kendall_blocks_design import (block_design_sd, hoeffding_pairs,
                                                          largest_kernel_weight)
from dppca.stats.pair_design import block_design

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

#: Equicorrelated latent correlation (rho 0.5, p = 5): eigenvalues 3.0 and 0.5 (four times).
P, RHO = 5, 0.5
LATENT = RHO * np.ones((P, P)) + (1 - RHO) * np.eye(P)
TRUE_VALUES = np.array([1 + (P - 1) * RHO] + [1 - RHO] * (P - 1))


def skewed(n, seed):
    """Gaussian-copula rows with log-normal margins: the latent correlation is LATENT."""
    rng = np.random.default_rng(seed)
    return np.exp(rng.multivariate_normal(np.zeros(P), LATENT, size=n))


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # accuracy warnings: not what these tests pin
        return function(*args, **kwargs)


# ----------------------------------------------------------------------------- dask and files

def test_dask_scree_is_the_in_memory_block_release_bitwise():
    # the same design (drawn from the seed), the same exact integer counts chunk by chunk, the
    # same noise: the same values, intervals and ledger as the data in memory (declared
    # complete, missing=0.0: no private medians before the release)
    x = skewed(3_000, 0)
    arguments = dict(standardize="rank", eps=1.0, delta=1e-5, pairs_per_row=7, rng=4,
                     missing=0.0)
    memory = quiet(dp_scree, x, 3, **arguments)
    lazy = quiet(dp_scree, da.from_array(x, chunks=(700, P)), 3, **arguments)
    np.testing.assert_array_equal(lazy.raw["rank"].to_numpy(), memory.raw["rank"].to_numpy())
    pd.testing.assert_frame_equal(lazy.conf_int(), memory.conf_int())
    pd.testing.assert_frame_equal(lazy.ledger["rank"].to_frame(), memory.ledger["rank"].to_frame())


def test_dask_scree_shares_the_directions_release_of_dp_pc_dir():
    # one Kendall's tau release: dp_pc_dir on the same dask input, seed and design gives the
    # same directions the scree carries
    x = da.from_array(skewed(2_000, 1), chunks=(500, P))
    scree = quiet(dp_scree, x, 2, standardize="rank", eps=1.0, delta=1e-5, rng=9, missing=0.0)
    directions = quiet(dp_pc_dir, x, 2, standardize="rank", eps=1.0, delta=1e-5, rng=9,
                       missing=0.0)
    np.testing.assert_array_equal(scree.directions.to_numpy(), directions.directions.to_numpy())
    assert len(scree.ledger["rank"]) == 1
    assert "block design" in scree.ledger["rank"].to_frame()["step"].iloc[0]


def test_parquet_file_and_dask_dataframe_input(tmp_path):
    frame = pd.DataFrame(skewed(1_500, 2), columns=list("abcde"))
    path = tmp_path / "data.parquet"
    frame.to_parquet(path)
    arguments = dict(standardize="rank", eps=2.0, delta=1e-5, rng=3)
    from_file = quiet(dp_scree, str(path), 2, **arguments)
    from_frame = quiet(dp_scree, dd.from_pandas(frame, npartitions=4), 2, **arguments)
    np.testing.assert_array_equal(from_file.raw["rank"].to_numpy(),
                                  from_frame.raw["rank"].to_numpy())
    assert list(from_file.directions.index) == list("abcde")


def test_dask_refusals():
    x = da.from_array(skewed(200, 0), chunks=(50, P))
    with pytest.raises(DPPCAValueError, match="nonprivate=True"):
        dp_scree(x, 2, standardize="rank", eps=1.0, delta=1e-5, nonprivate=True)
    with pytest.raises(DPPCAValueError, match="at least 4 rows"):
        dp_scree(da.from_array(np.ones((3, 2)), chunks=(2, 2)), 1, standardize="rank", eps=1.0,
                 delta=1e-5)


def test_dask_intervals_cover_the_population_and_nonprivate_latent_eigenvalues():
    # Each run's intervals hold both targets with probability >= 0.95 by the bound (for the
    # population values; the complete statistic's NON-PRIVATE values are within its own
    # sampling error of them, far inside the half-width at n = 4,000). As in test_rank_scree.py
    # the test asks for every run because the bound is conservative: the realised error is
    # asserted below half the half-width, so a miss would mean a wrong constant. r = 4 at
    # n = 4,004: 800 blocks, 796 of 5 rows and 4 of 6, so the largest kernel weight
    # (5 / (2 n)) exceeds 1 / m.
    n = 4_004
    ratios = []
    for seed in range(8):
        x = skewed(n, 10 + seed)
        reference = nonprivate_latent_directions(x, P).spectrum
        result = quiet(dp_scree, da.from_array(x, chunks=(1_000, P)), P, standardize="rank",
                       eps=2.0, delta=1e-5, pairs_per_row=4, rng=seed)
        bound = result.fits["rank"].bound
        assert bound.largest_weight > 1 / (bound.n // 2)
        ci = result.conf_int()
        lower, upper = ci[("rank", "lower")].to_numpy(), ci[("rank", "upper")].to_numpy()
        for target in (TRUE_VALUES, reference):
            assert ((lower <= target) & (target <= upper)).all()
        errors = np.abs(result.raw["rank"].to_numpy() - TRUE_VALUES)
        ratios.append(errors.max() / bound.halfwidth())
    assert max(ratios) < 0.5


# ----------------------------------------------------------------------------- the bound's design terms

@pytest.mark.parametrize("n, r", [(1_000, 3), (1_050, 2), (999, 4), (10_007, 15)])
def test_largest_kernel_weight_is_the_design_weights_maximum(n, r):
    # one weight |B| / (n floor(|B| / 2)) per kernel of the decomposition; their squares sum
    # to 1 / m (hoeffding_pairs) and their maximum is never below 1 / m (sum of weights 1)
    design = block_design(n, r, np.random.default_rng(0))
    sizes = np.diff(design.bounds)
    weights = np.repeat(sizes / (n * (sizes // 2)), sizes // 2)
    blocks = len(design.bounds) - 1
    assert largest_kernel_weight(n, blocks) == pytest.approx(weights.max(), rel=1e-12)
    assert largest_kernel_weight(n, blocks) >= 1 / hoeffding_pairs(n, blocks) * (1 - 1e-12)
    assert largest_kernel_weight(n) == 1 / (n // 2)


def test_bernstein_radius_with_a_larger_weight_is_wider():
    base = bernstein_radius(1.0, 3.0, 500, 0.05)
    assert bernstein_radius(1.0, 3.0, 500, 0.05, largest_weight=1 / 500) == base
    assert bernstein_radius(1.0, 3.0, 500, 0.05, largest_weight=1.5 / 500) > base
    # a weight below 1 / m is impossible (the weights sum to 1): it is raised to 1 / m
    assert bernstein_radius(1.0, 3.0, 500, 0.05, largest_weight=0.5 / 500) == base


def test_block_statistic_error_stays_within_the_sampling_radius():
    # Blocks of 3 rows (r = 2): m = n / 3 independent kernels instead of n / 2, and the
    # incomplete statistic's sd is visibly larger than the complete one's (independent columns:
    # Var T_D = 4 zeta_1 / n + 2 (zeta_2 - 2 zeta_1) / (n r), zeta_1 = 1 / 9, zeta_2 = 1, so
    # sd ratio sqrt(1 + (7 / 9) / (4 / 9)) = 1.66 at r = 2). Over 300 data sets and designs
    # the off-diagonal error's 99th percentile must stay below the radius (at level <= 0.05 /
    # its own share), which the design's m and weight give and the complete statistic's m
    # would not cover as widely.
    n, p, alpha = 300, 3, 0.05
    rng = np.random.default_rng(0)
    off = ~np.eye(p, dtype=bool)
    errors = []
    for _ in range(300):
        x = rng.standard_normal((n, p))
        tau = block_kendall_tau_matrix(x, block_design(n, 2, rng))
        errors.append(np.linalg.norm(tau[off]))  # population tau_off = 0, t = 1
    blocks = n // 3
    rows = 2 * int(hoeffding_pairs(n, blocks))
    assert rows == 2 * (n // 3)
    design_bound = RankBound(rows, p, 0.0, 1.0, 0.0, 0.0,
                             largest_weight=largest_kernel_weight(n, blocks))
    complete_bound = RankBound(n, p, 0.0, 1.0, 0.0, 0.0)
    assert design_bound.sampling_radius(alpha) > complete_bound.sampling_radius(alpha)
    assert np.quantile(errors, 0.99) < design_bound.sampling_radius(alpha)
    # the measured sd ratio against the complete statistic's (same data law)
    complete = [np.linalg.norm(block_kendall_tau_matrix(x, block_design(n, n - 1, rng))[off])
                for x in (rng.standard_normal((n, p)) for _ in range(300))]
    ratio = math.sqrt(np.mean(np.square(errors)) / np.mean(np.square(complete)))
    assert 1.4 < ratio < 1.9  # 1.66 by the variance formula; 300 draws: about +-8%


def test_plan_counts_the_design():
    # a dask call's design (blocks at any n) gives a wider pre-release half-width than the
    # complete statistic at the same n: its extra sampling sd enters the directions' row and
    # its m and weight the values' row
    complete = rank_scree_plan(4_000, 5, 2, 1.0, 1e-5, pairs_per_row=None)
    blocks = rank_scree_plan(4_000, 5, 2, 1.0, 1e-5, pairs_per_row=2)
    for before, after in zip(complete.steps, blocks.steps):
        assert after.predicted >= before.predicted
    assert blocks.steps[0].predicted > complete.steps[0].predicted
    assert block_design_sd(4_000, 2) == math.sqrt(2 / 8_000)
