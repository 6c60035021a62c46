"""``dp_scree(X, k, standardize="rank")``: the rank path's scree values, PVE and intervals.

The scree values are the top-k eigenvalues of the latent Gaussian-copula correlation matrix
(Han & Liu 2012) estimated from ONE Gaussian release of the elementwise Kendall's tau matrix
with the call's whole (eps, delta) (:func:`dppca.methods.rank_sensitivity.release_kendall_tau`);
the directions come from the same release, so nothing else is spent. The total variance is the
trace p of a correlation matrix (public), so PVE = value / p exactly. The intervals
(:class:`dppca.results.scree_rank.RankBound`) cover the population values from public numbers
and released values only, ties allowed: the eigenvalues of sin(pi tau_b / 2), tau_b the
population Kendall's tau-b (the latent correlation matrix for continuous columns).
"""
from __future__ import annotations

import math

import numpy as np

from ._validation import (DPPCAValueError, bool_arg, delta_arg, eps_arg, int_arg, option_arg,
                          rng_arg, seed_of)
from .methods import TARGETS
from .methods.latent_correlation import (nonprivate_latent_directions, rank_accuracy,
                                         released_latent_fit)
from .methods.rank_sensitivity import rank_release_sensitivity, release_kendall_tau
from .backends.dask import is_dask_input
from .directions import RANK, SCALE_SHARE
from .preprocessing.dask_input import as_input_matrix
from .preprocessing.schema import declared_input
from .privacy import CALIBRATIONS, Ledger, gaussian_sigma
from .privacy.accuracy import AccuracyReport
from .privacy.counted_group import count_first, count_notes
from .privacy.neighbouring import ADD_REMOVE, add_remove_unsupported, neighbouring_arg
from .privacy.spending import debit
from .results.directions import PCDirections
from .results.scree_rank import (RANK_METHOD, RankBound, RankScreeFit, RankScreeResult,
                                 ValueRelease, rank_values_step)
from .stats.copula_bridge import DIAGONAL_FLOOR, bridged_matrix, latent_correlation
from .stats.elementwise_kendall_blocks_design import (block_design_sd, design_note,
                                                      hoeffding_pairs, largest_kernel_weight,
                                                      rank_pairs_per_row_rule, resolve_rank_design)

#: The dp_scree arguments the rank path does not use, with the value that means "not given".
_UNUSED = {"control": None, "directions": None, "scale": None, "noise": "tight"}


