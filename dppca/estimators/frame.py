"""The private plotting frame of :func:`dppca.dp_score`: a square around the private
coordinate-wise median of the 2-D scores, with a private radius (reference r-dppca-score.md §3).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import float_arg
from ..privacy import Ledger, split_budget
from ..privacy.quantiles import unbounded_quantile
from ..privacy.smooth import smooth_sensitivity_quantile
from ..stats.pair_statistics import clean_scores

#: Level of the magnitude bound; the medians' domain is [-2 B, 2 B].
BOUND_QUANTILE, BOUND_FACTOR = 0.9, 2.0


#: Level of the radius quantile and the inflation of the frame (as in R).
FRAME_QUANTILE, FRAME_INFLATE = 0.99, 0.20
#: Shares of the frame budget: a magnitude bound (the median's domain), the two medians, the radius.
FRAME_SHARES = {"bound": 0.1, "x median": 0.3, "y median": 0.3, "radius": 0.3}


#: Smallest half-width relative to max(1, |centre|), so the breaks stay distinct in floating point.
MIN_RELATIVE_HALF_WIDTH = 1e-9


@dataclass(frozen=True)
class Frame:
    """A square plotting frame, in the coordinates of the scores it was built from.

    Attributes
    ----------
    centre : (float, float)
        Private centre (c1, c2): smooth-sensitivity medians of the two score columns.
    half_width : float
        (1 + inflate) times the private 0.99-quantile of the Chebyshev distances to the centre.
    bound : float
        The private magnitude bound B; the medians were computed on the domain [-2B, 2B].
    """

    centre: tuple
    half_width: float
    bound: float

    @property
    def xlim(self) -> tuple:
        return (self.centre[0] - self.half_width, self.centre[0] + self.half_width)

    @property
    def ylim(self) -> tuple:
        return (self.centre[1] - self.half_width, self.centre[1] + self.half_width)


def private_frame(scores, eps, delta, rng, *, ledger: Ledger | None = None,
                  inflate: float = FRAME_INFLATE) -> Frame:
    """(eps, delta)-DP square frame [c1 +/- h] x [c2 +/- h] around the bulk of 2-D scores.

    Four releases (basic composition, shares ``FRAME_SHARES`` of eps; delta split over the
    two medians):

    1. B = unbounded 0.9-quantile of max(|s_i1|, |s_i2|) (pure DP, :func:`unbounded_quantile`);
       it fixes the medians' public domain [-2B, 2B] (|median(s_j)| <= median(|s_j|) <= B
       up to the noise, so the factor 2 leaves room).
    2-3. c_j = smooth-sensitivity median of column j on that domain
       (:func:`dppca.privacy.smooth.smooth_sensitivity_quantile`, beta = eps/(2 ln(2/delta))).
    4. R = unbounded 0.99-quantile of the Chebyshev distances max_j |s_ij - c_j| (pure DP);
       h = (1 + inflate) R, at least 1e-9 max(1, |c|) (post-processing).

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

    Returns
    -------
    Frame

    Notes
    -----
    Sensitivities (replace-one, n public): steps 1 and 4 release counts #{v_i <= t} of one
    value per row, which change by at most 1 and monotonically (proof in
    :func:`dppca.privacy.quantiles.unbounded_quantile`); step 4's distances use the released centre,
    so it is adaptive composition. Steps 2-3: smooth sensitivity on a domain fixed by step 1.
    The R package uses the Euclidean radius; the Chebyshev distance is the radius of a square,
    so 99% of the points (up to the noise) lie inside the frame before inflation.
    """
    # Row-local cleaning (nan -> 0, +-inf -> +-DBL_MAX): a neighbour whose projected score
    # overflows must not make the frame refuse (a refusal would reveal that row).
    scores = clean_scores(scores)
    inflate = float_arg(inflate, "inflate", nonnegative=True)
    parts = _frame_budget(eps, delta)
    bound = unbounded_quantile(np.abs(scores).max(axis=1), BOUND_QUANTILE, parts["bound"][0], rng,
                               ledger=ledger, step="frame: magnitude bound")
    domain = (-BOUND_FACTOR * bound, BOUND_FACTOR * bound)
    centre = tuple(smooth_sensitivity_quantile(scores[:, j], 0.5, *parts[name], rng, *domain,
                                               ledger=ledger, step=f"frame: {name}")
                   for j, name in enumerate(("x median", "y median")))
    with np.errstate(over="ignore"):  # silently: a warning would depend on one row
        distances = np.minimum(np.abs(scores - np.asarray(centre)).max(axis=1), np.finfo(float).max)
    radius = unbounded_quantile(distances, FRAME_QUANTILE, parts["radius"][0], rng, ledger=ledger,
                                step="frame: radius")
    floor = MIN_RELATIVE_HALF_WIDTH * max(1.0, *np.abs(centre))
    return Frame(centre, max((1 + inflate) * radius, floor), bound)


def _frame_budget(eps, delta) -> dict:
    parts = split_budget(eps, delta, FRAME_SHARES)
    # Only the medians spend delta: half each.
    return {name: (e, delta / 2 if "median" in name else 0.0) for name, (e, _) in parts.items()}

__all__ = ["Frame", "private_frame"]
