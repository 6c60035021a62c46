"""``dp_scree`` and ``dp_scree_plot``: private eigenvalues (scree values) and PVE.

Mirrors the R package's ``dp_scree`` family (reference/r-dppca-scree.md §5-13), private end to
end and self-tuning (Kim & Jung 2025, Remark 2.1: estimate the directions privately, then the
variance of the projected scores privately). The pipeline of one call:

1. directions: g-DPPCA (``g_dppca=True``, the default, private, ``DIRECTION_SHARE`` of the budget) or the
   NON-PRIVATE sample-covariance eigenvectors (``g_dppca=False``, as in R; then the scree values
   are private only *given* the directions, and the result says so);
2. the total variance tr(S) from disjoint random pairs of rows (``TRACE_SHARE`` of what is left);
3. per method, the variance of each projected score, estimated from the pair values
   u_ij = (v^T x_i - v^T x_j)^2 / 2 (whose U-statistic is the sample variance) by a clipped mean
   ("clipped"), a winsorized mean ("pmwm") or a Huber M-estimate ("huber"), with thresholds
   tuned privately when the control does not fix them;
4. post-processing: non-negative, non-increasing fit (``mono``), PVE of the private trace,
   PVE among the k values (R's definition) and cumulative PVE.

Statistics are translation invariant (pair differences), so ``center`` changes nothing and no
private mean is spent. All Gaussian releases of a call, directions included, form one Gaussian-DP
group (:class:`dppca.privacy.composition.GaussianGroup`): each gets a share of mu^2, which is about
twice as efficient as splitting eps and delta. Several methods in one call share steps 1-2 and
split the rest of the budget evenly, so the whole result is (eps, delta)-DP. Step 1 and the
relabelling of the directions by their private variances live in :mod:`dppca.scree_directions`.
"""
from __future__ import annotations


import numpy as np

from ._validation import (DPPCAValueError, bool_arg, delta_arg, eps_arg, int_arg, option_arg,
                          options_arg, rng_arg, seed_of, control_arg)
from .controls import SCREE_METHODS, ScreePlotControl, resolve_controls
from .directions import SCALE_SHARE
from .stats.pair_design import pair_statistic_design
from .methods.gdppca import states_gdppca_sensitivity
from .backends.dask import is_dask_input
from .preprocessing import column_scales, random_pairs
from .privacy import CALIBRATIONS, Ledger
from .privacy.accuracy import AccuracyReport
from .results.scree import ScreeResult
from .estimators.scree_fits import FITTERS, check_split_mode, private_trace
from .estimators.scree_accuracy import TRACE_SHARE, scree_shares
from .scree_plan import DIRECTION_SHARE, public_centre, scree_plan
from .scree_directions import (kendall_order_accuracy, permuted, scree_directions, values_reliable,
                               variance_order)
from .privacy.composition import GaussianGroup
from .scree_rank import rank_scree
from .privacy.spending import debit, records_outcome
from .preprocessing.dask_input import as_input_matrix
from .preprocessing.schema import declared_input
from .preprocessing.missing_entry import applies_missing_policy, documents_missing
from .privacy.counted_group import count_first, count_notes
from .privacy.neighbouring import (ADD_REMOVE, add_remove_unsupported, documents_neighbouring,
                                   neighbouring_arg)



class _Omitted(tuple):
    """Default of ``method``: shows R's choices, runs "clipped" only (R's match.arg rule)."""


_OMITTED_METHODS = _Omitted(SCREE_METHODS)

#: What dp_scree covers under add/remove neighbours (its docstring says so).
SCREE_ADD_REMOVE = ("the clipped method with g-DPPCA directions computed in the call (raw data, "
                    "or every scale declared public; complete design; proofs in "
                    ":func:`dppca.estimators.pair_means.pair_release_sensitivity` and "
                    ":func:`dppca.privacy.counted_group.pair_rows`) and standardize='rank'")


