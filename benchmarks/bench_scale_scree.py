"""Private column scales and dp_scree at n = 10^5 .. 10^6 (d = 20): in memory and as a dask array.

Each configuration runs in a fresh process, so its peak RSS (``resource.getrusage``,
``ru_maxrss``) is its own; ``np.cov`` of the same array is timed in the same process as the
baseline (ratio column; this machine is shared, so np.cov's own time varies several-fold
between processes). Median of ``--repeats`` runs. The data are Gaussian with column SDs
1..20 (the scales' target); the dask array has 64 MiB chunks (threaded scheduler); "parquet"
reads a Parquet file (written once per n, 8 row groups) with dask, so the rows are never all
in the process (no np.cov baseline there).

Usage::

    python benchmarks/bench_scale_scree.py            # n = 10^5 and 10^6, 3 runs each
    python benchmarks/bench_scale_scree.py --quick    # n = 10^5, 2 runs
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bench_scale import cov_seconds

D = 20


def _data(n):
    return np.random.default_rng(0).standard_normal((n, D)) * np.arange(1, D + 1)


def _run_one(task, backend, n, repeats, path=None):
    cov_time = float("nan")
    if backend == "parquet":
        X = path
    else:
        X = _data(n)
        cov_time = cov_seconds(X)
    if backend == "dask":
        import dask.array as da

        X = da.from_array(X, chunks=(max(1, 2**23 // D), D))
    times, error = [], None
    for seed in range(repeats):
        start = time.perf_counter()
        error = _task(task, X, seed)
        times.append(time.perf_counter() - start)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    print(json.dumps({"time": float(np.median(times)), "cov": cov_time, "rss": rss,
                      "error": error}))


def _task(task, X, seed):
    from dppca import dp_scree
    from dppca.preprocessing.dask_input import as_dask_matrix
    from dppca.preprocessing import Matrix
    from dppca.preprocessing.scales import private_column_scales

    if task == "scales":
        mat = as_dask_matrix(X) if isinstance(X, str) else Matrix(X, [f"V{j + 1}" for j in range(D)])
        scales = private_column_scales(mat, 1.0, 1e-5, np.random.default_rng(seed))
        return float(np.max(np.abs(scales / np.arange(1, D + 1) - 1)))  # max relative error
    result = dp_scree(X, 3, eps=1.0, delta=1e-5, rng=seed, standardize=True)
    return float(result.scree.iloc[0, 0])  # PC1's private variance (standardized: ~1 + noise)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--one", nargs=5, metavar=("TASK", "BACKEND", "N", "REPEATS", "PATH"))
    args = parser.parse_args()
    if args.one:
        task, backend, n, repeats, path = args.one
        return _run_one(task, backend, int(n), int(repeats), path)
    sizes, repeats = ([10**5], 2) if args.quick else ([10**5, 10**6], 3)
    print(f"{'task':8} {'backend':8} {'n':>9} {'time s':>8} {'x np.cov':>9} {'peak RSS GiB':>13} "
          f"{'data GiB':>9} {'check':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            path = str(Path(folder) / f"data{n}.parquet")
            pd.DataFrame(_data(n), columns=[f"V{j + 1}" for j in range(D)]).to_parquet(
                path, row_group_size=-(-n // 8))
            _table_rows(n, repeats, path)
    print("check: scales = max relative error of the 20 scales; scree = PC1's private variance")


def _table_rows(n, repeats, path):
    for task in ("scales", "scree"):
        for backend in ("numpy", "dask", "parquet"):
            out = subprocess.run([sys.executable, __file__, "--one", task, backend, str(n),
                                  str(repeats), path], capture_output=True, text=True, check=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{task:8} {backend:8} {n:>9,} {row['time']:8.2f} "
                  f"{row['time'] / row['cov']:9.1f} {row['rss']:13.2f} {n * D * 8 / 2**30:9.2f} "
                  f"{row['error']:10.4f}", flush=True)


if __name__ == "__main__":
    main()