def rank_scree(X, k, *, standardize=RANK, method=None, eps=None, delta=None, center=True,
               g_dppca=True, mono=True, calibration="analytic", rng=None, nonprivate=False,
               bounds=None, budget=None, design="auto", pairs_per_row=None,
               neighbouring="replace", **unused) -> RankScreeResult:
    """Private eigenvalues of the latent Gaussian-copula correlation, PVE over p, intervals.

    Parameters
    ----------
    X : pandas.DataFrame, array_like, dask array or DataFrame, or path to Parquet/CSV, shape (n, p)
        Numeric data, n >= 4 (only each column's order is used). Dask input and files are
        reduced chunk by chunk over a block design (``design="auto"`` always takes one there).
    k : int
        Number of values, 1 <= k <= p.
    standardize : "rank"
        The rank path (anything else is refused).
    method : None or "rank"
        None (omitted) or "rank"; the clipped, pmwm and huber methods do not apply.
    eps : float > 0
        Budget of the call (required).
    delta : float in (0, 1)
        Budget of the call (required).
    center : bool
        Accepted for parity with :func:`dppca.dp_scree`; no effect.
    g_dppca : bool
        Must be True: the directions are the same release's (private).
    mono : bool
        Accepted for parity; no effect (a correlation matrix's eigenvalues are non-negative
        and ordered).
    calibration : {"analytic", "classic"}
        Gaussian calibration.
    rng : None, int or numpy.random.Generator
        Source of the noise.
    nonprivate : bool
        Also give the NON-PRIVATE latent eigenvalues (labelled NON-PRIVATE); data in memory
        only.
    bounds : optional
        Declared public bounds (:func:`dppca.dp_scree`); values are clipped to them first.
    budget : Budget or str, optional
        Where the call's (eps, delta) is debited first.
    design : {"auto", "complete", "incomplete"}
        The tau matrix's pairs: all, or a random block design drawn from ``rng`` (as in
        :func:`dppca.dp_pc_dir` with ``standardize="rank"``; "auto" decides from the public n
        and p, :func:`dppca.stats.elementwise_kendall_blocks_design.rank_pairs_per_row_rule`).
    pairs_per_row : int, optional
        Pairs per row of the block design (default: the rule's).
    neighbouring : {"replace", "add_remove"}
        ``"add_remove"``: n private; the row count is released first (5% of the Gaussian-DP
        budget) and the tau matrix's sensitivity is 2 p / (n_lo + 1) at its public lower bound
        (:func:`dppca.methods.add_remove.rank_tau_add_remove_sensitivity`; complete design
        only, the block design is drawn for the private n and is refused).
    **unused
        The dp_scree arguments that do not apply here (``control``, ``directions``, ``scale``,
        ``noise``, ``scale_share``): refused unless at their default.

    Returns
    -------
    RankScreeResult
        One method column, "rank"; ``total_variance`` p; simultaneous intervals.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Bad data, k, eps, delta or calibration; a method other than "rank"; g_dppca=False;
        nonprivate=True with dask or file input; a dp_scree argument the rank path does not
        use.

    Notes
    -----
    Privacy: (eps, delta)-DP under replace-one neighbours, n public: one release,
    :func:`dppca.methods.rank_sensitivity.release_kendall_tau` (its Notes give the mechanism
    and the sensitivity 2 p / n, with or without a block design; the design is drawn
    independently of the data, the same for data in memory, dask arrays and files). The
    intervals' sampling part counts the design's independent kernels and its largest kernel
    weight (:func:`dppca.stats.elementwise_kendall_blocks_design.hoeffding_pairs`,
    :func:`dppca.stats.elementwise_kendall_blocks_design.largest_kernel_weight`). The
    latent correlation, its eigenvectors and eigenvalues, PVE and the intervals are
    post-processing. Estimand: eigenvalues of the latent Gaussian-copula correlation matrix
    (Han & Liu 2012); PVE over its trace p (public). Under add/remove neighbours the count and
    the tau release form one Gaussian-DP group of (eps, delta - delta_n), delta_n the count
    bounds' failure probability (:mod:`dppca.privacy.neighbouring`); the intervals' sampling
    part counts floor(max(n_lo, 4) / 2) pairs (at most the data's on the good event, n >= 4:
    wider, still covering), and the result prints the noisy n.

    References
    ----------
    Han, F. and Liu, H. (2012). Semiparametric principal component analysis. NIPS 25.
    Hoeffding, W. (1963). Probability inequalities for sums of bounded random variables.
    JASA 58, Section 5 (U-statistics).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.scree_rank import rank_scree
    >>> x = np.random.default_rng(0).multivariate_normal([0, 0, 0], [[1, .8, .8], [.8, 1, .8],
    ...                                                  [.8, .8, 1]], size=3000)
    >>> result = rank_scree(np.exp(x), 1, eps=2.0, delta=1e-5, rng=1)
    >>> bool(result.reliable["rank"].iloc[0])
    True
    """
    if standardize != RANK:
        raise DPPCAValueError(f"`standardize` must be False, True or {RANK!r}; got "
                              f"{standardize!r}")
    if method not in (None, RANK, (RANK,), [RANK]):
        raise DPPCAValueError(f"with standardize='rank' the scree values are the latent "
                              f"correlation's eigenvalues (method 'rank'); the methods "
                              f"'clipped', 'pmwm' and 'huber' do not apply: got method {method!r}")
    _check_unused(unused)
    if not bool_arg(g_dppca, "g_dppca"):
        raise DPPCAValueError("standardize='rank' releases its own directions from the same "
                              "Kendall's tau release: g_dppca=False is not available")
    lazy = is_dask_input(X)
    add_remove = neighbouring_arg(neighbouring) == ADD_REMOVE
    if add_remove and (lazy or design == "incomplete" or pairs_per_row is not None):
        add_remove_unsupported(ADD_REMOVE, "the rank scree's incomplete design and dask or file "
                               "input (both drawn for a public n; use design='complete' on data "
                               "in memory)")
    # add/remove: no row count before its release (count_first refuses from the released one)
    given = declared_input(as_input_matrix(X, lazy, 0 if add_remove else 4), bounds, None)
    mat = given.matrix
    k = int_arg(k, "k", 1, mat.p)
    eps, delta = eps_arg(eps), delta_arg(delta)
    bool_arg(center, "center")
    bool_arg(mono, "mono")
    nonprivate = bool_arg(nonprivate, "nonprivate")
    if lazy and nonprivate:
        raise DPPCAValueError("nonprivate=True is not available for dask or file input")
    option_arg(calibration, "calibration", CALIBRATIONS)
    generator = rng_arg(rng)
    blocks = None if add_remove else resolve_rank_design(design, pairs_per_row, mat.n, mat.p,
                                                         lazy, generator)
    debit(budget, "dp_scree", eps, delta, gaussian=True, calibration=calibration, k=k,
          methods=(RANK,))
    ledger = Ledger(eps, delta)
    given.record(ledger)
    count = group = None
    if add_remove:
        count, group = count_first(mat.n, eps, delta, calibration, generator, ledger)
    return rank_scree_release(mat, k, eps=eps, delta=delta, rng=generator,
                              calibration=calibration, ledger=ledger, design=blocks,
                              seed=seed_of(rng), nonprivate=nonprivate, count=count,
                              group=group)[0]


