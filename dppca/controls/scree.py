"""Controls of the scree methods (R: ``clipped_control``, ``pmwm_control``, ``huber_control``).

Frozen dataclasses validated at construction, their constructors, and the resolution of
``dp_scree``'s ``control`` argument into one control per requested method.
"""
from __future__ import annotations

from dataclasses import dataclass

from .._validation import DPPCATypeError, DPPCAValueError, bool_arg, control_arg, float_arg, int_arg

SCREE_METHODS = ("clipped", "pmwm", "huber")


@dataclass(frozen=True)
class ClippedControl:
    """Tuning of the "clipped" method; build it with :func:`clipped_control`.

    Parameters
    ----------
    C_clip : float > 0, optional
        Public clipping threshold of the pair values (None: self-tuned).
    tuning_share : float in (0, 1)
        Share of the method's budget spent on self-tuning.

    See Also
    --------
    clipped_control : The constructor, with each setting explained.

    Examples
    --------
    >>> from dppca.controls import ClippedControl
    >>> ClippedControl(C_clip=3.0).C_clip
    3.0
    """

    C_clip: float | None = None
    tuning_share: float = 0.25
    method = "clipped"

    def __post_init__(self):
        if self.C_clip is not None:
            float_arg(self.C_clip, "C_clip", positive=True)
        float_arg(self.tuning_share, "tuning_share", open_unit=True)


@dataclass(frozen=True)
class PmwmControl:
    """Tuning of the "pmwm" method; build it with :func:`pmwm_control`.

    Parameters
    ----------
    a, b : float, optional
        Public search range of the quantiles (None: self-tuned).
    trim_const : float > 0
        R's trim constant.
    eta : float in (0, 0.5), optional
        Minimum trim proportion (None: self-tuned).
    beta : float > 1
        Grid ratio of the AboveThreshold scans.
    split_mode : bool
        Quantiles and mean from different halves of the rows.
    widen : float >= 0, optional
        Widening of the winsorizing interval, in units of its width (None: default rule).
    tuning_share : float in (0, 1)
        Share of the method's budget spent on the quantiles.

    See Also
    --------
    pmwm_control : The constructor, with each setting explained.

    Examples
    --------
    >>> from dppca.controls import PmwmControl
    >>> PmwmControl(a=0.0, b=10.0).b
    10.0
    """

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
    """Tuning of the "huber" method; build it with :func:`huber_control`.

    Parameters
    ----------
    k_min_m2, k_max_m2 : int, optional
        Public log2 bin range of R's scale proxy m2 (None: self-tuned).
    m2_frac : float in (0, 1)
        Share of the method's budget spent on tuning.
    mu0 : float, optional
        Starting value, in units of the scores squared (None: default rule).
    eta0 : float > 0
        Step size.
    T : int >= 1, optional
        Number of gradient steps (None: default).
    M : int >= 1, optional
        Number of blocks of R's m2 histogram (None: floor(sqrt(n) / 2)).

    See Also
    --------
    huber_control : The constructor, with each setting explained.

    Examples
    --------
    >>> from dppca.controls import HuberControl
    >>> HuberControl(T=3).T
    3
    """

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
        squared), used for every component. Default None: self-tuned, C_l minimises the
        clipping bias (estimated from a private log2 histogram of the pair values of component
        l) plus the noise sd, :mod:`dppca.estimators.clip_choice`; when the accuracy model
        predicts that histogram noise-dominated, C_l = 14.3 x a coarse private median, or
        6.5 x the private trace.
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


def resolve_controls(control, methods) -> dict:
    """Resolve ``dp_scree``'s ``control`` argument into one control per requested method.

    Parameters
    ----------
    control : None, a ``*_control()`` object or dict
        None: defaults for every method. A control object applies to its own method. A dict
        keyed by method names gives each method's control (an object or a dict of settings);
        with a single requested method, a dict of settings is that method's control.
    methods : sequence of {"clipped", "pmwm", "huber"}
        The requested scree methods.

    Returns
    -------
    dict of str to control
        Method name -> its validated control, for every name in ``methods``.

    Raises
    ------
    DPPCAValueError
        A control for a method not requested, or with several methods a dict not keyed by
        method names.
    DPPCATypeError
        ``control`` of another type, or a dict of settings a control does not have.

    Examples
    --------
    >>> from dppca.controls import clipped_control, resolve_controls
    >>> controls = resolve_controls(clipped_control(C_clip=2.0), ["clipped", "huber"])
    >>> controls["clipped"].C_clip, type(controls["huber"]).__name__
    (2.0, 'HuberControl')
    """
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
    return {name: control_arg(given.get(name), CONTROLS[name], f"control for {name!r}") for name in methods}


__all__ = ["ClippedControl", "HuberControl", "PmwmControl", "SCREE_METHODS", "clipped_control",
           "huber_control", "pmwm_control", "resolve_controls"]
