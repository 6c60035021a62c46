"""Run one benchmark suite and keep its output with where it came from.

    python -m benchmarks --list                      # the suites and what each measures
    python -m benchmarks SUITE [ARGS...]             # run benchmarks/SUITE.py ARGS
    python -m benchmarks --save NAME SUITE [ARGS...] # its output to results/NAME.txt
    python -m benchmarks --no-save SUITE [ARGS...]   # print only
    python -m benchmarks --note TEXT SUITE [ARGS...] # TEXT as the header's note
    python -m benchmarks --quick-set                 # every bench_* suite that has --quick

The suite runs in a fresh process from the repository root (``PYTHONPATH`` = the checkout,
``MPLBACKEND=Agg``); its standard output is shown as it comes and, when the suite exits with 0,
written to ``benchmarks/results/SUITE.txt`` under a provenance header (commit and whether the
tree is dirty, UTC date, cores, CPU, BLAS, Python and numpy, this exact command line; see
``benchmarks/provenance.py``). A suite that writes its own files (``--out``) gets this command
line through ``DPPCA_BENCH_COMMAND`` and puts the same header on them; its standard output is
then only printed unless ``--save`` is given.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from . import provenance
from .suites import HERE, parse_arguments, suites


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the suites and exit")
    parser.add_argument("--save", metavar="NAME", help="write the output to results/NAME.txt")
    parser.add_argument("--no-save", action="store_true", help="print the output only")
    parser.add_argument("--note", help="a line for the header (e.g. why the size was reduced)")
    parser.add_argument("--quick-set", action="store_true",
                        help="run every bench_* suite that accepts --quick with it (make bench)")
    parser.add_argument("suite", nargs="?", help="a suite name (see --list)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the suite's own arguments")
    args = parser.parse_args(argv)
    available = suites()
    if args.quick_set:
        return quick_set(available)
    if args.list or not args.suite:
        width = max(map(len, available))
        for name, purpose in available.items():
            print(f"{name:<{width}}  {purpose}")
        return 0 if args.list else 2
    if args.suite not in available:
        parser.error(f"unknown suite {args.suite!r}; `python -m benchmarks --list` lists them")
    command = "python -m benchmarks " + shlex.join(
        [*(["--save", args.save] if args.save else []), *(["--no-save"] if args.no_save else []),
         *(["--note", args.note] if args.note else []), args.suite, *args.args])
    suite_args = parse_arguments(args.suite, args.args)  # a bad argument stops here, before the run
    own_files = any(hasattr(suite_args, name) for name in ("out", "out_dir"))
    repo = str(provenance.REPO)
    info = provenance.collect(command, note=args.note)  # the commit and date at the start
    env = os.environ | {provenance.COMMAND_VARIABLE: command,
                        provenance.INFO_VARIABLE: json.dumps(info),
                        "PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])),
                        "MPLBACKEND": os.environ.get("MPLBACKEND", "Agg")}
    lines = []
    with subprocess.Popen([sys.executable, str(HERE / f"{args.suite}.py"), *args.args], cwd=repo,
                          env=env, stdout=subprocess.PIPE, text=True, bufsize=1) as process:
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            lines.append(line)
    if process.returncode:
        print(f"python -m benchmarks: {args.suite} exited with {process.returncode}; nothing saved",
              file=sys.stderr)
        return process.returncode
    return _save(args, own_files, info, lines)


def quick_set(available) -> int:
    """``make bench``: each bench_* suite whose parser takes ``--quick``, printed, not saved."""
    for name in (n for n in available if n.startswith("bench_")):
        try:
            with contextlib.redirect_stderr(io.StringIO()):  # argparse's usage on a refusal
                quick = getattr(parse_arguments(name, ["--quick"]), "quick", False)
        except SystemExit:
            quick = False
        if not quick:
            print(f"=== {name}: no --quick (run it alone: python -m benchmarks {name} ...)", flush=True)
            continue
        print(f"=== python -m benchmarks --no-save {name} --quick", flush=True)
        code = main(["--no-save", name, "--quick"])
        if code:
            return code
    return 0


def _save(args, own_files, info, lines) -> int:
    if args.save or not (args.no_save or own_files):
        target = provenance.RESULTS / f"{args.save or args.suite}.txt"
        provenance.write_text(target, "".join(lines), info)
        print(f"python -m benchmarks: wrote {target.relative_to(provenance.REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
