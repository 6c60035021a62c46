"""``dp_pc_dir``: private principal component directions, and the method registry.

Mirrors the R package's ``dp_pc_dir`` (reference/r-dppca-scree.md §4): with
``g_dppca=False`` the non-private top-k eigenvectors of the sample covariance,
with ``g_dppca=True`` g-DPPCA (Kim & Jung 2025); the default (None) is g-DPPCA whenever a
budget is given. ``method=`` selects any registered method (``dppca.methods.METHODS``).
"""
from __future__ import annotations

import math
from dataclasses import replace

from ._validation import (DPPCATypeError, DPPCAValueError, bool_arg, delta_arg, eps_arg, float_arg,
                          int_arg, option_arg, rng_arg, seed_of)
from .backends.dask import is_dask_input
from .methods import METHOD_OPTIONS, METHODS, TARGETS
from .methods.add_remove import add_remove_fit, check_add_remove_options
from .methods.gdppca import (NOISES, direction_noise_accuracy, released_direction_accuracy,
                             states_gdppca_sensitivity)
from .methods.latent_correlation import nonprivate_latent_directions, rank_accuracy, rank_columns
from .preprocessing import ColumnScales, as_matrix, column_scales
from .preprocessing.matrix import fully_declared
from .preprocessing.missing import sample_filled
from .preprocessing.missing_entry import applies_missing_policy
from .preprocessing.scale_accuracy import scale_accuracy
from .preprocessing.schema import declared_input
from .privacy import CALIBRATIONS, Ledger, split_budget
from .privacy.accuracy import AccuracyReport
from .privacy.neighbouring import ADD_REMOVE, add_remove_unsupported, neighbouring_arg
from .privacy.spending import debit, records_outcome
from .results import PCDirections

#: Default share of the call's budget spent on private column scales when standardize=True.
SCALE_SHARE = 0.35
#: Methods whose releases are all Gaussian mechanisms (Analyze Gauss releases its norm bound by the
#: exponential mechanism, so it is not one): with private scales the call's budget is
#: one Gaussian-DP group (scales: ``scale_share`` of mu^2, the method the rest). Other methods
#: split (eps, delta) by basic composition.
GAUSSIAN_METHODS = ("gdppca", "rank")

#: ``standardize=`` values other than booleans: "rank", the scale-free rank path.
RANK = "rank"


def _pairwise_directions(arguments):
    """The Kendall's tau of the call's directions that can skip a cell (public arguments):
    ``"rank"``, ``"gdppca"`` or False (``resolve_missing``'s ``pairwise``)."""
    standardize, method = arguments.get("standardize", False), arguments.get("method")
    if (isinstance(standardize, str) and standardize == RANK) or method == RANK:
        return RANK
    g_dppca = arguments.get("g_dppca")
    if g_dppca is None:
        g_dppca = arguments.get("eps") is not None or arguments.get("delta") is not None
    if (method or ("gdppca" if g_dppca is True else None)) != "gdppca":
        return False
    scale = arguments.get("scale")
    return "gdppca" if standardize is False or (
        scale is not None and not isinstance(scale, ColumnScales)
        and fully_declared(scale, _header(arguments.get("X")))) else False


def _header(X) -> list:
    """Column names from the header (public) as as_matrix names them."""
    columns = getattr(X, "columns", None)
    if columns is not None:
        return [str(c) for c in columns]
    shape = getattr(X, "shape", None) or (len(X), len(X[0]))
    return [f"V{j + 1}" for j in range(shape[1] if len(shape) > 1 else 1)]


