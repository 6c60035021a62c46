"""The public design of the private column scales, shared by the release and its accuracy model.

How :func:`dppca.preprocessing.scales.private_column_scales` splits its budget, where it clips
its moments (the pilot and final ladders around the efficient clip c*), and the block design
of its pairs: public constants and the Gaussian clipped-moment ratio r(c) they are derived from.
:mod:`dppca.preprocessing.scales` releases with them; :mod:`dppca.preprocessing.scale_accuracy`
predicts the error from the same numbers, so the prediction describes the release made.
"""
from __future__ import annotations

import functools

import numpy as np

#: Shares of the scale budget (of its Gaussian-DP mu^2): octave histograms, pilot ladder, final
#: moment ladder.
SCALE_SHARES = (0.2, 0.4, 0.4)
#: The pilot moment is released at 2^(c + 3k), k = -3..3, around the histograms' posterior median
#: c, jointly with equal weights: each rung reads the scale over ~+-4 octaves around its clip,
#: so together they locate a column's scale within ~+-13 octaves of where the histograms put it.
SCALE_PILOT_SPACING = 3.0
SCALE_PILOT_WEIGHTS = (1.0,) * 7
#: The final moment is released at the clips C3 x 4^k, k = 0..4 (a ladder spanning 8 octaves
#: above C3), with weights (1, 1/4, 1/4, 1/4, 1/4) in one Gaussian release: rung 0 (the
#: efficient clip) keeps 1 / (1 + 4 / 16) = 80% of the precision (with weights 1/2 it would keep
#: 1 / (1 + 4 / 4) = half, and rung 0 sets the scale of every Gaussian-like column); the higher
#: rungs reach the tails of heavy-tailed columns and the non-zero part of mostly-zero columns.
SCALE_LADDER_FACTOR = 4.0
SCALE_LADDER_WEIGHTS = (1.0, 0.25, 0.25, 0.25, 0.25)
#: Rows per block of the random block design whose within-block pairs carry the clipped moments
#: (an incomplete U-statistic, :func:`dppca.stats.paired_differences.block_pairs`): the same
#: sensitivity as n/2 disjoint pairs, and for Gaussian data about b / (2 (b - 1)) of their
#: sampling variance (0.53 at b = 16; 0.5 for all pairs), for b / 2 times their work.
SCALE_BLOCK_ROWS = 16


@functools.cache
def gaussian_clip_table():
    """r(c) = E min(Z^2, c^2) / c^2 and E(c) = -d log r / d log c on c = 2^-6..2^6 (Z ~ N(0, 1)).

    Used to place the final clip and to read the upper rungs (:mod:`dppca.preprocessing.scales`).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        c, r(c) and E(c) on the grid (public arithmetic; computed once).

    Examples
    --------
    >>> from dppca.preprocessing.scale_design import gaussian_clip_table
    >>> c, r, elasticity = gaussian_clip_table()
    >>> bool(r[0] > 0.99 and r[-1] < 1e-3)
    True
    """
    from scipy.special import ndtr

    c = 2.0 ** np.arange(-6.0, 6.0 + 1e-9, 1 / 64)
    tail = 2 * ndtr(-c)  # P(|Z| > c)
    inside = (1 - tail) - 2 * c * np.exp(-c * c / 2) / np.sqrt(2 * np.pi)  # E Z^2 1{|Z| < c}
    r = inside / c ** 2 + tail
    return c, r, 2 * (1 - tail / r)


_CLIP_C, _CLIP_R, _CLIP_ELASTICITY = gaussian_clip_table()
#: c* = argmax r(c) E(c): the clip (in SDs of the differences) where the Gaussian-consistent
#: clipped second moment has the least noise per unit of budget (c* = 1.37).
SCALE_EFFICIENT_CLIP = float(_CLIP_C[np.argmax(_CLIP_R * _CLIP_ELASTICITY)])


def clip_ratio(c) -> np.ndarray:
    """r(c) = E min(Z^2, c^2) / c^2 for any c > 0 (c below 2^-8 read as 2^-8, where r ~ 1).

    Parameters
    ----------
    c : float or array_like
        Clips in standard deviations of a standard normal Z.

    Returns
    -------
    numpy.ndarray
        r(c), elementwise (in (0, 1]).

    Examples
    --------
    >>> from dppca.preprocessing.scale_design import clip_ratio
    >>> float(clip_ratio(100.0)) < 1e-3 < float(clip_ratio(1.0)) < 1
    True
    """
    from scipy.special import ndtr

    c = np.maximum(np.asarray(c, float), 2.0 ** -8)
    tail = 2 * ndtr(-c)
    with np.errstate(over="ignore", under="ignore"):
        inside = (1 - tail) - 2 * c * np.exp(-np.minimum(c * c, 1e4) / 2) / np.sqrt(2 * np.pi)
    return inside / c ** 2 + tail


__all__ = ["SCALE_BLOCK_ROWS", "SCALE_EFFICIENT_CLIP", "SCALE_LADDER_FACTOR", "SCALE_LADDER_WEIGHTS",
           "SCALE_PILOT_SPACING", "SCALE_PILOT_WEIGHTS", "SCALE_SHARES", "clip_ratio",
           "gaussian_clip_table"]
