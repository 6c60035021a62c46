"""Run the peer papers' reproductions (Duengler & Sanyal, Maunu et al.) so ``make bench`` covers them.

``make bench`` runs ``benchmarks/bench_*.py --quick``; the reproductions are named
``reproduce_*.py``. This script runs each with the same flags (``--quick`` for one trial on a
small grid) and prints their tables. Full runs: call the scripts themselves (their docstrings).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ("reproduce_dungler_sanyal.py", "reproduce_maunu.py")


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    for script in SCRIPTS:
        print(f"=== {script} {' '.join(args)}", flush=True)
        result = subprocess.run([sys.executable, str(HERE / script), *args])
        if result.returncode:
            return result.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