@applies_missing_policy("dp_pc_dir", _pairwise_directions)
@records_outcome
@states_gdppca_sensitivity
def dp_pc_dir(X, k, center=True, standardize=False, g_dppca=None, eps=None, delta=None, *,
              method=None, sign="spherical", radius=None, xi=None, xi_bound=None,
              design="auto", pairs_per_row=None, scale=None, scale_share=SCALE_SHARE,
              calibration="analytic", noise="tight", rng=None, nonprivate=False, bounds=None,
              budget=None, missing="auto", neighbouring="replace",
              **method_options) -> PCDirections:
    """Top-k principal component directions, private (g-DPPCA) or not.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        Numeric data, n >= 2 rows. Column names are kept (arrays get V1..Vp).
    k : int
        Number of directions, 1 <= k <= p.
    center : bool
        Accepted for parity with R. Every built-in method is translation invariant
        (sample covariance; Kendall's tau uses pairwise differences; the peer methods use
        differences of random pairs of rows), so it does not change the directions and no
        private mean is spent.
    standardize : bool or "rank"
        True: divide each column by a scale before PCA. Private calls never use the sample SD:
        the scales come from ``scale=`` (public) or from
        :func:`dppca.preprocessing.matrix.private_column_scales` with ``scale_share`` of the budget.
        ``"rank"``: the rank path, PCA of the latent Gaussian-copula correlation (Han & Liu
        2012) estimated from the elementwise Kendall's tau with the sine bridge
        (:mod:`dppca.methods.latent_correlation`; method ``"rank"``). Scale-free: no column
        scales, no clipping; unchanged by increasing transforms of any column; equal to Pearson
        correlation PCA for Gaussian data. With a budget (or ``g_dppca=True``) private, without
        one NON-PRIVATE. Binary columns (bool dtype, or a Categorical with 2 categories) use the
        Fan, Liu, Ning & Zou (2017) bridges, their shares of ones released in the same
        Gaussian-DP group; other Categorical columns are refused.
    g_dppca : bool or None
        R's switch: False = NON-PRIVATE PCA, True = g-DPPCA. None (default): g-DPPCA when
        ``eps`` or ``delta`` is given (private by default; R would silently ignore them and
        return the non-private PCA), the NON-PRIVATE PCA when neither is (R's
        ``dp_pc_dir(X, k)``). ``result.directions_private`` says which. Ignored when
        ``method`` is given.
    eps : float, > 0
        Privacy budget (required for private methods).
    delta : float in (0, 1)
        Privacy budget (required for private methods).
    method : str, optional
        One of ``dppca.methods.METHODS``: ``"gdppca"``, ``"nonprivate"``, or a seed paper's
        method, ``"analyze_gauss"``, ``"k_dp_pca"``, ``"k_dp_ojas"``, ``"cai_xia_zha"`` (private
        only under the spiked Gaussian model), ``"dp_sggd"``, ``"noisy_power"``.
    sign : {"spherical", "winsorized"}
        Generalized spatial sign of g-DPPCA (Kim & Jung 2025, §2): spherical
        g(t) = t/||t||, or winsorized g(t) = min(radius, ||t||) t/||t||.
    radius : float, optional
        Winsorization radius r (default sqrt(p), the paper's choice), in data units.
    xi, xi_bound : callable, float
        A user scale function xi(s) > 0 (vectorised over norms) and its declared bound
        sup_s xi(s), which sets the sensitivity. Overrides ``sign``.
    design : {"auto", "complete", "incomplete"}
        g-DPPCA's Kendall's tau matrix over all n(n-1)/2 pairs ("complete"), or an incomplete
        U-statistic over a random block design drawn from ``rng`` ("incomplete"; the same
        sensitivity, so the same noise). "auto" (default) is complete while that costs under
        about a second (n^2 p <= 2e10) and incomplete above. See :mod:`dppca.stats.pair_design`.
        The rank path (``standardize="rank"``) has the same choice for its elementwise Kendall's
        tau: "auto" is complete while p (p + 1) / 2 n log2(n) <= 5e7 (about a second) and a
        block design above, and for dask input
        (:func:`dppca.stats.elementwise_kendall_blocks_design.rank_pairs_per_row_rule`): public
        n and p only; unbiased for the same tau, released at the same sensitivity 2 p / n.
    pairs_per_row : int, optional
        Pairs per row r of the incomplete design (default: the rule of
        :func:`dppca.stats.pair_design.pairs_per_row_rule`; on the rank path, that of
        :func:`dppca.stats.elementwise_kendall_blocks_design.rank_pairs_per_row_rule`, at least
        15).
    scale : array_like of shape (p,), dict, pandas.Series, DataFrame, str or Schema, optional
        Public column scales for ``standardize=True`` (declared public by the caller), or a
        :class:`dppca.preprocessing.matrix.ColumnScales` already released by the calling function.
        Given by column name (a dict, a Series, a codebook: see
        :func:`dppca.preprocessing.schema.read_schema`) it may declare some columns only: the
        others get private scales (on the scale share), the declared ones cost nothing.
    scale_share : float in (0, 1)
        Share of the call's budget spent on private scales (default 0.35): of mu^2 in Gaussian-DP
        terms for g-DPPCA (all its releases are Gaussian), of (eps, delta) for other methods.
    calibration : {"analytic", "classic"}
        Gaussian noise calibration: Balle & Wang (2018) exact (default), or the R package's
        sigma = Delta sqrt(2 ln(1.25/delta))/eps (proven only for eps < 1).
    noise : {"tight", "r_dppca"}
        g-DPPCA's noise. ``"tight"`` (default): sensitivity 2 sqrt(2) ||g||_inf^2 / n with the
        chosen ``calibration``. ``"r_dppca"``: the R package's noise exactly, for reproducing
        its numbers: the paper's sensitivity 4 ||g||_inf^2 / n and the classic calibration,
        sigma = 4 ||g||_inf^2 sqrt(2 ln(1.25/delta)) / (n eps) (it overrides ``calibration``;
        proven only for eps < 1, and about 1.4x the tight noise). Only for g-DPPCA.
    rng : None, int or numpy.random.Generator
        Randomness; the same seed gives the same output.
    nonprivate : bool
        Also attach the NON-PRIVATE reference directions (same preprocessing, sample SD
        scaling), labelled as such in the summary.
    bounds : dict, DataFrame, str or Schema, optional
        Declared public bounds per column (column -> (lower, upper), or a codebook with
        ``lower``/``upper``/``scale``/``units``; :func:`dppca.preprocessing.schema.read_schema`):
        each value is clipped to its column's bounds before anything else (a map of each value
        alone, so every sensitivity holds); a codebook's scales count as ``scale=``. Declared
        facts cost no budget and show on the ledger as "public (declared)".
    budget : dppca.privacy.spending.Budget or str, optional
        A registered dataset's privacy budget (:func:`dppca.budget`, or its name in the default
        store): the call's whole (eps, delta) is debited there before any private computation
        (g-DPPCA is charged as one Gaussian-DP run: all its releases are Gaussian).
    missing : {"auto", "pairwise", "median", "drop"}, float or dict
        What a NaN cell means (a public policy; :mod:`dppca.preprocessing.missing`); +-inf
        cells are extreme values, never refused. "auto" (default): "pairwise" for g-DPPCA
        without private scales (a pair of rows uses the coordinates both observe; complete
        data give the same statistic), "median" otherwise, the rank path included (private
        column medians from a tenth of the budget, then imputation; on the rank path they keep
        every pair of rows, where "pairwise" keeps a share (1 - q)^4 per tau entry at a missing
        rate q: :func:`dppca.preprocessing.missing.resolve_missing`). "pairwise" on the rank
        path, when asked for, also releases its present-row counts, always. A number or
        ``{column: value}`` declares public fill values (free). "drop" needs add/remove
        neighbours (it changes n).
    neighbouring : {"replace", "add_remove"}
        The neighbouring relation (public, on the ledger). ``"replace"`` (default): one row
        replaced, n public. ``"add_remove"``: one row added or removed, n private: the call
        first releases n (:func:`dppca.privacy.neighbouring.release_row_count`) and every later
        sensitivity is its add/remove bound at a public lower bound of n
        (:mod:`dppca.methods.add_remove`); outputs print the noisy n. Covered: g-DPPCA
        (complete design, public or no scales) and the rank path.
    **method_options
        Options of other registered methods (see ``dppca.methods.METHOD_OPTIONS`` and each
        method's docstring in ``dppca.methods``), e.g. ``norm_bound=`` (a public clipping
        bound), ``noise_variance=``/``spike=`` (required by ``"cai_xia_zha"``).

    Returns
    -------
    PCDirections
        ``directions`` (p x k DataFrame, index = variables, columns PC1..PCk), eigenvalues
        of the released matrix, the ledger, ``summary()``, ``plot()``.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        Non-numeric X (NaN and +-inf cells are not errors: ``missing=``), fewer than 2 rows
        (under ``neighbouring="add_remove"``: right after the private count, when its public
        lower bound n_lo is below 2, a message of the released numbers only, the budget
        spent; :func:`dppca.privacy.neighbouring.refuse_few_rows`), k not an integer in [1, p], eps <= 0,
        delta outside (0, 1), eps/delta missing for a private method, unknown method, sign or
        calibration, options that do not belong to the method, constant columns when
        standardizing.

    Warns
    -----
    DPAccuracyWarning
        g-DPPCA only: when the post-release accuracy model
        (:func:`dppca.methods.gdppca.released_direction_accuracy`, from the released
        eigenvalues and the public noise sd) predicts a sin-theta of at least 0.9 (random
        level). Post-processing of the release: only noisy values decide it. The summary's
        "Expected accuracy" block shows it beside the pre-release prediction; other methods'
        summaries say they have no accuracy model.

    See Also
    --------
    dp_scree : Private variances along the directions.
    dp_score : Private score histograms along the directions.
    PCDirections : The result.
    dppca.metrics.sin_theta : Distance between two sets of directions.

    Notes
    -----
    Privacy: {gdppca_sensitivity}
    The rank path releases the elementwise Kendall's tau-a matrix (its p (p + 1) / 2 entries
    j <= k) with the Gaussian mechanism, L2 sensitivity 2 p / n
    (:func:`dppca.methods.latent_correlation.rank_tau_sensitivity`; over a block design, drawn
    from ``rng`` independently of the data,
    :func:`dppca.stats.elementwise_kendall_blocks.block_tau_sensitivity`); the ledger row and
    the summary name the design and the sensitivity.
    The directions are post-processing.
    With private standardization (:func:`dppca.preprocessing.matrix.private_column_scales`) the scales
    and a Gaussian method form one Gaussian-DP group (Dong, Roth and Su 2022): the scales get
    ``scale_share`` of mu^2, the method the rest, and the ledger rows show each release's share
    of (eps, delta); other methods split (eps, delta) by basic composition. The ledger lists
    every release and sums to (eps, delta).

    References
    ----------
    Kim, M. and Jung, S. (2025). Robust and differentially private PCA for non-Gaussian data.
    arXiv:2507.15232.

    Examples
    --------
    >>> from dppca import dp_pc_dir, load_gau
    >>> res = dp_pc_dir(load_gau(), k=2, g_dppca=True, eps=1, delta=1e-5, rng=1)
    >>> res.directions.shape
    (20, 2)
    """
    binary = None
    neighbouring = neighbouring_arg(neighbouring)
    if (isinstance(standardize, str) and standardize == RANK) or method == RANK:
        X, binary = rank_columns(X)  # binary dtypes -> 0/1 and a public mask
    # add/remove: n is private, so no row count is checked before its release (add_remove_fit
    # refuses too few rows from the released count only)
    given = declared_input(_input_matrix(X, 0 if neighbouring == ADD_REMOVE else 2), bounds,
                           scale)
    mat, scale = given.matrix, given.scale
    k = int_arg(k, "k", 1, mat.p)
    bool_arg(center, "center")
    standardize, rank = _standardize_arg(standardize, method, scale)
    nonprivate = bool_arg(nonprivate, "nonprivate")
    if g_dppca is None:
        g_dppca = eps is not None or delta is not None
    method = _resolve_method(method, bool_arg(g_dppca, "g_dppca"), rank)
    option_arg(calibration, "calibration", CALIBRATIONS)
    options = _method_options(method, dict(sign=sign, radius=radius, xi=xi, xi_bound=xi_bound,
                                           design=design, pairs_per_row=pairs_per_row),
                              method_options)
    if binary is not None:
        options["binary"] = tuple(binary)
    if getattr(missing, "kind", None) == "pairwise" and method in GAUSSIAN_METHODS:
        options["missing"] = "pairwise"
    if is_dask_input(X):
        _check_dask_call(method, standardize, scale, nonprivate)
        add_remove_unsupported(neighbouring, "dask and file input")
    if neighbouring == ADD_REMOVE and method != "nonprivate":
        check_add_remove_options(method, standardize, fully_declared(scale, mat.columns)
                                 if scale is not None else False, options)
    calibration = _parity_noise(noise, method, calibration, options)
    if method == "nonprivate":
        return _nonprivate_result(mat, k, standardize, scale, seed_of(rng), calibration, rank,
                                  binary)
    eps, delta = eps_arg(eps), delta_arg(delta)
    debit(budget, "dp_pc_dir", eps, delta, gaussian=method in GAUSSIAN_METHODS,
          calibration=calibration, k=k, method=method)
    generator, ledger = rng_arg(rng), Ledger(eps, delta)
    given.record(ledger)
    scales, fit = _private_fit(mat, k, method, standardize, scale, scale_share, eps, delta,
                               generator, calibration, ledger, options, neighbouring)
    reference = _reference_directions(sample_filled(mat, rank), k, standardize, scale, rank,
                                      binary) if nonprivate else None
    return _result(fit, mat, scales, method=method, ledger=ledger, eps=eps, delta=delta,
                   calibration=calibration, seed=seed_of(rng), nonprivate_directions=reference,
                   options=options)


