"""Dropping incomplete rows: a missing-value policy that is private only under add/remove neighbours.

Under add/remove neighbours (``neighbouring="add_remove"``, n private) dropping every row with a
missing cell is a stable transformation: if D' is D plus one row x, the complete rows of D' are
those of D plus x when x is complete, and exactly those of D otherwise. So the kept rows of two
neighbours are neighbours or equal, and a mechanism that is (eps, delta)-DP under add/remove
neighbours stays (eps, delta)-DP after it (stability 1). Under replace-one neighbours with a
public n it is not: replacing a complete row by an incomplete one changes the number of rows
kept, which the later releases treat as public. The function refuses that case.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import DPPCAValueError, DPPCATypeError
from ..privacy.neighbouring import ADD_REMOVE, neighbouring_arg

__all__ = ["drop_incomplete_rows"]


def drop_incomplete_rows(values, neighbouring: str):
    """The rows of ``values`` with no missing cell (NaN, or pandas' NA), in their order.

    Parameters
    ----------
    values : ndarray of shape (n, p), or pandas.DataFrame
        The data, before any other step. inf is a value, not a missing cell: the entry points
        clip it like any extreme value.
    neighbouring : {"add_remove"}
        The call's neighbouring relation; it must be ``"add_remove"`` (module docstring).

    Returns
    -------
    ndarray or pandas.DataFrame
        The same type, shape (n_complete, p); a DataFrame keeps its columns, dtypes and index
        labels of the kept rows. Its number of rows is private: only the releases of an
        add/remove call (which release n privately) may use it.

    Raises
    ------
    DPPCAValueError
        ``neighbouring`` is not ``"add_remove"`` (the refusal depends on the arguments only), or
        ``values`` is not 2-D.
    DPPCATypeError
        ``values`` is neither an array nor a DataFrame.

    Notes
    -----
    Estimand: the analysis describes the complete cases, unbiased for the full population's only
    when cells are missing completely at random (MCAR); under MAR or MNAR the complete cases are
    a selected subpopulation. Privacy: stability 1 under add/remove neighbours (module
    docstring), so the whole call keeps the (eps, delta) of the releases that follow. Any number
    of complete rows, 0 included, goes on: the entry point counts no rows before its private
    count and refuses too few only from the released count's public lower bound
    (:func:`dppca.privacy.neighbouring.refuse_few_rows`), so the guarantee covers every pair
    of neighbours.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, np.inf]])
    >>> drop_incomplete_rows(x, "add_remove")
    array([[ 1.,  2.],
           [ 3., inf]])
    """
    if neighbouring_arg(neighbouring) != ADD_REMOVE:
        raise DPPCAValueError("dropping incomplete rows changes n, so it needs "
                              "neighbouring='add_remove' (n private); got "
                              f"neighbouring={neighbouring!r}")
    if isinstance(values, pd.DataFrame):
        return values[values.notna().all(axis=1).to_numpy()]
    if not isinstance(values, np.ndarray):
        raise DPPCATypeError(f"`values` must be a numpy array or a pandas DataFrame; got "
                             f"{type(values).__name__}")
    if values.ndim != 2:
        raise DPPCAValueError(f"`values` must be 2-D (n, p); got shape {values.shape}")
    if values.dtype.kind not in "fc":
        return values  # integer, bool: no missing cell can be stored
    return values[~np.isnan(values).any(axis=1)]
