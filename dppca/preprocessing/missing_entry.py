"""The ``missing=`` policy at the entry points: one wrapper, applied once per call.

:func:`applies_missing_policy` wraps a public function: it resolves the call's policy from its
public arguments (:func:`dppca.preprocessing.missing.resolve_missing`), fills the NaN cells of
the numeric columns when the policy imputes (private medians from
:data:`~dppca.preprocessing.missing.MEDIAN_SHARE` of the call's (eps, delta), or declared values),
runs the function on the rest of the budget, and puts the median release on the result's ledger
(whose total is the call's (eps, delta)). An entry point called inside another (``dp_scree``
calling ``dp_pc_dir``) sees the data its caller already prepared and applies nothing again.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import delta_arg, eps_arg, rng_arg
from ..backends.dask import is_dask_input
from ..privacy.budget import Ledger
from ..privacy.composition import GaussianGroup
from ..privacy.spending import debit, records_outcome
from .dask_input import read_files
from .missing import (MEDIAN_SHARE, binary_codes, binary_dtype, impute, private_medians,
                      resolve_missing, sample_medians)

__all__ = ["Filled", "absorb_medians", "applies_missing_policy", "documents_missing", "fill_missing",
           "policy_applied"]

#: The ``missing`` parameter's description in the entry points that need every cell (their
#: docstrings say ``{missing_doc}``, replaced by the decorator).
MISSING_DOC = """What a NaN cell means (a public policy, :mod:`dppca.preprocessing.missing`; +-inf are
        extreme values, never refused). "auto" (default) is "median": each column's private
        median (a tenth of eps and delta, on the ledger) fills its NaN cells; a number or
        ``{column: value}`` declares public fill values (free); "drop" needs add/remove
        neighbours."""

#: True while an entry point's call has applied its policy (nested entry points pass through).
_APPLIED = contextvars.ContextVar("dppca_missing_applied", default=False)


def applies_missing_policy(entry: str, pairwise=None):
    """Decorator: apply the ``missing=`` policy of a public function's call.

    Parameters
    ----------
    entry : str
        The public function's name (for the policy and the budget log).
    pairwise : callable, optional
        ``pairwise(arguments) -> {False, "gdppca", "rank"}``: the call's pairwise-present
        statistic, from its bound public arguments (``resolve_missing``'s ``pairwise``);
        default: none.

    Returns
    -------
    callable
        The decorator. The wrapped function receives ``missing=`` as the resolved
        :class:`~dppca.preprocessing.missing.MissingPolicy`, and ``{missing_doc}`` in its
        docstring becomes :data:`MISSING_DOC`.

    Notes
    -----
    Privacy: the policy comes from the arguments only. The medians are released by
    :func:`~dppca.preprocessing.missing.private_medians` on (MEDIAN_SHARE eps, MEDIAN_SHARE
    delta) with the analytic Gaussian calibration; the function runs on the remaining
    ((1 - MEDIAN_SHARE) eps, (1 - MEDIAN_SHARE) delta) on the imputed data (imputing a row is a
    map of that row alone given the released medians, so a replaced row stays one replaced row);
    basic composition gives (eps, delta). The medians draw from a stream spawned from ``rng``
    (independent of the function's noise; the function's own draws are unchanged). The release
    happens whenever the policy needs a median, whether or not a cell is missing.

    Examples
    --------
    >>> @applies_missing_policy("demo")
    ... def demo(X, eps=None, delta=None, *, missing="auto", rng=None):
    ...     return X
    >>> demo(pd.DataFrame({"a": [1.0, np.nan, 3.0]}))["a"].tolist()
    [1.0, 2.0, 3.0]
    """
    def decorate(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if _APPLIED.get():
                return function(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            arguments = bound.arguments
            policy = resolve_missing(arguments.get("missing", "auto"), entry=entry,
                                     pairwise=pairwise(arguments) if pairwise else False,
                                     neighbouring=arguments.get("neighbouring", "replace"))
            arguments["missing"] = policy
            with policy_applied():
                medians = _prepare(arguments, policy, entry)
                result = function(*bound.args, **bound.kwargs)
            _absorb(result, medians, policy)
            return result
        # The outcome of the call's charge (made here when medians are released) is recorded.
        return documents_missing(records_outcome(wrapper))
    return decorate


def documents_missing(function):
    """Put :data:`MISSING_DOC` where ``function``'s docstring says ``{missing_doc}`` (for entry
    points that hand ``missing=`` on to a decorated one); returns ``function``.

    Examples
    --------
    >>> def f():
    ...     "missing : {missing_doc}"
    >>> documents_missing(f).__doc__.startswith("missing : What a NaN cell")
    True
    """
    if function.__doc__:
        function.__doc__ = function.__doc__.replace("{missing_doc}", MISSING_DOC)
    return function


def _prepare(arguments, policy, entry):
    """Fill the NaN cells (imputing policies) in ``arguments``; return the median ledger (or None).
    Under "drop", labels given apart from X (``group=`` as one label per row) lose the rows X
    loses, so that each kept row keeps its label (a map of each row alone: still stability 1)."""
    if policy.kind == "drop":
        arguments["group"] = _kept_labels(arguments.get("X"), arguments.get("group"))
    filled = fill_missing(arguments.get("X"), policy, eps=arguments.get("eps"),
                          delta=arguments.get("delta"), rng=arguments.get("rng"),
                          budget=arguments.get("budget"), entry=entry,
                          group=arguments.get("group"))
    arguments["X"] = filled.X
    if filled.medians is not None:
        arguments["eps"], arguments["delta"] = filled.eps, filled.delta
    if filled.charged:  # the call's whole (eps, delta) is charged once, here
        arguments["budget"] = None
    return filled.medians


@dataclass(frozen=True)
class Filled:
    """What :func:`fill_missing` returns.

    Attributes
    ----------
    X : object
        The data to hand on (a DataFrame with its NaN cells filled, or the input).
    medians : Ledger or None
        The median release, or None when none was needed.
    eps, delta : float or None
        The budget left for the call's own releases.
    fill : dict
        Column -> fill value (released, declared or NON-PRIVATE sample medians).
    charged : bool
        Whether the call's whole (eps, delta) was debited from ``budget`` (before the medians):
        the rest of the call must then debit nothing.
    """

    X: object
    medians: Ledger | None
    eps: float | None
    delta: float | None
    fill: dict
    charged: bool = False


def fill_missing(X, policy, *, eps, delta, rng, budget=None, entry="", group=None) -> Filled:
    """Apply an imputing policy to the numeric columns of ``X`` (integer ones included; ``group``
    and boolean ones excluded).

    Parameters
    ----------
    X : DataFrame, array_like, dask collection, path to Parquet/CSV files, or other input
        The caller's data. A dask array, dask DataFrame or file path is filled lazily: its
        medians are counted chunk by chunk (one pass, nothing gathered) and its NaN cells are
        replaced by ``fillna`` on the dask DataFrame, which goes on to the function (a dask
        array goes on as a dask array; files as the dask DataFrame read from them).
    policy : dppca.preprocessing.missing.MissingPolicy
    eps, delta : float or None
        The call's budget; None: NON-PRIVATE sample medians.
    rng : None, int or numpy.random.Generator
        The call's randomness (the medians draw from a spawned, independent stream).
    budget : Budget, str or None
        Where the call's whole (eps, delta) is debited, once, when medians are released.
    entry : str
        The public function, for the budget log.
    group : column label, optional
        A group column of ``X`` that is not imputed.

    Returns
    -------
    Filled

    Notes
    -----
    Privacy: as :func:`applies_missing_policy` (MEDIAN_SHARE of (eps, delta) for the medians).

    Examples
    --------
    >>> from dppca.preprocessing.missing import resolve_missing
    >>> policy = resolve_missing(0.5, entry="demo")
    >>> fill_missing(pd.DataFrame({"a": [np.nan, 1.0]}), policy, eps=None, delta=None,
    ...              rng=0).fill
    {'a': 0.5}
    """
    lazy = is_dask_input(X)
    # dask and file input: private calls only (the function refuses eps=None from its
    # arguments, before reading a cell, so nothing is counted for it here)
    if policy.kind in ("pairwise", "drop") or not (_in_memory(X) or lazy) or \
            (lazy and (eps is None or delta is None)):
        if policy.kind == "drop" and (_in_memory(X) or lazy):
            X = _dropped(X, lazy)  # add/remove neighbours only (resolve_missing)
        return Filled(X, None, eps, delta, {})
    frame = _lazy_table(X) if lazy else _frame(X)
    if frame is None or not (lazy or isinstance(frame, pd.DataFrame)):
        return Filled(X, None, eps, delta, {})
    # Every numeric column, integer ones included: a CSV column reads as int without a hole and
    # as float with one, so choosing by float dtype would release medians only when a cell is
    # missing (a ledger that depends on the data).
    # and, in memory, binary columns that can hold a hole (nullable boolean, 2-category
    # Categorical: the rank path's binary columns), chosen by dtype, never by the cells
    columns = [c for c in _columns(frame) if (group is None or not _names(group, c))
               and (_fillable(_dtype(frame, c)) or
                    (isinstance(frame, pd.DataFrame) and binary_dtype(_dtype(frame, c))))]
    fill = policy.declared(columns)
    todo = np.isnan(fill)
    medians, charged = None, False
    if todo.any():
        values = _values(frame, [c for c, t in zip(columns, todo) if t])
        if eps is None or delta is None:
            fill[todo] = sample_medians(values)  # a NON-PRIVATE call: its own reference
        else:
            eps, delta = eps_arg(eps), delta_arg(delta)
            eps_m, delta_m = MEDIAN_SHARE * eps, MEDIAN_SHARE * delta
            charged = debit(budget, entry, eps, delta, missing=policy.label) is not None
            medians = Ledger(eps_m, delta_m)
            fill[todo] = private_medians(values, GaussianGroup(eps_m, delta_m).share(1.0),
                                         _spawned(rng), medians)
            eps, delta = eps - eps_m, delta - delta_m
    frame = _imputed(frame, columns, fill) if columns else frame
    return Filled(frame, medians, eps, delta, dict(zip(columns, fill.tolist())), charged)


@contextlib.contextmanager
def policy_applied():
    """Within it, entry points called by an entry point that applied its policy pass through."""
    token = _APPLIED.set(True)
    try:
        yield
    finally:
        _APPLIED.reset(token)


def _absorb(result, medians, policy) -> None:
    """Put the median release first on every ledger of ``result`` and restore the call's total."""
    absorb_medians([getattr(result, "ledger", None), getattr(result, "combined_ledger", None)],
                   medians, policy)
    if medians is not None and getattr(result, "eps", None) is not None:
        result.eps, result.delta = result.eps + medians.eps, result.delta + medians.delta
    try:
        result.missing = policy.label
    except AttributeError:  # a result without attributes (a tuple): nothing to label
        pass