def directions_at_bounds(mat, k, scales, count, *, eps, delta, rng, calibration,
                         ledger) -> PCDirections:
    """g-DPPCA directions whose sensitivity is taken at a released count's bounds (add/remove).

    For entry points that release the row count once and spend a share of their group on the
    directions (:func:`dppca.dp_scree` with ``neighbouring="add_remove"``).

    Parameters
    ----------
    mat : validated matrix, shape (n, p), in memory
        The data (n private).
    k : int
        Number of directions.
    scales : ColumnScales or None
        Declared public column scales, or None (raw units).
    count : dppca.privacy.neighbouring.PrivateCount
        The released count; its bounds give the sensitivity and the printed n.
    eps, delta : float
        The directions' own budget (a share of the caller's group).
    rng : numpy.random.Generator
        Source of the noise.
    calibration : {"analytic", "classic"}
        Gaussian calibration.
    ledger : Ledger
        Receives the directions' release.

    Returns
    -------
    PCDirections
        With ``n_obs`` the noisy count.

    Notes
    -----
    Privacy: g-DPPCA's Kendall's tau matrix (complete design) with the add/remove sensitivity
    2 sqrt(2) / (n_lo + 1) (:func:`dppca.methods.add_remove.kendall_add_remove_sensitivity`,
    proved there); valid on the count's good event, whose failure the caller charges to delta.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing import as_matrix
    >>> from dppca.privacy.neighbouring import count_bounds
    >>> mat = as_matrix(np.random.default_rng(0).normal(size=(400, 3)))
    >>> dirs = directions_at_bounds(mat, 2, None, count_bounds(402.3, 16.0, 5e-7), eps=1.0,
    ...                             delta=1e-5, rng=np.random.default_rng(1),
    ...                             calibration="analytic", ledger=Ledger(1.0, 1e-5))
    >>> dirs.n_obs, dirs.directions.shape
    (402, (3, 2))
    """
    fit = METHODS["gdppca"](mat.scaled(None if scales is None else scales.values), k, eps=eps,
                            delta=delta, rng=rng, calibration=calibration, ledger=ledger,
                            rows=count.rows, design="complete")
    fit.private_count = count
    return _result(fit, mat, scales, method="gdppca", ledger=ledger, eps=eps, delta=delta,
                   calibration=calibration, seed=None)


