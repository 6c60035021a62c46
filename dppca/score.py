"""Private PC score plots: ``dp_score``, ``dp_score_group`` and their plotting versions.

Mirrors the R package's score functions (reference r-dppca-score.md §6-§12), private end to
end when ``g_dppca=True`` (the default):

    X --dp_pc_dir--> V --scores X V[:, axes]--> private frame --bins--> private histograms
      [--> synthetic samples --> panel grid]

Differences from R, each for privacy or correctness (the spec's Observations): scores are not
centred by the sample mean (the private frame centre is the centre; P1); the smooth-sensitivity
medians use a private domain and beta = eps/(2 ln(2/delta)) (P5, P6); "add" and "sparse" split
the histogram budget (P3); the Gaussian noise is calibrated exactly (analytic, P4); group sizes
are never released exactly (P7) and the group labels are a declared public domain (``levels=``,
Categorical categories) or chosen by private partition selection, never read off the data
(R takes them from the data and refuses groups of fewer than 2 rows, which is not private);
non-private references only with ``nonprivate=True`` (P8);
``bins`` has a default; unknown option names and repeated axes are errors (B2, B9).
"""
from __future__ import annotations

import numpy as np

from ._validation import (DPPCAValueError, axes_arg, bins_arg, bool_arg, delta_arg, eps_arg, float_arg,
                          option_arg, options_arg, rng_arg, seed_of)
from .directions import RANK, SCALE_SHARE, directions_at_bounds, dp_pc_dir
from .estimators.groups import declared_groups, label_series, reference_scores, selected_groups, split_group
from .methods.gdppca import states_gdppca_sensitivity
from .controls import SamplingControl
from .estimators.histograms import (HISTOGRAM_METHODS, Grid, bin_counts, default_bins, histogram_frame, normalised_counts,
                                    private_histograms)
from .estimators.sampling import sample_released
from .estimators.frame import cut_to_box, private_frame
from .preprocessing import as_matrix, column_scales
from .preprocessing.schema import declared_input
from .preprocessing.missing_entry import applies_missing_policy
from .privacy import CALIBRATIONS, Ledger, split_budget
from .privacy.spending import debit, records_outcome
from .results.score import ScoreResult
from .score_rank import rank_scores
from .privacy.counted_group import count_first, count_notes
from .privacy.neighbouring import (ADD_REMOVE, add_remove_unsupported, documents_neighbouring,
                                   neighbouring_arg)

#: R's budget split (score_helpers.R:730-750): without private directions half for the frame and
#: half for the histograms, with g-DPPCA a third each.
BUDGET_SHARES = {False: {"frame": 0.5, "histograms": 0.5},
                 True: {"directions": 1 / 3, "frame": 1 / 3, "histograms": 1 / 3}}
PRIVATE_PLOTS = ("histogram", "sample")
#: Share of a grouped call's budget (eps and delta) spent on private partition selection when
#: no domain of labels is declared; the rest is split as in ``BUDGET_SHARES``.
PARTITION_SHARE = 0.1
#: What dp_score covers under add/remove neighbours (its docstring says so).
SCORE_ADD_REMOVE = ("private g-DPPCA directions (g_dppca=True, noise='tight') on raw data or with "
                    "every scale declared public, the private frame and the histograms (proofs in "
                    "Notes); not the rank path, private column scales or g_dppca=False")
#: The fewest rows dp_score needs under add/remove neighbours (a pair of rows for the
#: directions), checked against the released count only.
SCORE_MIN_ROWS = 2


