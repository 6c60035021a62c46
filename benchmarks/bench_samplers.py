"""Benchmark: floating-point-safe noise (exact samplers on a grid) against plain numpy draws.

Run ``python benchmarks/bench_samplers.py`` (a minute on 2 cores) or ``--quick``.

Table 1, one release of a symmetric p x p noise matrix (what g-DPPCA, Analyze Gauss and
Cai-Xia-Zha add; p(p+1)/2 draws) for p = 20, 50, 200: median wall time over several runs of
``add_symmetric_gaussian_noise`` with the ``"numpy"`` sampler (old) and the ``"exact"`` sampler
(new), their ratio, and the extra time of the new sampler.

Table 2, a whole ``dp_pc_dir(X, k=2, g_dppca=True, eps=1, delta=1e-5)`` at n = 5000, d = 20
(standard Gaussian data, fixed seed), median over runs with each sampler, and the ratio
new / old measured in the same run. The issue's rule: the safe sampler is the default if its
extra cost is under 2x a whole call, i.e. if that ratio is below 3 (it is about 1). The
call-to-call timing noise is larger than the extra cost, so the table also gives the extra
time of one p = 20 release (Table 1) as a fraction of the numpy call.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dppca import dp_pc_dir  # noqa: E402
from dppca.privacy.samplers import add_symmetric_gaussian_noise, use_sampler  # noqa: E402

SIZES = (20, 50, 200)


def main(argv=None):
    args = parse_args(argv)
    reps = 3 if args.quick else args.reps
    print(f"numpy {np.__version__}; median of {reps} runs (after one warm-up) per cell\n")
    extra = print_release_table(reps)
    print()
    print_call_table(max(2, reps // 2) if args.quick else reps, extra[20])
    return 0  # a report, not a test


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs (for `make bench`)")
    parser.add_argument("--reps", type=int, default=9, help="runs per cell (default 9)")
    return parser.parse_args(argv)


def median_time(func, reps):
    func()  # warm-up: imports, caches
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def print_release_table(reps):
    header = f"{'p':>5}{'draws':>8}{'numpy ms':>11}{'exact ms':>11}{'ratio':>8}{'extra ms':>10}"
    print("One release: symmetric p x p Gaussian noise matrix (sigma = 0.01, sensitivity 0.001)")
    print(header)
    print("-" * len(header))
    extra = {}
    for p in SIZES:
        value = np.random.default_rng(p).standard_normal((p, p))
        value = value + value.T
        rng = np.random.default_rng(0)
        times = {}
        for mode in ("numpy", "exact"):
            with use_sampler(mode):
                times[mode] = median_time(lambda: add_symmetric_gaussian_noise(value, 0.01, 1e-3, rng), reps)
        print(f"{p:>5}{p * (p + 1) // 2:>8}{1e3 * times['numpy']:>11.3f}{1e3 * times['exact']:>11.3f}"
              f"{times['exact'] / times['numpy']:>8.1f}{1e3 * (times['exact'] - times['numpy']):>10.3f}")
        extra[p] = times["exact"] - times["numpy"]
    return extra


def print_call_table(reps, release_extra):
    n, d = 5000, 20
    X = np.random.default_rng(2026).standard_normal((n, d))
    times = {}
    for mode in ("numpy", "exact"):
        with use_sampler(mode):
            times[mode] = median_time(lambda: dp_pc_dir(X, k=2, g_dppca=True, eps=1, delta=1e-5, rng=1), reps)
    extra = times["exact"] - times["numpy"]
    header = (f"{'n':>6}{'d':>4}{'numpy s':>10}{'exact s':>10}{'ratio':>8}{'extra / call':>14}"
              f"{'p=20 release extra / call':>27}  default")
    print("Whole call: dp_pc_dir(X, k=2, g_dppca=True, eps=1, delta=1e-5)")
    print(header)
    print("-" * len(header))
    verdict = "exact (extra < 2x a call)" if extra < 2 * times["numpy"] else "keep numpy option"
    print(f"{n:>6}{d:>4}{times['numpy']:>10.4f}{times['exact']:>10.4f}"
          f"{times['exact'] / times['numpy']:>8.3f}{extra / times['numpy']:>14.3f}"
          f"{release_extra / times['numpy']:>27.5f}  {verdict}")


if __name__ == "__main__":
    sys.exit(main())
