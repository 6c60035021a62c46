"""benchmarks/bench_neighbouring.py's paired design (common random numbers) on a small set."""
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_neighbouring as bench  # noqa: E402
from dppca.privacy.composition import GaussianGroup  # noqa: E402
from dppca.privacy.neighbouring import COUNT_DELTA_SHARE, COUNT_SHARE  # noqa: E402


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, 4)) * [3.0, 2.0, 1.0, 0.5], columns=list("abcd"))


def test_paired_calls_share_their_streams_and_scale_each_release_as_designed():
    x, eps, seeds = _data(), 2.0, 3
    got = bench.cell(x, bench.target(x, "g-DPPCA", "dp_scree"), "g-DPPCA", eps, seeds,
                     entry="dp_scree", paired=True)
    # the replace call burns the count's one standard normal: both calls end in the same state
    assert got["aligned"] == seeds
    # the budget factor of every release: the count's share of mu^2 and of delta
    budget = GaussianGroup(eps, bench.DELTA).mu / (
        math.sqrt(1 - COUNT_SHARE) * GaussianGroup(eps, bench.DELTA * (1 - COUNT_DELTA_SHARE)).mu)
    histograms = [v for step, v in got["releases"].items() if "histogram" in step]
    others = [v for step, v in got["releases"].items() if "histogram" not in step]
    assert histograms and others
    # histograms: sensitivity sqrt(2) or sqrt(2k) under both relations and, at this n, the same
    # shares of the group (the trace centre's share is sized by n, and differs at a few hundred
    # rows), so exactly the budget factor (numpy sampler: the calibrated sd, no snapping slack)
    # (rtol: the analytic calibration's mu is a numerical root, good to ~1e-9 relative)
    np.testing.assert_allclose(histograms, budget, rtol=1e-6)
    # U-statistics, trace and directions: also n / (n_lo + 1); the count's sd is below 20 at
    # eps 2 here, so n_lo + 1 > n - 12 sd > 0.9 n (z = 5.03, noise well below 6 sd)
    assert all(budget < v < budget / 0.9 for v in others)
    # common random numbers: the paired ratio's standard error is far below the ratio's size
    assert got["ratio_se"] < 0.05


def test_paired_score_calls_share_the_directions_draws_and_the_probe_sees_a_shift():
    import bench_neighbouring_score as score_bench

    x, eps, seeds = _data(), 2.0, 3
    reference = bench.target(x, "g-DPPCA")
    paired, unpaired = (bench.cell(x, reference, "g-DPPCA", eps, seeds, "dp_score", flag,
                                   call=score_bench._call) for flag in (True, False))
    # dp_score draws the count (add/remove) and the directions before its frame: with the
    # replace call's burnt normal both calls enter the frame in the same generator state ...
    assert paired["aligned"] == seeds
    # ... and without it (separate streams from the same integer seed, the count's draws under
    # add/remove only) the probe sees the shift, so the check can fail
    assert unpaired["aligned"] == 0
    for runs in paired["details"].values():
        assert all(d["area"] > 0 and 0 <= d["cover"] <= 1 for d in runs)
    # common random numbers: the directions' noise is the same standard normals scaled by each
    # relation's sd, so the ratio's standard error is far below the 0.025 a +-0.05 band needs
    assert paired["ratio_se"] < 0.025