def absorb_medians(items, medians, policy) -> None:
    """Put the median release first on each ledger in ``items`` (ledgers, dicts of ledgers or
    None) and add its budget to theirs; label each with the policy (``ledger.missing``).

    Examples
    --------
    >>> from dppca.preprocessing.missing import resolve_missing
    >>> ledger = Ledger(0.9, 9e-6)
    >>> absorb_medians([ledger], Ledger(0.1, 1e-6), resolve_missing("median", entry="demo"))
    >>> ledger.eps, ledger.missing
    (1.0, 'median imputation')
    """
    ledgers = []
    for item in items:
        ledgers.extend(item.values() if isinstance(item, dict) else [item])
    seen = set()
    for ledger in ledgers:
        if not isinstance(ledger, Ledger) or id(ledger) in seen:
            continue
        seen.add(id(ledger))
        ledger.missing = policy.label
        if medians is not None:
            ledger.releases[:0] = medians.releases
            ledger.eps, ledger.delta = ledger.eps + medians.eps, ledger.delta + medians.delta


def _in_memory(X) -> bool:
    return isinstance(X, (pd.DataFrame, pd.Series, np.ndarray, list, tuple))


def _lazy_table(X):
    """Dask or file input as a lazy table: a dask DataFrame (files are read lazily, their header
    only), or a float64 dask array of known chunk sizes (columns V1..Vp, as
    :func:`dppca.preprocessing.dask_input.as_dask_matrix` names them); None for an array that
    the function's own check refuses (not 2-D, not numeric)."""
    import dask.array as da

    if isinstance(X, (str, os.PathLike)):
        return read_files(X)
    if not isinstance(X, da.Array):
        return X if hasattr(X, "columns") else None  # a dask DataFrame, or refused later
    if X.ndim != 2 or not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.bool_):
        return None
    values = X if not any(np.isnan(c) for c in X.chunks[0]) else X.compute_chunk_sizes()
    return values.astype(np.float64)


