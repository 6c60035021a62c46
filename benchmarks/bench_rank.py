"""Benchmark: the rank path's elementwise Kendall's tau matrix against np.corrcoef, same data, same run.

Run ``python benchmarks/bench_rank.py`` (n = 1e5 and 1e6, p = 20, 5 runs) or ``--quick``
(n = 1e4 and 1e5, 3 runs). For each n it draws Gaussian data with a fixed seed (equicorrelated
0.3, every fourth column rounded to 0.1 and the last one to 5 levels, so several columns hold
ties), makes one untimed warm-up call of each function (numba compiles once per machine), then
times, interleaved run by run, ``np.corrcoef`` (the target's reference), the elementwise
``kendall_tau_matrix`` (:mod:`dppca.stats.elementwise_kendall`, Knight's algorithm in numba
threads), its incomplete U-statistic over a block design with r = 15 pairs per row
(:mod:`dppca.stats.elementwise_kendall_blocks`, same sensitivity 2 p / n; ``max|diff|`` is its
largest entrywise distance to the complete matrix) and the whole private
``dp_pc_dir(standardize="rank")`` end to end (k = 2, eps = 1, delta = 1e-5, ``design="auto"``:
its pairs per row, from the public n and p, are printed as ``auto r``, "all" for the complete
statistic; :func:`dppca.stats.elementwise_kendall_blocks_design.rank_pairs_per_row_rule`). It
prints the median wall time of each, the same-run ratio to np.corrcoef and the 1-minute load
average read before and after the row (timings on a shared machine mean little without it).
Target (the rank path's speed item): the rank path at n = 1e6, p = 20 within 10x of
np.corrcoef (the verdict is given for the complete and the block statistic and for the
end-to-end dp_pc_dir). A report, not a test: a missed target is printed, never an exit status.

``--parquet N`` adds a row for N rows (the issue's 1e7) written to a Parquet file under /tmp and
read back through dask (``dask.dataframe.read_parquet(...).to_dask_array(lengths=True)``, chunks
of the file's row groups): the block statistic computed chunk by chunk
(:func:`dppca.stats.elementwise_kendall_blocks.dask_block_kendall_tau_matrix`, bitwise equal to
the in-memory one) and the whole ``dp_pc_dir(standardize="rank")`` on the lazily read dask
DataFrame (auto design: blocks), against np.corrcoef on the same rows in memory. When in-memory
rows ran first (numba compiled, the file in the page cache only after its first read) the
Parquet row skips the untimed warm-up run, to fit the run in about a quarter of an hour.

``--keep-parquet FILE`` copies the Parquet row of an earlier results file (its commit and date
named in a note line) instead of timing it again, for runs on a machine too loaded to time
10^7 rows in reasonable time.

``--out FILE`` also writes the table under a header with the git commit, the date, the machine
(cores usable, BLAS and its threads, numba's threads) and the exact command.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dppca import dp_pc_dir  # noqa: E402
from dppca.stats.elementwise_kendall import kendall_tau_matrix  # noqa: E402
from dppca.stats.elementwise_kendall_blocks import block_kendall_tau_matrix  # noqa: E402
from dppca.stats.elementwise_kendall_blocks_design import rank_pairs_per_row_rule  # noqa: E402
from dppca.stats.pair_design import block_design  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
import provenance  # noqa: E402

FULL_NS, QUICK_NS, P = (100_000, 1_000_000), (10_000, 100_000), 20
TARGET_RATIO = 10.0
#: Pairs per row of the incomplete statistic (blocks of 16 rows): its extra variance, at most
#: about 2 / (n r) per entry, is under a third of the complete statistic's (about 4 / (9 n) at
#: small tau), and it keeps the sensitivity 2 p / n.
PAIRS_PER_ROW = 15


def data(n: int, p: int = P, seed: int = 0) -> np.ndarray:
    """Equicorrelated (0.3) Gaussian rows; columns 0, 4, 8, ... rounded to 0.1, the last to 5 levels."""
    rng = np.random.default_rng(seed)
    x = 0.3 ** 0.5 * rng.standard_normal((n, 1)) + 0.7 ** 0.5 * rng.standard_normal((n, p))
    x[:, ::4] = np.round(x[:, ::4], 1)
    x[:, -1] = np.digitize(x[:, -1], [-1.0, -0.3, 0.3, 1.0])
    return x


def private_directions(x, rng):
    """One private rank-path call with the default design="auto"."""
    with warnings.catch_warnings():  # accuracy warnings at small n are expected, not timed news
        warnings.simplefilter("ignore")
        return dp_pc_dir(x, 2, standardize="rank", g_dppca=True, eps=1.0, delta=1e-5, rng=rng)


def median_times(calls: dict, runs: int) -> dict:
    """Median wall seconds of each call over ``runs`` interleaved runs, with the 1-minute load
    average before and after."""
    load_before = os.getloadavg()[0]
    times = {name: [] for name in calls}
    for _ in range(runs):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    row = {name: statistics.median(values) for name, values in times.items()}
    row.update(runs=runs, load_before=load_before, load_after=os.getloadavg()[0])
    return row


def time_row(n: int, runs: int) -> dict:
    """Median wall seconds of each timed call over ``runs`` interleaved runs, and the load."""
    x = data(n)
    frame = pd.DataFrame(x, columns=[f"x{j}" for j in range(x.shape[1])])
    rng = np.random.default_rng(1)
    design = block_design(n, PAIRS_PER_ROW, np.random.default_rng(2))
    calls = {"corrcoef": lambda: np.corrcoef(x, rowvar=False),
             "kendall": lambda: kendall_tau_matrix(x),
             "blocks": lambda: block_kendall_tau_matrix(x, design),
             "dp_pc_dir": lambda: private_directions(frame, rng)}
    warm = {name: call() for name, call in calls.items()}  # warm-up: numba compilation, caches
    max_diff = float(np.max(np.abs(warm["blocks"] - warm["kendall"])))
    row = median_times(calls, runs)
    row.update(n=n, p=x.shape[1], max_diff=max_diff, auto=rank_pairs_per_row_rule(n, x.shape[1]))
    return row


def time_parquet(n: int, runs: int, folder: Path, warm_up: bool = True) -> dict:
    """Median wall seconds of the dask block statistic and of the whole private dp_pc_dir on a
    Parquet file of n rows, and of np.corrcoef on the same rows in memory (after one untimed run
    of each when ``warm_up``)."""
    import dask.dataframe as dd

    from dppca.stats.elementwise_kendall_blocks import dask_block_kendall_tau_matrix

    x = data(n)
    path = folder / f"bench_rank_{n}.parquet"
    pd.DataFrame(x, columns=[f"x{j}" for j in range(x.shape[1])]).to_parquet(
        path, row_group_size=1_000_000, index=False)
    design = block_design(n, PAIRS_PER_ROW, np.random.default_rng(2))
    rng = np.random.default_rng(1)
    calls = {"corrcoef": lambda: np.corrcoef(x, rowvar=False),
             "dask blocks": lambda: dask_block_kendall_tau_matrix(
                 dd.read_parquet(path).to_dask_array(lengths=True), design),
             "dp_pc_dir": lambda: private_directions(dd.read_parquet(path), rng)}
    for call in calls.values() if warm_up else ():
        call()
    row = median_times(calls, runs)
    row.update(n=n, auto=rank_pairs_per_row_rule(n, x.shape[1], lazy=True))
    return row


def kept_parquet_row(text: str) -> list[str]:
    """The Parquet row (title and numbers) of an earlier results file, with a note naming its run."""
    lines = text.splitlines()
    commit = next((line for line in lines if line.startswith("# commit:")), "# commit: unknown")
    date = next((line for line in lines if line.startswith("# date:")), "# date: unknown")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("n (Parquet, dask)"))
    return [f"# note: Parquet row kept from an earlier run, not timed again ({commit[2:]}; "
            f"{date[2:]}): 10^7 rows did not fit the time of this run on the shared machine",
            *lines[start:start + 2]]


def machine() -> str:
    """Cores usable by this process, BLAS and thread counts (threadpoolctl), numba's threads."""
    import numba
    from threadpoolctl import threadpool_info

    blas = ", ".join(f"{lib.get('internal_api')} {lib.get('version')} ({lib.get('num_threads')} threads)"
                     for lib in threadpool_info() if lib.get("user_api") == "blas") or "unknown"
    return (f"{platform.node()} {platform.machine()}, nproc {len(os.sched_getaffinity(0))} of "
            f"{os.cpu_count()}, BLAS {blas}, numba {numba.__version__} ({numba.get_num_threads()} "
            f"threads), numpy {np.__version__}, Python {platform.python_version()}")


