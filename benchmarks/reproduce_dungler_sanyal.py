"""Reproduce the spiked-model experiments of Duengler & Sanyal (2025, Figures 1-2, Appendix G).

Design (the paper's): k = 2, d = 200, lambda_1 = 10, eps = 1, delta = 0.01, K = 1, a = 1,
zeta = 0.01, B = sqrt(n) where the method allows it, k-DP-Ojas steps 1/(1 + j) in the paper's
units (our scale-free default eta_0 / ((1 + j) beta) is run instead; see below), 50 trials.
Two data models with the same Sigma = V diag(10, 5) V^T + sigma^2 I (V a random orthonormal
d x 2 frame; lambda_2 = 5 is our choice, the text does not state it):

- "matrix" (the paper's, App. G.1): A_i = V Lambda V^T + z_i z_i^T, z_i ~ N(0, sigma^2 I). The
  signal is deterministic, so the Oja gradients A_i w spread only by O(sigma^2): the regime
  where k-DP-PCA's adaptive noise should win. The oracles of ``dppca.methods.k_dp_pca`` run
  on it directly (the deterministic part enters as an ``offset``), with the paper's step
  sizes (k-DP-PCA: 1/(20 sigma lambda_i + (lambda_i - lambda_{i+1}) t / log n) with the true
  eigenvalues; k-DP-Ojas: 1/(1 + j)) and public, model-based clipping levels (nothing clipped
  with probability 1 - zeta): beta = lambda_1 + sigma^2 chi2_d(1 - zeta/n) for DP-Ojas, trace
  bound lambda_1 + lambda_2 + sigma^2 chi2_d(1 - zeta/n) for DP-Gauss-1 (Analyze Gauss on the
  trace-clipped A_i) and the noisy power method. g-DPPCA needs rows and is not run.
- "rows": x_i = V diag(sqrt(10), sqrt(5)) r_i + sigma z_i, r_i Rademacher, z_i ~ N(0, I), i.e.
  A_i = x_i x_i^T, run through ``dp_pc_dir`` (paired differences, private clipping bounds).
  Here the gradients spread by O(sqrt(lambda_1 lambda_2)) whatever sigma: there is no
  low-noise regime for k = 2 row data. Noise levels: sigma = 0.025 (the paper's low-noise Figure 1a / 2c) and
sigma = 1 (a higher-noise setting, Figure 2b). The paper's n grid is only drawn, not stated; we
use n in {2,500, 5,000, 10,000, 20,000, 50,000, 100,000} (k-DP-PCA's public minimum at this
budget is 2,208 rows in the matrix model and 4,416 on rows).

Methods on rows, through ``dp_pc_dir`` with their defaults (private clipping bounds on the
ledger): k-DP-PCA, k-DP-Ojas, the noisy power method (DP-Power-Method), Analyze Gauss
(DP-Gauss-1), g-DPPCA (spherical; run for n <= 20,000 only: its Kendall matrix costs
O(n^2 d)). Privacy unit: one A_i (one row), replace-one, (eps, delta) = (1, 0.01). One
evidence-only line, "k-DP-Ojas, paper's alpha (NOT DP here)", runs the same oracle with the
paper's printed noise multiplier alpha = log(n/delta)/(eps sqrt(n)) (C' = 1), which is private
only under an amplification-by-shuffling argument (Theorem 10, eps = O(sqrt(log(n/delta)/n)))
that does not hold at eps = 1: it shows how much of the gap to the paper is the calibration.

Utility: captured-variance ratio <U U^T, Sigma> / (lambda_1(Sigma) + lambda_2(Sigma)) (the
paper's Definition 1; 1 is perfect, a random 2-D subspace of R^200 gives ~0.01); also the
sin-theta distance to V.

Writes under ``--out`` (default benchmarks/results/): ``dungler_sanyal[_quick]_fits.csv``
(one row per fit), ``..._summary.csv`` (mean and 95% CI per cell), ``..._claims.csv`` (the
paper's qualitative claims checked) and ``..._utility_vs_n.png``.

Usage::

    nice -n 10 python benchmarks/reproduce_dungler_sanyal.py              # 50 trials
    nice -n 10 python benchmarks/reproduce_dungler_sanyal.py --trials 10  # fewer trials
    python benchmarks/reproduce_dungler_sanyal.py --quick                 # 1 trial, 2 values of n
    # the 50 trials on two cores: two parts in parallel, then join them
    python benchmarks/reproduce_dungler_sanyal.py --part 0/2 & python benchmarks/reproduce_dungler_sanyal.py --part 1/2; wait
    python benchmarks/reproduce_dungler_sanyal.py --merge 2
    # Figure 4 (Gaussian rows; dungler_sanyal_fig4.py): the same --part/--merge, plus --figure4
    python benchmarks/reproduce_dungler_sanyal.py --figure4 --part 0/2 & \
        python benchmarks/reproduce_dungler_sanyal.py --figure4 --part 1/2; wait
    python benchmarks/reproduce_dungler_sanyal.py --figure4 --merge 2
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from provenance import read_csv, save_figure, write_csv
from reproduce_cli import reproduction_parser
import dungler_sanyal_fig4 as fig4

from dppca import DPPCAValueError, dp_pc_dir
from scipy.stats import chi2

from dppca.methods._base import orient, top_eigen
from dppca.methods._shared import paired_differences, resolve_norm_bound
from dppca.methods.k_dp_ojas import OJA_LEARNING_RATE, dp_oja
from dppca.methods.k_dp_pca import (FAILURE_PROB, RANGE_CONSTANT, split_chunks, deflate,
                                    modified_dp_pca, batch_plan, project)
from dppca.metrics import sin_theta
from dppca.privacy import Ledger, gaussian_sigma, symmetric_gaussian_noise
from dppca.privacy.samplers import gaussian_noise

K, D, EPS, DELTA, ZETA = 2, 200, 1.0, 0.01, 0.01
SPIKES = np.array([10.0, 5.0])
SIGMAS = (0.025, 1.0)
FULL = {"n": (2_500, 5_000, 10_000, 20_000, 50_000, 100_000), "trials": 50}
QUICK = {"n": (2_500, 20_000), "trials": 1}
#: g-DPPCA's Kendall matrix is O(n^2 d): run it up to this n (10,000 in --quick).
GDPPCA_MAX_N = 20_000
PAPER_ALPHA = "k-DP-Ojas, paper's alpha (NOT DP here)"
METHODS = {
    "k-DP-PCA": ("k_dp_pca", {}),
    "k-DP-Ojas": ("k_dp_ojas", {}),
    "noisy power": ("noisy_power", {}),
    "Analyze Gauss": ("analyze_gauss", {}),
    "g-DPPCA": ("gdppca", {}),
}


def spiked_rows(n: int, sigma: float, V: np.ndarray, rng) -> np.ndarray:
    """x = V diag(sqrt(spikes)) r + sigma z, r Rademacher, z standard normal: (n, d)."""
    signs = rng.choice([-1.0, 1.0], size=(n, K))
    return (signs * np.sqrt(SPIKES)) @ V.T + sigma * rng.standard_normal((n, V.shape[0]))


def utility(U: np.ndarray, V: np.ndarray, sigma: float) -> float:
    """<U U^T, Sigma> / sum of the top-k eigenvalues of Sigma = V diag(spikes) V^T + sigma^2 I."""
    captured = float(np.sum(SPIKES * np.sum((U.T @ V) ** 2, axis=0))) + sigma ** 2 * K
    return captured / float(np.sum(SPIKES) + K * sigma ** 2)


def random_utility(sigma: float) -> float:
    """Expected utility of a uniformly random k-dim subspace: E<UU^T, Sigma> = (k/d) tr Sigma."""
    return K / D * float(np.sum(SPIKES) + D * sigma ** 2) / float(np.sum(SPIKES) + K * sigma ** 2)


def paper_alpha_ojas(X: np.ndarray, rng) -> np.ndarray:
    """k-DP-Ojas with the paper's noise multiplier alpha = log(n/delta)/(eps sqrt(n)) (evidence only).

    Same paired differences, private bound and scale-free steps as ``method="k_dp_ojas"``; the
    per-step noise sd is 2 beta alpha (Algorithm 3) instead of the Gaussian mechanism's.
    """
    rows = paired_differences(X, rng)
    bound, eps_m, _ = resolve_norm_bound(rows, None, 0.5, 0.2, EPS, DELTA, rng, Ledger(EPS, DELTA),
                                         "paper alpha")
    beta = bound ** 2
    alpha = math.log(X.shape[0] / DELTA) / (eps_m * math.sqrt(X.shape[0]))
    chunks = split_chunks(rows, K)
    return deflate(chunks, rng, lambda chunk, U: dp_oja(chunk, U, beta, 2 * beta * alpha,
                                                          OJA_LEARNING_RATE / beta, rng))


def one_trial(n: int, sigma: float, trial: int, seed: int, gdppca_max_n: int) -> list[dict]:
    rng = np.random.default_rng([seed, n, int(sigma * 1000), trial])
    V = np.linalg.qr(rng.standard_normal((D, K)))[0]
    return rows_model(n, sigma, trial, V, rng, gdppca_max_n) + matrix_model(n, sigma, trial, V, rng)


def rows_model(n, sigma, trial, V, rng, gdppca_max_n) -> list[dict]:
    X = spiked_rows(n, sigma, V, rng)
    rows = []
    for label, (method, options) in METHODS.items():
        if method == "gdppca" and n > gdppca_max_n:
            continue
        start = time.perf_counter()
        try:
            U = dp_pc_dir(X, K, method=method, eps=EPS, delta=DELTA, rng=rng, **options) \
                .directions.to_numpy()
            status = "ok"
        except DPPCAValueError as error:
            U, status = None, f"refused: {str(error)[:60]}"
        rows.append(_row("rows", label, n, sigma, trial, U, V, status, time.perf_counter() - start))
    start = time.perf_counter()
    U = orient(paper_alpha_ojas(X, rng))
    rows.append(_row("rows", PAPER_ALPHA, n, sigma, trial, U, V, "ok", time.perf_counter() - start))
    return rows


def matrix_model(n, sigma, trial, V, rng) -> list[dict]:
    """The paper's A_i = V Lambda V^T + z_i z_i^T, with its step sizes and model-based clipping."""
    Z = sigma * rng.standard_normal((n, D))
    S = (V * SPIKES) @ V.T
    offset = lambda w, U: project(S @ w, U)  # noqa: E731 -- P S P w for w in Im(P)
    tail = sigma ** 2 * chi2.ppf(1 - ZETA / n, D)  # ||z||^2 <= tail with probability 1 - zeta
    beta, trace = SPIKES[0] + tail, SPIKES.sum() + tail
    chunks = np.array_split(Z, K)
    fits = {}
    plan = batch_plan(len(chunks[-1]), D, K, EPS, DELTA, None, 1.0, FAILURE_PROB, RANGE_CONSTANT)
    lam = np.append(SPIKES, 0.0) + sigma ** 2
    plan["eta"] = lambda t, i: 1 / (20 * sigma * lam[i] + (lam[i] - lam[i + 1]) * t / math.log(n))
    outcome = {"failed": 0, "steps": 0, "zero_centres": 0}  # the counters modified_dp_pca keeps
    fits["k-DP-PCA"] = lambda: deflate(chunks, rng, lambda c, U: modified_dp_pca(
        c, U, plan, rng, "analytic", outcome, offset))
    noise = gaussian_sigma(2 * beta, EPS, DELTA)
    fits["k-DP-Ojas"] = lambda: deflate(chunks, rng, lambda c, U: dp_oja(
        c, U, beta, noise, 1.0, rng, offset))
    alpha = math.log(n / DELTA) / (EPS * math.sqrt(n))
    fits[PAPER_ALPHA] = lambda: deflate(chunks, rng, lambda c, U: dp_oja(
        c, U, beta, 2 * beta * alpha, 1.0, rng, offset))
    moment = lambda: _clipped_matrix_mean(S, Z, trace)  # noqa: E731
    fits["Analyze Gauss"] = lambda: _analyze_gauss(moment(), trace, n, rng)
    fits["noisy power"] = lambda: _noisy_power(moment(), trace, n, rng)
    rows = []
    for label, fit in fits.items():
        start = time.perf_counter()
        U = fit()
        rows.append(_row("matrix", label, n, sigma, trial, U, V, "ok", time.perf_counter() - start))
    return rows


