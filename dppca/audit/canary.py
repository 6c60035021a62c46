"""Half-noise canaries: the distinguishing audit must reject a mechanism weakened on purpose.

A distinguishing test that passes every real mechanism proves little unless it would fail a
weakened one. :func:`scaled_noise` weakens every release drawn by the exact samplers of
:mod:`dppca.privacy.samplers` (the integer noise k is drawn at ``factor`` times its scale while
the ledger and the returned scales stay as they were: noise too small by a factor the
ledger does not show), and
:func:`gaussian_shift_audit` is a test with the power to see it at the audit's small sizes.

The Gaussian shift test. For a Gaussian mechanism M(D) = f(D) + N(0, sigma^2 I), the scalar
s = <M(D), u> (u a unit direction) is N(<f(D), u>, sigma^2) on D and shifted by at most
mu sigma on D', with mu = Delta / sigma the mechanism's Gaussian-DP parameter (Dong, Roth & Su
2022). So the standardised shift (mean_D' - mean_D) / sd estimates the mu seen on this pair,
at most the claimed mu of (eps, delta), and its one-sided lower confidence bound
mu_lb = mu_hat - z se, se = sqrt(2/r + mu_hat^2/(4r)) (r scores per side; the delta method
for a standardised mean difference) exceeds the claim with probability <= alpha for a correct
mechanism. eps_lb = gdp_epsilon(mu_lb, delta) is then a lower bound on eps.

Multiplicity. The audit runs the test on every family of :data:`CANARY_FAMILIES`, and a real
mechanism on its worst pair sits at the claim (mu = mu_claim exactly when the pair shows the
whole sensitivity), so each test's size is attained: at alpha = 2.5% per family, six families
give a false alarm with probability 1 - 0.975^6 = 14% (the quick audit showed one on the
trace, mu_lb 0.288 > 0.268). The level is therefore split over the families (Bonferroni):
alpha = 2.5% / F, z = 2.807 for F = 10 (2.773 for F = 9, 2.690 for F = 7), so that no family is
flagged wrongly with probability >= 97.5% whatever the seed.

Power. With half the noise mu doubles; on a pair whose shift is the whole sensitivity the test
sees 2 mu_claim. At (1, 1e-5), mu_claim = 0.268; with r = 1,000 evaluation scores per side
(``CANARY_RUNS`` = 2,000), se = sqrt((2 + 0.536^2/4)/1000) = 0.0455, so mu_lb > mu_claim unless
mu_hat falls 0.268/0.0455 - 2.807 = 3.08 standard errors low: power 0.999 per family. A pair
whose released shift, seen along the direction estimated from the first half, is a fraction
rho of the sensitivity has power Phi(mu_claim (2 rho - 1) / se - z): 0.98 at rho = 0.9, 0.93
at rho = 0.85. The multi-coordinate families lose some shift to the estimated direction (with
6,000 releases per side the half-noise mu_hat was 0.484 for the scree, 0.500 for the scales,
0.544 for the trace: rho 0.90, 0.93, 1.0); at the corrected level with 1,200 releases, power at
rho = 0.9 is 0.85, and the scree canary was missed at the benchmark's seed. The test is
exact for releases linear in the noise and an approximation after non-linear post-processing
(probabilities, subspaces), which the canary tests therefore leave out; they use
``CANARY_RUNS`` releases per side (half choose u).
"""
from __future__ import annotations

import contextlib
import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..privacy import GaussianGroup, gdp_epsilon
from ..privacy import samplers
from .distinguishing import scores_along

#: Releases per neighbour of the canary test (half choose the direction, half evaluate).
CANARY_RUNS = 2000
#: Noise multiplier of the canary.
CANARY_FACTOR = 0.5
#: Registry families whose release is linear in its Gaussian noise (the shift test is exact)
#: and drawn by the exact samplers (which :func:`scaled_noise` weakens).
CANARY_FAMILIES = ("scree: clipped pair means", "trace: clipped mean of ||x_a - x_b||^2/2",
                   "scale: clipped second moments (pilot and ladder)",
                   "g-DPPCA: Kendall's tau matrix (spherical sign)",
                   "k_dp_pca: PrivMean clipped gradient mean", "dp_sggd: noisy descent step",
                   "rank: elementwise Kendall's tau (j <= k)",
                   "rank: dp_pc_dir(standardize='rank') Kendall's tau, block design",
                   "rank scores: normal-scores range histograms",
                   "rank scores: normal-scores quantile histograms (warps public)")