def _input_matrix(X, min_rows: int = 2):
    """Validated input: in memory (as_matrix, at least ``min_rows`` rows), or a lazy dask array
    for dask collections and files."""
    if is_dask_input(X):
        from .preprocessing.dask_input import as_dask_matrix

        return as_dask_matrix(X)
    return as_matrix(X, min_rows=min_rows)


def _check_dask_call(method, standardize, scale, nonprivate):
    """What the dask path supports: g-DPPCA, standardized by public or private (blockwise) scales,
    and the private rank path (its tau over a block design, chunk by chunk)."""
    if method not in ("gdppca", RANK):
        raise DPPCAValueError(f"dask and file input supports g-DPPCA and the private rank path "
                              f"only (g_dppca=True, method='gdppca' or standardize='rank' with a "
                              f"budget); got method {method!r}")
    if nonprivate:
        raise DPPCAValueError("nonprivate=True is not available for dask or file input")


#: g-DPPCA options whose default value other methods accept silently.
_GDPPCA_DEFAULTS = {"sign": "spherical", "design": "auto"}


def _standardize_arg(standardize, method, scale) -> tuple[bool, bool]:
    """(divide by column scales, rank path) from ``standardize`` (False, True or "rank")."""
    if isinstance(standardize, str):
        if standardize != RANK:
            raise DPPCAValueError(f"`standardize` must be False, True or {RANK!r}; got "
                                  f"{standardize!r}")
        rank = True
    else:
        try:
            standardize = bool_arg(standardize, "standardize")
        except (DPPCATypeError, DPPCAValueError):
            raise DPPCATypeError(f"`standardize` must be False, True or {RANK!r}; got "
                                 f"{standardize!r}") from None
        rank = method == RANK
        if rank and standardize:
            raise DPPCAValueError("method='rank' is scale-free: use standardize='rank' (or "
                                  "False), not standardize=True")
    if rank and scale is not None:
        raise DPPCAValueError("the rank path (standardize='rank') is scale-free: it takes no "
                              "`scale=` (nor a codebook's scales)")
    return False if rank else standardize, rank


