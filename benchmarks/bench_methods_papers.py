"""Run the peer papers' reproductions (Duengler & Sanyal, Maunu et al.) so ``make bench`` covers them.

``make bench`` runs ``benchmarks/bench_*.py --quick``; the reproductions are named
``reproduce_*.py``. This script runs each with the same flags (``--quick`` for one trial on a
small grid) and prints their tables. Full runs: call the scripts themselves (their docstrings).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ("reproduce_dungler_sanyal.py", "reproduce_maunu.py")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one trial on a small grid")
    parser.add_argument("--out", help="the reproductions' --out (default benchmarks/results/)")
    parsed = parser.parse_args(argv)
    args = [*(["--quick"] if parsed.quick else []), *(["--out", parsed.out] if parsed.out else [])]
    for script in SCRIPTS:
        print(f"=== {script} {' '.join(args)}", flush=True)
        result = subprocess.run([sys.executable, str(HERE / script), *args])
        if result.returncode:
            return result.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
