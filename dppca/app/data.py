"""Data for the app: example datasets, CSV uploads, provided data, and the group column.

Everything here is plain Python (no Shiny), so it is tested without a browser. Every
problem with the input raises :class:`AppDataError`, whose message the page shows as is.

The schema is public and never read from the cells: a schema read from the cells (a column typed
as text because one cell is text, a group column guessed from its values) would let one row
change p, the variables or a message, which no neighbouring pair may do. What is treated as
public (like n in the privacy contract): the header (column names), n (the number of non-blank
lines after the header) and the user's choice of the group column. The schema follows from them
alone (:data:`SCHEMA_RULES`):

* the group column is the one the user picks, or else the first column with a group-like name
  (R's ``.infer_group_column`` rule 1); R's rules 2 and 3 read the values (the first
  non-numeric column; the last integer column with few distinct values) and are not used;
* every other column is a variable, so p = number of columns - (1 if a group column);
* a variable's cell that is not a real number (text, an empty cell, NaN) is a missing cell
  (NaN), which every run handles by its public ``missing=`` policy (the page's "Missing cells"
  control, :mod:`dppca.preprocessing.missing`); +-inf and numbers beyond the float range (1e400)
  are +-inf, extreme values that the package clamps to its public bound (on the rank path, the
  extreme ranks); a missing group label is the label :data:`MISSING_LABEL`.

Each rule maps one cell (or one line) alone, so a replaced row still changes one row, n and p
do not change, and no message, refusal or page text depends on a cell. In particular the page
never counts or locates the missing cells: where they are is private. A CSV upload is split
into lines and fields without quote handling (a field's surrounding quotes are stripped), so
that one cell cannot change the number of rows or columns either: a line with fewer fields
than the header is padded with empty cells, one with more is cut to the header's width.
"""
from __future__ import annotations

import csv
import hashlib
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import datasets

#: Largest CSV upload accepted, in bytes (the page says so next to the file input).
MAX_UPLOAD_BYTES = 20 * 2**20

#: Example datasets: key -> (label shown, loader, group column or None).
EXAMPLES = {
    "gau": ("gau: Gaussian clusters (5000 x 20)", datasets.load_gau, None),
    "gau_g": ("gau_g: Gaussian clusters, 5 groups (5000 x 20)", datasets.load_gau_g, "group"),
    "adult": ("adult: UCI Adult, numeric columns (32561 x 5)", datasets.load_adult, None),
}

#: The label given to rows whose group label is missing (as in ``dppca report``).
MISSING_LABEL = "(missing)"

#: The public rules of the schema, as the page states them.
SCHEMA_RULES = ("every column except the group column is a variable; a cell that is not a number "
                "(text, empty, NaN) is a missing cell, handled by the run's \u201cMissing cells\u201d "
                "policy; inf is an extreme value (clamped)")

#: Line breaks of a CSV upload (not str.splitlines, which also breaks at \x0b, \x1c, \u2028...).
_LINES = re.compile(r"\r\n|\r|\n")

#: Column names taken as group labels (case-insensitive), R's ``.infer_group_column`` rule 1.
GROUP_COLUMN_NAMES = ("group", "groups", "label", "labels", "class", "cluster", "g", "color",
                      "colour")


class AppDataError(ValueError):
    """A problem with the data the user gave; the message is shown in the page."""


@dataclass(frozen=True)
class AppData:
    """The data of one app session, ready for the private analyses.

    Attributes
    ----------
    key : str
        Identity of the dataset (the session budget and the cache are per key).
    label : str
        What the page calls the data.
    features : pandas.DataFrame, shape (n, p)
        The variables (every column but the group column), as floats by the public rule: NaN
        marks a missing cell, +-inf an extreme one (:func:`public_numbers`).
    labels : pandas.Series or None, shape (n,)
        Group labels for the grouped score plot, or None.
    group_name : str or None
        Name of the group column (or "provided labels").
    """

    key: str
    label: str
    features: pd.DataFrame
    labels: pd.Series | None = None
    group_name: str | None = None

    @property
    def n(self) -> int:
        return len(self.features)

    @property
    def p(self) -> int:
        return self.features.shape[1]

    @property
    def max_pc(self) -> int:
        """Largest PC number the app offers: max(2, min(n - 1, p)) as in R."""
        return max(2, min(self.n - 1, self.p))


