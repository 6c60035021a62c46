"""Adversarial neighbour search: max ||f(D) - f(D')|| / claimed sensitivity over replace-one pairs.

Three searches, all with fixed seeds:

* random: base datasets of several families, a random row replaced by random rows;
* structured: base datasets and replacement rows at the edges of floating point (magnitudes
  1e-300..1e300, offsets to 1e15, spreads to 1e-12, duplicates, rows at the origin);
* greedy: hill-climbing on the replaced row from the worst pair found, multiplying or shifting
  its coordinates while the ratio grows.

A statistic that raises on exactly one of two neighbours is a refusal that depends on private
data: its ratio is inf. So is a change of shape (e.g. a label set read from the data) and a
non-finite value.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .registry import AuditedRelease, distance

#: Sizes n of the base datasets (public n from 5 to 50).
SIZES = (5, 12, 50)


def _gaussian(n, p, rng):
    return rng.standard_normal((n, p))


def _heavy(n, p, rng):
    return rng.standard_t(2, size=(n, p))


def _offset(n, p, rng):  # the offset-data attack (dppca.audit.attacks): offset 6.22e8, sd 4.28
    return 6.22e8 + 4.28 * rng.standard_normal((n, p))


def _offset_1e15(n, p, rng):
    return 1e15 + 8.0 * rng.standard_normal((n, p))


def _tiny_spread(n, p, rng):
    return 1.0 + 1e-12 * rng.standard_normal((n, p))


def _huge(n, p, rng):
    return 1e300 * rng.standard_normal((n, p)) / 8


def _tiny(n, p, rng):
    return 1e-300 * rng.standard_normal((n, p))


def _duplicates(n, p, rng):
    X = np.repeat(rng.standard_normal((1, p)), n, axis=0)
    X[: n // 3] = rng.standard_normal((n // 3, p))
    return X


def _origin(n, p, rng):
    X = rng.standard_normal((n, p))
    X[: max(1, n // 2)] = 0.0
    return X


def _mixed_magnitudes(n, p, rng):
    return rng.standard_normal((n, p)) * 10.0 ** rng.uniform(-300, 300, size=(n, 1))


#: Base dataset families: name -> generator (n, p, rng) -> ndarray (n, p).
DATASETS = {"gaussian": _gaussian, "heavy": _heavy, "offset": _offset, "offset_1e15": _offset_1e15,
            "tiny_spread": _tiny_spread, "huge": _huge, "tiny": _tiny, "duplicates": _duplicates,
            "origin": _origin, "mixed_magnitudes": _mixed_magnitudes}


def replacement_rows(D, r, rng, count=6) -> list:
    """Candidate rows for row r of D: structured extremes plus ``count`` random ones."""
    n, p = D.shape
    row = D[r]
    other = D[(r + 1) % n]
    scale = float(np.max(np.abs(D))) or 1.0
    spread = float(np.max(np.std(D / scale, axis=0))) * scale or 1.0
    biggest = np.finfo(float).max
    rows = [np.zeros(p), other.copy(), np.full(p, 1e15), np.full(p, -1e15), np.full(p, 1e300),
            np.full(p, -1e300), np.full(p, 1e-300), np.full(p, biggest),
            np.where(np.arange(p) % 2 == 0, biggest, -biggest), np.nextafter(row, np.inf),
            row * (1 + 1e-12), row + spread * 100, np.median(D, axis=0),
            np.where(np.arange(p) == 0, 1e300, -1e300), np.eye(p)[-1] * scale]
    rows += [row + spread * 10.0 ** rng.uniform(-3, 3) * rng.standard_normal(p) for _ in range(count)]
    rows += [rng.standard_normal(p) * 10.0 ** rng.uniform(-300, 300) for _ in range(count // 2)]
    with np.errstate(over="ignore", invalid="ignore"):
        rows = [np.asarray(z, float) for z in rows]
    return [z for z in rows if np.all(np.isfinite(z))]  # data are finite (validated on input)


@dataclass
class SearchResult:
    """Worst neighbouring pair found for one release.

    Parameters
    ----------
    name : str
        The release's registry name.
    ratio : float
        Largest observed ||f(D) - f(D')|| / claimed sensitivity (<= 1 + 1e-9: no violation).
    D, D_prime : ndarray, shape (n, p), optional
        The pair that gave ``ratio``.
    ctx : dict, optional
        Public values of that pair.
    where : str
        Dataset family, n and replaced row of the pair.
    pairs : int
        Number of neighbouring pairs evaluated.

    See Also
    --------
    neighbour_search : Makes it.

    Examples
    --------
    >>> from dppca.audit import SearchResult
    >>> SearchResult("example", 0.5).ratio <= 1
    True
    """

    name: str
    ratio: float
    D: np.ndarray | None = None
    D_prime: np.ndarray | None = None
    ctx: dict | None = None
    where: str = ""
    pairs: int = 0


class PairSearch:
    """The bookkeeping of a neighbour search: every pair's ratio, and the worst pair so far.

    Parameters
    ----------
    release : AuditedRelease
        The release searched.

    Attributes
    ----------
    best : SearchResult
        The worst pair evaluated so far.

    See Also
    --------
    neighbour_search : Replace-one pairs.
    dppca.audit.add_remove.add_remove_search : Added or removed rows (overrides :meth:`bound`
        and :meth:`pair_context`).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.audit import AuditedRelease
    >>> mean = AuditedRelease("example: mean", lambda X, c: X.mean(axis=0),
    ...                       lambda n, p, c: 1.0 / n)
    >>> search = PairSearch(mean)
    >>> D, Dp = np.zeros((5, 2)), np.zeros((5, 2))
    >>> Dp[0] = [1.0, 0.0]  # the mean moves by 1/n = the claim
    >>> search.evaluate(D, {}, mean.statistic(D, {}), Dp, "row 0")
    1.0
    """

    def __init__(self, release: AuditedRelease):
        self.release = release
        self.best = SearchResult(release.name, 0.0)

    def bound(self, D, Dp, ctx) -> float:
        """The claimed sensitivity for the pair (replace-one: at D's public n)."""
        return self.release.sensitivity(D.shape[0], D.shape[1], ctx)

    def pair_context(self, D, Dp, ctx) -> dict:
        """The public values a mechanism run on the pair gets (replace-one: ``ctx``)."""
        return ctx

    def evaluate(self, D, ctx, base, Dp, where) -> float:
        """The pair's ratio ||f(D) - f(D')|| / claim (``base`` = f(D) or None if it raised)."""
        try:
            other = self.release.statistic(Dp, ctx)
        except Exception:  # a refusal on one neighbour only
            other = None
        if base is None and other is None:
            ratio = 0.0
        elif base is None or other is None:
            ratio = float("inf")
        else:
            change = distance(base, other, self.release.norm)
            ratio = change / self.bound(D, Dp, ctx) if change > 0 else 0.0
        self.best.pairs += 1
        if ratio > self.best.ratio or self.best.D is None:  # keep a pair even if nothing moves
            self.best = SearchResult(self.release.name, ratio, D, Dp,
                                     self.pair_context(D, Dp, ctx), where, self.best.pairs)
        return ratio


def statistic_or_none(release, D, ctx):
    """``release.statistic(D, ctx)``, or None when it raises (a refusal).

    Examples
    --------
    >>> from dppca.audit import REGISTRY
    >>> statistic_or_none(REGISTRY["scree: clipped pair means"], np.zeros((0, 2)), {}) is None
    True
    """
    try:
        return release.statistic(D, ctx)
    except Exception:
        return None


def neighbour_search(release: AuditedRelease, *, seed=0, sizes=SIZES, rows_per_dataset=2,
                     random_rows=6, greedy_steps=60) -> SearchResult:
    """Largest observed ||f(D) - f(D')|| / claimed sensitivity for ``release``.

    Parameters
    ----------
    release : AuditedRelease
        The release to audit (its statistic, claimed sensitivity and norm).
    seed : int
        Seed of every random choice (datasets, rows, contexts).
    sizes : sequence of int
        Public sizes n of the base datasets.
    rows_per_dataset : int
        Rows of each base dataset that get replaced (the first and random others).
    random_rows : int
        Random replacement rows per replaced row (besides the structured ones).
    greedy_steps : int
        Hill-climbing steps from the worst pair found.

    Returns
    -------
    SearchResult
        ``ratio`` <= 1 + 1e-9 means no violation was found.

    See Also
    --------
    distinguishing_audit : Tests the real mechanism on the worst pair.
    register : Adds a release to audit.

    Examples
    --------
    >>> from dppca.audit import REGISTRY, neighbour_search
    >>> result = neighbour_search(REGISTRY["scree: clipped pair means"], sizes=(5,), greedy_steps=5)
    >>> bool(result.ratio <= 1 + 1e-9), result.D.shape
    (True, (5, 2))
    """
    return run_search(PairSearch(release), _replaced, _greedy, seed=seed, sizes=sizes,
                      rows_per_dataset=rows_per_dataset, random_rows=random_rows,
                      greedy_steps=greedy_steps)


def run_search(search, neighbours, climb, *, seed, sizes, rows_per_dataset, random_rows,
               greedy_steps) -> SearchResult:
    """The neighbour search of one relation: the base data sets' neighbours, then a climb.

    Parameters
    ----------
    search : PairSearch
        The bookkeeping (its ``bound`` and ``pair_context`` say how the relation claims).
    neighbours : callable (D, r, rng, random_rows) -> iterable of (ndarray, str)
        The relation's neighbours of D around row r (:func:`search_bases`).
    climb : callable (search, rng, steps) -> None
        Hill-climbing from the worst pair found (the relation knows which row moves).
    seed : int
        Seed of every random choice.
    sizes, rows_per_dataset, random_rows, greedy_steps
        As in :func:`neighbour_search`.

    Returns
    -------
    SearchResult
        The worst pair found.

    Examples
    --------
    >>> from dppca.audit import REGISTRY
    >>> result = run_search(PairSearch(REGISTRY["scree: clipped pair means"]), _replaced,
    ...                     _greedy, seed=0, sizes=(5,), rows_per_dataset=1, random_rows=1,
    ...                     greedy_steps=2)
    >>> bool(result.ratio <= 1 + 1e-9)
    True
    """
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # extreme inputs overflow on purpose
        rng = np.random.default_rng(seed)
        search_bases(search, neighbours, rng, sizes, rows_per_dataset, random_rows)
        climb(search, rng, greedy_steps)
        return search.best


def _replaced(D, r, rng, random_rows):
    """The replace-one neighbours of D at row r: (D', label)."""
    for z in replacement_rows(D, r, rng, random_rows):
        Dp = D.copy()
        Dp[r] = z
        yield Dp, f"row {r}"


def search_bases(search, neighbours, rng, sizes, rows_per_dataset, random_rows) -> None:
    """Evaluate the neighbours of every base data set on ``search`` (its worst pair is kept).

    Parameters
    ----------
    search : object
        The search's bookkeeping (``release``, ``evaluate(D, ctx, base, D', where)``).
    neighbours : callable (D, r, rng, random_rows) -> iterable of (ndarray, str)
        The neighbours of D around row r with a label: replace-one here, added or removed
        rows in :mod:`dppca.audit.add_remove`.
    rng : numpy.random.Generator
        Source of the data sets, rows and contexts.
    sizes : sequence of int
        Rows of the base data sets, one per family of :data:`DATASETS` the release suits.
    rows_per_dataset : int
        Positions r per base data set: row 0 and random others.
    random_rows : int
        Random candidate rows per position (:func:`replacement_rows`).

    Examples
    --------
    >>> from dppca.audit import REGISTRY
    >>> search = PairSearch(REGISTRY["scree: clipped pair means"])
    >>> search_bases(search, _replaced, np.random.default_rng(0), (5,), 1, 1)
    >>> search.best.pairs > 0
    True
    """
    release = search.release
    kinds = DATASETS if "all" in release.kinds else {k: DATASETS[k] for k in release.kinds}
    for n in sizes:
        for kind, make in kinds.items():
            D = make(n, release.p, rng)
            ctx = release.context(D, rng)
            base = statistic_or_none(release, D, ctx)
            for r in [0, *rng.choice(n, size=rows_per_dataset - 1, replace=False)]:
                for Dp, label in neighbours(D, r, rng, random_rows):
                    search.evaluate(D, ctx, base, Dp, f"{kind}, n={n}, {label}")


def _greedy(search: PairSearch, rng, steps) -> None:
    best = search.best
    if best.D is None or not np.isfinite(best.ratio):
        return
    D, ctx = best.D, best.ctx
    base = statistic_or_none(search.release, D, ctx)
    r = int(np.flatnonzero(np.any(best.D_prime != D, axis=1))[0])
    current, score = best.D_prime[r].copy(), best.ratio
    for _ in range(steps):
        z = current.copy()
        j = rng.integers(z.size)
        move = rng.integers(3)
        if move == 0:
            z[j] *= 10.0 ** rng.normal(0, 1)
        elif move == 1:
            z[j] += rng.normal() * (abs(z[j]) * 1e-3 + _spread(D[:, j]) + 1e-300)
        else:
            z[j] = D[rng.integers(D.shape[0]), j]
        if not np.all(np.isfinite(z)):
            continue
        Dp = D.copy()
        Dp[r] = z
        ratio = search.evaluate(D, ctx, base, Dp, best.where + ", greedy")
        if ratio >= score:
            current, score = z, ratio


def _spread(column) -> float:
    scale = float(np.max(np.abs(column))) or 1.0
    return float(np.std(column / scale)) * scale

__all__ = ["PairSearch", "SearchResult", "neighbour_search", "replacement_rows", "run_search",
           "search_bases", "statistic_or_none"]
