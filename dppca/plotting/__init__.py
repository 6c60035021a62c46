"""Every matplotlib figure of the package (one module per result type)."""

__all__ = []
