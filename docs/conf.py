"""Sphinx configuration of the dppca documentation site (``make docs``).

The tutorials are the jupytext vignettes in ``../vignettes``: they are copied into
``tutorials/`` and executed by myst-nb at every build. The privacy-contract table is
generated from :data:`dppca.audit.registry.REGISTRY` and from the ledgers of real calls,
so it cannot drift from the code.
"""
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import dppca  # noqa: E402
import privacy_table  # noqa: E402  (docs/privacy_table.py)

project = "dppca"
author = "dppca developers"
release = getattr(dppca, "__version__", "")

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
autosummary_generate = True
autosummary_imported_members = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
myst_enable_extensions = ["colon_fence", "dollarmath"]
nb_custom_formats = {".py": ["jupytext.reads", {"fmt": "py:percent"}]}
nb_execution_mode = "force"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_merge_streams = True
html_theme = "pydata_sphinx_theme"
html_title = "dppca"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
templates_path = ["_templates"]
exclude_patterns = ["_build", "_generated", "conf.py", "privacy_table.py", "**/.ipynb_checkpoints"]
suppress_warnings = ["mystnb.unknown_mime_type"]

# The tutorials: copied from vignettes/ (one source) and executed.  04_rpy2 needs R and
# rpy2, which the docs build does not assume; it is executed by `make test` instead.
TUTORIALS = ["01_directions", "02_scree", "03_score", "05_choosing_a_method"]


def _copy_vignettes():
    target = HERE / "tutorials"
    target.mkdir(exist_ok=True)
    for name in TUTORIALS:
        source = ROOT / "vignettes" / f"{name}.py"
        dest = target / f"{name}.py"
        if not dest.exists() or dest.read_bytes() != source.read_bytes():
            shutil.copyfile(source, dest)


_copy_vignettes()
privacy_table.write(HERE / "_generated" / "privacy_table.md")


def _write_layers(path):
    """The layers contract of pyproject.toml as a table (top layer first): one source, no drift."""
    import tomllib

    config = tomllib.loads((HERE.parent / "pyproject.toml").read_text())
    contract = config["tool"]["importlinter"]["contracts"][0]
    rows = ["| layer (top to bottom) | modules |", "|---|---|"]
    for number, layer in enumerate(contract["layers"], 1):
        modules = ", ".join(f"`dppca.{m.strip()}`" for m in layer.split("|"))
        rows.append(f"| {number} | {modules} |")
    path.write_text("\n".join(rows) + "\n")


_write_layers(HERE / "_generated" / "layers.md")

# The API reference lists the public names (dppca.__all__ and the documented subpackages'),
# not module paths, so a re-layout of the modules does not change it.
API_SECTIONS = [
    ("dppca", "Main functions and results"),
    ("dppca.datasets", "Data sets"),
    ("dppca.metrics", "Accuracy metrics"),
    ("dppca.methods", "DP-PCA methods"),
    ("dppca.privacy", "Privacy mechanisms and the ledger"),
    ("dppca.audit", "Privacy audit"),
    ("dppca.controls", "Control objects"),
    ("dppca.sklearn", "scikit-learn estimator"),
    ("dppca.interop", "R objects (reticulate and rpy2)"),
]


def _public_callables(module_name, seen):
    import importlib
    import inspect

    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, obj in vars(module).items() if not n.startswith("_")
                 and (inspect.isfunction(obj) or inspect.isclass(obj))
                 and obj.__module__.startswith(module_name)]
    out = []
    for name in names:
        obj = getattr(module, name)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and id(obj) not in seen:
            seen.add(id(obj))
            out.append(name)
    return out


def _write_api_index():
    seen = set()
    lines = ["API reference", "=============", "",
             "Every public name, grouped by the namespace users import it from.", ""]
    for module_name, title in API_SECTIONS:
        lines += [title, "-" * len(title), "", f".. currentmodule:: {module_name}", "",
                  ".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {name}" for name in _public_callables(module_name, seen)]
        lines.append("")
    text = "\n".join(lines)
    path = HERE / "api" / "index.rst"
    path.parent.mkdir(exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_write_api_index()

# Single pages have no section navigation: no empty left sidebar on them.
html_sidebars = {page: [] for page in ["index", "getting_started", "privacy", "differences",
                                       "scaling", "choosing"]}
