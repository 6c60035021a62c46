"""Benchmark: the frame median's floating-point-safe release against the old continuous Laplace.

Run ``python benchmarks/bench_smooth_quantile.py`` (about a minute on 2 busy cores) or ``--quick``.

The frame of ``dp_score`` releases the median of each score column by smooth sensitivity
(:func:`dppca.privacy.smooth_sensitivity_quantile`). The old release added numpy Laplace noise
of scale 2 S*/eps to the float median (sampler ``"numpy"``, kept for comparison); the new one
rounds S* up onto a public geometric grid of ratio e^beta and adds exact discrete Laplace noise
on a public power-of-two grid (sampler ``"exact"``, the default).

Data: ``gau`` (n = 5000, p = 20) and its first 200 rows, projected on the first two
(non-private, fixed) principal axes, as the frame sees its scores; the domain is the frame's
[-2B, 2B] with B the 0.9-quantile of max(|s1|, |s2|) taken as public here; (eps, delta) =
(0.3, 0.5e-5) per median, the frame's share of (1, 1e-5).

Table 1: median wall time of one call (old, new, ratio), median of ``reps`` x 50 calls.
Table 2: absolute error of the released median over ``seeds`` seeds per column (mean, median,
95% quantile), old and new, and the ratio new / old of the mean error; the ratio of the noise
scales t gamma / (2 S*/eps) is in [1, e^beta] by construction (beta = 0.0116 here; exact, last
column). The new release is clamped to the domain (post-processing); the row "old, clamped"
separates that gain from the cost of the grids.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dppca.datasets import load_gau  # noqa: E402
from dppca.privacy import smooth_sensitivity_quantile  # noqa: E402
from dppca.privacy.samplers import use_sampler  # noqa: E402
from dppca.privacy.smooth import quantile_smooth_sensitivity, smooth_beta, smooth_noise_scale  # noqa: E402

EPS, DELTA = 0.3, 0.5e-5
SAMPLERS = {"old (numpy Laplace)": "numpy", "new (discrete, grids)": "exact"}


def scores(n):
    X = load_gau().to_numpy()[:n]
    X = X - X.mean(axis=0)
    axes = np.linalg.eigh(X.T @ X)[1][:, ::-1][:, :2]
    s = X @ axes
    bound = float(np.quantile(np.abs(s).max(axis=1), 0.9))
    return s, (-2 * bound, 2 * bound)


def release(column, domain, seed, sampler):
    with use_sampler(sampler):
        return smooth_sensitivity_quantile(column, 0.5, EPS, DELTA, np.random.default_rng(seed), *domain)


def time_table(datasets, reps):
    print("data | sampler | ms per call | ratio new/old")
    print("--- | --- | --- | ---")
    for label, (s, domain) in datasets.items():
        times = {}
        for name, sampler in SAMPLERS.items():
            runs = []
            for r in range(reps):
                start = time.perf_counter()
                for seed in range(50):
                    release(s[:, 0], domain, seed, sampler)
                runs.append((time.perf_counter() - start) / 50 * 1e3)
            times[name] = statistics.median(runs)
        old, new = times.values()
        for name, value in times.items():
            ratio = f"{new / old:.2f}" if value is new else "1"
            print(f"{label} | {name} | {value:.3f} | {ratio}")


def scale_ratio(column, domain) -> float:
    """t gamma / (2 S*/eps): the new noise scale over the old one (exact, not sampled)."""
    xs = np.sort(np.clip(column, *domain))
    rank = int(np.ceil(0.5 * xs.size))
    gamma, t = smooth_noise_scale(xs, rank, EPS, DELTA, *domain)
    return t * gamma / (2 * quantile_smooth_sensitivity(xs, rank, smooth_beta(EPS, DELTA), *domain) / EPS)


def error_table(datasets, seeds):
    print("data | column | sampler | mean abs error | median abs error | 95% abs error | "
          "mean ratio to old | noise scale new/old")
    print("--- | --- | --- | --- | --- | --- | --- | ---")
    for label, (s, domain) in datasets.items():
        for j in range(2):
            truth = np.sort(s[:, j])[int(np.ceil(0.5 * s.shape[0])) - 1]
            draws = {name: np.array([release(s[:, j], domain, seed, sampler) for seed in range(seeds)])
                     for name, sampler in SAMPLERS.items()}
            draws = {**draws, "old, clamped to the domain": np.clip(draws[next(iter(SAMPLERS))], *domain)}
            errors = {name: np.abs(d - truth) for name, d in draws.items()}
            old = float(np.mean(errors[next(iter(SAMPLERS))]))
            for name, e in errors.items():
                scale = f"{scale_ratio(s[:, j], domain):.4f}" if name.startswith("new") else "-"
                print(f"{label} | PC{j + 1} | {name} | {np.mean(e):.4g} | {np.median(e):.4g} | "
                      f"{np.quantile(e, 0.95):.4g} | {np.mean(e) / old:.3f} | {scale}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and runs")
    args = parser.parse_args(argv)
    datasets = {"gau n=5000": scores(5000), "gau n=200": scores(200)}
    time_table(datasets, 3 if args.quick else 7)
    print()
    error_table(datasets, 50 if args.quick else 200)
    return 0  # a report, not a test


if __name__ == "__main__":
    sys.exit(main())