def rank_scree_release(mat, k, *, eps, delta, rng, calibration, ledger, design=None, seed=None,
                       nonprivate=False, count=None, group=None):
    """The rank scree's one release and its post-processing: scree values and directions.

    Parameters
    ----------
    mat : dppca.preprocessing.matrix.Matrix
        Validated data (bounds already applied), in memory or a dask array (then with a
        ``design``).
    k : int
        Number of values and directions.
    eps, delta, rng, calibration, ledger, design
        As in :func:`dppca.methods.rank_sensitivity.release_kendall_tau` (the ledger is
        shared by both results).
    seed : object, optional
        The seed as given, for the summaries.
    nonprivate : bool
        Also give the NON-PRIVATE latent eigenvalues.
    count : dppca.privacy.neighbouring.PrivateCount, optional
        Add/remove neighbours: the released row count (on ``ledger`` already); the tau
        release's sensitivity is taken at its bounds and every output prints its noisy n.
    group : dppca.privacy.counted_group.GroupRemainder, optional
        With ``count``: the rest of the call's Gaussian-DP group, all of it for the tau release.

    Returns
    -------
    scree : RankScreeResult
        As :func:`rank_scree`.
    directions : dppca.PCDirections
        The same release's directions (method "rank"), equal to ``scree.directions``, with
        the accuracy rows of :func:`dppca.dp_pc_dir`; nothing else is spent.

    Notes
    -----
    Privacy: one Gaussian release (:func:`dppca.methods.rank_sensitivity.release_kendall_tau`);
    everything else is post-processing of it.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.preprocessing import as_matrix
    >>> from dppca.privacy import Ledger
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(2000, 1)) + rng.normal(size=(2000, 3))  # one strong component
    >>> scree, directions = rank_scree_release(as_matrix(x), 1, eps=1.0, delta=1e-5,
    ...                                        rng=np.random.default_rng(1),
    ...                                        calibration="analytic", ledger=Ledger(1.0, 1e-5))
    >>> bool((scree.directions == directions.directions).all().all()), len(scree.ledger["rank"])
    (True, 1)
    """
    bounds = None if count is None else count.rows
    n = mat.n if bounds is None else int(bounds.sensitivity_rows)  # public: n, or n_lo + 1
    eps_r, delta_r = (eps, delta) if group is None else group.standalone(1.0)
    target = ledger if group is None else Ledger(eps_r, delta_r)
    pairs = None if design is None else design.pairs_per_row
    rank_scree_plan(n, mat.p, k, eps_r, delta_r, calibration, pairs).warn()  # public arithmetic
    released, sensitivity, sigma = release_kendall_tau(mat.values, eps_r, delta_r, rng,
                                                       calibration, target, design=design,
                                                       rows=bounds)
    if group is not None:
        group.absorb(target.releases, ledger)
    note = design_note(n if count is None else None, design, sensitivity)
    fit, vectors = released_latent_fit(released, k, calibration, sensitivity, sigma, note,
                                       design_sd=block_design_sd(n, pairs))
    fit.target = TARGETS[RANK]
    spectrum = fit.spectrum
    bridged = bridged_matrix(released, DIAGONAL_FLOOR)
    repaired = latent_correlation(released)
    # the sampling part of the intervals counts independent pairs: floor(n / 2), or the block
    # design's (add/remove: pairs of max(n_lo, 4) = n_lo rows, no more than the data's on the
    # count's good event: the call went on only because the released n_lo is at least 4)
    rows, weight = _sampling_pairs(mat.n if count is None else max(count.lower, 4),
                                   None if design is None else len(design.bounds) - 1)
    bound = RankBound.from_release(released, bridged, repaired, sigma, rows, DIAGONAL_FLOOR,
                                   weight)
    values = RankScreeFit(ValueRelease(spectrum[:k], np.full(k, bound.noise_sd()), np.zeros(k),
                                       np.full(k, float(mat.p))),
                          f"Gaussian ({calibration}) on Kendall's tau",
                          "eigenvalues of the repaired latent correlation (no tuning)", bound)
    n_obs = mat.n if count is None else count.reported  # add/remove: never the true n
    directions = PCDirections(fit, mat.columns, method=RANK, ledger=ledger, n_obs=n_obs, eps=eps,
                              delta=delta, calibration=calibration, seed=seed)
    reference = None
    if nonprivate:
        reference = {"scree": nonprivate_latent_directions(mat.values, k).spectrum[:k],
                     "trace": float(mat.p)}
    steps = rank_accuracy(mat.p, k, sigma, spectrum, fit.matrix_noise_sd,
                          design_sd=block_design_sd(mat.n, pairs)).steps
    directions.accuracy = AccuracyReport(steps)
    values_plan = rank_values_accuracy(rows, mat.p, k, sigma, weight)
    result = RankScreeResult(values, ledger=ledger, directions=directions.directions.copy(),
                             n_obs=n_obs, eps=eps, delta=delta, calibration=calibration,
                             seed=seed, nonprivate=reference,
                             accuracy=AccuracyReport(steps + [values_plan]),
                             extra_notes=[note] + count_notes(count))
    posted = [s for s in result.accuracy.steps if "post-release" in s.step]
    AccuracyReport(posted).warn(basis="released values only")
    return result, directions


