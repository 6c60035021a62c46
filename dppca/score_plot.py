"""``dp_score_plot`` and ``dp_score_plot_group``: the private score histograms with their figure.

The same releases as :func:`dppca.dp_score` / :func:`dppca.dp_score_group` (one pipeline,
:func:`dppca.score.score_pipeline`), then synthetic samples (post-processing) and the panel grid
of :mod:`dppca.plotting.score`, attached as ``result.figure`` for R parity.
"""
from __future__ import annotations

from ._validation import control_arg, options_arg
from .controls import SamplingControl, ScorePlotControl
from .directions import SCALE_SHARE
from .results.score import ScoreResult
from .preprocessing.missing_entry import documents_missing
from .score import PARTITION_SHARE, PRIVATE_PLOTS, SCORE_ADD_REMOVE, dp_score, dp_score_group
from .privacy.neighbouring import documents_neighbouring, neighbouring_arg

@documents_missing
@documents_neighbouring(SCORE_ADD_REMOVE)
def dp_score_plot(X, eps, delta, bins=None, method=("add", "sparse"), private_plot=PRIVATE_PLOTS,
                  sampling_control=None, center=True, standardize=False, g_dppca=True, axes=(1, 2),
                  plot_control=None, *, calibration="analytic", rng=None,
                  nonprivate=False, scale_share=SCALE_SHARE, noise="tight",
                  bounds=None, scale=None, budget=None, missing="auto",
                  neighbouring="replace") -> ScoreResult:
    """:func:`dp_score` plus synthetic samples and the panel grid of the R package.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        Numeric data, as in :func:`dp_score`.
    eps, delta : float
        Total privacy budget of the call, eps > 0 and delta in (0, 1).
    bins : int or (int, int), optional
        Bins along x and y, as in :func:`dp_score`.
    method : str or sequence of {"add", "sparse"}
        Histogram mechanisms, as in :func:`dp_score`.
    private_plot : str or sequence of {"histogram", "sample"}
        Rows of the grid: the histograms, and one row of synthetic samples per sampling method.
    sampling_control : SamplingControl or dict, optional
        :func:`sampling_control` settings (default: uniform within bins, min(n, 20,000) points).
    center : bool
        As in :func:`dp_score`.
    standardize : bool or "rank"
        As in :func:`dp_score` ("rank": normal scores from private marginal quantiles on the
        latent correlation directions, in a public frame).
    g_dppca : bool
        As in :func:`dp_score` (**False makes the directions NON-PRIVATE**; the figure says so
        in red).
    axes : (int, int)
        1-based PC numbers for x and y.
    plot_control : ScorePlotControl or dict, optional
        :func:`score_plot_control` settings.
    calibration : {"analytic", "classic"}
        Gaussian calibration, as in :func:`dp_score`.
    rng : None, int or numpy.random.Generator
        One generator drives every random step (histograms and samples).
    nonprivate : bool
        Also draw the NON-PRIVATE scatter, histogram and its samples, labelled NON-PRIVATE.
    scale_share : float in (0, 1)
        Budget share of the private column scales (standardize=True, g_dppca=True).
    noise : {"tight", "r_dppca"}
        The directions' noise: tight, or R's 4/n (see :func:`dppca.dp_pc_dir`).
    bounds, scale : optional
        Declared public bounds and scales per column, as in :func:`dp_score` (no budget; the
        frame is cut to the bounds' box of the scores).
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
        With ``samples`` filled and ``figure`` set (a matplotlib Figure).

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        As in :func:`dp_score`, and for invalid ``private_plot`` or controls.

    See Also
    --------
    dp_score : The histograms without a figure.
    dp_score_plot_group : One panel per group.

    Notes
    -----
    Privacy as in :func:`dp_score`; samples and figure are post-processing (the sample size
    defaults to min(n, 20,000); n is public).

    Examples
    --------
    >>> from dppca import dp_score_plot, load_gau
    >>> result = dp_score_plot(load_gau().iloc[:1000], eps=1, delta=1e-5, method="add", rng=1)
    >>> type(result.figure).__name__
    'Figure'
    """
    neighbouring_arg(neighbouring)
    plots, sampling, appearance = _plot_arguments(private_plot, sampling_control, plot_control)
    result = dp_score(X, eps, delta, bins, method, center, standardize, g_dppca, axes,
                      calibration=calibration, rng=rng, nonprivate=nonprivate,
                      scale_share=scale_share, noise=noise, bounds=bounds, scale=scale,
                      budget=budget, missing=missing, neighbouring=neighbouring)
    return _draw(result, plots, sampling, appearance)



