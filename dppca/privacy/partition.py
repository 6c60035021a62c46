"""Differentially private partition selection: which labels of the data may be released.

When the set of labels (groups, categories, keys) is not declared public, the labels present
in the data are themselves private: a label held by one row appears or disappears with that
row. Partition selection releases a subset of them with (eps, delta)-DP (Korolova et al. 2009;
Desfontaines, Voss, Gipson & Mandayam 2022, "Differentially private partition selection",
PoPETs 2022(1)); this module implements the thresholded noisy count of Google's differential
privacy library (``LaplacePartitionSelection``).
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError, delta_arg, eps_arg, int_arg
from .budget import Ledger
from .samplers import add_laplace_noise

__all__ = ["partition_selection_threshold", "select_partitions", "selection_probability"]

#: Relative slack added to the threshold so that rounding in log, multiply and add can only
#: raise it (a few ulps; a higher threshold only lowers the delta actually spent).
_THRESHOLD_ULPS = 8 * np.finfo(float).eps


def partition_selection_threshold(eps: float, delta: float, max_partitions: int = 2) -> tuple:
    """Laplace scale and count threshold of the thresholded noisy-count partition selection.

    Parameters
    ----------
    eps : float
        Budget of the selection, > 0.
    delta : float
        Budget of the selection, in (0, 1).
    max_partitions : int
        Delta_0: the number of partitions whose count one neighbouring change can touch, each by
        at most 1 (2 under replace-one: the old label loses the row, the new one gains it; 1
        under add/remove-one).

    Returns
    -------
    scale : float
        The Laplace scale b = Delta_0 / eps, in counts.
    threshold : float
        The count threshold tau = 1 + b ln(Delta_0 / (2 delta)), in counts, rounded up.

    Raises
    ------
    DPPCAValueError
        eps <= 0, delta outside (0, 1), max_partitions < 1.

    See Also
    --------
    select_partitions : The selection these numbers calibrate.
    selection_probability : How likely a partition of a given size is released.

    Examples
    --------
    >>> from dppca.privacy import partition_selection_threshold
    >>> scale, threshold = partition_selection_threshold(1.0, 1e-6)
    >>> round(scale, 3), round(threshold, 2)
    (2.0, 28.63)
    """
    eps, delta = eps_arg(eps), delta_arg(delta)
    k = int_arg(max_partitions, "max_partitions", lower=1)
    scale = k / eps
    return scale, _threshold(scale, k, delta)


def _threshold(scale: float, k: int, delta: float) -> float:
    """tau = 1 + b ln(k / (2 delta)) for the Laplace scale b actually drawn, rounded up."""
    return float((1.0 + scale * max(math.log(k / (2.0 * delta)), 0.0)) * (1.0 + _THRESHOLD_ULPS))


def selection_probability(count, eps: float, delta: float, max_partitions: int = 2) -> np.ndarray:
    """Exact probability that a partition holding ``count`` rows is released, P(count + Z >= tau).

    Z ~ Laplace(0, b); a partition with count 0 is never released (it is not in the data).
    Used by the tests and to say in a summary how large a group must be to be seen reliably.

    Parameters
    ----------
    count : int or array_like of int, >= 0
        Number of rows of the partition (or of each partition).
    eps : float
        Budget of the selection, > 0.
    delta : float
        Budget of the selection, in (0, 1).
    max_partitions : int
        Delta_0, see :func:`partition_selection_threshold`.

    Returns
    -------
    ndarray of float
        The release probability of each count, the shape of ``count``.

    See Also
    --------
    select_partitions : The selection.
    partition_selection_threshold : Its scale and threshold.

    Examples
    --------
    >>> from dppca.privacy import selection_probability
    >>> float(selection_probability(1, 1.0, 1e-6)) <= 1e-6 / 2  # a lone row: at most delta / 2
    True
    >>> selection_probability([30, 60], 1.0, 1e-6).round(3).tolist()
    [0.748, 1.0]
    """
    scale, threshold = partition_selection_threshold(eps, delta, max_partitions)
    count = np.asarray(count, dtype=float)
    gap = threshold - count
    below = 0.5 * np.exp(-np.abs(gap) / scale)
    prob = np.where(gap > 0, below, 1.0 - below)
    return np.where(count > 0, prob, 0.0)


def select_partitions(counts, eps: float, delta: float, rng: np.random.Generator, *,
                      max_partitions: int = 2, ledger: Ledger | None = None,
                      step: str = "groups: partition selection", dimension: int | None = None) -> np.ndarray:
    """Release which partitions to keep: those with count + Laplace(b) >= tau (and count >= 1).

    Parameters
    ----------
    counts : array_like of int, shape (m,)
        Exact number of rows of each partition present in the data (each >= 1; a partition
        absent from the data is not passed). Their order must not depend on the data beyond
        the labels themselves (e.g. sorted labels).
    eps : float
        Budget of the selection, > 0.
    delta : float
        Budget of the selection, in (0, 1).
    rng : numpy.random.Generator
        Source of the Laplace noise (drawn through :mod:`dppca.privacy.samplers`).
    max_partitions : int
        Delta_0, see :func:`partition_selection_threshold` (2 for replace-one, the package's
        neighbouring relation).
    ledger : Ledger, optional
        Where the release is recorded (sensitivity Delta_0 in L1 of the count vector).
    step : str
        Ledger label.
    dimension : int, optional
        Public bound on the number of partitions with rows (e.g. n), for the exact sampler's
        slack; default the length of ``counts`` (then a public number).

    Returns
    -------
    ndarray of bool, shape (m,)
        True for the partitions released. Only this mask is released (the noisy counts stay
        inside the mechanism).

    Raises
    ------
    DPPCAValueError
        A negative or non-integer count; budget errors as in :func:`partition_selection_threshold`.

    See Also
    --------
    partition_selection_threshold : The scale and threshold used.
    selection_probability : The exact release probability of a partition.
    dppca.dp_score_group : Uses this selection when no domain of labels is declared.

    Notes
    -----
    Privacy (Korolova et al. 2009; Desfontaines et al. 2022, Section 3, the Laplace
    thresholding baseline). Let neighbours D, D' change the counts of at most Delta_0
    partitions, each by at most 1 (replace-one: the row's old label loses 1 and its new label
    gains 1, so Delta_0 = 2; a row that keeps its label changes nothing). Every partition's
    decision uses its own independent noise, so the output is a product over partitions and
    only the (at most Delta_0) touched partitions differ in distribution:

    * a partition present in both D and D' (counts c and c +/- 1): its decision is a
      post-processing of c + Z, Z ~ Laplace(b), which is (1/b)-DP for a change of 1;
    * a partition present in only one of them has count 1 there and 0 (never released) in the
      other: it is released with probability P(1 + Z >= tau) = exp(-(tau - 1)/b) / 2 =:
      delta_0, i.e. the two output distributions are within total variation delta_0, which is
      (0, delta_0)-DP.

    Basic composition over the Delta_0 touched partitions gives (Delta_0/b, Delta_0 delta_0)-DP.
    With b = Delta_0/eps and tau = 1 + b ln(Delta_0/(2 delta)), delta_0 = delta/Delta_0: the
    selection is (eps, delta)-DP. (If delta >= Delta_0/2 the log is clipped at 0 and
    delta_0 = 1/2 <= delta/Delta_0.)

    Floating point: the counts are integers (exact in float64 below 2^53); tau is rounded up by
    a relative 8 ulps, which covers the rounding of log, product and sum, so the computed tau is
    never below the exact one and delta_0 never exceeds delta/Delta_0. The Laplace draw comes
    from the exact sampler :func:`dppca.privacy.samplers.add_laplace_noise` (scale b' >= b, its
    slack from ``dimension``, a public bound on the number of partitions: e.g. n; default the
    length of ``counts``, which the caller then vouches is public), and tau uses b'.

    References
    ----------
    Korolova, Kenthapadi, Mishra & Ntoulas (2009). Releasing search queries and clicks
    privately. WWW. Desfontaines, Voss, Gipson & Mandayam (2022). Differentially private
    partition selection. Proceedings on Privacy Enhancing Technologies 2022(1), 339-352.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import select_partitions
    >>> select_partitions([1000, 1], 1.0, 1e-6, np.random.default_rng(0)).tolist()
    [True, False]
    """
    counts = np.asarray(counts, dtype=float).reshape(-1)
    if counts.size and (not np.all(np.isfinite(counts)) or np.any(counts < 0)
                        or np.any(counts != np.round(counts))):
        raise DPPCAValueError("`counts` must be non-negative integers (rows per partition)")
    scale, _ = partition_selection_threshold(eps, delta, max_partitions)
    noisy, scale = add_laplace_noise(counts, scale, float(max_partitions), rng, dimension=dimension)
    threshold = _threshold(scale, int(max_partitions), delta)
    if ledger is not None:
        ledger.record(step, "Laplace (thresholded selection)", float(max_partitions), "L1", scale,
                      eps, delta)
    return (counts > 0) & (noisy >= threshold)
