"""Speed and accuracy of ``dp_score`` (issue 4): prints a table, times nothing in tests.

For ``gau_g`` (its 20 numeric columns, n=5,000) and ``adult`` (5 numeric columns, n=32,561)
at eps in {1, 3}, delta = 1e-5, default bins and both histograms:

* inside: share of the points inside the private frame (target >= 95% at eps = 1);
* TV add / TV sparse: total variation distance between the private and the NON-PRIVATE
  histogram on the same grid, 0.5 sum |p - p_hat|;
* time: median wall time of ``dp_score`` and of the same pipeline without privacy (sample
  covariance directions, exact median centre and 0.99 radius, exact histogram), measured in
  the same run, and their ratio.

Quality numbers are means over seeds. ``g_dppca=False`` is the R default (non-private
directions); ``g_dppca=True`` is private end to end and adds the Kendall's tau matrix, whose
cost is O(n^2 p). Usage: ``python benchmarks/bench_score.py [--quick]``.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

from dppca import dp_pc_dir, dp_score, load_adult, load_gau_g
from dppca.estimators.histograms import Grid, bin_counts
from dppca.estimators.frame import FRAME_INFLATE, FRAME_QUANTILE

DELTA = 1e-5


def nonprivate_score(X, bins):
    """The same pipeline without privacy: the baseline of the time ratio."""
    V = dp_pc_dir(X, 2).directions.to_numpy()
    scores = X.to_numpy(dtype=float) @ V
    centre = np.median(scores, axis=0)
    half = (1 + FRAME_INFLATE) * np.quantile(np.abs(scores - centre).max(axis=1), FRAME_QUANTILE)
    grid = Grid.over((-half, half), (-half, half), bins)
    counts = bin_counts(scores - centre, grid)
    return counts / counts.sum()


def quality(X, eps, g_dppca, seeds):
    rows = []
    for seed in seeds:
        res = dp_score(X, eps, DELTA, g_dppca=g_dppca, rng=seed, nonprivate=True)
        s = res.scores.to_numpy()
        (x0, x1), (y0, y1) = res.frame["xlim"], res.frame["ylim"]
        inside = np.mean((s[:, 0] >= x0) & (s[:, 0] <= x1) & (s[:, 1] >= y0) & (s[:, 1] <= y1))
        truth = res.nonprivate_histogram["prob"].to_numpy()
        tv = {m: 0.5 * np.abs(res.histograms[m]["prob"].to_numpy() - truth).sum() for m in res.methods}
        rows.append({"inside": inside, "TV add": tv["add"], "TV sparse": tv["sparse"], "bins": res.bins[0]})
    return pd.DataFrame(rows).mean()


def median_time(call, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and repeats, no g-DPPCA on adult")
    args = parser.parse_args(argv)
    seeds, repeats = (range(2), 2) if args.quick else (range(5), 5)
    data = {"gau_g": load_gau_g().drop(columns="group"), "adult": load_adult()}
    rows = []
    for name, X in data.items():
        for g_dppca in (False, True):
            if g_dppca and name == "adult" and args.quick:
                continue
            for eps in (1, 3):
                stats = quality(X, eps, g_dppca, seeds)
                bins = (int(stats["bins"]),) * 2
                private = median_time(lambda: dp_score(X, eps, DELTA, g_dppca=g_dppca, rng=0), repeats)
                baseline = median_time(lambda: nonprivate_score(X, bins), repeats)
                rows.append({"data": name, "n": len(X), "g_dppca": g_dppca, "eps": eps,
                             "bins": f"{bins[0]}x{bins[1]}", "inside": f"{stats['inside']:.1%}",
                             "TV add": f"{stats['TV add']:.3f}", "TV sparse": f"{stats['TV sparse']:.3f}",
                             "time (s)": f"{private:.3f}", "non-private (s)": f"{baseline:.3f}",
                             "ratio": f"{private / baseline:.0f}x"})
    print(f"dp_score, delta={DELTA:g}, default bins, method=('add', 'sparse'); quality over "
          f"{len(seeds)} seeds, time = median of {repeats} runs")
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
