"""The cost of add/remove neighbours (n private) on ``dp_score`` against replace-one, same eps.

    python benchmarks/bench_neighbouring_score.py                   # 40 seeds, 3 sets, eps 1 2 4
    python benchmarks/bench_neighbouring_score.py --quick           # 5 seeds
    python benchmarks/bench_neighbouring_score.py --paired --seeds 500   # common random numbers
    python benchmarks/bench_neighbouring_score.py --paired --seeds 20 --sets adult --eps 1

``dp_score(X, eps, delta=1e-5, neighbouring=...)`` with its defaults (g-DPPCA directions on raw
data, axes (1, 2), "add" and "sparse" histograms) on the sets of :mod:`bench_neighbouring`
(adult, randhie, AER/CollegeDistance; ``--sets``), each capped at ``--rows`` rows by its fixed
subsample (``numpy.random.default_rng(0)``). The sets are complete, so both relations declare
the free fill value 0 (``missing=0.0``): the default "auto" releases column medians (10% of the
budget) under replace-one but drops rows (free) under add/remove, which would mix the policy's
cost into the ratio. Per relation, over the same seeds: the mean sin-theta of the released
top-2 directions to g-DPPCA's NON-PRIVATE target (the spherical Kendall's tau matrix's top 2,
:func:`bench_neighbouring.target`), and the median area of the private frame and the median
share of the scores inside it (under add/remove the frame's searches aim at q times the noisy
count, the radii one count sd below; adult's frame varies a lot between seeds in both
relations). The ratio add/remove over replace of the mean sin-theta is the cost of a private n
on the directions (target <= 1.15, the dp_pc_dir benchmark's); under add/remove the directions
get 95% of their third's mu^2 (the count takes 5%) and their sensitivity at n_lo + 1. The spread
is +-2 se of the ratio, from the per-seed pairs (delta method with their covariance,
:func:`bench_neighbouring.cell`).

``--paired``: common random numbers, as in :mod:`bench_neighbouring` (numpy sampler, one
``numpy.random.Generator`` per seed shared by both relations, the replace call first burning
the one standard normal that the add/remove call's row count draws). dp_score draws the
directions first (after the count), so their noise is the same standard normals scaled by each
relation's sd: the "aligned" column counts the seeds whose two calls enter the private frame
(:func:`dppca.estimators.frame.private_frame`, wrapped here to read the generator's state) in
the same generator state, i.e. the paired part that the sin-theta ratio measures. The frame
and the histograms cannot be paired draw for draw: the sparse-vector searches draw their
exponential noise in chunks of 1,024 candidates up to the one where they stop, which depends on
the scores and (add/remove) the noisy count; the exponential-mechanism medians' last uniform
integer has a data-dependent range; the histograms' grid size follows the public row number (n,
or n_lo + 1) and the "sparse" method draws one Laplace per non-empty cell. "end aligned" counts
the seeds whose calls still end in the same state; the frame's area and coverage columns are
medians over seeds, compared as they are.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from dppca import dp_score  # noqa: E402
from dppca.estimators.frame import private_frame  # noqa: E402
from dppca.metrics import sin_theta  # noqa: E402
from dppca.privacy.samplers import use_sampler  # noqa: E402

import provenance  # noqa: E402
from bench_neighbouring import (CORPUS_SET, DELTA, EPS_FULL, TARGET, _generator,  # noqa: E402
                                _stream_end, cell, datasets, target)

ROWS, SEEDS_FULL, SEEDS_QUICK = 5_000, 40, 5
SETS = ("adult", "randhie", CORPUS_SET)
#: The module whose name ``private_frame`` dp_score calls (wrapped to read the stream's state).
SCORE = importlib.import_module("dppca.score")


def _call(x, reference, method, eps, seed, relation, entry="dp_score", paired=False,
          details=None) -> tuple[float, float]:
    """(sin-theta of the released directions to ``reference``, their noise sd) of one dp_score
    call, with :func:`bench_neighbouring._error`'s signature (``method`` and ``entry`` are
    dp_score's defaults here). ``details`` receives the frame's area, the share of the
    NON-PRIVATE scores on the released directions (relative to the private centre) inside it
    (``"cover"``), the generator's state when the frame starts (``"stream"``: the directions'
    draws are done) and at the end (``"end"``)."""
    generator, starts = _generator(seed, relation, paired), []

    def frame(scores, eps_frame, delta_frame, rng, **kwargs):
        starts.append(_stream_end(rng))
        return private_frame(scores, eps_frame, delta_frame, rng, **kwargs)

    with warnings.catch_warnings(), use_sampler("numpy" if paired else "exact"), \
            mock.patch.object(SCORE, "private_frame", frame):
        warnings.simplefilter("ignore")  # accuracy warnings: the table shows the numbers
        result = dp_score(x, eps, DELTA, rng=generator, neighbouring=relation, missing=0.0)
    (x_lo, x_hi), (y_lo, y_hi) = result.frame["xlim"], result.frame["ylim"]
    directions = result.directions.directions.to_numpy()[:, :2]
    scores = x.to_numpy(float) @ directions - result.centre.to_numpy()
    inside = (scores[:, 0] >= x_lo) & (scores[:, 0] <= x_hi) & (scores[:, 1] >= y_lo) & \
        (scores[:, 1] <= y_hi)
    if details is not None:
        details.update(area=(x_hi - x_lo) * (y_hi - y_lo), cover=float(inside.mean()),
                       stream=starts[0], end=_stream_end(generator))
    return sin_theta(directions, reference), result.directions.noise_sd


def table(eps_values, seeds, rows, names=SETS, paired=False) -> list[str]:
    """The table's lines: one per data set in ``names`` and eps, then a summary line."""
    lines = [f"{'data set':<22}{'n':>7}{'p':>4}{'eps':>5}{'seeds':>6}{'sin replace':>13}"
             f"{'sin add/rem':>13}{'ratio':>7}{'+-2se':>7}{'noise ratio':>13}{'area ratio':>12}"
             f"{'cover rep':>11}{'cover a/r':>11}{'aligned':>9}{'end aligned':>13}"
             f"  verdict (<= {TARGET})"]
    ratios = []
    for name, x in datasets(rows).items():
        if name not in names:
            continue
        reference = target(x, "g-DPPCA")
        for eps in eps_values:
            got = cell(x, reference, "g-DPPCA", eps, seeds, "dp_score", paired, call=_call)
            (rep, _, rep_sd), (ar, _, ar_sd) = got["replace"], got["add_remove"]
            runs = got["details"]
            ratio = ar / rep
            ratios.append(ratio)
            area = np.median([d["area"] for d in runs["add_remove"]]) / \
                np.median([d["area"] for d in runs["replace"]])
            cover = {r: float(np.median([d["cover"] for d in runs[r]])) for r in runs}
            ends = sum(a["end"] == b["end"] for a, b in zip(runs["replace"], runs["add_remove"]))
            aligned, end = (f"{got['aligned']}/{seeds}", f"{ends}/{seeds}") if paired else ("-",) * 2
            lines.append(f"{name:<22}{len(x):>7}{x.shape[1]:>4}{eps:>5g}{seeds:>6}{rep:>13.4f}"
                         f"{ar:>13.4f}{ratio:>7.3f}{2 * got['ratio_se']:>7.3f}"
                         f"{ar_sd / rep_sd:>13.4f}{area:>12.3f}{cover['replace']:>11.4f}"
                         f"{cover['add_remove']:>11.4f}{aligned:>9}{end:>13}  "
                         f"{'ok' if ratio <= TARGET else 'MISSED'}")
            print(lines[-1], flush=True)
    lines.append(f"cells: {len(ratios)}; ratio of mean sin-theta: median {np.median(ratios):.3f}, "
                 f"max {max(ratios):.3f}; within {TARGET}: {sum(r <= TARGET for r in ratios)}"
                 f"/{len(ratios)}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{SEEDS_QUICK} seeds")
    parser.add_argument("--seeds", type=int, default=None, help=f"default {SEEDS_FULL}")
    parser.add_argument("--eps", type=float, nargs="*", default=list(EPS_FULL),
                        help="default 1 2 4")
    parser.add_argument("--rows", type=int, default=ROWS,
                        help=f"rows kept per data set (default {ROWS:,}; 0: all)")
    parser.add_argument("--sets", nargs="*", choices=SETS, default=list(SETS),
                        help=f"data sets to run (default: all of {', '.join(SETS)})")
    parser.add_argument("--paired", action="store_true",
                        help="common random numbers: numpy sampler, one generator stream per "
                             "seed shared by both relations (the replace call burns the "
                             "add/remove count's draw)")
    parser.add_argument("--out", type=Path, help="also write the header and table to this file")
    args = parser.parse_args(argv)
    seeds = args.seeds or (SEEDS_QUICK if args.quick else SEEDS_FULL)
    head = provenance.header(provenance.collect()).splitlines()
    intro = [f"bench_neighbouring_score: dp_score(axes=(1, 2)), delta={DELTA:g}, {seeds} seeds "
             "per cell (the same for both relations); sin: mean sin-theta of the released "
             "top-2 directions to g-DPPCA's NON-PRIVATE target; ratio: add/remove over replace; "
             "+-2se: of the ratio, from the per-seed pairs; noise ratio: of the directions' "
             "noise sd; area ratio: of the median frame areas; cover: median share of the "
             "NON-PRIVATE scores (released directions, private centre) inside the frame; "
             "missing=0.0 for both relations; "
             + ("PAIRED (common random numbers: numpy sampler, the same generator stream for "
                "both relations after the count's draw; aligned: seeds whose two calls enter "
                "the frame, after the directions, in the same generator state; end aligned: "
                "seeds whose calls also end in the same state)" if args.paired else
                "unpaired (exact sampler; the add/remove call draws its count first, so the "
                "noise draws differ)")]
    print("\n".join(head + intro), flush=True)
    body = table(args.eps, seeds, args.rows, args.sets, args.paired)
    print(body[-1])
    if args.out:
        args.out.write_text("\n".join(head + intro + body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
