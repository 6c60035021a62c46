"""From an elementwise Kendall's tau matrix to the latent Gaussian-copula correlation matrix.

For a latent Gaussian copula with continuous margins, Kendall's tau-a is
tau_jk = (2 / pi) arcsin(R_jk) (Kendall 1948; Han & Liu 2012, Lemma 2.1), so the sine bridge
R_jk = sin(pi tau_jk / 2) inverts it. With ties (discrete or rounded columns) the sample tau-a
shrinks towards 0 by the share of tied pairs; the tau-b normalisation T_jk / sqrt(T_jj T_kk)
undoes that first-order shrinkage. The result need not be positive semi-definite (with noise
it rarely is), so it is repaired to the nearest correlation matrix (Higham 2002, by
``statsmodels.stats.correlation_tools.corr_nearest``). Every step is a deterministic map of
the tau matrix it is given: applied to a private release it is post-processing.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import DPPCAValueError

__all__ = ["BRIDGE_GRID", "DIAGONAL_FLOOR", "binary_bridge", "bridged_matrix", "invert_bridge",
           "latent_correlation", "sine_bridge"]

#: Public floor on the tau-a diagonal T_jj (the share of pairs not tied in column j) before the
#: tau-b normalisation. T_jj < 0.05 means a value holds more than sqrt(0.95) = 97.5% of the rows;
#: dividing by sqrt(T_jj T_kk) there would multiply the tau noise by more than 20 (1 / 0.05),
#: and such a column carries almost no rank information anyway. With noise the diagonal may even
#: read <= 0: the floor keeps the map defined (and bounded) for every release.
DIAGONAL_FLOOR = 0.05


def latent_correlation(tau, floor: float = DIAGONAL_FLOOR, thresholds=None) -> np.ndarray:
    """The latent Gaussian-copula correlation matrix from a (possibly noisy) tau-a matrix.

    Parameters
    ----------
    tau : array_like, shape (p, p)
        Symmetric elementwise Kendall's tau-a matrix with its diagonal T_jj (1 minus the share
        of pairs tied in column j), e.g.
        :func:`dppca.stats.elementwise_kendall.kendall_tau_matrix` or a noisy release of it.
    floor : float in (0, 1]
        Public lower bound applied to the diagonal before the normalisation
        (:data:`DIAGONAL_FLOOR`).
    thresholds : array_like, shape (p,), optional
        D_j = Phi^{-1}(1 - p_j) for binary columns (p_j the share of ones), NaN for continuous
        ones. A pair with a binary column is bridged from its tau-a by
        :func:`binary_bridge` and :func:`invert_bridge` (Fan, Liu, Ning & Zou 2017); default:
        every column continuous.

    Returns
    -------
    ndarray, shape (p, p)
        A correlation matrix (unit diagonal, positive semi-definite up to
        ``corr_nearest``'s threshold 1e-15): the nearest correlation matrix to
        R_jk = sin(pi tau_b / 2), tau_b = clip(T_jk / sqrt(d_j d_k), -1, 1),
        d_j = clip(T_jj, floor, 1).

    Raises
    ------
    DPPCAValueError
        If ``tau`` is not a square matrix of finite numbers or ``floor`` is not in (0, 1].

    See Also
    --------
    sine_bridge : The bridge alone.
    statsmodels.stats.correlation_tools.corr_nearest : The repair.

    Notes
    -----
    Estimand: the correlation matrix of the latent Gaussian vector Z in X_j = f_j(Z_j), f_j
    increasing (the nonparanormal / Gaussian copula model; Liu, Lafferty & Wasserman 2009; Han &
    Liu 2012, "Semiparametric principal component analysis", NIPS 25). For Gaussian data it is
    the Pearson correlation matrix. It is invariant under every increasing transform of every
    column, because tau is. Lipschitz: |d R_jk / d T_jk| <= (pi / 2) / floor, so noise of sd
    s on T_jk becomes noise of sd at most (pi / 2) s / floor on R_jk before the repair.

    References
    ----------
    Han, F. and Liu, H. (2012). Semiparametric principal component analysis. NIPS 25.
    Higham, N. J. (2002). Computing the nearest correlation matrix. IMA J. Numer. Anal. 22.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.copula_bridge import latent_correlation
    >>> latent_correlation(np.array([[1.0, 1 / 3], [1 / 3, 1.0]])).round(4).tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    from statsmodels.stats.correlation_tools import corr_clipped, corr_nearest
    from statsmodels.tools.sm_exceptions import IterationLimitWarning

    tau = np.asarray(tau, dtype=float)
    if tau.ndim != 2 or tau.shape[0] != tau.shape[1] or not np.isfinite(tau).all():
        raise DPPCAValueError(f"`tau` must be a square matrix of finite numbers; got shape "
                              f"{tau.shape}")
    if not 0.0 < float(floor) <= 1.0:
        raise DPPCAValueError(f"`floor` must be in (0, 1]; got {floor}")
    bridged = bridged_matrix(tau, floor)
    if thresholds is not None:
        _bridge_binary_pairs(bridged, (tau + tau.T) / 2.0, np.asarray(thresholds, dtype=float))
        np.fill_diagonal(bridged, 1.0)
    if bridged.shape[0] == 1:
        return bridged
    with warnings.catch_warnings():
        # corr_nearest's iteration limit: its last iterate is then checked below (a message
        # that noisy values decide would say nothing the release does not)
        warnings.simplefilter("ignore", IterationLimitWarning)
        repaired = corr_nearest(bridged, threshold=1e-15, n_fact=100)
    repaired = (repaired + repaired.T) / 2.0
    np.fill_diagonal(repaired, 1.0)
    if np.linalg.eigvalsh(repaired)[0] < 0.0:  # not converged: clip the eigenvalues instead
        repaired = corr_clipped(bridged, threshold=1e-15)
        repaired = (repaired + repaired.T) / 2.0
        np.fill_diagonal(repaired, 1.0)
    return repaired


def bridged_matrix(tau, floor: float = DIAGONAL_FLOOR) -> np.ndarray:
    """The latent correlation before its repair: unit diagonal, R_jk = sin(pi tau_b / 2).

    Parameters
    ----------
    tau : ndarray, shape (p, p)
        A (possibly noisy) tau-a matrix with its diagonal, already checked finite and square.
    floor : float in (0, 1]
        The diagonal floor (:data:`DIAGONAL_FLOOR`).

    Returns
    -------
    ndarray, shape (p, p)
        Symmetric, unit diagonal, entries sin(pi tau_b / 2) with
        tau_b = clip(T_jk / sqrt(d_j d_k), -1, 1), d_j = clip(T_jj, floor, 1); not necessarily
        positive semi-definite (:func:`latent_correlation` repairs it).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.stats.copula_bridge import bridged_matrix
    >>> bridged_matrix(np.array([[1.0, 1 / 3], [1 / 3, 1.0]])).round(4).tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    tau = np.asarray(tau, dtype=float)
    tau = (tau + tau.T) / 2.0
    diagonal = np.clip(np.diag(tau), floor, 1.0)
    tau_b = np.clip(tau / np.sqrt(np.outer(diagonal, diagonal)), -1.0, 1.0)
    bridged = sine_bridge(tau_b)
    np.fill_diagonal(bridged, 1.0)
    return bridged


def sine_bridge(tau) -> np.ndarray:
    """The Gaussian-copula bridge for two continuous columns: R = sin(pi tau / 2).

    Parameters
    ----------
    tau : array_like
        Kendall's tau values in [-1, 1] (any shape).

    Returns
    -------
    ndarray
        The latent correlations sin(pi tau / 2), same shape, in [-1, 1].

    See Also
    --------
    latent_correlation : The whole map, normalisation and repair included.

    Notes
    -----
    For (Z_j, Z_k) bivariate normal with correlation r, Kendall's tau is (2 / pi) arcsin(r)
    (Kendall 1948, Ch. 10; Han & Liu 2012, Lemma 2.1); the same holds after increasing
    transforms of each margin.

    Examples
    --------
    >>> from dppca.stats.copula_bridge import sine_bridge
    >>> float(sine_bridge(1 / 3).round(6))
    0.5
    """
    return np.sin(0.5 * math.pi * np.asarray(tau, dtype=float))


#: The latent correlations at which the binary bridges are tabulated before their inversion
#: (|r| <= 0.995: beyond it the bridges are flat to 1e-3 and the inverse is ill-posed).
BRIDGE_GRID = np.linspace(-0.995, 0.995, 399)


def binary_bridge(thresholds, second=None) -> np.ndarray:
    """The Kendall's tau-a of a binary column against a continuous or a binary one, on BRIDGE_GRID.

    Parameters
    ----------
    thresholds : float
        D_j = Phi^{-1}(1 - p_j) of the binary column (p_j its share of ones).
    second : float or None
        None: the other column is continuous; else its threshold D_k (binary).

    Returns
    -------
    ndarray, shape (len(BRIDGE_GRID),)
        F(r) on the grid, increasing: binary-continuous F(r) = 4 Phi2(D_j, 0; r / sqrt 2)
        - 2 Phi(D_j); binary-binary F(r) = 2 (Phi2(D_j, D_k; r) - Phi(D_j) Phi(D_k)).

    References
    ----------
    Fan, J., Liu, H., Ning, Y. and Zou, H. (2017). High dimensional semiparametric latent
    graphical model for mixed data. JRSS-B 79(2), Theorems 2.1 and 2.2.

    Examples
    --------
    >>> from dppca.stats.copula_bridge import BRIDGE_GRID, binary_bridge
    >>> bridge = binary_bridge(0.0)
    >>> round(float(bridge[len(BRIDGE_GRID) // 2]), 8)  # r = 0: tau = 0
    0.0
    """
    from scipy.stats import multivariate_normal, norm

    first = float(thresholds)
    if second is None:
        point, rhos, scale, offset = [first, 0.0], BRIDGE_GRID / math.sqrt(2.0), 4.0, \
            2.0 * norm.cdf(first)
    else:
        point, rhos, scale, offset = [first, float(second)], BRIDGE_GRID, 2.0, \
            2.0 * norm.cdf(first) * norm.cdf(float(second))
    values = [multivariate_normal(mean=[0.0, 0.0], cov=[[1.0, r], [r, 1.0]]).cdf(point)
              for r in rhos]
    return scale * np.asarray(values) - offset


def invert_bridge(tau: float, bridge: np.ndarray) -> float:
    """The latent correlation r with F(r) = tau, by monotone (PCHIP) interpolation of the table.

    Parameters
    ----------
    tau : float
        A (noisy) Kendall's tau-a; clipped to the table's range first.
    bridge : ndarray
        F on :data:`BRIDGE_GRID` (:func:`binary_bridge`), increasing.

    Returns
    -------
    float
        The latent correlation r, in [-0.995, 0.995].

    Examples
    --------
    >>> from dppca.stats.copula_bridge import BRIDGE_GRID, binary_bridge, invert_bridge
    >>> bridge = binary_bridge(0.3)
    >>> round(invert_bridge(float(bridge[300]), bridge), 6) == round(float(BRIDGE_GRID[300]), 6)
    True
    """
    from scipy.interpolate import PchipInterpolator

    keep = np.concatenate([[True], np.diff(bridge) > 0])  # strictly increasing abscissae
    inverse = PchipInterpolator(bridge[keep], BRIDGE_GRID[keep])
    return float(inverse(np.clip(tau, bridge[keep][0], bridge[keep][-1])))


def _bridge_binary_pairs(bridged, tau, thresholds) -> None:
    """Overwrite the pairs with a binary column by the inverse of their bridge at their tau-a."""
    binary = ~np.isnan(thresholds)
    p = thresholds.size
    for j in range(p):
        for k in range(p):
            if j == k or not binary[j] or (binary[k] and k < j):
                continue  # each binary-binary pair once; binary-continuous from the binary side
            bridge = binary_bridge(thresholds[j], thresholds[k] if binary[k] else None)
            bridged[j, k] = bridged[k, j] = invert_bridge(tau[j, k], bridge)
