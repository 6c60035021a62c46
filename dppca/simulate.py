"""Simulators for the models of Kim & Jung (2025, Section 4).

The dispersion matrix has two spikes,
Sigma = (l1 - ld) v1 v1^T + (l2 - ld) v2 v2^T + ld I_d with (l1, l2, ld) = (10, 5, 1),
v1 = (1, 1, 1, 1, 0, ..., 0)/2 and v2 = (1, -1, 1, -1, 0, ..., 0)/2, so its eigenvalues
are 10, 5, 1, ..., 1 and the target subspace is span(v1, v2). The three distributions are
N(0, Sigma), the multivariate t with 1 degree of freedom, and a 5% contaminated Gaussian.
"""
from __future__ import annotations

import math

import numpy as np

from ._validation import DPPCAValueError, float_arg, int_arg, option_arg, rng_arg

#: The distributions of Kim & Jung's Section 4, in the order of their Figures 2-4.
DISTRIBUTIONS = ("gaussian", "t1", "contaminated")
#: (lambda_1, lambda_2, lambda_d) of the simulation.
KIM_JUNG_EIGENVALUES = (10.0, 5.0, 1.0)


def kim_jung_sigma(d: int, eigenvalues=KIM_JUNG_EIGENVALUES) -> tuple[np.ndarray, np.ndarray]:
    """The two-spike dispersion matrix of Kim & Jung (2025, Section 4.1) and its top-2 eigenvectors.

    Parameters
    ----------
    d : int, >= 4
        Dimension.
    eigenvalues : (float, float, float)
        (lambda_1, lambda_2, lambda_d) with lambda_1 > lambda_2 > lambda_d > 0.

    Returns
    -------
    (Sigma (d, d), V (d, 2))
        V = [v1, v2], v1 = (1, 1, 1, 1, 0_{d-4})/2, v2 = (1, -1, 1, -1, 0_{d-4})/2.

    Raises
    ------
    DPPCAValueError
        If d < 4 or the eigenvalues are not strictly decreasing and positive.
    """
    d = int_arg(d, "d", 4)
    l1, l2, ld = (float_arg(v, "eigenvalues", positive=True) for v in eigenvalues)
    if not l1 > l2 > ld:
        raise DPPCAValueError(f"`eigenvalues` must be strictly decreasing; got {tuple(eigenvalues)}")
    V = np.zeros((d, 2))
    V[:4, 0] = [0.5, 0.5, 0.5, 0.5]
    V[:4, 1] = [0.5, -0.5, 0.5, -0.5]
    sigma = (l1 - ld) * np.outer(V[:, 0], V[:, 0]) + (l2 - ld) * np.outer(V[:, 1], V[:, 1]) \
        + ld * np.eye(d)
    return sigma, V


def kim_jung_outlier_center(d: int, lambda_1: float = KIM_JUNG_EIGENVALUES[0]) -> np.ndarray:
    """v_perp = 2.5 lambda_1 (0, 1, 0, -1, 0_{d-4}) / sqrt(2), orthogonal to v1 and v2 (norm 25)."""
    d = int_arg(d, "d", 4)
    center = np.zeros(d)
    center[1], center[3] = 1.0, -1.0
    return 2.5 * float_arg(lambda_1, "lambda_1", positive=True) * center / math.sqrt(2.0)


def elliptical_gaussian(n: int, sigma, rng=None, mean=None) -> np.ndarray:
    """n iid rows from N(mean, sigma).

    Parameters
    ----------
    n : int, >= 1
    sigma : array_like, shape (d, d), symmetric positive definite
    rng : None, int or numpy.random.Generator
    mean : array_like, shape (d,), optional (default 0)

    Returns
    -------
    ndarray, shape (n, d)
    """
    root, mean = _root_and_mean(sigma, mean)
    rng = rng_arg(rng)
    return mean + rng.standard_normal((int_arg(n, "n", 1), root.shape[0])) @ root.T


