"""Shared behaviour of result objects: statsmodels summaries, printing, HTML.

A result holds its numbers as attributes; ``summary()`` assembles a
``statsmodels.iolib.summary.Summary`` from three hooks each subclass fills in:
``_header()`` (left and right lists of (label, value) facts), ``_tables(alpha)``
(body tables) and ``_notes()`` (numbered notes, printed under a "Notes:" heading as
statsmodels does). Every line of the text summary fits in ``SUMMARY_WIDTH`` characters.
"""
from __future__ import annotations

import math
import textwrap

import pandas as pd
from statsmodels.iolib.summary import Summary
from statsmodels.iolib.table import SimpleTable
from statsmodels.iolib.tableformatting import fmt_params

from .._validation import float_arg
from .estimands import estimand
from ..privacy import Ledger
from ..privacy.budget import DECLARED

NONPRIVATE = "NON-PRIVATE"
#: Widest line of a text summary (header, tables, notes), in characters.
SUMMARY_WIDTH = 100
#: Widest row label and text cell of a body table; longer ones wrap onto continuation rows.
STUB_WIDTH, CELL_WIDTH = 28, 21
#: Ledger tables: narrower step and norm columns, so that seven columns fit.
LEDGER_STUB_WIDTH, LEDGER_NORM_WIDTH = 24, 14
#: Widest header value (the two-column header block); longer values wrap onto the next row.
HEADER_VALUE_WIDTH = 28
#: statsmodels' text format with columns as wide as their content (its default pads to 10-11).
COMPACT_FMT = {**fmt_params, "data_fmts": ["%s"], "colwidths": None}


def scaling_label(source: str, ledger=None) -> str:
    """Header text for the column scaling: "none", "public", "private (20% of eps)", ...

    Parameters
    ----------
    source : str
        A result's ``scale_source`` ("none", "public", "private", "sample (NON-PRIVATE)", or
        a caller's label such as the report's).
    ledger : dppca.privacy.Ledger, optional
        The call's ledger; for "private" the share of its eps spent on releases whose step
        starts with "scale" is added. Reading the ledger is post-processing (no privacy cost).

    Returns
    -------
    str

    Examples
    --------
    >>> from dppca.privacy import Ledger
    >>> ledger = Ledger(1.0, 1e-5)
    >>> _ = ledger.record("scale: clipped variances", "Gaussian (analytic)", 1, "L2", 3, 0.2, 2e-6)
    >>> _ = ledger.record("directions: Kendall's tau matrix", "Gaussian (analytic)", 1, "L2", 1, 0.8, 8e-6)
    >>> scaling_label("private", ledger)
    'private (20% of eps)'
    >>> scaling_label("public", ledger)
    'public'
    """
    if source != "private" or ledger is None or not len(ledger):
        return source
    spent = sum(r.eps for r in ledger if r.step.startswith("scale"))
    return f"private ({spent / ledger.eps:.0%} of eps)" if spent > 0 else source


def combined_ledger(ledgers, shared_releases, eps, delta):
    """Every release of several per-method ledgers once: the first ledger whole, then each other
    one without its first ``shared_releases`` rows (the releases all methods share).

    Examples
    --------
    >>> from dppca.privacy import Ledger
    >>> shared = Ledger(1.0, 1e-5)
    >>> _ = shared.record("trace", "Gaussian", 1.0, "L2", 2.0, 0.5, 1e-5)
    >>> len(combined_ledger({"a": shared, "b": shared}, 1, 1.0, 1e-5).releases)
    1
    """
    combined = Ledger(eps, delta)
    for ledger in list(ledgers.values())[:1]:  # the relation is the call's, the same in each
        combined.neighbouring = ledger.neighbouring
    for position, ledger in enumerate(ledgers.values()):
        for release in ledger.releases[0 if position == 0 else shared_releases:]:
            combined.record(release.step, release.mechanism, release.sensitivity, release.norm,
                            release.noise_scale, release.eps, release.delta)
    return combined


def release_count(ledger) -> str:
    """How many releases a ledger lists: the private ones, and its zero-cost declared rows apart.

    Parameters
    ----------
    ledger : dppca.privacy.Ledger
        A call's ledger.

    Returns
    -------
    str
        "N private releases" (the rows that spend budget), followed by ', M "public (declared)"
        rows' when the call had declared public metadata (one row per kind: bounds, scales).
        Public facts only: the rows depend on the call's arguments, never on the data.

    Examples
    --------
    >>> from dppca.privacy import Ledger
    >>> ledger = Ledger(1.0, 1e-5)
    >>> _ = ledger.record("directions: Kendall's tau matrix", "Gaussian (analytic)", 1, "L2", 1, 1.0, 1e-5)
    >>> release_count(ledger)
    '1 private release'
    >>> _ = ledger.record("declared bounds: a", "public (declared)", 0, "none", 0, 0, 0)
    >>> release_count(ledger)
    '1 private release, 1 "public (declared)" row'
    """
    declared = sum(r.mechanism == DECLARED for r in ledger.releases)
    private = len(ledger.releases) - declared
    text = f"{private} private release{'' if private == 1 else 's'}"
    if declared:
        text += f', {declared} "{DECLARED}" row{"" if declared == 1 else "s"}'
    return text


