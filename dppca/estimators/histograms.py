"""Binning and the additive and sparse private histograms of the score plots.

The pieces behind :func:`dppca.dp_score` (reference r-dppca-score.md §3-§5, §8), each
private on its own under replace-one neighbours with n public:

* :class:`Grid`: equal-width bins over the frame, R's binning rules;
* :func:`private_histograms`: the additive Gaussian and sparse thresholded Laplace
  histograms of one or several groups (one release per method over all groups).

The frame is :mod:`dppca.estimators.frame`; synthetic points, :mod:`dppca.estimators.sampling`.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..privacy import Ledger, gaussian_sigma, laplace_scale
from ..privacy.accuracy import caller_stacklevel
from ..privacy.samplers import add_gaussian_noise, add_laplace_noise

#: Histogram mechanisms, in the order results list them.
HISTOGRAM_METHODS = ("add", "sparse")
#: Default bins per axis: round(sqrt(n / (BINS_NOISE_RATIO * noise sd))), within BINS_RANGE.
BINS_NOISE_RATIO, BINS_RANGE = 2.5, (4, 64)


@dataclass(frozen=True)
class Grid:
    """Equal-width bins over a rectangle; flat bin k = by * m_x + bx (x fastest, as in R).

    Attributes
    ----------
    x_breaks, y_breaks : ndarray, shapes (m_x + 1,), (m_y + 1,)
    """

    x_breaks: np.ndarray
    y_breaks: np.ndarray

    @classmethod
    def over(cls, xlim, ylim, bins) -> "Grid":
        """``bins = (m_x, m_y)`` equal-width bins over [xlim] x [ylim] (numpy.linspace breaks)."""
        return cls(np.linspace(*xlim, bins[0] + 1), np.linspace(*ylim, bins[1] + 1))

    @property
    def shape(self) -> tuple:
        """(m_x, m_y)."""
        return (self.x_breaks.size - 1, self.y_breaks.size - 1)

    @property
    def size(self) -> int:
        """Number of bins m = m_x m_y."""
        return self.shape[0] * self.shape[1]

    def cells(self) -> pd.DataFrame:
        """One row per bin (x fastest): xmin, xmax, ymin, ymax."""
        bx, by = np.meshgrid(np.arange(self.shape[0]), np.arange(self.shape[1]))
        bx, by = bx.ravel(), by.ravel()
        return pd.DataFrame({"xmin": self.x_breaks[bx], "xmax": self.x_breaks[bx + 1],
                             "ymin": self.y_breaks[by], "ymax": self.y_breaks[by + 1]})

    def bin_index(self, points) -> np.ndarray:
        """Flat bin of each point: intervals (b_{i-1}, b_i], the first closed (R ``cut``,
        ``include.lowest``); points outside the frame go to the nearest edge bin (never dropped)."""
        points = np.asarray(points, dtype=float)
        bx = _axis_bin(self.x_breaks, points[:, 0])
        by = _axis_bin(self.y_breaks, points[:, 1])
        return by * self.shape[0] + bx


def _axis_bin(breaks, values) -> np.ndarray:
    return np.clip(np.searchsorted(breaks, values, side="left") - 1, 0, breaks.size - 2)


def bin_counts(points, grid: Grid, codes=None, n_groups: int = 1) -> np.ndarray:
    """Counts per (group, bin), shape (n_groups, m).

    ``codes`` are group indices 0..n_groups-1, or -1 for a row in no group (a label outside
    the declared domain or not selected; see :mod:`dppca.estimators.groups`): such a row is counted in
    no cell. Without ``codes`` every row is in the one group.
    """
    flat = grid.bin_index(points)
    if codes is not None:
        codes = np.asarray(codes, dtype=np.int64)
        in_group = codes >= 0
        flat = codes[in_group] * grid.size + flat[in_group]
    return np.bincount(flat, minlength=n_groups * grid.size).reshape(n_groups, grid.size).astype(float)


def default_bins(n: float, methods, eps, delta, calibration="analytic") -> int:
    """Bins per axis from public quantities only: round(sqrt(n / (kappa sigma))) within [4, 64].

    sigma is the largest noise standard deviation, in counts, of the requested mechanisms at
    their share (eps, delta) of the histogram budget (the Gaussian sigma for "add",
    sqrt(2) x the Laplace scale for "sparse"), and kappa = ``BINS_NOISE_RATIO``. The data fill
    roughly a quarter of the frame (the frame is 2.4 times the 0.99 radius wide), so an occupied
    bin holds about 4 n / b^2 points: the rule keeps that near 4 kappa sigma, i.e. well above the
    noise, while giving as many bins as the noise allows.
    """
    sd = max(_noise_sd(method, eps, delta, calibration) for method in methods)
    bins = round(math.sqrt(n / (BINS_NOISE_RATIO * sd)))
    return int(min(max(bins, BINS_RANGE[0]), BINS_RANGE[1]))


def _noise_sd(method, eps, delta, calibration) -> float:
    if method == "add":
        return gaussian_sigma(math.sqrt(2.0), eps, delta, calibration)
    return math.sqrt(2.0) * laplace_scale(2.0, eps)


@dataclass(frozen=True)
class HistogramRelease:
    """One private histogram over every group.

    Attributes
    ----------
    prob : ndarray, shape (n_groups, m)
        Probabilities per bin, summing to 1 within each group (all 0 for an empty group).
    totals : ndarray, shape (n_groups,)
        Private estimate of each group's size from the same release (post-processing):
        the sum of the unclipped noisy counts ("add") or of the kept counts ("sparse").
    noise_scale : float
        Gaussian sigma or Laplace scale, in counts.
    threshold : float
        Count threshold of "sparse" (nan for "add").
    empty_groups : tuple of int
        Groups whose released histogram kept no mass (their ``prob`` is all 0).
    """

    prob: np.ndarray
    totals: np.ndarray
    noise_scale: float
    threshold: float = float("nan")
    empty_groups: tuple = field(default=())


def private_histograms(counts, methods, eps, delta, rng, *, calibration="analytic",
                       ledger: Ledger | None = None, group_names=None) -> dict:
    """Release the histogram ``counts`` with each method, the budget split evenly between them.

    Parameters
    ----------
    counts : ndarray, shape (n_groups, m)
        Exact counts per (group, bin) from :func:`bin_counts`; each row is in at most one
        (group, bin) cell (rows in no group are in none).
    methods : sequence of {"add", "sparse"}
    eps, delta : float
        Budget of all the histograms together; each method gets (eps, delta) / len(methods).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
        Gaussian calibration of "add".
    ledger : Ledger, optional
    group_names : sequence of str, optional
        For warnings.

    Returns
    -------
    dict of str to HistogramRelease
        In ``HISTOGRAM_METHODS`` order.

    Notes
    -----
    Sensitivity (replace-one, n public): the cells (groups) are public or released before
    (adaptive composition), and each row is in at most one cell. The replaced row leaves at
    most one cell and the new one enters at most one, whatever the change (bin, group, or
    into/out of the groups shown): the count vector moves by at most 1 in two entries, L2
    sqrt(2), L1 2; a cell non-zero in one neighbour only holds a count of 1 (at most two such
    cells). One release covers every group (parallel composition, R's Algorithms 6-7). Both
    methods are two releases: basic composition, half the budget each (R spends the full
    budget on each, its Observation P3).
    """
    share = 1.0 / len(methods)
    out = {}
    for method in HISTOGRAM_METHODS:
        if method in methods:
            release = _RELEASES[method](counts, eps * share, delta * share, rng, calibration, ledger)
            out[method] = _warn_if_empty(release, method, group_names)
    return out


def additive_histogram(counts, eps, delta, rng, calibration="analytic",
                       ledger: Ledger | None = None) -> HistogramRelease:
    """Gaussian noise on every count, clipped at 0 and normalised per group (Algorithm 4).

    (eps, delta)-DP: L2 sensitivity sqrt(2) of the count vector (see
    :func:`private_histograms`); sigma from :func:`dppca.privacy.gaussian_sigma` (analytic
    by default; R uses the classic sigma, proven only for eps < 1, its Observation P4).
    """
    sigma = gaussian_sigma(math.sqrt(2.0), eps, delta, calibration)
    noisy, sigma = add_gaussian_noise(counts, sigma, math.sqrt(2.0), rng)
    if ledger is not None:
        ledger.record("histogram: add", f"Gaussian ({calibration})", math.sqrt(2.0), "L2", sigma,
                      eps, delta)
    return _release(np.maximum(noisy, 0.0), np.maximum(noisy.sum(axis=1), 0.0), sigma)


def sparse_histogram(counts, eps, delta, rng, calibration="analytic",
                     ledger: Ledger | None = None) -> HistogramRelease:
    """Laplace(2/eps) noise on the non-zero counts, kept if >= 1 + 2 ln(2/delta)/eps (Algorithm 5).

    (eps, delta)-DP (stability-based histogram; Korolova et al. 2009, Bun, Nissim & Stemmer
    2016): on the cells non-zero in both neighbours the L1 sensitivity is 2, so Laplace
    noise of scale 2/eps is eps-DP; a cell non-zero in only one neighbour holds a count of 1
    and is kept with probability P(1 + Z >= t) = exp(-ln(2/delta))/2 = delta/4, Z ~ Lap(2/eps).
    Empty cells get no noise and no draw (as in R). ``calibration`` is unused (Laplace).
    The sampler's slack is computed from the number of cells of the whole grid (public), not
    from the number of non-empty cells (private), so the released scale and threshold are the
    same for every neighbour.
    """
    scale = laplace_scale(2.0, eps)
    kept = np.zeros_like(counts)
    nonzero = counts > 0
    noisy, scale = add_laplace_noise(counts[nonzero], scale, 2.0, rng, dimension=counts.size)
    # 1 + b ln(2/delta) with the discrete Laplace's scale b = t gamma >= 2/eps; + 2^-39 b covers its
    # tail P(Z >= z) = q^ceil(z/gamma) / (1 + q) <= exp(-z/b) / (2 - 1/t), t >= 2^40.
    threshold = 1.0 + scale * (math.log(2.0 / delta) + 2.0 ** -39)
    kept[nonzero] = np.where(noisy >= threshold, noisy, 0.0)
    if ledger is not None:
        ledger.record("histogram: sparse", "Laplace (thresholded)", 2.0, "L1", scale, eps, delta)
    return _release(kept, kept.sum(axis=1), scale, threshold)


def _release(kept, totals, noise_scale, threshold=float("nan")) -> HistogramRelease:
    sums = kept.sum(axis=1, keepdims=True)
    prob = np.divide(kept, sums, out=np.zeros_like(kept), where=sums > 0)
    empty = tuple(int(g) for g in np.flatnonzero(sums[:, 0] <= 0))
    return HistogramRelease(prob, totals, noise_scale, threshold, empty)


_RELEASES = {"add": additive_histogram, "sparse": sparse_histogram}


def _warn_if_empty(release: HistogramRelease, method: str, group_names) -> HistogramRelease:
    if release.empty_groups:
        names = [group_names[g] if group_names is not None else "all" for g in release.empty_groups]
        warnings.warn(f"the private {method!r} histogram kept no mass for group(s) {names}: its "
                      "probabilities are all 0 (a larger eps or fewer bins would help)", UserWarning,
                      stacklevel=caller_stacklevel())
    return release


def histogram_frame(grid: Grid, prob, group_names=None) -> pd.DataFrame:
    """DataFrame xmin, xmax, ymin, ymax, prob[, group] with one row per (group, bin)."""
    prob = np.asarray(prob, dtype=float)
    cells = grid.cells()
    if group_names is None:
        return cells.assign(prob=prob.reshape(-1))
    frames = [cells.assign(prob=row, group=name) for name, row in zip(group_names, prob)]
    out = pd.concat(frames, ignore_index=True)
    out["group"] = pd.Categorical(out["group"], categories=list(group_names))
    return out


def normalised_counts(counts) -> np.ndarray:
    """Each group's exact counts as shares (NON-PRIVATE reference; zeros for an empty group)."""
    sums = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, sums, out=np.zeros_like(counts), where=sums > 0)

__all__ = ["Grid", "HistogramRelease", "additive_histogram", "bin_counts", "default_bins",
           "histogram_frame", "normalised_counts", "private_histograms", "sparse_histogram"]