def default_delta(n: int) -> float:
    """Default session delta for n rows: 10^-(ceil(log10 n) + 1), below 1/(10 n).

    R's app uses 10^-ceil(log10 n), which is about 1/n (its Observation P10); one more
    decade keeps delta well below 1/n. n is public.
    """
    return 10.0 ** -(math.ceil(math.log10(max(n, 2))) + 1)


def infer_group_column(columns) -> str | None:
    """The group column from the header alone: the first group-like name (R's rule 1), or None.

    Parameters
    ----------
    columns : iterable of str, or pandas.DataFrame (its columns)
        The header. Cell values are never read: a column of labels with another name is
        chosen by the user (the page's "Group column"), not guessed from its values.

    Examples
    --------
    >>> infer_group_column(["x", "Cluster", "kind"])
    'Cluster'
    >>> infer_group_column(["x", "y", "kind"]) is None
    True
    """
    for column in columns:
        if str(column).lower() in GROUP_COLUMN_NAMES:
            return column
    return None


def example_data(name: str) -> AppData:
    """An example dataset by key (``gau``, ``gau_g``, ``adult``).

    Examples
    --------
    >>> data = example_data("gau_g")
    >>> data.n, data.p, data.group_name
    (5000, 20, 'group')
    """
    if name not in EXAMPLES:
        raise AppDataError(f"unknown example dataset {name!r}; choose one of {sorted(EXAMPLES)}")
    label, loader, group = EXAMPLES[name]
    return prepare(loader(), group, key=f"example:{name}", label=label)


def read_upload(path, name: str, header: bool = True) -> pd.DataFrame:
    """Read an uploaded CSV file into a table of text cells, by public rules only.

    Parameters
    ----------
    path : str or Path
        Where the server stored the upload.
    name : str
        The file name the user chose (checked for the ``.csv`` extension).
    header : bool
        Whether the first line holds the column names (else V1..Vp, p = the first line's
        number of fields).

    Returns
    -------
    pandas.DataFrame, shape (n, p)
        Text cells (object dtype; an absent field is ""). n = the non-blank lines after the
        header; p = the header's fields. Types are not inferred: :func:`prepare` turns the
        variables into numbers by :data:`SCHEMA_RULES`.

    Raises
    ------
    AppDataError
        Not a .csv name, larger than :data:`MAX_UPLOAD_BYTES`, or empty; each a fact about the
        file's name or size, not its cells (bytes that are not UTF-8 become U+FFFD, i.e. a
        cell that is not a number).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.csv")
    >>> _ = open(path, "w").write('a,"b",g\\n1,2,x\\n3,abc\\n\\n4,5,y,extra\\n')
    >>> read_upload(path, "d.csv").values.tolist()
    [['1', '2', 'x'], ['3', 'abc', ''], ['4', '5', 'y']]
    """
    if not str(name).lower().endswith(".csv"):
        raise AppDataError(f"'{name}' is not a CSV file: upload a file whose name ends in .csv")
    size = Path(path).stat().st_size
    if size > MAX_UPLOAD_BYTES:
        raise AppDataError(f"'{name}' is larger than the app's limit for CSV files "
                           f"({size:,} bytes; the app accepts CSV files up to "
                           f"{MAX_UPLOAD_BYTES // 2**20} MB = {MAX_UPLOAD_BYTES:,} bytes)")
    if size == 0:
        raise AppDataError(f"'{name}' is empty")
    return read_csv_cells(Path(path).read_bytes(), header, name)


def read_csv_cells(raw: bytes, header: bool = True, name: str = "the file") -> pd.DataFrame:
    """CSV bytes as a table of text cells (the public line and field rules of :func:`read_upload`).

    Raises
    ------
    AppDataError
        No non-blank line.

    Examples
    --------
    >>> read_csv_cells(b"x,y\\n1,\\n").values.tolist()
    [['1', '']]
    """
    lines = [line for line in _LINES.split(raw.decode("utf-8-sig", errors="replace"))
             if line.strip()]
    if not lines:
        raise AppDataError(f"'{name}' has no rows or columns")
    first = next(csv.reader([lines[0]]))  # the header may quote its names (it is public)
    columns = _unique([c.strip() or f"V{i + 1}" for i, c in enumerate(first)]) if header \
        else [f"V{i + 1}" for i in range(len(first))]
    width = len(columns)
    rows = [(fields + [""] * width)[:width]
            for fields in (line.split(",") for line in lines[1 if header else 0:])]
    frame = pd.DataFrame(rows, columns=columns, dtype=object)
    frame.attrs["sha256"] = hashlib.sha256(raw).hexdigest()[:16]
    return frame


