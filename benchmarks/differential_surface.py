"""Surface-wide differential test, full mode (issue 23): every public entry point, every neighbour.

Run ``python benchmarks/differential_surface.py`` (a few minutes on 2 shared cores) or
``--fast`` for the CI mode's entry points; ``--only SUBSTRING`` (repeatable) keeps the entry
points whose name contains it. For each public entry point (dp_pc_dir with every method, with
and without standardize, and on the rank path; dp_scree, dp_scree_plot; dp_score,
dp_score_group, the score plots; DPPCA.fit; the CLI report, with a schema and with
``--standardize rank``; the app's run functions) it runs a data set and
its replace-one neighbours (a random row, the audit's extreme rows, more extremes below, label
edge cases) with the same seed and prints

    entry point | neighbours | differing | seconds | first difference

A neighbour *differs* when anything that is not a noisy value differs: warnings, exceptions,
ledger rows, thresholds, histogram shapes, groups, output shapes, the CLI's files and
ledger.json (tests/privacy/surface.py defines the observation). The CI mode is
tests/privacy/test_surface.py.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "privacy"))

from surface import (CLI_ENTRIES, EXTREME_ROWS, base_data, differences,  # noqa: E402
                     entry_points, neighbours, observe)

#: Full mode: more extremes than the CI mode (both signs, all columns, subnormal mixes).
MORE_EXTREMES = {**EXTREME_ROWS,
                 "-1e154": [-1e154, -1e154, -1e154],
                 "all 1.7e308": [1.7e308, 1.7e308, 1.7e308],
                 "-2^1023": [-(2.0 ** 1023), 0.0, 0.0],
                 "1e-310 / 1e300": [1e-310, 1e300, -1e-310],
                 "2^400 edge": [2.0 ** 400, -(2.0 ** 400), 0.0]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the CI mode's entry points only")
    parser.add_argument("--n", type=int, default=1000, help="rows (default 1000)")
    parser.add_argument("--only", action="append", default=[], metavar="SUBSTRING",
                        help="run only the entry points whose name contains SUBSTRING "
                             "(repeatable), e.g. --only rank --only 'cli report'")
    args = parser.parse_args(argv)
    X, labels = base_data(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        calls = entry_points(Path(tmp), full=not args.fast)
        if args.only:
            calls = {name: call for name, call in calls.items()
                     if any(part in name for part in args.only)}
        print(f"n = {args.n}, p = 3, (eps, delta) = (1, 1e-5), {len(calls)} entry points\n")
        print(f"{'entry point':38s} | neighbours | differing | seconds | first difference")
        failing = 0
        for name, call in calls.items():
            start = time.perf_counter()
            reference = observe(call, X, labels)
            grouped = "group" in name or name in CLI_ENTRIES
            pairs = neighbours(X, labels, MORE_EXTREMES, labels_too=grouped)
            found = {}
            for which, Xp, lp in pairs:
                diff = differences(reference, observe(call, Xp, lp))
                if diff:
                    found[which] = diff
            seconds = time.perf_counter() - start
            first = "" if not found else f"{next(iter(found))}: {str(next(iter(found.values())))[:80]}"
            print(f"{name:38s} | {len(pairs):10d} | {len(found):9d} | {seconds:7.1f} | {first}",
                  flush=True)
            failing += bool(found)
    print(f"\n{failing} entry point(s) with a neighbour that differs outside the noise")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
