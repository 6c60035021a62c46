"""The version of dppca: the one place it is written.

``pyproject.toml`` reads it when the package is built (``[tool.setuptools.dynamic]``), so the
wheel's metadata, ``dppca.__version__``, ``dppca --version`` and the R wrapper's version
handshake all report this string.
"""

__version__ = "0.2.0"

__all__ = ["__version__"]
