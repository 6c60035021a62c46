"""The rank path's pair design: the auto rule, the released sensitivity, dask, one DPPCA release.

The block design (an incomplete U-statistic over a random partition of the rows,
dppca/stats/elementwise_kendall_blocks.py) estimates the same population tau as the complete
statistic at the same sensitivity 2 p / n; these tests pin how the public entry points choose
and report it.
"""
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCA, DPPCAValueError, dp_pc_dir, dp_scree
from dppca.methods.rank_sensitivity import rank_tau_sensitivity
from dppca.metrics import sin_theta
from dppca.privacy import gaussian_sigma
from dppca.stats.elementwise_kendall_blocks import block_tau_sensitivity
from dppca.stats.elementwise_kendall_blocks_design import (RANK_COMPLETE_WORK,
                                                          RANK_MAX_PAIRS_PER_ROW,
                                                          RANK_MIN_PAIRS_PER_ROW, hoeffding_pairs,
                                                          rank_pairs_per_row_rule)
from dppca.stats.pair_design import block_design

TAU_STEP = "directions: elementwise Kendall's tau (j <= k)"


def gaussian(n, p, seed=0, rho=0.6):
    """Equicorrelated Gaussian rows (one strong component: gap p rho between PC1 and the rest)."""
    rng = np.random.default_rng(seed)
    return math.sqrt(rho) * rng.standard_normal((n, 1)) + math.sqrt(1 - rho) * rng.standard_normal((n, p))