#: Canary families whose output is their statistic plus Gaussian noise in the same coordinates,
#: in many of them (the normal-scores histograms: 514 p and B p counts): the test's direction is
#: then f(D') - f(D), known to the auditor from the pair, instead of an estimate from half the
#: releases (whose noise, of norm about sigma sqrt(2 d / 1000) in d coordinates, would swamp a
#: shift of 0.27-0.54 sigma). A direction fixed before the releases keeps the test exact. The
#: add/remove rank tau (p (p + 1)/2 = 10 entries j <= k plus noise) is one too: its worst
#: add/remove pair shows 0.82 of the claim 2 p/(m + 1) (full search, m = 5), and a direction
#: estimated from half the releases kept rho = 0.67 of the half-noise shift (mu_lb 0.249 below
#: mu_claim 0.268: the canary missed; power Phi(mu_claim (2 rho - 1)/se - z) = 0.35 with the
#: level split over the 3 add/remove families), the known one rho = 0.81 (power 0.90; mu_lb
#: 0.357: rejected, while the real mechanism's mu_lb 0.135 passes).
KNOWN_DIRECTION_FAMILIES = ("rank scores: normal-scores range histograms",
                            "rank scores: normal-scores quantile histograms (warps public)",
                            "add/remove: rank elementwise Kendall's tau (j <= k)")
#: One-sided level of the whole canary audit: every family's test at FAMILY_LEVEL / F.
FAMILY_LEVEL = 0.025


@dataclass(frozen=True)
class ShiftResult:
    """The Gaussian shift test on one pair.

    Parameters
    ----------
    mu_hat : float
        Standardised shift of the evaluation scores, (mean_D' - mean_D) / pooled sd.
    mu_lb : float
        Its one-sided lower confidence bound at level FAMILY_LEVEL / families.
    mu_claim : float
        The Gaussian-DP mu of the claimed (eps, delta).
    eps_lb : float
        gdp_epsilon(mu_lb, delta), 0 when mu_lb <= 0.

    Examples
    --------
    >>> ShiftResult(0.5, 0.4, 0.268, 1.6).rejects
    True
    """

    mu_hat: float
    mu_lb: float
    mu_claim: float
    eps_lb: float

    @property
    def rejects(self) -> bool:
        """True when the pair shows more than the claim (mu_lb > mu_claim)."""
        return self.mu_lb > self.mu_claim


@contextlib.contextmanager
def scaled_noise(factor: float):
    """Inside the block, every exact-sampler release draws its integer noise at ``factor`` x scale.

    The returned scales (and so the ledgers) are unchanged: a weakened mechanism that claims
    its old guarantee. For canaries only; restores the samplers on exit.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.samplers import add_gaussian_noise
    >>> with scaled_noise(0.0):
    ...     add_gaussian_noise(np.zeros(3), 1.0, 1.0, np.random.default_rng(0))[0].tolist()
    [0.0, 0.0, 0.0]
    """
    gaussian, laplace = samplers.discrete_gaussian, samplers.discrete_laplace

    def weak_gaussian(s, size, rng):
        return np.zeros(size, dtype=np.int64) if factor == 0 else gaussian(s * factor, size, rng)

    def weak_laplace(t, size, rng):
        return np.zeros(size, dtype=np.int64) if factor == 0 else laplace(max(1, round(t * factor)), size, rng)

    samplers.discrete_gaussian, samplers.discrete_laplace = weak_gaussian, weak_laplace
    try:
        yield
    finally:
        samplers.discrete_gaussian, samplers.discrete_laplace = gaussian, laplace