def _kept_labels(X, group):
    """``group`` without the labels of X's incomplete rows, when it is one label per row of an
    in-memory X; anything else (a column name, a wrong length) unchanged, for the function's own
    checks."""
    if group is None or isinstance(group, (str, int)) or not _in_memory(X):
        return group
    frame = _frame(X)
    if not isinstance(frame, pd.DataFrame) or np.ndim(group) != 1 or len(group) != len(frame):
        return group
    kept = frame.notna().all(axis=1).to_numpy()
    if isinstance(group, pd.Series):
        return group[kept]
    return group[kept] if isinstance(group, (np.ndarray, pd.Categorical)) else \
        [label for label, keep in zip(group, kept) if keep]


def _dropped(X, lazy):
    """``X`` without its incomplete rows: lazily for dask input (a dask array's chunk sizes
    become unknown; the lazy input check computes them), else as a DataFrame."""
    if not lazy:
        return _frame(X).dropna()
    table = _lazy_table(X)
    if table is None:
        return X  # the function's own check refuses it
    if hasattr(table, "columns"):
        return table.dropna()
    import dask.array as da

    return table[~da.isnan(table).any(axis=1)]


def _columns(table) -> list:
    return list(table.columns) if hasattr(table, "columns") else \
        [f"V{j + 1}" for j in range(table.shape[1])]


