"""Small data (issue 20): are the private defaults useful, or honestly flagged, on the datasets
statisticians reach for first?

    python benchmarks/bench_small_data.py --quick     # 3 seeds, eps in {1, 4}: a few minutes
    python benchmarks/bench_small_data.py            # 20 seeds (5 on the two 20k+ sets), 4 eps

Datasets: scikit-learn iris, wine, breast_cancer, diabetes, digits; statsmodels randhie;
bundled adult and gau. delta = 1e-5. One function per table (``TABLES``); each takes the shared
runs (:func:`scree_runs`, cached) and prints one table. Part B of issue 20 adds its tables
(scales, README path, frame, Analyze Gauss) to ``TABLES``.

Targets of dp_scree's values: for private directions v, v'Sv with S the sample covariance
(what the values estimate); the released values are compared with them per component.
"""
from __future__ import annotations

import argparse
import functools
import warnings

import numpy as np
import pandas as pd

import dppca
from dppca.estimators.scree_accuracy import CLIP_OVER_LAMBDA
from dppca.metrics import sin_theta

DELTA = 1e-5
EPS_FULL, EPS_QUICK = (0.5, 1.0, 2.0, 4.0), (1.0, 4.0)
SEEDS_FULL, SEEDS_QUICK, SEEDS_LARGE = 20, 3, 5
K = 3


def datasets() -> dict:
    """name -> numeric DataFrame (public datasets; loaded once)."""
    from sklearn import datasets as sk
    import statsmodels.api as sm

    out = {name: getattr(sk, f"load_{name}")(as_frame=True).data
           for name in ("iris", "wine", "breast_cancer", "diabetes", "digits")}
    out["randhie"] = sm.datasets.randhie.load_pandas().data.astype(float)
    out["adult"] = dppca.load_adult()
    out["gau"] = dppca.load_gau()
    return out


@functools.cache
def scree_runs(quick: bool) -> pd.DataFrame:
    """One row per (dataset, eps, seed, component): released value, target, marks, interval."""
    rows = []
    for name, frame in datasets().items():
        x = frame.to_numpy(float)
        cov = np.atleast_2d(np.cov(x, rowvar=False))
        n, p = x.shape
        seeds = SEEDS_QUICK if quick else (SEEDS_LARGE if n > 10_000 else SEEDS_FULL)
        for eps in (EPS_QUICK if quick else EPS_FULL):
            for seed in range(seeds):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", dppca.DPAccuracyWarning)
                    res = dppca.dp_scree(frame, k=K, eps=eps, delta=DELTA, rng=seed)
                warned = any(w.category is dppca.DPAccuracyWarning for w in caught)
                v = res.directions.to_numpy()
                target = np.einsum("jl,jk,kl->l", v, cov, v)
                ci = res.conf_int()
                truth = np.linalg.eigh(cov)[1][:, ::-1][:, :K]
                steps = {s.step: s for s in res.accuracy.steps}
                for l in range(K):
                    value = res.scree["clipped"].iloc[l]
                    rows.append(dict(
                        data=name, n=n, p=p, eps=eps, seed=seed, pc=l + 1, value=value,
                        target=target[l], warned=warned,
                        reliable=bool(res.reliable["clipped"].iloc[l]),
                        covered=ci[("clipped", "lower")].iloc[l] <= target[l]
                        <= ci[("clipped", "upper")].iloc[l],
                        trace=res.trace, true_trace=float(np.trace(cov)),
                        trace_pred=steps["trace"].predicted if "trace" in steps else np.nan,
                        value_pred=steps["clipped: scree values"].predicted,
                        value_noise=res.std_err["clipped"].iloc[l] / target[l],
                        sin_theta=sin_theta(v, truth),
                        dir_pred=steps["directions"].predicted,
                        dir_reliable=steps["directions"].reliable))
    runs = pd.DataFrame(rows)
    ratio = runs["value"] / runs["target"]
    runs["within_10x"] = (ratio >= 0.1) & (ratio <= 10)
    return runs


