"""Private tuning steps of the scree and trace estimators: rough centres and R's m2 histograms.

Each step is a Gaussian (or, for R's m2, Laplace) release of counts whose sensitivity is
proved in its Notes; counts are exact integers, so their sensitivities hold in floating point
as stated.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import as_columns as _as_columns
from ..privacy import Ledger, laplace_mechanism
from ..privacy.composition import GaussianShare


def dp_log2_centre(values, noise: GaussianShare, rng, *, ledger: Ledger | None = None,
                   step="log2 histogram") -> float:
    """Private rough centre of the bulk of positive ``values``, with no reference scale.

    Counts in the log2 bins [2^b, 2^(b+1)), b = -64..63 (every double a dataset is likely to
    hold; non-positive values are not counted) are released with Gaussian noise. The window of
    ``LOG2_CENTRE_WINDOW`` adjacent bins with the largest noisy total is taken (a window holds
    the bulk even of spread-out data such as chi2_1, while its noise grows only like the root of
    its width), and the result is 2^c, c the mean bin midpoint inside it weighted by the positive
    noisy counts. Good to a factor of a few: used to anchor finer steps.

    Notes
    -----
    Privacy: a replaced row changes one value, hence at most two counts by 1: L2 sensitivity
    sqrt(2); Gaussian mechanism on all bins; the rest is post-processing.
    """
    low, high = LOG2_CENTRE_RANGE
    noisy, _ = noise.release(log2_counts(values), math.sqrt(2.0), rng, ledger, step)
    width = LOG2_CENTRE_WINDOW
    start = int(np.argmax(np.convolve(noisy, np.ones(width), mode="valid")))
    window = np.arange(start, start + width)
    weights = np.maximum(noisy[window], 0.0)
    centre = np.average(window + 0.5, weights=weights) if weights.sum() > 0 else start + width / 2
    return float(2.0 ** (low + centre))


def log2_counts(values) -> np.ndarray:
    """Pre-noise statistic of :func:`dp_log2_centre`: counts of the values in its log2 bins."""
    values = np.asarray(values, float)
    low, high = LOG2_CENTRE_RANGE
    return np.histogram(values[values > 0], bins=2.0 ** np.arange(low, high + 1))[0]


#: Bins of :func:`dp_log2_centre`: [2^b, 2^(b+1)) for b in [-64, 64), and its window (2^5 = 32x).
LOG2_CENTRE_RANGE = (-64, 64)
LOG2_CENTRE_WINDOW = 5


def dp_m2_histogram(w, k_min, k_max, blocks, eps, rng, *, ledger: Ledger | None = None,
                    step="scree tuning: Huber m2 histograms") -> np.ndarray:
    """The R package's private scale proxy m2 (``dp_m2``), with the replace-one noise fixed.

    Per column: s_j = (w_{2j-1} - w_{2j})^2 / 2 for j = 1..floor(m/2); the medians u_b of M
    consecutive blocks of the s_j (the last block takes the remainder); counts of
    clamp(floor(log2 u_b); k_min, k_max) over the bins k_min..k_max (u_b = 0 goes to k_min);
    Laplace noise on every count; m2 = 2^(first bin with the largest noisy count).

    Parameters
    ----------
    w : ndarray, shape (m, k)
        Disjoint-pair values, m >= 4.
    k_min, k_max : int
        Public log2 bin range, k_min < k_max.
    blocks : int
        Number of blocks M >= 1 (capped at floor(m/2)).
    eps : float
        Budget of the k histograms together (pure eps-DP).
    rng, ledger, step
        As in :func:`dp_clipped_mean`.

    Returns
    -------
    ndarray, shape (k,)

    Notes
    -----
    Privacy: a replaced row changes one w per column, hence one s_j, one block median and
    at most two counts (one down, one up): L1 sensitivity 2 per column and 2k for the k
    histograms, so Laplace noise of scale 2k/eps makes them eps-DP. (The R package adds
    Laplace(1/eps) per histogram, which is 2 eps-DP under replace-one, §15.1 item 4.)
    """
    counts = m2_counts(w, k_min, k_max, blocks)
    noisy, _ = laplace_mechanism(counts, 2.0 * counts.shape[0], eps, rng, ledger=ledger, step=step,
                                 norm="L1")
    return 2.0 ** (k_min + np.argmax(noisy, axis=1))


def m2_counts(w, k_min, k_max, blocks) -> np.ndarray:
    """Counts (k, k_max - k_min + 1) of the log2 bins of the block medians (see :func:`dp_m2_histogram`)."""
    w = _as_columns(w)
    m, k = w.shape
    pairs = m // 2
    with np.errstate(over="ignore", invalid="ignore"):  # no warning may depend on private data
        s = (w[0:2 * pairs:2] - w[1:2 * pairs:2]) ** 2 / 2
    blocks = min(int(blocks), pairs)
    size = pairs // blocks
    starts = np.arange(blocks) * size
    stops = np.append(starts[1:], pairs)
    medians = np.stack([np.median(s[a:b], axis=0) for a, b in zip(starts, stops)])
    positive = np.where(medians > 0, medians, 1.0)
    bins = np.where(medians > 0, np.floor(np.log2(positive)), k_min)
    bins = np.clip(bins, k_min, k_max).astype(int) - k_min
    return np.stack([np.bincount(bins[:, j], minlength=k_max - k_min + 1) for j in range(k)])


def tau_from_m2(m2, eps, n) -> np.ndarray:
    """Huber threshold tau = sqrt(m2) sqrt(eps n / D), D = sqrt((1 + ln n) ln n) (R's ``tau_from_m2``).

    The theoretical tau ~ sqrt(m2) (eps n / sqrt((d + ln n) ln n))^(1/2) of Yu, Ren and Zhou
    (2024) with d = 1; post-processing of m2.
    """
    log_n = math.log(n)
    scale = math.sqrt((1 + log_n) * log_n) if n > 2 else 1.0
    return np.sqrt(np.maximum(np.asarray(m2, float), 0.0)) * math.sqrt(eps * n / scale)

__all__ = ["dp_log2_centre", "dp_m2_histogram", "log2_counts", "m2_counts",
           "tau_from_m2"]