# ----------------------------------------------------------------------------- dp_scree

@applies_missing_policy("dp_scree")
@records_outcome
@documents_neighbouring(SCREE_ADD_REMOVE)
@states_gdppca_sensitivity
def dp_scree(X, k, method=_OMITTED_METHODS, control=None, eps=None, delta=None, center=True,
             standardize=False, g_dppca=True, mono=True, *, calibration="analytic", rng=None,
             nonprivate=False, directions=None, scale_share=SCALE_SHARE,
             noise="tight", design="auto", pairs_per_row=None, bounds=None, scale=None,
             budget=None, missing="auto",
             neighbouring="replace") -> ScreeResult:
    """Private scree values (variances along the top-k PC directions), PVE and cumulative PVE.

    Parameters
    ----------
    X : pandas.DataFrame, array_like, dask array or DataFrame, or path to Parquet/CSV, shape (n, p)
        Numeric data, n >= 4. Dask input and files are processed chunk by chunk
        (docs/scaling.md); they need ``g_dppca=True`` and no ``nonprivate``.
    k : int
        Number of components, 1 <= k <= p.
    method : str or sequence of str
        "clipped", "pmwm", "huber", or several. Omitted: "clipped" only (as R). Several
        methods share the directions and the trace and split the rest of the budget evenly.
    control : control object, dict, or None
        A control from :func:`clipped_control`, :func:`pmwm_control`, :func:`huber_control`
        (applies to its method), a dict {method: control or dict of its arguments}, or, with
        one method, a dict of that control's arguments (R's raw list). None: self-tuned defaults.
    eps : float > 0
        Total privacy budget of the call (required).
    delta : float in (0, 1)
        Total privacy budget of the call (required).
    center : bool
        Accepted for parity with R; every statistic uses pair differences, so it has no effect.
    standardize : bool or "rank"
        Divide columns by scales first: private scales (part of the direction budget) when
        g_dppca=True, the NON-PRIVATE sample SD when g_dppca=False (as R). ``"rank"``: the
        rank path (:func:`dppca.scree_rank.rank_scree`): the top-k eigenvalues of the latent
        Gaussian-copula correlation from one private Kendall's tau release (the whole budget),
        PVE over its trace p, intervals covering noise and sampling error; one method column
        "rank" (``method`` omitted or "rank"; no controls, directions, scales or designs).
    g_dppca : bool
        True (default; R's default is False): private g-DPPCA directions. False: NON-PRIVATE
        directions; the scree values are then NOT private end to end (see Notes) and
        ``result.directions_private`` is False.
    mono : bool
        True: clip at 0 (here: at a third of the noise sd, see
        :data:`dppca.results.scree.NOISE_FLOOR`) and fit the non-increasing sequence (PAVA),
        as R. False: the raw,
        unbiased noisy estimates (possibly negative or not ordered).
    calibration : {"analytic", "classic"}
        Gaussian noise calibration; "classic" (R's formula) is proven only for eps < 1.
    rng : None, int or numpy.random.Generator
        One generator drives every random step (noise, pairs, designs); the same seed gives the
        same output.
    nonprivate : bool
        Also return the NON-PRIVATE reference (sample-covariance eigenvalues and trace).
    directions : PCDirections, optional
        Directions already computed by :func:`dppca.dp_pc_dir` on the same X (first k columns
        used, its scales reused). Its releases are counted in this call's budget.
    scale_share : float in (0, 1)
        Fraction of the call's Gaussian-DP group (its mu^2) for the private column scales,
        released once for all methods (only with standardize=True and g_dppca=True; default 0.35).
    noise : {"tight", "r_dppca"}
        Sensitivity of the directions computed inside the call (ignored for ``directions=``):
        see ``noise`` in :func:`dppca.dp_pc_dir`.
    design : {"auto", "complete", "incomplete"}
        Pairs of the methods' pair statistics: "complete", all n(n-1)/2 pairs (O(n log n) per
        component); "incomplete", the pairs inside the blocks of a random block design
        (:func:`dppca.stats.pair_design.pair_statistic_design`), same sensitivity; "auto": complete
        in memory, incomplete for dask input.
    pairs_per_row : int, optional
        Pairs per row r of the incomplete design (blocks of r + 1 rows; default 4,095).
    bounds : dict, DataFrame, str or Schema, optional
        Declared public bounds per column (column -> (lower, upper), or a codebook; see
        :func:`dppca.preprocessing.schema.read_schema`): each value is clipped to its column's
        bounds before anything else, and when every column is bounded the private trace is
        clamped to the public bound sum_j n/(n-1) ((u_j - l_j) / 2 s_j)^2 (Popoviciu). A
        codebook's scales count as ``scale=``. Declared facts cost no budget and show on the
        ledger as "public (declared)".
    scale : array_like of shape (p,), dict, pandas.Series, DataFrame, str or Schema, optional
        Declared public column scales for ``standardize=True`` (by name they may cover some
        columns only; the others get private scales). With every column declared no scale is
        released and ``scale_share`` is not spent (it goes to the other steps).
    budget : dppca.privacy.spending.Budget or str, optional
        A registered dataset's privacy budget (:func:`dppca.budget`, or its name in the default
        store): the call's whole (eps, delta) is debited there before any private computation.
    missing : {"auto", "median", "drop"}, float or dict
        {missing_doc}
    neighbouring : {"replace", "add_remove"}
        {neighbouring_doc}

    Returns
    -------
    ScreeResult
        ``scree``, ``pve``, ``pve_among_k``, ``cumulative_pve`` (rows PC1..PCk, one column per
        method, plus ``nonprivate`` when asked), ``std_err``, ``conf_int()``, ``ledger``
        (method -> Ledger), ``summary()``, ``plot()``, ``to_dict()``.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Bad data (non-numeric, NaN/inf, fewer than 4 rows), k outside [1, p], eps or delta
        missing or out of range, unknown or repeated methods, controls for methods not
        requested or of the wrong type, non-bool flags, unknown calibration, directions that
        do not match X or exceed the budget; ``neighbouring="add_remove"`` with what it does
        not cover (:func:`check_add_remove_scree`; from the arguments alone). Under
        ``neighbouring="add_remove"`` the rows are not counted before the private count: the
        call is refused right after it when its public lower bound n_lo is below 4 (a message
        of the released numbers only, the budget spent;
        :func:`dppca.privacy.neighbouring.refuse_few_rows`).

    See Also
    --------
    dp_scree_plot : The same with a scree or PVE plot.
    dp_pc_dir : The private directions (pass them as ``directions=``).
    clipped_control, pmwm_control, huber_control : The methods' settings.

    Notes
    -----
    Privacy (replace-one neighbours, n public): the ledger of each method lists every release
    its numbers depend on, and the releases of all methods together total at most (eps, delta).
    Every self-tuned release is Gaussian; they form one Gaussian-DP group (mu-GDP composition,
    Dong, Roth and Su 2022), whose ledger rows show each release's share of (eps, delta). R's own
    tuning steps (pmwm scans with a and b, huber m2 with k_min_m2 and k_max_m2) are pure eps-DP
    and compose with the group by basic composition.

    * Directions (g_dppca=True), ``DIRECTION_SHARE`` of the rest of the group; with
      standardize, the private scales take ``scale_share`` of the whole group first (one
      release for the call):
      {gdppca_sensitivity}
    * Trace: t_i = ||x_a - x_b||^2 / 2 over m = floor(n/2) random disjoint pairs (E t = tr S);
      a noisy log2 histogram of the t_i (L2 sensitivity sqrt 2) locates their bulk, a second
      one (sqrt 2) chooses C_T (:mod:`dppca.estimators.clip_choice`), then mean(min(t, C_T))
      (sensitivity C_T / m); ``TRACE_SHARE`` of the rest.
    * Each method: the pair-value U-statistics have sensitivity 2 W / n for terms in an interval
      of width W (a replaced row touches n - 1 of the n(n - 1)/2 pairs); tuning histograms have
      L2 sensitivity sqrt(2k) (the clipped method's clip histogram too: a replaced row moves
      one disjoint-pair value per component, two counts by 1); proofs in
      :mod:`dppca.estimators.pair_means` and :func:`dppca.privacy.quantiles.dp_histogram_counts`.
      With the incomplete design each row is in exactly one block, whose complete statistic
      moves by 2 W / ``|B|`` and weighs ``|B| / n``: the same 2 W / n (rounding slack in
      :func:`dppca.stats.pair_statistics.block_clamped_fractions`).
    * Post-processing: with private directions computed in the call, ``mono``, and values the
      accuracy model predicts reliable (public arithmetic), the k directions are relabelled by
      their private variances, largest first (Kendall's tau is blind to the columns' scales, so
      its first direction need not carry the most variance).
    * With g_dppca=False the directions depend on every row without noise, so the released
      values are private only conditionally on the directions: not (eps, delta)-DP end to end.
    * Add/remove neighbours (``neighbouring="add_remove"``, n private): the row count is
      released first (sensitivity 1, ``COUNT_SHARE`` of the group; its bounds n_lo, n_hi fail
      with probability ``COUNT_DELTA_SHARE`` delta, charged to delta:
      :mod:`dppca.privacy.neighbouring`), and the rest of the group runs the same steps with
      each sensitivity at the bounds: the directions 2 sqrt(2) / (n_lo + 1)
      (:func:`dppca.methods.add_remove.kendall_add_remove_sensitivity`); the clipped
      U-statistics 2 sqrt(k) / (n_lo + 1) (a mean of terms in [0, 1] over the C(n, 2) pairs
      moves by at most 2 / (n + 1) when a row is added to n rows,
      :func:`dppca.estimators.pair_means.pair_release_sensitivity`); the trace's clipped
      disjoint-pair mean C_T / floor(max(n_lo, 4) / 2) and its histograms sqrt(2), the
      clip histograms sqrt(2k) (a coupling of the random pairings adds or replaces one pair
      value, :func:`dppca.privacy.counted_group.pair_rows`). Every public branch (budget
      shares, tuning gates, the clip choice's noise) reads n_lo + 1, never n; the result
      prints the noisy count.

    Differences from R (reference/r-dppca-scree.md §15): no centring by the sample mean (which
    broke R's sensitivities); k components released jointly; Gaussian-DP composition; Laplace
    noise 2/eps on R's m2 histogram; random instead of positional row splits; every control
    argument has a default; PVE over a private trace plus R's PVE among the k values.

    References
    ----------
    Kim, M. and Jung, S. (2025). Robust and differentially private PCA for non-Gaussian data,
    Remark 2.1. The R package dppca, ``dp_scree``.

    Examples
    --------
    >>> from dppca import dp_scree, load_gau
    >>> res = dp_scree(load_gau(), k=5, eps=1, delta=1e-5, g_dppca=True, rng=1)
    >>> res.scree.shape
    (5, 1)
    """
    add_remove = neighbouring_arg(neighbouring) == ADD_REMOVE
    if isinstance(standardize, str):  # the rank path: one Kendall's tau release
        return rank_scree(X, k, standardize=standardize, method=None if isinstance(
            method, _Omitted) else method, control=control, eps=eps, delta=delta, center=center,
            g_dppca=g_dppca, mono=mono, calibration=calibration, rng=rng, nonprivate=nonprivate,
            directions=directions, scale_share=scale_share, noise=noise, design=design,
            pairs_per_row=pairs_per_row, bounds=bounds, scale=scale, budget=budget,
            neighbouring=neighbouring)
    lazy = is_dask_input(X)
    if add_remove:  # the arguments alone, before the data are read (a codebook may hold scales)
        check_add_remove_scree(lazy, _resolve_methods(method), dict(
            g_dppca=g_dppca is True, standardize=standardize is True,
            scales_declared=scale is not None or bounds is not None), design, pairs_per_row,
            directions, noise)
    # add/remove: n is private, so no row count is checked before its release (count_first
    # refuses too few rows from the released count only)
    given = declared_input(as_input_matrix(X, lazy, 0 if add_remove else 4), bounds, scale)
    mat = given.matrix
    methods = _resolve_methods(method)
    k = int_arg(k, "k", 1, mat.p)
    eps, delta = eps_arg(eps), delta_arg(delta)
    flags = {name: bool_arg(value, name) for name, value in
             dict(center=center, standardize=standardize, g_dppca=g_dppca, mono=mono,
                  nonprivate=nonprivate).items()}
    flags["scales_declared"] = flags["standardize"] and given.scales_declared
    option_arg(calibration, "calibration", CALIBRATIONS)
    controls = resolve_controls(control, methods)
    _check_lazy_call(lazy, flags)
    if add_remove:
        design = check_add_remove_scree(lazy, methods, flags, design, pairs_per_row,
                                        directions, noise)
    generator = rng_arg(rng)
    # Drawn (only when used) before anything touches the data: bad arguments fail first.
    pair_design = pair_statistic_design(design, pairs_per_row, mat.n, lazy, generator)
    check_split_mode(controls, pair_design)
    debit(budget, "dp_scree", eps, delta, k=k, methods=methods, g_dppca=flags["g_dppca"])
    pure = _pure_budgets(controls, eps, flags["g_dppca"])
    group = GaussianGroup(eps - sum(pure.values()), delta, calibration)
    shared = Ledger(eps, delta)
    given.record(shared)
    count = rows = None
    if add_remove:  # n private: released first, every later step reads its public bounds
        count, group = count_first(mat.n, eps - sum(pure.values()), delta, calibration,
                                   generator, shared)
        rows = count.rows
    n_public = mat.n if rows is None else int(rows.sensitivity_rows)
    accuracy = scree_plan(n_public, mat.p, k, group, methods, controls, flags, scale_share,
                          directions)
    # public arithmetic, before any private computation; g-DPPCA directions computed here are
    # judged by their post-release row (released gaps), as in dp_pc_dir, not the assumed gap
    own = directions is None and flags["g_dppca"]
    AccuracyReport([s for s in accuracy.steps if not (own and s.step == "directions")]).warn()
    dirs, used = scree_directions(mat, k, flags, group, generator, shared, directions,
                                  scale_share, noise, given.scale, count)
    values = mat.scaled(dirs.scale)
    pairs = random_pairs(mat.n, generator)
    rest = 1.0 - used
    # With k = p the k values are all the variance: T is their sum and only the trace's rough
    # centre is released (to anchor the tuning histograms). Public arithmetic (n, eps, delta)
    # sizes the centre's share so that it is not noise-dominated where that is affordable.
    centre = public_centre(mat.p, flags)
    shares = scree_shares(n_public, rest, len(methods), group.mu, k < mat.p, centre)
    trace, trace_sd, anchor, trace_bias = private_trace(values, pairs, group, shares, generator,
                                                         shared, centre, rows)
    # post-processing: a public bound (at max(n_lo, 4) rows under add/remove: n private)
    trace = min(trace, given.variance_bound(dirs.scale, None if count is None else
                                            max(count.lower, 4)))
    scores = _scores(values, dirs.directions.to_numpy()[:, :k], pair_design)
    share = shares.method
    fits, ledgers = {}, {}
    for name in methods:
        ledgers[name] = Ledger(eps, delta)
        ledgers[name].neighbouring = shared.neighbouring
        ledgers[name].extend(shared)
        fits[name] = FITTERS[name](scores, pairs, anchor, controls[name], group, share, pure[name],
                                    generator, ledgers[name], pair_design,
                                    **({} if rows is None else {"rows": rows}))
    reference = _nonprivate_reference(mat, k, flags["standardize"], given.scale) \
        if flags["nonprivate"] else None
    order = variance_order(fits, directions is None and flags["g_dppca"] and flags["mono"]
                            and values_reliable(accuracy, methods[0]))
    checked = kendall_order_accuracy(fits, own)  # fits still in Kendall order
    released = _released_steps(dirs)
    fits = {name: permuted(fit, order) for name, fit in fits.items()}
    columns = dirs.directions.columns[:k]
    result = ScreeResult(fits, trace=trace, trace_std_err=trace_sd, trace_bias=trace_bias,
                         ledgers=ledgers,
                         shared_releases=len(shared),
                         directions=dirs.directions.iloc[:, order].set_axis(mat.columns, axis=0)
                         .set_axis(columns, axis=1),
                         private_directions=dirs.private, scale_source=dirs.scale_source,
                         n_obs=mat.n if count is None else count.reported, eps=eps,
                         delta=delta, calibration=calibration,
                         seed=seed_of(rng), mono=flags["mono"], controls=controls,
                         nonprivate=reference,
                         extra_notes=_calibration_notes(group) + count_notes(count),
                         accuracy=AccuracyReport(accuracy.steps + released + checked))
    # Post-release rows of the Kendall order and the values (released values only), after the
    # public pre-release ones and the directions' post-release row (dp_pc_dir warned of that).
    skip = len(accuracy.steps) + len(released)
    AccuracyReport(result.accuracy.steps[skip:]).warn(basis="released values only")
    return result


