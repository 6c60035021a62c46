"""Declared public metadata applied to a call: per-column bounds and scales from a codebook.

A :class:`Schema` (read by :func:`read_schema`, :mod:`dppca.preprocessing.codebook`) holds, for some columns, a public lower and upper bound, a public scale and
the units, as a codebook or a data dictionary states them (diffprivlib and OpenDP ask for
bounds the same way). Declared values are facts about the population chosen before seeing the
data; they cost no budget and show on the ledger as "public (declared)". Bounds clip each
value to [lower, upper] (a map of each value alone); scales replace the private scale
release for their columns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..privacy.budget import DECLARED  # the ledger's mechanism for declared values (no budget)
from .codebook import SCHEMA_FIELDS, ColumnSchema, Schema, is_named_scale, read_schema
from .matrix import fully_declared


def declared_schema(bounds=None, scale=None, columns=None) -> Schema | None:
    """The call's declared metadata: ``bounds=`` and a named ``scale=`` merged (None if neither).

    ``scale`` counts here only when it names its columns (dict, Series with a subset of the
    columns, DataFrame, path or Schema); a plain vector of p scales is the older full
    declaration (:func:`dppca.preprocessing.matrix.public_scale`)."""
    parts = []
    if bounds is not None:
        parts.append(read_schema(bounds, kind="bounds"))
    if scale is not None and is_named_scale(scale, columns):
        parts.append(read_schema(scale, kind="scale"))
    if not parts:
        return None
    schema = parts[0] if len(parts) == 1 else parts[0].merged(parts[1])
    if columns is not None:
        schema.check_columns(columns)
    return schema


def clip_to_bounds(values, schema: Schema | None, columns):
    """``values`` (n, p) with each column clipped to its declared bounds (unchanged if none)."""
    if schema is None:
        return values
    lower, upper = schema.bounds(columns)
    if np.all(np.isinf(lower)) and np.all(np.isinf(upper)):
        return values
    return np.clip(values, lower, upper)


def record_declared(ledger, schema: Schema | None, columns) -> None:
    """One zero-cost ledger row per kind of declared fact (bounds, scales) in ``columns``."""
    if ledger is None or schema is None:
        return
    lower, upper = schema.bounds(columns)
    scales = schema.declared_scales(columns)
    for what, mask in (("bounds", np.isfinite(lower) | np.isfinite(upper)),
                       ("scales", np.isfinite(scales))):
        named = [c for c, m in zip(columns, mask) if m]
        if named:
            ledger.record(f"declared {what}: {', '.join(map(str, named))}", DECLARED, 0.0, "none",
                          0.0, 0.0, 0.0)


@dataclass(frozen=True)
class DeclaredInput:
    """A call's input after its declared metadata (:func:`declared_input`).

    Attributes
    ----------
    matrix : Matrix
        The data, each column clipped to its declared bounds (the input itself when none).
    schema : Schema or None
        The declared facts (``bounds=`` and a named ``scale=`` merged); None when nothing is declared.
    scale : object
        What the call passes on as ``scale=``: the schema when ``scale`` was named or absent
        (a codebook's scales count as ``scale=``), else the caller's ``scale`` unchanged.
    """

    matrix: object
    schema: Schema | None
    scale: object

    @property
    def scales_declared(self) -> bool:
        """Whether every column has a public scale (then no private scale release is needed)."""
        return self.scale is not None and fully_declared(self.scale, self.matrix.columns)

    def record(self, ledger) -> None:
        """The zero-cost "public (declared)" rows on ``ledger`` (:func:`record_declared`)."""
        record_declared(ledger, self.schema, self.matrix.columns)

    def score_box(self, directions, scales=None) -> np.ndarray | None:
        """The public box of the scores ``(X / scales) @ directions``, shape (k, 2), or None.

        Row j is [lo_j, hi_j] with lo_j = sum_i min(d_ij l_i, d_ij u_i) / s_i over the declared
        bounds [l_i, u_i] (infinite where a column with d_ij != 0 is undeclared), widened by a
        relative 2 p 2^-52 of the sum of |terms| so that the floating-point scores, rounded
        differently, still fall inside. Public facts and released directions only
        (post-processing).
        """
        if self.schema is None:
            return None
        lower, upper = self.schema.bounds(self.matrix.columns)
        s = np.ones(len(lower)) if scales is None else np.asarray(scales, float)
        d = np.asarray(directions, float)
        with np.errstate(invalid="ignore"):  # 0 x inf: a column the direction does not use
            ends = np.stack([np.where(d == 0, 0.0, d * (lower / s)[:, None]),
                             np.where(d == 0, 0.0, d * (upper / s)[:, None])])
        slack = 2 * len(lower) * np.finfo(float).eps * np.abs(ends).max(axis=0).sum(axis=0)
        box = np.column_stack([ends.min(axis=0).sum(axis=0) - slack,
                               ends.max(axis=0).sum(axis=0) + slack])
        return None if not np.isfinite(box).any() else box

    def variance_bound(self, scales=None, n=None) -> float:
        """Public upper bound of the sample trace of ``X / scales`` (inf unless all bounded).

        Popoviciu's inequality: a column in [l, u] has population variance <= (u - l)^2 / 4, so
        its sample variance (ddof 1) is <= n / (n - 1) (u - l)^2 / 4; the trace is the sum.
        ``n``: a public lower bound of the rows (>= 2) when the row count is private (add/remove
        neighbours); n / (n - 1) falls with n, so the bound stays valid. Default: the rows.
        """
        if self.schema is None:
            return math.inf
        lower, upper = self.schema.bounds(self.matrix.columns)
        s = np.ones(len(lower)) if scales is None else np.asarray(scales, float)
        n = self.matrix.n if n is None else n
        return float(np.sum(((upper - lower) / (2 * s)) ** 2) * n / (n - 1) * (1 + 1e-12))


def priced(releases) -> list:
    """The releases that spend budget: ``releases`` less the zero-cost declared rows."""
    return [r for r in releases if r.mechanism != DECLARED]


def declared_input(mat, bounds=None, scale=None) -> DeclaredInput:
    """Apply a call's declared ``bounds=`` and ``scale=`` to its validated input matrix.

    The one path every entry point (``dp_pc_dir``, ``dp_scree``, ``dp_score`` and their plot
    and group versions) takes for declared public metadata.

    Parameters
    ----------
    mat : Matrix
        The validated input (:func:`dppca.preprocessing.as_matrix`), shape (n, p).
    bounds : dict, DataFrame, str, os.PathLike or Schema, optional
        Declared public bounds per column (or a codebook; :func:`read_schema`, ``kind="bounds"``).
    scale : array_like, dict, Series, DataFrame, str or Schema, optional
        Public scales; named ones (:func:`is_named_scale`) are merged into the schema.

    Returns
    -------
    DeclaredInput
        The clipped matrix, the schema and the ``scale`` to pass on.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        A codebook that :func:`read_schema` refuses (the message names ``bounds`` or ``scale``),
        or a declared column that is not in the data.

    Notes
    -----
    Privacy: declared values are public (chosen without the data) and cost no budget. Clipping
    to [l, u] maps each value alone, so a replaced row changes one row of the clipped matrix and
    every sensitivity downstream holds unchanged; the clipped data lie in the declared box,
    which later steps may use as a public range (frames, trace bounds).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing import as_matrix
    >>> from dppca.preprocessing.schema import declared_input
    >>> given = declared_input(as_matrix(np.array([[0.0, 5.0], [20.0, 1.0]])), bounds={"V1": (0, 10)})
    >>> given.matrix.values[:, 0].tolist(), given.schema["V1"].upper
    ([0.0, 10.0], 10.0)
    """
    schema = declared_schema(bounds, scale, mat.columns)
    if schema is None:
        return DeclaredInput(mat, None, scale)
    values = clip_to_bounds(mat.values, schema, mat.columns)
    clipped = mat if values is mat.values else type(mat)(values, mat.columns)
    named = scale is None or is_named_scale(scale, mat.columns)
    return DeclaredInput(clipped, schema, schema if named else scale)


__all__ = ["ColumnSchema", "DeclaredInput", "declared_input", "DECLARED", "SCHEMA_FIELDS", "Schema", "clip_to_bounds",
           "declared_schema", "is_named_scale", "priced", "read_schema", "record_declared"]
