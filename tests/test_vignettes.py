"""Every Python tutorial in vignettes/ (jupytext py:percent files) runs to the end.

They are executed as notebooks (jupytext -> nbclient) so that what a reader runs is what
is tested; figures go to the Agg backend.
"""
from pathlib import Path

import pytest

VIGNETTES = sorted((Path(__file__).parent.parent / "vignettes").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("path", VIGNETTES, ids=[p.name for p in VIGNETTES])
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