@applies_missing_policy("dp_score")
@documents_neighbouring(SCORE_ADD_REMOVE)
@states_gdppca_sensitivity
def dp_score(X, eps, delta, bins=None, method=("add", "sparse"), center=True, standardize=False,
             g_dppca=True, axes=(1, 2), *, calibration="analytic", rng=None,
             nonprivate=False, scale_share=SCALE_SHARE, noise="tight", bounds=None, scale=None,
             budget=None, missing="auto",
             neighbouring="replace") -> ScoreResult:
    """Private 2-D histograms of principal component scores inside a private square frame.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        Numeric data, n >= 2, p >= 2; n is public.
    eps : float
        Total privacy budget of the call, > 0.
    delta : float
        Total privacy budget of the call, in (0, 1).
    bins : int or (int, int), optional
        Bins along x and y (each >= 1). None picks b x b bins from public quantities with
        :func:`dppca.estimators.histograms.default_bins`: b = round(sqrt(n / (2.5 sigma))) in [4, 64],
        sigma the noise standard deviation (in counts) of the requested mechanisms.
    method : str or sequence of {"add", "sparse"}
        Histogram mechanisms: additive Gaussian on every count ("add") and/or Laplace on the
        non-empty counts with a threshold ("sparse"). Both split the histogram budget.
    center : bool
        True: coordinates relative to the private frame centre (so the frame is [-h, h]^2);
        False: the raw projections X V. The sample mean is never used.
    standardize : bool or "rank"
        True: scale the columns before PCA: private scales when ``g_dppca=True``, released once
        with ``scale_share`` of (eps, delta) (:func:`dppca.preprocessing.matrix.private_column_scales`),
        the rest split as usual; sample SDs (NON-PRIVATE) otherwise. ``"rank"``: the rank path
        (:mod:`dppca.score_rank`): each value becomes its normal score Phi^{-1}(F_j(x_ij)), F_j
        the CDF through private quantiles of its column
        (:func:`dppca.preprocessing.normal_scores.release_normal_score_map`), projected on the
        latent Gaussian-copula correlation directions (``dp_pc_dir(standardize="rank")``);
        the frame is public (see Notes) and centred at 0, so ``center`` changes nothing
        there (the levels of F_j are symmetric about 1/2). No ``scale=`` or ``bounds=`` there.
    g_dppca : bool
        True (default; R's default is False): g-DPPCA directions, everything released is
        (eps, delta)-DP. **False: the PC directions are the NON-PRIVATE sample-covariance
        eigenvectors, so the plot is NOT end-to-end differentially private** (the frame and
        histograms are private given the directions); ``result.directions_private`` is False.
    axes : (int, int)
        1-based PC numbers for x and y, distinct, each in [1, p].
    calibration : {"analytic", "classic"}
        Gaussian calibration (directions and "add"): Balle & Wang (2018) exact (default), or
        R's classic sigma (proven only for eps < 1).
    rng : None, int or numpy.random.Generator
        One generator drives every random step; the same seed gives the same output.
    nonprivate : bool
        Also attach the NON-PRIVATE scores and the exact histogram on the same grid.
    scale_share : float in (0, 1)
        Share of (eps, delta), taken by basic composition before the thirds below, for the
        private column scales (only with standardize=True and g_dppca=True; default 0.35).
    noise : {"tight", "r_dppca"}
        Sensitivity of the g-DPPCA directions' release (their third of the budget): see
        ``noise`` in :func:`dppca.dp_pc_dir`.
    bounds : dict, DataFrame, str or Schema, optional
        Declared public bounds per column (column -> (lower, upper), or a codebook; see
        :func:`dppca.preprocessing.schema.read_schema`): each value is clipped to its column's
        bounds first, and the private frame is cut to the box the bounds give the scores
        (:func:`dppca.estimators.frame.cut_to_box`; a frame never wider than the declared box,
        along each axis whose direction uses only bounded columns). A codebook's scales count
        as ``scale=``. Declared facts cost no budget and show on the ledger as
        "public (declared)".
    scale : array_like of shape (p,), dict, pandas.Series, DataFrame, str or Schema, optional
        Declared public column scales for ``standardize=True`` (by name they may cover some
        columns only; the others get private scales). With every column declared no scale is
        released and ``scale_share`` is not spent.
    budget : dppca.privacy.spending.Budget or str, optional
        A registered dataset's privacy budget (:func:`dppca.budget`, or its name in the default
        store): the call's whole (eps, delta) is debited there before any private computation.
    missing : {"auto", "median", "drop"}, float or dict
        {missing_doc}
    neighbouring : {"replace", "add_remove"}
        {neighbouring_doc}

    Returns
    -------
    ScoreResult
        ``frame``, ``histograms`` (method -> DataFrame xmin, xmax, ymin, ymax, prob),
        ``ledger``, ``summary()``, ``plot()``, ``sample()``.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        Non-numeric or non-finite X, fewer than 2 rows or columns, eps <= 0, delta outside
        (0, 1), bins not positive integers, axes not two distinct integers in [1, p], unknown
        or repeated method names, unknown calibration, non-bool flags, ``standardize`` not
        False, True or "rank"; with "rank": ``scale=`` or ``bounds=`` given, noise="r_dppca".
        Under ``neighbouring="add_remove"``: what it does not cover (:func:`check_add_remove_score`,
        from the arguments alone); no row count is checked before the private count, and the
        call is refused right after it when its public lower bound n_lo is below 2 (a message
        of the released numbers only, the budget spent;
        :func:`dppca.privacy.neighbouring.refuse_few_rows`).

    See Also
    --------
    dp_score_group : One histogram per group on the same frame.
    dp_score_plot : The histograms with synthetic samples and a figure.
    dp_pc_dir : The private directions alone.
    dp_scree : Private variances along the directions.

    Notes
    -----
    Privacy (replace-one neighbours, n public), basic composition over the ledger's releases:

    * budget: without g-DPPCA half for the frame and half for the histograms; with it a
      third each for directions, frame and histograms (as in R);
    * directions (g_dppca=True):
      {gdppca_sensitivity}
      The scores X V are then a fixed map of each row, so replacing a row changes one score
      pair and nothing else (no sample mean);
    * frame: :func:`dppca.estimators.frame.private_frame` (counts of sensitivity 1 for the bound and
      the radius, smooth sensitivity for the medians);
    * histograms: :func:`dppca.estimators.histograms.private_histograms` (L2 sensitivity sqrt(2) for
      "add", L1 sensitivity 2 plus a delta/4 threshold for "sparse").

    Rank path (``standardize="rank"``): a third of (eps, delta) for the histograms and two
    thirds for one Gaussian-DP group (half and half with ``g_dppca=False``,
    :data:`dppca.score_rank.RANK_BUDGET_SHARES`) holding the range histograms (20% of mu^2), the
    quantile histograms (30%) and the Kendall's tau release of the directions (50%; the
    quantiles 40% and 60% without private directions), each of L2 sensitivity sqrt(2p), sqrt(2p)
    and 2p/n. The map x_ij -> z_ij reads only x_ij and released numbers, so replacing a row
    changes one row of Z and one score pair, and the histograms keep their sensitivities.
    Every z_ij lies in [-z_max, z_max], z_max = Phi^{-1}(1 - 1/(2m)), so for the unit
    directions v, ``|z . v| <= ||z||_2 <= sqrt(p) z_max``: the frame [-sqrt(p) z_max,
    sqrt(p) z_max]^2 holds every score and depends only on p and m (m from public n, p and the
    budget, :func:`dppca.preprocessing.normal_scores.quantile_levels`), so it costs nothing.

    Add/remove neighbours (``neighbouring="add_remove"``, n private; g-DPPCA directions, raw
    or declared scales). The directions' third of (eps, delta) is one Gaussian-DP group of
    (eps_d, delta_d - delta_n) that first releases n (sensitivity 1, ``COUNT_SHARE`` of its
    mu^2; bounds n_lo, n_hi failing with probability delta_n = ``COUNT_DELTA_SHARE`` delta_d,
    its own ledger row: :func:`dppca.privacy.counted_group.count_first`), then the directions
    with sensitivity 2 sqrt(2) / (n_lo + 1)
    (:func:`dppca.methods.add_remove.kendall_add_remove_sensitivity`). Adding or removing a
    row then adds or removes one score pair (a map of that row alone given the released
    directions, declared scales and bounds), so:

    * frame: each release keeps its pure eps-DP guarantee, the searches aiming at q times the
      released count (the radii one count sd lower) instead of q n
      (:func:`dppca.estimators.frame.private_frame`, "Add/remove": every threshold count moves
      by at most 1, all in one direction, and the target is public);
    * histograms: one cell gains or loses one row, L2 and L1 change 1, within the replace-one
      bounds sqrt(2) and 2 used; a cell non-zero in one neighbour only holds a count of 1 (one
      such cell, kept by "sparse" with probability delta/4), so the releases are unchanged;
    * public choices (the default bins, the frame's level and reliability gates) read
      n_lo + 1, never n; the result prints the noisy count (``n_obs``), never n.

    Composition: as above, with the directions' part holding the count and delta_n; the
    whole call is (eps, delta)-DP under add/remove neighbours by the argument of
    :mod:`dppca.privacy.neighbouring` (every later release is valid at the bounds).
    NON-PRIVATE references (``nonprivate=True``) show the scores themselves, n included.

    References
    ----------
    Kim, M. and Jung, S. (2025). Robust and differentially private PCA for non-Gaussian data.
    Nissim, Raskhodnikova and Smith (2007). Smooth sensitivity and sampling in private data
    analysis. Durfee (2023). Unbounded differentially private quantile and maximum estimation.

    Examples
    --------
    >>> from dppca import dp_score, load_gau
    >>> res = dp_score(load_gau(), eps=3, delta=1e-5, g_dppca=True, rng=1)
    >>> sorted(res.histograms)
    ['add', 'sparse']

    The rank path, whose frame is public (the same with one row replaced):

    >>> rank = dp_score(load_gau(), eps=3, delta=1e-5, standardize="rank", rng=1)
    >>> neighbour = load_gau()
    >>> neighbour.iloc[0] = 100.0
    >>> rank.frame == dp_score(neighbour, eps=3, delta=1e-5, standardize="rank", rng=1).frame
    True
    """
    return score_pipeline(X, None, eps, delta, bins, method, center, standardize, g_dppca, axes,
                  calibration, rng, nonprivate, scale_share=scale_share, noise=noise,
                  bounds=bounds, scale=scale, budget=budget, neighbouring=neighbouring)


