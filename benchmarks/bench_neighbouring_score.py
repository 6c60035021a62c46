"""The cost of add/remove neighbours (n private) on ``dp_score`` against replace-one, same eps.

    python benchmarks/bench_neighbouring_score.py            # 40 seeds, eps 1, adult n = 5,000
    python benchmarks/bench_neighbouring_score.py --quick    # 5 seeds

``dp_score(X, eps, delta=1e-5, neighbouring=...)`` with its defaults (g-DPPCA directions on raw
data, axes (1, 2), "add" and "sparse" histograms) on adult (bundled) capped at ``--rows`` rows by
the fixed subsample of :mod:`bench_neighbouring` (``numpy.random.default_rng(0)``). The set is
complete, so both relations declare the free fill value 0 (``missing=0.0``): the default "auto"
releases column medians (10% of the budget) under replace-one but drops rows (free) under
add/remove, which would mix the policy's cost into the ratio. Per relation,
over the same seeds: the mean sin-theta of the released top-2 directions to g-DPPCA's NON-PRIVATE
target (the spherical Kendall's tau matrix's top 2, :func:`bench_neighbouring.target`), and the
median area of the private frame and the median share of the scores inside it (under
add/remove the frame's searches aim at q times the noisy count, the radii one count sd below;
adult's frame varies a lot between seeds in both relations). The ratio add/remove over replace of
the mean sin-theta is the cost of a private n on the directions (target <= 1.15, the dp_pc_dir
benchmark's); under add/remove the directions get 95% of their third's mu^2 (the count takes
5%) and their sensitivity at n_lo + 1. The spread is +-2 se of the ratio (delta method, the two
means independent).
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
import dppca  # noqa: E402
from dppca import dp_score  # noqa: E402
from dppca.metrics import sin_theta  # noqa: E402

import provenance  # noqa: E402
from bench_neighbouring import DELTA, TARGET, _capped, target  # noqa: E402

ROWS, SEEDS_FULL, SEEDS_QUICK = 5_000, 40, 5


def _call(x, eps, seed, relation):
    """(directions (p, 2), frame area, noise sd of the directions, frame coverage) of one
    dp_score call; the coverage is the share of the NON-PRIVATE scores on the released
    directions (relative to the private centre) inside the frame."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # accuracy warnings: the table shows the numbers
        result = dp_score(x, eps, DELTA, rng=seed, neighbouring=relation, missing=0.0)
    (x_lo, x_hi), (y_lo, y_hi) = result.frame["xlim"], result.frame["ylim"]
    directions = result.directions.directions.to_numpy()
    scores = x.to_numpy(float) @ directions[:, :2] - result.centre.to_numpy()
    inside = (scores[:, 0] >= x_lo) & (scores[:, 0] <= x_hi) & (scores[:, 1] >= y_lo) & \
        (scores[:, 1] <= y_hi)
    return (directions, (x_hi - x_lo) * (y_hi - y_lo), result.directions.noise_sd,
            float(inside.mean()))


def table(eps_values, seeds, rows) -> list[str]:
    x = _capped(dppca.load_adult(), rows)
    reference = target(x, "g-DPPCA")
    lines = [f"{'data set':<10}{'n':>7}{'p':>4}{'eps':>5}{'sin replace':>13}{'sin add/rem':>13}"
             f"{'ratio':>7}{'+-2se':>7}{'noise ratio':>13}{'area ratio':>12}{'cover rep':>11}"
             f"{'cover a/r':>11}  verdict (<= {TARGET})"]
    for eps in eps_values:
        runs = {relation: [_call(x, eps, seed, relation) for seed in range(seeds)]
                for relation in ("replace", "add_remove")}
        sins = {r: np.array([sin_theta(run[0], reference) for run in runs[r]]) for r in runs}
        means = {r: float(s.mean()) for r, s in sins.items()}
        ses = {r: float(s.std(ddof=1) / np.sqrt(seeds)) for r, s in sins.items()}
        ratio = means["add_remove"] / means["replace"]
        spread = 2 * ratio * np.hypot(ses["replace"] / means["replace"],
                                      ses["add_remove"] / means["add_remove"])
        noise = np.mean([r[2] for r in runs["add_remove"]]) / np.mean([r[2] for r in runs["replace"]])
        area = np.median([r[1] for r in runs["add_remove"]]) / \
            np.median([r[1] for r in runs["replace"]])
        cover = {r: float(np.median([run[3] for run in runs[r]])) for r in runs}
        lines.append(f"{'adult':<10}{len(x):>7}{x.shape[1]:>4}{eps:>5g}{means['replace']:>13.4f}"
                     f"{means['add_remove']:>13.4f}{ratio:>7.3f}{spread:>7.3f}{noise:>13.4f}"
                     f"{area:>12.3f}{cover['replace']:>11.4f}{cover['add_remove']:>11.4f}  "
                     f"{'ok' if ratio <= TARGET else 'MISSED'}")
        print(lines[-1], flush=True)
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{SEEDS_QUICK} seeds")
    parser.add_argument("--seeds", type=int, default=None, help=f"default {SEEDS_FULL}")
    parser.add_argument("--eps", type=float, nargs="*", default=[1.0], help="default 1")
    parser.add_argument("--rows", type=int, default=ROWS, help=f"default {ROWS:,}")
    parser.add_argument("--out", type=Path, help="also write the header and table to this file")
    args = parser.parse_args(argv)
    seeds = args.seeds or (SEEDS_QUICK if args.quick else SEEDS_FULL)
    head = provenance.header(provenance.collect()).splitlines()
    intro = [f"bench_neighbouring_score: dp_score(axes=(1, 2)), delta={DELTA:g}, {seeds} seeds "
             "per cell (the same for both relations); sin: mean sin-theta of the released "
             "top-2 directions to g-DPPCA's NON-PRIVATE target; ratio: add/remove over replace; "
             "noise ratio: of the directions' noise sd; area ratio: of the median frame areas; "
             "cover: median share of the NON-PRIVATE scores (released directions, private "
             "centre) inside the frame; missing=0.0 for both relations"]
    print("\n".join(head + intro), flush=True)
    body = table(args.eps, seeds, args.rows)
    if args.out:
        args.out.write_text("\n".join(head + intro + body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
