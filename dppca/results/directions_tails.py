"""The honest note of the raw and standardized paths: released evidence of heavy tails or skew.

g-DPPCA estimates the eigenvectors of the spatial (multivariate) Kendall's tau matrix, which are
the covariance's principal directions only under elliptical symmetry (Marden 1999; Han & Liu
2018, Thm 2.2). On skewed or heavy-tailed data covariance PCA is itself dominated by the tails of
a few columns, the Kendall directions may differ from it, and the clipped variances along them
estimate clipped quantities. When the released numbers of a call show such tails, its summary
says so and names the path with a well-defined target there (``standardize="rank"``: the latent
Gaussian-copula correlation, unchanged by increasing transforms of any column). Every test here
reads released values and public constants only (post-processing); nothing reads the data.
"""
from __future__ import annotations

import numpy as np

#: A component's scores are heavy-tailed when their pair values u = (v'(x_a - x_b))^2 / 2 spread
#: from their median to their 95% quantile over at least this many octaves. For Gaussian scores
#: u ~ lambda chi2_1, whose q95 / q50 = 3.84 / 0.455 = 8.4 (3.1 octaves), read in octave bins
#: as 3 or 4 bins apart; 5 or more is a tail at least 2x heavier in u than the Gaussian's
#: beyond the binning (measured: no Gaussian run of 64 at n = 300-4000, eps 1-4 reads 5).
TAIL_OCTAVES = 5
#: Quantiles of the released counts read only bins whose noisy count is at least this many
#: noise sd (pure noise passes it in 2.3% of bins) ...
TAIL_BIN_Z = 2.0
#: ... and only when those bins hold at least this many noise sd in all (else the histogram
#: is noise-dominated and says nothing about the shape).
TAIL_MASS_Z = 40.0

#: The step of :func:`dppca.scree_directions.kendall_order_accuracy` (its row in the summary).
KENDALL_ORDER_STEP = "directions vs covariance (post-release)"

#: The note, after the list of the evidence that triggered it.
HEAVY_TAIL_NOTE = (
    "Heavy tails or skew in the released numbers ({evidence}). Covariance PCA is then dominated "
    "by a few columns' tails; the Kendall directions estimated here may differ from it, and the "
    "clipped variances estimate clipped quantities. standardize=\"rank\" estimates a "
    "well-defined target on such data: PCA of the latent Gaussian-copula correlation (Han & Liu "
    "2012), unchanged by increasing transforms of any column.")


def scree_tail_evidence(counts, sigma, steps) -> list:
    """Which released numbers of a scree call show heavy tails or skew (post-processing).

    Parameters
    ----------
    counts : array_like of shape (k, B), or None
        The noisy counts of the clipped method's clip histograms, octave bins of the pair
        values u (:func:`dppca.estimators.clip_choice.clip_edges`; None without one).
    sigma : float
        Their noise sd (public).
    steps : iterable of StepAccuracy
        The call's accuracy rows; a failed :data:`KENDALL_ORDER_STEP` row counts.

    Returns
    -------
    list of str
        Short descriptions of the evidence, empty when there is none.

    Notes
    -----
    Two released facts, each impossible beyond its noise for Gaussian data: a component's clip
    histogram (octave bins of the pair values u) spreads from its median to its 95% quantile
    over ``TAIL_OCTAVES`` octaves or more (Gaussian scores: 3.1, read as 3 or 4), read from the bins with at
    least ``TAIL_BIN_Z`` noise sd in the run around the mode (gaps of one bin) when they hold
    ``TAIL_MASS_Z`` noise sd in all; the released variances invert the
    Kendall spectrum's order by more than 10x beyond their noise (elliptical data keep both
    orders). Privacy: released values and public constants only; the note leaks nothing beyond
    them.

    Examples
    --------
    >>> import numpy as np
    >>> gauss = [2, 5, 10, 20, 40, 80, 150, 250, 330, 250, 60, 2, 0, 0, 0, 0]  # chi2_1's shape
    >>> heavy = [2, 5, 10, 20, 40, 80, 150, 250, 330, 250, 60, 60, 60, 60, 60, 60]
    >>> scree_tail_evidence(np.array([gauss, heavy]), 5.0, [])
    ["PC2's clip histogram spans 6 octaves from its median to its 95% quantile (Gaussian: 3)"]
    """
    evidence = []
    if counts is not None and np.isfinite(sigma):
        counts = np.atleast_2d(np.asarray(counts, float))
        for j in range(counts.shape[0]):
            spread = _octave_spread(counts[j], sigma)
            if spread >= TAIL_OCTAVES:
                evidence.append(f"PC{j + 1}'s clip histogram spans {spread} octaves from its "
                                "median to its 95% quantile (Gaussian: 3)")
    if any(s.step == KENDALL_ORDER_STEP and not s.reliable for s in steps):
        evidence.append("the released variances invert the Kendall spectrum's order")
    return evidence


def _octave_spread(counts, sigma) -> int:
    """Bins (octaves) from the median to the 95% quantile of the significant noisy counts of the
    run of bins around the mode (a gap of at most one bin: a tail is contiguous, and an isolated
    noise bin far off would move the quantile); 0 when they hold too little mass to read a
    shape."""
    significant = counts >= TAIL_BIN_Z * sigma
    if not significant.any():
        return 0
    mode = int(np.argmax(counts))
    low = high = mode
    while high + 1 < counts.size and significant[high + 1:high + 3].any():
        high += 1
    while low > 0 and significant[max(low - 2, 0):low].any():
        low -= 1
    kept = np.zeros_like(counts, dtype=float)
    kept[low:high + 1] = np.where(significant[low:high + 1], counts[low:high + 1], 0.0)
    if kept.sum() < TAIL_MASS_Z * sigma:
        return 0
    cumulative = np.cumsum(kept) / kept.sum()
    return int(np.searchsorted(cumulative, 0.95) - np.searchsorted(cumulative, 0.5))


def heavy_tail_note(evidence) -> list:
    """The summary note for ``evidence`` (a list with one note), or [] when there is none.

    Parameters
    ----------
    evidence : list of str
        From :func:`scree_tail_evidence`.

    Returns
    -------
    list of str

    Examples
    --------
    >>> heavy_tail_note([])
    []
    >>> heavy_tail_note(["x"])[0].startswith("Heavy tails or skew in the released numbers (x)")
    True
    """
    return [HEAVY_TAIL_NOTE.format(evidence="; ".join(evidence))] if evidence else []


__all__ = ["HEAVY_TAIL_NOTE", "KENDALL_ORDER_STEP", "TAIL_BIN_Z", "TAIL_MASS_Z", "TAIL_OCTAVES", "heavy_tail_note",
           "scree_tail_evidence"]