def canary_direction(release, D, D_prime, ctx):
    """The test direction f(D') - f(D) for ``KNOWN_DIRECTION_FAMILIES``, None for the others.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.audit import REGISTRY
    >>> canary_direction(REGISTRY["rank: elementwise Kendall's tau (j <= k)"], None, None, {}) is None
    True
    """
    if release.name not in KNOWN_DIRECTION_FAMILIES:
        return None
    return (np.asarray(release.statistic(D_prime, ctx), float)
            - np.asarray(release.statistic(D, ctx), float)).ravel()


def gaussian_shift_audit(mechanism, D, D_prime, ctx, runs, eps, delta, *, seed=0,
                         families=len(CANARY_FAMILIES), direction=None) -> ShiftResult:
    """The Gaussian shift test (module docstring) of ``mechanism`` on the pair (D, D_prime).

    Parameters
    ----------
    mechanism : callable (X, ctx, rng) -> array_like
        One release (as in :func:`dppca.audit.distinguishing_audit`).
    D, D_prime : ndarray, shape (n, p)
        Neighbours.
    ctx : dict
        Public values shared by both.
    runs : int
        Releases per neighbour; the first half choose the direction.
    eps, delta : float
        The claimed guarantee of one release.
    seed : int
        Seed of the releases.
    families : int
        Number of tests run together (Bonferroni): the bound's level is FAMILY_LEVEL / families
        (default: every canary family).
    direction : array_like, optional
        A direction fixed before the releases (:func:`canary_direction`); then every release
        is scored. None: the first half of the releases choose it.

    Returns
    -------
    ShiftResult

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import gaussian_sigma
    >>> from dppca.privacy.samplers import add_gaussian_noise
    >>> def mean(X, ctx, rng):  # clipped mean, L2 sensitivity 1/n
    ...     value = np.clip(X[:, 0], 0, 1).mean()
    ...     return add_gaussian_noise(value, gaussian_sigma(1 / X.shape[0], 1.0, 1e-5), 1 / X.shape[0], rng)[0]
    >>> D, D_prime = np.zeros((10, 1)), np.r_[np.ones((1, 1)), np.zeros((9, 1))]
    >>> gaussian_shift_audit(mean, D, D_prime, {}, CANARY_RUNS, 1.0, 1e-5).rejects
    False
    >>> with scaled_noise(CANARY_FACTOR):
    ...     gaussian_shift_audit(mean, D, D_prime, {}, CANARY_RUNS, 1.0, 1e-5).rejects
    True
    """
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_d = np.array([np.asarray(mechanism(D, ctx, rng), float).ravel() for _ in range(runs)])
        out_p = np.array([np.asarray(mechanism(D_prime, ctx, rng), float).ravel() for _ in range(runs)])
    half = runs // 2
    if direction is not None:
        half = 0
    else:
        direction = np.nan_to_num(out_p[:half].mean(axis=0) - out_d[:half].mean(axis=0))
    s_d, s_p = scores_along(out_d[half:], direction), scores_along(out_p[half:], direction)
    r = s_d.size
    sd = math.sqrt((s_d.var(ddof=1) + s_p.var(ddof=1)) / 2)
    mu_hat = float((s_p.mean() - s_d.mean()) / sd) if sd > 0 else math.inf
    se = math.sqrt(2.0 / r + mu_hat ** 2 / (4.0 * r)) if math.isfinite(mu_hat) else 0.0
    mu_lb = mu_hat - NormalDist().inv_cdf(1 - FAMILY_LEVEL / families) * se
    mu_claim = GaussianGroup(eps, delta).mu
    eps_lb = gdp_epsilon(mu_lb, delta) if 0 < mu_lb < math.inf else (math.inf if mu_lb > 0 else 0.0)
    return ShiftResult(mu_hat, mu_lb, mu_claim, eps_lb)

__all__ = ["CANARY_FACTOR", "CANARY_FAMILIES", "CANARY_RUNS", "FAMILY_LEVEL", "KNOWN_DIRECTION_FAMILIES",
           "ShiftResult", "canary_direction", "gaussian_shift_audit", "scaled_noise"]
