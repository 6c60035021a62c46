"""numpydoc validation of every public name (tools/run_tests.sh runs it).

The public names are ``dppca.__all__`` and the ``__all__`` of the documented subpackages
(the ones the API reference lists). The checks are ``[tool.numpydoc_validation] checks`` of
pyproject.toml ("all" minus the exclusions given there, with the reasons). Prints one line
per error and "docstrings: N checked, N errors"; exits 1 if there is an error.

``tools/docstring_baseline.txt`` lists the errors known when the check was introduced
("name: CODE", one a line): they are reported as known, not counted, and the list must only
shrink (a baseline entry that no longer occurs is reported so it can be deleted).
"""
import importlib
import inspect
import sys
import tomllib
from pathlib import Path

from numpydoc.validate import ERROR_MSGS, validate

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["dppca", "dppca.datasets", "dppca.metrics", "dppca.methods", "dppca.privacy",
           "dppca.audit"]


def selected_checks():
    """The error codes to report: pyproject's list, "all" expanded minus the other entries."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    checks = set(config["tool"]["numpydoc_validation"]["checks"])
    if "all" in checks:
        checks = set(ERROR_MSGS) - (checks - {"all"})
    return checks


def known_errors():
    """The baseline's "name: CODE" entries."""
    path = ROOT / "tools" / "docstring_baseline.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def public_names():
    """Qualified names of the public functions and classes, each object once."""
    seen, names = set(), []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        members = getattr(module, "__all__", None) or [
            n for n, obj in vars(module).items() if not n.startswith("_")
            and (inspect.isfunction(obj) or inspect.isclass(obj))
            and obj.__module__.startswith(module_name)]
        for name in members:
            obj = getattr(module, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and id(obj) not in seen:
                seen.add(id(obj))
                names.append(f"{module_name}.{name}")
    return names


def main():
    sys.path.insert(0, str(ROOT))
    checks = selected_checks()
    names = public_names()
    baseline = known_errors()
    errors, known, found = 0, 0, set()
    for name in names:
        for code, message in validate(name)["errors"]:
            if code not in checks:
                continue
            found.add(f"{name}: {code}")
            if f"{name}: {code}" in baseline:
                known += 1
                continue
            errors += 1
            print(f"{name}: {code} {message}")
    for entry in sorted(baseline - found):
        print(f"fixed, delete from tools/docstring_baseline.txt: {entry}")
    print(f"docstrings: {len(names)} checked, {errors} errors ({known} known in the baseline)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
