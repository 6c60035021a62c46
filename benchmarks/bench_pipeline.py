"""Benchmark: where ``dp_pc_dir`` spends its time at n = 10^6, p = 20 with the defaults (issue 21).

Run ``python benchmarks/bench_pipeline.py`` (``--runs`` repeats, default 5; ``--startup`` adds
``import dppca`` and ``dppca --help`` in fresh processes; ``--complete`` the complete statistic's
time at n^2 p = 1e10, 2e10, 3e10 for ``design="auto"``'s threshold). Prints, every number a
median of the runs:

* the call against ``np.cov`` of the same data, in wall-clock and in CPU seconds (all threads);
* the call's stages, each timed on its own: input checks and copy (``as_matrix``), the random
  block design, the incomplete Kendall statistic (threads), the rest (noise, eigh, accuracy
  model, result) as the call minus those. Each run times all of these in turn, so that they
  see the same load (the cores are shared);
* the statistic's steps on one thread (CPU seconds over all blocks, ms per block): the row
  gather, the working rows (medians, scale, norms, sort), the fused kernel, the Laplacian
  combination and the normalised sum.
"""
import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_engine import startup_rows  # noqa: E402  (import dppca, dppca --help: fresh processes)
from dppca import dp_pc_dir  # noqa: E402
from dppca.preprocessing import as_matrix  # noqa: E402
from dppca.stats import kendall  # noqa: E402
from dppca.stats.fused_pairs import fused_pair_sums  # noqa: E402
from dppca.stats.kendall import kendall_tau_matrix, laplacian_sum, normalise_pair_sum  # noqa: E402
from dppca.stats.pair_design import (block_design, incomplete_kendall_tau_matrix,  # noqa: E402
                                     pairs_per_row_rule, pairwise_sum)
from dppca.stats.working_rows import block_column_extremes, working_rows_of_blocks  # noqa: E402

N, P = 10**6, 20