@applies_missing_policy("dp_score_group")
@documents_neighbouring(SCORE_ADD_REMOVE + "; the groups as declared or by partition selection")
def dp_score_group(X, group, eps, delta, bins=None, method=("add", "sparse"), center=True,
                   standardize=False, g_dppca=True, axes=(1, 2), *, levels=None,
                   partition_share=PARTITION_SHARE, calibration="analytic", rng=None,
                   nonprivate=False, scale_share=SCALE_SHARE, noise="tight", bounds=None,
                   scale=None, budget=None, missing="auto",
                   neighbouring="replace") -> ScoreResult:
    """Private score histograms per group, on one shared private frame and grid.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        As in :func:`dp_score`; when ``group`` names a column of X it is removed from the features.
    group : str or array_like of length n
        A column name of X, or one label per row (strings, numbers or a pandas Categorical).
        Missing labels are allowed: such rows are in no group (see Notes).
    eps, delta : float
        Total privacy budget of the call, eps > 0 and delta in (0, 1), as in :func:`dp_score`.
    bins : int or (int, int), optional
        As in :func:`dp_score` (``bins=None`` uses the same rule with the total n: groups
        that occupy different regions each keep about n / (b^2 x occupied share) per bin).
    method : str or sequence of {"add", "sparse"}
        Histogram mechanisms, as in :func:`dp_score`; one release covers every group.
    center : bool
        As in :func:`dp_score`.
    standardize : bool or "rank"
        As in :func:`dp_score` ("rank": normal scores on the latent correlation directions,
        public frame).
    g_dppca : bool
        As in :func:`dp_score` (g_dppca=False: NON-PRIVATE directions).
    axes : (int, int)
        1-based PC numbers for x and y, as in :func:`dp_score`.
    levels : sequence of labels, optional
        The **public domain** of the labels: every group to show, in display order (from R,
        the factor levels). Each level is a group, even one with no row (its histogram is
        noise only, possibly empty). Labels match levels by value when both are numeric,
        otherwise as text (str(label) == str(level)); names are str(level). Rows whose label
        is not among ``levels`` are left out of every histogram (Notes). Without ``levels``
        the categories of a pandas Categorical ``group`` are the domain (unused categories
        kept); plain labels go through private partition selection.
    partition_share : float in (0, 1)
        Share of (eps, delta) spent on private partition selection when no domain is declared
        (default ``PARTITION_SHARE`` = 0.1); unused otherwise. At eps = 1, delta = 1e-5 a
        label is released with probability 1/2 from 278 rows, 0.95 from 324 (eps = 3: 94 and
        109); a group that small is anyway buried in the histogram noise at that budget (e.g.
        sigma = 34 counts per cell for "add" with g-DPPCA), so a larger share buys little.
    calibration : {"analytic", "classic"}
        Gaussian calibration, as in :func:`dp_score`.
    rng : None, int or numpy.random.Generator
        One generator drives every random step, as in :func:`dp_score`.
    nonprivate : bool
        Also attach the NON-PRIVATE scores and exact grouped histogram.
    scale_share : float in (0, 1)
        Share of (eps, delta) for the private column scales, as in :func:`dp_score`.
    noise : {"tight", "r_dppca"}
        Sensitivity of the g-DPPCA directions' release, as in :func:`dp_score`.
    bounds, scale : optional
        Declared public bounds and scales per column, as in :func:`dp_score` (no budget).
    budget : dppca.privacy.spending.Budget or str, optional
        A registered dataset's privacy budget (:func:`dppca.budget`, or its name in the default
        store): the call's whole (eps, delta) is debited there before any private computation.
    missing : {"auto", "median", "drop"}, float or dict
        {missing_doc}
    neighbouring : {"replace", "add_remove"}
        {neighbouring_doc}

    Returns
    -------
    ScoreResult
        Histograms with a ``group`` column (prob sums to 1 within each group; all 0 for a
        group whose release kept no mass), ``groups`` (the labels shown), ``group_selection``
        ("levels", "categories" or "partition selection") and ``group_sizes``: private
        estimates of the group sizes read off the same releases.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        As in :func:`dp_score`, and: ``group`` names no column or has the wrong length;
        ``levels`` is not a list of distinct labels; ``partition_share`` is not in (0, 1);
        partition selection released no label (this depends only on that private release).
        Nothing depends on the group sizes or on which labels the data hold.

    See Also
    --------
    dp_score : All rows together.
    dp_score_plot_group : The grouped histograms with a figure.
    dppca.privacy.select_partitions : The partition selection of labels.

    Notes
    -----
    **Which groups** (never read from the data without a mechanism; DESIGN.md, privacy
    contract):

    * declared domain (``levels`` or Categorical categories): exactly those groups, at no
      cost. A row whose label is missing or outside the domain is left out of every histogram
      (the frame and directions still use all rows). This is what Google's differential
      privacy library does with public partitions; refusing such a row would be a refusal
      that depends on private data (eps = infinity), and an extra "(other)" group would show
      a group nobody declared. A statistician who wants such rows counted lists their label
      in ``levels``. Their number is never reported; the private group sizes give an estimate
      (n minus their sum).
    * no domain (plain strings or numbers): private partition selection with
      ``partition_share`` of (eps, delta) (:func:`dppca.privacy.partition.select_partitions`,
      the thresholded noisy count of Google's library; Desfontaines et al. 2022), on the
      ledger as "groups: partition selection". Labels with few rows (below about
      1 + (2/eps_s) ln(1/delta_s) rows, eps_s and delta_s the selection's budget) are likely
      missing from the result; the summary says so. Rows of labels not released are left
      out of the histograms. Labels are ordered by value (numbers) or text.

    **Histograms**: the frame and directions as in :func:`dp_score`, on all rows. The groups
    partition the rows that are in a group, so one release over the concatenated
    (group, bin) counts covers every group: replacing a row (which may change its label,
    move it into or out of the groups shown, or change its bin) removes it from at most one
    cell and adds it to at most one cell, so the count vector moves by at most 1 in two
    entries (L1 2, L2 sqrt(2); :func:`dppca.estimators.histograms.private_histograms`). A group with 0
    or 1 rows gets its noisy histogram like any other. The group sizes are released only
    through the noisy histograms (the R package returns them exactly, Observation P7).
    Composition: directions, frame, selection (if any) and histograms add up to (eps, delta).

    **Add/remove neighbours** (``neighbouring="add_remove"``; what :func:`dp_score` covers):
    the count, directions and frame as there. A row added or removed changes one label's
    count by 1 (partition selection's Delta_0 = 2 bounds it; its sampler's slack reads the
    public bound n_hi instead of n) and one (group, bin) cell by 1 (within the histograms'
    replace-one bounds), so both releases keep their guarantees; declared labels are public.
    The group sizes are still read off the noisy histograms only.

    Examples
    --------
    >>> from dppca import dp_score_group, load_gau_g
    >>> data = load_gau_g()
    >>> res = dp_score_group(data, "group", eps=3, delta=1e-5, g_dppca=True, rng=1)
    >>> res.group_selection, res.groups
    ('partition selection', ['group1', 'group2', 'group3', 'group4', 'group5'])
    >>> levels = ["group1", "group2", "group3", "group4", "group5", "group6"]
    >>> dp_score_group(data, "group", eps=3, delta=1e-5, g_dppca=True, levels=levels,
    ...                rng=1).groups[-1]
    'group6'
    """
    return score_pipeline(X, group, eps, delta, bins, method, center, standardize, g_dppca, axes,
                  calibration, rng, nonprivate, levels, partition_share, scale_share, noise,
                  bounds=bounds, scale=scale, budget=budget, neighbouring=neighbouring)


