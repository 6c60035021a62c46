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
group (:class:`dppca.robust_mean.GaussianGroup`): each gets a share of mu^2, which is about
twice as efficient as splitting eps and delta. Several methods in one call share steps 1-2 and
split the rest of the budget evenly, so the whole result is (eps, delta)-DP.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ._validation import (DPPCATypeError, DPPCAValueError, bool_arg, delta_arg, eps_arg, float_arg,
                          int_arg, option_arg, options_arg, rng_arg, seed_of)
from .directions import SCALE_SHARE, dp_pc_dir
from .methods.gdppca import states_gdppca_sensitivity
from .preprocessing import as_matrix, column_scales, random_pairs, sample_scale
from .privacy import CALIBRATIONS, Ledger
from .quantiles import unbounded_quantile_between
from .results import PCDirections
from .results.scree import MethodFit, ScreeResult
from .robust_mean import (GaussianGroup, dp_clipped_mean, dp_clipped_paired_mean,
                          dp_histogram_quantiles, dp_huber_mean, dp_log2_centre, dp_m2_histogram,
                          dp_winsorized_mean, paired_squares, tau_from_m2)

SCREE_METHODS = ("clipped", "pmwm", "huber")
#: Share of the Gaussian-DP budget (of mu^2, see :class:`dppca.robust_mean.GaussianGroup`) for
#: the private directions when g_dppca=True (R gives them half of eps and of delta).
DIRECTION_SHARE = 0.5
#: Share of the remaining mu^2 for the private total variance (trace).
TRACE_SHARE = 0.1
#: Share of the trace's mu^2 for its two tuning histograms (half each).
TRACE_TUNING_SHARE = 1 / 3
#: Bins of the trace's quantile histogram around the rough centre c of the t's:
#: [0, 2^-8 c), ..., [2^5 c, 2^6 c] (the centre is good to a factor of a few).
TRACE_LOG2_BINS = (-8, 6)
#: Self-tuning histograms of the pair values: bins [0, 2^-16 T), [2^-16 T, 2^-15 T), ...,
#: [2^2 T, 2^3 T] around the private trace T: components down to ~2^-8 T are resolved.
TUNING_LOG2_BINS = (-16, 3)
#: Self-tuned clipped threshold C = CLIP_MULTIPLIER x private CLIP_LEVEL-quantile of the pair
#: values. For Gaussian scores u ~ lambda chi2_1: q90 = 2.71 lambda, C = 6.5 lambda, clipping bias
#: 1.3%; lighter tails (clusters) lose less, heavier tails more.
CLIP_LEVEL, CLIP_MULTIPLIER = 0.9, 2.4
#: Self-tuned PMWM trim level: this many noise sd of a histogram count (its rank error near the
#: top is about sigma sqrt(bins above)), relative to the number of pair values.
PMWM_RANK_SAFETY, PMWM_TRIM_RANGE = 6.0, (0.01, 0.25)
#: Self-tuned Huber: start at the private median of the pair values, tau = this x private q90
#: (so the effective clip is about median + 5.4 lambda for Gaussian scores).
HUBER_TAU_MULTIPLIER = 2.0
#: Default number of Huber steps: with eta0 = 1 a step from the private median is Bickel's
#: one-step M-estimator; each extra step costs noise (Gaussian-DP composition, sqrt(T)).
HUBER_STEPS = 1


class _Omitted(tuple):
    """Default of ``method``: shows R's choices, runs "clipped" only (R's match.arg rule)."""


_OMITTED_METHODS = _Omitted(SCREE_METHODS)


# ----------------------------------------------------------------------------- controls

@dataclass(frozen=True)
class ClippedControl:
    """Tuning of the "clipped" method; build it with :func:`clipped_control`."""

    C_clip: float | None = None
    tuning_share: float = 0.25
    method = "clipped"

    def __post_init__(self):
        if self.C_clip is not None:
            float_arg(self.C_clip, "C_clip", positive=True)
        float_arg(self.tuning_share, "tuning_share", open_unit=True)


@dataclass(frozen=True)
class PmwmControl:
    """Tuning of the "pmwm" method; build it with :func:`pmwm_control`."""

    a: float | None = None
    b: float | None = None
    trim_const: float = 10.0
    eta: float | None = None
    beta: float = 1.001
    split_mode: bool = False
    widen: float | None = None
    tuning_share: float = 0.25
    method = "pmwm"

    def __post_init__(self):
        _bounds_pair(self.a, self.b, "a", "b", integer=False)
        float_arg(self.trim_const, "trim_const", positive=True)
        if self.eta is not None and not 0 < float_arg(self.eta, "eta") < 0.5:
            raise DPPCAValueError(f"`eta` must be a number in the open interval (0, 0.5); got {self.eta}")
        if not float_arg(self.beta, "beta") > 1:
            raise DPPCAValueError(f"`beta` must be a finite number > 1; got {self.beta}")
        bool_arg(self.split_mode, "split_mode")
        if self.widen is not None:
            float_arg(self.widen, "widen", nonnegative=True)
        float_arg(self.tuning_share, "tuning_share", open_unit=True)