def timed(func):
    """(wall s, CPU s of the process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - wall, time.process_time() - cpu


def medians(pairs):
    return tuple(statistics.median(column) for column in zip(*pairs))


def call_and_stages(X, runs):
    """Per run, in turn (so that all see the same load): np.cov, the call, then each stage."""
    r = pairs_per_row_rule(N, P, 1.0, 1e-5)
    design = block_design(N, r, np.random.default_rng(1))
    work = {"np.cov": lambda: np.cov(X, rowvar=False),
            "dp_pc_dir (defaults)": lambda: dp_pc_dir(X, 2, eps=1.0, delta=1e-5, rng=1),
            "input checks + copy (as_matrix)": lambda: as_matrix(X),
            f"block design (r = {r}, permutation)": lambda: block_design(N, r, np.random.default_rng(1)),
            "incomplete Kendall statistic": lambda: incomplete_kendall_tau_matrix(X, design)}
    times = {name: [] for name in work}
    for _ in range(runs):
        for name, func in work.items():
            times[name].append(timed(func))
    ratios = [f[0] / c[0] for f, c in zip(times["dp_pc_dir (defaults)"], times["np.cov"])]
    stages = {name: medians(pairs) for name, pairs in times.items()}
    cov, fit = stages.pop("np.cov"), stages.pop("dp_pc_dir (defaults)")
    print(f"dp_pc_dir n=1e6 p=20 defaults: {fit[0]:.3f} s wall ({fit[1]:.3f} s CPU); np.cov "
          f"{cov[0]:.3f} s wall ({cov[1]:.3f} s CPU): {statistics.median(ratios):.1f}x (median of "
          f"the runs' ratios; {fit[0] / cov[0]:.1f}x of the medians); target <= 15x")
    stages["rest (noise, eigh, accuracy, result)"] = tuple(
        f - sum(s[k] for s in stages.values()) for k, f in enumerate(fit))
    print(f"{'stage of dp_pc_dir':40s} {'wall s':>7s} {'CPU s':>7s}")
    for name, (wall, cpu) in stages.items():
        print(f"{name:40s} {wall:7.3f} {cpu:7.3f}")
    return design


def step_rows(X, design):
    """The statistic's steps on one thread, as dppca.stats.block_kendall runs them."""
    spent = dict.fromkeys(["row gather", "working rows", "fused kernel", "Laplacian combine",
                           "normalise + pairwise sum"], 0.0)

    def tick(step, start):
        now = time.thread_time()
        spent[step] += now - start
        return now

    spec = kendall.resolve_sign("spherical", None, None, P)
    sizes = np.diff(design.bounds)
    terms = []
    for size in np.unique(sizes).tolist():
        starts = design.bounds[:-1][sizes == size]
        for first in range(0, starts.size, max(1, 2**14 // size)):
            batch = starts[first:first + max(1, 2**14 // size)]
            now = time.thread_time()
            Y = np.take(X, design.order[batch[:, None] + np.arange(size)].ravel(), axis=0)
            Y = Y.reshape(batch.size, size, P)
            now = tick("row gather", now)
            blocks = working_rows_of_blocks(Y, block_column_extremes(Y))
            now = tick("working rows", now)
            sums = [fused_pair_sums(b.left, b.X, b.order, spec.kind, spec.radius, b.scale,
                                    kendall._NEAR_DUPLICATE_TOL, kendall._DISTANCE_FLOOR)
                    for b in map(blocks.block, range(batch.size))]
            now = tick("fused kernel", now)
            S = laplacian_sum(blocks.left[..., :P], *(np.stack(part) for part in zip(*sums)))
            now = tick("Laplacian combine", now)
            terms.extend(size * normalise_pair_sum(S, size))
            tick("normalise + pairwise sum", now)
    now = time.thread_time()
    pairwise_sum(terms)
    tick("normalise + pairwise sum", now)
    m = sizes.size
    total = sum(spent.values())
    print(f"{'statistic, one thread (' + str(m) + ' blocks)':40s} {'CPU s':>7s} {'ms/block':>9s} {'share':>6s}")
    for step, seconds in spent.items():
        print(f"{step:40s} {seconds:7.3f} {1e3 * seconds / m:9.3f} {seconds / total:6.1%}")
    print(f"{'total':40s} {total:7.3f} {1e3 * total / m:9.3f}")


def complete_rows(runs):
    """The complete statistic's time at n^2 p = 1e10 .. 3e10 (design="auto"'s threshold)."""
    print(f"{'complete Kendall':18s} {'n':>7s} {'p':>3s} {'wall s':>7s} {'CPU s':>7s}")
    kendall_tau_matrix(np.random.default_rng(0).standard_normal((100, 5)))  # numba loaded
    for p in (5, 20):
        kendall_tau_matrix(np.random.default_rng(0).standard_normal((100, p)))
        for work in (1e10, 2e10, 3e10):
            n = int(math.sqrt(work / p))
            X = np.random.default_rng(2).standard_normal((n, p))
            wall, cpu = medians([timed(lambda: kendall_tau_matrix(X)) for _ in range(runs)])
            print(f"n^2 p = {work:.0e}     {n:7d} {p:3d} {wall:7.3f} {cpu:7.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--startup", action="store_true")
    parser.add_argument("--complete", action="store_true")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"# benchmarks/bench_pipeline.py --runs {args.runs}, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{len(os.sched_getaffinity(0))} cores, load average {load:.1f} at the start")
    X = np.random.default_rng(1).standard_normal((N, P))
    dp_pc_dir(X[:5000], 2, eps=1.0, delta=1e-5, rng=1, design="incomplete")  # numba loaded
    design = call_and_stages(X, args.runs)
    step_rows(X, design)
    if args.startup:
        startup_rows(args.runs)
    if args.complete:
        complete_rows(args.runs)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
