"""Normal scores from private marginal quantiles: the rank path's bounded map of each value.

Each column j gets a monotone piecewise-linear CDF F_j through m privately released quantiles,
and each value x_ij is mapped to z_ij = Phi^{-1}(F_j(x_ij)) clipped to [-z_max, z_max],
z_max = Phi^{-1}(1 - 1/(2m)). The quantiles come from two joint Gaussian histogram releases
(:func:`dppca.privacy.histograms.dp_histogram_counts` and
:func:`dppca.privacy.histograms.dp_histogram_quantiles`, one release for all columns each, shares
of one :class:`dppca.privacy.composition.GaussianGroup`):

1. "range": counts of every column in public signed half-octave bins (+-2^(k/2), k = -128..128,
   and 0): scale- and sign-free, no public range needed. The bins holding the extreme levels
   1/(2m) and 1 - 1/(2m) of the thresholded noisy CDF give each column a bracket [a_j, b_j].
2. "quantiles": counts of each column in B = 4m public-given-release-1 bins of [a_j, b_j] (values
   outside fall in the end bins); the m quantiles at levels (i - 1/2) / m are read off. The bin
   edges are the midpoints of equal-mass edges of release 1's CDF and equal-width edges of the
   bracket: strictly increasing, fine where the data are dense (a skewed column's bulk), never
   narrower than half the equal-width bins' share of mass.

The map uses only released numbers and the value itself, so a later release computed on z keeps
its sensitivity (see :func:`normal_scores`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import DPPCAValueError
from ..privacy.budget import Ledger
from ..privacy.composition import GaussianShare
from ..privacy.histograms import _histogram_quantiles, dp_histogram_counts, dp_histogram_quantiles

#: Signed half-octave edges of the range release: -2^64 .. -2^-64, 0, 2^-64 .. 2^64 (515 edges).
_OCTAVES = 2.0 ** (np.arange(-128, 129) / 2.0)
RANGE_EDGES = np.concatenate((-_OCTAVES[::-1], [0.0], _OCTAVES))
#: Expected number of empty range windows whose noise passes the detection threshold: 0.05 over
#: all windows of :func:`_detected_counts`, so phantom mass rarely moves a bracket.
RANGE_PHANTOM_BINS = 0.05
#: Bracket used for a column whose range release kept no count (no signal): a public default.
DEFAULT_BRACKET = (-1.0, 1.0)
#: Bins of the quantile release per quantile level (B = 4 m).
BINS_PER_LEVEL = 4
#: Candidate numbers of quantile levels m for :func:`quantile_levels` (public).
LEVEL_CHOICES = (8, 16, 32, 64)


@dataclass(frozen=True)
class NormalScoreMap:
    """The released marginal quantiles of every column and the map they define.

    Attributes
    ----------
    edges : ndarray, shape (p, B + 1)
        Each column's bins of the quantile release, strictly increasing, from a_j to b_j (the
        bracket read off the range release); B = 4 m.
    quantiles : ndarray, shape (p, m)
        The released quantiles t_ji, in the data's units, at ``levels``.
    levels : ndarray, shape (m,)
        (i - 1/2) / m, i = 1..m.
    located : ndarray of bool, shape (p,)
        False where the range release kept no count (the bracket is ``DEFAULT_BRACKET``).
    """

    edges: np.ndarray
    quantiles: np.ndarray
    levels: np.ndarray
    located: np.ndarray

    @property
    def bins(self) -> int:
        """B, the quantile release's bins per column."""
        return self.edges.shape[1] - 1

    @property
    def z_max(self) -> float:
        """Phi^{-1}(1 - 1/(2m)): every normal score lies in [-z_max, z_max]."""
        return z_bound(self.levels.size)

    def transform(self, values) -> np.ndarray:
        """z_ij = Phi^{-1}(F_j(mid(x_ij))) for an (n, p) array, each value on its own."""
        from scipy.special import ndtri

        values = np.asarray(values, float)
        z = np.empty_like(values)
        for j in range(values.shape[1]):
            z[:, j] = ndtri(self._cdf(j, values[:, j]))
        return z

    def _cdf(self, j, x) -> np.ndarray:
        y = warp(x, self.edges[j])
        # The midpoint of the value's bin: an atom at a bin's edge gets the middle of the
        # levels its bin holds (mid-ranks), as continuous values do up to the bin's width.
        k = np.minimum(np.floor(y * self.bins), self.bins - 1)
        mid = (k + 0.5) / self.bins
        unique, inverse = np.unique(warp(self.quantiles[j], self.edges[j]), return_inverse=True)
        tied_level = np.bincount(inverse, weights=self.levels) / np.bincount(inverse)
        cdf = np.interp(mid, unique, tied_level)
        return np.clip(cdf, self.levels[0], self.levels[-1])


