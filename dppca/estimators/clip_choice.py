"""Clip thresholds of the clipped means chosen from a private log2 histogram.

A clipped mean of non-negative values u (pair values of a projected score, or half squared
distances of the trace) trades two errors: the clipping bias E(u - C)+, which only lowers the
estimate, and the Gaussian noise, whose sd is C times the noise of the normalised statistic.
A fixed multiple of a private quantile (the former rule, C = 2.4 x q90) assumes Gaussian tails;
on skewed or income-like columns (mostly zeros, rare huge values) it clips most of the variance
away. Here the tail is measured instead:

1. one joint noisy histogram of the m disjoint-pair values of each component in octaves
   [2^b a, 2^(b+1) a), b = -24..23, around a private anchor a (the private trace), plus a bottom
   bin [0, 2^-24 a) (:func:`dppca.privacy.quantiles.dp_histogram_counts`);
2. bins whose noisy count exceeds ``SIGNIFICANT_SD`` noise sd are "significant", as are the
   bins above ``EXTEND_SD`` sd inside a window of ``SEED_WINDOW`` octaves whose noisy sum exceeds
   ``SIGNIFICANT_SD`` sd of a sum (a bulk spread over octaves), and the
   contiguous bins above the highest of them whose count exceeds ``EXTEND_SD`` noise sd (the
   others are set to 0: empty bins would otherwise carry phantom mass);
3. for each candidate C among the edges, the bias is estimated from the significant bins above
   C (each bin's values taken at its midpoint 1.5 x its lower edge) and C is the candidate that
   minimises bias + noise sd at C (the noise of the normalised statistic is public);
4. :func:`tail_bias` reads the post-release clipping-bias estimate and bound from the same
   noisy counts: the clipped estimate is biased low, so the upper end of its interval adds the
   bound (:func:`dppca.results.scree_checks.value_bias`,
   :meth:`dppca.results.scree.ScreeResult.conf_int`).

Everything after the histogram is post-processing. A component with no significant bin gets the
caller's public fallback clip.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..privacy import Ledger
from ..privacy.composition import GaussianShare
from ..privacy.quantiles import dp_histogram_counts

#: Octaves of the histogram around the anchor a: bins [0, 2^-24 a), [2^-24 a, 2^-23 a), ...,
#: [2^23 a, 2^24 a] (values above go to the top bin). Pair values of any component lie below
#: about 2^24 x the trace unless one pair carries 2^-24 of the data's pairs' mass.
CLIP_LOG2_RANGE = (-24, 24)
#: Octaves around the trace's rough centre (a median-like value of ||x_a - x_b||^2 / 2): the
#: mean can sit far above it when a few rows carry the variance (income columns).
TRACE_LOG2_RANGE = (-16, 48)
#: A bin is significant when its noisy count exceeds this many noise sd: over 49 bins x k
#: components, a false positive (an empty bin read as significant) has probability
#: 49 k P(Z > 4.5) = 1.7e-4 k.
SIGNIFICANT_SD = 4.5
#: Width (octaves) of the windows whose summed count can also make their bins significant.
SEED_WINDOW = 3
#: Above the highest significant bin, the contiguous bins whose noisy count exceeds this many
#: noise sd are significant too (a tail continuing the bulk: few tests, so a lower bar; an
#: empty bin passes it with probability 2.3%).
EXTEND_SD = 2.0
#: Each bin's values are taken at this multiple of its lower edge (the midpoint of an octave).
BIN_MIDPOINT = 1.5
#: Post-release bias estimate (:func:`tail_bias`): inside this many octaves above C, a bin whose
#: noisy count exceeds ``TAIL_LOOSE_SD`` noise sd counts too. A spike of pairs far above the bulk
#: (a top-coded value: about 1% of the pairs, whose count is ~3 noise sd at small eps) reads
#: anywhere within +-2 sd of that, so the ``SIGNIFICANT_SD`` bar misses it about half the time
#: and its mass would be left out of the bias. An empty bin passes 2.5 sd with probability
#: Phi(-2.5) = 0.6%, a component's 6 bins with 3.7%; a false pass only widens the bound (the
#: value may be marked unreliable), it never narrows an interval.
TAIL_WINDOW, TAIL_LOOSE_SD = 6, 2.5
#: Post-release bias bound: a ``HIDDEN_SD``-sd upper bound of the linear functional
#: sum_b (hi_b - C) count_b / m over the bins above C up to the window's top (each bin's values
#: at its upper edge hi_b: a bound, not an estimate). The top is C 2^HIDDEN_OCTAVES, raised to
#: the upper edge of the highest bin within ``TAIL_WINDOW`` octaves whose noisy count exceeds
#: ``TAIL_LOOSE_SD`` sd (a spike the noise half hides: a top-code at 2-4 sd, 2-5 octaves
#: above C).
HIDDEN_OCTAVES, HIDDEN_SD = 2, 2.0
#: Post-release bias bound, beyond the window: a bin can hold h = ``HIDDEN_SD`` sd of pairs
#: unseen, and on small data a few such pairs far above C carry much of the mean (m = 284 pairs
#: with a count sd of 8 at eps 4: h = 5.6% of the pairs, whose excess over C can reach a few
#: times the value). The bound adds this fraction of h pairs just above the window's default top
#: (C 2^HIDDEN_OCTAVES, so an excess of (2^HIDDEN_OCTAVES - 1) C each):
#: UNSEEN_SHARE h (2^HIDDEN_OCTAVES - 1) C / m, which scales with h / m and vanishes on large
#: data (m = 2500 at eps 4: h / m = 0.6%).
UNSEEN_SHARE = 0.25


@dataclass(frozen=True)
class ClipChoice:
    """Clips chosen from a private log2 histogram, per component.

    Attributes
    ----------
    clip : ndarray, shape (k,)
        The clips C_l > 0 (units of the values).
    fallback : ndarray of bool, shape (k,)
        Components with no significant bin (their clip is the public fallback).
    counts : ndarray, shape (k, B), optional
        The noisy counts of the histogram (released), kept for the post-release accuracy
        (:func:`tail_bias`).
    sigma : float
        Their noise sd (public).
    edges : ndarray, shape (B + 1,), optional
        The histogram's edges.
    m : int
        Values per column (public).
    tail_estimate, tail_upper : ndarray, shape (k,), optional
        The post-release clipping bias of each clipped mean, :func:`tail_bias` of this choice
        (set by :func:`choose_clips`).
    """

    clip: np.ndarray
    fallback: np.ndarray
    counts: np.ndarray | None = None
    sigma: float = float("nan")
    edges: np.ndarray | None = None
    m: int = 0
    tail_estimate: np.ndarray | None = None
    tail_upper: np.ndarray | None = None


def clip_edges(anchor: float, log2_range=CLIP_LOG2_RANGE) -> np.ndarray:
    """Public bin edges [0, 2^lo a, 2^(lo+1) a, ..., 2^hi a] of the clip histogram around a > 0
    (default (lo, hi) = ``CLIP_LOG2_RANGE``)."""
    low, high = log2_range
    return np.concatenate(([0.0], float(anchor) * 2.0 ** np.arange(low, high + 1)))


def dp_clip_choice(w, anchor, noise: GaussianShare, unit_sd, fallback, rng, *,
                   ledger: Ledger | None = None, step="clip choice: log2 histograms",
                   log2_range=CLIP_LOG2_RANGE, m=None) -> ClipChoice:
    """Private clips of the k columns of ``w`` from one joint noisy log2 histogram.

    Parameters
    ----------
    w : ndarray, shape (m, k)
        Non-negative values of which a replaced row moves at most one per column (disjoint-pair
        values).
    anchor : float > 0
        Public or already private centre of the bins (the private trace).
    noise : GaussianShare
        Budget of the histogram.
    unit_sd : float
        Noise sd of the later clipped mean divided by its clip (public: its sensitivity over its
        share's noise multiplier).
    fallback : float or ndarray, shape (k,)
        Public (or already private) clip of a component with no significant bin.
    rng : numpy.random.Generator
    ledger : Ledger, optional
    step : str
        Ledger label.
    log2_range : (int, int)
        Octaves (lo, hi) of the bins around the anchor (public).
    m : int, optional
        The public number of values per column the clipping bias is divided by (default
        ``w.shape[0]``, public under replace-one; under add/remove a public lower bound of it,
        :func:`dppca.privacy.counted_group.pair_rows`, so the choice is post-processing of the
        noisy counts and public numbers only).

    Returns
    -------
    ClipChoice

    Raises
    ------
    DPPCAValueError
        If ``w`` is not numeric (from the column conversion).

    Notes
    -----
    Privacy: the histogram is :func:`dppca.privacy.quantiles.dp_histogram_counts`, L2
    sensitivity sqrt(2 k) (a replaced row moves one value per column, hence two counts per column
    by 1; exact integer counts, so the bound holds in floating point), with Gaussian noise from
    ``noise``; the edges depend only on the anchor (public or released before: adaptive
    composition). The clips and their clipping-bias estimates and bounds (:func:`tail_bias`) are
    post-processing of the noisy counts and public numbers.

    References
    ----------
    The bias-variance choice of a clip follows the usual analysis of clipped means (e.g. Kamath, Singhal and Ullman 2020, Section 2): bias E(u - C)+
    against noise proportional to C.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.composition import GaussianGroup
    >>> rng = np.random.default_rng(0)
    >>> w = rng.chisquare(1, size=(5000, 1)) / 2
    >>> choice = dp_clip_choice(w, 1.0, GaussianGroup(1.0, 1e-5).share(0.5), 1e-3, 10.0, rng)
    >>> bool(4 <= choice.clip[0] <= 16), float(choice.tail_estimate[0])
    (True, 0.0)
    >>> bool(0 < choice.tail_upper[0] < w.mean() / 2)  # a 2-sd bound over the octaves above C
    True
    """
    edges = clip_edges(anchor, log2_range)
    noisy, sigma = dp_histogram_counts(w, edges, noise, rng, ledger=ledger, step=step)
    return choose_clips(noisy, sigma, edges, w.shape[0] if m is None else m, unit_sd, fallback)


def choose_clips(noisy, sigma, edges, m, unit_sd, fallback) -> ClipChoice:
    """The clips and their clipping-bias estimates from noisy counts (post-processing; see
    :func:`dp_clip_choice`).

    Parameters
    ----------
    noisy : ndarray, shape (k, B)
        Noisy counts of the bins between ``edges``.
    sigma : float
        Their noise sd.
    edges : ndarray, shape (B + 1,)
        Public edges: 0, then doubling.
    m : int
        Number of values per column (public).
    unit_sd : float
        Noise sd of the clipped mean over its clip.
    fallback : float or ndarray, shape (k,)
        Clip of a component with no significant bin.

    Returns
    -------
    ClipChoice

    Examples
    --------
    >>> import numpy as np
    >>> edges = np.array([0.0, 1.0, 2.0, 4.0, 8.0])
    >>> choice = choose_clips(np.array([[0.0, 50.0, 40.0, 0.5]]), 1.0, edges, 90, 0.001, 100.0)
    >>> float(choice.clip[0]), bool(choice.fallback[0])
    (4.0, False)
    """
    noisy = np.atleast_2d(np.asarray(noisy, float))
    k = noisy.shape[0]
    edges = np.asarray(edges, float)
    significant = _significant(noisy, sigma)
    kept = np.where(significant, noisy, 0.0)
    values = np.concatenate(([edges[1] / 2], BIN_MIDPOINT * edges[1:-1]))  # one per bin
    candidates = edges[1:]
    # excess[j, b] = (value of bin b - candidate j)+
    excess = np.maximum(values[None, :] - candidates[:, None], 0.0)
    bias = kept @ excess.T / max(m, 1)  # (k, candidates)
    best = np.argmin(bias + candidates[None, :] * unit_sd, axis=1)
    clip = candidates[best]
    none = ~significant.any(axis=1)
    fallback = np.broadcast_to(np.asarray(fallback, float), (k,))
    choice = ClipChoice(np.where(none, fallback, clip), none, noisy, float(sigma), edges, int(m))
    tail = _tail_bias(choice, significant)  # the mask just computed: tail_bias would redo it
    return replace(choice, tail_estimate=tail.estimate, tail_upper=tail.upper)


@dataclass(frozen=True)
class TailBias:
    """Post-release clipping bias of clipped means, per component (units of the values).

    Attributes
    ----------
    estimate : ndarray, shape (k,)
        Point estimate of E(u - C)+ from the significant bins above C and the bins of the first
        ``TAIL_WINDOW`` octaves above C whose noisy count exceeds ``TAIL_LOOSE_SD`` sd.
    upper : ndarray, shape (k,)
        ``HIDDEN_SD``-sd upper bound of the mass above C up to the window's top (``HIDDEN_OCTAVES``
        octaves, or the highest ``TAIL_LOOSE_SD``-sd bin within ``TAIL_WINDOW`` octaves), each
        bin's values at its upper edge, plus the counted bins above the top, plus the allowance
        beyond the window ``UNSEEN_SHARE`` h (2^HIDDEN_OCTAVES - 1) C / m (h = ``HIDDEN_SD``
        count sd: the pairs a bin can hold unseen); at least ``estimate``.
    """

    estimate: np.ndarray
    upper: np.ndarray


def tail_bias(choice: ClipChoice) -> TailBias:
    """The clipping bias of each clipped mean, from the released histogram (post-processing).

    Parameters
    ----------
    choice : ClipChoice
        A choice made by :func:`dp_clip_choice` (with its noisy counts), or by
        :func:`choose_clips` given counts.

    Returns
    -------
    TailBias

    Raises
    ------
    ValueError
        If ``choice`` carries no counts.

    Notes
    -----
    Privacy: a function of the noisy counts, their public sd, the public edges and m, and the
    clips chosen from them: post-processing of the histogram release, no budget. The estimate
    takes a bin's values at its midpoint (``BIN_MIDPOINT`` x its lower edge); the bound at its
    upper edge, over every bin of the window (noisy counts, negative ones included: the
    weighted sum of the noisy counts is Gaussian around the true one with sd sigma ||w||, so
    the bound fails with probability Phi(-HIDDEN_SD) = 2.3% for a window chosen in advance).
    A tail beyond the window whose bins stay under the bars is not seen (no finite bound exists
    without declared bounds: a few rows may carry any variance); the bound allows for
    ``UNSEEN_SHARE`` of the h = ``HIDDEN_SD`` sigma pairs a bin can hold unseen, just above the
    window's default top. It is public arithmetic (sigma, m, C) and scales with h / m: it
    matters on small data only (h / m = 5.6% at m = 284 and eps 4; 0.6% at m = 2500).

    References
    ----------
    Kamath, Singhal and Ullman (2020), Section 2 (bias of clipped means).

    Examples
    --------
    >>> import numpy as np
    >>> edges = np.array([0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    >>> counts = np.array([[0.0, 50.0, 40.0, 0.0, 0.0, 4.0]])  # a spike at 4 sd above a gap
    >>> choice = choose_clips(counts, 1.0, edges, 100, 0.001, 100.0)
    >>> bias = tail_bias(choice)
    >>> float(choice.clip[0]), float(bias.estimate[0]), round(float(bias.upper[0]), 3)
    (4.0, 0.8, 1.794)
    """
    if choice.counts is None:
        raise ValueError("`choice` carries no noisy counts (made without a histogram)")
    return _tail_bias(choice, _significant(np.atleast_2d(choice.counts), choice.sigma))


def _bins_above(choice):
    """The noisy counts (k, B), the clips (k, 1), the bins' lower edges (B,), which bins lie above
    C (k, B) and each bin's excess over C at its midpoint (k, B) (the bottom bin [0, e_1) at
    e_1 / 2)."""
    noisy, edges = np.atleast_2d(choice.counts), np.asarray(choice.edges)
    values = np.concatenate(([edges[1] / 2], BIN_MIDPOINT * edges[1:-1]))
    low = edges[:-1]
    clip = np.asarray(choice.clip, float)[:, None]
    above = low[None, :] >= clip * (1 - 1e-12)
    return noisy, clip, low, above, np.maximum(values[None, :] - clip, 0.0)


def _tail_bias(choice, significant) -> TailBias:
    """:func:`tail_bias` given the significance mask of ``choice.counts`` (shape (k, B))."""
    sigma, edges = choice.sigma, np.asarray(choice.edges)
    noisy, clip, low, above, excess = _bins_above(choice)
    loose = above & ~significant & (low[None, :] < clip * 2.0 ** TAIL_WINDOW) & \
        (noisy > TAIL_LOOSE_SD * sigma)
    counted = above & (significant | loose)
    m = max(choice.m, 1)
    estimate = np.sum(np.where(counted, noisy, 0.0) * excess, axis=1) / m
    upper = _window_bound(noisy, sigma, edges, clip, above, counted, excess) / m + \
        UNSEEN_SHARE * HIDDEN_SD * sigma * (2.0 ** HIDDEN_OCTAVES - 1) * clip[:, 0] / m
    return TailBias(estimate, np.maximum(estimate, upper))


def near_tail_estimate(choice: ClipChoice) -> np.ndarray:
    """Unbiased estimate of the clipping bias from the ``HIDDEN_OCTAVES`` octaves above C, every
    bin counted (its noisy count at its midpoint, negative counts kept), shape (k,).

    :func:`tail_bias`'s estimate counts only the bins whose counts clear a bar; a tail spread
    thinly over many bins under the bar (the trace's ||x_a - x_b||^2 / 2 sums every column's
    tail) is then read as 0. This sum is unbiased for the mass of those octaves and noisier
    (sd sigma ||w|| / m). Post-processing of the noisy counts.

    Examples
    --------
    >>> import numpy as np
    >>> edges = clip_edges(1.0)
    >>> counts = np.zeros((1, edges.size - 1))
    >>> counts[0, 26:28] = [3.0, 2.0]  # [2, 4) and [4, 8): under any bar at sd 1
    >>> choice = choose_clips(counts, 1.0, edges, 100, 0.001, 2.0)
    >>> float(choice.clip[0]), round(float(near_tail_estimate(choice)[0]), 3)
    (2.0, 0.11)
    """
    return _near_sum(choice)[0]


def near_tail_size(choice: ClipChoice) -> np.ndarray:
    """Size of the near octaves' clipping bias net of the noise in its estimate, shape (k,):
    sqrt((b^2 - s^2)+) for a positive :func:`near_tail_estimate` b with noise sd s, else 0.

    b^2 - s^2 is the unbiased estimate of the squared bias (E b^2 = bias^2 + s^2); its positive
    part keeps a sum that is mostly noise from reading as bias: where the near octaves hold little
    mass, |b| is of the order of s, and a post-release error that adds s and b would count that
    noise twice. Post-processing of the noisy counts.

    Examples
    --------
    >>> import numpy as np
    >>> edges = clip_edges(1.0)
    >>> counts = np.zeros((1, edges.size - 1))
    >>> counts[0, 26:28] = [3.0, 2.0]
    >>> choice = choose_clips(counts, 1.0, edges, 100, 0.001, 2.0)  # count sd 1
    >>> round(float(near_tail_estimate(choice)[0]), 3), round(float(near_tail_size(choice)[0]), 3)
    (0.11, 0.102)
    >>> noisier = choose_clips(counts, 3.0, edges, 100, 0.001, 2.0)  # count sd 3: sum sd 0.12
    >>> float(near_tail_size(noisier)[0])
    0.0
    """
    estimate, sd = _near_sum(choice)
    return np.where(estimate > 0, np.sqrt(np.maximum(estimate ** 2 - sd ** 2, 0.0)), 0.0)


def _near_sum(choice):
    """(:func:`near_tail_estimate`, its noise sd sigma ||w|| / m), each shape (k,)."""
    noisy, clip, low, above, excess = _bins_above(choice)
    weight = np.where(above & (low[None, :] < clip * 2.0 ** HIDDEN_OCTAVES), excess, 0.0)
    m = max(choice.m, 1)
    estimate = np.sum(weight * noisy, axis=1) / m
    return estimate, choice.sigma * np.sqrt(np.sum(weight ** 2, axis=1)) / m


def _window_bound(noisy, sigma, edges, clip, above, counted, excess) -> np.ndarray:
    """``HIDDEN_SD``-sd upper bound of sum_b (hi_b - C)+ count_b over the window's bins, plus the
    counted bins above it at their midpoints (see ``HIDDEN_OCTAVES``): counts of shape (k,)."""
    low, high = edges[:-1][None, :], edges[1:][None, :]
    spike = above & (low < clip * 2.0 ** TAIL_WINDOW) & (noisy > TAIL_LOOSE_SD * sigma)
    top = np.maximum(np.max(np.where(spike, high, 0.0), axis=1),
                     clip[:, 0] * 2.0 ** HIDDEN_OCTAVES)
    window = above & (high <= top[:, None] * (1 + 1e-12))
    weight = np.where(window, high - clip, 0.0)
    spread = sigma * np.sqrt(np.sum(weight ** 2, axis=1))
    linear = np.sum(weight * noisy, axis=1) + HIDDEN_SD * spread
    return linear + np.sum(np.where(counted & ~window, noisy * excess, 0.0), axis=1)


def _significant(noisy, sigma) -> np.ndarray:
    """The significant bins of noisy counts (k, B): seeds, extended upwards (module docstring)."""
    return _extended(_seeds(noisy, sigma), noisy > EXTEND_SD * sigma)


def _seeds(noisy, sigma) -> np.ndarray:
    """Significant single bins, and the bins above ``EXTEND_SD`` sd inside a significant window of
    ``SEED_WINDOW`` bins (sum above ``SIGNIFICANT_SD`` sd of the sum: a bulk spread over
    several octaves)."""
    seeds = noisy > SIGNIFICANT_SD * sigma
    width = SEED_WINDOW
    kernel = np.ones(width)
    sums = np.stack([np.convolve(row, kernel, mode="valid") for row in noisy])
    windows = sums > SIGNIFICANT_SD * sigma * math.sqrt(width)
    covered = np.zeros_like(seeds)
    for start in range(width):
        covered[:, start:start + windows.shape[1]] |= windows
    return seeds | (covered & (noisy > EXTEND_SD * sigma))


def _extended(seed, loose) -> np.ndarray:
    """``seed`` plus, above each component's highest seed bin, the run of contiguous ``loose`` bins."""
    out = seed.copy()
    for row, (seeds, above) in enumerate(zip(seed, loose)):
        hits = np.flatnonzero(seeds)
        b = hits[-1] + 1 if hits.size else above.size
        while b < above.size and above[b]:
            out[row, b] = True
            b += 1
    return out


__all__ = ["CLIP_LOG2_RANGE", "TRACE_LOG2_RANGE", "ClipChoice", "SIGNIFICANT_SD", "TailBias",
           "UNSEEN_SHARE", "choose_clips", "clip_edges", "dp_clip_choice", "near_tail_estimate",
           "near_tail_size", "tail_bias"]