def _clipped_matrix_mean(S, Z, trace) -> np.ndarray:
    """(1/n) sum_i c_i (S + z_i z_i^T), c_i = min(1, trace / tr(S + z_i z_i^T)) (trace clipping)."""
    c = np.minimum(1.0, trace / (np.trace(S) + np.einsum("ij,ij->i", Z, Z)))
    return c.mean() * S + (Z * c[:, None]).T @ Z / Z.shape[0]


def _analyze_gauss(moment, trace, n, rng) -> np.ndarray:
    """DP-Gauss-1: PSD A, A' with trace <= T differ by <= sqrt(2) T in Frobenius norm (replace-one)."""
    sigma = gaussian_sigma(math.sqrt(2) * trace / n, EPS, DELTA)
    return top_eigen(moment + symmetric_gaussian_noise(D, sigma, rng), K)[1]


def _noisy_power(moment, trace, n, rng) -> np.ndarray:
    """Hardt-Price with L = ceil(2 ln d) iterations, composed as in ``method="noisy_power"``."""
    L = math.ceil(2 * math.log(D))
    sigma = gaussian_sigma(math.sqrt(L) * math.sqrt(2) * trace / n, EPS, DELTA)
    X = np.linalg.qr(rng.standard_normal((D, K)))[0]
    for _ in range(L):
        X = np.linalg.qr(moment @ X + gaussian_noise(sigma, (D, K), rng))[0]
    return X


