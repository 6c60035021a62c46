"""Private quantiles of many columns from one joint noisy histogram (Gaussian mechanism).

The counts of each column of a (m, k) array in public bins are released together with
Gaussian noise: a replaced row moves one value per column, so each column's counts change by
1 in at most two bins and the k histograms by at most sqrt(2 k) in L2. Quantiles read off the
noisy cumulative counts are post-processing. The single-column quantile searches (exponential
mechanism, sparse vector) live in :mod:`dppca.privacy.quantiles`, which re-exports these names.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import as_columns
from .budget import Ledger
from .composition import GaussianShare


def dp_histogram_quantiles(w, edges, levels, noise: GaussianShare, rng, *,
                           ledger: Ledger | None = None,
                           step="scree tuning: quantile histograms") -> np.ndarray:
    """Private quantiles of each column of ``w`` from one joint noisy histogram.

    Counts of each column in the bins [e_0, e_1), ..., [e_{B-1}, e_B] (values outside are put
    in the end bins) are released jointly with Gaussian noise. Each column's noisy cumulative
    counts (noisy counts below ``HISTOGRAM_THRESHOLD_SD`` noise sd set to 0 first, so empty bins
    carry no phantom mass) are made non-decreasing by a running maximum and divided by the noisy
    total, and each quantile is read off by linear interpolation.

    Parameters
    ----------
    w : ndarray, shape (m, k)
    edges : ndarray, shape (B + 1,)
        Public increasing bin edges (finite).
    levels : sequence of float in (0, 1)
    noise, rng, ledger, step
        As in :func:`dppca.estimators.pair_means.dp_clipped_mean`.

    Returns
    -------
    ndarray, shape (k, len(levels))

    Notes
    -----
    Privacy: a replaced row changes one value per column, so each column's counts change in
    at most two bins by 1: L2 sensitivity sqrt(2 k) for the k histograms; Gaussian mechanism,
    the quantiles are post-processing. Unlike k x 2 separate quantile searches (R's PMWM), the
    noise grows like sqrt(k), not k. A quantile near the top is read from the few bins above
    it, so its rank error is about sigma sqrt(bins above).
    """
    noisy, sigma = dp_histogram_counts(w, edges, noise, rng, ledger=ledger, step=step)
    kept = np.where(noisy > HISTOGRAM_THRESHOLD_SD * sigma, noisy, 0.0)
    return np.stack([histogram_quantiles(row, edges, levels) for row in kept])


def dp_histogram_counts(w, edges, noise: GaussianShare, rng, *, ledger: Ledger | None = None,
                        step="histogram counts") -> tuple:
    """Noisy counts of each column of ``w`` in public bins, released jointly (Gaussian mechanism).

    Parameters
    ----------
    w : ndarray, shape (m, k)
        Values; one row of the data moves at most one value per column (e.g. disjoint-pair values).
    edges : ndarray, shape (B + 1,)
        Public increasing bin edges; values below ``edges[0]`` or above ``edges[-1]`` (and nan)
        are counted in the end bins, as in :func:`histogram_counts`.
    noise : dppca.privacy.composition.GaussianShare
        Budget of this release.
    rng : numpy.random.Generator
    ledger : Ledger, optional
    step : str
        Ledger label.

    Returns
    -------
    (noisy, sigma) : ndarray of shape (k, B), float
        The noisy counts (not clipped, not rounded) and the noise sd in counts.

    Raises
    ------
    DPPCAValueError
        If ``w`` is not a numeric 1-d or 2-d array (from the column conversion).

    Notes
    -----
    Privacy (replace-one, m and the bins public): a replaced row changes one value of each
    column, which leaves one bin and enters one bin, so each column's count vector moves by at
    most 1 in two entries and the k histograms by at most sqrt(2 k) in L2. Bin membership is a
    function of each value alone (a search in the public edges) and counts are exact integers,
    so the bound holds in floating point as stated. Gaussian mechanism with that sensitivity.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.composition import GaussianGroup
    >>> w = np.arange(1.0, 101.0)
    >>> noisy, sigma = dp_histogram_counts(w, [0, 50, 101], GaussianGroup(1.0, 1e-5).share(1.0),
    ...                                    np.random.default_rng(0))
    >>> noisy.shape, bool(abs(noisy.sum() - 100) < 10 * sigma)
    ((1, 2), True)
    """
    counts = histogram_counts(w, edges)
    return noise.release(counts, math.sqrt(2.0 * counts.shape[0]), rng, ledger, step)


def histogram_counts(w, edges) -> np.ndarray:
    """Pre-noise statistic of :func:`dp_histogram_quantiles`: counts (k, B), end bins take the rest."""
    w = as_columns(w)
    edges = np.asarray(edges, float)
    bins = np.clip(np.searchsorted(edges, w, side="right") - 1, 0, edges.size - 2)
    return np.stack([np.bincount(bins[:, j], minlength=edges.size - 1) for j in range(w.shape[1])])


#: Noisy counts below this many noise sd are set to 0 before reading quantiles: empty bins
#: above the data would otherwise carry phantom mass (~0.4 sd each) into the upper tail.
HISTOGRAM_THRESHOLD_SD = 2.0


def histogram_quantiles(counts, edges, levels) -> np.ndarray:
    cumulative = np.maximum.accumulate(np.concatenate(([0.0], np.cumsum(counts))))
    total = cumulative[-1]
    if not total > 0:
        return np.full(len(levels), edges[-1])  # no signal: the widest choice
    cdf = np.minimum(np.maximum(cumulative, 0.0) / total, 1.0)
    # side="left": the first edge at which the CDF reaches q, interpolated inside its bin.
    index = np.clip(np.searchsorted(cdf, levels, side="left"), 1, edges.size - 1)
    low, high = cdf[index - 1], cdf[index]
    fraction = np.divide(np.asarray(levels) - low, high - low, out=np.ones(len(levels)),
                         where=high > low)
    return edges[index - 1] + np.clip(fraction, 0.0, 1.0) * (edges[index] - edges[index - 1])


__all__ = ["HISTOGRAM_THRESHOLD_SD", "dp_histogram_counts", "dp_histogram_quantiles", "histogram_quantiles",
           "histogram_counts"]