def data_units(source: str) -> str:
    """Units of the data the directions saw: "standardized units" unless ``source`` is "none".

    Examples
    --------
    >>> data_units("none"), data_units("private")
    ('data units', 'standardized units')
    """
    return "data units" if source in (None, "none") else "standardized units"


def fmt(value) -> str:
    """Format a header value: 4 significant digits for floats, 'none' for missing values."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def frame_table(frame: pd.DataFrame, title: str | None = None, digits: int = 4, *,
                stub_width: int = STUB_WIDTH, widths: dict | None = None) -> SimpleTable:
    """A statsmodels ``SimpleTable`` from a DataFrame (index = stubs, columns = headers).

    Columns are as wide as their content; a row label longer than ``STUB_WIDTH`` or a text
    cell longer than ``CELL_WIDTH`` wraps onto continuation rows, so that the table fits in
    ``SUMMARY_WIDTH``.

    Parameters
    ----------
    frame : pandas.DataFrame, shape (rows, columns)
    title : str, optional
    digits : int
        Decimals of float cells (nan prints as "-").
    stub_width : int
        Widest row label before it wraps.
    widths : dict of column to int, optional
        Widest cell of those columns before it wraps (default ``CELL_WIDTH``).

    Returns
    -------
    statsmodels.iolib.table.SimpleTable

    Examples
    --------
    >>> table = frame_table(pd.DataFrame({"PC1": [0.5]}, index=["a long variable name " * 2]))
    >>> print(table)  # doctest: +NORMALIZE_WHITESPACE
    ==================================
                                   PC1
    ----------------------------------
    a long variable name a long 0.5000
      variable name
    ==================================
    """
    def cell(v):
        if isinstance(v, float):
            return "-" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    data, stubs, widths = [], [], widths or {}
    for label, row in zip(frame.index, frame.itertuples(index=False)):
        columns = [_wrap(str(label), stub_width)] + [_wrap(cell(v), widths.get(c, CELL_WIDTH))
                                                     for c, v in zip(frame.columns, row)]
        height = max(len(lines) for lines in columns)
        columns = [lines + [""] * (height - len(lines)) for lines in columns]
        stubs.extend(columns[0])
        data.extend(list(line) for line in zip(*columns[1:]))
    return SimpleTable(data, headers=[str(c) for c in frame.columns], stubs=stubs, title=title,
                       txt_fmt=COMPACT_FMT)


def ledger_table(ledger, title: str = "Ledger") -> SimpleTable:
    """The releases of a ``Ledger`` as a summary table (one row per release, step as row label).

    Columns: mechanism, sens. (sensitivity), norm, noise (noise scale), eps, delta; long
    steps and mechanisms wrap onto continuation rows (see :func:`frame_table`).

    Examples
    --------
    >>> from dppca.privacy import Ledger
    >>> ledger = Ledger(1.0, 1e-5)
    >>> _ = ledger.record("directions", "Gaussian (analytic)", 0.01, "Frobenius", 0.05, 1.0, 1e-5)
    >>> print(ledger_table(ledger))  # doctest: +NORMALIZE_WHITESPACE
                               Ledger
    ==============================================================
                         mechanism sens.      norm noise eps delta
    --------------------------------------------------------------
    directions Gaussian (analytic)  0.01 Frobenius  0.05   1 1e-05
    ==============================================================
    """
    frame = ledger.to_frame().drop(columns="step").apply(lambda column: column.map(fmt))
    frame.index = [r.step for r in ledger]
    frame = frame.rename(columns={"sensitivity": "sens.", "noise_scale": "noise"})
    return frame_table(frame, title, stub_width=LEDGER_STUB_WIDTH, widths={"norm": LEDGER_NORM_WIDTH})


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False) or [""]


def _header_rows(facts: list) -> list:
    """(label, value) facts as statsmodels header rows; long values continue on unlabelled rows."""
    rows = []
    for label, value in facts:
        lines = _wrap(fmt(value), HEADER_VALUE_WIDTH)
        rows.append((f"{label}:", [lines[0]]))
        rows.extend(("", [line]) for line in lines[1:])
    return rows


def notes_text(notes: list[str]) -> list[str]:
    """statsmodels' notes block: a "Notes:" heading, then "[i] note" wrapped to SUMMARY_WIDTH.

    Continuation lines are indented under the note's text.

    Examples
    --------
    >>> notes_text(["Std err covers the privacy noise only."])
    ['Notes:', '[1] Std err covers the privacy noise only.']
    """
    lines = ["Notes:"]
    for i, note in enumerate(notes, start=1):
        lead = f"[{i}] "
        lines.extend(textwrap.wrap(note, SUMMARY_WIDTH, initial_indent=lead,
                                   subsequent_indent=" " * len(lead), break_on_hyphens=False))
    return lines


class DPResult:
    """Base class of every dppca result.

    Subclasses set ``_title`` and implement ``_header``, ``_tables`` and ``_notes``.
    """

    #: What the result is, for its summary title.
    _subject = "PCA"

    @property
    def _title(self) -> str:
        """"Differentially Private <subject>", or the NON-PRIVATE directions it was given."""
        if getattr(self, "directions_private", True):
            return f"Differentially Private {self._subject}"
        return f"Private {self._subject} given {NONPRIVATE} Directions"

    @property
    def units(self) -> str:
        """Units of the data the directions saw ("data units" or "standardized units")."""
        return data_units(getattr(self, "scale_source", "none"))
    #: Set by a caller that gave this result part of a larger budget (``dppca report``'s sections).
    total_eps = budget_share = None
    #: The call's accuracy model (:class:`dppca.privacy.accuracy.AccuracyReport`), shown as the
    #: summary's "Expected accuracy" table and notes; None: no block.
    accuracy = None

    @property
    def estimand(self) -> str:
        """What this result estimates: which matrix's eigenvectors (and which variances), and
        when that equals covariance or correlation PCA (sentences of
        :data:`dppca.results.estimands.ESTIMANDS`; shown in the summary's notes)."""
        return " ".join(f"{part}: {estimand(key)}" for part, key in self._estimand_keys())

    def _estimand_keys(self) -> list:
        """(part, key of ``ESTIMANDS``) pairs, e.g. ``[("Directions", "kendall")]``."""
        return []

    def _header(self) -> tuple[list, list]:
        raise NotImplementedError

    def _tables(self, alpha: float = 0.05) -> list:
        return []

    def _notes(self) -> list[str]:
        return []

    def summary(self, alpha: float = 0.05) -> Summary:
        """A statsmodels ``Summary``: header facts, body tables, a "Notes:" block.

        Parameters
        ----------
        alpha : float in (0, 1)
            Intervals in the tables are (1 - alpha) noise intervals (as in statsmodels);
            results without intervals ignore it.

        Returns
        -------
        statsmodels.iolib.summary.Summary
            ``print(result.summary())`` shows text (every line at most 100 characters);
            ``.as_html()``, ``.as_latex()`` also work.
        """
        alpha = float_arg(alpha, "alpha", open_unit=True)
        left, right = self._header()
        if self.total_eps is not None:  # "0.3 of 1 (section share)"
            left = [(k, f"{fmt(v)} of {fmt(self.total_eps)} (section share)" if k == "Epsilon" else v)
                    for k, v in left]
        smry = Summary()
        smry.add_table_2cols(None, gleft=_header_rows(left), gright=_header_rows(right),
                             title=self._title, yname="", xname=[])
        smry.tables.extend(self._tables(alpha))
        notes = self._notes()
        if self.estimand and not any(note.startswith("Estimand") for note in notes):
            notes = [f"Estimand. {self.estimand}"] + notes
        accuracy = self.accuracy
        if accuracy is not None and accuracy.steps:
            smry.tables.append(frame_table(accuracy.table_frame(), title=_accuracy_title(accuracy)))
            notes = notes + accuracy.notes()
        if notes:
            smry.add_extra_txt(notes_text(notes))
        return smry

    def __str__(self) -> str:
        return self.summary().as_text()

    def _repr_html_(self) -> str:
        return self.summary().as_html()

def _accuracy_title(accuracy) -> str:
    """The accuracy block's title: says which rows read released values (post-processing)."""
    if any("post-release" in step.step for step in accuracy.steps):
        return "Expected accuracy (model: public numbers; post-release rows: released values)"
    return "Expected accuracy (accuracy model, public numbers only)"


__all__ = ["DPResult", "data_units", "fmt", "frame_table", "ledger_table", "notes_text",
           "release_count", "scaling_label"]