def _row(model, label, n, sigma, trial, U, V, status, seconds) -> dict:
    ok = U is not None
    return {"model": model, "method": label, "n": n, "sigma": sigma, "trial": trial, "status": status,
            "utility": utility(U, V, sigma) if ok else np.nan,
            "sin_theta": sin_theta(U, V) if ok else np.nan, "seconds": seconds}


def summarise(fits: pd.DataFrame) -> pd.DataFrame:
    ok = fits[fits["status"] == "ok"]
    g = ok.groupby(["model", "sigma", "method", "n"], sort=False)
    out = g.agg(utility=("utility", "mean"), sd=("utility", "std"), trials=("utility", "size"),
                sin_theta=("sin_theta", "mean"), seconds=("seconds", "median")).reset_index()
    out["ci95"] = 1.96 * out["sd"].fillna(0) / np.sqrt(out["trials"])
    return out.drop(columns="sd")


def check_claims(summary: pd.DataFrame) -> pd.DataFrame:
    """The paper's qualitative claims, checked at every n where k-DP-PCA ran."""
    wide = summary.pivot_table(index=["model", "sigma", "n"], columns="method", values="utility")
    claims = []
    private = [m for m in wide.columns if m != PAPER_ALPHA]
    for (model, sigma, n), row in wide.iterrows():
        kpca = row.get("k-DP-PCA", np.nan)
        others = row[[m for m in private if m != "k-DP-PCA"]].dropna()
        regime = "low noise" if sigma < 0.1 else "higher noise"
        if np.isnan(kpca):
            claims.append(_claim(model, sigma, n, f"k-DP-PCA best ({regime})", "not run",
                                 "n below k-DP-PCA's minimum n (2 k B_min)"))
            continue
        best = others.idxmax()
        claims.append(_claim(model, sigma, n, f"k-DP-PCA best ({regime})",
                             "yes" if kpca >= others.max() else "no",
                             f"k-DP-PCA {kpca:.3f}; best other {best} {others.max():.3f}"))
        ojas = row.get("k-DP-Ojas", np.nan)
        if sigma < 0.1:
            claims.append(_claim(model, sigma, n, "k-DP-Ojas behind k-DP-PCA (low noise)",
                                 "yes" if ojas < kpca else "no",
                                 f"k-DP-Ojas {ojas:.3f} vs k-DP-PCA {kpca:.3f}"))
        else:
            claims.append(_claim(model, sigma, n, "k-DP-Ojas matches or beats k-DP-PCA (higher noise)",
                                 "yes" if ojas >= kpca - 0.01 else "no",
                                 f"k-DP-Ojas {ojas:.3f} vs k-DP-PCA {kpca:.3f}"))
    return pd.DataFrame(claims)


