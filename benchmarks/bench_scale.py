"""Scale-out benchmark: g-DPPCA at n = 10^5 .. 10^7 (d = 20), in memory, from Parquet, on dask.

Two tables:

1. Speed and memory. Each configuration runs in a fresh process (so its peak RSS is its
   own, read from ``os.wait4``; a LocalCluster's worker processes are reported apart):
   g-DPPCA with ``design="auto"`` (incomplete above ~1 s of complete work) on
   - an in-memory numpy array (with ``np.cov`` timed on the same array in the same process:
     the ratio is the target "at most 40x np.cov"),
   - a Parquet file read by dask on the default threaded scheduler,
   - the same file on a ``LocalCluster`` of 2 worker processes (1 thread each).
   Median of ``--repeats`` runs. Targets on this 2-core machine: n = 10^6 in memory <= 15 s;
   n = 10^7 from Parquet <= 120 s with <= 4 GiB peak RSS.
2. Accuracy: mean sin-theta distance to the true top-2 eigenvectors for the complete and the
   incomplete Kendall's tau matrix (pairs per row from
   :func:`dppca.stats.pair_design.resolve_design` with design="incomplete"), Gaussian and
   multivariate t_1 data of Kim & Jung (2025, §4: eigenvalues 10, 5, 1, ..., 1), n in
   {2*10^4, 10^5, 2*10^5}, eps in {0.5, 1}, delta = 1e-5. Each data set's complete matrix is
   computed once and gets independent noise for each eps; complete and incomplete share the
   data set and the noise draw (a paired comparison). Target: incomplete within 5% (relative).

Usage::

    python benchmarks/bench_scale.py            # full: n up to 10^7, 20 data sets per cell
    python benchmarks/bench_scale.py --quick    # n = 10^5 speed rows, n = 2*10^4 accuracy, 4 data sets
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from provenance import write_csv

D = 20
DELTA = 1e-5
HERE = Path(__file__).resolve()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (for make bench)")
    parser.add_argument("--repeats", type=int, default=None, help="runs per speed configuration")
    parser.add_argument("--data-sets", type=int, default=None, help="data sets per accuracy cell")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="also write the tables as scale_speed.csv / scale_accuracy.csv here")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="keep the generated Parquet files here (default: a temporary dir)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(json.loads(args.worker))))
        return 0
    sizes = [10**5] if args.quick else [10**5, 10**6, 10**7]
    repeats = args.repeats or (1 if args.quick else 3)
    if not args.skip_speed:
        _show(speed_table(sizes, repeats, args.data_dir), args.out_dir, "scale_speed.csv")
        print()
    if not args.skip_accuracy:
        ns = [2 * 10**4] if args.quick else [2 * 10**4, 10**5, 2 * 10**5]
        _show(accuracy_table(ns, args.data_sets or (4 if args.quick else 20)), args.out_dir,
              "scale_accuracy.csv")
    return 0


def _show(table: pd.DataFrame, out_dir, name: str) -> None:
    """Print a table (with the load average) and write it to out_dir/name when asked."""
    print(f"load average: {os.getloadavg()}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"), flush=True)
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        write_csv(table, Path(out_dir) / name, index=False)


# ---------------------------------------------------------------------------------------------
# Speed and memory
# ---------------------------------------------------------------------------------------------

def speed_table(sizes, repeats, data_dir=None) -> pd.DataFrame:
    rows = []
    with tempfile.TemporaryDirectory(prefix="dppca-bench-scale-") as tmp:
        tmp = data_dir or tmp
        Path(tmp).mkdir(parents=True, exist_ok=True)
        for n in sizes:
            path = write_parquet(Path(tmp) / f"t_{n}.parquet", n)
            for source, scheduler in [("memory", "threaded"), ("parquet", "threaded"),
                                      ("parquet", "LocalCluster(2)")]:
                runs = [_run_worker(dict(n=n, source=source, scheduler=scheduler, path=str(path)))
                        for _ in range(repeats)]
                rows.append(_summarise(n, source, scheduler, runs))
    return pd.DataFrame(rows)


def write_parquet(path: Path, n: int, row_group: int = 10**6) -> Path:
    """An n x 20 multivariate t_5 table written in row groups (never all rows in memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = [f"x{j + 1}" for j in range(D)]
    writer = None
    for start in range(0, n, row_group):
        block = _t_rows(min(row_group, n - start), seed=start)
        table = pa.Table.from_arrays([pa.array(block[:, j]) for j in range(D)], names=names)
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()
    return path


def _t_rows(m: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scale = np.sqrt(rng.chisquare(5, size=(m, 1)) / 5)
    return rng.standard_normal((m, D)) * np.linspace(3.0, 1.0, D) / scale


def _run_worker(config) -> dict:
    proc = subprocess.Popen([sys.executable, str(HERE), "--worker", json.dumps(config)],
                            stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise RuntimeError(f"worker failed for {config}: status {status}")
    result = json.loads(out.strip().splitlines()[-1])
    result["peak_rss_gib"] = usage.ru_maxrss / 2**20  # ru_maxrss is in KiB on Linux
    return result


def _summarise(n, source, scheduler, runs) -> dict:
    median = {key: float(np.median([r[key] for r in runs if r.get(key) is not None]))
              for key in ("seconds", "peak_rss_gib", "cov_seconds", "worker_rss_gib")
              if any(r.get(key) is not None for r in runs)}
    row = {"n": f"{n:.0e}", "source": source, "scheduler": scheduler, "runs": len(runs),
           "pairs/row": runs[0]["pairs_per_row"], "seconds": median["seconds"],
           "peak RSS GiB": median["peak_rss_gib"],
           "worker RSS GiB": median.get("worker_rss_gib", float("nan")),
           "np.cov s": median.get("cov_seconds", float("nan"))}
    row["x np.cov"] = row["seconds"] / row["np.cov s"]
    return row


def cov_seconds(X: np.ndarray, repeats: int = 3) -> float:
    """Median seconds of np.cov on X (the first call also pays BLAS start-up and page faults)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        np.cov(X, rowvar=False)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _worker(config) -> dict:
    """One timed g-DPPCA call in this process (run as a subprocess by speed_table)."""
    from dppca import dp_pc_dir

    options = dict(k=2, g_dppca=True, eps=1.0, delta=DELTA, rng=1)
    result = {"cov_seconds": None, "worker_rss_gib": None}
    if config["source"] == "memory":
        X = _t_rows(config["n"], seed=0)
        result["cov_seconds"] = cov_seconds(X)
        start = time.perf_counter()
        fit = dp_pc_dir(X, **options)
    elif config["scheduler"] == "threaded":
        start = time.perf_counter()
        fit = dp_pc_dir(config["path"], **options)
    else:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            start = time.perf_counter()
            fit = dp_pc_dir(config["path"], **options)
            seconds = time.perf_counter() - start
            rss = client.run(lambda: __import__("resource").getrusage(
                __import__("resource").RUSAGE_SELF).ru_maxrss)
            result["worker_rss_gib"] = max(rss.values()) / 2**20
            return {**result, "seconds": seconds, "pairs_per_row": _pairs(fit)}
    result["seconds"] = time.perf_counter() - start
    result["pairs_per_row"] = _pairs(fit)
    return result


def _pairs(fit) -> str:
    """Pairs per row that design="auto" used (the public rule; "all" for the complete design)."""
    from dppca.stats.pair_design import resolve_design

    r = resolve_design("auto", None, fit.n_obs, D, 1.0, DELTA, "analytic")
    return "all" if r is None else str(r)


# ---------------------------------------------------------------------------------------------
# Accuracy: complete vs incomplete
# ---------------------------------------------------------------------------------------------

def accuracy_table(ns, data_sets) -> pd.DataFrame:
    from dppca.stats.kendall import kendall_tau_matrix
    from dppca.methods import top_eigen
    from dppca.methods.gdppca import GDPPCA_SENSITIVITY_CONSTANT
    from dppca.metrics import sin_theta
    from dppca.stats.pair_design import block_design, incomplete_kendall_tau_matrix, resolve_design
    from dppca.privacy import gaussian_sigma, symmetric_gaussian_noise
    from dppca.simulate import kim_jung_sigma, simulate_kim_jung

    truth = kim_jung_sigma(D)[1]
    rows = []
    for distribution in ("gaussian", "t1"):
        for n in ns:
            losses = {(eps, design): [] for eps in (0.5, 1.0) for design in ("complete", "incomplete")}
            pairs = {}
            for seed in range(data_sets):
                X = simulate_kim_jung(distribution, n, D, rng=seed)
                complete = kendall_tau_matrix(X)
                for eps in (0.5, 1.0):
                    r = resolve_design("incomplete", None, n, D, eps, DELTA, "analytic")
                    design = block_design(n, r, np.random.default_rng([seed, 1]))
                    pairs[eps] = design.pairs_per_row
                    incomplete = incomplete_kendall_tau_matrix(X, design)
                    sigma = gaussian_sigma(GDPPCA_SENSITIVITY_CONSTANT / n, eps, DELTA)
                    noise = symmetric_gaussian_noise(D, sigma, np.random.default_rng([seed, 2]))
                    for name, K in (("complete", complete), ("incomplete", incomplete)):
                        losses[(eps, name)].append(sin_theta(top_eigen(K + noise, 2)[1], truth))
            for eps in (0.5, 1.0):
                full, part = np.array(losses[(eps, "complete")]), np.array(losses[(eps, "incomplete")])
                ratio = part / full
                rows.append({"distribution": distribution, "n": n, "eps": eps,
                             "pairs/row": pairs[eps], "data sets": data_sets,
                             "complete": full.mean(), "incomplete": part.mean(),
                             "relative diff": part.mean() / full.mean() - 1,
                             "se(rel)": ratio.std(ddof=1) / np.sqrt(ratio.size)
                             if ratio.size > 1 else float("nan"),
                             "within 5%": abs(part.mean() / full.mean() - 1) <= 0.05})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    sys.exit(main())