def _check_unused(unused) -> None:
    defaults = dict(_UNUSED, scale_share=SCALE_SHARE)
    unknown = sorted(set(unused) - set(defaults))
    if unknown:
        raise DPPCAValueError(f"unknown arguments {unknown}")
    given = sorted(name for name, value in unused.items()
                   if not _is_default(value, defaults[name]))
    if given:
        raise DPPCAValueError(f"{given} do not apply to standardize='rank' (one Kendall's tau "
                              "release, no scales, no tuning): leave them at their defaults")


def _is_default(value, default) -> bool:
    return value is None if default is None else (value is not None and value == default)


def _sampling_pairs(n, blocks):
    """The intervals' sampling count as RankBound reads it (rows, m = floor(rows / 2)) and the
    largest kernel weight: floor(n / 2) equal weights, or the block design's
    (:func:`dppca.stats.elementwise_kendall_blocks_design.hoeffding_pairs`)."""
    rows = 2 * int(hoeffding_pairs(n, blocks))
    return rows, None if blocks is None else largest_kernel_weight(n, blocks)


def rank_values_accuracy(n, p, k, sigma, largest_weight=None):
    """Pre-release relative half-width of the rank scree intervals, from public numbers only.

    Parameters
    ----------
    n, p, k : int
        Rows (twice the independent pairs of the design), columns, values (public).
    sigma : float
        The tau release's noise sd (public: from n, p, eps, delta and the calibration).
    largest_weight : float, optional
        The block design's largest kernel weight (:class:`RankBound`); None: complete statistic.

    Returns
    -------
    StepAccuracy
        Step ``"rank: scree values (half-width)"``: the 95% half-width
        (:meth:`dppca.results.scree_rank.RankBound.halfwidth`) for a released diagonal of ones
        (no ties read), no repair move and off-diagonal ratios c = sqrt((p / k - 1) / (p - 1))
        (see Notes), over an assumed value p / k (the top k sharing the trace p evenly);
        reliable below 1.

    Notes
    -----
    A correlation matrix whose top k eigenvalues are p / k (and the others 0) has
    ||R_off||_F^2 = k (p / k)^2 - p; spread evenly over the p (p - 1) off-diagonal entries that
    is c^2 = (p / k - 1) / (p - 1) each, an upper bound of the tau-b ratios |tau_b| =
    (2 / pi) arcsin |r| <= |r| that the tie-share term multiplies.

    Examples
    --------
    >>> from dppca.scree_rank import rank_values_accuracy
    >>> step = rank_values_accuracy(2000, 5, 2, 0.02)
    >>> step.step, step.reliable
    ('rank: scree values (half-width)', True)
    """
    ratio = math.sqrt((p / k - 1) / (p - 1)) if p > 1 else 0.0
    ratios = np.where(np.eye(p, dtype=bool), 0.0, ratio)
    half = RankBound(n, p, sigma, 1.0, 0.0, 0.0, np.ones(p), ratios,
                     largest_weight=largest_weight).halfwidth()
    return rank_values_step(half, p / k, step="rank: scree values (half-width)",
                            quantity="95% interval half-width over an assumed value p / k, "
                                     "from public n, p, eps, delta (noise and sampling)")


