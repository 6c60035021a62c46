"""Analyze Gauss (Dwork, Talwar, Thakurta & Zhang 2014): noisy clipped second-moment matrix."""
from __future__ import annotations

import numpy as np

from .._validation import float_arg, option_arg
from ..privacy import Ledger, gaussian_sigma, split_budget
from ..privacy.samplers import add_gaussian_noise, add_symmetric_gaussian_noise
from ..privacy.quantiles import LOG2_GRID, private_quantile_grid
from ._base import DirectionFit, top_eigen
from ._shared import (BOUND_QUANTILE, clip_rows, paired_differences, resolve_norm_bound,
                      row_norms, second_moment_sensitivity, spherise)

METHOD = "analyze_gauss"
#: A private bound is C = 1 x the private ``bound_quantile`` of the paired-difference norms,
#: on 10% of eps; by default only where the noise is negligible (the 0.95 quantile), the
#: spatial signs (no bound) elsewhere (:func:`default_bound_quantile`).
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
        :func:`default_bound_quantile` from public numbers: where a private quantile cannot
        be found (m bound_share eps < 300, small sets) no bound at all, the rows are the
        spatial signs w_i / ||w_i|| (norm 1, public) and the whole budget goes to the matrix
        (with ``centring="private"``: the median); else the 0.9 quantile where the noise
        still matters and the 0.95 quantile where it is negligible (large sets).
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
        the rows w_i (paired differences, m = floor(n/2), or centred rows, m = n); for the
        spatial-sign default, A = (1/m) sum_i s_i s_i^T, s_i = w_i / ||w_i|| (trace <= 1).

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
    centre's budget; the spatial signs have norm <= 1, a public bound, so sqrt(2) / m with no
    bound released; the centre's error e adds e e^T to A. E = vecd^-1(xi),
    xi ~ N(0, sigma^2 I), sigma from :func:`dppca.privacy.gaussian_sigma`, is the Gaussian
    mechanism on vecd(A)
    (vecd is an isometry). The private bound C is a separate (bound_share eps, 0)-DP release;
    basic composition gives (eps, delta) in total. Directions are post-processing.

    Dwork et al. (2014, Algorithm 1) assume rows of norm <= 1 and add/remove neighbours
    (sensitivity 1); under replace-one the sensitivity is sqrt(2) times larger, as used here.
    Kim & Jung (2025, Appendix C.1) instead divide the centred rows by their largest norm,
    a data-dependent scale that is not accounted for, so that version is not DP; this one
    clips to a private (or public) bound and never uses the sample mean.

    Choice of the bound: the default is :func:`default_bound_quantile`'s. A bound at a
    private quantile of the norms, not at the largest norm: the noise scales as C^2, so a bound
    that clips a few rows costs far less than the noise a larger one adds, and for elliptical
    rows clipping by the norm keeps the eigenvectors (a winsorized spatial sign). For rows far
    from elliptical heavy clipping shifts the target towards the spatial-sign (Kendall)
    directions, which costs at larger eps. ``centring="private"`` (all n rows, half the
    sensitivity) loses at small n eps: a private mean on 20% of the budget has an error of
    several C / sqrt(n eps) per coordinate, whose rank-one bias e e^T exceeds the eigengaps
    unless n eps is large. Measured (median sin-theta to the covariance directions,
    standardised data): benchmarks/bench_methods_real.py,
    benchmarks/results/methods_real_median_sin_theta.csv.

    Cost: O(n p^2 + p^3) time, O(p^2) memory.

    References
    ----------
    Dwork, C., Talwar, K., Thakurta, A. and Zhang, L. (2014). Analyze Gauss: optimal bounds for
    privacy-preserving principal component analysis. STOC 2014, Algorithm 1.
    """
    centring = option_arg(centring, "centring", CENTRINGS)
    rows = paired_differences(values, rng)
    if bound_quantile is None and norm_bound is None:
        bound_share = float_arg(bound_share, "bound_share", open_unit=True)
        bound_quantile = default_bound_quantile(rows.shape[0], rows.shape[1], eps, delta, bound_share)
        if bound_quantile is None and centring == "pairs":
            return _spatial_sign_fit(rows, k, eps, delta, rng, calibration, ledger)
    quantile = BOUND_QUANTILE if bound_quantile is None else bound_quantile
    bound, eps_m, delta_m = resolve_norm_bound(rows, norm_bound, quantile, bound_share,
                                               eps, delta, rng, ledger, METHOD, BOUND_MULTIPLIER,
                                               decay=_tie_decay(quantile, rows.shape[0],
                                                                bound_share * eps))
    if centring == "private":
        share = float_arg(centre_share, "centre_share", open_unit=True)
        parts = split_budget(eps_m, delta_m, {"centre": share, "matrix": 1 - share})
        rows = values - private_centre(values, bound, *parts["centre"], rng, calibration, ledger)
        eps_m, delta_m = parts["matrix"]
    return _second_moment_fit(
        clip_rows(rows, bound), bound, k, eps_m, delta_m, rng, calibration, ledger,
        "directions: clipped second-moment matrix (Analyze Gauss)",
        f"Analyze Gauss on {rows.shape[0]} "
        f"{'paired differences' if centring == 'pairs' else 'privately centred rows'}, rows "
        f"clipped to norm {bound:.4g} ({_bound_source(norm_bound)}); eigenvalues are those of "
        "the noisy clipped second moment.")


def _spatial_sign_fit(rows, k, eps, delta, rng, calibration, ledger) -> DirectionFit:
    """Analyze Gauss on the spatial signs w_i / ||w_i|| (norm <= 1, a public bound): no bound
    is released and the whole (eps, delta) goes to the matrix."""
    return _second_moment_fit(
        spherise(rows), 1.0, k, eps, delta, rng, calibration, ledger,
        "directions: second-moment matrix of the spatial signs (Analyze Gauss)",
        f"Analyze Gauss on the spatial signs of {rows.shape[0]} paired differences (each scaled "
        "to norm 1: the default where the noise dominates, see default_bound_quantile); "
        "eigenvalues are those of the noisy spatial-sign matrix (trace 1).")


def _second_moment_fit(rows, bound, k, eps, delta, rng, calibration, ledger, step, note):
    """The noisy second moment of ``rows`` (norms <= ``bound``) and its top-k eigenpairs."""
    released, sensitivity, sigma = noisy_second_moment(rows, bound, eps, delta, rng, calibration,
                                                       ledger, step=step)
    eigenvalues, vectors = top_eigen(released, k)
    return DirectionFit(vectors, eigenvalues, f"Gaussian ({calibration})", sensitivity, sigma,
                        notes=[note])


#: The least m bound_share eps at which the default searches a private quantile of the norms
#: (below it: the spatial signs, no bound; :func:`default_bound_quantile`).
BOUND_SEARCH_MIN = 300.0
#: The predicted relative noise of the clipped second moment (:func:`bound_noise_level`) at
#: or above which the default quantile is BOUND_QUANTILE_NOISY instead of BOUND_QUANTILE_LARGE.
BOUND_NOISE_SWITCH = 0.055
#: The bound's quantile where the noise still matters.
BOUND_QUANTILE_NOISY = 0.9
#: The bound's quantile where the noise is negligible (clipping bias dominates).
BOUND_QUANTILE_LARGE = 0.95
#: Public tie-breaking of an upper bound quantile (per quarter-octave candidate): when the
#: quantile sits on the largest norm (discrete data), every candidate above it ties, and without
#: it the bound is drawn uniformly up to 2^48. Used above the median only (:func:`_tie_decay`).
BOUND_TIE_DECAY = 1.0
#: The most the decay may pull the bound's quantile, as a share of the m ranks, summed over the
#: whole grid (:func:`_tie_decay`).
BOUND_TIE_PULL = 0.1


def _tie_decay(quantile, m, eps_bound) -> float:
    """The public tie-breaking decay of the bound's quantile search (0 at or below the median).

    The exponential mechanism weighs candidate i by exp(eps_bound u_i / 2 - decay i), u_i minus
    the rank error (sensitivity 1). Candidate i' < i gains at most decay (G - 1) in log weight
    over the G = 385 candidates of the grid, worth 2 decay (G - 1) / eps_bound ranks of
    utility; decay = BOUND_TIE_PULL m eps_bound / (2 (G - 1)) keeps that below 10% of the m
    ranks, so a 0.95 quantile is found at a rank of 0.85 m or more (up to the mechanism's own
    error). The earlier per-candidate rule (0.005 m eps_bound) summed to 1.9 m ranks over the
    grid, more than any utility, and sent the bound to the bottom of the grid (2^-48) whenever
    m eps_bound < ~400 (e.g. 0.95 of 2,000 Gaussian pairs at eps = 1 gave C = 3.6e-15).
    """
    if quantile <= 0.5:
        return 0.0
    return min(BOUND_TIE_DECAY, BOUND_TIE_PULL * m * eps_bound / (2 * (LOG2_GRID.size - 1)))


def bound_noise_level(m, p, eps, delta, bound_share=BOUND_SHARE) -> float:
    """Predicted noise of Analyze Gauss's released matrix relative to its clipped second moment.

    nu = sqrt(2) sqrt(2 ln(1.25 / delta)) p^1.5 / (m (1 - bound_share) eps): for rows of norm
    ~C the sensitivity is sqrt(2) C^2 / m (:func:`._shared.second_moment_sensitivity`), the
    classic Gaussian sigma is that times sqrt(2 ln(1.25 / delta)) / eps_m with
    eps_m = (1 - bound_share) eps, the spectral norm of the symmetric noise is ~2 sigma sqrt(p)
    and the eigenvalues of the clipped second moment are ~C^2 / p; the constant 2 is dropped
    (a scale for the switch, not an error bound). The ratio is the same for any C.

    Parameters
    ----------
    m : int
        Number of rows (paired differences), public; m >= 1.
    p : int
        Number of columns, p >= 1.
    eps, delta : float
        The method's budget (eps > 0, 0 < delta < 1).
    bound_share : float in [0, 1)
        Share of eps spent on the bound (0 with a declared ``norm_bound``).

    Returns
    -------
    float
        nu >= 0, unitless.

    Notes
    -----
    Privacy: public arithmetic only (m, p, eps, delta, bound_share); nothing is released.

    Examples
    --------
    >>> from dppca.methods.analyze_gauss import bound_noise_level
    >>> round(bound_noise_level(10095, 10, 1.0, 1e-5), 3)   # randhie
    0.024
    """
    return float(np.sqrt(2.0) * np.sqrt(2 * np.log(1.25 / delta)) * p ** 1.5
                 / (m * eps * (1 - bound_share)))


def default_bound_quantile(m, p, eps, delta, bound_share=BOUND_SHARE) -> float | None:
    """The default bound of Analyze Gauss, from public numbers: spatial signs or a quantile.

    Two public numbers decide. x = m bound_share eps says whether a private quantile of the
    norms can be found at all: the exponential mechanism's rank error is about
    2 ln(385) / eps_bound = 11.9 m / x ranks, so below x = ``BOUND_SEARCH_MIN`` (300) it is
    more than 40% of the 0.1 m ranks above a 0.9 quantile, and the bound can land anywhere
    (the matrix noise grows as C^2). There the rows are the spatial signs w_i / ||w_i||: no
    bound is released, the whole budget goes to the matrix, and for elliptical rows the
    eigenvectors are kept. Above it, nu (:func:`bound_noise_level`) says whether the noise
    still matters: where it does (nu >= ``BOUND_NOISE_SWITCH``, 0.055) the 0.9 quantile,
    where it is negligible the 0.95 quantile (clipping bias, large for heavy-tailed rows,
    dominates: a median bound can leave a sin-theta near 1 where the 0.95 quantile's is ~0.3).

    Parameters
    ----------
    m : int
        Number of rows (paired differences), public.
    p : int
        Number of columns.
    eps, delta : float
        The method's budget.
    bound_share : float in (0, 1)
        Share of eps a private bound would spend.

    Returns
    -------
    float or None
        None (the spatial signs, no bound) where m bound_share eps < 300; else 0.9
        (``BOUND_QUANTILE_NOISY``) where nu >= 0.055, 0.95 (``BOUND_QUANTILE_LARGE``) below.

    Notes
    -----
    Privacy: public arithmetic only (m, p, eps, delta, bound_share): the choice is the same
    for neighbouring data sets.

    Measured in benchmarks/results/small_data_gauss.txt (mean sin-theta of the top-2 subspace
    to the covariance PCA over 20 seeds, 5 for n > 10,000, standardized data, delta = 1e-5):
    the default's ratio to the better of the private median and 0.95 bounds, per data set and
    eps. A median bound wherever nu >= 0.055 loses up to 1.4x where the noise is moderate (the
    0.9 quantile clips less of the spread), and the spatial signs lose up to 1.6x once x is a
    few hundred (their bias stays while the quantile's noise shrinks). The switch x = 300 lies
    between the measured cells where the signs beat the 0.9 quantile (x = 250) and where they
    tie or lose (x = 359 and 500).

    Examples
    --------
    >>> from dppca.methods.analyze_gauss import default_bound_quantile
    >>> default_bound_quantile(284, 30, 1.0, 1e-5) is None   # breast_cancer: the signs
    True
    >>> default_bound_quantile(898, 61, 4.0, 1e-5), default_bound_quantile(10095, 10, 1.0, 1e-5)
    (0.9, 0.95)
    """
    if m * bound_share * eps < BOUND_SEARCH_MIN:
        return None
    if bound_noise_level(m, p, eps, delta, bound_share) >= BOUND_NOISE_SWITCH:
        return BOUND_QUANTILE_NOISY
    return BOUND_QUANTILE_LARGE


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

__all__ = ["analyze_gauss_directions", "bound_noise_level", "default_bound_quantile",
           "noisy_second_moment", "private_centre"]
