"""Start-up: ``import dppca`` and ``dppca --help`` load no heavy dependency (issue 21, item 3).

Each check runs in a fresh interpreter (a subprocess), since this test session has long
imported everything. No timing is asserted: only which modules are (not) loaded.
"""
import json
import os
import subprocess
import sys

import pytest

import dppca

#: Never loaded by ``import dppca`` or ``dppca --help``: the analysis stack and the extras.
HEAVY = ["statsmodels", "matplotlib", "scipy", "scipy.stats", "sklearn", "dask", "numba",
         "shiny", "rpy2", "dp_accounting", "mpmath", "pandas.core"]


def loaded_after(code: str) -> dict:
    """{module: loaded?} for HEAVY (and numpy) after running `code` in a fresh interpreter."""
    probe = code + (
        "\nimport sys, json, types\n"
        "real = lambda m: isinstance(sys.modules.get(m), types.ModuleType) and "
        "type(sys.modules[m]).__name__ == 'module'\n"
        f"print(json.dumps({{m: real(m) for m in {HEAVY + ['numpy']!r}}}))\n")
    env = {k: v for k, v in os.environ.items() if k != "EAGER_IMPORT"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_dppca_loads_no_heavy_module():
    loaded = loaded_after("import dppca")
    assert not any(loaded[m] for m in HEAVY), {m for m in HEAVY if loaded[m]}
    assert not loaded["numpy"]  # not even numpy: the public names load on first use


@pytest.mark.parametrize("argv", [["--help"], ["report", "--help"], ["plan", "--help"],
                                  ["app", "--help"], ["budget", "--help"]])
def test_cli_help_loads_no_heavy_module(argv):
    code = ("import contextlib, io\nfrom dppca import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try:\n        cli.main({argv!r})\n"
            "    except SystemExit:\n        pass\n")
    loaded = loaded_after(code)
    assert not any(loaded[m] for m in HEAVY), {m for m in HEAVY if loaded[m]}
    assert not loaded["numpy"]  # the parser is built from the standard library alone


def test_cli_command_loads_numpy_on_first_use():
    # The lazy numpy of the CLI and of dppca._validation is the real one once a check runs.
    loaded = loaded_after("from dppca import _validation\n_validation.eps_arg(1.0)")
    assert loaded["numpy"]


def test_first_use_loads_the_name():
    loaded = loaded_after("import dppca\ndppca.dp_pc_dir")
    assert loaded["numpy"] and loaded["scipy"]  # the analysis is there once a function is


@pytest.mark.parametrize("name", dppca.__all__)
def test_every_public_name_resolves(name):
    obj = getattr(dppca, name)
    assert obj.__module__.startswith("dppca.")  # dppca's own function or class, not a stand-in
    assert name in dir(dppca)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        dppca.no_such_name  # noqa: B018