@documents_missing
@documents_neighbouring(SCREE_ADD_REMOVE)
def dp_scree_plot(X, k, method=_OMITTED_METHODS, control=None, eps=None, delta=None, center=True,
                  standardize=False, g_dppca=True, mono=True, type="pve", plot_control=None, *,
                  calibration="analytic", rng=None, nonprivate=False, directions=None, ax=None,
                  scale_share=SCALE_SHARE, noise="tight", design="auto", pairs_per_row=None,
                  bounds=None, scale=None, budget=None, missing="auto",
                  neighbouring="replace"):
    """:func:`dp_scree`, then its scree or PVE plot (R: ``dp_scree_plot``).

    Parameters
    ----------
    X : pandas.DataFrame, array_like, dask array or DataFrame, or path, shape (n, p)
        Numeric data, as in :func:`dp_scree`.
    k : int
        Number of components, 1 <= k <= p.
    method : str or sequence of str
        "clipped", "pmwm", "huber", or several (one line each), as in :func:`dp_scree`.
    control : control object, dict, or None
        Method controls, as in :func:`dp_scree`.
    eps, delta : float
        Total privacy budget of the call (required): eps > 0, delta in (0, 1).
    center : bool
        As in :func:`dp_scree` (no effect).
    standardize : bool or "rank"
        As in :func:`dp_scree` ("rank": the latent correlation's eigenvalues).
    g_dppca, mono : bool
        As in :func:`dp_scree` (g_dppca=False: NON-PRIVATE directions, said in the title).
    type : {"pve", "scree"}
        What to draw (R's default "pve": the share of the private total variance).
    plot_control : ScreePlotControl, dict or None
        Appearance (:func:`scree_plot_control`); validated before any data is touched.
    calibration : {"analytic", "classic"}
        Gaussian noise calibration, as in :func:`dp_scree`.
    rng : None, int or numpy.random.Generator
        Seed or generator of every random step, as in :func:`dp_scree`.
    nonprivate : bool
        Also compute and draw the NON-PRIVATE reference, labelled NON-PRIVATE.
    directions : PCDirections, optional
        Directions already released on the same X, as in :func:`dp_scree`.
    ax : matplotlib Axes, optional
        Where to draw; None makes a new Figure.
    scale_share : float in (0, 1)
        Part of the budget for the private column scales, as in :func:`dp_scree`.
    noise : {"tight", "r_dppca"}
        Noise of directions computed in the call, as in :func:`dp_scree`.
    design : {"auto", "complete", "incomplete"}
        Pairs of the methods' pair statistics, as in :func:`dp_scree`.
    pairs_per_row : int, optional
        Pairs per row of the incomplete design, as in :func:`dp_scree`.
    bounds, scale : optional
        Declared public bounds and scales per column, as in :func:`dp_scree` (no budget).
    budget : dppca.privacy.spending.Budget or str, optional
        A registered dataset's privacy budget (:func:`dppca.budget`, or its name in the default
        store): the call's whole (eps, delta) is debited there before any private computation.
    missing : {"auto", "median", "drop"}, float or dict
        {missing_doc}
    neighbouring : {"replace", "add_remove"}
        {neighbouring_doc}

    Returns
    -------
    ScreeResult
        With ``.figure`` set: one line per method with 95% noise error bars (scree), the
        NON-PRIVATE reference only when ``nonprivate=True``.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        As :func:`dp_scree`, plus an unknown ``type`` or a bad ``plot_control``.

    See Also
    --------
    dp_scree : The numbers without a figure.
    dp_pc_dir : The private directions.

    Examples
    --------
    >>> from dppca import dp_scree_plot, load_gau
    >>> result = dp_scree_plot(load_gau().iloc[:1000], k=3, method="clipped", eps=1,
    ...                        delta=1e-5, rng=1)
    >>> type(result.figure).__name__
    'Figure'
    """
    neighbouring_arg(neighbouring)
    option_arg(type, "type", ("pve", "scree"))
    plot_control = control_arg(plot_control, ScreePlotControl, "plot_control")
    result = dp_scree(X, k, method, control, eps, delta, center, standardize, g_dppca, mono,
                      calibration=calibration, rng=rng, nonprivate=nonprivate, directions=directions,
                      scale_share=scale_share, noise=noise, design=design,
                      pairs_per_row=pairs_per_row, bounds=bounds, scale=scale, budget=budget,
                      missing=missing, neighbouring=neighbouring)
    result.figure = result.plot(type=type, plot_control=plot_control, ax=ax)
    return result