def _claim(model, sigma, n, claim, holds, evidence) -> dict:
    return {"model": model, "sigma": sigma, "n": n, "claim": claim, "holds": holds, "evidence": evidence}


def plot(summary: pd.DataFrame, trials: int):
    import matplotlib.pyplot as plt

    models = ("matrix", "rows")
    colours = {label: f"C{i}" for i, label in enumerate([*METHODS, PAPER_ALPHA])}
    fig, grid = plt.subplots(len(models), len(SIGMAS), figsize=(11, 8.5), sharey=True)
    for ax, (model, sigma) in zip(grid.ravel(), [(m, s) for m in models for s in SIGMAS]):
        part = summary[(summary["sigma"] == sigma) & (summary["model"] == model)]
        for method, curve in part.groupby("method", sort=False):
            style = ":" if method == PAPER_ALPHA else "-"
            ax.plot(curve["n"], curve["utility"], style, marker="o", label=method,
                    color=colours[method])
            ax.fill_between(curve["n"], curve["utility"] - curve["ci95"],
                            curve["utility"] + curve["ci95"], alpha=0.2, color=colours[method])
        ax.axhline(random_utility(sigma), color="grey", linestyle="--", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("n")
        ax.set_title(f"{'A_i = V Lambda V^T + z z^T' if model == 'matrix' else 'rows x x^T'}, "
                     f"sigma = {sigma:g}", fontsize=10)
        ax.grid(alpha=0.3)
    for ax in grid[:, 0]:
        ax.set_ylabel("utility <UU^T, Sigma> / (lambda_1 + lambda_2)")
    handles = [plt.Line2D([], [], color=c, marker="o", linestyle=":" if m == PAPER_ALPHA else "-")
               for m, c in colours.items()]
    handles.append(plt.Line2D([], [], color="grey", linestyle="--", linewidth=0.8))
    fig.legend(handles, [*colours, "random 2-D subspace (expected)"], loc="lower center", ncol=3,
               fontsize=8)
    fig.suptitle(f"Duengler & Sanyal spiked model: k = 2, d = {D}, eps = {EPS:g}, delta = {DELTA:g}; "
                 f"mean of {trials} trial(s), 95% CI", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def _part(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        raise argparse.ArgumentTypeError(f"must be I/M with 0 <= I < M, got {text!r}")
    return int(index), int(count)


def main(argv=None) -> int:
    parser = reproduction_parser(__doc__, "1 trial, n in {2,500, 20,000}", "trials", 2508)
    parser.add_argument("--replot", action="store_true",
                        help="redraw the figure and claims from the saved summary CSV")
    parser.add_argument("--part", type=_part, default=None, metavar="I/M",
                        help="run only every M-th fit cell starting at I (0-based) and write "
                             "<stem>_fits_part<I>of<M>.csv; run the M parts in parallel, then "
                             "--merge M")
    parser.add_argument("--merge", type=int, default=None, metavar="M",
                        help="join the M part files into <stem>_fits.csv, then summarise")
    parser.add_argument("--figure4", action="store_true",
                        help="Figure 4's Gaussian rows instead (dungler_sanyal_fig4.py); each "
                             "cell is appended to the CSV as it finishes")
    parser.add_argument("--large", action="store_true",
                        help="with --figure4: n in {50,000, 100,000}, 4 trials, four lines only")
    parser.add_argument("--reverse", action="store_true",
                        help="with --figure4 --part: run the part's cells from the last trial "
                             "down (a helper for a slow part; --merge drops the repeats)")
    args = parser.parse_args(argv)
    if args.figure4:
        return figure4_main(args)
    grid = QUICK if args.quick else FULL
    trials = args.trials or grid["trials"]
    stem = "dungler_sanyal_quick" if args.quick else "dungler_sanyal"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gdppca_max_n = 10_000 if args.quick else GDPPCA_MAX_N
    if args.merge:
        parts = [read_csv(out / f"{stem}_fits_part{i}of{args.merge}.csv")
                 for i in range(args.merge)]
        fits = pd.concat(parts).sort_values(["sigma", "n", "trial"], kind="stable")
        write_csv(fits, out / f"{stem}_fits.csv", index=False)
        trials = int(fits["trial"].max()) + 1
    elif args.replot:
        fits = read_csv(out / f"{stem}_fits.csv")
        trials = int(fits["trial"].max()) + 1
    else:
        cells = [(n, sigma, t) for sigma in SIGMAS for n in grid["n"] for t in range(trials)]
        index, count = args.part or (0, 1)
        # Every cell seeds its own generator from (seed, n, sigma, trial), so the parts
        # together give exactly the fits of one run.
        fits = pd.DataFrame([row for n, sigma, t in cells[index::count]
                             for row in one_trial(n, sigma, t, args.seed, gdppca_max_n)])
        if args.part:
            write_csv(fits, out / f"{stem}_fits_part{index}of{count}.csv", index=False)
            return 0
        write_csv(fits, out / f"{stem}_fits.csv", index=False)
    fits["status"] = fits["status"].astype(str)
    summary = summarise(fits)
    write_csv(summary, out / f"{stem}_summary.csv", index=False)
    claims = check_claims(summary)
    write_csv(claims, out / f"{stem}_claims.csv", index=False)
    save_figure(plot(summary, trials), out / f"{stem}_utility_vs_n.png", dpi=120)
    pd.set_option("display.width", 200)
    print("Mean utility by data model, noise level, method and n:")
    print(summary.pivot_table(index=["model", "sigma", "method"], columns="n", values="utility")
          .round(3).to_string())
    print("\nRefusals (public-n checks):")
    refused = fits[fits["status"] != "ok"]
    print(refused.groupby(["method", "n"])["status"].first().to_string() if len(refused) else "none")
    print("\nThe paper's claims:")
    print(claims.to_string(index=False))
    print("\nMedian seconds per fit:")
    print(summary.groupby(["model", "method"])["seconds"].median().round(3).to_string())
    return 0


def figure4_main(args) -> int:
    """--figure4: run (or merge) the Gaussian-rows cells and print the table with 95% CIs."""
    grid = fig4.QUICK if args.quick else fig4.LARGE if args.large else fig4.FULL
    trials = args.trials or grid["trials"]
    stem = "dungler_sanyal_fig4" + ("_quick" if args.quick else "_large" if args.large else "")
    only = fig4.LARGE_LINES if args.large else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.merge:
        # every cell seeds itself, so a cell run twice (a --reverse helper) gives equal rows
        fits = pd.concat([read_csv(path) for path in
                          sorted(out.glob(f"{stem}_fits_part*of{args.merge}*.csv"))])
        fits = fits.drop_duplicates(subset=["method", "n", "trial"])
    elif not args.replot:
        index, count = args.part or (0, 1)
        suffix = "r" if args.reverse else ""
        target = out / (f"{stem}_fits_part{index}of{count}{suffix}.csv" if args.part else
                        f"{stem}_fits.csv")
        target.unlink(missing_ok=True)
        # trial-major: a run stopped early still has the first trials of every n
        cells = [(n, t) for t in range(trials) for n in grid["n"]][index::count]
        for n, t in cells[::-1] if args.reverse else cells:
            rows = pd.DataFrame(fig4.figure4_cell(n, t, args.seed, only))
            if target.exists():
                rows.to_csv(target, mode="a", header=False, index=False)
            else:
                write_csv(rows, target, index=False)
        if args.part:
            return 0
    fits = read_csv(out / f"{stem}_fits.csv") if args.replot else \
        (fits if args.merge else read_csv(out / f"{stem}_fits.csv"))
    fits = fits.sort_values(["n", "trial"], kind="stable")
    write_csv(fits, out / f"{stem}_fits.csv", index=False)
    summary = summarise(fits.assign(status=fits["status"].astype(str)))
    write_csv(summary, out / f"{stem}_summary.csv", index=False)
    save_figure(_plot_figure4(summary), out / f"{stem}_utility_vs_n.png", dpi=120)
    pd.set_option("display.width", 250)
    table = summary.assign(cell=[f"{u:.3f} +- {c:.3f} ({t})" for u, c, t in
                                 zip(summary["utility"], summary["ci95"], summary["trials"])])
    print(f"Figure 4 setting (Gaussian rows, k = 2, d = 200, lambda = (10, 5), sigma = {fig4.SIGMA}, "
          "eps = 1, delta = 0.01): mean utility +- 95% CI (number of trials) "
          f"(random subspace: {fig4.random_utility():.3f})")
    print(table.pivot_table(index="method", columns="n", values="cell", aggfunc="first",
                            sort=False).to_string())
    refused = fits[fits["status"].astype(str) != "ok"]
    print("\nRefusals:", "none" if refused.empty else
          refused.groupby(["method", "n"])["status"].first().to_string())
    return 0


def _plot_figure4(summary: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6))
    for i, (method, curve) in enumerate(summary.groupby("method", sort=False)):
        style = ":" if method in fig4.NOT_DP else "-"
        ax.plot(curve["n"], curve["utility"], style, marker="o", color=f"C{i}", label=method)
        ax.fill_between(curve["n"], curve["utility"] - curve["ci95"], curve["utility"] + curve["ci95"],
                        color=f"C{i}", alpha=0.2)
    ax.axhline(fig4.random_utility(), color="grey", linestyle="--", linewidth=0.8,
               label="random 2-D subspace (expected)")
    ax.set_xscale("log")
    ax.set_xlabel("n (rows)")
    ax.set_ylabel("utility <UU^T, Sigma> / (lambda_1 + lambda_2)")
    ax.set_title("Duengler & Sanyal Figure 4 setting: Gaussian rows, k = 2, d = 200, eps = 1, "
                 "delta = 0.01\n(dotted: NOT DP, evidence only; mean and 95% CI)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    sys.exit(main())
