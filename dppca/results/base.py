"""Shared behaviour of result objects: statsmodels summaries, printing, HTML.

A result holds its numbers as attributes; ``summary()`` assembles a
``statsmodels.iolib.summary.Summary`` from three hooks each subclass fills in:
``_header()`` (left and right lists of (label, value) facts), ``_tables()``
(body tables) and ``_notes()`` (numbered notes).
"""
from __future__ import annotations

import math

import pandas as pd
from statsmodels.iolib.summary import Summary
from statsmodels.iolib.table import SimpleTable
from statsmodels.iolib.tableformatting import fmt_params

NONPRIVATE = "NON-PRIVATE"


def fmt(value) -> str:
    """Format a header value: 4 significant digits for floats, 'none' for missing values."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def frame_table(frame: pd.DataFrame, title: str | None = None, digits: int = 4) -> SimpleTable:
    """A statsmodels ``SimpleTable`` from a DataFrame (index = stubs, columns = headers)."""
    def cell(v):
        if isinstance(v, float):
            return "-" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    data = [[cell(v) for v in row] for row in frame.itertuples(index=False)]
    return SimpleTable(data, headers=[str(c) for c in frame.columns],
                       stubs=[str(i) for i in frame.index], title=title, txt_fmt=fmt_params)


class DPResult:
    """Base class of every dppca result.

    Subclasses set ``_title`` and implement ``_header``, ``_tables`` and ``_notes``.
    """

    _title = "Differentially Private PCA"
    #: Set by a caller that gave this result part of a larger budget (``dppca report``'s sections).
    total_eps = budget_share = None

    def _header(self) -> tuple[list, list]:
        raise NotImplementedError

    def _tables(self) -> list:
        return []

    def _notes(self) -> list[str]:
        return []

    def summary(self) -> Summary:
        """A statsmodels ``Summary``: header facts, body tables, numbered notes.

        ``print(result.summary())`` shows text; ``.as_html()``, ``.as_latex()`` also work.
        """
        left, right = self._header()
        if self.total_eps is not None:  # "0.3 of 1 (section share)"
            left = [(k, f"{fmt(v)} of {fmt(self.total_eps)} (section share)" if k == "Epsilon" else v)
                    for k, v in left]
        smry = Summary()
        smry.add_table_2cols(None, gleft=[(f"{k}:", [fmt(v)]) for k, v in left],
                             gright=[(f"{k}:", [fmt(v)]) for k, v in right],
                             title=self._title, yname="", xname=[])
        smry.tables.extend(self._tables())
        notes = self._notes()
        if notes:
            smry.add_extra_txt([f"[{i}] {note}" for i, note in enumerate(notes, start=1)])
        return smry

    def __str__(self) -> str:
        return self.summary().as_text()

    def _repr_html_(self) -> str:
        return self.summary().as_html()