# --------------------------------------------------------------------------- the pipeline
@records_outcome
def score_pipeline(X, group, eps, delta, bins, method, center, standardize, g_dppca, axes, calibration,
           rng, nonprivate, levels=None, partition_share=PARTITION_SHARE,
           scale_share=SCALE_SHARE, noise="tight", bounds=None, scale=None,
           budget=None, neighbouring="replace") -> ScoreResult:
    add_remove = neighbouring_arg(neighbouring) == ADD_REMOVE
    if add_remove:  # the arguments alone, before the data are read (a codebook may hold scales)
        check_add_remove_score(standardize, g_dppca, noise, scale is not None or bounds is not None)
    features, labels = (X, None) if group is None else split_group(X, group)
    rank = _rank_arg(standardize, bounds, scale)
    # add/remove: n is private, so no row count is checked before its release (count_first
    # refuses too few rows from the released count only)
    given = declared_input(as_matrix(features, min_rows=0 if add_remove else 2), bounds, scale)
    mat = given.matrix
    if add_remove:
        check_add_remove_score(standardize, g_dppca, noise, given.scales_declared)
    if mat.p < 2:
        raise DPPCAValueError(f"`X` must have at least 2 numeric columns for a score plot; got {mat.p}")
    eps, delta = eps_arg(eps), delta_arg(delta)
    methods = options_arg(method, "method", HISTOGRAM_METHODS)
    center = bool_arg(center, "center")
    standardize = RANK if rank else bool_arg(standardize, "standardize")
    g_dppca, nonprivate = bool_arg(g_dppca, "g_dppca"), bool_arg(nonprivate, "nonprivate")
    axes, bins = axes_arg(axes, mat.p), bins_arg(bins)
    option_arg(calibration, "calibration", CALIBRATIONS)
    labels = None if labels is None else label_series(labels, mat.n)
    domain = None if labels is None else declared_groups(labels, levels)
    debit(budget, "dp_score" if group is None else "dp_score_group", eps, delta, axes=axes,
          methods=methods)
    selection = _selection_budget(eps, delta, partition_share) \
        if labels is not None and domain is None else (0.0, 0.0)
    generator, ledger = rng_arg(rng), Ledger(eps, delta)
    given.record(ledger)
    count = None
    if rank:
        directions, scores, frame, histogram_budget, _ = rank_scores(
            mat, axes, eps - selection[0], delta - selection[1], g_dppca, calibration, noise,
            generator, ledger)
        parts = {"histograms": histogram_budget}
    else:
        directions, scores, frame, parts, count = _private_frame_scores(
            given, axes, center, standardize, g_dppca, scale_share, eps, delta, selection,
            calibration, noise, generator, ledger, add_remove)
    if labels is not None and domain is None:
        domain = selected_groups(labels, *selection, generator, ledger=ledger,
                                 rows=None if count is None else count.upper)
    names, codes = (None, None) if domain is None else (domain.names, domain.codes)
    shift = np.asarray(frame.centre) if center else np.zeros(2)
    n_groups = 1 if names is None else len(names)
    # public: n, or the count's lower bound n_lo + 1 under add/remove (n private)
    n_public = mat.n if count is None else int(count.rows.sensitivity_rows)
    if bins is None:
        bins, rule = (default_bins(n_public, methods, *_per_method(parts, methods), calibration),) * 2, \
            "default rule"
    else:
        rule = "user"
    grid = Grid.over(np.subtract(frame.xlim, shift[0]), np.subtract(frame.ylim, shift[1]), bins)
    counts = bin_counts(scores - shift, grid, codes, n_groups)
    releases = private_histograms(counts, methods, *parts["histograms"], generator,
                                  calibration=calibration, ledger=ledger, group_names=names)
    reference = reference_scores(scores - shift, axes, features, names, codes) if nonprivate else None
    return ScoreResult(frame=frame, shift=shift, grid=grid, releases=releases,
                       histograms={m: histogram_frame(grid, r.prob, names) for m, r in releases.items()},
                       groups=names, ledger=ledger, directions=directions, axes=axes, eps=eps,
                       delta=delta, calibration=calibration, seed=seed_of(rng),
                       n_obs=mat.n if count is None else count.reported,
                       center=center, standardize=standardize, g_dppca=g_dppca, bins_rule=rule,
                       rng=generator, sampler=sample_released, sampling_control=SamplingControl,
                       scores=reference, nonprivate_counts=counts if nonprivate else None,
                       nonprivate_histogram=histogram_frame(grid, normalised_counts(counts), names)
                       if nonprivate else None,
                       group_selection=None if domain is None else domain.source,
                       extra_notes=count_notes(count))