def multivariate_t(n: int, sigma, df: float = 1.0, rng=None, mean=None) -> np.ndarray:
    """n iid rows from the multivariate t_df(mean, sigma): mean + sigma^{1/2} Z / sqrt(chi2_df / df).

    With df = 1 (the default) this is the multivariate Cauchy t_1(Sigma) of Kim & Jung, which
    has no mean; sigma is its dispersion matrix (an elliptical law with the same eigenvectors).

    Parameters
    ----------
    n : int, >= 1
    sigma : array_like, shape (d, d), symmetric positive definite
    df : float, > 0
    rng : None, int or numpy.random.Generator
    mean : array_like, shape (d,), optional

    Returns
    -------
    ndarray, shape (n, d)
    """
    df = float_arg(df, "df", positive=True)
    rng = rng_arg(rng)
    gaussian = elliptical_gaussian(n, sigma, rng)
    scale = np.sqrt(rng.chisquare(df, size=gaussian.shape[0]) / df)
    _, mean = _root_and_mean(sigma, mean)
    return mean + gaussian / scale[:, None]


def contaminated_gaussian(n: int, sigma, rng=None, fraction: float = 0.05, center=None,
                          sd: float = 0.05) -> np.ndarray:
    """N(0, sigma) rows, of which round(fraction n), chosen at random, are replaced by outliers.

    The outliers are N(center, sd^2 I_d) (Kim & Jung 2025, Section 4.1: 5%, sd 0.05 and
    ``center`` = :func:`kim_jung_outlier_center`, the default).

    Parameters
    ----------
    n : int, >= 1
    sigma : array_like, shape (d, d)
    rng : None, int or numpy.random.Generator
    fraction : float in [0, 1]
    center : array_like, shape (d,), optional
    sd : float, > 0

    Returns
    -------
    ndarray, shape (n, d)
    """
    rng = rng_arg(rng)
    X = elliptical_gaussian(n, sigma, rng)
    d = X.shape[1]
    center = kim_jung_outlier_center(d) if center is None else _vector(center, d, "center")
    count = int(round(float_arg(fraction, "fraction", closed_unit=True) * X.shape[0]))
    rows = rng.choice(X.shape[0], size=count, replace=False)
    X[rows] = center + float_arg(sd, "sd", positive=True) * rng.standard_normal((count, d))
    return X


def simulate_kim_jung(distribution: str, n: int, d: int, rng=None) -> np.ndarray:
    """One data set of Kim & Jung's Section 4 design.

    Parameters
    ----------
    distribution : {"gaussian", "t1", "contaminated"}
    n : int, >= 1
    d : int, >= 4
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray, shape (n, d). The true top-2 subspace is ``kim_jung_sigma(d)[1]``.
    """
    option_arg(distribution, "distribution", DISTRIBUTIONS)
    sigma, _ = kim_jung_sigma(d)
    if distribution == "gaussian":
        return elliptical_gaussian(n, sigma, rng)
    if distribution == "t1":
        return multivariate_t(n, sigma, 1.0, rng)
    return contaminated_gaussian(n, sigma, rng)


def _root_and_mean(sigma, mean):
    sigma = np.asarray(sigma, dtype=float)
    if sigma.ndim != 2 or sigma.shape[0] != sigma.shape[1] or not np.allclose(sigma, sigma.T):
        raise DPPCAValueError(f"`sigma` must be a symmetric square matrix; got shape {sigma.shape}")
    try:
        root = np.linalg.cholesky(sigma)
    except np.linalg.LinAlgError:
        raise DPPCAValueError("`sigma` must be positive definite") from None
    d = sigma.shape[0]
    return root, np.zeros(d) if mean is None else _vector(mean, d, "mean")


def _vector(value, d: int, name: str) -> np.ndarray:
    vector = np.asarray(value, dtype=float).reshape(-1)
    if vector.size != d or not np.isfinite(vector).all():
        raise DPPCAValueError(f"`{name}` must be a finite vector of length {d}; got {vector.size} values")
    return vector

__all__ = ["contaminated_gaussian", "elliptical_gaussian", "kim_jung_outlier_center",
           "kim_jung_sigma", "multivariate_t", "simulate_kim_jung"]
