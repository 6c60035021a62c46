"""A codebook of declared public metadata, read into a :class:`Schema`.

A codebook (or data dictionary) states, for some columns, a public lower and upper bound, a
public scale and the units. :func:`read_schema` reads one from a CSV or JSON file, a
DataFrame, a dict or a Series and checks every entry; :func:`is_named_scale` tells a per-name
declaration from a plain vector of p scales. How a call applies the declared facts (clipping,
ledger rows, the scales it need not release) is :mod:`dppca.preprocessing.schema`.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import DPPCATypeError, DPPCAValueError

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


def is_named_scale(scale, columns=None) -> bool:
    """Whether ``scale`` is given per column name (partial declarations allowed)."""
    if isinstance(scale, (Schema, dict, pd.DataFrame, str, os.PathLike)):
        return True
    return isinstance(scale, pd.Series) and columns is not None and \
        not set(scale.index) >= set(map(str, columns))


__all__ = ["ColumnSchema", "SCHEMA_FIELDS", "Schema", "is_named_scale", "read_schema"]