@documents_missing
@documents_neighbouring(SCORE_ADD_REMOVE + "; the groups as declared or by partition selection")
def dp_score_plot_group(X, group, eps, delta, bins=None, method=("add", "sparse"),
                        private_plot=PRIVATE_PLOTS, sampling_control=None, center=True,
                        standardize=False, g_dppca=True, axes=(1, 2), plot_control=None, *,
                        levels=None, partition_share=PARTITION_SHARE, calibration="analytic",
                        rng=None, nonprivate=False, scale_share=SCALE_SHARE,
                        noise="tight", bounds=None, scale=None, budget=None,
                        missing="auto",
                        neighbouring="replace") -> ScoreResult:
    """:func:`dp_score_group` plus synthetic samples and the grouped panel grid.

    Groups are coloured with a fixed categorical palette (``plot_control.palette``, "tab10")
    and one legend. Grouped histogram panels shade each bin by its share of the whole mixture
    (prob within the group x the group's private size share), so small groups are not drawn
    as intensely as large ones (R's Observation B19). Synthetic points are allocated to the
    groups in proportion to their private size estimates, never the exact sizes.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        Numeric data, as in :func:`dp_score_group`.
    group : str or array_like of length n
        A column name of X or one label per row, as in :func:`dp_score_group`.
    eps, delta : float
        Total privacy budget of the call, eps > 0 and delta in (0, 1).
    bins : int or (int, int), optional
        Bins along x and y, as in :func:`dp_score_group`.
    method : str or sequence of {"add", "sparse"}
        Histogram mechanisms (the positional order is that of :func:`dp_score_plot`; in R
        ``method`` comes after ``axes`` here).
    private_plot : str or sequence of {"histogram", "sample"}
        Rows of the grid, as in :func:`dp_score_plot`.
    sampling_control : SamplingControl or dict, optional
        :func:`sampling_control` settings.
    center : bool
        As in :func:`dp_score`.
    standardize : bool or "rank"
        As in :func:`dp_score` (the rank path).
    g_dppca : bool
        As in :func:`dp_score` (g_dppca=False: NON-PRIVATE directions, said in red).
    axes : (int, int)
        1-based PC numbers for x and y.
    plot_control : ScorePlotControl or dict, optional
        :func:`score_plot_control` settings (``palette`` colours the groups).
    levels : sequence of labels, optional
        The public list of labels (e.g. R's factor levels), as in :func:`dp_score_group`;
        without a declared domain the groups come from private partition selection.
    partition_share : float in (0, 1)
        Share of (eps, delta) for partition selection, as in :func:`dp_score_group`.
    calibration : {"analytic", "classic"}
        Gaussian calibration, as in :func:`dp_score`.
    rng : None, int or numpy.random.Generator
        One generator drives every random step (histograms and samples).
    nonprivate : bool
        Also draw the NON-PRIVATE references, labelled NON-PRIVATE.
    scale_share : float in (0, 1)
        Share of the budget spent on private column scales before the panels' releases.
    noise : {"tight", "r_dppca"}
        Noise of the shared g-DPPCA directions, as in :func:`dp_score_group`.
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
        With ``samples`` (a ``group`` column in each) and ``figure``.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        As in :func:`dp_score_group` and :func:`dp_score_plot`.

    See Also
    --------
    dp_score_group : The histograms without a figure.
    dp_score_plot : One panel for all rows.

    Examples
    --------
    >>> from dppca import dp_score_plot_group, load_gau_g
    >>> gau_g = load_gau_g().iloc[:1000]
    >>> levels = ["group1", "group2", "group3", "group4", "group5"]
    >>> result = dp_score_plot_group(gau_g.drop(columns="group"), gau_g["group"], eps=1,
    ...                              delta=1e-5, method="add", levels=levels, rng=1)
    >>> type(result.figure).__name__
    'Figure'
    """
    neighbouring_arg(neighbouring)
    plots, sampling, appearance = _plot_arguments(private_plot, sampling_control, plot_control)
    result = dp_score_group(X, group, eps, delta, bins, method, center, standardize, g_dppca, axes,
                            levels=levels, partition_share=partition_share,
                            scale_share=scale_share, noise=noise, bounds=bounds, scale=scale,
                            calibration=calibration, rng=rng, nonprivate=nonprivate,
                            budget=budget, missing=missing, neighbouring=neighbouring)
    return _draw(result, plots, sampling, appearance)



def _plot_arguments(private_plot, sampling, appearance):
    return (options_arg(private_plot, "private_plot", PRIVATE_PLOTS),
            control_arg(sampling, SamplingControl, "sampling_control"),
            control_arg(appearance, ScorePlotControl, "plot_control"))



def _draw(result: ScoreResult, plots, sampling, appearance) -> ScoreResult:
    if "sample" in plots:
        result.draw_samples(sampling)
    result.figure = result.plot(plots, appearance)
    return result


__all__ = ["dp_score_plot", "dp_score_plot_group"]
