"""numpydoc validation of every public name (tools/run_tests.sh runs it).

The public names are ``dppca.__all__`` and the ``__all__`` of the documented subpackages
(the ones the API reference lists). The checks are ``[tool.numpydoc_validation] checks`` of
pyproject.toml ("all" minus the exclusions given there, with the reasons). Prints one line
per error and "docstrings: N checked, N errors"; exits 1 if there is an error.
"""
import importlib
import inspect
import sys
import tomllib
from pathlib import Path

from numpydoc.validate import ERROR_MSGS, validate

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["dppca", "dppca.datasets", "dppca.metrics", "dppca.methods", "dppca.privacy",
           "dppca.audit", "dppca.sklearn", "dppca.controls", "dppca.interop"]


def selected_checks():
    """The error codes to report: pyproject's list, "all" expanded minus the other entries."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    checks = set(config["tool"]["numpydoc_validation"]["checks"])
    if "all" in checks:
        checks = set(ERROR_MSGS) - (checks - {"all"})
    return checks


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
    errors = 0
    for name in names:
        for code, message in validate(name)["errors"]:
            if code in checks:
                errors += 1
                print(f"{name}: {code} {message}")
    print(f"docstrings: {len(names)} checked, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
