"""Every control object and its constructor, with one validation path (``control_arg``).

Scree methods (:func:`clipped_control`, :func:`pmwm_control`, :func:`huber_control`), figure
appearance (:func:`scree_plot_control`, :func:`score_plot_control`) and synthetic sampling
(:func:`sampling_control`), as in the R package. A control argument also accepts a dict of
settings (R's ``list(...)``); unknown settings are a :class:`~dppca.DPPCATypeError`.
"""
from .._validation import control_arg
from .plots import ScorePlotControl, ScreePlotControl, score_plot_control, scree_plot_control
from .sampling import SamplingControl, sampling_control
from .scree import (SCREE_METHODS, ClippedControl, HuberControl, PmwmControl, clipped_control,
                    huber_control, pmwm_control, resolve_controls)

__all__ = ["ClippedControl", "HuberControl", "PmwmControl", "SCREE_METHODS", "SamplingControl",
           "ScorePlotControl", "ScreePlotControl", "clipped_control", "control_arg", "huber_control",
           "pmwm_control", "resolve_controls", "sampling_control", "score_plot_control",
           "scree_plot_control"]