def _resolve_method(method, g_dppca: bool, rank: bool = False) -> str:
    if rank:
        if method not in (None, RANK):
            raise DPPCAValueError(f"standardize='rank' is the rank method; got method {method!r}")
        return RANK if g_dppca or method == RANK else "nonprivate"
    if method is None:
        return "gdppca" if g_dppca else "nonprivate"
    return option_arg(method, "method", tuple(METHODS))


def _parity_noise(noise, method: str, calibration: str, options: dict) -> str:
    """Check ``noise``; with "r_dppca" set g-DPPCA's constant and return the classic calibration."""
    option_arg(noise, "noise", NOISES)
    if noise == "tight":
        return calibration
    if method not in ("gdppca", "nonprivate"):
        raise DPPCAValueError(f"noise='r_dppca' reproduces the R package's g-DPPCA; method {method!r} "
                              "has no R counterpart (use noise='tight')")
    if method == "gdppca":
        options["noise"] = noise
    return "classic"


def _method_options(method: str, gdppca_options: dict, extra: dict) -> dict:
    allowed = METHOD_OPTIONS[method]
    unknown = [name for name in extra if name not in allowed]
    if unknown:
        raise DPPCATypeError(f"options {unknown} are not options of method {method!r}; "
                             f"its options are {list(allowed)}")
    if method != "gdppca":
        # the rank path's tau has the same two pair-design options
        own = {name: gdppca_options.pop(name) for name in ("design", "pairs_per_row")} \
            if method == RANK else {}
        changed = [n for n, v in gdppca_options.items() if v is not None and v != _GDPPCA_DEFAULTS.get(n)]
        if changed:
            raise DPPCAValueError(f"{changed} are g-DPPCA options; method {method!r} does not use them")
        return {**own, **extra}
    xi = gdppca_options["xi"]
    if xi is not None and not callable(xi):
        raise DPPCATypeError(f"`xi` must be a callable scale function; got {xi!r}")
    return {**gdppca_options, **extra}