@dataclass(frozen=True)
class HuberControl:
    """Tuning of the "huber" method; build it with :func:`huber_control`."""

    k_min_m2: int | None = None
    k_max_m2: int | None = None
    m2_frac: float = 0.25
    mu0: float | None = None
    eta0: float = 1.0
    T: int | None = None
    M: int | None = None
    method = "huber"

    def __post_init__(self):
        _bounds_pair(self.k_min_m2, self.k_max_m2, "k_min_m2", "k_max_m2", integer=True)
        float_arg(self.m2_frac, "m2_frac", open_unit=True)
        if self.mu0 is not None:
            float_arg(self.mu0, "mu0")
        float_arg(self.eta0, "eta0", positive=True)
        for name in ("T", "M"):
            if getattr(self, name) is not None:
                int_arg(getattr(self, name), name, lower=1)


CONTROLS = {"clipped": ClippedControl, "pmwm": PmwmControl, "huber": HuberControl}


def clipped_control(C_clip=None, tuning_share=0.25) -> ClippedControl:
    """Control of the "clipped" scree method (R: ``clipped_control``).

    Parameters
    ----------
    C_clip : float > 0, optional
        Public threshold C for the pair values u_ij = (y_i - y_j)^2 / 2 (units of the scores
        squared), used for every component. Default None: self-tuned, C_l = 2.4 x a private
        90% quantile of the pair values of component l (``CLIP_LEVEL``, ``CLIP_MULTIPLIER``).
    tuning_share : float in (0, 1)
        Share of the method's Gaussian-DP budget spent on self-tuning (ignored with C_clip).

    Returns
    -------
    ClippedControl
        Frozen and validated.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        C_clip not a finite number > 0, tuning_share outside (0, 1).

    See Also
    --------
    dp_scree : Uses it (``control=``).
    pmwm_control, huber_control : The other methods' controls.

    Examples
    --------
    >>> from dppca import clipped_control, dp_scree, load_gau
    >>> control = clipped_control(tuning_share=0.3)
    >>> result = dp_scree(load_gau().iloc[:1000], k=2, method="clipped", control=control,
    ...                   eps=1, delta=1e-5, rng=1)
    >>> result.controls["clipped"].tuning_share
    0.3
    """
    return ClippedControl(C_clip, tuning_share)


def pmwm_control(a=None, b=None, trim_const=10.0, eta=None, beta=1.001, split_mode=False,
                 widen=None, tuning_share=0.25) -> PmwmControl:
    """Control of the "pmwm" (private modified winsorized mean) scree method (R: ``pmwm_control``).

    The pair values of each component are winsorized to [L - w (U - L), U + w (U - L)]
    (clamped at 0), L and U private quantiles at levels p and 1 - p,
    p = min(max(trim_const / n_q, eta), 0.49), n_q the number of pair values used, w = ``widen``.

    Parameters
    ----------
    a, b : float, optional
        Public search range for the quantiles (a < b). Given: R's unbounded AboveThreshold
        quantile scans from a (upper quantile) and from b (lower quantile), one pair of scans
        per component, pure DP. Default None: self-tuned quantiles from one joint noisy
        histogram of all components (``TUNING_LOG2_BINS`` around the private trace).
    trim_const : float > 0
        R's trim constant (default 10).
    eta : float in (0, 0.5), optional
        Minimum trim proportion. Default None: self-tuned, the smallest level the private
        quantiles can locate, ``PMWM_RANK_SAFETY`` noise sd of the histogram counts over n_q,
        kept in [0.01, 0.25] (with a and b: 0.01, R's examples).
    beta : float > 1
        Grid ratio of the AboveThreshold scans (used only with a and b).
    split_mode : bool
        True: quantiles from the rows of one random half, the winsorized mean from the other
        half (R's default; the budget is still composed sequentially, so this only loses data).
        Default False: both from all rows.
    widen : float >= 0, optional
        Widening of the interval, in units of U - L (a Tukey-fence-like "modification": it lets
        moderate, privately well-located quantiles cover the tail). Default None: the widening
        that puts U + widen (U - L) at the clipped method's 6.5 lambda for Gaussian scores
        (chi2_1 pair values): 4.2 at p = 0.25, 0 at p = 0.01 (R's behaviour).
    tuning_share : float in (0, 1)
        Share of the method's budget spent on the quantiles (R spends half).

    Returns
    -------
    PmwmControl
        Frozen and validated.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Only one of a, b given, a >= b, trim_const <= 0, eta outside (0, 0.5), beta <= 1,
        split_mode not a bool, widen < 0, tuning_share outside (0, 1).

    See Also
    --------
    dp_scree : Uses it (``control=``).
    clipped_control, huber_control : The other methods' controls.

    Examples
    --------
    >>> from dppca import pmwm_control
    >>> pmwm_control(trim_const=5.0).trim_const
    5.0
    """
    return PmwmControl(a, b, trim_const, eta, beta, split_mode, widen, tuning_share)


