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

import numpy as np

from .._validation import DPPCAValueError
from ..privacy import Ledger
from ..privacy.neighbouring import row_bounds
from ..backends.dask import is_dask_array
from ..stats.copula_bridge import latent_correlation
from ..stats.elementwise_kendall import kendall_tau_matrix
from ..stats.elementwise_kendall_blocks_design import (block_design_sd, design_note,
                                                      resolve_rank_design)
from ._base import DirectionFit, top_eigen
from .pairwise_present import present_tau, release_present_tau
from .latent_accuracy import (bridged_noise_sd, rank_accuracy, rank_direction_accuracy,
                              repelled_spectrum, sine_block_noise_sd)
from .rank_sensitivity import (UNIT_ROUNDOFF, rank_tau_sensitivity, rank_tau_statistic,
                               release_kendall_tau, symmetric_from_upper, tau_step)

__all__ = ["ESTIMAND", "PROPORTION_FLOOR", "SHARE_OF_PROPORTIONS", "binary_proportions",
           "bridged_noise_sd", "latent_correlation_directions", "nonprivate_latent_directions",
           "rank_accuracy", "rank_columns", "rank_direction_accuracy", "rank_tau_sensitivity",
           "rank_tau_statistic", "release_kendall_tau", "release_mixed", "released_latent_fit",
           "repelled_spectrum",
           "sine_block_noise_sd"]

#: The estimand, in the words every summary uses.
ESTIMAND = ("Estimand: latent Gaussian-copula correlation (Han & Liu 2012), from the elementwise "
            "Kendall's tau with the sine bridge; equals Pearson correlation PCA for Gaussian data "
            "and is unchanged by increasing transforms of any column.")


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


