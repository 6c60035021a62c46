"""The pair-design arguments (``design=``, ``pairs_per_row=``), checked the same way by every call.

g-DPPCA's tau (:func:`dppca.stats.pair_design.resolve_design`), the scree's pair statistics
(:func:`dppca.stats.pair_design.pair_statistic_design`) and the rank path's tau
(:func:`dppca.stats.elementwise_kendall_blocks_design.resolve_rank_design`) each have their own
rule for the pairs per row; the arguments mean the same in all three.
"""
from __future__ import annotations

from .._validation import DPPCAValueError, int_arg, option_arg

__all__ = ["DESIGNS", "given_pairs_per_row"]

#: The values of ``design=``: the rule's choice, every pair, or a random block design.
DESIGNS = ("auto", "complete", "incomplete")


def given_pairs_per_row(design: str, pairs_per_row, n: int):
    """A call's ``design`` checked and its own ``pairs_per_row`` validated; None when not given.

    Parameters
    ----------
    design : {"auto", "complete", "incomplete"}
    pairs_per_row : int or None
        r; given, it means a block design (with "auto" or "incomplete", never "complete").
    n : int
        Rows (public).

    Returns
    -------
    int or None

    Raises
    ------
    DPPCAValueError
        Unknown ``design``; ``pairs_per_row`` outside [1, n - 1] or given with "complete".

    Examples
    --------
    >>> given_pairs_per_row("auto", None, 100) is None, given_pairs_per_row("auto", 9, 100)
    (True, 9)
    """
    option_arg(design, "design", DESIGNS)
    if pairs_per_row is None:
        return None
    if design == "complete":
        raise DPPCAValueError("`pairs_per_row` is for design='incomplete' or 'auto'; "
                              "design='complete' uses every pair")
    return int_arg(pairs_per_row, "pairs_per_row", 1, n - 1)