def _private_frame_scores(given, axes, center, standardize, g_dppca, scale_share, eps, delta,
                          selection, calibration, noise, generator, ledger, add_remove=False):
    """Directions, scores X V[:, axes], their private frame, the budget parts and the released
    row count (add/remove; None under replace-one) of the raw and standardized paths."""
    mat = given.matrix
    scales, rest = _call_scales(given, standardize, g_dppca, scale_share, eps, delta,
                                calibration, generator, ledger)
    parts = split_budget(rest * eps - selection[0], rest * delta - selection[1],
                         BUDGET_SHARES[g_dppca])
    count = None
    if add_remove:
        directions, count = _counted_directions(mat, max(axes), scales, parts["directions"],
                                                calibration, generator, ledger)
    else:
        directions = dp_pc_dir(mat.to_frame(), max(axes), center,
                               standardize, g_dppca, *parts.get("directions", (None, None)),
                               scale=scales, calibration=calibration, noise=noise, rng=generator)
        if directions.ledger is not None:
            ledger.extend(directions.ledger)
    values = mat.scaled(directions.scale)
    with np.errstate(over="ignore", invalid="ignore"):  # values are clamped (+-2^400): finite
        scores = values @ directions.directions.to_numpy()[:, [a - 1 for a in axes]]
    frame = cut_to_box(private_frame(scores, *parts["frame"], generator, ledger=ledger,
                                     count=count),
                       given.score_box(directions.directions.to_numpy()[:, [a - 1 for a in axes]],
                                       directions.scale))
    return directions, scores, frame, parts, count


