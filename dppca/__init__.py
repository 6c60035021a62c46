"""dppca: differentially private principal component analysis.

Python mirror of the R package ``dppca`` (g-DPPCA, Kim & Jung 2025) with a fast
Kendall's tau engine, honest privacy accounting and statsmodels-style summaries.

``import dppca`` is cheap: the public names below are loaded on first use
(SPEC 1, ``lazy_loader.attach``), so neither SciPy's statistics, statsmodels,
matplotlib nor an optional extra is imported until a function needs it.
Set ``EAGER_IMPORT=1`` to load everything at import (lazy_loader's switch).

``dppca.__version__`` is the installed version as a string (``"0.2.0"``): the same string as
the package metadata (``importlib.metadata.version("dppca")``) and ``dppca --version``, written
once in ``dppca/_version.py``.
"""
import lazy_loader as _lazy

from dppca._version import __version__

#: Public name -> the submodule defining it. To export a new name, add it here and to __all__.
_PUBLIC = {
    "_validation": ["DPPCATypeError", "DPPCAValueError"],
    "controls": ["clipped_control", "huber_control", "pmwm_control", "sampling_control",
                 "score_plot_control", "scree_plot_control"],
    "datasets": ["load_adult", "load_gau", "load_gau_g"],
    "directions": ["dp_pc_dir"],
    "planning": ["plan"],  # the module is not named plan: importing it would shadow the function
    "privacy": ["Ledger"],
    "privacy.accuracy": ["DPAccuracyWarning"],
    "privacy.spending": ["budget"],  # the budget store (SQLAlchemy, imported on first use)
    "results": ["PCDirections", "ScoreResult", "ScreeResult"],
    "score": ["dp_score", "dp_score_group"],
    "score_plot": ["dp_score_plot", "dp_score_plot_group"],
    "scree": ["dp_scree", "dp_scree_plot"],
    "sklearn": ["DPPCA"],  # the [sklearn] extra: imported on first use only
}

#: Subpackages reachable as attributes (``dppca.metrics``) without an explicit import.
_SUBMODULES = ["app", "audit", "backends", "cli", "controls", "datasets", "directions",
               "estimators", "interop", "methods", "metrics", "plotting", "preprocessing",
               "privacy", "results", "score", "score_plot", "scree", "simulate", "sklearn",
               "stats"]

__getattr__, __dir__, _ = _lazy.attach(__name__, submodules=_SUBMODULES, submod_attrs=_PUBLIC)

__all__ = ["budget", "DPPCATypeError", "DPPCAValueError", "Ledger", "PCDirections", "dp_pc_dir",
           "load_adult", "load_gau", "load_gau_g", "ScoreResult", "dp_score", "dp_score_group",
           "dp_score_plot", "dp_score_plot_group", "sampling_control", "score_plot_control",
           "ScreeResult", "clipped_control", "dp_scree", "dp_scree_plot", "huber_control",
           "pmwm_control", "scree_plot_control", "DPAccuracyWarning", "plan"]
