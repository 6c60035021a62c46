"""An add/remove call's row count first: the rest of its Gaussian-DP group, its public pair counts.

Under add/remove neighbours (:mod:`dppca.privacy.neighbouring`) an entry point that composes its
releases as one Gaussian-DP group releases n first (:func:`count_first`) and hands the remainder
of the group (:class:`GroupRemainder`) to its steps unchanged: their shares of the remainder are
recorded as shares of the whole. Statistics over disjoint random pairs read the public bounds of
their number of pairs from :func:`pair_rows`, which states the coupling that proves their
add/remove sensitivities; :func:`count_notes` is the sentence summaries print about the count.
"""
from __future__ import annotations

import math

from .neighbouring import (ADD_REMOVE, COUNT_DELTA_SHARE, COUNT_SHARE, LABELS, PrivateCount,
                           RowBounds, count_bounds, release_row_count)

__all__ = ["GroupRemainder", "count_first", "count_notes", "pair_rows"]


def pair_rows(m: int, rows: RowBounds | None, min_rows: int = 4) -> tuple[int, int]:
    """(pairs for the sensitivity, pairs for the rounding slack) of m disjoint random pairs.

    Parameters
    ----------
    m : int
        floor(n / 2), the pairs drawn (private under add/remove).
    rows : RowBounds or None
        None: replace-one, (m, m). Else the add/remove bounds (n_lo + 1, n_hi).
    min_rows : int
        The fewest rows the entry point needs (public): its call is refused, from the released
        count, unless n_lo >= ``min_rows`` (:func:`~dppca.privacy.neighbouring.refuse_few_rows`).

    Returns
    -------
    tuple of int
        Add/remove: (floor(max(n_lo, min_rows) / 2), floor(n_hi / 2)).

    Notes
    -----
    Disjoint pairs are a uniform random maximum matching of the rows (a random permutation,
    consecutive pairs; with n odd the one row left over is uniform). Couple D (n rows) and
    D+ = D plus a row x: with n odd, D's left-over row u is paired with x in D+ (uniform, since u
    is); with n even, pick y uniform in D + x, leave y out and, when y != x, pair x with y's
    partner. The coupled pairings differ by one pair added (n odd) or one pair value replaced
    (n even), so a mean of values in [0, C] over the pairs moves by at most C / floor(n / 2),
    n the smaller data set's rows (a replaced pair: C / m with m = floor(n / 2) pairs; an
    added one: C / (m + 1)); mixing over a coupling keeps an (eps, delta) bound (each coupled
    draw is (eps, delta)-close, and the bound is linear in the probabilities). The bound falls
    with n; it is evaluated at max(n_lo, min_rows) = n_lo <= n on the count's good event (the
    call goes on only when n_lo >= ``min_rows``, right after the count, and fails with the same
    message when n < ``min_rows`` <= n_lo, the bounds' failure, within delta). Each histogram
    count of the pair values moves by at most 1 per replaced or added pair, as under
    replace-one.

    Examples
    --------
    >>> pair_rows(500, None), pair_rows(500, RowBounds(951.0, 1051))
    ((500, 500), (475, 525))
    """
    if rows is None:
        return m, m
    lower = int(rows.sensitivity_rows) - 1
    return max(lower, min_rows) // 2, int(rows.slack_rows) // 2