def within_10x_table(runs) -> pd.DataFrame:
    """dp_scree defaults: PC1-PC3 within 10x, negatives, marked-unreliable share of the misses."""
    cells = runs.groupby(["data", "n", "eps"])
    table = pd.DataFrame({
        "within 10x": cells["within_10x"].mean(),
        "negative": cells["value"].apply(lambda v: (v < 0).mean()),
        "misses marked": cells.apply(lambda c: (~c["reliable"][~c["within_10x"]]).mean()
                                     if (~c["within_10x"]).any() else np.nan, include_groups=False),
        "marked reliable": cells["reliable"].mean(),
        "reliable within 10x": cells.apply(lambda c: c["within_10x"][c["reliable"]].mean()
                                           if c["reliable"].any() else np.nan, include_groups=False),
        "CI coverage": cells["covered"].mean()})
    table.insert(0, "n*eps", table.index.get_level_values("n") * table.index.get_level_values("eps"))
    table["target met"] = np.where(table["n*eps"] >= 500, np.where(
        table["within 10x"] >= 0.95, "yes", "NO"), "(n eps < 500)")
    return table


def model_table(runs) -> pd.DataFrame:
    """Accuracy model: predicted vs measured median relative error (trace; PC1 value noise)."""
    first = runs[runs["pc"] == 1]
    cells = first.groupby(["data", "n", "eps"])
    trace_err = (first["trace"] - first["true_trace"]).abs() / first["true_trace"]
    pc1_err = (first["value"] - first["target"]).abs() / first["target"]
    return pd.DataFrame({
        "trace predicted": cells["trace_pred"].median(),
        "trace measured": trace_err.groupby([first["data"], first["n"], first["eps"]]).median(),
        "PC1 predicted": cells["value_pred"].median(),
        "PC1 noise/target": cells["value_noise"].median(),
        "PC1 measured": pc1_err.groupby([first["data"], first["n"], first["eps"]]).median()})


def warning_table(runs) -> pd.DataFrame:
    """Direction warning (public model) vs measured mean sin-theta of g-DPPCA's top-3 subspace."""
    first = runs[runs["pc"] == 1]
    cells = first.groupby(["data", "n", "eps"])
    table = pd.DataFrame({"predicted sin-theta": cells["dir_pred"].median(),
                          "warned": ~cells["dir_reliable"].all(),
                          "mean sin-theta": cells["sin_theta"].mean()})
    table["verdict"] = np.where((table["mean sin-theta"] >= 0.9) & ~table["warned"], "MISSED",
                                np.where((table["mean sin-theta"] < 0.5) & table["warned"],
                                         "false alarm", "ok"))
    return table


#: (title, function) per table; part B appends its own.
TABLES = [("dp_scree defaults: within 10x, negatives, marks, 95% interval coverage (PC1-PC3)",
           within_10x_table),
          ("Accuracy model: predicted vs measured median relative error", model_table),
          ("Directions: the model's warning vs measured sin-theta", warning_table)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 seeds, eps in {1, 4}")
    args = parser.parse_args(argv)
    runs = scree_runs(args.quick)
    seeds = (f"{SEEDS_QUICK} seeds" if args.quick else
             f"{SEEDS_FULL} seeds ({SEEDS_LARGE} on randhie and adult, n > 10,000)")
    print(f"bench_small_data: dp_scree(k={K}, defaults), delta={DELTA:g}, {seeds}; "
          f"clip model: C = {CLIP_OVER_LAMBDA:.2f} lambda\n")
    with pd.option_context("display.width", 160, "display.max_columns", 20,
                           "display.float_format", "{:.3g}".format):
        for title, table in TABLES:
            print(f"== {title}\n{table(runs)}\n")


if __name__ == "__main__":
    main()
