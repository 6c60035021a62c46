"""Where a column's |paired differences| end: the final clip of the private scales for columns whose
shape the Gaussian model does not fit (binary and few-valued codes), read from the released
octave histograms (post-processing).

:func:`dppca.preprocessing.scales.private_column_scales` reads the final clipped moment at
C = 1.37 SD_D and corrects it for the part of |D| above C with the Gaussian r(c). For a two-point
|D| (a binary column: D in {0, +-delta}) or a code with a few values the Gaussian correction is
wrong (a binary column's scale came out 1.1-1.3x its SD with the noise off). A clip at or above
every |D| needs no correction: E min(D^2, C^2) = E D^2, so SD_D = C sqrt(v), whatever the shape.
:func:`bulk_edges` says, per column, whether the released histogram puts the bulk of |D| below an
octave edge 2^e, and whether that clip is affordable.
"""
from __future__ import annotations

import numpy as np

from .scale_releases import SCALE_OCTAVES

#: A histogram bin is "seen" when its released count is at least this many noise sd (searched
#: only within ``SCALE_EDGE_WINDOW`` octaves of the column's located scale: 2 x 4 + 1 bins, so a
#: column with nothing there has a bin seen by noise with probability 9 x 2.3e-4 = 0.2%).
SCALE_EDGE_SEEN_SD = 3.5
SCALE_EDGE_WINDOW = 4
#: The edge clip is used when the counts it may have missed (each bin above the edge holds less
#: than ``SCALE_EDGE_SEEN_SD`` noise sd; the next octave's |D| < 2 C add at most 3 C^2 each) can
#: bias the second moment by at most this fraction ...
SCALE_EDGE_BIAS = 0.02
#: ... or when the histogram fits a two-point |D| (all non-zero counts in one octave: a binary
#: column) better than any zero-inflated Gaussian by at least this many nats (log 100; the two
#: models have two parameters each). Measured (40 seeds, n = 442 and 5000, eps = 1, 4, 16, 64, p =
#: 10): Gaussian columns, with or without half zeros, got the edge clip once in 1,680 reads
#: (eps = 1, n = 442); binary columns got it in 48%-100% of the reads at eps >= 4.
SCALE_TWO_POINT_NATS = float(np.log(100.0))
#: And in either case only when the edge reading's predicted relative noise of SD_D,
#: sd_v / (2 v) with v = (SD_D / C)^2, is at most the Gaussian reading's at c* plus this ...
SCALE_EDGE_SLACK = 0.02
#: ... or plus this for a two-point column, whose Gaussian reading is biased by about as much
#: (1.1x-1.3x the SD with the noise off: a rare binary's edge reading is noisy, but less wrong).
SCALE_TWO_POINT_SLACK = 0.1


def bulk_edges(release, centre, sd_diff, sd_final, gaussian_noise) -> np.ndarray:
    """Per column, the octave edge C = 2^e above the bulk of |D|, or NaN (use the Gaussian clip).

    Parameters
    ----------
    release : dict
        Release 1 as :func:`dppca.preprocessing.scale_releases.octave_loglik` returns it: noisy
        counts (p, width), their sd, the number of pairs m (public) and the best zero-inflated
        Gaussian fit's log-likelihood (p,).
    centre : ndarray, shape (p,)
        The log2 of each column's located scale (posterior median after the histograms and pilot).
    sd_diff : ndarray, shape (p,)
        The SD of the differences so far (posterior), data units.
    sd_final : float
        Noise sd of the final moment's rung 0 (public).
    gaussian_noise : float
        Relative noise of SD_D read at the Gaussian clip c* (public: sd_final / (r(c*) E(c*))).

    Returns
    -------
    ndarray, shape (p,)
        C_j (data units) where (i) a bin within ``SCALE_EDGE_WINDOW`` octaves of ``centre`` is
        seen (>= ``SCALE_EDGE_SEEN_SD`` sd) and C_j is the upper edge of the highest one, (ii) the
        missed counts above it bound the bias of E D^2 by ``SCALE_EDGE_BIAS`` or the histogram is
        two-point by ``SCALE_TWO_POINT_NATS``, and (iii) the reading C sqrt(v) is at most
        ``SCALE_EDGE_SLACK`` (two-point: ``SCALE_TWO_POINT_SLACK``) noisier than the Gaussian
        one; NaN elsewhere.

    Notes
    -----
    Post-processing of released counts and public numbers (m, sigma): no privacy cost. With the
    noise off every column is bounded by its largest |D| and the edge reading is the block
    design's unclipped mean of D^2 (the sample variance up to the design's sampling noise).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.zeros((1, 130)); counts[0, 0], counts[0, 62] = 50.0, 50.0  # |D| in [2^-3, 2^-2)
    >>> release = {"counts": counts, "sd": 1e-6, "pairs": 100, "gauss_fit": np.array([0.0])}
    >>> float(bulk_edges(release, np.array([-3.0]), np.array([0.15]), 1e-6, 2e-6)[0])
    0.25
    """
    counts, sigma = np.asarray(release["counts"], float), float(release["sd"])
    low = SCALE_OCTAVES[0]
    bins = np.arange(counts.shape[1])  # bin i >= 1 is the octave [2^(low + i - 1), 2^(low + i))
    lower = low + bins - 1.0
    near = (bins[None, :] >= 1) & (np.abs(lower[None, :] - np.floor(centre)[:, None]) <= SCALE_EDGE_WINDOW)
    seen = near & (counts >= SCALE_EDGE_SEEN_SD * sigma)
    top = np.where(seen.any(axis=1), counts.shape[1] - 1 - np.argmax(seen[:, ::-1], axis=1), 0)
    edge = np.exp2(low + top.astype(float))
    pairs = max(float(release["pairs"]), 1.0)
    v = np.minimum((sd_diff / edge) ** 2, 1.0)
    bias = 3.0 * SCALE_EDGE_SEEN_SD * sigma / (pairs * v)
    single = np.maximum(counts[np.arange(counts.shape[0]), top], 0.0) ** 2 / (2 * sigma ** 2)
    two_point = single - np.asarray(release["gauss_fit"], float) >= SCALE_TWO_POINT_NATS
    noise = sd_final / (2 * v)
    use = (top > 0) & (((bias <= SCALE_EDGE_BIAS) & (noise <= gaussian_noise + SCALE_EDGE_SLACK))
                       | (two_point & (noise <= gaussian_noise + SCALE_TWO_POINT_SLACK)))
    return np.where(use, edge, np.nan)


__all__ = ["bulk_edges"]