class GroupRemainder:
    """The part of a Gaussian-DP group left after the row count: a group of its own whose
    shares are recorded as shares of the whole.

    Parameters
    ----------
    parent : dppca.privacy.GaussianGroup
        The call's group (count included).
    fraction : float in (0, 1)
        The remainder's share of the parent's mu^2 (1 - :data:`COUNT_SHARE`).

    Notes
    -----
    A release with a ``fraction`` f of this group gets f x ``fraction`` of the parent's mu^2,
    so releases whose shares of the remainder sum to at most 1 and the count together use at
    most the parent's mu^2 (Gaussian-DP composition).

    Examples
    --------
    >>> from dppca.privacy import GaussianGroup
    >>> parent = GaussianGroup(1.0, 1e-5)
    >>> rest = GroupRemainder(parent, 0.95)
    >>> round(rest.share(0.5).fraction, 4), round(rest.mu / parent.mu, 4)
    (0.475, 0.9747)
    """

    def __init__(self, parent, fraction: float):
        self.parent, self.fraction = parent, float(fraction)
        self.calibration = parent.calibration
        self.mu = math.sqrt(self.fraction) * parent.mu
        self.eps, self.delta = parent.standalone(self.fraction)

    def share(self, fraction):
        """A share of the remainder, as a share of the parent."""
        return self.parent.share(self.fraction * float(fraction))

    def standalone(self, fraction) -> tuple[float, float]:
        """(eps, delta) of a share of the remainder alone (see GaussianGroup.standalone)."""
        return self.parent.standalone(self.fraction * float(fraction))

    def fraction_of(self, sensitivity, sigma) -> float:
        """Share of the remainder's mu^2 used by a Gaussian release."""
        return self.parent.fraction_of(sensitivity, sigma) / self.fraction

    def absorb(self, releases, ledger) -> float:
        """Record Gaussian releases as shares of the parent; their total share of the remainder."""
        total = self.parent.absorb(releases, ledger)
        return total / self.fraction


def count_first(n: int, eps: float, delta: float, calibration: str, rng, ledger,
                min_rows: int = 4, what: str = "dp_scree"):
    """Release n first and hand back the rest of the call's Gaussian-DP group.

    Parameters
    ----------
    n : int
        The private number of rows.
    eps, delta : float
        The Gaussian-DP part of the call's budget.
    calibration : {"analytic", "classic"}
        Gaussian calibration of the group.
    rng : numpy.random.Generator
        Source of the count's noise.
    ledger : Ledger
        The call's ledger; its ``neighbouring`` becomes "add/remove (n private)".
    min_rows : int
        The fewest rows the call needs (public; 4: the scree's standard errors).
    what : str
        The entry point, for the refusal's message.

    Returns
    -------
    count : PrivateCount
    rest : GroupRemainder
        1 - :data:`COUNT_SHARE` of the group of (eps, delta - delta_n).

    Raises
    ------
    DPPCAValueError
        Right after the count, when it does not guarantee ``min_rows`` rows (a message of the
        released numbers only, :func:`~dppca.privacy.neighbouring.refuse_few_rows`).

    Notes
    -----
    Privacy: the group is (eps, delta - delta_n) with delta_n = :data:`COUNT_DELTA_SHARE`
    delta the bounds' failure probability (a ledger row of its own), so the call is
    (eps, delta)-DP under add/remove neighbours when every later release's sensitivity holds at
    the bounds (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import Ledger
    >>> ledger = Ledger(1.0, 1e-5)
    >>> count, rest = count_first(800, 1.0, 1e-5, "analytic", np.random.default_rng(0), ledger)
    >>> count.lower < 800 < count.upper, len(ledger), round(rest.fraction, 2)
    (True, 2, 0.95)
    """
    from .composition import GaussianGroup

    failure = COUNT_DELTA_SHARE * delta
    group = GaussianGroup(eps, delta - failure, calibration)
    ledger.neighbouring = LABELS[ADD_REMOVE]
    count = release_row_count(n, group.share(COUNT_SHARE), rng, ledger, failure, min_rows, what)
    return count, GroupRemainder(group, 1.0 - COUNT_SHARE)


def count_notes(count: PrivateCount | None) -> list[str]:
    """The summary note of an add/remove call's count (none under replace-one).

    Examples
    --------
    >>> count_notes(None)
    []
    >>> count_notes(count_bounds(1000.4, 10.0, 1e-6))[0][:41]
    'Add/remove neighbours: n is private; No. '
    """
    if count is None:
        return []
    return [f"Add/remove neighbours: n is private; No. Observations is the noisy count (sd "
            f"{count.sigma:.3g}); every sensitivity is taken at its public lower bound "
            f"n_lo = {count.lower} (failure probability {count.failure:.2g}, in delta)."]
