"""Result classes with ``summary()``, ``to_frame()`` and ``plot()``."""
from .base import NONPRIVATE, DPResult
from .directions import PCDirections, pc_names
from .score import ScoreResult
from .scree import ScreeResult

__all__ = ["DPResult", "NONPRIVATE", "PCDirections", "ScoreResult", "ScreeResult", "pc_names"]
