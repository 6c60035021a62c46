"""Benchmark: the Kendall engine against the 2 n^2 p BLAS limit, and the start-up (issue 21).

Run ``python benchmarks/bench_engine.py`` (``--large`` adds n = 10^5, p = 50 (minutes),
``--directions`` the n = 10^6 ``dp_pc_dir`` row; ``--runs`` sets the repeats, default 5). One table, every
number a median of the runs and every ratio from this run:

* complete Kendall's tau matrix by the fused numba kernel, by the BLAS form and by the
  array-API engine on numpy arrays ("xp-np"; :mod:`dppca.stats.array_api_kendall`), against the
  limit 2 n^2 p / R, R the flop rate of a 2000 x 2000 GEMM measured in this run (the cost
  of the pair sum if it ran at the machine's BLAS speed); "share" = limit / time;
* ``dp_pc_dir`` with the defaults at n = 10^6, p = 20 against ``np.cov`` (``--directions``);
* ``import dppca`` and ``dppca --help`` in fresh processes, next to ``import numpy``;
* GPU rows: the array-API engine on CuPy or torch CUDA arrays, when one is present with a
  device (else one line saying none), with the speed-up over the BLAS form on the CPU.

The first fused call compiles the kernel (or loads it from numba's cache): it is warmed up
before timing.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dppca import dp_pc_dir, load_adult, load_gau  # noqa: E402
from dppca.stats.fused_pairs import FUSED_MAX_P  # noqa: E402
from dppca.stats.kendall import kendall_tau_matrix  # noqa: E402

#: Issue 21's targets: share of the 2 n^2 p limit per workload.
TARGETS = {"adult": 0.35, "gau": 0.40, "n=1e5 p=50": 0.70}


#: Seconds to wait before each timed series: after a threaded BLAS product (the GEMM rate, the
#: array-API engine's products) OpenBLAS's pthreads spin on the cores for a while, and the next
#: engine's threads would share the cores with them (gau's fused row read 32 ms instead of 21).
SPIN_SETTLE_S = 0.5


def median_seconds(func, runs):
    time.sleep(SPIN_SETTLE_S)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def gemm_rate(runs):
    """Flops per second of a 2000 x 2000 GEMM (median of runs)."""
    A = np.random.default_rng(0).standard_normal((2000, 2000))
    return 2 * 2000**3 / median_seconds(lambda: A @ A, runs)


def load_average():
    """The 1-minute load average (other processes share the cores), or "n/a"."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "n/a"


def fresh_process_seconds(code, runs):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def kendall_rows(workloads, runs):
    rate = gemm_rate(runs)
    print(f"BLAS rate (2000 x 2000 GEMM, median of {runs}): {rate / 1e9:.1f} GFLOP/s; "
          f"fused kernel for p <= {FUSED_MAX_P}; load average {load_average()}")
    print(f"{'workload':<12} {'n':>8} {'p':>3} {'limit s':>8} {'fused s':>8} {'share':>6} "
          f"{'BLAS s':>8} {'share':>6} {'xp-np s':>8} {'share':>6} {'target':>6}")
    for name, X in workloads:
        n, p = X.shape
        limit = 2.0 * n * n * p / rate
        kendall_tau_matrix(X[:64], engine="fused")  # compile or load the kernel
        # far above the rule's p the fused loop is slow: not timed there
        fused = (median_seconds(lambda: kendall_tau_matrix(X, engine="fused"), runs)
                 if p <= 2 * FUSED_MAX_P else None)
        blas = median_seconds(lambda: kendall_tau_matrix(X, engine="blas"), runs)
        api = median_seconds(lambda: kendall_tau_matrix(X, engine="array_api"), runs)
        target = TARGETS.get(name)
        fused_cells = "-".rjust(8) + " " + "-".rjust(6) if fused is None else \
            f"{fused:>8.3f} {limit / fused:>6.0%}"
        print(f"{name:<12} {n:>8} {p:>3} {limit:>8.3f} {fused_cells} "
              f"{blas:>8.3f} {limit / blas:>6.0%} {api:>8.3f} {limit / api:>6.0%} "
              f"{'' if target is None else f'{target:.0%}':>6}")


def directions_row(runs):
    X = np.random.default_rng(1).standard_normal((10**6, 20))
    cov = median_seconds(lambda: np.cov(X, rowvar=False), runs)
    fit = median_seconds(lambda: dp_pc_dir(X, 2, eps=1.0, delta=1e-5, rng=1), runs)
    print(f"dp_pc_dir n=1e6 p=20 defaults: {fit:.2f} s = {fit / cov:.1f}x np.cov ({cov:.3f} s); "
          "target <= 15x")


def startup_rows(runs):
    base = fresh_process_seconds("import numpy", runs)
    imp = fresh_process_seconds("import dppca", runs)
    helpt = fresh_process_seconds("import sys; sys.argv = ['dppca', '--help']\n"
                                  "from dppca.cli import main\n"
                                  "try:\n    main()\nexcept SystemExit:\n    pass", runs)
    print(f"start-up, median of {runs} fresh processes: import dppca {imp:.3f} s "
          f"(target 0.3), dppca --help {helpt:.3f} s (target 0.5); import numpy alone {base:.3f} s")


def gpu_devices():
    """(label, function turning a numpy array into a device array) for each GPU library present."""
    found = []
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            found.append(("CuPy", cupy.asarray, cupy.cuda.Device().synchronize))
    except Exception:  # not installed, or no device / driver
        pass
    try:
        import torch
        if torch.cuda.is_available():
            found.append(("torch cuda", lambda X: torch.asarray(X, dtype=torch.float64, device="cuda"),
                          torch.cuda.synchronize))
    except ImportError:
        pass
    return found


def gpu_rows(workloads, runs):
    """The array-API engine on each GPU library present (time includes the copy of the p x p
    sum back to the host; the data are moved to the device before timing)."""
    devices = gpu_devices()
    if not devices:
        print("GPU rows: none (no CuPy, no torch with a device)")
        return
    print(f"{'GPU engine':<12} {'workload':<12} {'n':>8} {'p':>3} {'xp s':>8} {'vs BLAS':>8}")
    for label, convert, synchronize in devices:
        for name, X in workloads:
            Y = convert(X)
            kendall_tau_matrix(Y[:64, :])  # warm-up: library start, kernels
            synchronize()
            seconds = median_seconds(lambda: kendall_tau_matrix(Y), runs)
            blas = median_seconds(lambda: kendall_tau_matrix(X, engine="blas"), 1)
            print(f"{label:<12} {name:<12} {X.shape[0]:>8} {X.shape[1]:>3} {seconds:>8.3f} "
                  f"{blas / seconds:>7.1f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--large", action="store_true", help="add n = 1e5, p = 50 (minutes)")
    parser.add_argument("--directions", action="store_true", help="add dp_pc_dir at n = 1e6")
    args = parser.parse_args(argv)
    workloads = [("adult", np.asarray(load_adult(), dtype=float)),
                 ("gau", np.asarray(load_gau(), dtype=float)),
                 ("n=2e4 p=50", np.random.default_rng(2).standard_normal((20000, 50)))]
    if args.large:
        workloads.append(("n=1e5 p=50", np.random.default_rng(3).standard_normal((10**5, 50))))
    kendall_rows(workloads, args.runs)
    if args.directions:
        directions_row(args.runs)
    startup_rows(args.runs)
    gpu_rows(workloads, args.runs)


if __name__ == "__main__":
    main()