def warp(x, edges) -> np.ndarray:
    """The released bins' coordinate of each value: k / B at edge k, linear in between, 0 below
    the first edge and 1 above the last (a public monotone map of each value alone)."""
    return np.interp(np.asarray(x, float), edges, np.linspace(0.0, 1.0, edges.size))


def z_bound(m: int) -> float:
    """z_max = Phi^{-1}(1 - 1/(2m)), the largest |normal score| with m quantile levels.

    Examples
    --------
    >>> round(z_bound(32), 4)
    2.1538
    """
    from scipy.special import ndtri

    return float(ndtri(1.0 - 0.5 / m))


def quantile_levels(n: int, p: int, noise: GaussianShare) -> int:
    """The number m of quantile levels, from public n, p and the quantile release's noise.

    The largest m in ``LEVEL_CHOICES`` whose levels are n / m rows apart, at least the noise
    of a cumulative count over half the B = 4 m bins (sd sigma sqrt(2 m), sigma the count
    noise at sensitivity sqrt(2 p)); at least the smallest choice.

    Parameters
    ----------
    n, p : int
        Rows and columns (public).
    noise : dppca.privacy.composition.GaussianShare
        The quantile release's budget.

    Returns
    -------
    int

    Examples
    --------
    >>> from dppca.privacy.composition import GaussianGroup
    >>> quantile_levels(100_000, 5, GaussianGroup(1.0, 1e-5).share(0.3))
    64
    """
    sigma = noise.sigma(math.sqrt(2.0 * p))
    fitting = [m for m in LEVEL_CHOICES if n / m >= sigma * math.sqrt(BINS_PER_LEVEL * m / 2)]
    return max(fitting) if fitting else LEVEL_CHOICES[0]


def release_normal_score_map(values, m: int, range_noise: GaussianShare,
                             quantile_noise: GaussianShare, rng, *,
                             ledger: Ledger | None = None) -> NormalScoreMap:
    """Release each column's m quantiles (two joint Gaussian histograms) and return their map.

    Parameters
    ----------
    values : ndarray, shape (n, p)
        The data, finite (n public).
    m : int
        Number of quantile levels, >= 2 (public).
    range_noise, quantile_noise : dppca.privacy.composition.GaussianShare
        Budgets of the range release and of the quantile release.
    rng : numpy.random.Generator
        Source of the noise.
    ledger : Ledger, optional
        Where the two releases are recorded ("normal scores: range histograms" and
        "normal scores: quantile histograms").

    Returns
    -------
    NormalScoreMap

    Raises
    ------
    DPPCAValueError
        If m < 2.

    Notes
    -----
    Privacy (replace-one neighbours, n public). Release 1 counts each value of a row in one
    public bin per column; replacing the row moves one count per column out of one bin and
    into another: L2 sensitivity sqrt(2 p) (:func:`dppca.privacy.histograms.dp_histogram_counts`).
    The brackets are post-processing of release 1. Release 2 counts y_ij = (x_ij - a_j) /
    (b_j - a_j), a function of x_ij and release 1 alone, in public bins: again one count per
    column moves, L2 sensitivity sqrt(2 p) (adaptive composition). Both are Gaussian
    mechanisms with the shares' noise, composed in their Gaussian-DP group. Which bins a
    bracket takes, the fallback bracket and ``located`` depend on the releases only.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.composition import GaussianGroup
    >>> group = GaussianGroup(1.0, 1e-5)
    >>> x = np.random.default_rng(0).lognormal(size=(5000, 2))
    >>> scores = release_normal_score_map(x, 16, group.share(0.4), group.share(0.6),
    ...                                   np.random.default_rng(1))
    >>> z = scores.transform(x)
    >>> bool(np.abs(z).max() <= scores.z_max), bool(abs(np.median(z)) < 0.2)
    (True, True)
    """
    if int(m) != m or m < 2:
        raise DPPCAValueError(f"the number of quantile levels `m` must be an integer >= 2; got {m!r}")
    m = int(m)
    values = np.asarray(values, float)
    levels = (np.arange(1, m + 1) - 0.5) / m
    noisy, sigma = dp_histogram_counts(values, RANGE_EDGES, range_noise, rng, ledger=ledger,
                                       step="normal scores: range histograms")
    edges, located = _quantile_bins(noisy, sigma, levels[0], levels[-1], BINS_PER_LEVEL * m)
    relative = np.stack([warp(values[:, j], edges[j]) for j in range(values.shape[1])], axis=1)
    quantiles = dp_histogram_quantiles(relative, np.linspace(0.0, 1.0, edges.shape[1]), levels,
                                       quantile_noise, rng, ledger=ledger,
                                       step="normal scores: quantile histograms")
    unwarped = np.stack([np.interp(row, np.linspace(0.0, 1.0, e.size), e)
                         for row, e in zip(quantiles, edges)])
    return NormalScoreMap(edges, unwarped, levels, located)