def header() -> list[str]:
    """Provenance (benchmarks/provenance.py) plus this machine's numba threads."""
    return provenance.header(provenance.collect(
        note=f"Kendall's tau matrix (rank path) vs np.corrcoef, medians of runs; {machine()}")).splitlines()


def table(rows) -> list[str]:
    lines = [f"{'n':>9}{'p':>4}{'runs':>5}{'corrcoef s':>12}{'kendall s':>11}{'ratio':>8}"
             f"{'blocks s':>10}{'ratio':>8}{'max|diff|':>10}{'auto r':>7}"
             f"{'dp_pc_dir s':>13}{'ratio':>8}{'load 1m':>13}  target (kendall, blocks, dp_pc_dir <= 10x)"]
    lines.append("-" * len(lines[0]))
    for r in rows:
        ratio, ratio_dir = r["kendall"] / r["corrcoef"], r["dp_pc_dir"] / r["corrcoef"]
        ratio_blocks = r["blocks"] / r["corrcoef"]
        verdict = ", ".join("met" if value <= TARGET_RATIO else "missed"
                            for value in (ratio, ratio_blocks, ratio_dir))
        lines.append(f"{r['n']:>9}{r['p']:>4}{r['runs']:>5}{r['corrcoef']:>12.4f}{r['kendall']:>11.4f}"
                     f"{ratio:>8.1f}{r['blocks']:>10.4f}{ratio_blocks:>8.1f}{r['max_diff']:>10.4f}"
                     f"{_pairs(r['auto']):>7}{r['dp_pc_dir']:>13.4f}{ratio_dir:>8.1f}"
                     f"{r['load_before']:>6.1f}->{r['load_after']:<5.1f}  "
                     f"{verdict if r['n'] >= 1_000_000 else '-'}")
    return lines