def _counted_directions(mat, k, scales, budget, calibration, rng, ledger):
    """Add/remove: the row count, then g-DPPCA at its bounds, in one Gaussian-DP group on the
    directions' part ``budget`` (Notes of :func:`dp_score`); (directions, count)."""
    count, rest = count_first(mat.n, *budget, calibration, rng, ledger, SCORE_MIN_ROWS,
                              "dp_score")
    inner = Ledger(rest.eps, rest.delta)
    directions = directions_at_bounds(mat, k, scales, count, eps=rest.eps, delta=rest.delta,
                                      rng=rng, calibration=calibration, ledger=inner)
    rest.absorb(inner.releases, ledger)
    return directions, count


def check_add_remove_score(standardize, g_dppca, noise, scales_declared) -> None:
    """Refuse, from the arguments alone, what ``dp_score`` does not cover under add/remove.

    Parameters
    ----------
    standardize : bool or str
        The call's ``standardize``.
    g_dppca : bool
        The call's ``g_dppca``.
    noise : str
        The directions' sensitivity constant.
    scales_declared : bool
        Whether the scales are declared public (before the data are read: whether ``scale=``
        or ``bounds=`` is given; after: whether every column's scale is declared).

    Raises
    ------
    DPPCAValueError
        The rank path (its normal-score quantiles read n), NON-PRIVATE directions, private
        column scales, or ``noise="r_dppca"`` (the R package's replace-one constant).

    Examples
    --------
    >>> check_add_remove_score(False, True, "tight", False) is None
    True
    """
    what = None
    if isinstance(standardize, str):
        what = "dp_score's rank path (its normal-score quantiles read n; use standardize=False)"
    elif not g_dppca:
        what = "dp_score with NON-PRIVATE directions (use g_dppca=True)"
    elif standardize and not scales_declared:
        what = ("dp_score's private column scales (declare every scale public with scale=, or "
                "use standardize=False)")
    elif noise != "tight":
        what = "noise='r_dppca' (the R package's replace-one constant)"
    if what:
        add_remove_unsupported(ADD_REMOVE, what)