# ----------------------------------------------------------------------------- resolution

def _resolve_methods(method) -> tuple:
    if isinstance(method, _Omitted) or method is None:
        return ("clipped",)
    return options_arg(method, "method", SCREE_METHODS)


# ----------------------------------------------------------------------------- pipeline

def _check_lazy_call(lazy, flags) -> None:
    if lazy and not flags["g_dppca"]:
        raise DPPCAValueError("dask and file input needs private directions (g_dppca=True)")
    if lazy and flags["nonprivate"]:
        raise DPPCAValueError("nonprivate=True is not available for dask or file input")


def _scores(values, directions, pair_design):
    """Projected scores (n, k). On dask: computed block by block and kept by dask (``persist``:
    on the workers of a cluster) for the block design, or brought into memory (k columns) for
    the complete statistic."""
    scores = values @ directions
    if isinstance(scores, np.ndarray):
        return scores
    return scores.compute() if pair_design is None else scores.persist()


def _pure_budgets(controls, eps, g_dppca) -> dict:
    """Pure-DP eps of R's own tuning steps (quantile scans, m2 histograms), per method.

    A nominal fraction of eps per method, (1 - DIRECTION_SHARE [g_dppca]) (1 - TRACE_SHARE) / r,
    times the control's tuning share; these steps compose with the Gaussian group by basic
    composition. Self-tuned methods use Gaussian tuning inside the group (0 here).
    """
    nominal = (1 - DIRECTION_SHARE * g_dppca) * (1 - TRACE_SHARE) / len(controls)
    budgets = {}
    for name, control in controls.items():
        if name == "pmwm" and control.a is not None:
            budgets[name] = control.tuning_share * nominal * eps
        elif name == "huber" and control.k_min_m2 is not None:
            budgets[name] = control.m2_frac * nominal * eps
        else:
            budgets[name] = 0.0
    return budgets


