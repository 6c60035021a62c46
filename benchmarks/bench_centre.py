"""Accuracy of DPPCA's private centre ``mean_``: the old release against :func:`dp_centre`.

Data: a 3-factor Gaussian, p = 6 (loadings N(0, 1) drawn once, column sd 1 to 2.5), noise sd 0.3,
located at 10; delta = 1e-5. For n x eps x center_share, prints the median and the 90th percentile
over seeds of the largest absolute error over coordinates against the sample mean, for

  * old: a private spread bound (exponential mechanism on a 2^-48..2^48 grid) then
    ``methods.analyze_gauss.private_centre`` (row-norm quantile on that grid, two clipped means),
    the release of ``DPPCA.fit`` before this benchmark;
  * new: :func:`dppca.estimators.centre.dp_centre` (sparse-vector radius searches, two clipped
    Gaussian means in one Gaussian-DP group).

Then the cost of the centre's share to the directions: mean sin-theta of g-DPPCA's top-3
directions (on (1 - share)(eps, delta), as in ``DPPCA.fit``) to the population's top-3
eigenvectors, and its ratio to share 0 (``center=False``).

    python benchmarks/bench_centre.py [--seeds 20] [--quick]
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

from dppca import dp_pc_dir
from dppca.estimators.centre import dp_centre
from dppca.methods import top_eigen
from dppca.methods._shared import (BOUND_MULTIPLIER, BOUND_QUANTILE, BOUND_SHARE, paired_differences,
                                   resolve_norm_bound)
from dppca.methods.analyze_gauss import private_centre
from dppca.metrics import sin_theta
from dppca.privacy import Ledger

DELTA, P, LOCATION, NOISE_SD = 1e-5, 6, 10.0, 0.3
LOADINGS = np.random.default_rng(7).normal(size=(3, P))


def data(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)) @ LOADINGS + rng.normal(scale=NOISE_SD, size=(n, P)) + LOCATION


def old_centre(X, eps, delta, rng):
    """The centre DPPCA.fit released before dp_centre (private spread bound + private_centre)."""
    ledger = Ledger(eps, delta)
    rows = paired_differences(X, rng)
    bound, eps_c, delta_c = resolve_norm_bound(rows, None, BOUND_QUANTILE, BOUND_SHARE, eps, delta,
                                               rng, ledger, "centre", BOUND_MULTIPLIER)
    return private_centre(X, bound, eps_c, delta_c, rng, "analytic", ledger)


def new_centre(X, eps, delta, rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small-budget warning: the table shows why
        return dp_centre(X, eps, delta, rng)


def centre_errors(centre, n, eps, share, seeds) -> np.ndarray:
    errors = []
    for seed in range(seeds):
        X = data(n, seed)
        released = centre(X, eps * share, DELTA * share, np.random.default_rng(1000 + seed))
        errors.append(np.max(np.abs(released - X.mean(axis=0))))
    return np.array(errors)


def centre_table(sizes, budgets, shares, seeds):
    print(f"max abs error of the centre over {P} coordinates, {seeds} seeds "
          "(median and 90th percentile)")
    print(f"{'n':>6} {'eps':>4} {'share':>5} | {'old med':>9} {'old p90':>9} | {'new med':>9} "
          f"{'new p90':>9} | {'p90 old/new':>11}")
    for n in sizes:
        for eps in budgets:
            for share in shares:
                old = centre_errors(old_centre, n, eps, share, seeds)
                new = centre_errors(new_centre, n, eps, share, seeds)
                o90, n90 = np.quantile(old, 0.9), np.quantile(new, 0.9)
                print(f"{n:>6} {eps:>4g} {share:>5g} | {np.median(old):>9.3g} {o90:>9.3g} | "
                      f"{np.median(new):>9.3g} {n90:>9.3g} | {o90 / n90:>11.3g}")


def worst_case(n, eps, share, seeds):
    """Largest error of the new centre over many seeds where the budget is too small."""
    new = centre_errors(new_centre, n, eps, share, seeds)
    print(f"\nnew centre at n = {n}, eps = {eps:g}, share = {share:g} (n eps share = "
          f"{n * eps * share:g}): median {np.median(new):.3g}, max over {seeds} seeds "
          f"{new.max():.3g} (data located at {LOCATION:g})")


def direction_table(sizes, budgets, shares, seeds):
    covariance = LOADINGS.T @ LOADINGS + NOISE_SD ** 2 * np.eye(P)
    truth = top_eigen(covariance, 3)[1]
    print("\nmean sin-theta of g-DPPCA's top-3 directions on (1 - share)(eps, delta), "
          f"{seeds} seeds (ratio to share 0)")
    print(f"{'n':>6} {'eps':>4} | " + " | ".join(f"share {s:g}" for s in (0.0, *shares)))
    for n in sizes:
        for eps in budgets:
            means = []
            for share in (0.0, *shares):
                angles = [sin_theta(dp_pc_dir(data(n, seed), 3, eps=eps * (1 - share),
                                              delta=DELTA * (1 - share), rng=seed).directions, truth)
                          for seed in range(seeds)]
                means.append(np.mean(angles))
            cells = [f"{means[0]:.3f}"] + [f"{m:.3f} ({m / means[0]:.2f})" for m in means[1:]]
            print(f"{n:>6} {eps:>4g} | " + " | ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 seeds, n <= 2000")
    parser.add_argument("--seeds", type=int, help="seeds per cell (default 20, 5 with --quick)")
    args = parser.parse_args()
    seeds = args.seeds or (5 if args.quick else 20)
    sizes = (500, 2000) if args.quick else (500, 2000, 10000)
    grid = dict(budgets=(0.5, 1.0, 4.0), shares=(0.1, 0.2), seeds=seeds)
    centre_table(sizes, **grid)
    worst_case(500, 0.5, 0.1, 4 * seeds if args.quick else 500)
    direction_table(sizes, **grid)


if __name__ == "__main__":
    main()
