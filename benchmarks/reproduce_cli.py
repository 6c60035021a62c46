"""The command line shared by the reproduction scripts (not a reproduction itself)."""
from __future__ import annotations

import argparse
from pathlib import Path


def reproduction_parser(doc: str, quick_help: str, count: str, seed: int) -> argparse.ArgumentParser:
    """--quick, --<count> (int), --seed and --out (default benchmarks/results/)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument(f"--{count}", type=int, default=None)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    return parser
