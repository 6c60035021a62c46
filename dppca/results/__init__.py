"""Result classes with ``summary()``, ``to_frame()`` and ``plot()``."""
from .base import NONPRIVATE, DPResult
from .directions import PCDirections, pc_names

__all__ = ["DPResult", "NONPRIVATE", "PCDirections", "pc_names"]
