"""The ``dppca`` command's input: bundled data sets, CSV and Parquet files, columns and labels.

Pandas and the data sets load on first use (SPEC 1 lazy loading), so that ``dppca --help``
stays light.
"""
from __future__ import annotations

import importlib
from pathlib import Path

import lazy_loader as lazy

from .._validation import DPPCAValueError

pd = lazy.load("pandas")


def deferred(module: str, name: str):
    """A stand-in for ``dppca.<module>.<name>`` that imports the module on its first call.

    Parameters
    ----------
    module, name : str
        The submodule of ``dppca`` and the function (or class) in it.

    Returns
    -------
    callable
        Calls ``dppca.<module>.<name>`` with its arguments.

    Examples
    --------
    >>> from dppca.cli.data import deferred
    >>> deferred("datasets", "load_gau")().shape
    (5000, 20)
    """
    def call(*args, **kwargs):
        return getattr(importlib.import_module(f"dppca.{module}"), name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``dppca.{module}.{name}``, imported on first call."
    return call


_load_gau, _load_gau_g, _load_adult = (deferred("datasets", name)
                                       for name in ("load_gau", "load_gau_g", "load_adult"))
#: The label given to rows whose --group label is missing (a label like any other).
MISSING_LABEL = "(missing)"
#: The bundled data sets ``--data`` may name, as the R package ships them.
BUNDLED = {"gau": _load_gau, "gau_g": _load_gau_g, "adult": lambda: _load_adult(labels=True)}


def load_data(spec: str, group: str | None = None, empty: bool = False) -> tuple:
    """A bundled dataset by name (``adult`` with its labels), a CSV file, or a Parquet file/folder.

    Returns ``(frame, bundled)``. A CSV's ``group`` column is read as text, so labels keep
    their spelling ("01" stays "01") and match ``--group-levels`` as written. The report
    reads the rows into memory (its score and scree sections need them; g-DPPCA uses the
    incomplete U-statistic at this size): 10^7 rows x 20 columns take 1.6 GB. To stream a
    bigger file, call :func:`dppca.dp_pc_dir` on its path (dask).

    ``empty=True`` accepts a file without rows (a report under add/remove neighbours, whose
    row count is private and refused only from its released count); its columns, which no
    cell types, are read as float.

    Raises
    ------
    FileNotFoundError
        No bundled dataset and no file of that name.
    DPPCAValueError
        An empty or unreadable file, or a file with no rows.
    """
    if spec in BUNDLED:
        return BUNDLED[spec](), True
    path = Path(spec)
    if path.suffix.lower() in PARQUET_SUFFIXES and path.exists():
        frame = _read_parquet(path, spec, group)
    elif not path.is_file():
        raise FileNotFoundError(f"--data: no bundled dataset or file named {spec!r} "
                                f"(bundled: {sorted(BUNDLED)})")
    else:
        frame = _read_csv(path, spec, group)
    if len(frame) == 0 and empty:
        return frame.astype({c: float for c in frame.columns if c != group}), False
    if len(frame) == 0:
        raise DPPCAValueError(f"--data: the file {spec!r} has {frame.shape[1]} columns and 0 rows; "
                              "a report needs data rows")
    return frame, False


#: File suffixes read as Parquet (a file, or a folder of a partitioned dataset).
PARQUET_SUFFIXES = (".parquet", ".pq")


def _read_parquet(path, spec, group):
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError, ImportError) as err:
        raise DPPCAValueError(f"--data: cannot read {spec!r} as Parquet ({err})") from None
    if group is not None and group in frame.columns:
        frame[group] = frame[group].astype("string")
    return frame


def _read_csv(path, spec, group):
    try:
        frame = pd.read_csv(path, dtype=None if group is None else {group: "string"})
    except pd.errors.EmptyDataError:
        raise DPPCAValueError(f"--data: the file {spec!r} is empty (no header, no rows)") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise DPPCAValueError(f"--data: cannot read {spec!r} as CSV ({err})") from None
    # pandas renames a repeated name ("a" -> "a.1"): compare with the header as written
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False).iloc[0]
    repeated = sorted({name for name in header if list(header).count(name) > 1})
    if repeated:
        raise DPPCAValueError(f"--data: the file {spec!r} has duplicate column names {repeated}; "
                              "every column needs its own name")
    return frame


def feature_columns(frame: pd.DataFrame, args, bundled: bool) -> pd.DataFrame:
    """The columns to analyse: ``--columns``, else every column but ``--group``.

    Never drops a column silently: a chosen column that is not numeric is an error listing
    them. Without ``--columns`` a bundled dataset uses its numeric columns (its fixed,
    documented schema, e.g. adult's 5 numeric variables).
    """
    if args.group is not None and args.group not in frame.columns:
        raise DPPCAValueError(f"--group must name a column of the data; no column {args.group!r} "
                              f"in {list(frame.columns)}")
    if args.columns is not None:
        chosen = _name_list(args.columns, "--columns")
        unknown = [c for c in chosen if c not in frame.columns]
        if unknown:
            raise DPPCAValueError(f"--columns names no column {unknown}; the data has {list(frame.columns)}")
        if args.group in chosen:
            raise DPPCAValueError(f"--columns must not include the --group column {args.group!r}")
    elif bundled:
        chosen = [c for c in frame.select_dtypes("number").columns if c != args.group]
    else:
        chosen = [c for c in frame.columns if c != args.group]
    features = frame[chosen]
    text = [c for c in chosen if not pd.api.types.is_numeric_dtype(features[c].dtype)]
    if text:
        raise DPPCAValueError(f"--data: columns {text} are not numeric; " + _numeric_hint(
            [c for c in chosen if c not in text], text, args.group))
    return features


def _numeric_hint(numeric, text, group) -> str:
    """The command-line fix for text columns, with the data's own column names (following it
    cannot repeat the error: it lists only numeric columns)."""
    if not numeric:
        return "there is no numeric column to analyse among them"
    fix = "analyse the numeric ones with --columns " + ",".join(map(str, numeric))
    if group is None and len(text) == 1:
        fix += f" (or use {text[0]!r} as the labels: --group {text[0]})"
    return fix


def group_levels(spec: str | None) -> list | None:
    """``--group-levels``: comma-separated labels, or ``@FILE`` with one label per line."""
    if spec is None:
        return None
    if spec.startswith("@"):
        path = Path(spec[1:])
        if not path.is_file():
            raise FileNotFoundError(f"--group-levels: no file {spec[1:]!r}")
        levels = [line.strip() for line in path.read_text().splitlines() if line.strip()]
        if not levels:
            raise DPPCAValueError(f"--group-levels: the file {spec[1:]!r} lists no label")
        return levels
    return _name_list(spec, "--group-levels")


def _name_list(spec: str, option: str) -> list:
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise DPPCAValueError(f"{option} must list at least one name (comma-separated); got {spec!r}")
    return names


__all__ = ["BUNDLED", "MISSING_LABEL", "PARQUET_SUFFIXES", "deferred", "feature_columns",
           "group_levels", "load_data"]
