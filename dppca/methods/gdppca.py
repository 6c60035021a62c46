"""g-DPPCA (Kim & Jung 2025) and the non-private reference (sample covariance)."""
from __future__ import annotations

import math
import re
import textwrap

import numpy as np

from ..preprocessing import VALUE_BOUND
from ..stats.kendall import sign_bound
from ..stats.pair_design import block_sum_slack, resolve_design
from ..stats.present_spatial_kendall import present_statistic
from .._validation import DPPCAValueError
from ..privacy import Ledger, gaussian_sigma
from ..privacy.accuracy import StepAccuracy
from ..privacy.neighbouring import row_bounds
from ..privacy.samplers import add_symmetric_gaussian_noise
from ._base import DirectionFit, top_eigen
from .gdppca_accuracy import (BOUND_LEVEL, GAP_INFLATION, RANDOM_LEVEL, released_direction_accuracy,
                              released_direction_bound)


#: Frobenius sensitivity of K_g is this constant times ||g||_inf^2 / n (proof in gdppca_directions).
GDPPCA_SENSITIVITY_CONSTANT = 2.0 * np.sqrt(2.0)

#: The constant of Kim & Jung (2025, Prop. 2.1) and of the R package: 4 ||g||_inf^2 / n.
R_DPPCA_SENSITIVITY_CONSTANT = 4.0

#: ``noise=`` choices: the tight constant, or the R package's noise reproduced exactly.
NOISES = ("tight", "r_dppca")

#: The one sentence every docstring, summary and document uses for the g-DPPCA sensitivity.
GDPPCA_SENSITIVITY_SENTENCE = (
    "g-DPPCA releases the generalized Kendall's tau matrix K_g plus symmetric Gaussian noise; "
    "its Frobenius sensitivity under replace-one neighbours is 2 sqrt(2) ||g||_inf^2 / n "
    "(2 sqrt(2)/n for the spherical sign; Kim & Jung 2025, Prop. 2.1, with the tight constant "
    "proved in dppca.methods.gdppca.gdppca_directions).")

#: What a docstring writes where it states the g-DPPCA sensitivity (see states_gdppca_sensitivity).
SENSITIVITY_PLACEHOLDER = "{gdppca_sensitivity}"


def states_gdppca_sensitivity(func):
    """Decorator: write :data:`GDPPCA_SENSITIVITY_SENTENCE` where ``func``'s docstring says
    ``{gdppca_sensitivity}``, wrapped at 96 columns with that line's indentation and prefix.

    One sentence, one constant: every public docstring that states the g-DPPCA sensitivity
    takes it from here, so it cannot go stale.

    Parameters
    ----------
    func : callable
        A function whose docstring holds the placeholder on a line of its own (after an
        optional prefix such as ``"* directions: "``).

    Returns
    -------
    callable
        ``func`` itself, with the sentence in its docstring.

    Examples
    --------
    >>> @states_gdppca_sensitivity
    ... def f():
    ...     '''Notes: {gdppca_sensitivity}'''
    >>> "2 sqrt(2)" in f.__doc__
    True
    """
    def wrap(match):
        indent, prefix = match.group(1), match.group(2)
        hanging = " " * len(prefix) if prefix.startswith(("* ", "- ")) else ""
        text = (prefix + GDPPCA_SENSITIVITY_SENTENCE).replace("2 sqrt(2)", "2\u00a0sqrt(2)")
        return textwrap.fill(text, width=96, initial_indent=indent,
                             subsequent_indent=indent + hanging).replace("\u00a0", " ")

    pattern = r"^([ \t]*)(.*?)" + re.escape(SENSITIVITY_PLACEHOLDER) + r"[ \t]*$"
    func.__doc__ = re.sub(pattern, wrap, func.__doc__, flags=re.M)
    return func


