"""The accuracy model of the private column scales (public numbers only).

:func:`scale_accuracy` predicts the error of :func:`dppca.preprocessing.scales.private_column_scales`
from n, p, eps, delta and the scale share; :func:`warn_if_unlocated` issues the
:class:`dppca.privacy.accuracy.DPAccuracyWarning` before the releases from the same rule.
"""
from __future__ import annotations

import warnings

import numpy as np

from .scale_design import (SCALE_BLOCK_ROWS, SCALE_EFFICIENT_CLIP, SCALE_LADDER_WEIGHTS,
                           SCALE_PILOT_WEIGHTS, SCALE_SHARES, clip_ratio)
#: A column's scale is located when the pilot ladder's noise sd is at most this: each rung reads
#: v in [0, 1] and a column at its own scale reads ~0.4-0.5, so once the noise sd nears that
#: reading no rung stands clear of the noise and the posterior spreads over octaves (measured,
#: 5 seeds, eps = 1, 4: >= 80% of columns within 2x at sd <= 0.30, <= 58% at sd >= 0.41).
SCALE_PILOT_MAX_NOISE = 0.35


def scale_accuracy(n, p, eps, delta, *, share, calibration="analytic"):
    """Predicted error of :func:`private_column_scales` from public numbers (n, p, eps, delta).

    The final moment at c* = 1.37 has noise sd sd_v = sqrt(p sum w_k^2) / (m mu_f) (m = n // 2,
    mu_f the Gaussian-DP parameter of its share ``SCALE_SHARES[2]`` of ``share`` of the call's
    mu^2), so the noise's relative error of the SD is sd_v / (r(c*) E(c*)) (E = -d ln r / d ln c;
    until the block design this model divided by a spurious 2); the sampling error against the
    sample SD adds sqrt(:func:`sampling_variance` / n) in quadrature, and the median
    |log2(scale / SD)| is 0.674 times the total over ln 2 (Gaussian columns). The pilot ladder must
    first locate the column: when its sd (sqrt(p x 7) / (m mu_pilot)) exceeds
    ``SCALE_PILOT_MAX_NOISE`` the scale is prior-dominated and the prediction is 4 octaves.

    Parameters
    ----------
    n, p : int
        Rows and columns (public).
    eps, delta : float
        The call's budget.
    share : float
        Share of the call's Gaussian-DP mu^2 spent on the scales (e.g. 0.2).
    calibration : {"analytic", "classic"}

    Returns
    -------
    dppca.privacy.accuracy.StepAccuracy
        Median |log2(released scale / sample SD)|, octaves; unreliable above 1 (2x).

    Notes
    -----
    Public arithmetic only. Assumes roughly Gaussian columns (mostly-zero or heavy-tailed
    columns are read on the clip ladder and err more).

    Examples
    --------
    >>> from dppca.preprocessing.scale_accuracy import scale_accuracy
    >>> scale_accuracy(569, 30, 4.0, 1e-5, share=0.2).reliable
    True
    >>> scale_accuracy(178, 13, 1.0, 1e-5, share=0.2).reliable
    False
    """
    from ..privacy.accuracy import StepAccuracy
    from ..privacy.composition import GaussianGroup

    m = int(n) // 2
    mu = GaussianGroup(eps, delta, calibration).mu * np.sqrt(share)
    sd_final = np.sqrt(p * np.sum(np.square(SCALE_LADDER_WEIGHTS))) / (m * mu * np.sqrt(SCALE_SHARES[2]))
    sd_pilot = np.sqrt(p * len(SCALE_PILOT_WEIGHTS)) / (m * mu * np.sqrt(SCALE_SHARES[1]))
    r, elasticity = _efficient_clip_ratio()
    relative = np.hypot(sd_final / (r * elasticity), np.sqrt(sampling_variance() / n))
    octaves = 0.674 * relative / np.log(2) if sd_pilot <= SCALE_PILOT_MAX_NOISE else 4.0
    return StepAccuracy("column scales", "median |log2(released scale / sample SD)|",
                        float(octaves), "octaves", 1.0,
                        "roughly Gaussian columns; each column read from its own releases. "
                        "The directions are those of the data divided by these scales, so their "
                        "error adds to the directions' (measured at eps = 4, n >= 400: mean "
                        "sin-theta 1.2-1.25x that with the sample SD declared public)",
                        "more eps (or a larger scale_share), fewer columns, or declared "
                        "scales (scale= / a codebook) for the columns you know")


def _efficient_clip_ratio() -> tuple[float, float]:
    """r(c*) and E(c*) = -d ln r / d ln c at the efficient clip (numerical derivative)."""
    c, step = SCALE_EFFICIENT_CLIP, 1e-4
    r = float(clip_ratio(c))
    return r, float(-(np.log(clip_ratio(c * (1 + step))) - np.log(r)) / np.log1p(step))


