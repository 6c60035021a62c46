"""Gaussian-DP composition: one (eps, delta) budget shared by several Gaussian mechanisms.

A Gaussian mechanism with L2 sensitivity D and noise sd sigma is (D/sigma)-GDP; mu_i-GDP
mechanisms compose to sqrt(sum mu_i^2)-GDP (Dong, Roth and Su 2022, Cor. 3.3). A
:class:`GaussianGroup` turns the call's (eps, delta) into mu and hands out shares of mu^2
(:class:`GaussianShare`), each recorded on the :class:`~dppca.privacy.Ledger`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .._validation import DPPCAValueError
from .mechanisms import gaussian_sigma
from .samplers import add_gaussian_noise


class GaussianGroup:
    """One (eps, delta) budget shared by several Gaussian mechanisms, composed as Gaussian DP.

    A Gaussian mechanism with L2 sensitivity D and noise sd sigma is (D/sigma)-GDP; adaptive
    composition of mu_i-GDP mechanisms is sqrt(sum mu_i^2)-GDP (Dong, Roth and Su 2022,
    Cor. 3.3); and mu-GDP holds exactly when the Gaussian mechanism with D/sigma = mu is
    (eps, delta)-DP. So the group has mu = 1/gaussian_sigma(1, eps, delta) and releases whose
    shares a_i = (D_i/sigma_i)^2 / mu^2 sum to at most 1 are together (eps, delta)-DP. This is
    much cheaper than splitting eps and delta (basic composition): two halves of (1, 1e-5) give
    each release mu^2 = 0.0185, while GDP shares give each 0.0359. With ``calibration="classic"``,
    mu = eps / sqrt(2 ln(1.25/delta)), which is (eps, delta)-DP for eps < 1 (Dwork and Roth 2014,
    Thm A.1, applied to the equivalent single Gaussian mechanism).

    The ledger rows of a group carry eps and delta columns equal to share x (eps, delta): an
    accounting of the group total, not the guarantee of each release alone.

    Parameters
    ----------
    eps, delta : float
        Budget of the whole group.
    calibration : {"analytic", "classic"}
        How mu is derived from (eps, delta): the exact (analytic) Gaussian calibration, or the
        classic formula (see :func:`dppca.privacy.gaussian_sigma`).

    See Also
    --------
    GaussianShare : One release's part of the group.
    gdp_epsilon : The eps of a mu-GDP mechanism at a given delta.
    split_budget : Basic composition, for mechanisms that are not Gaussian.

    Examples
    --------
    Two releases sharing (1, 1e-5) half and half of mu^2:

    >>> import numpy as np
    >>> from dppca.privacy import GaussianGroup, Ledger
    >>> group = GaussianGroup(1.0, 1e-5)
    >>> round(group.mu, 4)
    0.2681
    >>> ledger = Ledger(1.0, 1e-5)
    >>> rng = np.random.default_rng(0)
    >>> _, sigma = group.share(0.5).release(np.zeros(2), 1.0, rng, ledger, "mean")
    >>> _, sigma = group.share(0.5).release(np.zeros(2), 1.0, rng, ledger, "trace")
    >>> round(sigma, 3), len(ledger)
    (5.276, 2)
    """

    def __init__(self, eps, delta, calibration="analytic"):
        self.eps, self.delta, self.calibration = float(eps), float(delta), calibration
        self.mu = 1.0 / gaussian_sigma(1.0, eps, delta, calibration)

    def share(self, fraction) -> "GaussianShare":
        """The budget of one release that gets ``fraction`` of mu^2."""
        return GaussianShare(self, float(fraction))

    def standalone(self, fraction) -> tuple[float, float]:
        """(eps_a, delta_a) whose Gaussian calibration gives mu_a = sqrt(fraction) mu.

        For handing a share to a function that calibrates its own Gaussian noise from (eps, delta)
        (e.g. :func:`dppca.dp_pc_dir`); its releases are then re-recorded with :meth:`absorb`.
        delta_a = fraction x delta; eps_a solves the mu_a-GDP privacy profile at delta_a.
        """
        mu_a = math.sqrt(fraction) * self.mu
        delta_a = fraction * self.delta
        if self.calibration == "classic":
            return mu_a * math.sqrt(2 * math.log(1.25 / delta_a)), delta_a
        return gdp_epsilon(mu_a, delta_a), delta_a

    def fraction_of(self, sensitivity, sigma) -> float:
        """Share of mu^2 used by a Gaussian release with this sensitivity and noise sd."""
        return (sensitivity / sigma) ** 2 / self.mu ** 2

    def absorb(self, releases, ledger) -> float:
        """Record Gaussian ``releases`` (from another ledger) as shares of this group; total share.

        Raises
        ------
        DPPCAValueError
            If a release is not Gaussian, or the releases need the whole group budget or more.
        """
        releases = list(releases)
        for release in releases:
            if not release.mechanism.startswith("Gaussian"):
                raise DPPCAValueError(f"release {release.step!r} is not Gaussian and cannot join a "
                                      "Gaussian-DP group")
        fractions = [self.fraction_of(r.sensitivity, r.noise_scale) for r in releases]
        if sum(fractions) >= 1:
            raise DPPCAValueError(f"releases {[r.step for r in releases]} already need the whole "
                                  f"budget (eps={self.eps:g}, delta={self.delta:g}) in Gaussian-DP "
                                  "terms; give a larger budget")
        for release, fraction in zip(releases, fractions):
            self.share(fraction).record(ledger, release.step, release.sensitivity,
                                        release.noise_scale, norm=release.norm)
        return float(sum(fractions))


def gdp_epsilon(mu, delta) -> float:
    """The eps at which mu-GDP gives delta: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta.

    Parameters
    ----------
    mu : float
        The Gaussian-DP parameter (L2 sensitivity over noise sd for one Gaussian mechanism), > 0.
    delta : float
        The target delta, in (0, 1).

    Returns
    -------
    float
        The smallest eps >= 0 for which a mu-GDP mechanism is (eps, delta)-DP (Dong, Roth and
        Su 2022, Cor. 2.13), solved to 1e-12 by :func:`scipy.optimize.brentq`.

    See Also
    --------
    GaussianGroup : Uses the inverse map, mu from (eps, delta).

    Examples
    --------
    The mu of the analytic Gaussian calibration at (1, 1e-5) maps back to eps = 1:

    >>> from dppca.privacy import GaussianGroup, gdp_epsilon
    >>> round(gdp_epsilon(GaussianGroup(1.0, 1e-5).mu, 1e-5), 6)
    1.0
    """
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    def excess(eps):
        return math.exp(log_ndtr(-eps / mu + mu / 2)) - math.exp(eps + log_ndtr(-eps / mu - mu / 2)) - delta

    high = 1.0
    while excess(high) > 0:
        high *= 2
    return brentq(excess, 0.0, high, xtol=1e-12, rtol=1e-12) if excess(0.0) > 0 else 0.0


@dataclass(frozen=True)
class GaussianShare:
    """A fraction of a :class:`GaussianGroup`'s mu^2, for one release.

    Parameters
    ----------
    group : GaussianGroup
        The group whose budget this share is part of.
    fraction : float
        The share of the group's mu^2, in (0, 1]; the release's mu is sqrt(fraction) mu.

    See Also
    --------
    GaussianGroup.share : Makes a share.

    Examples
    --------
    >>> from dppca.privacy import GaussianGroup
    >>> share = GaussianGroup(1.0, 1e-5).share(0.5)
    >>> round(share.sigma(1.0), 3)
    5.276
    """

    group: GaussianGroup
    fraction: float

    def sigma(self, sensitivity: float) -> float:
        """Noise sd for a statistic with this L2 sensitivity: mu_release = sqrt(fraction) mu."""
        if not self.fraction > 0:
            raise DPPCAValueError(f"a Gaussian release needs a positive share of the budget; got "
                                  f"{self.fraction}")
        return sensitivity / (math.sqrt(self.fraction) * self.group.mu)

    def release(self, value, sensitivity, rng, ledger, step):
        """``value + N(0, sigma^2 I)``, recorded on ``ledger``; returns (noisy, sigma)."""
        sigma = self.sigma(sensitivity)
        noisy, sigma = add_gaussian_noise(value, sigma, sensitivity, rng)
        self.record(ledger, step, sensitivity, sigma)
        return noisy, sigma

    def record(self, ledger, step, sensitivity, sigma, norm="L2") -> None:
        if ledger is not None:
            group = self.group
            ledger.record(step, f"Gaussian ({group.calibration}), GDP share {self.fraction:.1%}",
                          sensitivity, norm, sigma, group.eps * self.fraction,
                          group.delta * self.fraction)


__all__ = ["GaussianGroup", "GaussianShare", "gdp_epsilon"]