def _rank_arg(standardize, bounds, scale) -> bool:
    """Whether the call takes the rank path (standardize="rank"); the rank path is scale-free
    and its frame public, so declared scales and bounds are refused there."""
    if not isinstance(standardize, str):
        return False
    if standardize != RANK:
        raise DPPCAValueError(f"`standardize` must be False, True or {RANK!r}; got {standardize!r}")
    if scale is not None or bounds is not None:
        raise DPPCAValueError("the rank path (standardize='rank') is scale-free and its frame is "
                              "public: it takes no `scale=` and no `bounds=`")
    return True


def _selection_budget(eps, delta, share) -> tuple:
    share = float_arg(share, "partition_share", open_unit=True)
    return share * eps, share * delta


def _call_scales(given, standardize, g_dppca, share, eps, delta, calibration, rng, ledger):
    """The call's column scales and the share of the budget left: none without standardize;
    declared ones (no budget) when every column has one; the NON-PRIVATE sample SD for the
    undeclared columns with g_dppca=False; else private scales for the undeclared columns,
    released once for the call (``share`` of (eps, delta), basic composition with the frame
    and histograms)."""
    mat = given.matrix
    if not standardize:
        return None, 1.0
    if given.scales_declared or not g_dppca:
        return column_scales(mat, True, given.scale, private=False), 1.0
    from .privacy.composition import GaussianGroup

    share = float_arg(share, "scale_share", open_unit=True)
    noise = GaussianGroup(share * eps, share * delta, calibration).share(1.0)
    return column_scales(mat, True, given.scale, noise=noise, share=share, rng=rng,
                         ledger=ledger), 1.0 - share


def _per_method(parts, methods) -> tuple:
    eps_h, delta_h = parts["histograms"]
    return eps_h / len(methods), delta_h / len(methods)


__all__ = ["dp_score", "dp_score_group"]