def check_add_remove_scree(lazy, methods, flags, design, pairs_per_row, directions,
                           noise) -> str:
    """Refuse, from the arguments alone, what ``dp_scree`` does not cover under add/remove.

    Parameters
    ----------
    lazy : bool
        Dask or file input.
    methods : tuple of str
        The resolved methods.
    flags : dict
        ``g_dppca``, ``standardize``, ``scales_declared``.
    design : str
        The ``design`` argument.
    pairs_per_row : int or None
        The incomplete design's pairs per row.
    directions : PCDirections or None
        The caller's directions.
    noise : str
        The directions' sensitivity constant.

    Returns
    -------
    str
        "complete": the pair design of the call (the incomplete one is drawn for the private n).

    Raises
    ------
    DPPCAValueError
        Anything but the clipped method with private g-DPPCA directions computed in the call,
        raw data or declared public scales, in memory, complete design, ``noise="tight"``.

    Examples
    --------
    >>> check_add_remove_scree(False, ("clipped",), dict(g_dppca=True, standardize=False),
    ...                        "auto", None, None, "tight")
    'complete'
    """
    what = None
    if lazy:
        what = "dask and file input"
    elif [m for m in methods if m != "clipped"]:
        what = "dp_scree's pmwm and huber methods (their tuning reads n; use method='clipped')"
    elif not flags["g_dppca"] or directions is not None:
        what = ("dp_scree with NON-PRIVATE or given directions (use g_dppca=True, no "
                "directions=)")
    elif flags["standardize"] and not flags.get("scales_declared"):
        what = ("dp_scree's private column scales (declare every scale public with scale=, or "
                "use standardize='rank')")
    elif design == "incomplete" or pairs_per_row is not None:
        what = "the incomplete pair design (drawn for the private n; use design='complete')"
    elif noise != "tight":
        what = "noise='r_dppca' (the R package's replace-one constant)"
    if what:
        add_remove_unsupported(ADD_REMOVE, what)
    return "complete"