def _unique(names: list) -> list:
    """Header names made unique as pandas does (a, a.1, a.2)."""
    seen: dict = {}
    out = []
    for name in names:
        out.append(name if name not in seen else f"{name}.{seen[name]}")
        seen[name] = seen.get(name, 0) + 1
    return out


def public_numbers(column: pd.Series) -> pd.Series:
    """A variable's cells as floats by the public rule: not a number -> NaN (a missing cell).

    Each cell is mapped alone (text and quotes stripped, then read as a number), so no cell
    changes another's value, the number of rows, or any message. +-inf (and 1e400, beyond the
    float range) stay +-inf: the package clamps them to its public bound. No cell is filled
    here: what a NaN cell means is the run's ``missing=`` policy (a declared value, private
    column medians, or pairwise-present statistics), chosen in the page, never from the data.

    Examples
    --------
    >>> public_numbers(pd.Series(["1.5", " 2", '"3"', "abc", "", "inf", "1e400"])).tolist()
    [1.5, 2.0, 3.0, nan, nan, inf, inf]
    """
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return pd.Series(np.asarray(column, dtype=float), index=column.index)
    text = column.astype(str).str.strip().str.strip('"').str.strip()
    return pd.to_numeric(text, errors="coerce").astype(float)


def prepare(X, group=None, *, key: str, label: str, infer: bool = True) -> AppData:
    """Split data into variables and group labels by the header alone (:data:`SCHEMA_RULES`).

    Parameters
    ----------
    X : pandas.DataFrame or 2-D array_like, shape (n, p)
        Numbers or text cells (an upload from :func:`read_upload`).
    group : None, str or array_like of length n
        None: the first group-like column name (:func:`infer_group_column`) when ``infer``;
        a column name of X; or one label per row.
    key, label : str
        See :class:`AppData`.
    infer : bool
        Whether to infer a group column from the names when ``group`` is None.

    Raises
    ------
    AppDataError
        Fewer than 2 rows, a group column that does not exist, labels of the wrong length, or
        fewer than 2 variables (columns other than the group column). Each depends on n, the
        header and the arguments only: a cell never causes an error (see :func:`public_numbers`).

    Examples
    --------
    >>> frame = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": ["0.5", "abc", ""], "g": ["x", "y", "x"]})
    >>> data = prepare(frame, "g", key="mine", label="my data")
    >>> list(data.features.columns), data.features["b"].tolist()
    (['a', 'b'], [0.5, nan, nan])
    """
    frame = X if isinstance(X, pd.DataFrame) else _as_frame(X)
    if len(frame) < 2:
        raise AppDataError(f"the data must have at least 2 rows; got {len(frame)}")
    if group is None and infer:
        group = infer_group_column(frame.columns)
    labels, group_name = None, None
    if isinstance(group, str):
        if group not in frame.columns:
            raise AppDataError(f"group column {group!r} is not a column of the data; columns: "
                               f"{list(map(str, frame.columns))}")
        labels, group_name, frame = frame[group], group, frame.drop(columns=group)
    elif group is not None:
        labels, group_name = pd.Series(np.asarray(group, dtype=object)), "provided labels"
        if len(labels) != len(frame):
            raise AppDataError(f"`group` must have one label per row ({len(frame)}); got {len(labels)}")
    if labels is not None:
        # A missing label is a label like any other (no refusal: it would depend on the data).
        labels = labels.astype(object).where(labels.notna() & (labels.astype(str).str.strip() != ""),
                                             MISSING_LABEL).reset_index(drop=True)
    if frame.shape[1] < 2:
        raise AppDataError(f"the data must have at least 2 variables (columns other than the "
                           f"group column); found {frame.shape[1]}: {list(map(str, frame.columns))}")
    features = frame.apply(public_numbers).astype(float)
    return AppData(key=key, label=label, features=features.reset_index(drop=True), labels=labels,
                   group_name=group_name)


def _as_frame(X) -> pd.DataFrame:
    array = np.asarray(X)
    if array.ndim != 2:
        raise AppDataError(f"the data must be a table (2-D); got {array.ndim} dimension(s)")
    return pd.DataFrame(array, columns=[f"V{i + 1}" for i in range(array.shape[1])])

__all__ = ["AppData", "AppDataError", "SCHEMA_RULES", "default_delta", "example_data",
           "infer_group_column", "prepare", "public_numbers", "read_csv_cells", "read_upload"]