def _detected_counts(noisy, sigma) -> np.ndarray:
    """Release 1 denoised on a pyramid: each bin takes the mean count of the narrowest aligned
    window of w = 1, 2, 4, ..., 128 bins that holds it and whose noisy sum over its f bins not
    found on a narrower window exceeds z sigma sqrt(f) (those f bins share that sum), 0 where
    none does. z puts the expected number of empty windows passing, over all levels, at
    ``RANGE_PHANTOM_BINS``: sparse tails (a skewed column spread over many half-octaves) are
    found on coarse windows, dense bulks keep their fine shape. Post-processing of release 1."""
    from scipy.special import ndtri

    widths = 2 ** np.arange(8)
    windows = sum(-(-noisy.shape[1] // w) for w in widths)
    z = float(ndtri(1.0 - RANGE_PHANTOM_BINS / windows))
    kept = np.zeros_like(noisy)
    found = np.zeros(noisy.shape, bool)
    pad = -noisy.shape[1] % widths[-1]
    padded = np.pad(noisy, ((0, 0), (0, pad)))
    for w in widths:
        shape = (noisy.shape[0], -1, w)
        rest = np.pad(~found, ((0, 0), (0, pad))).reshape(shape)
        free = rest.sum(axis=2)  # bins of the window not yet found
        residual = np.where(rest, padded.reshape(shape), 0.0).sum(axis=2)
        passed = (free > 0) & (residual > z * sigma * np.sqrt(np.maximum(free, 1)))
        mean = np.where(passed, residual / np.maximum(free, 1), np.nan)
        level = np.repeat(mean, w, axis=1)[:, :noisy.shape[1]]
        new = ~found & ~np.isnan(level)
        kept[new], found = level[new], found | new
    return kept


def _quantile_bins(noisy, sigma, low, high, bins) -> tuple:
    """Per column, the quantile release's B + 1 edges and whether release 1 located the column.

    The bracket [a, b]: the outer edges of the range bins that hold the levels ``low`` and
    ``high`` of the CDF of :func:`_detected_counts`; ``DEFAULT_BRACKET`` where nothing was
    detected. The edges: the mean of that CDF's k / B quantiles (clipped to [a, b]) and
    a + (b - a) k / B."""
    kept = _detected_counts(noisy, sigma)
    steps = np.linspace(0.0, 1.0, bins + 1)
    edges = np.empty((noisy.shape[0], bins + 1))
    located = kept.sum(axis=1) > 0
    for j, counts in enumerate(kept):
        if not located[j]:
            edges[j] = DEFAULT_BRACKET[0] + steps * (DEFAULT_BRACKET[1] - DEFAULT_BRACKET[0])
            continue
        share = np.cumsum(counts) / counts.sum()
        first = np.searchsorted(share, low, side="left")
        last = min(np.searchsorted(share, high, side="left"), counts.size - 1)
        lower, upper = RANGE_EDGES[first], RANGE_EDGES[last + 1]
        adaptive = np.clip(_histogram_quantiles(counts, RANGE_EDGES, steps), lower, upper)
        edges[j] = 0.5 * (adaptive + lower + steps * (upper - lower))
        edges[j, 0], edges[j, -1] = lower, upper
    return edges, located


__all__ = ["DEFAULT_BRACKET", "NormalScoreMap", "RANGE_EDGES", "quantile_levels",
           "release_normal_score_map", "warp", "z_bound"]
