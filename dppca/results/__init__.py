"""Result classes with ``summary()``, ``to_frame()`` and ``plot()``."""
from .base import NONPRIVATE, DPResult
from .directions import PCDirections, pc_names
from .score import ScoreResult

__all__ = ["DPResult", "NONPRIVATE", "PCDirections", "ScoreResult", "pc_names"]