def nonprivate_directions(values: np.ndarray, k: int, **_) -> DirectionFit:
    """Top-k eigenvectors of the sample covariance (denominator n - 1). NON-PRIVATE.

    Parameters
    ----------
    values : ndarray, shape (n, p)
    k : int, 1 <= k <= p

    Raises
    ------
    DPPCAValueError
        The sample covariance overflows float64, or an entry is at the public bound
        ``VALUE_BOUND`` = 2^400 (input beyond it was clamped by
        :func:`dppca.preprocessing.clamp_values`): a silently wrong answer otherwise.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        covariance = np.cov(values, rowvar=False, ddof=1).reshape(values.shape[1], -1)
    largest = float(np.max(np.abs(values), initial=0.0))
    if not np.isfinite(covariance).all() or largest >= VALUE_BOUND:
        raise DPPCAValueError(f"`X` is too large for the NON-PRIVATE sample covariance: it "
                              f"overflows float64 or holds values at the bound +-2^400 beyond "
                              f"which input is clamped (largest |entry| {largest:.3g}); divide "
                              "the data by a public constant first")
    eigenvalues, vectors = top_eigen(covariance, k)
    return DirectionFit(vectors, eigenvalues, notes=["Eigenvalues are those of the sample covariance "
                                                     "(denominator n - 1)."])


def bounded_xi(xi, xi_bound: float):
    """The user scale function clipped into [0, xi_bound], so that ||g(t)|| <= xi_bound.

    The declared bound sets the noise, so it is enforced on both sides: a value above the
    bound, or below zero (|xi| = 10 for xi = -10), would make ||g|| exceed ``xi_bound``
    and the release would not be private. NaN values become 0 (``np.clip`` keeps NaN, so
    they are replaced explicitly).

    Parameters
    ----------
    xi : callable
        Vectorised scale function of the norms, ndarray -> ndarray of the same shape.
    xi_bound : float, > 0
        The declared bound sup_s xi(s).

    Returns
    -------
    callable
        s -> clip(xi(s), 0, xi_bound).

    Examples
    --------
    >>> import numpy as np
    >>> bounded_xi(lambda s: -10 * s, 1.0)(np.array([1.0, 2.0]))
    array([0., 0.])
    """
    def clipped(s):
        return np.nan_to_num(np.clip(xi(s), 0.0, xi_bound), nan=0.0)

    return clipped


def gdppca_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                      rng: np.random.Generator, calibration: str, ledger: Ledger,
                      sign: str = "spherical", radius=None, xi=None, xi_bound=None,
                      design: str = "auto", pairs_per_row=None, noise: str = "tight",
                      missing=None, rows=None) -> DirectionFit:
    """g-DPPCA: top-k eigenvectors of the generalized Kendall's tau matrix plus symmetric Gaussian noise.

    Parameters
    ----------
    values : ndarray, shape (n, p)
        Preprocessed data (centring does not matter: K_g uses pairwise differences).
    k : int
    eps, delta : float
        Budget of this release.
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    sign, radius, xi, xi_bound
        The generalized spatial sign g, see :func:`dppca.stats.kendall.spatial_sign`.
    design : {"auto", "complete", "incomplete"}
        All n(n-1)/2 pairs, or an incomplete U-statistic over a random block design with
        ``pairs_per_row`` pairs per row (:mod:`dppca.stats.pair_design`); "auto" is complete while
        that costs under about a second and incomplete above
        (:func:`dppca.stats.pair_design.pairs_per_row_rule`). The sensitivity is the same.
    pairs_per_row : int, optional
        r for the incomplete design (default from the rule).
    noise : {"tight", "r_dppca"}
        ``"tight"``: sensitivity 2 sqrt(2) ||g||_inf^2 / n (below). ``"r_dppca"``: the paper's
        and the R package's 4 ||g||_inf^2 / n (a valid, looser bound: more noise), to
        reproduce the R package's numbers; ``dp_pc_dir`` pairs it with the classic calibration.
    missing : {None, "pairwise"}
        "pairwise": NaN cells are skipped pairwise (:mod:`dppca.stats.present_spatial_kendall`).
    rows : dppca.privacy.neighbouring.RowBounds, optional
        Add/remove neighbours: the sensitivity at n_lo + 1 rows, the rounding slack at n_hi
        (:func:`dppca.methods.add_remove.kendall_add_remove_sensitivity`, complete design).
        Default: replace-one, n public.

    Returns
    -------
    DirectionFit
        Eigenvectors and eigenvalues of K_g + vecd^-1(xi).

    Notes
    -----
    Privacy (after Kim & Jung 2025, Proposition 2.1, with a tighter constant): replacing
    one row changes only the n - 1 pairs that contain it. For one pair the old and new
    terms are a a^T and b b^T with ||a||, ||b|| <= G = ||g||_inf, and
    ||a a^T - b b^T||_F^2 = ||a||^4 + ||b||^4 - 2 (a^T b)^2 <= 2 G^4, so they differ by at
    most sqrt(2) G^2 (the paper's triangle inequality gives 2 G^2). With the factor
    2/(n(n-1)) the Frobenius sensitivity of K_g is 2 sqrt(2) G^2 / n, about 0.71 times the
    paper's (and the R package's) 4 G^2 / n. The bound is attained: move one far-away row
    from direction e_1 to e_2 and every pair term changes by e_1 e_1^T - e_2 e_2^T.
    The noise vecd^-1(xi), xi ~ N(0, sigma^2 I_{p(p+1)/2}), is the Gaussian mechanism
    on vecd(K_g) (vecd is an isometry), so the matrix, and its eigenvectors by
    post-processing, are (eps, delta)-DP. ||g||_inf = 1 (spherical), radius (winsorized,
    default sqrt(p)), or the user's ``xi_bound``. The noise is drawn by
    :func:`dppca.privacy.samplers.add_symmetric_gaussian_noise`, which keeps the guarantee in
    floating point (snapping to a power-of-two grid, exact rounded-Gaussian draws; its sigma is
    the calibrated one times 1 + p gamma / Delta, gamma <= 2^-46 sigma). In floating point the
    computed K_g carries the engine's rounding, so the tight constant is released as
    2 sqrt(2) (1 + rho) with rho from :func:`dppca.stats.pair_design.block_sum_slack` (the
    engine's :func:`dppca.stats.kendall.rounding_slack`, 1.6e-3 at n = 5000, p = 20, plus the
    rounding of the sum over blocks of an incomplete design).
    """
    n, p = values.shape
    r = resolve_design(design, pairs_per_row, n, p, eps, delta, calibration)
    n_sensitivity, n_slack = row_bounds(n, rows)
    # The tight constant carries the engine's rounding slack (R's 4 has room to spare).
    constant = R_DPPCA_SENSITIVITY_CONSTANT if noise == "r_dppca" else \
        GDPPCA_SENSITIVITY_CONSTANT * (1 + block_sum_slack(n_slack, r, p))
    sensitivity = constant * sign_bound(p, sign=sign, radius=radius, xi_bound=xi_bound,
                                        xi=xi) ** 2 / n_sensitivity
    sigma = gaussian_sigma(sensitivity, eps, delta, calibration)
    if xi is not None:
        xi = bounded_xi(xi, xi_bound)
    statistic, design_note = present_statistic(values, r, rng, missing, sign=sign, radius=radius,
                                               xi=xi)
    released, sigma = add_symmetric_gaussian_noise(statistic, sigma, sensitivity, rng)
    ledger.record("directions: Kendall's tau matrix", f"Gaussian ({calibration})", sensitivity,
                  "Frobenius", sigma, eps, delta)
    spectrum, vectors = top_eigen(released, p)  # one eigh: the whole spectrum feeds the accuracy
    return DirectionFit(vectors[:, :k], spectrum[:k], f"Gaussian ({calibration})", sensitivity,
                        sigma,
                        notes=[f"Generalized spatial sign: {sign if xi is None else 'user xi'}; "
                               "noise on the diagonal has sd sigma, off-diagonal sigma/sqrt(2).",
                               f"Kendall's tau matrix: {design_note}."],
                        spectrum=spectrum)

#: Above this predicted sin-theta the directions are unreliable (noise dominates the gap).
DIRECTION_THRESHOLD = 0.5


def direction_accuracy(n, p, k, eps, delta, calibration="analytic", gap=None) -> StepAccuracy:
    """Predicted sin-theta of g-DPPCA's directions from its noise sd and an assumed eigengap.

    Davis-Kahan: sin-theta <= ||E|| / gap, E the symmetric noise of the Kendall matrix (sd sigma
    on the diagonal, sigma / sqrt 2 off it, ||E|| ~ sqrt(2 p) sigma), sigma the Gaussian
    mechanism's sd for the spherical sign's Frobenius sensitivity 2 sqrt(2) / n.

    Parameters
    ----------
    n, p, k : int
        Rows, columns, components (public).
    eps, delta : float
        The directions' budget.
    calibration : {"analytic", "classic"}
    gap : float, optional
        Assumed gap between the k-th and (k+1)-th eigenvalues of the Kendall matrix (trace 1).
        Default 1 / p (the k-th component stands out from the rest by an average eigenvalue).

    Returns
    -------
    StepAccuracy

    Examples
    --------
    >>> direction_accuracy(150, 4, 2, 4.0, 1e-5).reliable
    True
    """
    sensitivity = GDPPCA_SENSITIVITY_CONSTANT / n
    return direction_noise_accuracy(n, p, k, sensitivity,
                                    gaussian_sigma(sensitivity, eps, delta, calibration), gap)


def direction_noise_accuracy(n, p, k, sensitivity, sigma, gap=None) -> StepAccuracy:
    """:func:`direction_accuracy` from a release's sensitivity and noise sd (e.g. its ledger).

    The Kendall matrix's trace is G^2 = sensitivity n / (2 sqrt 2) (the sign bound squared);
    the assumed gap is ``gap`` (default 1 / p) times that trace.

    Examples
    --------
    >>> round(direction_noise_accuracy(1000, 4, 2, 2.83e-3, 0.01).predicted, 3)
    0.113
    """
    gap = 1.0 / p if gap is None else float(gap)
    trace = sensitivity * n / GDPPCA_SENSITIVITY_CONSTANT
    predicted = min(1.0, math.sqrt(2.0 * p) * sigma / (gap * trace))
    return StepAccuracy("directions", "sin-theta of the top-k subspace", predicted, "sin-theta",
                        DIRECTION_THRESHOLD, f"Kendall eigengap lambda_{k} - lambda_{k + 1} >= "
                        f"{gap:.3g} x its trace", "more eps, more rows or fewer columns")


__all__ = ["BOUND_LEVEL", "GAP_INFLATION", "RANDOM_LEVEL", "bounded_xi", "direction_accuracy",
           "direction_noise_accuracy", "gdppca_directions", "nonprivate_directions",
           "released_direction_accuracy", "released_direction_bound", "states_gdppca_sensitivity"]
