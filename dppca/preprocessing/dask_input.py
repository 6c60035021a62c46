"""Inputs bigger than memory: a dask array, a dask DataFrame or Parquet/CSV files as a lazy Matrix.

The computations on such a Matrix run chunk by chunk in :mod:`dppca.backends.dask`.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .._validation import DPPCATypeError, DPPCAValueError
from .matrix import Matrix, clamp_values

def as_dask_matrix(X, columns=None):
    """Validate a dask input lazily and return it as a Matrix of a dask array.

    Parameters
    ----------
    X : dask.array.Array, dask.dataframe.DataFrame, str or Path
        Rows are observations. A path is read with ``dask.dataframe.read_parquet`` (a
        directory or .parquet/.pq files) or ``read_csv`` (.csv; globs allowed).
    columns : list of str, optional
        Columns to use (DataFrames and files); default all, which must then be numeric.

    Returns
    -------
    dppca.preprocessing.matrix.Matrix
        ``values`` is a float64 dask array with known chunk sizes, each value clamped lazily to
        the public range (:func:`dppca.preprocessing.matrix.clamp_values`: +-inf are extreme
        values, as in memory; NaN cells stay, for the call's ``missing=`` policy); ``columns``
        the names (V1..Vp for arrays).

    Raises
    ------
    DPPCATypeError
        For non-numeric columns (listed) or an input dask cannot read.
    DPPCAValueError
        For unknown ``columns``, fewer than 2 rows, or a 1-D/3-D array.
    """
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, (str, os.PathLike)):
        X = _read_files(str(X), dd)
    if isinstance(X, dd.DataFrame):
        X = _select_columns(X, columns)
        names = [str(c) for c in X.columns]
        # float64 per column first: a nullable integer column's pd.NA becomes NaN (a missing
        # cell for the policy) instead of an object that no float conversion takes
        values = X.astype("float64").to_dask_array(lengths=True)
    elif isinstance(X, da.Array):
        if columns is not None:
            raise DPPCATypeError("`columns` selects DataFrame columns; `X` is a dask array")
        if X.ndim != 2:
            raise DPPCAValueError(f"`X` must be 2-D; got a {X.ndim}-D dask array")
        if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.bool_):
            raise DPPCATypeError(f"`X` must be numeric; got a dask array of dtype {X.dtype}")
        values = X if not any(np.isnan(c) for c in X.chunks[0]) else X.compute_chunk_sizes()
        values = values.astype(np.float64)
        names = [f"V{j + 1}" for j in range(values.shape[1])]
    else:
        raise DPPCATypeError(f"`X` must be a dask array, a dask DataFrame or a path to Parquet/CSV "
                             f"files; got {type(X).__name__}")
    if values.shape[0] < 2 or values.shape[1] < 1:
        raise DPPCAValueError(f"`X` must have at least 2 rows and 1 column; got shape {values.shape}")
    return Matrix(clamp_values(values), names)


def read_files(path):
    """A Parquet dataset or CSV files as a lazy dask DataFrame (see :func:`as_dask_matrix`)."""
    import dask.dataframe as dd

    return _read_files(str(path), dd)


def as_input_matrix(X, lazy: bool, min_rows: int = 4):
    """``X`` validated: in memory, or a lazy dask Matrix for dask collections and files.

    Parameters
    ----------
    X : array_like, pandas.DataFrame, dask collection, str or Path
        The caller's data.
    lazy : bool
        Whether ``X`` is a dask collection or files (:func:`dppca.backends.dask.is_dask_input`).
    min_rows : int
        Fewest rows accepted (the same rule for both kinds of input).

    Returns
    -------
    dppca.preprocessing.matrix.Matrix
        :func:`dppca.preprocessing.as_matrix` of ``X``, or :func:`as_dask_matrix` of it.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        As those raise; fewer than ``min_rows`` rows.

    Examples
    --------
    >>> import numpy as np
    >>> as_input_matrix(np.ones((4, 2)), lazy=False).values.shape
    (4, 2)
    """
    if not lazy:
        from .matrix import as_matrix

        return as_matrix(X, min_rows=min_rows)
    mat = as_dask_matrix(X)
    if mat.n < min_rows:
        raise DPPCAValueError(f"`X` must have at least {min_rows} rows; got {mat.n}")
    return mat


def _read_files(path, dd):
    lower = path.lower()
    try:
        if lower.endswith(".csv"):
            return dd.read_csv(path)
        return dd.read_parquet(path)
    except (OSError, ValueError) as error:
        raise DPPCATypeError(f"cannot read `X` = {path!r} as Parquet/CSV: {error}") from None


def _select_columns(frame, columns):
    if columns is not None:
        columns = [str(c) for c in columns]
        unknown = [c for c in columns if c not in frame.columns]
        if unknown:
            raise DPPCAValueError(f"`columns` {unknown} are not columns of `X`; it has "
                                  f"{[str(c) for c in frame.columns]}")
        frame = frame[columns]
    bad = [str(c) for c, t in frame.dtypes.items()
           if not pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)]
    if bad:
        raise DPPCATypeError(f"`X` must have numeric columns only; non-numeric: {bad} "
                             f"(choose columns with `columns=`)")
    return frame


__all__ = ["as_dask_matrix", "as_input_matrix", "read_files"]
