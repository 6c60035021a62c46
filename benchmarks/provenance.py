"""Where a benchmark result came from: commit, date, machine, versions and the exact command.

Every file in ``benchmarks/results/`` starts with (or, for a figure, has beside it) a header of
``# key: value`` lines, in the order of :data:`KEYS`::

    # commit: 844a8d3... (clean)
    # date: 2026-11-29 04:30 UTC
    # machine: 2 cores, Intel(R) Xeon(R) Processor; BLAS openblas 0.3.31 (2 threads)
    # python: 3.11.2; numpy 2.4.6
    # command: python benchmarks/bench_centre.py --quick

A result the runner (``python -m benchmarks SUITE``) did not write, because it takes too long to
run again here, carries ``regenerated: no (from git history)`` with the commit that last changed
it and the command its own text, its script's docstring or the commit message names.

Text results get the header as their first lines; CSV (also ``.csv.gz``) results the same lines
before the column row (read them with :func:`read_csv`, or ``pandas.read_csv(path,
comment="#")``); a PNG gets the lines in a sidecar ``<name>.png.txt`` and as PNG text chunks.
A script that writes its own files calls :func:`write_csv` and :func:`save_figure`; the runner
sets ``DPPCA_BENCH_COMMAND`` so that those files record the runner's command line.
"""
from __future__ import annotations

import functools
import gzip
import io
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
#: The environment variable through which the runner passes its own command line to a script.
COMMAND_VARIABLE = "DPPCA_BENCH_COMMAND"
#: ... and its header (JSON: commit, date, machine, python), taken before the suite started.
INFO_VARIABLE = "DPPCA_BENCH_PROVENANCE"
#: The header's keys, in order; ``commit`` and ``command`` are required in every result file.
KEYS = ("commit", "date", "machine", "python", "command", "regenerated", "note")
REQUIRED = ("commit", "command")
_LINE = re.compile(r"^# (%s): (.*)$" % "|".join(KEYS))


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""


def commit() -> str:
    """``git rev-parse HEAD`` and whether the tracked files differ from it (which, up to 5).

    Files under ``benchmarks/results/`` do not count: a run rewriting its own results changes
    nothing that produced them.
    """
    head = _git("rev-parse", "HEAD").strip() or "unknown"
    dirty = [line[3:] for line in _git("status", "--porcelain", "--untracked-files=no").splitlines()
             if line[3:] and not line[3:].startswith("benchmarks/results/")]
    if not dirty:
        return f"{head} (clean)"
    more = f" and {len(dirty) - 5} more" if len(dirty) > 5 else ""
    return f"{head} (dirty: {', '.join(dirty[:5])}{more})"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _blas() -> str:
    try:
        from threadpoolctl import threadpool_info

        import numpy  # noqa: F401  (loads numpy's BLAS so that threadpoolctl sees it)

        pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        if pools:
            return ", ".join(f"{p['internal_api']} {p.get('version') or ''} ({p['num_threads']} threads)"
                             .replace("  ", " ") for p in pools)
    except ImportError:
        pass
    try:
        import numpy

        config = numpy.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 -- the header must not stop a benchmark
        return "unknown"


def machine() -> str:
    """Cores, CPU model and numpy's BLAS (with its thread count)."""
    return f"{os.cpu_count()} cores, {_cpu_model()}; BLAS {_blas()}"


def versions() -> str:
    import numpy

    return f"{platform.python_version()}; numpy {numpy.__version__}"


def command_line() -> str:
    """The runner's command (``DPPCA_BENCH_COMMAND``) or this process's, relative to the repo."""
    if os.environ.get(COMMAND_VARIABLE):
        return os.environ[COMMAND_VARIABLE]
    script = Path(sys.argv[0]).resolve()
    try:
        script = script.relative_to(REPO)
    except ValueError:
        pass
    return "python " + shlex.join([str(script), *sys.argv[1:]])


