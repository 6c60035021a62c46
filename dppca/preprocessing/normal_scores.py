"""Normal scores from private marginal quantiles: the rank path's bounded map of each value.

Each column j gets a monotone piecewise-linear CDF F_j through m privately released quantiles,
and each value x_ij is mapped to z_ij = Phi^{-1}(F_j(x_ij)) clipped to [-z_max, z_max],
z_max = Phi^{-1}(1 - 1/(2m)). The quantiles come from two joint Gaussian histogram releases
(:func:`dppca.privacy.histograms.dp_histogram_counts`, one release for all columns each, shares
of one :class:`dppca.privacy.composition.GaussianGroup`), read as quantiles the way
:func:`dppca.privacy.histograms.dp_histogram_quantiles` reads them:

1. "range": counts of every column in public signed half-octave bins (+-2^(k/2), k = -128..128,
   and 0): scale- and sign-free, no public range needed. The bins holding the extreme levels
   1/(2m) and 1 - 1/(2m) of the denoised CDF give each column a bracket [a_j, b_j].
2. "quantiles": counts of each column in B equal bins (:func:`quantile_bins`) of a warped
   coordinate y = W_j(x) in [0, 1] (values outside the bracket fall in the end bins); the m
   quantiles at levels (i - 1/2) / m are read off the counts denoised on a pyramid of windows.
   W_j, public given release 1, is the mean of two CDFs on the bracket [a_j, b_j]: release 1's
   (denoised, renormalised to the bracket) and the uniform one. It is strictly increasing and
   piecewise linear (knots at a_j, b_j and the range edges between them), and a bin of width
   1/B holds at most 2/B of release 1's mass: fine where a skewed column's bulk is.

Both releases find sparse tails on coarse windows and keep a dense bulk's fine shape
(:func:`_detected_counts`), so neither needs a public range nor pays noise for empty bins.
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
from ..privacy.histograms import histogram_quantiles, dp_histogram_counts

#: Signed half-octave edges of the range release: -2^64 .. -2^-64, 0, 2^-64 .. 2^64 (515 edges).
_OCTAVES = 2.0 ** (np.arange(-128, 129) / 2.0)
RANGE_EDGES = np.concatenate((-_OCTAVES[::-1], [0.0], _OCTAVES))
#: Expected number of empty range windows whose noise passes the detection threshold: 0.05 over
#: all windows of :func:`_detected_counts`, so phantom mass rarely moves a bracket.
RANGE_PHANTOM_BINS = 0.05
#: Bracket used for a column whose range release kept no count (no signal): a public default.
DEFAULT_BRACKET = (-1.0, 1.0)
#: Most equal bins of the warped coordinate in the quantile release (:func:`quantile_bins`).
QUANTILE_BINS = 1024
#: Rows per bin, in count-noise sd, that :func:`quantile_bins` aims at: the warp spreads a
#: column's mass roughly evenly, so each bin then passes the detection threshold on its own.
ROWS_PER_BIN_SD = 4.0
#: Nominal bins per quantile level in the rule for m (:func:`quantile_levels`).
BINS_PER_LEVEL = 4
#: Candidate numbers of quantile levels m for :func:`quantile_levels` (public).
LEVEL_CHOICES = (8, 16, 32, 64)


@dataclass(frozen=True)
class NormalScoreMap:
    """The released marginal quantiles of every column and the map they define.

    Attributes
    ----------
    warps : tuple of (ndarray, ndarray)
        Per column the knots (x, W_j(x)) of the warp, both strictly increasing, from
        (a_j, 0) to (b_j, 1); [a_j, b_j] is the bracket read off the range release.
    quantiles : ndarray, shape (p, m)
        The released quantiles t_ji, in the data's units, at ``levels``.
    levels : ndarray, shape (m,)
        (i - 1/2) / m, i = 1..m.
    located : ndarray of bool, shape (p,)
        False where the range release detected no count (the bracket is ``DEFAULT_BRACKET``).
    bins : int
        B, the quantile release's equal bins of the warped coordinate (:func:`quantile_bins`).
    """

    warps: tuple
    quantiles: np.ndarray
    levels: np.ndarray
    located: np.ndarray
    bins: int = QUANTILE_BINS

    @property
    def z_max(self) -> float:
        """Phi^{-1}(1 - 1/(2m)): every normal score lies in [-z_max, z_max]."""
        return z_bound(self.levels.size)

    def transform(self, values) -> np.ndarray:
        """Normal scores z_ij = Phi^{-1}(F_j(mid(x_ij))) of an (n, p) array, each value on its own.

        F_j is the monotone piecewise-linear CDF through the released quantiles (t_ji, u_i),
        u_i = (i - 1/2) / m (tied quantiles merged into one knot at the mean of their levels),
        flat beyond the first and last knot and clipped to [u_1, u_m]; mid(x) is the midpoint
        of x's bin of the quantile release, so an atom (a binary or zero-inflated column) maps
        to the middle of the levels its bin holds (mid-ranks), not to the lowest.

        Parameters
        ----------
        values : ndarray, shape (n, p)
            The data, in the columns' order of the release.

        Returns
        -------
        ndarray, shape (n, p)
            Every entry in [-z_max, z_max], z_max = Phi^{-1}(1 - 1/(2m)).

        Notes
        -----
        Why later releases computed on z keep their sensitivities: z_ij is a function of x_ij
        and of released numbers (the bins and quantiles of column j) only, with no statistic of
        other rows, so replacing row i of X changes row i of Z and no other row; a release whose
        sensitivity is stated for "one row changes" on Z holds unchanged on X (post-processing
        of the quantile releases composed adaptively with the later release). Bounded by
        construction: F_j takes values in [u_1, u_m] = [1/(2m), 1 - 1/(2m)] and Phi^{-1} is
        increasing, so |z_ij| <= z_max whatever x_ij; hence for a unit vector v,
        |z_i . v| <= ||z_i||_2 <= sqrt(p) z_max (Cauchy-Schwarz), a public bound on every score.
        """
        from scipy.special import ndtri

        values = np.asarray(values, float)
        z = np.empty_like(values)
        for j in range(values.shape[1]):
            z[:, j] = ndtri(self._cdf(j, values[:, j]))
        return z

    def _cdf(self, j, x) -> np.ndarray:
        y = warp(x, *self.warps[j])
        # The midpoint of the value's bin: an atom at a bin's edge gets the middle of the
        # levels its bin holds (mid-ranks), as continuous values do up to the bin's width.
        k = np.minimum(np.floor(y * self.bins), self.bins - 1)
        mid = (k + 0.5) / self.bins
        unique, inverse = np.unique(warp(self.quantiles[j], *self.warps[j]), return_inverse=True)
        tied_level = np.bincount(inverse, weights=self.levels) / np.bincount(inverse)
        cdf = np.interp(mid, unique, tied_level)
        return np.clip(cdf, self.levels[0], self.levels[-1])


def warp(x, knots, heights) -> np.ndarray:
    """W(x): linear between the knots (knots[k], heights[k]), 0 below the first knot and 1
    above the last (a public monotone map of each value alone).

    Examples
    --------
    >>> warp([-1.0, 0.5, 3.0], np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.8, 1.0]))
    array([0. , 0.4, 1. ])
    """
    return np.interp(np.asarray(x, float), knots, heights)


def z_bound(m: int) -> float:
    """z_max = Phi^{-1}(1 - 1/(2m)), the largest |normal score| with m quantile levels.

    Examples
    --------
    >>> round(z_bound(32), 4)
    2.1539
    """
    from scipy.special import ndtri

    return float(ndtri(1.0 - 0.5 / m))


def quantile_levels(n: int, p: int, noise: GaussianShare) -> int:
    """The number m of quantile levels, from public n, p and the quantile release's noise.

    The largest m in ``LEVEL_CHOICES`` whose levels are n / m rows apart, at least the noise
    of a cumulative count over 2 m bins (sd sigma sqrt(2 m), sigma the count
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
    The brackets and the warps W_j are post-processing of release 1. Release 2 counts
    y_ij = W_j(x_ij), a function of x_ij and release 1 alone, in public bins: again one count
    per column moves, L2 sensitivity sqrt(2 p) (adaptive composition). Both are Gaussian
    mechanisms with the shares' noise, composed in their Gaussian-DP group. The pyramid
    denoising, the quantiles, the fallback bracket and ``located`` are post-processing: they
    read the releases only. Floating point: bin membership is a function of each value alone
    and the counts are exact integers, so the sensitivities hold as stated.

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
    warps, located = located_warps(noisy, sigma, levels[0], levels[-1])
    relative = np.stack([warp(values[:, j], *warps[j]) for j in range(values.shape[1])], axis=1)
    bins = quantile_bins(values.shape[0], m, quantile_noise.sigma(math.sqrt(2.0 * values.shape[1])))
    grid = np.linspace(0.0, 1.0, bins + 1)
    noisy, sigma = dp_histogram_counts(relative, grid, quantile_noise, rng, ledger=ledger,
                                       step="normal scores: quantile histograms")
    quantiles = np.stack([np.interp(histogram_quantiles(counts, grid, levels), heights, knots)
                          for counts, (knots, heights) in zip(_detected_counts(noisy, sigma), warps)])
    return NormalScoreMap(warps, quantiles, levels, located, bins)


def quantile_bins(n: int, m: int, sigma: float) -> int:
    """B, the quantile release's equal bins of the warped coordinate (public: n, m, the noise).

    The largest power of two in [4 m, ``QUANTILE_BINS``] with n / B >= ``ROWS_PER_BIN_SD``
    sigma, and 4 m when none has: fine bins where the noise allows (a location-dominated
    column, whose warp is nearly linear over a wide bracket, needs them), and bins that each
    hold several noise sd of rows where it does not.

    Parameters
    ----------
    n, m : int
        Rows and quantile levels.
    sigma : float
        The quantile release's noise sd, in counts.

    Returns
    -------
    int

    Examples
    --------
    >>> quantile_bins(1000, 8, 35.0), quantile_bins(20000, 32, 10.0)
    (32, 256)
    """
    fitting = [b for b in 2 ** np.arange(2, 11) if 4 * m <= b <= QUANTILE_BINS
               and n / b >= ROWS_PER_BIN_SD * sigma]
    return int(max(fitting)) if fitting else BINS_PER_LEVEL * m


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


def located_warps(noisy, sigma, low, high) -> tuple:
    """Per column, the warp's knots (x, W(x)) and whether release 1 located the column.

    The bracket [a, b]: the outer edges of the range bins that hold the levels ``low`` and
    ``high`` of the CDF G of :func:`_detected_counts`; ``DEFAULT_BRACKET`` (and W uniform)
    where nothing was detected. W = (G_ab + U) / 2 on [a, b], G_ab = (G - G(a)) / (G(b) - G(a))
    and U = (x - a) / (b - a): both are linear between consecutive range edges, so W is
    exactly piecewise linear with knots at a, b and the range edges between them."""
    warps, located = [], []
    for counts in _detected_counts(noisy, sigma):
        if not counts.sum() > 0:
            warps.append((np.array(DEFAULT_BRACKET), np.array([0.0, 1.0])))
            located.append(False)
            continue
        cdf = np.concatenate(([0.0], np.cumsum(counts))) / counts.sum()
        first = np.searchsorted(cdf[1:], low, side="left")
        last = min(np.searchsorted(cdf[1:], high, side="left"), counts.size - 1)
        knots = RANGE_EDGES[first:last + 2]  # a = RANGE_EDGES[first], b = RANGE_EDGES[last + 1]
        mass = cdf[first:last + 2] - cdf[first]
        uniform = (knots - knots[0]) / (knots[-1] - knots[0])
        heights = 0.5 * (mass / mass[-1] + uniform) if mass[-1] > 0 else uniform
        heights[-1] = 1.0
        warps.append((knots, heights))
        located.append(True)
    return tuple(warps), np.array(located)


__all__ = ["DEFAULT_BRACKET", "NormalScoreMap", "RANGE_EDGES", "located_warps", "quantile_bins", "quantile_levels",
           "release_normal_score_map", "warp", "z_bound"]
