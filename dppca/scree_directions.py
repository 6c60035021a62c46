"""The directions of one :func:`dppca.dp_scree` call, and their order in its result.

The directions are computed in the call (private g-DPPCA, with the private column scales when
standardizing; or the NON-PRIVATE sample-covariance eigenvectors with ``g_dppca=False``, as R)
or given by the caller (checked against X and the flags). Their releases join the call's
Gaussian-DP group. After the scree values are released, the private directions may be
relabelled by their private variances (post-processing of released numbers, public gate).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ._validation import DPPCATypeError, DPPCAValueError, float_arg
from .directions import SCALE_SHARE, directions_at_bounds, dp_pc_dir
from .preprocessing import column_scales
from .preprocessing.schema import priced
from .privacy import Ledger
from .privacy.accuracy import StepAccuracy
from .results import PCDirections
from .scree_plan import DIRECTION_SHARE


def scree_directions(mat, k, flags, group, rng, shared, directions, scale_share=SCALE_SHARE,
                     noise="tight", scale=None, count=None) -> tuple:
    """The directions of a scree call and the share of its Gaussian-DP group they used.

    Parameters
    ----------
    mat : validated matrix, shape (n, p)
        The data (in memory, or a lazy dask matrix with ``g_dppca``).
    k : int
        Number of directions, 1 <= k <= p.
    flags : dict
        ``center``, ``standardize``, ``g_dppca`` (bool); ``scales_declared`` (optional, bool):
        every scale is declared public, so none is released.
    group : GaussianGroup
        The call's Gaussian-DP group.
    rng : numpy.random.Generator
        Drives the noise.
    shared : Ledger
        Receives the releases shared by every method (scales, directions).
    directions : PCDirections or None
        The caller's directions (checked by :func:`check_directions`), or None to compute them.
    scale_share : float in (0, 1)
        The private scales' share of the group (standardize and g_dppca, unless every scale is
        declared); released once here.
    noise : {"tight", "r_dppca"}
        Sensitivity of directions computed here (see :func:`dppca.dp_pc_dir`).
    scale : optional
        Declared public column scales.
    count : dppca.privacy.neighbouring.PrivateCount, optional
        Add/remove neighbours: the released row count; g-DPPCA's sensitivity is then taken at
        its bounds (:func:`dppca.directions.directions_at_bounds`; the caller allows no private
        scales, no given directions and no NON-PRIVATE ones).

    Returns
    -------
    tuple of (PCDirections, float)
        The directions and the fraction of the group's mu^2 spent on them (and the scales).

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        A bad ``scale_share``, or ``directions`` that do not match (:func:`check_directions`).

    Notes
    -----
    Privacy: the scales and directions are releases of :func:`dppca.dp_pc_dir` and
    :func:`dppca.preprocessing.column_scales` (their sensitivities are proven there); g-DPPCA
    gets ``DIRECTION_SHARE`` of what the scales leave. A caller's directions are charged by
    their own ledger. With ``g_dppca=False`` nothing is released and nothing is spent.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca import load_gau
    >>> from dppca.preprocessing import as_matrix
    >>> from dppca.privacy import Ledger
    >>> from dppca.privacy.composition import GaussianGroup
    >>> mat = as_matrix(load_gau().iloc[:500], min_rows=4)
    >>> flags = dict(center=True, standardize=False, g_dppca=True)
    >>> dirs, used = scree_directions(mat, 2, flags, GaussianGroup(1.0, 1e-5),
    ...                               np.random.default_rng(1), Ledger(1.0, 1e-5), None)
    >>> dirs.k, round(used, 2)
    (2, 0.5)
    """
    if count is not None:
        scales = column_scales(mat, True, scale) if flags["standardize"] else None
        eps_d, delta_d = group.standalone(DIRECTION_SHARE)
        inner = Ledger(eps_d, delta_d)
        dirs = directions_at_bounds(mat, k, scales, count, eps=eps_d, delta=delta_d, rng=rng,
                                    calibration=group.calibration, ledger=inner)
        return dirs, group.absorb(inner.releases, shared)
    if directions is None and flags["g_dppca"]:
        scales, spent = None, 0.0
        if flags.get("scales_declared"):
            scales = column_scales(mat, True, scale)
        elif flags["standardize"]:
            spent = float_arg(scale_share, "scale_share", open_unit=True)
            scales = column_scales(mat, True, scale, noise=group.share(spent), share=spent,
                                   rng=rng, ledger=shared)
        eps_d, delta_d = group.standalone(DIRECTION_SHARE * (1 - spent))
        dirs = dp_pc_dir(direction_input(mat), k, flags["center"], flags["standardize"], True, eps_d,
                         delta_d, scale=scales, calibration=group.calibration, noise=noise, rng=rng)
        return dirs, spent + group.absorb(dirs.ledger.releases, shared)
    elif directions is None:
        dirs = dp_pc_dir(mat.to_frame(), k, flags["center"], flags["standardize"], False,
                         scale=scale)
    else:
        dirs = check_directions(directions, mat, k, flags)
    used = 0.0 if dirs.ledger is None else group.absorb(priced(dirs.ledger.releases), shared)
    return dirs, used


def direction_input(mat):
    """What :func:`dppca.dp_pc_dir` gets: the frame in memory, the lazy dask array otherwise.

    Parameters
    ----------
    mat : validated matrix
        In memory (``values`` a numpy array) or lazy.

    Returns
    -------
    pandas.DataFrame or dask array
        The data as :func:`dppca.dp_pc_dir` takes it.

    Examples
    --------
    >>> from dppca.preprocessing import as_matrix
    >>> type(direction_input(as_matrix([[0.0, 1], [1, 0], [2, 2], [3, 1]]))).__name__
    'DataFrame'
    """
    return mat.values if not isinstance(mat.values, np.ndarray) else mat.to_frame()


def check_directions(directions, mat, k, flags) -> PCDirections:
    """The caller's ``directions``, checked against X, k and the flags (public facts only).

    Parameters
    ----------
    directions : PCDirections
        From :func:`dppca.dp_pc_dir` on the same X.
    mat : validated matrix, shape (n, p)
    k : int
        Components the call needs (at most ``directions.k``).
    flags : dict
        ``g_dppca`` and ``standardize`` (bool), which must match how the directions were made.

    Returns
    -------
    PCDirections
        ``directions`` itself.

    Raises
    ------
    DPPCATypeError
        ``directions`` is not a PCDirections.
    DPPCAValueError
        Its n, p or k do not fit, or it was computed with other ``g_dppca``/``standardize``.

    Examples
    --------
    >>> from dppca.preprocessing import as_matrix
    >>> check_directions("PC1", as_matrix([[0.0, 1], [1, 0], [2, 2], [3, 1]]), 1, {})
    Traceback (most recent call last):
    ...
    dppca._validation.DPPCATypeError: `directions` must be a PCDirections from dp_pc_dir; got str
    """
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


def variance_order(fits, reorder) -> np.ndarray:
    """Order of the k private directions by their private variance (first method), largest first.

    g-DPPCA's directions come from Kendall's tau, which is blind to the columns' scales: on data
    in mixed units (income next to age) its first direction need not carry the most variance,
    and the monotone fit would then pool values orders of magnitude apart. Relabelling the
    private directions by their released variances is post-processing (``reorder`` is public:
    directions computed in the call, g_dppca, mono, and values the accuracy model predicts
    reliable; noise-dominated values are left to the monotone fit, which pools them). Otherwise
    the identity.

    Parameters
    ----------
    fits : dict of str to fit
        Per method, its fit; the first one's ``release.estimate`` (shape (k,)) orders.
    reorder : bool
        Whether to reorder (public).

    Returns
    -------
    numpy.ndarray of int, shape (k,)
        The permutation (stable; nan estimates last).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> fit = SimpleNamespace(release=SimpleNamespace(estimate=np.array([1.0, 5.0, np.nan])))
    >>> variance_order({"clipped": fit}, True).tolist()
    [1, 0, 2]
    >>> variance_order({"clipped": fit}, False).tolist()
    [0, 1, 2]
    """
    first = next(iter(fits.values())).release.estimate
    if not reorder:
        return np.arange(first.size)
    return np.argsort(-np.nan_to_num(np.asarray(first, float), nan=-np.inf), kind="stable")


def values_reliable(accuracy, method) -> bool:
    """Whether the accuracy model (public) predicts ``method``'s values and tuning reliable.

    Parameters
    ----------
    accuracy : AccuracyReport
        The call's accuracy model (:func:`dppca.scree_plan.scree_plan`).
    method : str
        The method whose steps to read; a step the report lacks counts as reliable.

    Returns
    -------
    bool

    Examples
    --------
    >>> from dppca.privacy.accuracy import AccuracyReport
    >>> values_reliable(AccuracyReport([]), "clipped")
    True
    """
    steps = {s.step: s.reliable for s in accuracy.steps}
    return steps.get(f"{method}: scree values", True) and steps.get(f"{method}: tuning quantiles", True)


def permuted(fit, order):
    """``fit`` with its k components taken in ``order`` (post-processing).

    Parameters
    ----------
    fit : dataclass fit
        With a dataclass ``release`` (``estimate``, ``noise_sd``, ``lower``, ``upper``, each
        shape (k,)) and optionally ``histogram`` (a
        :class:`dppca.estimators.clip_choice.ClipChoice` or None).
    order : array_like of int, shape (k,)
        A permutation, e.g. from :func:`variance_order`.

    Returns
    -------
    fit
        A copy with those fields permuted.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Release:
    ...     estimate: list
    ...     noise_sd: list
    ...     lower: list
    ...     upper: list
    >>> @dataclass
    ... class Fit:
    ...     release: Release
    >>> fit = Fit(Release([1.0, 2.0], [0.1, 0.2], [0.0, 0.0], [9.0, 9.0]))
    >>> permuted(fit, [1, 0]).release.estimate.tolist()
    [2.0, 1.0]
    """
    release = replace(fit.release, **{f: np.asarray(getattr(fit.release, f))[order]
                                      for f in ("estimate", "noise_sd", "lower", "upper")})
    changes = {"release": release}
    histogram = getattr(fit, "histogram", None)
    if histogram is not None:  # the clip choice's per-component fields (its counts' rows)
        changes["histogram"] = replace(histogram, **{
            f: np.asarray(getattr(histogram, f))[order]
            for f in ("clip", "fallback", "counts", "tail_estimate", "tail_upper")})
    return replace(fit, **changes)


#: A component whose private variance exceeds this many times that of a component the Kendall
#: spectrum ranks above it (beyond the noise) marks the directions as not the covariance's. For
#: elliptical data the two orders agree (ratio <= 1), so a ratio of 10 beyond the noise margins
#: cannot come from elliptical data; a column of rare huge values among bounded ones gives ratios
#: of order 1e5 (the measured ratios per data set are in benchmarks/results/small_data.txt).
KENDALL_ORDER_LIMIT = 10.0

#: Normal quantile of the noise margin on each of the two values compared (one-sided 97.5%).
KENDALL_ORDER_Z = 1.96


def kendall_order_accuracy(fits, own) -> list:
    """Post-release check that the released variances follow the Kendall spectrum's order.

    g-DPPCA estimates the eigenvectors of the spatial Kendall's tau matrix, which are the
    covariance's principal directions (in the same order) when the data are elliptical (Marden
    1999; Han & Liu 2018, Thm 2.2). On data far from elliptical (a column that is mostly zeros
    with rare huge values, units orders of magnitude apart) the two orders disagree, and the
    covariance's top-k subspace may hold directions outside the released ones: the spatial signs
    weigh every pair alike, so a column whose variance comes from a few huge values ranks low in
    the Kendall spectrum yet carries a leading covariance component. The released variances show
    it after the release: a component Kendall ranks below another carries far more variance.

    Parameters
    ----------
    fits : dict of str to fit
        Per method, its fit with components in the directions' Kendall order (before
        :func:`variance_order`); the first one's ``release.estimate`` and ``release.noise_sd``
        (shape (k,)) are read.
    own : bool
        Whether the directions are g-DPPCA's, computed in the call (public); otherwise there is
        no Kendall order to check and the list is empty.

    Returns
    -------
    list of StepAccuracy
        One step ``"directions vs covariance (post-release)"``: the largest ratio, over pairs
        i < j in Kendall order, of component j's lower noise bound max(0, v_j - z sd_j) to
        component i's upper one max(v_i, 0) + z sd_i (z = :data:`KENDALL_ORDER_Z`), threshold
        :data:`KENDALL_ORDER_LIMIT`; 0 for k = 1. Empty when ``own`` is False.

    Notes
    -----
    The noise margins make a pure-noise inversion unlikely (each bound holds with probability
    0.975); clipping biases the released values down, which shrinks a true inversion (the
    lower bound) more than it can create one. Privacy: a function of released values and
    their public noise sd only, so post-processing of the (eps, delta)-DP release; the warning it
    raises depends on noisy values only.

    References
    ----------
    Marden, J. I. (1999), Some robust estimates of principal components, Statist. Probab. Lett.
    43(4). Han, F. and Liu, H. (2018), ECA: high-dimensional elliptical component analysis in
    non-Gaussian distributions, JASA 113(521), Thm 2.2.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> def fit(v, sd):
    ...     return {"clipped": SimpleNamespace(release=SimpleNamespace(
    ...         estimate=np.array(v), noise_sd=np.array(sd)))}
    >>> kendall_order_accuracy(fit([200.0, 150.0, 5e7], [1.0, 1.0, 1e6]), True)[0].reliable
    False
    >>> kendall_order_accuracy(fit([4.0, 0.3, 0.1], [0.1, 0.1, 0.1]), True)[0].reliable
    True
    >>> kendall_order_accuracy(fit([4.0], [0.1]), False)
    []
    """
    if not own:
        return []
    release = next(iter(fits.values())).release
    value = np.asarray(release.estimate, float)
    sd = np.asarray(release.noise_sd, float)
    lower = np.maximum(np.nan_to_num(value - KENDALL_ORDER_Z * sd, nan=0.0), 0.0)
    upper = np.maximum(np.nan_to_num(value, nan=0.0), 0.0) + KENDALL_ORDER_Z * sd
    above = np.triu(np.ones((value.size, value.size), bool), 1)  # i ranked above j
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(above, lower[None, :] / upper[:, None], 0.0)
    largest = float(np.max(np.nan_to_num(ratios, nan=0.0, posinf=np.inf), initial=0.0))
    return [StepAccuracy(
        "directions vs covariance (post-release)",
        "largest variance ratio of a component over one the Kendall spectrum ranks above it "
        "(beyond the noise); over the limit the directions are Kendall's, not the covariance's",
        largest, "ratio", KENDALL_ORDER_LIMIT,
        "elliptical data order both alike (ratio <= 1)",
        "for the covariance's principal directions, a covariance method "
        "(dp_pc_dir(method='analyze_gauss')); Kendall's directions resist spikes and heavy tails "
        "by design")]


__all__ = ["KENDALL_ORDER_LIMIT", "check_directions", "direction_input", "kendall_order_accuracy",
           "permuted", "scree_directions", "values_reliable", "variance_order"]