def huber_control(k_min_m2=None, k_max_m2=None, m2_frac=0.25, mu0=None, eta0=1.0, T=None,
                  M=None) -> HuberControl:
    """Control of the "huber" scree method (R: ``huber_control``).

    Noisy gradient descent on the Huber loss of the pair values (Yu, Ren and Zhou 2024).

    Parameters
    ----------
    k_min_m2, k_max_m2 : int, optional
        Public log2 bin range of R's private scale proxy m2 (k_min_m2 < k_max_m2). Given:
        m2 from R's Laplace histogram of block medians, tau from R's ``tau_from_m2``. Default
        None: self-tuned, tau = 2 x a private 90% quantile of the pair values.
    m2_frac : float in (0, 1)
        Share of the method's budget spent on tuning (m2 or the quantiles).
    mu0 : float, optional
        Starting value (units of the scores squared). Default None: the private median of
        the pair values when self-tuned, 0 (R's default) with k_min_m2/k_max_m2.
    eta0 : float > 0
        Step size (1: each step is a winsorized-mean update).
    T : int >= 1, optional
        Number of steps. Default None: ``HUBER_STEPS`` (1, a one-step M-estimator; R uses
        ceiling(ln n), and every step costs noise).
    M : int >= 1, optional
        Number of blocks of R's m2 histogram. Default None: floor(sqrt(n) / 2) (R).

    Returns
    -------
    HuberControl
        Frozen and validated.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Only one of k_min_m2, k_max_m2 given, or not integers with k_min_m2 < k_max_m2,
        m2_frac outside (0, 1), mu0 not finite, eta0 <= 0, T or M not positive integers.

    See Also
    --------
    dp_scree : Uses it (``control=``).
    clipped_control, pmwm_control : The other methods' controls.

    Examples
    --------
    >>> from dppca import huber_control
    >>> huber_control(eta0=0.5).eta0
    0.5
    """
    return HuberControl(k_min_m2, k_max_m2, m2_frac, mu0, eta0, T, M)


def _bounds_pair(low, high, low_name, high_name, integer):
    if (low is None) != (high is None):
        raise DPPCAValueError(f"give both `{low_name}` and `{high_name}` (a public range) or "
                              f"neither (self-tuned); got {low_name}={low!r}, {high_name}={high!r}")
    if low is None:
        return
    check = (lambda v, n: int_arg(v, n)) if integer else (lambda v, n: float_arg(v, n))
    if not check(low, low_name) < check(high, high_name):
        raise DPPCAValueError(f"`{low_name}` must be smaller than `{high_name}`; got {low} and {high}")


# ----------------------------------------------------------------------------- dp_scree