def quiet(function, *args, **kwargs):
    """The call without its warnings; the data are complete, declared so (missing=0.0: no
    present-row counts, the releases these tests pin)."""
    if function is not DPPCA and getattr(function, "__name__", "") != "fit":
        kwargs.setdefault("missing", 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ----------------------------------------------------------------------------- the auto rule

@pytest.mark.parametrize("n, p, expected", [
    (5_000, 20, None),         # 210 * 5e3 * log2(5e3) = 1.3e7 <= 5e7: complete
    (16_000, 20, None),        # 4.7e7: still complete
    (17_000, 20, 511),         # 5.0e7 < 210 * 1.7e4 * 14.05: blocks, the budget's r capped at 511
    (100_000, 20, 109),        # floor(3e9 / (1e5 * 274))
    (1_000_000, 20, 15),       # the budget's 10 is below the floor 15
    (10_000_000, 20, 15),
    (100_000, 5, None),        # 15 * 1e5 * 16.6 = 2.5e7: complete
    (1_000_000, 5, 37),        # floor(3e9 / (1e6 * 79))
])
def test_auto_rule_reads_public_n_and_p(n, p, expected):
    assert rank_pairs_per_row_rule(n, p) == expected


def test_auto_rule_bounds_and_lazy_input():
    entries = 20 * 21 / 2
    assert entries * 16_000 * math.log2(16_000) <= RANK_COMPLETE_WORK \
        < entries * 17_000 * math.log2(17_000)
    for n in (17_000, 10 ** 5, 10 ** 6, 10 ** 8):
        assert RANK_MIN_PAIRS_PER_ROW <= rank_pairs_per_row_rule(n, 20) <= RANK_MAX_PAIRS_PER_ROW
    # dask input: always blocks (the complete statistic needs every row in memory), at most n - 1
    assert rank_pairs_per_row_rule(5_000, 20, lazy=True) == 511
    assert rank_pairs_per_row_rule(100, 20, lazy=True) == 99


def test_auto_design_is_the_same_for_any_data_of_the_same_shape():
    # the choice and the ledger row depend on n and p only: data with other values, ties and
    # scales give the same step, sensitivity and noise
    frames = [gaussian(17_000, 20, seed=1), np.round(gaussian(17_000, 20, seed=2), 1) * 1e6]
    ledgers = [quiet(dp_pc_dir, x, 2, standardize="rank", eps=1, delta=1e-5, rng=0).ledger.to_frame()
               for x in frames]
    pd.testing.assert_frame_equal(ledgers[0], ledgers[1])


# ----------------------------------------------------------------------------- the release

def test_complete_design_below_the_threshold_releases_at_the_complete_sensitivity():
    result = quiet(dp_pc_dir, gaussian(2_000, 4), 2, standardize="rank", eps=1, delta=1e-5, rng=0)
    row = result.ledger.to_frame().iloc[0]
    assert row["step"] == TAU_STEP
    assert row["sensitivity"] == rank_tau_sensitivity(2_000, 4)
    assert "complete U-statistic (all 1,999,000 pairs)" in result.summary().as_text()


def test_block_design_above_the_threshold_is_named_with_its_sensitivity():
    n, p = 17_000, 20
    result = quiet(dp_pc_dir, gaussian(n, p), 2, standardize="rank", eps=1, delta=1e-5, rng=0)
    row = result.ledger.to_frame().iloc[0]
    # r = 511 asked; 17,000 // 512 = 33 blocks of 515 rows give every row 514 pairs
    assert block_design(n, 511, np.random.default_rng(0)).pairs_per_row == 514
    assert row["step"] == f"{TAU_STEP}, block design (>= 514 pairs per row)"
    # released at the block statistic's own sensitivity (2 p / n, its own rounding slack)
    assert row["sensitivity"] == block_tau_sensitivity(n, p) == result.sensitivity
    assert row["sensitivity"] != rank_tau_sensitivity(n, p)
    # the noise sd the summary and the accuracy model read is the one released with; the
    # samplers' snapping may raise the calibrated sigma by a relative 2^-46 at most
    calibrated = gaussian_sigma(block_tau_sensitivity(n, p), 1, 1e-5, "analytic")
    assert result.noise_sd == row["noise_scale"]
    assert result.noise_sd == pytest.approx(calibrated, rel=1e-12)
    text = " ".join(result.summary().as_text().split())
    assert "incomplete U-statistic over a random block design, >= 514 pairs per row" in text
    assert f"L2 sensitivity {row['sensitivity']:.4g} (2 p / n)" in text


def test_block_design_keeps_the_estimand():
    # The block statistic is unbiased for the same tau: with little noise (eps 8) its directions
    # sit on the complete statistic's NON-PRIVATE ones. Per entry the extra sampling sd is at
    # most sqrt(2 / (n r)) = 6.2e-4 (n = 1e4, r = 511) and the noise sd 2.6e-3 * 4 / 8; against
    # the PC1 gap of the latent correlation (about p rho = 3) both move the subspace by < 0.01.
    x = gaussian(10_000, 5)
    result = quiet(dp_pc_dir, x, 1, standardize="rank", eps=8, delta=1e-5, rng=3,
                   design="incomplete", nonprivate=True)
    assert "block design" in result.ledger.to_frame()["step"].iloc[0]
    assert sin_theta(result.directions, result.nonprivate_directions) < 0.02


def test_pairs_per_row_and_design_are_checked_before_any_budget():
    x = gaussian(500, 3)
    with pytest.raises(DPPCAValueError, match="pairs_per_row"):
        dp_pc_dir(x, 1, standardize="rank", eps=1, delta=1e-5, design="complete",
                  pairs_per_row=5)
    with pytest.raises(DPPCAValueError, match="pairs_per_row"):
        dp_pc_dir(x, 1, standardize="rank", eps=1, delta=1e-5, pairs_per_row=500)
    with pytest.raises(DPPCAValueError, match="design"):
        dp_scree(x, 1, standardize="rank", eps=1, delta=1e-5, design="blocks")


# ----------------------------------------------------------------------------- dask

def test_dask_input_uses_the_block_design_and_matches_numpy_with_a_fixed_seed():
    dd = pytest.importorskip("dask.dataframe")
    da = pytest.importorskip("dask.array")
    x = gaussian(3_000, 4, seed=5)
    frame = pd.DataFrame(x, columns=list("abcd"))
    arguments = dict(standardize="rank", eps=1, delta=1e-5, pairs_per_row=15, rng=11)
    in_memory = quiet(dp_pc_dir, frame, 2, **arguments)
    lazy = quiet(dp_pc_dir, dd.from_pandas(frame, npartitions=3), 2, **arguments)
    # the same design (drawn from the seed), the same exact integer counts chunk by chunk, the
    # same noise: bitwise the same release
    np.testing.assert_array_equal(lazy.directions.to_numpy(), in_memory.directions.to_numpy())
    pd.testing.assert_frame_equal(lazy.ledger.to_frame(), in_memory.ledger.to_frame())
    # auto with dask input: blocks even where the data would fit the complete statistic
    auto = quiet(dp_pc_dir, da.from_array(x, chunks=(700, 4)), 2, standardize="rank", eps=1,
                 delta=1e-5, rng=11)
    r = block_design(3_000, rank_pairs_per_row_rule(3_000, 4, lazy=True), np.random.default_rng(0))
    assert auto.ledger.to_frame()["step"].iloc[0] == \
        f"{TAU_STEP}, block design (>= {r.pairs_per_row} pairs per row)"


# ----------------------------------------------------------------------------- the scree

def test_hoeffding_pairs_of_a_block_design():
    # even blocks: exactly n / 2 independent pairs; odd ones a little fewer (never more)
    assert hoeffding_pairs(1_000, 1_000 // 10) == 500.0
    assert hoeffding_pairs(1_000, None) == 500.0
    for n, r in [(1_001, 15), (17_003, 15), (999, 4)]:
        blocks = n // (r + 1)
        design = block_design(n, r, np.random.default_rng(0))
        assert len(design.bounds) - 1 == blocks  # the sizes depend on n and the block count only
        sizes = np.diff(design.bounds)
        weights = np.repeat(sizes / (n * (sizes // 2)), sizes // 2)  # one weight per kernel
        assert math.isclose(weights.sum(), 1.0, rel_tol=1e-12)
        assert hoeffding_pairs(n, blocks) == pytest.approx(1 / np.sum(weights ** 2), rel=1e-12)
        assert hoeffding_pairs(n, blocks) <= n // 2


def test_rank_scree_with_blocks_reports_the_design_and_counts_its_pairs():
    n = 4_001
    result = quiet(dp_scree, gaussian(n, 4), 2, standardize="rank", eps=1, delta=1e-5, rng=2,
                   pairs_per_row=15)
    bound = result.fits["rank"].bound
    assert bound.n == 2 * int(hoeffding_pairs(n, n // 16))
    row = result.ledger["rank"].to_frame().iloc[0]
    assert row["sensitivity"] == block_tau_sensitivity(n, 4)
    assert "random block design" in " ".join(result.summary().as_text().split())


# ----------------------------------------------------------------------------- DPPCA

def test_dppca_rank_with_explained_variance_is_one_release():
    x = gaussian(3_000, 4, seed=7)
    model = quiet(DPPCA(2, eps=2.0, delta=1e-5, standardize="rank", explained_variance=True,
                        random_state=0, missing=0.0).fit, x)
    np.testing.assert_array_equal(model.components_, model.scree_.directions.to_numpy().T)
    ledger = model.ledger_.to_frame()
    taus = ledger[ledger["step"].str.startswith(TAU_STEP)]
    assert len(taus) == 1  # one Kendall's tau release for both
    centre = ledger[ledger["step"].str.startswith("centre")]
    assert taus["eps"].iloc[0] == pytest.approx(2.0 * (1 - 0.2), rel=1e-12)
    assert model.ledger_.spent_eps == pytest.approx(2.0, rel=1e-9)
    assert taus["eps"].iloc[0] + centre["eps"].sum() == pytest.approx(2.0, rel=1e-9)
    # the values are the same release's latent eigenvalues: those of the directions' fit
    np.testing.assert_array_equal(model.explained_variance_, model.result_.eigenvalues.to_numpy())


def test_dppca_rank_passes_the_design_and_refuses_rank_misfits_before_spending():
    x = gaussian(2_000, 4, seed=8)
    model = quiet(DPPCA(2, eps=1.0, delta=1e-5, standardize="rank", explained_variance=True,
                        pairs_per_row=15, random_state=0).fit, x)
    assert "block design (>= 15 pairs per row)" in " ".join(model.ledger_.to_frame()["step"])
    with pytest.raises(DPPCAValueError, match="noise"):
        DPPCA(2, standardize="rank", noise="r_dppca").fit(x)
    with pytest.raises(DPPCAValueError, match="scale-free"):
        DPPCA(2, standardize="rank", scale=np.ones(4)).fit(x)
