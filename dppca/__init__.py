"""dppca: differentially private principal component analysis.

Python mirror of the R package ``dppca`` (g-DPPCA, Kim & Jung 2025) with a fast
Kendall's tau engine, honest privacy accounting and statsmodels-style summaries.
"""
from . import metrics, simulate
from ._validation import DPPCATypeError, DPPCAValueError
from .datasets import load_adult, load_gau, load_gau_g
from .directions import dp_pc_dir
from .privacy import Ledger
from .privacy.accuracy import DPAccuracyWarning
from .results import PCDirections, ScoreResult, ScreeResult
from .controls import (clipped_control, huber_control, pmwm_control, sampling_control,
                       score_plot_control, scree_plot_control)
from .score import dp_score, dp_score_group
from .score_plot import dp_score_plot, dp_score_plot_group
from .scree import dp_scree, dp_scree_plot
from .plan import plan

__version__ = "0.1.0"


def __getattr__(name):  # lazy: `import dppca` does not import scikit-learn (extra [sklearn])
    if name == "DPPCA":
        from .sklearn import DPPCA
        return DPPCA
    if name == "budget":  # the budget store (SQLAlchemy, imported on first use)
        from .privacy.spending import budget
        return budget
    raise AttributeError(f"module 'dppca' has no attribute {name!r}")

__all__ = ["budget", "DPPCATypeError", "DPPCAValueError", "Ledger", "PCDirections", "dp_pc_dir",
           "load_adult", "load_gau", "load_gau_g", "ScoreResult", "dp_score", "dp_score_group",
           "dp_score_plot", "dp_score_plot_group", "sampling_control", "score_plot_control",
           "ScreeResult", "clipped_control", "dp_scree", "dp_scree_plot", "huber_control",
           "pmwm_control", "scree_plot_control", "DPAccuracyWarning", "plan"]
