"""Optional compute backends (dask: ``dppca.backends.dask``, the ``[dask]`` extra)."""

__all__ = []
