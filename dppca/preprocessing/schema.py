"""Declared public metadata: per-column bounds and scales from a codebook.

A :class:`Schema` holds, for some columns, a public lower and upper bound, a public scale and
the units, as a codebook or a data dictionary states them (diffprivlib and OpenDP ask for
bounds the same way). Declared values are facts about the population chosen before seeing the
data; they cost no budget and show on the ledger as "public (declared)". Bounds clip each
value to [lower, upper] (a map of each value alone); scales replace the private scale
release for their columns.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import DPPCATypeError, DPPCAValueError
from ..privacy.budget import DECLARED  # the ledger's mechanism for declared values (no budget)

#: The codebook's fields: column name, then any of lower, upper, scale, units.
SCHEMA_FIELDS = ("column", "lower", "upper", "scale", "units")


@dataclass(frozen=True)
class ColumnSchema:
    """Public facts about one column: bounds [lower, upper], a scale (data units), the units."""

    column: str
    lower: float = -math.inf
    upper: float = math.inf
    scale: float = math.nan
    units: str = ""


class Schema:
    """Declared public bounds and scales of some columns (see :func:`read_schema`).

    Parameters
    ----------
    columns : iterable of ColumnSchema
        One entry per declared column (names unique).
    name : str
        How error messages name the declaration (the argument it came from, e.g. "`bounds`").

    Raises
    ------
    DPPCAValueError
        A column declared twice, lower >= upper, a non-finite bound pair that is not +-inf, or a
        scale that is not finite and > 0.

    Notes
    -----
    Privacy: declared values are public (chosen without the data), so using them costs no
    budget; clipping to declared bounds maps each value alone, so a replaced row still changes
    one row and every sensitivity argument downstream holds unchanged.

    Examples
    --------
    >>> from dppca.preprocessing.schema import read_schema
    >>> schema = read_schema({"age": {"lower": 17, "upper": 90, "scale": 13.6, "units": "years"}})
    >>> schema["age"].scale, schema.declared_scales(["age", "hours"]).tolist()
    (13.6, [13.6, nan])
    """

    def __init__(self, columns=(), name="schema"):
        self.entries: dict[str, ColumnSchema] = {}
        self.name = name
        for entry in columns:
            if entry.column in self.entries:
                raise DPPCAValueError(f"{name}: column {entry.column!r} is declared twice")
            _check_entry(entry, name)
            self.entries[entry.column] = entry

    def __getitem__(self, column) -> ColumnSchema:
        return self.entries[column]

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"Schema({list(self.entries.values())!r})"

    def check_columns(self, columns) -> None:
        """Raise DPPCAValueError naming the declared columns that are not in ``columns``."""
        unknown = [c for c in self.entries if c not in set(map(str, columns))]
        if unknown:
            raise DPPCAValueError(f"{self.name}: unknown column(s) {unknown}; the data have "
                                  f"{list(columns)}")

    def declared_scales(self, columns) -> np.ndarray:
        """Declared scale per column of ``columns``, NaN where none is declared, shape (p,)."""
        self.check_columns(columns)
        return np.array([self.entries[c].scale if c in self.entries else math.nan
                         for c in map(str, columns)])

    def bounds(self, columns) -> tuple[np.ndarray, np.ndarray]:
        """Declared (lower, upper) per column, -inf/inf where none is declared, shapes (p,)."""
        self.check_columns(columns)
        entries = [self.entries.get(c, ColumnSchema(c)) for c in map(str, columns)]
        return np.array([e.lower for e in entries]), np.array([e.upper for e in entries])

    def scaled_bounds(self, columns, scales=None) -> "Schema | None":
        """The declared bounds of ``columns`` divided by ``scales`` (shape (p,), > 0; None: 1),
        the bounds of the scaled data; None when no column is bounded. Division by s > 0 is
        monotone in floating point, so values clipped to [l, u] and divided stay in the result."""
        lower, upper = self.bounds(columns)
        s = np.ones(len(lower)) if scales is None else np.asarray(scales, float)
        entries = [ColumnSchema(c, lo / si, hi / si, units=self.entries[c].units)
                   for c, lo, hi, si in zip(map(str, columns), lower, upper, s)
                   if np.isfinite(lo) or np.isfinite(hi)]
        return Schema(entries, name=self.name) if entries else None

    def merged(self, other: "Schema") -> "Schema":
        """Both schemas' facts per column (``other`` wins where both declare the same field)."""
        fields = {c: vars(e).copy() for c, e in self.entries.items()}
        for c, e in other.entries.items():
            mine = fields.setdefault(c, {"column": c})
            mine.update({k: v for k, v in vars(e).items()
                         if k == "column" or (v != "" and not (isinstance(v, float) and
                                                               (math.isnan(v) or math.isinf(v))))})
        return Schema((ColumnSchema(**f) for f in fields.values()),
                      name=f"{self.name} and {other.name}")


def _check_entry(entry: ColumnSchema, name: str) -> None:
    if not entry.lower < entry.upper or math.isnan(entry.lower) or math.isnan(entry.upper):
        raise DPPCAValueError(f"{name}: column {entry.column!r} needs lower < upper; got "
                              f"lower={entry.lower}, upper={entry.upper}")
    if not (math.isnan(entry.scale) or (math.isfinite(entry.scale) and entry.scale > 0)):
        raise DPPCAValueError(f"{name}: column {entry.column!r} needs a finite scale > 0; "
                              f"got scale={entry.scale}")