def _nonprivate_result(mat, k, standardize, scale, seed, calibration, rank=False,
                       binary=None) -> PCDirections:
    scales = column_scales(mat, standardize, _public_part(scale), private=False)
    if rank:
        fit = nonprivate_latent_directions(mat.values, k, binary=binary)
        fit.target = TARGETS[RANK]
    else:
        fit = METHODS["nonprivate"](mat.scaled(None if scales is None else scales.values), k)
    return _result(fit, mat, scales, method="nonprivate", ledger=None, eps=None, delta=None,
                   calibration=calibration, seed=seed)


def _result(fit, mat, scales, **facts) -> PCDirections:
    values, label = (None, "none") if scales is None else (scales.values, scales.label)
    count = getattr(fit, "private_count", None)  # add/remove: the noisy n, never the true one
    result = PCDirections(fit, mat.columns, n_obs=mat.n if count is None else count.reported,
                          scale=values, scale_source=label, **facts)
    if result.method in GAUSSIAN_METHODS and fit.noise_sd < float("inf"):
        result.accuracy = _gdppca_accuracy(result, fit, scales) if result.method == "gdppca" else \
            rank_accuracy(result.n_features, result.k, fit.noise_sd, fit.spectrum,
                          fit.matrix_noise_sd, design_sd=fit.sampling_sd)
        AccuracyReport(result.accuracy.steps[1:]).warn(basis="released values only")
    return result