def _pairs(auto) -> str:
    """The auto design's pairs per row; "all" for the complete statistic."""
    return "all" if auto is None else str(auto)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e4 and 1e5, 3 runs")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per n (default 5; 3 with --quick)")
    parser.add_argument("--n", type=int, nargs="*", help="row counts (default 1e5 1e6)")
    parser.add_argument("--parquet", type=int, default=None, metavar="N",
                        help="add the dask row: N rows from a Parquet file in /tmp (e.g. 10000000)")
    parser.add_argument("--skip-memory", action="store_true", help="only the --parquet row")
    parser.add_argument("--keep-parquet", type=Path, metavar="FILE",
                        help="copy the Parquet row of this earlier results file (not timed again)")
    parser.add_argument("--out", type=Path, help="also write the header and table to this file")
    args = parser.parse_args(argv)
    runs = args.runs or (3 if args.quick else 5)
    ns = args.n or (QUICK_NS if args.quick else FULL_NS)
    lines = header()
    print("\n".join(lines), flush=True)
    rows = []
    for n in ([] if args.skip_memory else ns):
        rows.append(time_row(n, runs))
        print(table(rows)[-1] if len(rows) > 1 else "\n".join(table(rows)), flush=True)
    body = table(rows) if rows else []
    if args.parquet:
        import tempfile

        with tempfile.TemporaryDirectory(dir="/tmp") as folder:
            r = time_parquet(args.parquet, runs, Path(folder), warm_up=not rows)
        parquet = [f"{'n (Parquet, dask)':>18}{'runs':>5}{'corrcoef s':>12}{'dask blocks s':>15}{'ratio':>8}"
                   f"{'auto r':>7}{'dp_pc_dir s':>13}{'ratio':>8}{'load 1m':>13}",
                   f"{r['n']:>18}{r['runs']:>5}{r['corrcoef']:>12.4f}{r['dask blocks']:>15.4f}"
                   f"{r['dask blocks'] / r['corrcoef']:>8.1f}{_pairs(r['auto']):>7}{r['dp_pc_dir']:>13.4f}"
                   f"{r['dp_pc_dir'] / r['corrcoef']:>8.1f}{r['load_before']:>6.1f}->{r['load_after']:<5.1f}"]
        print("\n".join(parquet), flush=True)
        body += [""] + parquet
    elif args.keep_parquet:
        body += [""] + kept_parquet_row(args.keep_parquet.read_text())
        print("\n".join(body[-3:]), flush=True)
    if args.out:
        args.out.write_text("\n".join(lines + body) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
