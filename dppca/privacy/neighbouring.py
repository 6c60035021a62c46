"""The neighbouring relation of a call, and the private row count of add/remove neighbours.

Two relations (a public choice, on the ledger):

* ``"replace"`` (default): neighbours differ in one row, replaced; n is public and every
  sensitivity is evaluated at n.
* ``"add_remove"``: neighbours differ by one row added or removed (unbounded DP); n is private.
  The call first releases n with the Gaussian mechanism (L2 sensitivity 1), from the public
  share :data:`COUNT_SHARE` of the call's Gaussian-DP budget, and derives public bounds
  n_lo <= n <= n_hi that fail with probability delta_n = :data:`COUNT_DELTA_SHARE` x delta
  (charged to the call's delta, a ledger row of its own). Every later release uses its
  add/remove sensitivity at n_lo (each proved where the statistic is computed: the
  U-statistic and mean forms give the replace-one formula with n replaced by n_lo + 1) and its
  floating-point slack at n_hi (rounding slacks grow with n).

Why the whole call stays (eps, delta)-DP. Let C be the count release (output c), A(X; c) the
later releases calibrated at the bounds (n_lo(c), n_hi(c)), and (eps, delta') the guarantee of
(C, A) composed as Gaussian DP had A's sensitivity been valid for every c. Fix neighbours D, D'
whose smaller one has m rows, and the output event G = {c: n_lo(c) <= m and n_hi(c) >= m + 1}.
On G, A's sensitivity holds for this pair (it is proved for every pair whose smaller data set
has at least n_lo rows and whose larger one at most n_hi). Let A'' be A with its sensitivity
evaluated at min(n_lo(c), m) and max(n_hi(c), m + 1): valid for this pair for every c, and equal
to A on G. Then for every output set S,
P[M(D) in S] <= P[C(D) not in G] + P[M''(D) in S and c in G]
<= delta_n + e^eps P[M''(D') in S and c in G] + delta' = e^eps P[M(D') in S and c in G]
+ delta' + delta_n <= e^eps P[M(D') in S] + delta' + delta_n, since M'' = M on G. And
P[C(D) not in G] <= delta_n: with c = |D| + N(0, s^2), |D| in {m, m + 1},
n_lo = c - z s - 1 exceeds m only if the noise exceeds z s, and n_hi = c + z s + 1 falls below
m + 1 only if it is below -z s; each has probability Phi(-z) = delta_n / 2.

Too few rows. An entry point that needs r rows (2 for a pair statistic, 4 for the scree's
standard errors) checks no row count before C (any number of rows, 0 included, is accepted:
the count of a data set that could be refused is private) and right after C refuses, by
:func:`refuse_few_rows`, when n_lo(c) < r or n < r, with one message that names only c, n_lo(c)
and r. Take the refusal as part of A. If m >= r, the refusal for n < r never happens and the
one for n_lo(c) < r is a function of c: A'' above refuses exactly then, and equals A on G. If
m < r, on G n_lo(c) <= m < r, so A refuses whatever the data: let A'' refuse for every c (a
constant, DP for any pair), again equal to A on G. So the proof above holds for every pair of
neighbours, 0 and 1 rows included; the refusal that depends on n (n_lo(c) >= r > n) happens
only off G, within delta_n.

Precedent: OpenDP and Tumult Analytics release a noisy count under add/remove neighbours and
normalise by it; the failure-probability bound is the standard "privacy with high probability"
argument (e.g. Kifer, Messing, Roth, Thakurta & Zhang 2020, Section 5).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from .._validation import DPPCAValueError, option_arg

__all__ = ["ADD_REMOVE", "COUNT_DELTA_SHARE", "COUNT_SHARE", "LABELS", "NEIGHBOURINGS",
           "PrivateCount", "REPLACE", "RowBounds", "add_remove_unsupported", "count_bounds",
           "documents_neighbouring", "neighbouring_arg", "observations_label", "refuse_few_rows",
           "relation_label", "release_row_count", "row_bounds"]

REPLACE, ADD_REMOVE = "replace", "add_remove"
#: ``neighbouring=`` choices.
NEIGHBOURINGS = (REPLACE, ADD_REMOVE)
#: What ledgers, summaries and payloads print for each relation.
LABELS = {REPLACE: "replace-one (n public)", ADD_REMOVE: "add/remove (n private)"}

#: Share of the call's Gaussian-DP budget (mu^2) spent on the row count. The count's noise sd is
#: s = 1 / (sqrt(share) mu) and the bound n_lo sits about z s below n, so the later releases pay
#: (1 - share)^(-1/2) for the budget and about n / (n - z s) for the bound; at mu = 0.27
#: ((1, 1e-5)), z = 5 and n = 2,000, share^(3/2) = z / (mu n) gives the optimum near 0.03-0.05,
#: a cost of about 6% in noise; 0.05 keeps the bound's cost below 3% from n = 4,000 on.
COUNT_SHARE = 0.05
#: Share of the call's delta that the bounds [n_lo, n_hi] may fail with (delta_n, two-sided).
COUNT_DELTA_SHARE = 0.05


#: The ``neighbouring`` parameter paragraph of an entry point that refuses add/remove.
_REFUSED_DOC = """The neighbouring relation (public). Only ``"replace"`` (one row replaced, n public)
        here yet: ``"add_remove"`` is refused from the arguments alone (its add/remove
        sensitivities are not proved); :func:`dppca.dp_pc_dir` and :func:`dppca.dp_scree` cover
        it."""

#: The paragraph of an entry point that covers add/remove (``{covered}``: what it covers).
_COVERED_DOC = """The neighbouring relation (public, on the ledger). ``"replace"`` (default): one
        row replaced, n public. ``"add_remove"``: one row added or removed, n private: the call
        first releases n (:func:`dppca.privacy.neighbouring.release_row_count`, 5% of the
        Gaussian-DP budget) and every later sensitivity is its add/remove bound at a public
        lower bound of n; outputs print the noisy n. Covered: {covered}; anything else is
        refused from the arguments alone."""


def documents_neighbouring(covered: str | None = None):
    """Decorator: put the ``neighbouring`` paragraph where a docstring says ``{neighbouring_doc}``.

    Parameters
    ----------
    covered : str, optional
        What the entry point covers under add/remove neighbours (e.g. "the clipped method");
        None: it refuses ``"add_remove"``.

    Returns
    -------
    callable
        The decorator; it returns the function itself, its docstring filled.

    Examples
    --------
    >>> @documents_neighbouring()
    ... def f():
    ...     "neighbouring : {neighbouring_doc}"
    >>> f.__doc__.startswith("neighbouring : The neighbouring relation (public). Only")
    True
    """
    text = _REFUSED_DOC if covered is None else _COVERED_DOC.format(covered=covered)

    def decorate(function):
        if function.__doc__:
            function.__doc__ = function.__doc__.replace("{neighbouring_doc}", text)
        return function
    return decorate


def neighbouring_arg(value) -> str:
    """Check ``neighbouring=``: ``"replace"`` or ``"add_remove"``.

    Parameters
    ----------
    value : str
        The caller's choice (public).

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    DPPCAValueError
        Any other value.

    Examples
    --------
    >>> neighbouring_arg("add_remove")
    'add_remove'
    """
    return option_arg(value, "neighbouring", NEIGHBOURINGS)


def add_remove_unsupported(neighbouring, what: str) -> None:
    """Refuse ``neighbouring="add_remove"`` for a release whose add/remove sensitivity is not
    proved yet (from the arguments alone: the refusal is public).

    Parameters
    ----------
    neighbouring : str
        The caller's choice (checked by :func:`neighbouring_arg`).
    what : str
        The entry point or option, e.g. ``"dp_scree"``.

    Raises
    ------
    DPPCAValueError
        When ``neighbouring == "add_remove"``.

    Examples
    --------
    >>> add_remove_unsupported("replace", "dp_scree") is None
    True
    """
    if neighbouring_arg(neighbouring) == ADD_REMOVE:
        raise DPPCAValueError(f"neighbouring='add_remove' is not supported by {what} yet "
                              "(its add/remove sensitivity is not proved); use "
                              "neighbouring='replace'")


@dataclass(frozen=True)
class RowBounds:
    """The row numbers a release evaluates its sensitivity at.

    Parameters
    ----------
    sensitivity_rows : float
        Replace-one: n. Add/remove: n_lo + 1 (a U-statistic or mean over n rows changes by its
        replace-one bound at n + 1 when a row is added; see each release's proof).
    slack_rows : int
        An upper bound on the rows, for floating-point slacks that grow with n (n, or n_hi).

    Examples
    --------
    >>> RowBounds(101.0, 130).sensitivity_rows
    101.0
    """

    sensitivity_rows: float
    slack_rows: int


def relation_label(ledger) -> str:
    """The short name of a ledger's relation for summary headers: "replace-one" or "add/remove".

    Examples
    --------
    >>> from dppca.privacy import Ledger
    >>> relation_label(Ledger(1.0, 1e-5))
    'replace-one'
    """
    return ledger.neighbouring.split(" (")[0]


def row_bounds(n: int, rows: RowBounds | None) -> tuple[float, int]:
    """(rows for the sensitivity, rows for the rounding slack): (n, n) when ``rows`` is None.

    Examples
    --------
    >>> row_bounds(50, None), row_bounds(50, RowBounds(41.0, 60))
    ((50, 50), (41.0, 60))
    """
    if rows is None:
        return n, n
    return rows.sensitivity_rows, rows.slack_rows


@dataclass(frozen=True)
class PrivateCount:
    """The released row count and the public bounds derived from it.

    Parameters
    ----------
    noisy : float
        n + N(0, sigma^2) (exact samplers).
    sigma : float
        Its noise sd.
    lower, upper : int
        n_lo = max(1, floor(noisy - z sigma - 1)), n_hi = ceil(noisy + z sigma + 1).
    failure : float
        delta_n = 2 Phi(-z): the probability that n falls outside [n_lo + 1, n_hi - 1] for a
        neighbour pair (module docstring).

    Examples
    --------
    >>> count = count_bounds(1000.4, 10.0, 1e-6)
    >>> count.reported, count.lower, count.upper, count.rows.sensitivity_rows
    (1000, 950, 1051, 951.0)
    """

    noisy: float
    sigma: float
    lower: int
    upper: int
    failure: float

    @property
    def reported(self) -> int:
        """The noisy count rounded to an integer >= 0: the n every output prints."""
        return max(0, int(round(self.noisy)))

    @property
    def rows(self) -> RowBounds:
        """The later releases' :class:`RowBounds`: (n_lo + 1, n_hi)."""
        return RowBounds(float(self.lower + 1), int(self.upper))


def count_bounds(noisy: float, sigma: float, failure: float) -> PrivateCount:
    """The public bounds n_lo, n_hi of a noisy count that fail with probability ``failure``.

    Parameters
    ----------
    noisy : float
        The released count.
    sigma : float
        Its Gaussian noise sd.
    failure : float in (0, 1)
        delta_n, split evenly over the two tails.

    Returns
    -------
    PrivateCount

    Examples
    --------
    >>> count_bounds(500.0, 2.0, 1e-6).lower
    489
    """
    z = NormalDist().inv_cdf(1.0 - failure / 2.0)
    lower = max(1, math.floor(noisy - z * sigma - 1.0))
    upper = max(lower + 1, math.ceil(noisy + z * sigma + 1.0))
    return PrivateCount(float(noisy), float(sigma), int(lower), int(upper), float(failure))


def refuse_few_rows(count: PrivateCount, n: int, min_rows: int, what: str) -> None:
    """Refuse an add/remove call whose released count does not guarantee ``min_rows`` rows.

    Parameters
    ----------
    count : PrivateCount
        The count released first.
    n : int
        The private number of rows.
    min_rows : int
        The fewest rows the call's statistics need (public).
    what : str
        The entry point, for the message.

    Raises
    ------
    DPPCAValueError
        When n_lo < ``min_rows`` or n < ``min_rows``. The message is one form whose numbers are
        the released count, n_lo and ``min_rows`` only.

    Notes
    -----
    Privacy: n_lo < ``min_rows`` is post-processing of the count. n < ``min_rows`` <= n_lo is
    the bounds' failure (n_lo <= n on their good event), an event of probability at most
    delta_n, charged to delta; then the call fails with the same message (module docstring,
    "Too few rows"). Nothing is released after the count; the call's budget was debited before
    it.

    Examples
    --------
    >>> refuse_few_rows(count_bounds(500.0, 2.0, 1e-6), 500, 4, "dp_scree") is None
    True
    >>> refuse_few_rows(count_bounds(2.7, 16.0, 1e-6), 3, 4, "dp_scree")
    Traceback (most recent call last):
    ...
    dppca._validation.DPPCAValueError: dp_scree needs at least 4 rows, and the released row count (noisy n = 2.7, public lower bound n_lo = 1) does not guarantee them (or its bounds failed, probability <= 1e-06, in delta); only the count was released, on the budget
    """
    if count.lower < min_rows or n < min_rows:
        raise DPPCAValueError(f"{what} needs at least {min_rows} rows, and the released row count "
                              f"(noisy n = {count.noisy:.1f}, public lower bound n_lo = "
                              f"{count.lower}) does not guarantee them (or its bounds failed, "
                              f"probability <= {count.failure:.2g}, in delta); only the count "
                              "was released, on the budget")


def release_row_count(n: int, share, rng, ledger, failure: float, min_rows: int = 2,
                      what: str = "this call") -> PrivateCount:
    """Release the row count n by the Gaussian mechanism and charge its bounds' failure.

    Parameters
    ----------
    n : int
        The private number of rows.
    share : dppca.privacy.GaussianShare
        The count's part of the call's Gaussian-DP group (:data:`COUNT_SHARE` of mu^2).
    rng : numpy.random.Generator
        Source of the noise.
    ledger : Ledger or None
        Where the count (its share of the group) and the bounds' failure probability (a row of
        eps 0 and delta ``failure``) are recorded.
    failure : float in (0, 1)
        delta_n, the part of the call's delta charged to the bounds.
    min_rows : int
        The fewest rows the call needs (public; 2: a pair of rows).
    what : str
        The entry point, for the refusal's message.

    Returns
    -------
    PrivateCount

    Raises
    ------
    DPPCAValueError
        Right after the release, when it does not guarantee ``min_rows`` rows
        (:func:`refuse_few_rows`: a message of the released numbers only).

    Notes
    -----
    Privacy: adding or removing one row changes n by exactly 1 (an integer, exact in float64),
    so the L2 sensitivity is 1 and the release is sqrt(share) mu-GDP, part of the call's group.
    The bounds and the rounded n that outputs print are post-processing; the bounds' failure
    probability is charged to delta (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import GaussianGroup, Ledger
    >>> ledger = Ledger(1.0, 1e-5)
    >>> group = GaussianGroup(1.0, 1e-5 * 0.95)
    >>> count = release_row_count(5000, group.share(0.05), np.random.default_rng(0), ledger,
    ...                           0.05e-5)
    >>> count.lower < 5000 < count.upper, len(ledger)
    (True, 2)
    """
    from .samplers import add_gaussian_noise

    if not 0 < failure < 1:
        raise DPPCAValueError(f"the count bounds' failure probability must be in (0, 1); got "
                              f"{failure!r}")
    sigma = share.sigma(1.0)
    noisy, sigma = add_gaussian_noise(float(n), sigma, 1.0, rng)
    share.record(ledger, "row count (add/remove neighbours)", 1.0, sigma)
    count = count_bounds(float(noisy), sigma, failure)
    if ledger is not None:
        ledger.record("row count: public bounds n_lo, n_hi (failure probability)",
                      "tail bound of the count's noise", 0.0, "L2", sigma, 0.0, failure)
    refuse_few_rows(count, n, min_rows, what)
    return count


def observations_label(ledger) -> str:
    """The summary key of n: "No. Observations", or "No. Observations (noisy)" when n is private.

    Examples
    --------
    >>> from dppca.privacy import Ledger
    >>> ledger = Ledger(1.0, 1e-5)
    >>> observations_label(ledger)
    'No. Observations'
    >>> ledger.neighbouring = LABELS[ADD_REMOVE]
    >>> observations_label(ledger)
    'No. Observations (noisy)'
    """
    noisy = ledger is not None and ledger.neighbouring == LABELS[ADD_REMOVE]
    return "No. Observations (noisy)" if noisy else "No. Observations"
