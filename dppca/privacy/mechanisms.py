"""Additive-noise and selection mechanisms with their calibrations.

Neighbouring datasets differ in one row (replace-one, n public), as in the R
package and Kim & Jung (2025). Each mechanism takes the statistic's sensitivity
under that relation; callers prove the sensitivity.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .._validation import DPPCAValueError, delta_arg, eps_arg, float_arg, option_arg
from .budget import Ledger
from .samplers import add_gaussian_noise, add_laplace_noise, gaussian_noise, gumbel_noise

CALIBRATIONS = ("analytic", "classic")
#: Largest start of the analytic calibration's search, in units of the sensitivity. dp_accounting
#: brackets sigma between 0 and its start sqrt(2 ln(1.5 / delta)) / eps (doubled while too small;
#: for eps < 1 the start already suffices, since the classic sigma is valid there and smaller) and
#: bisects to an absolute 1e-7; above 2^29 doubles are spaced wider than 1e-7, so the bisection
#: would never end (delta = 2.3e-308 with eps = 2.3e-16 runs forever). A start below 2^28 keeps
#: the bracket below 2^29. Such (eps, delta) ask for noise 10^8 times the sensitivity.
ANALYTIC_MAX_START = 2.0 ** 28


def gaussian_sigma(sensitivity: float, eps: float, delta: float, calibration: str = "analytic") -> float:
    """Noise standard deviation of the Gaussian mechanism.

    Parameters
    ----------
    sensitivity : float
        L2 (or Frobenius) sensitivity Delta of the released statistic, > 0.
    eps : float
        Privacy parameter, > 0.
    delta : float
        Privacy parameter, in (0, 1).
    calibration : {"analytic", "classic"}
        ``"analytic"``: the smallest sigma for which adding N(0, sigma^2 I) is (eps, delta)-DP,
        Balle & Wang (2018), "Improving the Gaussian mechanism for differential privacy",
        Theorem 8, computed by Google's ``dp_accounting`` (exact for every eps).
        ``"classic"``: sigma = Delta sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth 2014,
        Theorem A.1; what the R package uses). Its proof needs eps < 1; for eps >= 1 it is
        still larger than the analytic sigma in practice but has no proof, so prefer "analytic".

    Returns
    -------
    float
        The noise standard deviation sigma, in the units of the statistic.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        For a non-positive sensitivity or eps, delta outside (0, 1), or an unknown calibration;
        for an analytic calibration whose noise would exceed ``ANALYTIC_MAX_START`` times the
        sensitivity (eps below about 1e-8 to 1.4e-7, depending on delta).

    See Also
    --------
    gaussian_mechanism : Adds noise of this standard deviation and records the release.
    laplace_scale : The Laplace mechanism's counterpart (pure eps-DP).

    Examples
    --------
    >>> from dppca.privacy import gaussian_sigma
    >>> round(gaussian_sigma(1.0, eps=1.0, delta=1e-5), 3)
    3.731
    >>> round(gaussian_sigma(1.0, eps=1.0, delta=1e-5, calibration="classic"), 3)
    4.845
    """
    sensitivity = float_arg(sensitivity, "sensitivity", positive=True)
    eps, delta = eps_arg(eps), delta_arg(delta)
    option_arg(calibration, "calibration", CALIBRATIONS)
    if calibration == "classic":
        return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
    if math.sqrt(2 * math.log(1.5 / delta)) / eps >= ANALYTIC_MAX_START:
        raise DPPCAValueError(
            f"eps={eps:g} with delta={delta:g} asks for Gaussian noise of about "
            f"{math.sqrt(2 * math.log(1.25 / delta)) / eps:.3g} times the sensitivity; the analytic "
            "calibration cannot resolve noise beyond 2^28 times the sensitivity in double "
            "precision (and such noise drowns any statistic): give a larger eps")
    return sensitivity * _analytic_unit_sigma(eps, delta)


@functools.lru_cache(maxsize=1024)
def _analytic_unit_sigma(eps: float, delta: float) -> float:
    # Cached: dp_accounting's search takes ~60 ms and the same (eps, delta) recurs across steps.
    # Imported here: dp_accounting pulls in a PLD stack that we only need for this number.
    from dp_accounting.pld import accountant, common

    return accountant.get_smallest_gaussian_noise(common.DifferentialPrivacyParameters(eps, delta),
                                                  num_queries=1, sensitivity=1.0)


def gaussian_mechanism(value, sensitivity, eps, delta, rng, *, calibration="analytic",
                       ledger: Ledger | None = None, step="statistic", norm="L2"):
    """Release ``value + N(0, sigma^2 I)`` with sigma from :func:`gaussian_sigma`.

    Parameters
    ----------
    value : float or ndarray
        The statistic, any shape.
    sensitivity : float
        L2 sensitivity of ``value`` between neighbouring datasets, > 0 (see :func:`gaussian_sigma`).
    eps : float
        Privacy parameter of this release, > 0.
    delta : float
        Privacy parameter of this release, in (0, 1).
    rng : numpy.random.Generator
        Source of the noise (drawn through :mod:`dppca.privacy.samplers`).
    calibration : {"analytic", "classic"}
        How sigma is computed from (sensitivity, eps, delta); see :func:`gaussian_sigma`.
    ledger : Ledger, optional
        Where the release is recorded.
    step, norm : str
        Labels for the ledger.

    Returns
    -------
    noisy : float or ndarray
        ``value`` plus the noise, same shape; (eps, delta)-DP when ``sensitivity`` bounds the
        L2 change. Drawn by :func:`dppca.privacy.samplers.add_gaussian_noise` (floating-point
        safe).
    sigma : float
        The noise standard deviation used: the calibrated one, larger by a relative 2^-40 or less.

    See Also
    --------
    gaussian_sigma : The calibration.
    laplace_mechanism : Pure eps-DP release for an L1 sensitivity.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import Ledger, gaussian_mechanism
    >>> ledger = Ledger(1.0, 1e-5)
    >>> noisy, sigma = gaussian_mechanism(np.zeros(3), 1.0, 1.0, 1e-5, np.random.default_rng(0),
    ...                                   ledger=ledger, step="mean")
    >>> noisy.shape, round(sigma, 3), len(ledger)
    ((3,), 3.731, 1)
    """
    sigma = gaussian_sigma(sensitivity, eps, delta, calibration)
    noisy, sigma = add_gaussian_noise(value, sigma, sensitivity, rng)
    if ledger is not None:
        ledger.record(step, f"Gaussian ({calibration})", sensitivity, norm, sigma, eps, delta)
    return noisy, sigma


def symmetric_gaussian_noise(d: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """The symmetric noise matrix vecd^-1(xi), xi ~ N(0, sigma^2 I_{d(d+1)/2}).

    Diagonal entries have standard deviation sigma and each off-diagonal pair
    sigma/sqrt(2), so that ||E||_F = ||xi||_2 (vecd is an isometry; Schwartzman 2016).
    Adding it to a symmetric statistic with Frobenius sensitivity Delta is the Gaussian
    mechanism on vecd of the statistic. Kim & Jung (2025), Proposition 2.1.

    Parameters
    ----------
    d : int
        Size of the matrix.
    sigma : float
        Standard deviation of each entry of xi (diagonal entries), >= 0.
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    ndarray, shape (d, d)
        The symmetric noise matrix.

    See Also
    --------
    gaussian_sigma : The sigma for a Frobenius sensitivity and a budget.

    Notes
    -----
    Noise only: added to an unsnapped float matrix it is not floating-point safe. Release a
    matrix with :func:`dppca.privacy.samplers.add_symmetric_gaussian_noise` instead.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import symmetric_gaussian_noise
    >>> noise = symmetric_gaussian_noise(3, 1.0, np.random.default_rng(0))
    >>> noise.shape, bool(np.array_equal(noise, noise.T))
    ((3, 3), True)
    """
    rows, cols = np.triu_indices(d, k=1)
    noise = np.zeros((d, d))
    noise[rows, cols] = gaussian_noise(sigma / math.sqrt(2.0), rows.size, rng)
    return noise + noise.T + np.diag(gaussian_noise(sigma, d, rng))


def laplace_scale(sensitivity: float, eps: float) -> float:
    """Scale b = Delta_1 / eps of the Laplace mechanism (pure eps-DP for L1 sensitivity Delta_1).

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity Delta_1 of the released statistic, > 0.
    eps : float
        Privacy parameter, > 0.

    Returns
    -------
    float
        The scale b, in the units of the statistic.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        For a non-positive or non-numeric sensitivity or eps.

    See Also
    --------
    laplace_mechanism : Adds Laplace noise of this scale.
    gaussian_sigma : The Gaussian mechanism's counterpart.

    Examples
    --------
    >>> from dppca.privacy import laplace_scale
    >>> laplace_scale(2.0, eps=0.5)
    4.0
    """
    return float_arg(sensitivity, "sensitivity", positive=True) / eps_arg(eps)


def laplace_mechanism(value, sensitivity, eps, rng, *, ledger: Ledger | None = None,
                      step="statistic", norm="L1"):
    """Release ``value + Laplace(0, Delta_1/eps)`` noise, eps-DP (Dwork & Roth 2014, Thm 3.6).

    Parameters
    ----------
    value : float or ndarray
        The statistic, any shape.
    sensitivity : float
        L1 sensitivity Delta_1 of ``value`` between neighbouring datasets, > 0.
    eps : float
        Privacy parameter of this release, > 0.
    rng : numpy.random.Generator
        Source of the noise (drawn through :mod:`dppca.privacy.samplers`).
    ledger : Ledger, optional
        Where the release is recorded (with delta 0).
    step, norm : str
        Labels for the ledger.

    Returns
    -------
    noisy : float or ndarray
        ``value`` plus the noise, same shape. Drawn by
        :func:`dppca.privacy.samplers.add_laplace_noise` (floating-point safe).
    scale : float
        The scale it used, at least Delta_1/eps.

    See Also
    --------
    laplace_scale : The calibration.
    gaussian_mechanism : (eps, delta)-DP release for an L2 sensitivity.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import laplace_mechanism
    >>> noisy, scale = laplace_mechanism(np.zeros(2), 1.0, 1.0, np.random.default_rng(0))
    >>> noisy.shape, round(scale, 6)
    ((2,), 1.0)
    """
    scale = laplace_scale(sensitivity, eps)
    noisy, scale = add_laplace_noise(value, scale, sensitivity, rng)
    if ledger is not None:
        ledger.record(step, "Laplace", sensitivity, norm, scale, eps, 0.0)
    return noisy, scale


def exponential_mechanism(log_base_measure, utility, sensitivity, eps, rng) -> int:
    """Index drawn with probability proportional to base * exp(eps * utility / (2 Delta_u)).

    eps-DP when every entry of ``utility`` changes by at most ``sensitivity`` between
    neighbours and ``log_base_measure`` does not depend on the data (McSherry & Talwar
    2007). Sampled with the Gumbel-max trick, which is exact and avoids overflow.

    Parameters
    ----------
    log_base_measure : ndarray, shape (m,)
        Log of the data-independent base measure of each candidate (e.g. interval lengths);
        ``-inf`` excludes a candidate.
    utility : ndarray, shape (m,)
        Utility of each candidate (larger is likelier).
    sensitivity : float
        Largest change of any utility between neighbouring datasets, > 0.
    eps : float
        Privacy parameter, > 0.
    rng : numpy.random.Generator
        Source of the Gumbel noise (drawn through :mod:`dppca.privacy.samplers`).

    Returns
    -------
    int
        The index of the selected candidate, in [0, m).

    See Also
    --------
    private_quantile : A private quantile by this mechanism over intervals.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import exponential_mechanism
    >>> exponential_mechanism(np.zeros(3), [0.0, 0.0, 100.0], 1.0, 1.0, np.random.default_rng(0))
    2
    """
    score = np.asarray(log_base_measure, float) + eps * np.asarray(utility, float) / (2.0 * sensitivity)
    return int(np.argmax(score + gumbel_noise(score.shape, rng)))

__all__ = ["exponential_mechanism", "gaussian_mechanism", "gaussian_sigma", "laplace_mechanism",
           "laplace_scale", "symmetric_gaussian_noise"]