@states_gdppca_sensitivity
def dp_scree(X, k, method=_OMITTED_METHODS, control=None, eps=None, delta=None, center=True,
             standardize=False, g_dppca=True, mono=True, *, calibration="analytic", rng=None,
             nonprivate=False, directions=None, scale_share=SCALE_SHARE,
             noise="tight") -> ScreeResult:
    """Private scree values (variances along the top-k PC directions), PVE and cumulative PVE.

    Parameters
    ----------
    X : pandas.DataFrame or array_like, shape (n, p)
        Numeric data, n >= 4.
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
    standardize : bool
        Divide columns by scales first: private scales (part of the direction budget) when
        g_dppca=True, the NON-PRIVATE sample SD when g_dppca=False (as R).
    g_dppca : bool
        True (default; R's default is False): private g-DPPCA directions. False: NON-PRIVATE
        directions; the scree values are then NOT private end to end (see Notes) and
        ``result.directions_private`` is False.
    mono : bool
        True: clip at 0 and fit the non-increasing sequence (PAVA), as R. False: the raw,
        unbiased noisy estimates (possibly negative or not ordered).
    calibration : {"analytic", "classic"}
        Gaussian noise calibration; "classic" (R's formula) is proven only for eps < 1.
    rng : None, int or numpy.random.Generator
    nonprivate : bool
        Also return the NON-PRIVATE reference (sample-covariance eigenvalues and trace).
    directions : PCDirections, optional
        Directions already computed by :func:`dppca.dp_pc_dir` on the same X (first k columns
        used, its scales reused). Its releases are counted in this call's budget.
    scale_share : float in (0, 1)
        Share of the call's Gaussian-DP group for the private column scales (standardize=True
        with g_dppca=True; default 0.2), released once for the call.
    noise : {"tight", "r_dppca"}
        Noise of the g-DPPCA directions: the tight sensitivity (default) or the R package's
        4/n with the classic calibration (see :func:`dppca.dp_pc_dir`).

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
        do not match X or exceed the budget.

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
      a noisy log2 histogram of the t_i (L2 sensitivity sqrt 2) locates C_T, then mean(min(t, C_T))
      (sensitivity C_T / m); ``TRACE_SHARE`` of the rest.
    * Each method: the pair-value U-statistics have sensitivity 2 W / n for terms in an interval
      of width W (a replaced row touches n - 1 of the n(n - 1)/2 pairs); tuning histograms have
      L2 sensitivity sqrt(2k); proofs in :mod:`dppca.robust_mean`.
    * With g_dppca=False the directions depend on every row without noise, so the released
      values are private only conditionally on the directions: not (eps, delta)-DP end to end.

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
    mat = as_matrix(X, min_rows=4)
    methods = _resolve_methods(method)
    k = int_arg(k, "k", 1, mat.p)
    eps, delta = eps_arg(eps), delta_arg(delta)
    flags = {name: bool_arg(value, name) for name, value in
             dict(center=center, standardize=standardize, g_dppca=g_dppca, mono=mono,
                  nonprivate=nonprivate).items()}
    option_arg(calibration, "calibration", CALIBRATIONS)
    controls = _resolve_controls(control, methods)
    generator = rng_arg(rng)
    pure = _pure_budgets(controls, eps, flags["g_dppca"])
    group = GaussianGroup(eps - sum(pure.values()), delta, calibration)
    shared = Ledger(eps, delta)
    dirs, used = _directions(mat, k, flags, group, generator, shared, directions, scale_share,
                             noise)
    values = mat.scaled(dirs.scale)
    pairs = random_pairs(mat.n, generator)
    rest = 1.0 - used
    # With k = p the k values are all the variance: T is their sum and only the trace's rough
    # centre is released (to anchor the tuning histograms).
    trace_share = TRACE_SHARE * rest * (1 if k < mat.p else TRACE_TUNING_SHARE / 2)
    trace, trace_sd, anchor = _private_trace(values, pairs, group, trace_share, generator, shared,
                                             needed=k < mat.p)
    scores = values @ dirs.directions.to_numpy()[:, :k]
    share = (rest - trace_share) / len(methods)
    fits, ledgers = {}, {}
    for name in methods:
        ledgers[name] = Ledger(eps, delta)
        ledgers[name].extend(shared)
        fits[name] = _FITTERS[name](scores, pairs, anchor, controls[name], group, share, pure[name],
                                    generator, ledgers[name])
    reference = _nonprivate_reference(mat, k, flags["standardize"]) if flags["nonprivate"] else None
    return ScreeResult(fits, trace=trace, trace_std_err=trace_sd, ledgers=ledgers,
                       shared_releases=len(shared),
                       directions=dirs.directions.iloc[:, :k].set_axis(mat.columns, axis=0),
                       private_directions=dirs.private, scale_source=dirs.scale_source,
                       n_obs=mat.n, eps=eps, delta=delta, calibration=calibration,
                       seed=seed_of(rng), mono=flags["mono"], controls=controls,
                       nonprivate=reference, extra_notes=_calibration_notes(group))


def dp_scree_plot(X, k, method=_OMITTED_METHODS, control=None, eps=None, delta=None, center=True,
                  standardize=False, g_dppca=True, mono=True, type="pve", plot_control=None, *,
                  calibration="analytic", rng=None, nonprivate=False, directions=None, ax=None,
                  scale_share=SCALE_SHARE, noise="tight"):
    """:func:`dp_scree`, then its scree or PVE plot (R: ``dp_scree_plot``).

    Parameters
    ----------
    X, k, method, control, eps, delta, center, standardize, g_dppca, mono, calibration, rng,
    nonprivate, directions, scale_share, noise
        As in :func:`dp_scree`.
    type : {"pve", "scree"}
        What to draw (R's default "pve": the share of the private total variance).
    plot_control : ScreePlotControl, dict or None
        Appearance (:func:`scree_plot_control`); validated before any data is touched.
    ax : matplotlib Axes, optional

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
    option_arg(type, "type", ("pve", "scree"))
    plot_control = _resolve_plot_control(plot_control)
    result = dp_scree(X, k, method, control, eps, delta, center, standardize, g_dppca, mono,
                      calibration=calibration, rng=rng, nonprivate=nonprivate, directions=directions,
                      scale_share=scale_share, noise=noise)
    result.figure = result.plot(type=type, plot_control=plot_control, ax=ax)
    return result


# ----------------------------------------------------------------------------- plot control

SERIES = ("nonprivate",) + SCREE_METHODS


@dataclass(frozen=True)
class ScreePlotControl:
    """Appearance of :func:`dp_scree_plot`; build it with :func:`scree_plot_control`."""

    title: str | None = None
    xlab: str | None = None
    ylab: str | None = None
    legend_position: str = "topright"
    legend_labels: dict | None = None
    col: dict | None = None
    lty: dict | None = None
    pch: dict | None = None
    lwd: float = 1.0
    point_cex: float = 1.0
    cex_main: float = 1.5
    cex_lab: float = 1.2
    cex_axis: float = 1.1
    cex_legend: float = 1.1
    legend_bty: str = "n"

    def __post_init__(self):
        for name in ("title", "xlab", "ylab"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise DPPCATypeError(f"`{name}` must be None or a string; got {getattr(self, name)!r}")
        for name in ("legend_position", "legend_bty"):
            if not isinstance(getattr(self, name), str):
                raise DPPCATypeError(f"`{name}` must be a string; got {getattr(self, name)!r}")
        for name in ("lwd", "point_cex", "cex_main", "cex_lab", "cex_axis", "cex_legend"):
            float_arg(getattr(self, name), name, positive=True)
        for name in ("legend_labels", "col", "lty", "pch"):
            _series_dict(getattr(self, name), name, strings=name in ("legend_labels", "col"))


def scree_plot_control(title=None, xlab=None, ylab=None, legend_position="topright",
                       legend_labels=None, col=None, lty=None, pch=None, lwd=1.0, point_cex=1.0,
                       cex_main=1.5, cex_lab=1.2, cex_axis=1.1, cex_legend=1.1,
                       legend_bty="n") -> ScreePlotControl:
    """Appearance of :func:`dp_scree_plot` (R: ``scree_plot_control``).

    Parameters
    ----------
    title, xlab, ylab : str, optional
        Defaults depend on ``type`` (and say whether the figure is private).
    legend_position : str
        R keyword ("topright", "bottomleft", "top", ...) or a matplotlib ``loc`` string.
    legend_labels, col, lty, pch : dict, optional
        Per series, keys among "nonprivate", "clipped", "pmwm", "huber"; only the named
        series change. ``col`` and labels are strings; ``lty`` an R number (1-6) or a matplotlib
        line style; ``pch`` an R number (15-18, ...) or a matplotlib marker.
    lwd, point_cex, cex_main, cex_lab, cex_axis, cex_legend : float > 0
        Line width and size multipliers, as in R.
    legend_bty : str
        "n": no legend box (R's default), "o": boxed.

    Returns
    -------
    ScreePlotControl

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Non-string titles, non-positive sizes, dict keys outside the series names, non-string
        colours or labels.

    See Also
    --------
    dp_scree_plot : Uses it (``plot_control=``).

    Examples
    --------
    >>> from dppca import scree_plot_control
    >>> scree_plot_control(title="Private scree").title
    'Private scree'
    """
    return ScreePlotControl(title, xlab, ylab, legend_position, legend_labels, col, lty, pch, lwd,
                            point_cex, cex_main, cex_lab, cex_axis, cex_legend, legend_bty)


def _series_dict(value, name, strings):
    if value is None:
        return
    if not isinstance(value, dict):
        raise DPPCATypeError(f"`{name}` must be None or a dict keyed by series {SERIES}; got {value!r}")
    unknown = [key for key in value if key not in SERIES]
    if unknown:
        raise DPPCAValueError(f"`{name}` keys must be among {SERIES}; got {unknown}")
    if strings and not all(isinstance(v, str) for v in value.values()):
        raise DPPCATypeError(f"`{name}` values must be strings; got {value!r}")


def _resolve_plot_control(plot_control) -> ScreePlotControl:
    if plot_control is None:
        return ScreePlotControl()
    if isinstance(plot_control, ScreePlotControl):
        return plot_control
    if isinstance(plot_control, dict):
        return _control_from_dict(ScreePlotControl, plot_control, "plot_control")
    raise DPPCATypeError(f"`plot_control` must be None, a scree_plot_control() or a dict; got "
                         f"{plot_control!r}")


# ----------------------------------------------------------------------------- resolution

def _resolve_methods(method) -> tuple:
    if isinstance(method, _Omitted) or method is None:
        return ("clipped",)
    return options_arg(method, "method", SCREE_METHODS)


def _resolve_controls(control, methods) -> dict:
    """{method: control}; unknown methods, foreign types and misplaced dicts are errors."""
    given = {}
    if control is None:
        pass
    elif isinstance(control, tuple(CONTROLS.values())):
        given[control.method] = control
    elif isinstance(control, dict) and control and set(control) <= set(SCREE_METHODS):
        given = dict(control)
    elif isinstance(control, dict) and len(methods) == 1:
        given[methods[0]] = control
    elif isinstance(control, dict):
        raise DPPCAValueError(f"with several methods, `control` must be keyed by method names "
                              f"{SCREE_METHODS}; got keys {list(control)}")
    else:
        raise DPPCATypeError(f"`control` must be None, a *_control() object or a dict; got {control!r}")
    extra = [name for name in given if name not in methods]
    if extra:
        raise DPPCAValueError(f"`control` given for {extra}, which are not among the requested "
                              f"methods {methods}")
    return {name: _as_control(name, given.get(name)) for name in methods}


def _as_control(name, control):
    kind = CONTROLS[name]
    if control is None:
        return kind()
    if isinstance(control, kind):
        return control
    if isinstance(control, dict):
        return _control_from_dict(kind, control, f"control for {name!r}")
    raise DPPCATypeError(f"the control for {name!r} must be a {name}_control() or a dict; got "
                         f"{type(control).__name__}")


def _control_from_dict(kind, values, what):
    names = {f.name for f in fields(kind)}
    unknown = [key for key in values if key not in names]
    if unknown:
        raise DPPCATypeError(f"{what}: unknown arguments {unknown}; allowed: {sorted(names)}")
    return kind(**values)


# ----------------------------------------------------------------------------- pipeline

def _directions(mat, k, flags, group, rng, shared, directions, scale_share=SCALE_SHARE,
                noise="tight") -> tuple:
    """The directions (computed, or the caller's) and the share of the group they (and the
    private scales, ``scale_share`` of the group, released once here) used."""
    if directions is None and flags["g_dppca"]:
        scales, spent = None, 0.0
        if flags["standardize"]:
            spent = float_arg(scale_share, "scale_share", open_unit=True)
            scales = column_scales(mat, True, noise=group.share(spent), share=spent, rng=rng,
                                   ledger=shared)
        eps_d, delta_d = group.standalone(DIRECTION_SHARE * (1 - spent))
        dirs = dp_pc_dir(mat.to_frame(), k, flags["center"], flags["standardize"], True, eps_d,
                         delta_d, scale=scales, calibration=group.calibration, noise=noise, rng=rng)
        return dirs, spent + group.absorb(dirs.ledger.releases, shared)
    elif directions is None:
        dirs = dp_pc_dir(mat.to_frame(), k, flags["center"], flags["standardize"], False)
    else:
        dirs = _check_directions(directions, mat, k, flags)
    used = 0.0 if dirs.ledger is None else group.absorb(dirs.ledger.releases, shared)
    return dirs, used


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


def _calibration_notes(group) -> list:
    if group.calibration == "classic" and group.eps >= 1:
        return [f"classic calibration: the Gaussian releases compose to one Gaussian mechanism at "
                f"eps={group.eps:.4g} >= 1, where the classic formula has no proof (Dwork & Roth "
                "Thm A.1 needs eps < 1); prefer calibration='analytic'."]
    return []


def _check_directions(directions, mat, k, flags) -> PCDirections:
    if not isinstance(directions, PCDirections):
        raise DPPCATypeError(f"`directions` must be a PCDirections from dp_pc_dir; got "
                             f"{type(directions).__name__}")
    if directions.n_features != mat.p or directions.n_obs != mat.n or directions.k < k:
        raise DPPCAValueError(f"`directions` must come from the same X with at least k={k} "
                              f"components; got n={directions.n_obs}, p={directions.n_features}, "
                              f"k={directions.k} for n={mat.n}, p={mat.p}")
    if directions.private != flags["g_dppca"] or (directions.scale is not None) != flags["standardize"]:
        raise DPPCAValueError("`g_dppca` and `standardize` must match how `directions` was "
                              f"computed (private={directions.private}, "
                              f"standardized={directions.scale is not None})")
    return directions


def _private_trace(values, pairs, group, share, rng, ledger, needed=True):
    """Private tr(S) from disjoint pairs: (estimate, noise sd, positive anchor for tuning bins).

    The clipped rule applied to t = ||x_a - x_b||^2 / 2: a scale-free rough centre of the t's,
    a noisy histogram around it for their 90% quantile, C_T = CLIP_MULTIPLIER x that quantile,
    then the clipped mean. Shares of the trace's mu^2: 1/6, 1/6, 2/3. With ``needed=False``
    (k = p) only the centre is released, with all of ``share``, and the trace is nan.
    """
    first, second = pairs
    with np.errstate(over="ignore"):  # +inf is clamped by the clipped mean; a warning would leak
        halves = np.sum((values[first] - values[second]) ** 2, axis=1) / 2
    tuning = TRACE_TUNING_SHARE / 2 * share if needed else share
    centre = dp_log2_centre(halves, group.share(tuning), rng, ledger=ledger,
                            step="trace tuning: log2 histogram of ||x_a - x_b||^2/2")
    if not needed:  # the centre is about the median of the t's: 4 x it is near the trace
        return float("nan"), float("nan"), 4.0 * centre
    q90 = dp_histogram_quantiles(halves, _tuning_edges(centre, TRACE_LOG2_BINS), [CLIP_LEVEL],
                                 group.share(tuning), rng, ledger=ledger,
                                 step="trace tuning: histogram of ||x_a - x_b||^2/2")[0, 0]
    clip = CLIP_MULTIPLIER * max(q90, np.finfo(float).tiny)
    trace, sd = dp_clipped_paired_mean(halves, clip, group.share((1 - TRACE_TUNING_SHARE) * share),
                                       rng, ledger=ledger,
                                       step="trace: clipped mean of ||x_a - x_b||^2/2")
    return trace, sd, trace if trace > 0 else centre


def _tuning_edges(anchor, bins=None) -> np.ndarray:
    low, high = TUNING_LOG2_BINS if bins is None else bins
    return np.concatenate(([0.0], anchor * 2.0 ** np.arange(low, high + 1)))


def _tuning_quantiles(w, anchor, levels, noise, rng, ledger, method):
    return dp_histogram_quantiles(w, _tuning_edges(anchor), levels, noise, rng, ledger=ledger,
                                  step=f"{method} tuning: pair-value histograms (PC1..PCk)")


def _fit_clipped(scores, pairs, anchor, control, group, share, pure_eps, rng, ledger) -> MethodFit:
    k = scores.shape[1]
    if control.C_clip is not None:
        noise, clip, tuning = group.share(share), np.full(k, float(control.C_clip)), "public C_clip"
    else:
        noise = group.share((1 - control.tuning_share) * share)
        q = _tuning_quantiles(paired_squares(scores, pairs), anchor, [CLIP_LEVEL],
                              group.share(control.tuning_share * share), rng, ledger, "clipped")[:, 0]
        clip = CLIP_MULTIPLIER * np.maximum(q, np.finfo(float).tiny)
        tuning = f"C = {CLIP_MULTIPLIER:g} x private {CLIP_LEVEL:.0%} quantile of the pair values"
    release = dp_clipped_mean(scores, clip, noise, rng, ledger=ledger,
                              step="clipped: U-statistics of min(u, C) (PC1..PCk)")
    return MethodFit(release, "Gaussian", tuning)


def _fit_pmwm(scores, pairs, anchor, control, group, share, pure_eps, rng, ledger) -> MethodFit:
    n = scores.shape[0]
    if control.split_mode:  # quantiles from one random half of the rows, the mean from the other
        order = rng.permutation(n)
        quantile_rows, mean_rows = order[: n // 2], order[n // 2:]
        half = quantile_rows.size // 2
        w = paired_squares(scores, (quantile_rows[:half], quantile_rows[half:2 * half]))
    else:
        w, mean_rows = paired_squares(scores, pairs), np.arange(n)
    m, k = w.shape
    if control.a is None:
        noise = group.share((1 - control.tuning_share) * share)
        tuning_noise = group.share(control.tuning_share * share)
        eta = control.eta if control.eta is not None else min(max(
            PMWM_RANK_SAFETY * tuning_noise.sigma(math.sqrt(2 * k)) / m, PMWM_TRIM_RANGE[0]),
            PMWM_TRIM_RANGE[1])
        p = min(max(control.trim_const / m, eta), 0.49)
        low, high = _tuning_quantiles(w, anchor, [p, 1 - p], tuning_noise, rng, ledger, "pmwm").T
        tuning = "quantiles from a joint noisy histogram"
    else:
        noise = group.share(share)
        p = min(max(control.trim_const / m, PMWM_TRIM_RANGE[0] if control.eta is None else control.eta),
                0.49)
        low, high = _scan_quantiles(w, p, control, pure_eps, rng, ledger)
        tuning = "R's unbounded AboveThreshold quantile scans on [a, b]"
    widen = gaussian_widening(p) if control.widen is None else control.widen
    spread = widen * (high - low)
    lower, upper = np.maximum(low - spread, 0.0), high + spread
    release = dp_winsorized_mean(scores[mean_rows], lower, np.maximum(upper, lower), noise, rng,
                                 ledger=ledger, step="pmwm: U-statistics of clamp(u, L, U) (PC1..PCk)")
    return MethodFit(release, "Gaussian", f"{tuning}, p = {p:.3g}, widen = {widen:.3g}")


def gaussian_widening(p) -> float:
    """w with Q(1-p) + w (Q(1-p) - Q(p)) = CLIP_MULTIPLIER x Q(CLIP_LEVEL), Q the chi2_1 quantiles.

    For Gaussian scores the pair values are lambda chi2_1, so the widened PMWM interval then ends
    where the clipped method's self-tuned threshold sits (6.5 lambda); 0 when Q(1 - p) is already
    beyond it.
    """
    from scipy.stats import chi2

    low, high = chi2.ppf([p, 1 - p], 1)
    return max(0.0, (CLIP_MULTIPLIER * chi2.ppf(CLIP_LEVEL, 1) - high) / (high - low))


def _scan_quantiles(w, p, control, eps, rng, ledger):
    """R's PMWM quantiles: per component, lower then upper scan, each eps / (2k); fallback [a, b]."""
    k = w.shape[1]
    each = eps / (2 * k)
    low, high = np.empty(k), np.empty(k)
    for j in range(k):
        for level, out in ((p, low), (1 - p, high)):
            out[j] = unbounded_quantile_between(w[:, j], level, each, rng, control.a, control.b,
                                                control.beta, ledger=ledger,
                                                step=f"pmwm: quantile scan q={level:.3g}, PC{j + 1}")
    swapped = high < low
    low[swapped], high[swapped] = control.a, control.b
    return low, high


def _fit_huber(scores, pairs, anchor, control, group, share, pure_eps, rng, ledger) -> MethodFit:
    n, k = scores.shape
    w = paired_squares(scores, pairs)
    steps = HUBER_STEPS if control.T is None else control.T
    if control.k_min_m2 is None:
        noise = group.share((1 - control.m2_frac) * share)
        median, q90 = _tuning_quantiles(w, anchor, [0.5, CLIP_LEVEL],
                                        group.share(control.m2_frac * share), rng, ledger, "huber").T
        tau = HUBER_TAU_MULTIPLIER * np.maximum(q90, np.finfo(float).tiny)
        start = median if control.mu0 is None else np.full(k, float(control.mu0))
        tuning = f"tau = {HUBER_TAU_MULTIPLIER:g} x private 90% quantile, start at the private median"
    else:
        noise = group.share(share)
        blocks = max(1, math.floor(math.sqrt(n) / 2)) if control.M is None else control.M
        m2 = dp_m2_histogram(w, int(control.k_min_m2), int(control.k_max_m2), blocks, pure_eps, rng,
                             ledger=ledger, step="huber: m2 histograms of block medians (PC1..PCk)")
        tau = tau_from_m2(m2, group.standalone(share)[0] / k, n)
        start = np.full(k, 0.0 if control.mu0 is None else float(control.mu0))
        tuning = "R's m2 histogram and tau_from_m2"
    release = dp_huber_mean(scores, tau, steps, start, control.eta0, noise, rng, ledger=ledger,
                            step="huber: noisy gradient descent (PC1..PCk)")
    return MethodFit(release, "Gaussian (approximate s.e.)", f"{tuning}, T = {steps}")


_FITTERS = {"clipped": _fit_clipped, "pmwm": _fit_pmwm, "huber": _fit_huber}


def _nonprivate_reference(mat, k, standardize) -> dict:
    """NON-PRIVATE eigenvalues and trace of the sample covariance (sample-SD scaling, as R)."""
    values = mat.values / sample_scale(mat) if standardize else mat.values
    cov = np.atleast_2d(np.cov(values, rowvar=False, ddof=1))
    eigenvalues = np.linalg.eigvalsh(cov)[::-1][:k]
    return {"scree": eigenvalues, "trace": float(np.trace(cov))}