def read_schema(source, *, kind="schema") -> Schema:
    """A :class:`Schema` from a dict, a DataFrame, a CSV or JSON codebook, or a Schema.

    Parameters
    ----------
    source : Schema, dict, pandas.DataFrame, pandas.Series, str or os.PathLike
        * dict: column -> {"lower", "upper", "scale", "units"} (any subset), or column -> number
          (a scale; with ``kind="bounds"`` column -> (lower, upper));
        * DataFrame: a ``column`` field (or the index) and any of ``lower``, ``upper``,
          ``scale``, ``units`` (missing cells are not declared);
        * Series: column -> scale;
        * path to a ``.csv`` file (the DataFrame's layout) or a ``.json`` file (the dict's
          layout, or a list of records with a ``column`` field).
    kind : {"schema", "scale", "bounds"}
        How bare numbers in a dict are read (the argument the user gave: ``scale=`` or
        ``bounds=``), and the name used in error messages.

    Returns
    -------
    Schema

    Raises
    ------
    DPPCATypeError
        A source of another type, or a field that is not a number.
    DPPCAValueError
        Unknown fields, a missing file, lower >= upper, a non-positive scale.

    Notes
    -----
    Privacy: reading a codebook touches no data.

    Examples
    --------
    >>> from dppca.preprocessing.schema import read_schema
    >>> read_schema({"x": (0, 10)}, kind="bounds")["x"].upper
    10.0
    """
    if isinstance(source, Schema):
        return source
    if isinstance(source, (str, os.PathLike)):
        return _read_file(os.fspath(source), kind)
    if isinstance(source, pd.Series):
        return read_schema(source.to_dict(), kind="scale")
    if isinstance(source, pd.DataFrame):
        return _from_records(_frame_records(source), kind)
    if isinstance(source, dict):
        return _from_records([_dict_record(c, v, kind) for c, v in source.items()], kind)
    raise DPPCATypeError(f"`{kind}` must be a dict, a DataFrame, a Series, a CSV/JSON path or a "
                         f"Schema; got {type(source).__name__}")


def _read_file(path, kind) -> Schema:
    if not os.path.isfile(path):
        raise DPPCAValueError(f"`{kind}`: no such file {path!r}")
    if path.lower().endswith(".json"):
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if isinstance(data, list):
            return _from_records([dict(r) for r in data], kind)
        return read_schema(data, kind=kind)
    if path.lower().endswith(".csv"):
        return read_schema(pd.read_csv(path), kind=kind)
    raise DPPCAValueError(f"`{kind}`: a codebook file must end in .csv or .json; got {path!r}")


def _frame_records(frame: pd.DataFrame) -> list[dict]:
    if "column" not in frame.columns:
        frame = frame.rename_axis("column").reset_index()
    return [{k: v for k, v in row.items() if not (isinstance(v, float) and math.isnan(v))}
            for row in frame.to_dict("records")]


def _dict_record(column, value, kind) -> dict:
    if isinstance(value, dict):
        return {"column": column, **value}
    if kind == "bounds" and isinstance(value, (tuple, list)) and len(value) == 2:
        return {"column": column, "lower": value[0], "upper": value[1]}
    return {"column": column, "scale": value}


def _from_records(records, kind) -> Schema:
    entries = []
    for record in records:
        extra = set(record) - set(SCHEMA_FIELDS)
        if extra:
            raise DPPCAValueError(f"`{kind}`: unknown field(s) {sorted(extra)}; "
                                  f"the fields are {list(SCHEMA_FIELDS)}")
        if "column" not in record:
            raise DPPCAValueError(f"`{kind}`: every entry needs a `column` name; got {record}")
        numbers = {}
        for field in ("lower", "upper", "scale"):
            if field in record and record[field] is not None:
                try:
                    numbers[field] = float(record[field])
                except (TypeError, ValueError):
                    raise DPPCATypeError(f"`{kind}`: {field} of column {record['column']!r} must "
                                         f"be a number; got {record[field]!r}") from None
        entries.append(ColumnSchema(str(record["column"]), units=str(record.get("units", "") or ""),
                                    **numbers))
    return Schema(entries, name=f"`{kind}`" if kind != "schema" else kind)


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


def is_named_scale(scale, columns=None) -> bool:
    """Whether ``scale`` is given per column name (partial declarations allowed)."""
    if isinstance(scale, (Schema, dict, pd.DataFrame, str, os.PathLike)):
        return True
    return isinstance(scale, pd.Series) and columns is not None and \
        not set(scale.index) >= set(map(str, columns))


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
        from .matrix import fully_declared

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

    def variance_bound(self, scales=None) -> float:
        """Public upper bound of the sample trace of ``X / scales`` (inf unless all bounded).

        Popoviciu's inequality: a column in [l, u] has population variance <= (u - l)^2 / 4, so
        its sample variance (ddof 1) is <= n / (n - 1) (u - l)^2 / 4; the trace is the sum.
        """
        if self.schema is None:
            return math.inf
        lower, upper = self.schema.bounds(self.matrix.columns)
        s = np.ones(len(lower)) if scales is None else np.asarray(scales, float)
        n = self.matrix.n
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