@functools.lru_cache(maxsize=1)
def _start() -> tuple:
    """Commit, date, machine and versions, taken once per process: at the run's start."""
    passed = os.environ.get(INFO_VARIABLE)
    if passed:  # the runner's, taken before the suite started
        info = json.loads(passed)
        return tuple((key, info[key]) for key in KEYS if key in info and key != "command")
    return (("commit", commit()), ("date", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
            ("machine", machine()), ("python", versions()))


def collect(command: str | None = None, **extra: str) -> dict:
    """The header of this run's results: commit, date, machine, versions, command, extras.

    The first call in a process (or the runner, through ``DPPCA_BENCH_PROVENANCE``) fixes the
    commit and date, so that every file of one run names the same state of the tree.
    """
    info = dict(_start())
    info["command"] = command or command_line()
    info.update({key: value for key, value in extra.items() if value})
    return info


def header(info: dict) -> str:
    """``# key: value`` lines in :data:`KEYS` order, each ending with a newline."""
    unknown = set(info) - set(KEYS)
    if unknown:
        raise ValueError(f"unknown provenance keys {sorted(unknown)}; allowed: {KEYS}")
    return "".join(f"# {key}: {' '.join(str(info[key]).split())}\n" for key in KEYS if key in info)


def parse_header(text: str) -> dict:
    """The ``# key: value`` lines at the top of ``text`` (stops at the first other line)."""
    info = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            break
        info[match.group(1)] = match.group(2)
    return info


def sidecar(path: Path) -> Path:
    """Where a figure's header lives: ``<name>.png.txt`` beside ``<name>.png``."""
    return Path(f"{path}.txt")


def read_text(path) -> str:
    """A result file's text (``.gz`` decompressed)."""
    path = Path(path)
    if path.suffix == ".gz":
        with gzip.open(path, "rt") as handle:
            return handle.read()
    return path.read_text()


def read_header(path) -> dict:
    """The provenance header of a result file (a PNG's from its sidecar)."""
    path = Path(path)
    if path.suffix == ".png":
        path = sidecar(path)
        if not path.exists():
            return {}
    if path.suffix == ".gz":
        with gzip.open(path, "rt") as handle:
            return parse_header("".join(line for line, _ in zip(handle, range(len(KEYS) + 1))))
    return parse_header(path.read_text())


def write_text(path, text: str, info: dict | None = None) -> None:
    """``text`` under the header (``info`` or :func:`collect`'s)."""
    _write(Path(path), header(info or collect()) + text)


def write_csv(frame, path, info: dict | None = None, **to_csv) -> None:
    """``frame.to_csv(**to_csv)`` under the header; ``.gz`` paths are gzip-compressed."""
    write_text(path, frame.to_csv(**to_csv), info)


def read_csv(path, **read_csv):
    """``pandas.read_csv`` of a result CSV, its header lines skipped (files without one too)."""
    import pandas as pd

    skip = len(read_header(path))
    if skip == 0 or Path(path).suffix != ".gz":
        return pd.read_csv(path, skiprows=skip, **read_csv)
    return pd.read_csv(io.StringIO(read_text(path)), skiprows=skip, **read_csv)


def save_figure(fig, path, info: dict | None = None, **savefig) -> None:
    """``fig.savefig`` with the header as PNG text metadata and in the sidecar ``<path>.txt``."""
    info = info or collect()
    path = Path(path)
    fig.savefig(path, metadata={f"dppca {key}": str(value) for key, value in info.items()}, **savefig)
    sidecar(path).write_text(header(info))


def stamp(path, info: dict) -> None:
    """Put ``info``'s header on an existing result (replacing any header it has)."""
    path = Path(path)
    if path.suffix == ".png":
        sidecar(path).write_text(header(info))
        return
    text = read_text(path)
    old = parse_header(text)
    body = "".join(text.splitlines(keepends=True)[len(old):])
    _write(path, header(info) + body)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        # mtime=0: the same text gives the same bytes, so a rerun changes nothing in git
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
            handle.write(text.encode())
    else:
        path.write_text(text)


__all__ = ["COMMAND_VARIABLE", "INFO_VARIABLE", "KEYS", "REQUIRED", "RESULTS", "collect", "command_line", "commit",
           "header", "machine", "parse_header", "read_csv", "read_header", "read_text", "save_figure",
           "sidecar", "stamp", "write_csv", "write_text"]