def _dtype(table, column):
    return table[column].dtype if hasattr(table, "columns") else table.dtype


def _values(table, columns):
    """The columns to take medians of, float64 with NaN for a missing cell: an ndarray, or a lazy
    dask array for dask input (its medians are counted chunk by chunk, never gathered)."""
    if isinstance(table, pd.DataFrame):
        return np.column_stack([binary_codes(table[c]) for c in columns])
    if hasattr(table, "columns"):
        return table[columns].astype("float64").to_dask_array()
    return table[:, [int(c[1:]) - 1 for c in columns]]


def _imputed(table, columns, fill):
    """``table`` with the NaN cells of ``columns`` replaced by ``fill`` (lazily for dask)."""
    if hasattr(table, "columns"):
        return impute(table, columns, fill)  # pandas or dask DataFrame.fillna
    import dask.array as da

    return da.where(da.isnan(table), np.asarray(fill, dtype=float)[None, :], table)


def _fillable(dtype) -> bool:
    """Numeric and not boolean (a boolean column holds no hole): the columns a policy fills."""
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _frame(X) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        return X.to_frame()
    values = np.asarray(X)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or not np.issubdtype(values.dtype, np.number) or \
            np.iscomplexobj(values) or values.dtype == bool:
        return X  # the function's own check names the problem
    return pd.DataFrame(values.astype(float), columns=[f"V{j + 1}" for j in range(values.shape[1])])


def _names(group, column) -> bool:
    return isinstance(group, (str, int)) and str(group) == str(column)


def _spawned(rng) -> np.random.Generator:
    """An independent stream for the medians: spawned from the seed or the Generator."""
    generator = rng_arg(rng)  # checks the argument (its error names `rng`)
    if isinstance(rng, np.random.Generator):
        return generator.spawn(1)[0]
    return np.random.default_rng(np.random.SeedSequence(rng).spawn(1)[0])
