"""The rank path's accuracy model on the corpus: pre- and post-release predictions vs measured.

    python benchmarks/bench_rank_accuracy.py --sets 80 --seeds 2 \
        --out benchmarks/results/rank_accuracy_80sets_2seeds.txt

Per calibration set (:mod:`corpus`, the first ``--sets`` of the index; the held-out half is never
read), eps and seed: the rank path's private directions (k = 2, delta = 1e-5) from
:func:`dppca.methods.latent_correlation.latent_correlation_directions`, the same release,
bridge, repair and accuracy code that ``dppca.dp_pc_dir(X, 2, standardize="rank")`` runs, with
the NON-PRIVATE elementwise Kendall's tau-a matrix computed once per set and reused (the noise is
drawn anew per eps and seed; only the O(p^2 n log n) count is cached). Recorded: sin-theta to the
NON-PRIVATE latent-correlation directions (the path's own estimand), the pre-release prediction
(``dppca.plan``), the post-release prediction and whether it warns (the post-release step is
unreliable, the rule ``dp_pc_dir`` applies: bootstrap median >= ``RANK_WARNING_LEVEL``).

Table per eps: random-level runs (sin-theta >= 0.9) warned; false alarms (warned among runs
with sin-theta < 0.5); share of cells (set x eps) where the plan is within 2x of the measured
median sin-theta (cells where both are >= 0.9 excluded), and the same for the post-release
prediction per run; their median ratios. Then the warning's trade-off curve (random-level runs
warned and false alarms if the post-release prediction were compared with other thresholds),
and how far ANY function of the public numbers (n, p, eps) can take the plan: the residual
log-sd of the measured median sin-theta after the best log-linear fit in log n, log p, log eps
(in-sample, so optimistic), its share within 2x, and the log-sd within bins of similar n, p at
one eps (90% within 2x needs a log-sd of at most log 2 / 1.645 = 0.42 for normal residuals).
Raw rows: ``<out>.runs.csv.gz``.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import provenance  # noqa: E402

import dppca  # noqa: E402
from dppca.methods import latent_correlation as lc  # noqa: E402
from dppca.metrics import sin_theta  # noqa: E402
from dppca.privacy import Ledger  # noqa: E402

K, DELTA = 2, 1e-5
RANDOM, CLEAR = 0.9, 0.5


def _plan(n, p, eps) -> float:
    frame = dppca.plan(n, p, K, eps, DELTA, standardize="rank").to_frame()
    return float(frame.loc[frame["step"].str.startswith("directions"), "predicted"].iloc[0])


def run_set(name, eps_list, seeds) -> list[dict]:
    """Every run on one set, the tau counts computed once."""
    X = corpus.load(name).to_numpy(float)
    n, p = X.shape
    tau = lc.kendall_tau_matrix(X)
    reference = lc.nonprivate_latent_directions(X, K).vectors
    rows = []
    with mock.patch.object(lc, "kendall_tau_matrix", lambda values: tau):
        for eps in eps_list:
            plan = _plan(n, p, eps)
            for seed in range(seeds):
                fit = lc.latent_correlation_directions(
                    X, K, eps=eps, delta=DELTA, rng=np.random.default_rng(seed),
                    calibration="analytic", ledger=Ledger(eps, DELTA))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    report = lc.rank_accuracy(p, K, fit.noise_sd, fit.spectrum,
                                              fit.matrix_noise_sd)
                post = report.steps[1]
                rows.append(dict(data=name, n=n, p=p, eps=eps, seed=seed, plan=plan,
                                 post=post.predicted, warned=not post.reliable,
                                 st=sin_theta(fit.vectors, reference)))
    return rows


def _share(mask) -> str:
    mask = np.asarray(mask, bool)
    return "-" if mask.size == 0 else f"{mask.mean():.2f} ({mask.sum()}/{mask.size})"


def _within(pred, meas):
    fair = ~((pred >= RANDOM) & (meas >= RANDOM))
    ratio = (pred / meas)[fair]
    return _share((ratio >= 0.5) & (ratio <= 2)), float(np.median(ratio)) if ratio.size else np.nan


def table(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for eps, cell in runs.groupby("eps"):
        per_set = cell.groupby("data").agg(st=("st", "median"), plan=("plan", "first"))
        plan_share, plan_ratio = _within(per_set["plan"].to_numpy(), per_set["st"].to_numpy())
        post_share, post_ratio = _within(cell["post"].to_numpy(), cell["st"].to_numpy())
        rows.append({"eps": eps, "sets": len(per_set), "runs": len(cell),
                     "random runs warned": _share(cell["warned"][cell["st"] >= RANDOM]),
                     "false alarms": _share(cell["warned"][cell["st"] < CLEAR]),
                     "plan within 2x": plan_share, "plan/measured": plan_ratio,
                     "post within 2x (runs)": post_share, "post/measured": post_ratio,
                     "median st": per_set["st"].median()})
    return pd.DataFrame(rows).set_index("eps")


def tradeoff(runs: pd.DataFrame, thresholds=(0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)) -> pd.DataFrame:
    """Random-level runs warned / false alarms per eps (and pooled) at other warning levels."""
    rows = []
    for threshold in thresholds:
        warned = runs["post"] >= threshold
        row = {"warn from": threshold}
        for eps, cell in runs.groupby("eps"):
            row[f"eps {eps:g} warned/false"] = (
                f"{warned[cell.index][cell['st'] >= RANDOM].mean():.2f}/"
                f"{warned[cell.index][cell['st'] < CLEAR].mean():.3f}")
        row["pooled warned"] = warned[runs["st"] >= RANDOM].mean()
        row["pooled false"] = warned[runs["st"] < CLEAR].mean()
        rows.append(row)
    return pd.DataFrame(rows).set_index("warn from").round(3)


def plan_limits(runs: pd.DataFrame) -> str:
    """How close a function of public (n, p, eps) can get to the measured median sin-theta."""
    import statsmodels.api as sm

    cells = runs.groupby(["data", "eps"]).agg(n=("n", "first"), p=("p", "first"),
                                               st=("st", "median")).reset_index()
    cells = cells[cells["st"] < RANDOM]  # capped cells say nothing about the shape
    y = np.log(cells["st"].to_numpy())
    X = sm.add_constant(np.log(cells[["n", "p", "eps"]].to_numpy(float)))
    fit = sm.OLS(y, X).fit()
    within = np.mean(np.abs(fit.resid) <= np.log(2.0))
    bins = cells.assign(nb=np.floor(2 * np.log10(cells["n"])), pb=pd.cut(cells["p"],
                                                                         [3, 5, 7, 10, 15, 31]))
    spread = bins.groupby(["nb", "pb", "eps"], observed=True)["st"].agg(
        lambda v: np.std(np.log(v)) if len(v) >= 3 else np.nan).dropna()
    return (f"plan limits ({len(cells)} cells with median sin-theta < {RANDOM}): best log-linear "
            f"fit log st = {fit.params[0]:.2f} + {fit.params[1]:.2f} log n + {fit.params[2]:.2f} "
            f"log p + {fit.params[3]:.2f} log eps, residual log-sd {np.std(fit.resid):.2f}, "
            f"within 2x {within:.2f} (in-sample); log-sd within (n half-decade, p, eps) bins: "
            f"median {spread.median():.2f} over {len(spread)} bins of >= 3 sets\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--sets", type=int, default=80, help="first N calibration sets")
    parser.add_argument("--max-p", type=int, default=None,
                        help="only the chosen sets with at most this many columns")
    parser.add_argument("--out", type=Path, default=None, help="table file (raw rows beside it)")
    args = parser.parse_args(argv)
    chosen = corpus.calibration_sets().iloc[:args.sets]
    if args.max_p is not None:
        chosen = chosen[chosen["p"] <= args.max_p]
    names = chosen["name"].tolist()
    runs, start = [], time.perf_counter()
    for name in names:
        runs += run_set(name, args.eps, args.seeds)
        print(f"  done {name} ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    runs = pd.DataFrame(runs)
    text = (f"rank path accuracy model: {len(names)} calibration sets, eps {args.eps}, "
            f"{args.seeds} seeds, max p {args.max_p}, k = {K}, delta = {DELTA:g}\n"
            + table(runs).to_string() + "\n\nwarning trade-off (post-release prediction >= level)\n"
            + tradeoff(runs).to_string() + "\n\n" + plan_limits(runs))
    info = provenance.collect()
    print(provenance.header(info) + text)
    if args.out is not None:
        provenance.write_text(args.out, text, info)
        provenance.write_csv(runs, f"{args.out}.runs.csv.gz", info, index=False,
                             float_format="%.6g")


if __name__ == "__main__":
    main()