def sampling_variance(block_rows=None) -> float:
    """n Var(ln(scale) - ln(sample SD)) of a Gaussian column from the sampling alone (no noise).

    The final moment T is the block design's incomplete U-statistic of the kernel
    h(x, y) = min((x - y)^2, C^2) / C^2, C = c* SD_D, r = E h. Hoeffding's decomposition with
    g(x) = E h(x, Y), zeta_1 = Var g(X), zeta_2 = Var h(X, Y): the complete statistic's
    projection is (2/n) sum_i (g(x_i) - r), and blocks of b rows add (2 / (b - 1))
    (zeta_2 - 2 zeta_1) / n to its variance (Lee 1990, Ch. 4.3). By the delta method
    ln(scale) moves by (T - r) / (r E) (E = -d ln r / d ln c) and ln(sample SD) by
    (1/n) sum_i (z_i^2 - 1) / 2, so n Var = E psi(Z)^2 + (2 / (b - 1)) (zeta_2 - 2 zeta_1) /
    (r E)^2 with psi(z) = 2 (g(z) - r) / (r E) - (z^2 - 1) / 2, computed by Gauss-Hermite
    quadrature. About 0.108 at b = 16 (relative error 1.6% at n = 442), against 0.99 for the mean
    over n/2 disjoint pairs (4.7%): the U-statistic is nearly a function of the sample variance.

    Parameters
    ----------
    block_rows : int, optional
        b; ``SCALE_BLOCK_ROWS`` by default.

    Returns
    -------
    float
        n times the variance (public arithmetic).

    Examples
    --------
    >>> from dppca.preprocessing.scale_accuracy import sampling_variance
    >>> bool(0.1 < sampling_variance() < 0.12)
    True
    """
    b = SCALE_BLOCK_ROWS if block_rows is None else block_rows
    z, w = np.polynomial.hermite_e.hermegauss(200)
    w = w / w.sum()
    clip2 = 2 * SCALE_EFFICIENT_CLIP ** 2  # C^2 for SD_D = sqrt(2)
    kernel = np.minimum((z[:, None] - z[None, :]) ** 2, clip2) / clip2
    r, elasticity = _efficient_clip_ratio()
    mean = w @ kernel @ w
    g = kernel @ w
    zeta1, zeta2 = w @ (g - mean) ** 2, w @ (kernel - mean) ** 2 @ w
    psi = 2 * (g - mean) / (r * elasticity) - (z * z - 1) / 2
    return float(w @ psi ** 2 + 2 * (zeta2 - 2 * zeta1) / ((b - 1) * (r * elasticity) ** 2))


def warn_if_unlocated(noise, m, p) -> None:
    """Issue a DPAccuracyWarning before the scale releases when they will be noise-dominated.

    The rule of :func:`scale_accuracy`: the pilot ladder's noise sd, sqrt(7 p) / (m mu_pilot),
    above ``SCALE_PILOT_MAX_NOISE``.

    Parameters
    ----------
    noise : dppca.privacy.composition.GaussianShare
        The scale budget.
    m, p : int
        Pairs (n // 2) and columns, public.

    Warns
    -----
    DPAccuracyWarning
        Said what would fix it (more eps, fewer columns, declared scales).

    Notes
    -----
    Public arithmetic only (m, p, the budget): the same for neighbouring data sets.

    Examples
    --------
    >>> import warnings
    >>> from dppca.privacy.composition import GaussianGroup
    >>> from dppca.preprocessing.scale_accuracy import warn_if_unlocated
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_unlocated(GaussianGroup(1.0, 1e-5).share(0.2), 89, 13)
    >>> len(caught)
    1
    """
    from ..privacy.accuracy import DPAccuracyWarning, caller_stacklevel

    share = noise.group.share(noise.fraction * SCALE_SHARES[1])
    sd = share.sigma(np.sqrt(p * len(SCALE_PILOT_WEIGHTS)) / max(m, 1))
    if sd > SCALE_PILOT_MAX_NOISE:
        warnings.warn(f"private column scales: at n = {2 * m}, p = {p} and this budget the scales "
                      f"are noise-dominated (pilot noise sd {sd:.2f} > {SCALE_PILOT_MAX_NOISE}); "
                      "expect errors beyond 2x. More eps or scale_share, fewer columns, or "
                      "declared public scales (scale= or a codebook) would fix it",
                      DPAccuracyWarning, stacklevel=caller_stacklevel())


__all__ = ["SCALE_PILOT_MAX_NOISE", "sampling_variance", "scale_accuracy", "warn_if_unlocated"]
