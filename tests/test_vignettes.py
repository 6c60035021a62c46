"""Every Python tutorial in vignettes/ (jupytext py:percent files) runs to the end, once.

The documentation build (``make docs``, a step of ``make test``) executes the tutorials named
in ``docs/conf.py``'s ``TUTORIALS`` (myst-nb, errors raise): they are not run again here.
This file executes the others (those needing R and rpy2) as notebooks (jupytext -> nbclient),
so that what a reader runs is what is tested; figures go to the Agg backend.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
VIGNETTES = sorted((ROOT / "vignettes").glob("*.py"))


def _docs_tutorials() -> list[str]:
    """``TUTORIALS`` of docs/conf.py, read without running the configuration (it writes files)."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "TUTORIALS" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("docs/conf.py defines no TUTORIALS list")


OUTSIDE_DOCS = [path for path in VIGNETTES if path.stem not in _docs_tutorials()]


def test_docs_tutorials_are_vignettes():
    # A name in TUTORIALS with no vignette would leave a tutorial executed by neither runner.
    assert set(_docs_tutorials()) <= {path.stem for path in VIGNETTES}, _docs_tutorials()


@pytest.mark.slow
@pytest.mark.parametrize("path", OUTSIDE_DOCS, ids=[p.name for p in OUTSIDE_DOCS])
def test_vignette_executes(path, tmp_path, starting_environment):
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    notebook = jupytext.read(path)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=starting_environment | {"MPLBACKEND": "Agg"})
    errors = [out for cell in notebook.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors
