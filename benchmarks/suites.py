"""The benchmark scripts as suites: their names, one-line purposes and command lines.

A suite is a script ``benchmarks/<name>.py`` that runs as a program (``if __name__ ==
"__main__"``); its purpose is the first sentence of its docstring. :func:`parse_arguments`
checks a recorded command line against the script's own ``argparse`` parser without running
the benchmark: it imports the script and calls its ``main`` with ``parse_args`` stopped right
after parsing.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import os
import shlex
import sys
from contextlib import contextmanager
import warnings
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
#: Modules in benchmarks/ that are not suites, even when they can run as a program.
NOT_SUITES = {"__init__", "__main__", "provenance", "suites", "reproduce_cli"}


def suites() -> dict:
    """``{name: purpose}`` for every script in ``benchmarks/`` that runs as a program, sorted."""
    found = {}
    for path in sorted(HERE.glob("*.py")):
        if path.stem in NOT_SUITES:
            continue
        tree = ast.parse(path.read_text())
        runs = any(isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
                   for node in tree.body)
        if runs:
            found[path.stem] = purpose(ast.get_docstring(tree) or "")
    return found


def purpose(docstring: str) -> str:
    """The docstring's first paragraph, on one line."""
    return " ".join(docstring.strip().split("\n\n")[0].split())


class _Parsed(Exception):
    """Raised in place of returning from ``parse_args``: the benchmark does not run."""


@contextmanager
def _on_path(folder: Path):
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))


def parse_arguments(name: str, argv: list) -> argparse.Namespace:
    """``argv`` parsed by suite ``name``'s own parser; its benchmark is not run.

    Raises ``SystemExit`` (argparse's exit on a bad argument) or ``LookupError`` when the
    script has no ``main`` or ``main`` returns without parsing its arguments.
    """
    path = HERE / f"{name}.py"
    if not path.exists():
        raise LookupError(f"no script benchmarks/{name}.py")
    if "parse_args" not in path.read_text():  # calling main() would run the benchmark
        raise LookupError(f"benchmarks/{name}.py parses no arguments with argparse")
    spec = importlib.util.spec_from_file_location(f"_benchmark_{name}", path)
    module = importlib.util.module_from_spec(spec)
    original = argparse.ArgumentParser.parse_args

    def stop(parser, args=None, namespace=None):
        raise _Parsed(original(parser, args, namespace))

    # the script's module is registered while it runs (a dataclass looks its module up); the
    # modules it imports stay loaded (numpy cannot be imported twice in one process)
    sys.modules[spec.name] = module
    try:  # a script's module-level settings (BLAS thread variables, warning filters) stay its own
        with _on_path(HERE), mock.patch.object(argparse.ArgumentParser, "parse_args", stop), \
                mock.patch.object(sys, "argv", [str(path), *argv]), \
                mock.patch.dict(os.environ), warnings.catch_warnings():
            spec.loader.exec_module(module)
            main = getattr(module, "main", None)
            if main is None:
                raise LookupError(f"benchmarks/{name}.py has no main()")
            main(list(argv)) if inspect.signature(main).parameters else main()
    except _Parsed as parsed:
        return parsed.args[0]
    finally:
        sys.modules.pop(spec.name, None)
    raise LookupError(f"benchmarks/{name}.py's main() returned without parsing its arguments")


def split_command(command: str) -> tuple:
    """``(suite, args)`` of a recorded ``python -m benchmarks SUITE ...`` or
    ``python benchmarks/SUITE.py ...`` command (leading ``VAR=value`` assignments skipped)."""
    words = shlex.split(command)
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]
    if not words or not Path(words[0]).name.startswith("python"):
        raise ValueError(f"not a python command: {command!r}")
    words = words[1:]
    if words[:2] == ["-m", "benchmarks"]:
        words = words[2:]
        while words and words[0].startswith("--"):  # the runner's own options
            words = words[2:] if words[0] in ("--save", "--note") else words[1:]
        if not words:
            raise ValueError(f"no suite in {command!r}")
        return words[0], words[1:]
    script = Path(words[0])
    if script.parent.name != "benchmarks" or script.suffix != ".py":
        raise ValueError(f"not a benchmarks/ script: {command!r}")
    return script.stem, words[1:]


__all__ = ["parse_arguments", "purpose", "split_command", "suites"]