def rank_scree_plan(n, p, k, eps, delta, calibration="analytic",
                    pairs_per_row="auto") -> AccuracyReport:
    """The rank scree's pre-release accuracy: the directions' and the values' rows.

    Parameters
    ----------
    n, p, k : int
        Rows, columns, values (public).
    eps, delta : float
        The call's budget.
    calibration : {"analytic", "classic"}
        Gaussian calibration.
    pairs_per_row : "auto", int or None
        The design's fewest pairs per row (None: the complete statistic); "auto": the one
        ``design="auto"`` takes for data in memory
        (:func:`dppca.stats.elementwise_kendall_blocks_design.rank_pairs_per_row_rule`).

    Returns
    -------
    AccuracyReport
        For that design (public; its sensitivity, its extra sampling sd
        :func:`dppca.stats.elementwise_kendall_blocks_design.block_design_sd` and, for the
        values, its independent pairs): ``"directions (pre-release)"``
        (:func:`dppca.methods.latent_correlation.rank_accuracy`) and
        :func:`rank_values_accuracy`.

    Examples
    --------
    >>> from dppca.scree_rank import rank_scree_plan
    >>> [s.step for s in rank_scree_plan(2000, 5, 2, 1.0, 1e-5).steps]
    ['directions (pre-release)', 'rank: scree values (half-width)']
    """
    r = rank_pairs_per_row_rule(n, p) if isinstance(pairs_per_row, str) else pairs_per_row
    sigma = gaussian_sigma(rank_release_sensitivity(n, p, r), eps, delta, calibration)
    # block_design(n, r) draws n // (r + 1) blocks (for a drawn design's fewest pairs r' >= r,
    # n // (r' + 1) is at most that; a pre-release prediction either way)
    rows, weight = _sampling_pairs(n, None if r is None else n // (r + 1))
    return AccuracyReport(rank_accuracy(p, k, sigma, design_sd=block_design_sd(n, r)).steps
                          + [rank_values_accuracy(rows, p, k, sigma, weight)])


__all__ = ["RANK", "rank_scree", "rank_scree_plan", "rank_scree_release", "rank_values_accuracy"]