def _gdppca_accuracy(result, fit, scales=None) -> AccuracyReport:
    """g-DPPCA's directions: the pre-release model (public n, p, eps, delta and an assumed gap)
    and, when the fit carries the released spectrum, the post-release one (its released gaps,
    and with private scales their public error model, :func:`_log_scale_sd`)."""
    count = getattr(fit, "private_count", None)  # add/remove: sensitivity at n_lo + 1 rows
    rows = result.n_obs if count is None else count.rows.sensitivity_rows
    before = direction_noise_accuracy(rows, result.n_features, result.k,
                                      fit.sensitivity, fit.noise_sd)
    steps = [replace(before, step="directions (pre-release)",
                     quantity=before.quantity + ", from public n, p, eps, delta and an assumed gap")]
    if fit.spectrum is not None:
        steps.append(released_direction_accuracy(
            fit.spectrum, result.k, fit.noise_sd, debias_gaps=True, vectors=fit.vectors,
            log_scale_sd=_log_scale_sd(result, scales)))
    return AccuracyReport(steps)


def _log_scale_sd(result, scales) -> float:
    """sd of ln(private scale / sample SD) from the scales' public accuracy model (its median
    |log2| error over 0.674 / ln 2); 0 without private scales."""
    if scales is None or scales.source != "private":
        return 0.0
    octaves = scale_accuracy(result.n_obs, result.n_features, result.eps, result.delta,
                             share=scales.share, calibration=result.calibration).predicted
    return octaves * math.log(2.0) / 0.674


def _public_part(scale):
    """The caller's public scales; scales released privately earlier do not count as public for
    the NON-PRIVATE reference (which divides by the sample SD, as R)."""
    return None if isinstance(scale, ColumnScales) and scale.source == "private" else scale


def _reference_directions(mat, k, standardize, scale, rank=False, binary=None):
    return _nonprivate_result(mat, k, standardize, scale, None, "analytic", rank,
                              binary).directions


def _private_fit(mat, k, method, standardize, scale, scale_share, eps, delta, rng, calibration,
                 ledger, options, neighbouring="replace"):
    """Scales (one release, or none) and the method's fit, within the call's (eps, delta)."""
    from .privacy.composition import GaussianGroup

    if not standardize or (scale is not None and fully_declared(scale, mat.columns)):
        scales = column_scales(mat, standardize, scale)
        values = mat.scaled(None if scales is None else scales.values)
        if neighbouring == ADD_REMOVE:
            fit, fit.private_count = add_remove_fit(METHODS[method], values, k, eps=eps,
                                                    delta=delta, rng=rng, calibration=calibration,
                                                    ledger=ledger, options=options)
            return scales, fit
        return scales, METHODS[method](values, k, eps=eps, delta=delta, rng=rng,
                                       calibration=calibration, ledger=ledger, **options)
    share = float_arg(scale_share, "scale_share", open_unit=True)
    if method in GAUSSIAN_METHODS:
        group = GaussianGroup(eps, delta, calibration)
        noise, (eps_m, delta_m) = group.share(share), group.standalone(1 - share)
    else:
        parts = split_budget(eps, delta, {"scale": share, "method": 1 - share})
        noise = GaussianGroup(*parts["scale"], calibration).share(1.0)
        eps_m, delta_m = parts["method"]
    scales = column_scales(mat, True, scale, noise=noise, share=share, rng=rng, ledger=ledger)
    inner = Ledger(eps_m, delta_m)
    fit = METHODS[method](mat.scaled(scales.values), k, eps=eps_m, delta=delta_m, rng=rng,
                          calibration=calibration, ledger=inner, **options)
    if method in GAUSSIAN_METHODS:
        group.absorb(inner.releases, ledger)
    else:
        ledger.extend(inner)
    return scales, fit

__all__ = ["dp_pc_dir"]
