"""Benchmark: what a looser ``pairs_per_row_rule`` would buy and cost at n = 10^6, p = 20 (issue 21).

Run ``python benchmarks/bench_pair_rule.py`` (``--seeds``, default 10). gau-like data: n rows
drawn from the five Gaussian clusters of ``gau`` (each cluster's mean and covariance, n / 5
rows each). For the rule's r and looser ones (512, the floor; 256; 128), prints the median
over seeds of

* the CPU seconds of the call ``dp_pc_dir(X, 2, eps=1, delta=1e-5, rng=seed, pairs_per_row=r)``;
* its sin-theta distance to the reference directions (top 2 eigenvectors of the incomplete
  statistic with r = 8191, ten times the rule's pairs, no noise): the released error;
* the same distance for the statistic itself without noise: the design's own error.
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dppca import dp_pc_dir, load_gau_g  # noqa: E402
from dppca.metrics import sin_theta  # noqa: E402
from dppca.stats.pair_design import (block_design, incomplete_kendall_tau_matrix,  # noqa: E402
                                     pairs_per_row_rule)

N, K = 10**6, 2


def gau_like(n, rng):
    frame = load_gau_g()
    groups = [rows.drop(columns="group").to_numpy() for _, rows in frame.groupby("group")]
    parts = [rng.multivariate_normal(g.mean(axis=0), np.cov(g, rowvar=False), size=n // len(groups))
             for g in groups]
    return rng.permutation(np.concatenate(parts))


def top_directions(X, r, seed):
    K_r = incomplete_kendall_tau_matrix(X, block_design(X.shape[0], r, np.random.default_rng(seed)))
    return np.linalg.eigh(K_r)[1][:, ::-1][:, :K]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args(argv)
    X = gau_like(N, np.random.default_rng(2026))
    rule = pairs_per_row_rule(N, X.shape[1], 1.0, 1e-5)
    print(f"# benchmarks/bench_pair_rule.py --seeds {args.seeds}, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"load average {os.getloadavg()[0]:.1f}; gau-like n = {N:,}, p = {X.shape[1]}, k = {K}, "
          f"eps = 1, delta = 1e-5; reference: r = 8191 without noise")
    reference = top_directions(X, 8191, 0)
    print(f"{'pairs per row':>14s} {'CPU s':>7s} {'sin-theta released':>19s} {'of the design alone':>20s}")
    for r in (rule, 512, 256, 128):
        cpu, released, design = [], [], []
        for seed in range(args.seeds):
            start = time.process_time()
            fit = dp_pc_dir(X, K, eps=1.0, delta=1e-5, rng=seed, pairs_per_row=r)
            cpu.append(time.process_time() - start)
            released.append(sin_theta(fit.directions.to_numpy(), reference))
            design.append(sin_theta(top_directions(X, r, 100 + seed), reference))
        label = f"{r}{' (rule)' if r == rule else ''}"
        print(f"{label:>14s} {statistics.median(cpu):7.2f} {statistics.median(released):19.2e} "
              f"{statistics.median(design):20.2e}")


if __name__ == "__main__":
    main()
