"""The rank path: PCA of the latent Gaussian-copula correlation, from a private Kendall's tau matrix.

The estimand is the correlation matrix of the latent Gaussian copula (Han & Liu 2012, COCA;
Han & Liu 2014): invariant under increasing transforms of every column, so it needs no column
scales, no clipping and no tail assumption, and it is Pearson correlation PCA for Gaussian data.
The release is the elementwise Kendall's tau-a matrix (upper triangle with the diagonal) plus
Gaussian noise; the tau-b normalisation, the sine bridge and the repair to a correlation matrix
(:mod:`dppca.stats.copula_bridge`) are post-processing. Precedent: DPCopula (Li, Xiong & Jiang
2014) releases Kendall's tau with noise and applies the sine bridge.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .._validation import DPPCAValueError
from ..privacy import Ledger, gaussian_mechanism, gaussian_sigma
from ..privacy.accuracy import AccuracyReport, StepAccuracy
from ..stats.copula_bridge import DIAGONAL_FLOOR, latent_correlation
from ..stats.elementwise_kendall import kendall_tau_matrix
from ._base import DirectionFit, top_eigen
from .gdppca import DIRECTION_THRESHOLD, released_direction_accuracy

__all__ = ["ESTIMAND", "PROPORTION_FLOOR", "SHARE_OF_PROPORTIONS", "binary_proportions",
           "bridged_noise_sd", "latent_correlation_directions", "nonprivate_latent_directions",
           "rank_accuracy", "rank_columns", "rank_direction_accuracy", "rank_tau_sensitivity",
           "release_kendall_tau", "release_mixed", "repelled_spectrum", "sine_block_noise_sd"]

#: The estimand, in the words every summary uses.
ESTIMAND = ("Estimand: latent Gaussian-copula correlation (Han & Liu 2012), from the elementwise "
            "Kendall's tau with the sine bridge; equals Pearson correlation PCA for Gaussian data "
            "and is unchanged by increasing transforms of any column.")

#: Largest n for which the pair count n (n - 1) / 2 and every sign sum are exact in float64
#: (< 2^53), so that T = count / pairs is one correctly rounded division (the rounding slack of
#: :func:`rank_tau_sensitivity` rests on it).
MAX_ROWS = 100_000_000

#: Unit roundoff of float64.
_UNIT_ROUNDOFF = 2.0 ** -53


def rank_columns(X):
    """Column types of the rank path from the dtypes: binary columns recoded 0/1, the mask.

    Types come from the dtypes (public), never from cell values: a bool column, or a
    Categorical with exactly 2 categories (its second category is level 1), is binary; every
    numeric column is continuous (ties allowed: the tau-b normalisation takes them into
    account). Ordinal and truncated bridges (Quan, Booth & Wells 2018; Yoon, Carroll &
    Gaynanova 2020) are not built: a Categorical with another number of categories is refused.

    Parameters
    ----------
    X : object
        The caller's data; only a pandas DataFrame (or Series) carries dtypes.

    Returns
    -------
    X : object
        ``X`` itself, or a DataFrame copy whose binary columns are float 0/1 (missing values
        stay NaN, for the input check).
    binary : ndarray of bool, shape (p,), or None
        The binary columns; None when there are none.

    Raises
    ------
    DPPCAValueError
        A Categorical column with other than 2 categories.

    Examples
    --------
    >>> import pandas as pd
    >>> frame, binary = rank_columns(pd.DataFrame({"a": [1.5, 2.0], "b": [True, False]}))
    >>> frame["b"].tolist(), binary.tolist()
    ([1.0, 0.0], [False, True])
    """
    import pandas as pd

    if isinstance(X, pd.Series):
        X = X.to_frame()
    if not isinstance(X, pd.DataFrame):
        return X, None
    categorical = {str(name): len(dtype.categories) for name, dtype in X.dtypes.items()
                   if isinstance(dtype, pd.CategoricalDtype)}
    other = {name: levels for name, levels in categorical.items() if levels != 2}
    if other:
        raise DPPCAValueError(f"the rank path takes binary Categorical columns (2 categories) "
                              f"only; {other} (column: categories) have other numbers of "
                              "categories; ordinal bridges are not built yet")
    binary = np.array([pd.api.types.is_bool_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype)
                       for dtype in X.dtypes])
    if not binary.any():
        return X, None
    X = X.copy()
    for name, is_binary in zip(list(X.columns), binary):
        if is_binary:
            column = X[name]
            codes = column.cat.codes if isinstance(column.dtype, pd.CategoricalDtype) else \
                column.astype("boolean").astype("Int64")
            X[name] = pd.Series(codes, index=X.index).astype(float).where(column.notna())
    return X, binary


def rank_tau_sensitivity(n: int, p: int) -> float:
    """L2 sensitivity of the released tau vector (T_jk, j <= k) under replace-one neighbours.

    Parameters
    ----------
    n : int
        Rows (public), n >= 2.
    p : int
        Columns, p >= 1.

    Returns
    -------
    float
        2 p / n plus the float64 rounding slack 2 sqrt(p (p + 1) / 2) 2^-53 (see Notes).

    Raises
    ------
    DPPCAValueError
        If n > :data:`MAX_ROWS` (the counts would no longer be exact in float64).

    Notes
    -----
    Proof. T = (2 / (n (n - 1))) sum_{i < i'} f(s_ii'), with s_ii' = sign(x_i - x_i') in
    {-1, 0, 1}^p (elementwise) and f(s) = (s_j s_k)_{j <= k}. Replacing row i changes only the
    n - 1 terms of the pairs (i, i'). For two sign vectors u, v let A = #{j: u_j != 0, v_j != 0},
    B = #{u_j != 0, v_j = 0}, C = #{u_j = 0, v_j != 0} and m = #{j counted in A: u_j = -v_j}.
    Then ||u u^T - v v^T||_F^2 = ||u||^4 + ||v||^4 - 2 (u.v)^2 = (A + B)^2 + (A + C)^2
    - 2 (A - 2m)^2, and its diagonal part is sum_j (u_j^2 - v_j^2)^2 = B + C, so
    ||f(u) - f(v)||^2 = sum_{j<k} (u_j u_k - v_j v_k)^2 + sum_j (u_j^2 - v_j^2)^2
    = (||u u^T - v v^T||_F^2 - (B + C)) / 2 + (B + C)
    = (1/2) [(A + B)^2 + (A + C)^2 - 2 (A - 2m)^2 + (B + C)]
    <= (1/2) [(A + B)^2 + (A + C)^2 + B + C] =: g(A, B, C).
    g is convex (squares of linear forms plus a linear form), so on the simplex A, B, C >= 0,
    A + B + C <= p it is largest at a vertex: g(0,0,0) = 0, g(p,0,0) = p^2,
    g(0,p,0) = g(0,0,p) = (p^2 + p) / 2 <= p^2. So each pair's term moves by at most p in L2
    (attained for even p with A = p, m = p / 2: every sign kept, half of them flipped), the
    n - 1 terms by at most (n - 1) p, and T by at most 2 (n - 1) p / (n (n - 1)) = 2 p / n.
    The bound is attained: a row above every other row in all coordinates that moves below
    them in p / 2 coordinates changes every one of its n - 1 pair terms by the same vector of
    norm p.

    Floating point: each S_jk is an exact int64 count (|S_jk| <= P = n (n - 1) / 2 < 2^53, exact
    in float64 for n <= MAX_ROWS) and T_jk = S_jk / P is one correctly rounded division, so
    fl(T_jk) = T_jk (1 + e_jk), |e_jk| <= 2^-53, |T_jk| <= 1. For neighbours X, X',
    ||fl(T) - fl(T')|| <= ||T - T'|| + ||T e|| + ||T' e'|| <= 2 p / n + 2 sqrt(m) 2^-53,
    m = p (p + 1) / 2 entries. The snapping of the noise (:func:`dppca.privacy.gaussian_mechanism`)
    covers the rest.

    Examples
    --------
    >>> from dppca.methods.latent_correlation import rank_tau_sensitivity
    >>> round(rank_tau_sensitivity(1000, 5), 12)
    0.01
    """
    if n > MAX_ROWS:
        raise DPPCAValueError(f"the rank path takes at most {MAX_ROWS} rows (exact pair counts in "
                              f"float64); got n = {n}")
    entries = p * (p + 1) / 2.0
    return 2.0 * p / n + 2.0 * math.sqrt(entries) * _UNIT_ROUNDOFF


def latent_correlation_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                                  rng: np.random.Generator, calibration: str,
                                  ledger: Ledger, binary=None) -> DirectionFit:
    """Top-k eigenvectors of the latent Gaussian-copula correlation, from a private Kendall's tau.

    Parameters
    ----------
    values : ndarray, shape (n, p)
        The data (no scaling needed: only the order of each column's values is used).
    k : int
        Number of directions, 1 <= k <= p.
    eps, delta : float
        Budget of the release.
    rng : numpy.random.Generator
        Source of the noise.
    calibration : {"analytic", "classic"}
        Gaussian calibration (:func:`dppca.privacy.gaussian_sigma`).
    ledger : Ledger
        Where the release is recorded.
    binary : sequence of bool, shape (p,), optional
        Public column types: True for a binary column (its level is 1 where the value exceeds
        0.5; bool and two-level Categorical columns arrive coded 0/1), whose share of ones is
        then released too and whose pairs use the Fan, Liu, Ning & Zou (2017) bridges
        (:func:`dppca.stats.copula_bridge.binary_bridge`). Default: every column continuous.

    Returns
    -------
    DirectionFit
        Eigenvectors and eigenvalues of the repaired latent correlation matrix (trace p);
        ``sensitivity`` and ``noise_sd`` of the tau release; ``spectrum`` all p eigenvalues.

    Raises
    ------
    DPPCAValueError
        n > :data:`MAX_ROWS`.

    See Also
    --------
    nonprivate_latent_directions : The same without noise (NON-PRIVATE).
    rank_tau_sensitivity : The sensitivity and its proof.

    Notes
    -----
    Privacy: the vector (T_jk)_{j <= k} (p (p + 1) / 2 numbers, the diagonal included) of the
    elementwise Kendall's tau-a matrix is released by the Gaussian mechanism with L2
    sensitivity 2 p / n under replace-one neighbours, n public (proof in
    :func:`rank_tau_sensitivity`), so it is (eps, delta)-DP. The tau-b normalisation by the
    noisy diagonal, the sine bridge, the nearest-correlation repair and the eigenvectors are
    post-processing. With b binary columns the vector of their shares of ones (L2 sensitivity
    sqrt(b) / n plus the rounding slack 2 sqrt(b) 2^-53: one row moves each share by at most
    1 / n) is released too; the two Gaussian releases form one Gaussian-DP group (Dong, Roth &
    Su 2022) with :data:`SHARE_OF_PROPORTIONS` of mu^2 for the shares, so together they are
    (eps, delta)-DP. Estimand: :data:`ESTIMAND`.

    References
    ----------
    Han, F. and Liu, H. (2012). Semiparametric principal component analysis. NIPS 25.
    Li, H., Xiong, L. and Jiang, X. (2014). Differentially private synthesization of
    multi-dimensional data using copula functions. EDBT 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy import Ledger
    >>> from dppca.methods.latent_correlation import latent_correlation_directions
    >>> x = np.random.default_rng(0).normal(size=(500, 3))
    >>> ledger = Ledger(1.0, 1e-5)
    >>> fit = latent_correlation_directions(x, 2, eps=1.0, delta=1e-5, calibration="analytic",
    ...                                     rng=np.random.default_rng(1), ledger=ledger)
    >>> fit.vectors.shape, len(ledger)
    ((3, 2), 1)
    """
    binary = _binary_mask(binary, values.shape[1])
    if not binary.any():
        released, sensitivity, sigma = release_kendall_tau(values, eps, delta, rng, calibration,
                                                           ledger)
        thresholds = None
    else:
        released, sensitivity, sigma, thresholds = release_mixed(values, binary, eps, delta,
                                                                  rng, calibration, ledger)
    fit, basis = _fit_with_basis(released, k, f"Gaussian ({calibration})", sensitivity, sigma,
                                 thresholds)
    bridged = bridged_noise_sd(released, sigma)
    # g-DPPCA's convention (diagonal sd); with binary columns the bridges' slopes differ from
    # the sine's, so the bound at the largest sine slope stands in
    fit.matrix_noise_sd = math.sqrt(2.0) * bridged if thresholds is not None else \
        sine_block_noise_sd(released, sigma, k, fit.spectrum, basis)
    fit.notes.append(f"Noise sd {sigma:.3g} on every released tau entry (diagonal included); "
                     f"on each latent correlation at most {bridged:.3g} (the bridge's Lipschitz "
                     "factor), before the repair.")
    return fit


def release_kendall_tau(values: np.ndarray, eps: float, delta: float, rng: np.random.Generator,
                        calibration: str = "analytic", ledger: Ledger | None = None):
    """The private elementwise Kendall's tau-a matrix: its p (p + 1) / 2 entries j <= k plus noise.

    Parameters
    ----------
    values : ndarray, shape (n, p)
        The data.
    eps, delta : float
        Budget of the release.
    rng : numpy.random.Generator
        Source of the noise.
    calibration : {"analytic", "classic"}
        Gaussian calibration.
    ledger : Ledger, optional
        Where the release is recorded.

    Returns
    -------
    released : ndarray, shape (p, p)
        The symmetric noisy matrix (each entry j <= k carries its own noise draw).
    sensitivity : float
        :func:`rank_tau_sensitivity` (n, p).
    sigma : float
        The noise sd.

    Notes
    -----
    (eps, delta)-DP under replace-one neighbours, n public: the Gaussian mechanism
    (:func:`dppca.privacy.gaussian_mechanism`, floating-point safe samplers) on the vector
    (T_jk)_{j <= k} with the L2 sensitivity 2 p / n proved in :func:`rank_tau_sensitivity`.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.latent_correlation import release_kendall_tau
    >>> x = np.random.default_rng(0).normal(size=(100, 2))
    >>> released, sensitivity, sigma = release_kendall_tau(x, 1.0, 1e-5, np.random.default_rng(1))
    >>> released.shape, sensitivity
    ((2, 2), 0.04)
    """
    n, p = values.shape
    sensitivity = rank_tau_sensitivity(n, p)
    rows, cols = np.triu_indices(p)
    tau = kendall_tau_matrix(values)
    noisy, sigma = gaussian_mechanism(tau[rows, cols], sensitivity, eps, delta, rng,
                                      calibration=calibration, ledger=ledger,
                                      step="directions: elementwise Kendall's tau (j <= k)")
    released = np.zeros((p, p))
    released[rows, cols] = noisy
    released[cols, rows] = noisy
    return released, sensitivity, sigma


def nonprivate_latent_directions(values: np.ndarray, k: int, binary=None, **_) -> DirectionFit:
    """Top-k eigenvectors of the latent Gaussian-copula correlation. NON-PRIVATE.

    Parameters
    ----------
    values : ndarray, shape (n, p)
        The data.
    k : int
        Number of directions, 1 <= k <= p.
    binary : sequence of bool, shape (p,), optional
        Binary columns, as in :func:`latent_correlation_directions`.
    **_
        Privacy arguments, ignored.

    Returns
    -------
    DirectionFit
        As :func:`latent_correlation_directions`, from the tau matrix without noise.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.latent_correlation import nonprivate_latent_directions
    >>> x = np.random.default_rng(0).normal(size=(200, 3))
    >>> fit = nonprivate_latent_directions(x, 1)
    >>> bool(np.allclose(fit.vectors, nonprivate_latent_directions(np.exp(x), 1).vectors))
    True
    """
    binary = _binary_mask(binary, values.shape[1])
    thresholds = None
    if binary.any():
        thresholds = _thresholds(binary_proportions(values, binary), binary)
    return _fit(kendall_tau_matrix(values), k, "none", float("nan"), float("nan"), thresholds)


def bridged_noise_sd(released, sigma: float, floor: float = DIAGONAL_FLOOR) -> float:
    """Largest sd of the noise that the tau-b normalisation and the sine bridge pass to R_jk.

    |d sin(pi t / 2) / dt| <= pi / 2 and the normalisation divides by sqrt(d_j d_k) with
    d = clip(released diagonal, floor, 1), so noise of sd sigma on T_jk is at most
    (pi / 2) sigma / min_{j != k} sqrt(d_j d_k) on R_jk (to first order). Post-processing.

    Parameters
    ----------
    released : ndarray, shape (p, p)
        The released (noisy) tau matrix.
    sigma : float
        The release's noise sd.
    floor : float
        The diagonal floor of :func:`dppca.stats.copula_bridge.latent_correlation`.

    Returns
    -------
    float
        The bound, in correlation units.

    Examples
    --------
    >>> import numpy as np
    >>> round(bridged_noise_sd(np.eye(3), 0.01), 5)
    0.01571
    """
    diagonal = np.sort(np.clip(np.diag(np.asarray(released, dtype=float)), floor, 1.0))
    smallest = math.sqrt(diagonal[0] * diagonal[min(1, diagonal.size - 1)])
    return 0.5 * math.pi * float(sigma) / smallest


def sine_block_noise_sd(released, sigma: float, k: int, spectrum, vectors,
                        floor: float = DIAGONAL_FLOOR) -> float:
    """The noise level that sets the released directions' error, from the release alone.

    Parameters
    ----------
    released : ndarray, shape (p, p)
        The released (noisy) tau-a matrix, all columns continuous.
    sigma : float
        The release's noise sd (every entry j <= k, the diagonal included).
    k : int
        Number of directions, 1 <= k <= p.
    spectrum : array_like, shape (p,)
        All eigenvalues of the released latent correlation, decreasing.
    vectors : array_like, shape (p, p)
        Its eigenvectors, as columns in the same order.
    floor : float
        The diagonal floor of :func:`dppca.stats.copula_bridge.latent_correlation`.

    Returns
    -------
    float
        s such that noise of g-DPPCA's law (diagonal sd s, off-diagonal s / sqrt 2, invariant
        under rotation) gives the same first-order sine block as the rank path's noise, in
        correlation units (:func:`rank_accuracy`'s ``matrix_noise_sd``); k = p: the same average
        over every pair i != l.

    Notes
    -----
    Derivation (first order in the noise e of the release; every quantity below is a released
    value or the public sigma, so this is post-processing). With d_j = clip(T~_jj, floor, 1),
    t_jk = T~_jk / sqrt(d_j d_k) and R_jk = sin(pi t_jk / 2), the latent correlation moves by

        dR_jk = b_jk (e_jk / sqrt(d_j d_k) - (t_jk / 2) (e_jj / d_j + e_kk / d_k)),
        b_jk = (pi / 2) cos(pi t_jk / 2),

    and dR_jj = 0 (the diagonal is 1 by construction). So each entry's noise is scaled by the
    bridge's slope at its own value, not at its maximum pi / 2 (cos(pi t / 2) = sqrt(1 - R^2)
    is 0.6 at R = 0.8), and by its own pair's tie factor sqrt(d_j d_k), not the smallest one.
    In the eigenbasis (v_i, lambda_i) of the released latent correlation the top-k subspace
    moves, to first order (Stewart & Sun 1990, Ch. V, Thm 2.8), by the sine block
    S_il = v_i' dR v_l / (lambda_i - lambda_l), i <= k < l, whose entries have variance

        Var(v_i' dR v_l) = sigma^2 sum_{a < b} (G_ab (v_ai v_bl + v_bi v_al))^2
                           + (sigma^2 / 4) sum_a ((v_ai (B v_l)_a + (B v_i)_a v_al) / d_a)^2,

    G_ab = b_ab / sqrt(d_a d_b), B_ab = b_ab t_ab (zero diagonals): the own-entry noise and the
    diagonal noise that the tau-b normalisation shares along a row. The noise spreads over the
    k (p - k) pairs (i, l), each divided by its own gap, so E ||S||_F^2 = sum_il
    Var_il / (lambda_i - lambda_l)^2. Noise of g-DPPCA's law with diagonal sd s has
    Var_il = s^2 / 2 for every pair, so the equivalent s is s^2 = 2 sum_il (Var_il / g_il^2) /
    sum_il (1 / g_il^2), g_il = lambda_i - lambda_l the released gaps (all weights 1 where a
    released gap is not positive): the gap-weighted mean of 2 Var_il, and
    :func:`dppca.methods.gdppca.released_direction_accuracy` with it predicts the same
    E ||S||_F^2. For a pure-noise release (R = I: t = 0, b = pi / 2, d = 1) s = sqrt(2) (pi / 2)
    sigma, the largest value, so its noise-spread test (1 when the released spectrum is no more
    spread than noise alone gives) keeps its level there.

    References
    ----------
    Stewart, G. W. and Sun, J.-G. (1990), Matrix Perturbation Theory, Academic Press, Ch. V.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.latent_correlation import sine_block_noise_sd
    >>> s = sine_block_noise_sd(np.eye(3), 0.01, 1, [1.2, 1.0, 0.8], np.eye(3))
    >>> round(float(s / (np.sqrt(2) * np.pi / 2 * 0.01)), 6)
    1.0
    """
    released = np.asarray(released, dtype=float)
    released = (released + released.T) / 2.0
    p = released.shape[0]
    d = np.clip(np.diag(released), floor, 1.0)
    root = np.sqrt(np.outer(d, d))
    t = np.clip(released / root, -1.0, 1.0)
    slope = 0.5 * math.pi * np.cos(0.5 * math.pi * t)
    own, shared = slope / root, slope * t
    np.fill_diagonal(own, 0.0)
    np.fill_diagonal(shared, 0.0)
    spectrum, vectors = np.asarray(spectrum, dtype=float), np.asarray(vectors, dtype=float)
    upper = np.triu(own ** 2, 1)
    pairs = [(i, l) for i in range(k) for l in range(k, p)] if k < p else \
        [(i, l) for i in range(p) for l in range(i + 1, p)]
    variances, weights = [], []
    for i, l in pairs:
        vi, vl = vectors[:, i], vectors[:, l]
        mixed = np.outer(vi, vl)
        mixed = mixed + mixed.T
        row = (vi * (shared @ vl) + (shared @ vi) * vl) / d
        variances.append(sigma ** 2 * (np.sum(upper * mixed ** 2) + 0.25 * np.sum(row ** 2)))
        weights.append(spectrum[i] - spectrum[l])
    variances, gaps = np.asarray(variances), np.asarray(weights)
    weights = 1.0 / gaps ** 2 if np.all(gaps > 0) else np.ones_like(gaps)
    return float(math.sqrt(2.0 * np.sum(weights * variances) / np.sum(weights)))


def _fit(tau, k, mechanism, sensitivity, sigma, thresholds=None) -> DirectionFit:
    return _fit_with_basis(tau, k, mechanism, sensitivity, sigma, thresholds)[0]


def _fit_with_basis(tau, k, mechanism, sensitivity, sigma, thresholds=None):
    """The fit and all p eigenvectors of the repaired latent correlation (columns)."""
    correlation = latent_correlation(tau, thresholds=thresholds)
    spectrum, vectors = top_eigen(correlation, correlation.shape[0])
    return DirectionFit(vectors[:, :k], spectrum[:k], mechanism, sensitivity, sigma,
                        notes=[ESTIMAND, "Eigenvalues are those of the repaired latent correlation "
                               "matrix (trace p); they are not variances."],
                        spectrum=spectrum), vectors


#: Share of the Gaussian-DP budget (mu^2) spent on the binary columns' shares of ones when there
#: are any. The shares set the bridges' thresholds D_j = Phi^{-1}(1 - p_j), whose error moves a
#: bridged correlation by about |dF/dD| / |dF/dr| times it; a tenth of mu^2 gives them noise
#: sqrt(b) / (n sqrt(0.1) mu), below the tau noise 2 p / (n sqrt(0.9) mu) whenever
#: b < 4 p^2 / 9, i.e. always for p >= 2 (b <= p).
SHARE_OF_PROPORTIONS = 0.1

#: Public clip of a released share of ones into [PROPORTION_FLOOR, 1 - PROPORTION_FLOOR] before
#: D_j = Phi^{-1}(1 - p_j) (|D_j| <= 2.33): noise may push a share outside (0, 1).
PROPORTION_FLOOR = 0.01


def _binary_mask(binary, p) -> np.ndarray:
    if binary is None:
        return np.zeros(p, dtype=bool)
    mask = np.asarray(binary, dtype=bool).ravel()
    if mask.size != p:
        raise DPPCAValueError(f"`binary` must have one entry per column ({p}); got {mask.size}")
    return mask


def binary_proportions(values, binary) -> np.ndarray:
    """Shares of ones of the binary columns: exact integer counts, one division each."""
    ones = np.count_nonzero(values[:, binary] > 0.5, axis=0)
    return ones / float(values.shape[0])


def _thresholds(shares, binary) -> np.ndarray:
    from scipy.stats import norm

    thresholds = np.full(binary.size, np.nan)
    clipped = np.clip(shares, PROPORTION_FLOOR, 1.0 - PROPORTION_FLOOR)
    thresholds[binary] = norm.ppf(1.0 - clipped)
    return thresholds


def release_mixed(values, binary, eps, delta, rng, calibration, ledger):
    """The tau vector and the binary shares of ones, one Gaussian-DP group (docstring above)."""
    from ..privacy.composition import GaussianGroup

    n, p = values.shape
    group = GaussianGroup(eps, delta, calibration)
    sensitivity = rank_tau_sensitivity(n, p)
    rows, cols = np.triu_indices(p)
    noisy, sigma = group.share(1.0 - SHARE_OF_PROPORTIONS).release(
        kendall_tau_matrix(values)[rows, cols], sensitivity, rng, ledger,
        "directions: elementwise Kendall's tau (j <= k)")
    released = np.zeros((p, p))
    released[rows, cols] = noisy
    released[cols, rows] = noisy
    count = int(binary.sum())
    share_sensitivity = math.sqrt(count) / n + 2.0 * math.sqrt(count) * _UNIT_ROUNDOFF
    shares, _ = group.share(SHARE_OF_PROPORTIONS).release(
        binary_proportions(values, binary), share_sensitivity, rng, ledger,
        "directions: binary columns' shares of ones")
    return released, sensitivity, sigma, _thresholds(shares, binary)


def rank_direction_accuracy(n, p, k, eps, delta, calibration="analytic") -> StepAccuracy:
    """Pre-release predicted sin-theta of the rank path's directions, from public numbers.

    Parameters
    ----------
    n, p, k : int
        Rows, columns, components (public).
    eps, delta : float
        The release's budget.
    calibration : {"analytic", "classic"}
        Gaussian calibration.

    Returns
    -------
    StepAccuracy
        Step ``"directions"``: min(1, sqrt(k (p - k)) (pi / 2) sigma / gap), sigma the tau
        noise sd for sensitivity 2 p / n, every gap lambda_i - lambda_l (i <= k < l) of the
        latent correlation (trace p) assumed to be trace / p = 1, as g-DPPCA's model assumes
        (:func:`dppca.methods.gdppca.direction_accuracy`); k = p: 0.

    Notes
    -----
    First-order perturbation (Stewart & Sun 1990, Ch. V, Thm 2.8), the derivation of
    :func:`sine_block_noise_sd` with public numbers only. The release puts noise of sd sigma
    on every tau entry; before the release the correlations are unknown, so each entry's
    bridge slope (pi / 2) cos(pi t / 2) is taken at its largest, pi / 2 (t = 0, continuous
    untied columns, d = 1; the tie and diagonal terms vanish there). The latent correlation's
    noise is then off-diagonal, iid, sd (pi / 2) sigma, invariant in law under rotations, so
    each sine-block entry v_i' E v_l / (lambda_i - lambda_l), i <= k < l, has sd
    (pi / 2) sigma / gap, and E ||sin Theta||_F^2 = k (p - k) ((pi / 2) sigma)^2 / gap^2: the
    noise spreads over the k (p - k) directions that leave the subspace, not over one
    spectral norm (the Davis-Kahan ||E|| / gap, about 2 sqrt(p) (pi / 2) sigma, overstated it by
    2 sqrt(p) / sqrt(k (p - k)), 1.7x at p = 6, k = 2). The gaps are the unknown: real
    spectra make this a typical value, not a bound (the released gaps decide the
    post-release row, :func:`rank_accuracy`).

    Examples
    --------
    >>> from dppca.methods.latent_correlation import rank_direction_accuracy
    >>> rank_direction_accuracy(2000, 5, 2, 4.0, 1e-5).reliable
    True
    """
    sigma = gaussian_sigma(rank_tau_sensitivity(n, p), eps, delta, calibration)
    return _direction_step(p, k, math.sqrt(2.0) * 0.5 * math.pi * sigma)


def _direction_step(p, k, sigma_matrix) -> StepAccuracy:
    """First-order sine block with unit gaps; ``sigma_matrix`` in g-DPPCA's convention (diagonal
    sd, off-diagonal sd sigma_matrix / sqrt 2), see :func:`rank_direction_accuracy`."""
    predicted = min(1.0, math.sqrt(k * (p - k) / 2.0) * sigma_matrix)
    return StepAccuracy("directions", "sin-theta of the top-k subspace", predicted, "sin-theta",
                        DIRECTION_THRESHOLD, f"latent correlation eigengaps lambda_i - lambda_l "
                        f"(i <= {k} < l) >= 1 (its trace p / p)",
                        "more eps, more rows or fewer columns")


def repelled_spectrum(spectrum, noise_sd) -> np.ndarray:
    """The released eigenvalues with the noise's repulsion taken out of each adjacent gap.

    Parameters
    ----------
    spectrum : array_like, shape (p,)
        Released eigenvalues, decreasing.
    noise_sd : float
        The noise in g-DPPCA's convention (diagonal sd s, off-diagonal s / sqrt 2), e.g.
        :func:`sine_block_noise_sd`.

    Returns
    -------
    ndarray, shape (p,)
        Same first value; adjacent gaps sqrt(max(g^2 - 2 s^2, 0)), g the released ones.

    Notes
    -----
    Noise pushes neighbouring eigenvalues apart: in the 2 x 2 block of two eigenvalues with gap
    g the released gap is sqrt((g + d_1 - d_2)^2 + 4 e^2), d_i = v_i' E v_i the noise on the
    diagonal of the eigenbasis and e = v_1' E v_2 the off-diagonal one (sd s / sqrt 2), so
    E g^2_released = g^2 + Var(d_1 - d_2) + 4 (s^2 / 2) >= g^2 + 2 s^2 (Stewart & Sun 1990,
    Ch. IV, the 2 x 2 case). Var(d_1 - d_2) is 2 s^2 for noise of g-DPPCA's law but smaller for
    the rank path's, whose diagonal is exactly 0 before the rotation (it depends on how spread
    out the eigenvectors are), so only the part every law has, 2 s^2, is taken out: the
    correction never removes more than the noise adds on average. Read as gaps, the released
    values overstate small gaps most, which hides random-level directions (e.g. a released gap
    0.47 with s = 0.33 where the true one is 0.22); a gap within the noise becomes
    0 (random level). Post-processing of released values.

    References
    ----------
    Stewart, G. W. and Sun, J.-G. (1990), Matrix Perturbation Theory, Academic Press, Ch. IV.

    Examples
    --------
    >>> from dppca.methods.latent_correlation import repelled_spectrum
    >>> repelled_spectrum([3.0, 1.0, 0.9], 0.1).round(3).tolist()
    [3.0, 1.005, 1.005]
    """
    spectrum = np.asarray(spectrum, dtype=float)
    gaps = -np.diff(spectrum)
    gaps = np.sqrt(np.maximum(gaps ** 2 - 2.0 * float(noise_sd) ** 2, 0.0))
    return np.concatenate([spectrum[:1], spectrum[0] - np.cumsum(gaps)])


def rank_accuracy(p, k, sigma, spectrum=None, matrix_noise_sd=None) -> AccuracyReport:
    """The rank path's accuracy: the pre-release model and, with the release, the post-release one.

    Parameters
    ----------
    p, k : int
        Columns and components.
    sigma : float
        The tau release's noise sd (public: the ledger's).
    spectrum : array_like, shape (p,), optional
        All eigenvalues of the released latent correlation, decreasing (post-processing).
    matrix_noise_sd : float, optional
        The latent correlation's noise in g-DPPCA's convention (diagonal sd; off-diagonal sd
        that over sqrt 2), read from the release (:attr:`DirectionFit.matrix_noise_sd`);
        default sqrt(2) (pi / 2) sigma (untied columns).

    Returns
    -------
    AccuracyReport
        Step "directions (pre-release)" (:func:`rank_direction_accuracy`'s model) and, with a
        spectrum, "directions (post-release)":
        :func:`dppca.methods.gdppca.released_direction_accuracy` with ``matrix_noise_sd`` (for
        continuous columns :func:`sine_block_noise_sd`: each entry's noise through the bridge's
        slope at its released value, in the released eigenbasis) on the
        :func:`repelled_spectrum` (the released gaps less the noise's repulsion).

    Examples
    --------
    >>> from dppca.methods.latent_correlation import rank_accuracy
    >>> report = rank_accuracy(3, 1, 0.002, [2.0, 0.6, 0.4])
    >>> [step.step for step in report.steps]
    ['directions (pre-release)', 'directions (post-release)']
    """
    untied = math.sqrt(2.0) * 0.5 * math.pi * sigma
    before = _direction_step(p, k, untied)
    steps = [replace(before, step="directions (pre-release)", quantity=before.quantity
                     + ", from public n, p, eps, delta and an assumed gap")]
    if spectrum is not None:
        noise = untied if matrix_noise_sd is None else matrix_noise_sd
        after = released_direction_accuracy(repelled_spectrum(spectrum, noise), k, noise)
        steps.append(replace(after, quantity=after.quantity.replace(
            "Kendall directions", "non-private latent correlation directions")))
    return AccuracyReport(steps)
