"""The private plotting frame of :func:`dppca.dp_score`: a rectangle around the private
coordinate-wise median of the 2-D scores, with a private radius per axis (a private quantile
frame; reference r-dppca-score.md §3 uses one Euclidean radius, a square).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._validation import float_arg
from ..privacy import Ledger, split_budget
from ..privacy.quantiles import UNBOUNDED_GRID, private_quantile, unbounded_quantile
from ..stats.pair_statistics import clean_scores

#: Level of the magnitude bound; the medians' domain is [-2 B, 2 B].
BOUND_QUANTILE, BOUND_FACTOR = 0.9, 2.0


#: Level of the radius quantile and the inflation of the frame (as in R).
FRAME_QUANTILE, FRAME_INFLATE = 0.99, 0.20
#: Shares of the frame budget: a magnitude bound (the median's domain), the two medians, the
#: two radii (one per axis: the scores of PC2 are narrower than those of PC1, so a square frame
#: leaves most of its area empty).
FRAME_SHARES = {"bound": 0.1, "x median": 0.25, "y median": 0.25, "x radius": 0.2, "y radius": 0.2}
#: Half-width used when no release located the scores (every search stopped at its first
#: candidate, 2^-64: the budget carried no information); a stated public default, in score
#: units (about 3 SD of a standardized score when p is small).
FRAME_DEFAULT_HALF_WIDTH = 3.0


#: Add/remove neighbours: the radius searches aim at q (n_hat - RADIUS_COUNT_Z s), s the noise sd
#: of the released count n_hat. Two errors pull apart: a target pushed up by the count's noise
#: narrows the gap (1 - q) n that keeps the search from overshooting to the largest distances
#: (a far wider frame), and a lower target lowers the level, which the Gaussian stretch gives
#: back only for light tails. One sd keeps the first to probability Phi(-1) = 16% at a level
#: cost of about s / n.
RADIUS_COUNT_Z = 1.0


#: Smallest half-width relative to max(1, |centre|), so the breaks stay distinct in floating point.
MIN_RELATIVE_HALF_WIDTH = 1e-9


@dataclass(frozen=True)
class Frame:
    """A square plotting frame, in the coordinates of the scores it was built from.

    Attributes
    ----------
    centre : (float, float)
        Private centre (c1, c2): exponential-mechanism medians of the two score columns.
    half_width : float
        Along x: (1 + inflate) times the private 0.99-quantile of |s_i1 - c1|.
    bound : float
        The private magnitude bound B; the medians were computed on the domain [-2B, 2B].
    half_height : float, optional
        Along y (default: ``half_width``, a square).
    """

    centre: tuple
    half_width: float
    bound: float
    half_height: float | None = None

    @property
    def xlim(self) -> tuple:
        return (self.centre[0] - self.half_width, self.centre[0] + self.half_width)

    @property
    def ylim(self) -> tuple:
        h = self.half_width if self.half_height is None else self.half_height
        return (self.centre[1] - h, self.centre[1] + h)


def private_frame(scores, eps, delta, rng, *, ledger: Ledger | None = None,
                  inflate: float = FRAME_INFLATE, count=None) -> Frame:
    """(eps, delta)-DP rectangular frame [c1 +/- h1] x [c2 +/- h2] around the bulk of 2-D scores.

    Five releases (basic composition, shares ``FRAME_SHARES`` of eps; all pure DP, so the
    frame spends no delta):

    1. B = unbounded 0.9-quantile of max(|s_i1|, |s_i2|) (pure DP, :func:`unbounded_quantile`);
       it fixes the medians' public domain [-2B, 2B] (|median(s_j)| <= median(|s_j|) <= B
       up to the noise, so the factor 2 leaves room).
    2-3. c_j = exponential-mechanism median of column j on that domain
       (:func:`dppca.privacy.quantiles.private_quantile`, Smith 2011; pure DP). Its rank error
       is O(log(domain / gaps) / eps) whatever the data's shape, where a smooth-sensitivity
       median of clustered scores can land far outside the data.
    4-5. R_j = unbounded 0.99-quantile of the distances |s_ij - c_j| along each axis (pure DP);
       h_j = (1 + inflate) R_j (post-processing). A search that stopped at its first
       candidate (2^-64) located nothing (too little budget for n): its axis takes the other
       axis's half-width, or 2 (1 + inflate) B, or ``FRAME_DEFAULT_HALF_WIDTH`` when nothing
       was located (decided from the releases only); never below 1e-9 max(1, |c|).

    Parameters
    ----------
    scores : ndarray, shape (n, 2)
        Finite scores; n is public.
    eps : float
        Budget of the frame, > 0.
    delta : float
        Budget of the frame, in (0, 1).
    rng : numpy.random.Generator
    ledger : Ledger, optional
    inflate : float
        Relative inflation of the radius, >= 0 (R's fixed 0.20).
    count : dppca.privacy.neighbouring.PrivateCount, optional
        Add/remove neighbours (n private): the row count released earlier in the call. The
        bound and the medians then aim at q times its noisy value, the radii at q times that
        value less ``RADIUS_COUNT_Z`` noise sds, and every public choice (the radii's
        level, whether a search can be read, the warning) reads its lower bound n_lo + 1,
        never n (see Notes). None: replace-one, n = len(scores) public.

    Returns
    -------
    Frame

    Notes
    -----
    Sensitivities (replace-one, n public): steps 1 and 4 release counts #{v_i <= t} of one
    value per row, which change by at most 1 and monotonically (proof in
    :func:`dppca.privacy.quantiles.unbounded_quantile`); step 4's distances use the released centre,
    so it is adaptive composition. Steps 2-3: rank utility of sensitivity 1 on a domain fixed by
    step 1.
    The R package uses the Euclidean radius; the Chebyshev distance is the radius of a square,
    so 99% of the points (up to the noise) lie inside the frame before inflation.

    Add/remove neighbours (``count`` given). Each score is a map of its own row (released
    directions, row-local cleaning), so adding or removing a row adds or removes one score.
    Steps 1 and 4-5: the counts #{v_i <= t} then all rise (or all fall) by at most 1, and the
    target q n_hat, n_hat the released count, is public, so the sparse-vector proof holds
    unchanged (:func:`dppca.privacy.quantiles.unbounded_quantile`, "Add/remove"); the
    distances of step 4 use the released centre, a map of each row alone. Steps 2-3: the
    rank of every grid point moves by at most 1, so the utility -|rank - q n_hat| keeps
    sensitivity 1 (:func:`dppca.privacy.quantiles.private_quantile`). The level and the
    reliability gates are public arithmetic on n_lo + 1 and eps. Each release stays pure
    eps-DP under add/remove neighbours, for every value of the count (no failure event).
    Accuracy: with n_hat = n + e, e ~ N(0, s^2) the count's noise, the bound and the medians
    aim at rank q n + q e instead of q n: their level moves by q e / n (sd q s / n), on top of
    their own rank error (2 / eps_r) ln(#candidates) (:func:`search_rank_error`), which is
    larger whenever s < (2 / eps_r) ln(8,918) / q; e.g. at eps = 1 in dp_score (s about 49,
    the radius search's error about 270 ranks). A radius search whose target lies above the
    data overshoots to the largest distances (a far wider frame on heavy-tailed scores), so the
    radii aim at q (n_hat - z s), z = ``RADIUS_COUNT_Z``: the count's noise lowers their gap
    (1 - q) n below the replace-one one only when e > z s (probability Phi(-z) = 16%), and
    the level reached, q (n_hat - z s) / n (about q (1 - z s / n)), is estimated by
    q (n_hat - z s) / n_hat for the Gaussian stretch (public arithmetic).
    """
    # Row-local cleaning (nan -> 0, +-inf -> +-DBL_MAX): a neighbour whose projected score
    # overflows must not make the frame refuse (a refusal would reveal that row).
    scores = clean_scores(scores)
    inflate = float_arg(inflate, "inflate", nonnegative=True)
    parts = _frame_budget(eps, delta)
    # the searches' target count and the public row number of every gate: n (replace-one),
    # or the released count and its lower bound n_lo + 1 (add/remove, n private)
    target = None if count is None else count.noisy
    rows = len(scores) if count is None else int(count.rows.sensitivity_rows)
    bound = unbounded_quantile(np.abs(scores).max(axis=1), BOUND_QUANTILE, parts["bound"][0], rng,
                               ledger=ledger, step="frame: magnitude bound", count=target)
    domain = (-BOUND_FACTOR * bound, BOUND_FACTOR * bound)
    centre = tuple(private_quantile(scores[:, j], 0.5, parts[name][0], rng, *domain,
                                    ledger=ledger, step=f"frame: {name}", count=target)
                   for j, name in enumerate(("x median", "y median")))
    with np.errstate(over="ignore"):  # silently: a warning would depend on one row
        distances = np.minimum(np.abs(scores - np.asarray(centre)), np.finfo(float).max)
    # public: n (or n_lo + 1) and the budget decide the level and whether searches can be read
    level = frame_level(rows, parts["x radius"][0])
    reliable = level > 0
    if not reliable:
        from ..privacy.accuracy import DPAccuracyWarning, caller_stacklevel

        what = f"n = {rows} scores" if count is None else \
            f"n_lo + 1 = {rows} scores (the released count's public lower bound)"
        warnings.warn(f"private frame: {what} are too few for this budget to "
                      "locate them (the radius searches cannot be read); the frame falls back to "
                      "a public default width. More eps for the plot or more rows would fix it",
                      DPAccuracyWarning, stacklevel=caller_stacklevel())
    # add/remove: the radii aim below the noisy count (RADIUS_COUNT_Z sds), at a public level
    aimed = None if count is None else max(count.noisy - RADIUS_COUNT_Z * count.sigma, 1.0)
    radii = [unbounded_quantile(distances[:, j], level if reliable else FRAME_QUANTILE,
                                parts[f"{axis} radius"][0], rng, ledger=ledger,
                                step=f"frame: radius ({axis})", count=aimed)
             for j, axis in enumerate("xy")]
    reached = level if count is None else level * aimed / max(count.noisy, aimed)
    radii = [r * _gaussian_stretch(reached) for r in radii] if reliable else radii
    bound_read = search_reliable(rows, parts["bound"][0], BOUND_QUANTILE)
    widths = _located_widths(radii if reliable else [0.0, 0.0], bound if bound_read else 0.0,
                             1 + inflate)
    floor = MIN_RELATIVE_HALF_WIDTH * max(1.0, *np.abs(centre))
    return Frame(centre, max(widths[0], floor), bound, max(widths[1], floor))


def cut_to_box(frame: Frame, box) -> Frame:
    """``frame`` cut to a public box of the scores (never wider than the box along either axis).

    Parameters
    ----------
    frame : Frame
        A released frame.
    box : ndarray of shape (2, 2) or None
        [[x_lo, x_hi], [y_lo, y_hi]] that holds every score (e.g. from declared bounds,
        :meth:`dppca.preprocessing.schema.DeclaredInput.score_box`); infinite sides allowed;
        None leaves the frame unchanged.

    Returns
    -------
    Frame
        Each axis is the intersection of the frame and the box; where the noisy frame misses the
        box, the frame's width placed at the box's near side (within the box). Half-widths keep
        the floor 1e-9 max(1, |centre|).

    Notes
    -----
    Privacy: post-processing of the released frame with public bounds and released directions.

    Examples
    --------
    >>> import numpy as np
    >>> cut_to_box(Frame((0.0, 0.0), 10.0, 1.0, 4.0), np.array([[-2.0, 3.0], [-np.inf, np.inf]])).xlim
    (-2.0, 3.0)
    """
    if box is None:
        return frame
    limits = [_cut_axis(lims, side) for lims, side in zip((frame.xlim, frame.ylim), box)]
    centre = tuple((lo + hi) / 2 for lo, hi in limits)
    floor = MIN_RELATIVE_HALF_WIDTH * max(1.0, *np.abs(centre))
    half = [max((hi - lo) / 2, floor) for lo, hi in limits]
    return Frame(centre, half[0], frame.bound, half[1])


def _cut_axis(limits, side) -> tuple:
    (lo, hi), (box_lo, box_hi) = limits, (float(side[0]), float(side[1]))
    cut = (max(lo, box_lo), min(hi, box_hi))
    if cut[0] < cut[1]:
        return cut
    width = hi - lo
    if hi <= box_lo:  # the noisy frame lies below the box
        return box_lo, min(box_hi, box_lo + width)
    return max(box_lo, box_hi - width), box_hi


def _located_widths(radii, bound, inflate) -> list:
    """Half-widths (1 + inflate) R_j; an axis whose search located nothing (stopped at the first
    candidate, or predicted unreadable: 0 here) takes the other axis's, else 2 (1 + inflate) B,
    else the public default ``FRAME_DEFAULT_HALF_WIDTH``."""
    first = UNBOUNDED_GRID[0]
    located = [inflate * r for r in radii if r > first]
    fallback = max(located) if located else (2 * inflate * bound if bound > first
                                             else FRAME_DEFAULT_HALF_WIDTH)
    return [inflate * r if r > first else fallback for r in radii]


def frame_level(m, eps) -> float:
    """The radius searches' quantile level: 0.99, or lower when the search would overshoot into
    the empty candidates above the data. Above the data every count is m, so the search stops
    there unless its threshold noise E_0 ~ Exp(2 / eps) exceeds (1 - q) m: probability
    exp(-eps (1 - q) m / 2), at most 5% at q = 1 - 2 ln(20) / (eps m). Returns 0 when the
    search cannot be read at that level: q m below its rank error (:func:`search_rank_error`,
    the noise that makes it stop early among the thousands of candidates below the data) or
    q < 1/2 (public arithmetic: m, eps)."""
    level = min(FRAME_QUANTILE, 1.0 - 2.0 * math.log(20.0) / (eps * m))
    return level if level >= 0.5 and level * m > search_rank_error(eps) else 0.0


def _gaussian_stretch(level) -> float:
    """z(0.995) / z((1 + level) / 2): a level-quantile radius of |N(0, s^2)| brought to 0.99."""
    from scipy.special import ndtri

    return float(ndtri((1 + FRAME_QUANTILE) / 2) / ndtri((1 + level) / 2))


def search_rank_error(eps) -> float:
    """Typical rank error of :func:`unbounded_quantile` on its default grid at budget ``eps``:
    (2 / eps) ln(#candidates), the largest of the candidates' exponential noises (public)."""
    return 2.0 / eps * math.log(UNBOUNDED_GRID.size)


def search_reliable(m, eps, q=FRAME_QUANTILE) -> bool:
    """Whether a q-quantile search on m values at budget eps is expected to get past the
    candidates below the data: the rank it aims at, q m, exceeds the search's rank error
    (public arithmetic: m, eps)."""
    return q * m > search_rank_error(eps)


def frame_accuracy(n, eps, delta, *, calibration="analytic"):
    """Predicted reliability of :func:`private_frame` on n scores at the frame's (eps, delta).

    The radius searches (share ``FRAME_SHARES["x radius"]`` of eps each) may stop early by
    about e = (2 / eps_r) ln(#candidates) ranks; they aim at the level q of
    :func:`frame_level` (0.99, lower at small eps n) and are stretched to 0.99 as for Gaussian
    scores. When no level can be read the frame falls back to the bound or
    ``FRAME_DEFAULT_HALF_WIDTH`` and the step is unreliable (threshold 0).

    Parameters
    ----------
    n : int
        Number of scores (public).
    eps, delta : float
        The frame's budget (delta only moves the medians, not this prediction).
    calibration : str
        Accepted for a uniform signature (the frame's releases are pure DP).

    Returns
    -------
    dppca.privacy.accuracy.StepAccuracy
        ``predicted`` = e / (q n), threshold 1 (0 when no level can be read).

    Notes
    -----
    Public arithmetic only: the same for neighbouring data sets.

    Examples
    --------
    >>> from dppca.estimators.frame import frame_accuracy
    >>> frame_accuracy(5000, 1 / 3, 1e-5).reliable, frame_accuracy(150, 0.5 / 3, 1e-5).reliable
    (True, False)
    """
    from ..privacy.accuracy import StepAccuracy

    eps_r = FRAME_SHARES["x radius"] * float(eps)
    level = frame_level(int(n), eps_r)
    predicted = search_rank_error(eps_r) / (max(level, 0.5) * int(n))
    return StepAccuracy("frame", "rank error of the radius search / rank aimed at", predicted,
                        "relative", 1.0 if level else 0.0, "scores of n rows; pure-DP sparse-vector search on a "
                        "geometric grid (ratio 1.01, 2^-64 .. 2^64)",
                        "more eps for the plot, more rows, or declared bounds")


def _frame_budget(eps, delta) -> dict:
    parts = split_budget(eps, delta, FRAME_SHARES)
    return {name: (e, 0.0) for name, (e, _) in parts.items()}  # all pure DP: no delta spent

__all__ = ["Frame", "frame_accuracy", "private_frame", "search_rank_error", "search_reliable"]