def latent_correlation_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                                  rng: np.random.Generator, calibration: str,
                                  ledger: Ledger, binary=None, design: str = "auto",
                                  pairs_per_row=None, missing=None, rows=None) -> DirectionFit:
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
    design : {"auto", "complete", "incomplete"}
        The pairs of the tau matrix: all of them, or an incomplete U-statistic over a random
        block design drawn from ``rng`` (unbiased for the same tau, same sensitivity); "auto"
        decides from the public n and p
        (:func:`dppca.stats.elementwise_kendall_blocks_design.rank_pairs_per_row_rule`), and
        always takes blocks for a dask array.
    pairs_per_row : int, optional
        Pairs per row r of the block design (default: the rule's).
    missing : {None, "pairwise"}
        "pairwise": NaN cells are missing and the tau is pairwise present, debiased by private
        present-row counts (:func:`dppca.methods.pairwise_present.release_present_tau`; one more
        release, whatever the data). None: the complete-data release.
    rows : dppca.privacy.neighbouring.RowBounds, optional
        Add/remove neighbours: both sensitivities at n_lo + 1 rows
        (:func:`dppca.methods.add_remove.rank_tau_add_remove_sensitivity`,
        :func:`dppca.methods.add_remove.share_add_remove_sensitivity`). Default: replace-one.

    Returns
    -------
    DirectionFit
        Eigenvectors and eigenvalues of the repaired latent correlation matrix (trace p);
        ``sensitivity`` and ``noise_sd`` of the tau release; ``spectrum`` all p eigenvalues.

    Raises
    ------
    DPPCAValueError
        n > :data:`MAX_ROWS` with the complete design; a bad ``design`` or ``pairs_per_row``.

    See Also
    --------
    nonprivate_latent_directions : The same without noise (NON-PRIVATE).
    rank_tau_sensitivity : The sensitivity and its proof.

    Notes
    -----
    Privacy: the vector (T_jk)_{j <= k} (p (p + 1) / 2 numbers, the diagonal included) of the
    elementwise Kendall's tau-a matrix is released by the Gaussian mechanism with L2
    sensitivity 2 p / n under replace-one neighbours, n public (proof in
    :func:`rank_tau_sensitivity`; for the block design, whose blocks are drawn independently of
    the data, :func:`dppca.stats.elementwise_kendall_blocks.block_tau_sensitivity`, the same
    2 p / n with its own rounding slack), so it is (eps, delta)-DP. The tau-b normalisation by the
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
    n, p = values.shape
    blocks = resolve_rank_design(design, pairs_per_row, n, p, is_dask_array(values), rng)
    if missing == "pairwise":  # replace-one only (resolve_missing refuses it with add/remove)
        released, sensitivity, sigma, shares = release_present_tau(
            values, binary, eps, delta, rng, calibration, ledger, SHARE_OF_PROPORTIONS,
            design=blocks)
        thresholds = None if shares is None else _thresholds(shares, binary)
    else:
        if not binary.any():
            released, sensitivity, sigma = release_kendall_tau(
                values, eps, delta, rng, calibration, ledger, design=blocks, rows=rows)
            thresholds = None
        else:
            released, sensitivity, sigma, thresholds = release_mixed(
                values, binary, eps, delta, rng, calibration, ledger, design=blocks, rows=rows)
    # add/remove: n is private, so the note counts no pairs
    note = design_note(n if rows is None else None, blocks, sensitivity)
    return released_latent_fit(released, k, calibration, sensitivity, sigma, note, thresholds,
                               block_design_sd(n, None if blocks is None else
                                               blocks.pairs_per_row))[0]


def released_latent_fit(released, k, calibration, sensitivity, sigma, note, thresholds=None,
                        design_sd=0.0):
    """The rank path's directions from a released tau matrix (post-processing only).

    Parameters
    ----------
    released : ndarray, shape (p, p)
        The noisy elementwise Kendall's tau-a matrix (:func:`release_kendall_tau`).
    k : int
        Number of directions.
    calibration : str
        The release's Gaussian calibration (for the mechanism's name).
    sensitivity, sigma : float
        The release's sensitivity and noise sd.
    note : str
        A summary line naming the release's design (e.g.
        :func:`dppca.stats.elementwise_kendall_blocks_design.design_note`).
    thresholds : ndarray, optional
        Binary columns' released thresholds (:func:`release_mixed`).
    design_sd : float
        The block design's extra sampling sd per entry
        (:func:`dppca.stats.elementwise_kendall_blocks_design.block_design_sd`); 0: complete.

    Returns
    -------
    fit : DirectionFit
        Top-k eigenvectors of the repaired latent correlation, the whole spectrum and the
        matrix noise sd of the accuracy model (the noise and ``design_sd`` in quadrature,
        :func:`rank_accuracy`'s Notes).
    basis : ndarray, shape (p, p)
        All p eigenvectors (columns).

    Examples
    --------
    >>> import numpy as np
    >>> tau = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> fit, basis = released_latent_fit(tau, 1, "analytic", 0.04, 0.01, "complete")
    >>> fit.spectrum.round(3).tolist()
    [1.707, 0.293]
    """
    fit, basis = _fit_with_basis(released, k, f"Gaussian ({calibration})", sensitivity, sigma,
                                 thresholds)
    fit.notes.append(note)
    bridged = bridged_noise_sd(released, sigma)
    error = math.hypot(sigma, design_sd)  # the release's error to the complete statistic
    fit.sampling_sd = float(design_sd)
    # g-DPPCA's convention (diagonal sd); with binary columns the bridges' slopes differ from
    # the sine's, so the bound at the largest sine slope stands in
    fit.matrix_noise_sd = math.sqrt(2.0) * bridged_noise_sd(released, error) \
        if thresholds is not None else sine_block_noise_sd(released, error, k, fit.spectrum, basis)
    fit.notes.append(f"Noise sd {sigma:.3g} on every released tau entry (diagonal included); "
                     f"on each latent correlation at most {bridged:.3g} (the bridge's Lipschitz "
                     "factor), before the repair.")
    if design_sd > 0:
        fit.notes.append(f"The block design adds sampling error of sd at most {design_sd:.3g} "
                         "per tau entry over the complete statistic; the accuracy model counts "
                         "it with the noise.")
    return fit, basis


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
    if np.isnan(values).any():  # NON-PRIVATE: the pairwise-present tau of the observed cells
        tau, shares = present_tau(values, binary)
        thresholds = None if shares is None else _thresholds(shares, binary)
        return _fit(tau, k, "none", float("nan"), float("nan"), thresholds)
    thresholds = None
    if binary.any():
        thresholds = _thresholds(binary_proportions(values, binary), binary)
    return _fit(kendall_tau_matrix(values), k, "none", float("nan"), float("nan"), thresholds)


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


def release_mixed(values, binary, eps, delta, rng, calibration, ledger, design=None,
                  rows=None):
    """The tau vector and the binary shares of ones, one Gaussian-DP group (docstring above)."""
    from ..privacy.composition import GaussianGroup

    n, p = values.shape
    n = row_bounds(n, rows)[0]  # add/remove: n_lo + 1 (dppca.methods.add_remove)
    group = GaussianGroup(eps, delta, calibration)
    tau, sensitivity = rank_tau_statistic(values, design, rows)
    rows, cols = np.triu_indices(p)
    noisy, sigma = group.share(1.0 - SHARE_OF_PROPORTIONS).release(
        tau[rows, cols], sensitivity, rng, ledger, tau_step(design))
    released = symmetric_from_upper(noisy, rows, cols, p)
    count = int(binary.sum())
    share_sensitivity = math.sqrt(count) / n + 2.0 * math.sqrt(count) * UNIT_ROUNDOFF
    shares, _ = group.share(SHARE_OF_PROPORTIONS).release(
        binary_proportions(values, binary), share_sensitivity, rng, ledger,
        "directions: binary columns' shares of ones")
    return released, sensitivity, sigma, _thresholds(shares, binary)


