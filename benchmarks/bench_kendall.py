"""Benchmark: fast Kendall's tau matrix (tiled Laplacian) against the pair sum.

Run ``python benchmarks/bench_kendall.py`` (full grid, a few minutes on 2
cores) or ``--quick``. For each n x d, on standard Gaussian data with a fixed
seed, it prints the median wall time of ``kendall_tau_matrix`` over several
runs (fewer for large n, after one untimed warm-up run) with its CPU time
summed over threads (wall ~ cpu / cores on an idle machine), the time of the naive
pairwise loop ``kendall_tau_matrix_naive`` in the same run (n <= 5000 only),
their ratio, the relative Frobenius difference of the two results, and the
peak extra memory traced by tracemalloc during the warm-up call (numpy
buffers; BLAS-internal work space is not traced). A last row times the UCI
Adult numeric data (32,561 rows, two thirds duplicates) when it is present.

Targets (2-core machine): n=5000, d=20 in <= 0.2 s; n=100000, d=50 in <= 60 s
with <= 512 MiB extra memory.
"""

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dppca.stats.kendall import kendall_tau_matrix  # noqa: E402
from dppca.stats.kendall_reference import kendall_tau_matrix_naive  # noqa: E402

FULL_GRID = ([2000, 5000, 20000, 100000], [20, 50])
QUICK_GRID = ([2000, 5000], [20])
NAIVE_MAX_N = 5000
TARGETS = {(5000, 20): (0.2, None), (100000, 50): (60.0, 512.0)}  # (s, MiB)
ADULT = Path(__file__).resolve().parents[1] / "data" / "adult.csv.gz"


def main(argv=None):
    args = parse_args(argv)
    ns, ds = QUICK_GRID if args.quick else FULL_GRID
    print_environment()
    header = f"{'data':<10}{'n':>7}{'d':>4}{'runs':>5}{'fast s':>9}{'cpu s':>8}{'naive s':>9}"
    header += f"{'ratio':>9}{'rel.err':>10}{'peak MiB':>10}  target"
    print(header)
    print("-" * len(header))
    for n in ns:
        for d in ds:
            X = np.random.default_rng(n + d).standard_normal((n, d))
            print_row("gaussian", n, d, measure(X, runs_for(n, args.reps)))
    if not args.quick and ADULT.exists():
        A = np.loadtxt(ADULT, delimiter=",", skiprows=1)
        print_row("adult", *A.shape, measure(A, max(1, args.reps // 2), naive=False))
    # A report, not a test: a missed target is printed, never an exit status
    # (times depend on the machine and its load).
    return 0


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="reduced grid: n in {2000, 5000}, d = 20")
    parser.add_argument("--reps", type=int, default=5,
                        help="timed runs for n <= 5000 (halved above, at least 1)")
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps must be >= 1")
    return args


def runs_for(n, reps):
    """Fewer timed runs for big n, where one run takes seconds."""
    return reps if n <= NAIVE_MAX_N else max(1, reps // 2)


def measure(X, runs, naive=True):
    """Fast time (median), naive time, ratio, agreement and peak memory."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    K = kendall_tau_matrix(X)  # warm-up, traced
    peak = (tracemalloc.get_traced_memory()[1] - base) / 2**20
    tracemalloc.stop()
    times = [timed(kendall_tau_matrix, X) for _ in range(runs)]
    row = {"runs": runs, "peak": peak, "naive": None, "err": None,
           "fast": statistics.median(t[0] for t in times),
           "cpu": statistics.median(t[1] for t in times)}
    if naive and X.shape[0] <= NAIVE_MAX_N:
        start = time.perf_counter()
        K0 = kendall_tau_matrix_naive(X)
        row["naive"] = time.perf_counter() - start
        row["err"] = np.linalg.norm(K - K0) / np.linalg.norm(K0)
    return row


def timed(func, X):
    """Wall time and CPU time of all threads of this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    func(X)
    return time.perf_counter() - wall, time.process_time() - cpu


def print_row(name, n, d, row):
    """Print one table row with its verdict against TARGETS, if any."""
    naive = "-" if row["naive"] is None else f"{row['naive']:.3f}"
    ratio = "-" if row["naive"] is None else f"{row['naive'] / row['fast']:.0f}x"
    err = "-" if row["err"] is None else f"{row['err']:.1e}"
    verdict = ""
    if (n, d) in TARGETS:
        seconds, mib = TARGETS[(n, d)]
        missed = row["fast"] > seconds or (mib is not None and row["peak"] > mib)
        limits = f"<= {seconds:g} s" + ("" if mib is None else f", <= {mib:g} MiB")
        verdict = f"{'MISSED' if missed else 'met'} ({limits})"
    print(f"{name:<10}{n:>7}{d:>4}{row['runs']:>5}{row['fast']:>9.3f}{row['cpu']:>8.2f}{naive:>9}"
          f"{ratio:>9}{err:>10}{row['peak']:>10.1f}  {verdict}", flush=True)


def print_environment():
    """Context for reading the times: cores, BLAS core type, machine load."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    coretype = os.environ.get("OPENBLAS_CORETYPE", "(unset)")
    load = f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "n/a"
    print(f"numpy {np.__version__}, {cores} cores, OPENBLAS_CORETYPE={coretype}, "
          f"1-min load average {load} (other processes slow the times)")


if __name__ == "__main__":
    sys.exit(main())