def _released_steps(dirs) -> list:
    """The directions' post-release accuracy rows (g-DPPCA's, from its released spectrum), shown
    in the scree summary's accuracy block with the values' rows; none for other directions."""
    report = getattr(dirs, "accuracy", None) if dirs.private else None
    return [] if report is None else [s for s in report.steps if "post-release" in s.step]


def _calibration_notes(group) -> list:
    if group.calibration == "classic" and group.eps >= 1:
        return [f"classic calibration: the Gaussian releases compose to one Gaussian mechanism at "
                f"eps={group.eps:.4g} >= 1, where the classic formula has no proof (Dwork & Roth "
                "Thm A.1 needs eps < 1); prefer calibration='analytic'."]
    return []


def _nonprivate_reference(mat, k, standardize, scale=None) -> dict:
    """NON-PRIVATE eigenvalues and trace of the sample covariance (declared scales where given,
    the sample SD for the other columns, as R)."""
    values = mat.values / column_scales(mat, True, scale, private=False).values if standardize \
        else mat.values
    cov = np.atleast_2d(np.cov(values, rowvar=False, ddof=1))
    eigenvalues = np.linalg.eigvalsh(cov)[::-1][:k]
    return {"scree": eigenvalues, "trace": float(np.trace(cov))}

__all__ = ["DIRECTION_SHARE", "dp_scree", "dp_scree_plot", "scree_plan"]
