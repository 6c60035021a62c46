"""Private quantiles by the exponential mechanism with the rank utility.

Under replace-one neighbours, the number of values below any fixed threshold
changes by at most 1, so the utility u(c) = -| #{x_i <= c} - q m | has
sensitivity 1 and the exponential mechanism over candidates c is eps-DP
(Smith 2011, "Privacy-preserving statistical estimation with optimal convergence
rates", Section 3; McSherry & Talwar 2007).
"""
from __future__ import annotations

import numpy as np

from ._validation import DPPCAValueError, eps_arg, float_arg
from .privacy import Ledger, exponential_mechanism

#: Geometric grid used when the scale of a positive quantity is unknown: 2^-48 .. 2^48, ratio 2^(1/4).
#: Few candidates keep the mass of the candidates beyond the data small (it grows with their number).
LOG2_GRID = 2.0 ** np.arange(-48.0, 48.0 + 1e-9, 0.25)


def private_quantile(x, q, eps, rng, lower, upper, *, ledger: Ledger | None = None,
                     step="quantile") -> float:
    """eps-DP q-quantile of ``x`` on the public interval [lower, upper], O(m log m).

    Parameters
    ----------
    x : array_like, shape (m,)
        Values; those outside [lower, upper] are clipped to it (clipping one value is
        still a change of one value, so the sensitivity argument holds).
    q : float
        Quantile level in [0, 1].
    eps : float
        Budget of this release (pure eps-DP).
    rng : numpy.random.Generator
    lower, upper : float
        Public bounds, lower < upper.
    ledger : Ledger, optional

    Returns
    -------
    float
        A point drawn uniformly inside an interval between consecutive sorted values,
        the interval chosen with probability proportional to length * exp(eps u / 2),
        u = -|rank - q m| (Smith 2011). Sensitivity of u: 1 (replace-one).

    Raises
    ------
    DPPCAValueError
        If lower >= upper or q is outside [0, 1].
    """
    q = float_arg(q, "q", closed_unit=True)
    eps = eps_arg(eps)
    if not float(lower) < float(upper):
        raise DPPCAValueError(f"`lower` must be smaller than `upper`; got {lower} and {upper}")
    z = np.concatenate(([lower], np.sort(np.clip(np.asarray(x, float), lower, upper)), [upper]))
    m = z.size - 2
    lengths = np.diff(z)
    with np.errstate(divide="ignore"):
        log_length = np.log(lengths)
    utility = -np.abs(np.arange(m + 1) - q * m)
    i = exponential_mechanism(log_length, utility, 1.0, eps, rng)
    if ledger is not None:
        ledger.record(step, "exponential (rank utility)", 1.0, "rank", np.nan, eps, 0.0)
    return float(rng.uniform(z[i], z[i + 1]))


def private_quantile_grid(x, q, eps, rng, grid=LOG2_GRID, *, ledger: Ledger | None = None,
                          step="quantile") -> float:
    """eps-DP q-quantile of ``x`` chosen among the public candidate values ``grid``.

    For quantities with no public range (scales, norms): the default grid is
    geometric, 2^-48 .. 2^48 with ratio 2^(1/4), so the answer is within a factor
    2^(1/4) of a point whose rank is within O(log(len(grid)) / eps) of q m.
    Keep q away from 0 and 1: the candidates beyond the data have utility -(1-q) m
    (or -q m), and they are many.
    Utility u(c) = -| #{x_i <= c} - q m |, sensitivity 1 (replace-one), equal base measure.

    Returns
    -------
    float
        One of the grid values.
    """
    q = float_arg(q, "q", closed_unit=True)
    eps = eps_arg(eps)
    grid = np.asarray(grid, float)
    xs = np.sort(np.asarray(x, float))
    utility = -np.abs(np.searchsorted(xs, grid, side="right") - q * xs.size)
    i = exponential_mechanism(np.zeros(grid.size), utility, 1.0, eps, rng)
    if ledger is not None:
        ledger.record(step, "exponential (rank utility)", 1.0, "rank", np.nan, eps, 0.0)
    return float(grid[i])
