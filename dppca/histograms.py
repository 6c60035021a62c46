"""Private plotting frame, binning, additive and sparse histograms, and sampling from them.

The pieces behind :func:`dppca.dp_score` (reference r-dppca-score.md §3-§5, §8), each
private on its own under replace-one neighbours with n public:

* :func:`private_frame`: a square frame around the private coordinate-wise median of the
  2-D scores, with a private radius;
* :class:`Grid`: equal-width bins over the frame, R's binning rules;
* :func:`private_histograms`: the additive Gaussian and sparse thresholded Laplace
  histograms of one or several groups (one release per method over all groups);
* :class:`SamplingControl`, :func:`sample_histogram`, :func:`allocate_sample_sizes`:
  synthetic points drawn from a released histogram (post-processing).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._validation import DPPCATypeError, DPPCAValueError, float_arg, int_arg, options_arg
from .privacy import Ledger, gaussian_sigma, laplace_scale, split_budget
from .pair_statistics import clean_scores
from .privacy.smooth import smooth_sensitivity_quantile
from .quantiles import unbounded_quantile
from .privacy.samplers import add_gaussian_noise, add_laplace_noise

#: Histogram mechanisms, in the order results list them.
HISTOGRAM_METHODS = ("add", "sparse")
#: Shares of the frame budget: a magnitude bound (the median's domain), the two medians, the radius.
FRAME_SHARES = {"bound": 0.1, "x median": 0.3, "y median": 0.3, "radius": 0.3}
#: Level of the magnitude bound; the medians' domain is [-2 B, 2 B].
BOUND_QUANTILE, BOUND_FACTOR = 0.9, 2.0
#: Level of the radius quantile and the inflation of the frame (as in R).
FRAME_QUANTILE, FRAME_INFLATE = 0.99, 0.20
#: Smallest half-width relative to max(1, |centre|), so the breaks stay distinct in floating point.
MIN_RELATIVE_HALF_WIDTH = 1e-9
#: Default bins per axis: round(sqrt(n / (BINS_NOISE_RATIO * noise sd))), within BINS_RANGE.
BINS_NOISE_RATIO, BINS_RANGE = 2.5, (4, 64)
#: Synthetic sampling: base points and the default jitter (in bin widths) of each.
SAMPLING_METHODS = ("uniform", "center")
DEFAULT_BANDWIDTH = {"uniform": 0.25, "center": 0.5}


@dataclass(frozen=True)
class Frame:
    """A square plotting frame, in the coordinates of the scores it was built from.

    Attributes
    ----------
    centre : (float, float)
        Private centre (c1, c2): smooth-sensitivity medians of the two score columns.
    half_width : float
        (1 + inflate) times the private 0.99-quantile of the Chebyshev distances to the centre.
    bound : float
        The private magnitude bound B; the medians were computed on the domain [-2B, 2B].
    """

    centre: tuple
    half_width: float
    bound: float

    @property
    def xlim(self) -> tuple:
        return (self.centre[0] - self.half_width, self.centre[0] + self.half_width)

    @property
    def ylim(self) -> tuple:
        return (self.centre[1] - self.half_width, self.centre[1] + self.half_width)


def private_frame(scores, eps, delta, rng, *, ledger: Ledger | None = None,
                  inflate: float = FRAME_INFLATE) -> Frame:
    """(eps, delta)-DP square frame [c1 +/- h] x [c2 +/- h] around the bulk of 2-D scores.

    Four releases (basic composition, shares ``FRAME_SHARES`` of eps; delta split over the
    two medians):

    1. B = unbounded 0.9-quantile of max(|s_i1|, |s_i2|) (pure DP, :func:`unbounded_quantile`);
       it fixes the medians' public domain [-2B, 2B] (|median(s_j)| <= median(|s_j|) <= B
       up to the noise, so the factor 2 leaves room).
    2-3. c_j = smooth-sensitivity median of column j on that domain
       (:func:`dppca.privacy.smooth.smooth_sensitivity_quantile`, beta = eps/(2 ln(2/delta))).
    4. R = unbounded 0.99-quantile of the Chebyshev distances max_j |s_ij - c_j| (pure DP);
       h = (1 + inflate) R, at least 1e-9 max(1, |c|) (post-processing).

    Parameters
    ----------
    scores : ndarray, shape (n, 2)
        Finite scores; n is public.
    eps : float
        Budget of the frame, > 0.
    delta : float
        Budget of the frame, in (0, 1).
    rng : numpy.random.Generator
    ledger : Ledger, optional
    inflate : float
        Relative inflation of the radius, >= 0 (R's fixed 0.20).

    Returns
    -------
    Frame

    Notes
    -----
    Sensitivities (replace-one, n public): steps 1 and 4 release counts #{v_i <= t} of one
    value per row, which change by at most 1 and monotonically (proof in
    :func:`dppca.quantiles.unbounded_quantile`); step 4's distances use the released centre,
    so it is adaptive composition. Steps 2-3: smooth sensitivity on a domain fixed by step 1.
    The R package uses the Euclidean radius; the Chebyshev distance is the radius of a square,
    so 99% of the points (up to the noise) lie inside the frame before inflation.
    """
    # Row-local cleaning (nan -> 0, +-inf -> +-DBL_MAX): a neighbour whose projected score
    # overflows must not make the frame refuse (a refusal would reveal that row).
    scores = clean_scores(scores)
    inflate = float_arg(inflate, "inflate", nonnegative=True)
    parts = _frame_budget(eps, delta)
    bound = unbounded_quantile(np.abs(scores).max(axis=1), BOUND_QUANTILE, parts["bound"][0], rng,
                               ledger=ledger, step="frame: magnitude bound")
    domain = (-BOUND_FACTOR * bound, BOUND_FACTOR * bound)
    centre = tuple(smooth_sensitivity_quantile(scores[:, j], 0.5, *parts[name], rng, *domain,
                                               ledger=ledger, step=f"frame: {name}")
                   for j, name in enumerate(("x median", "y median")))
    with np.errstate(over="ignore"):  # silently: a warning would depend on one row
        distances = np.minimum(np.abs(scores - np.asarray(centre)).max(axis=1), np.finfo(float).max)
    radius = unbounded_quantile(distances, FRAME_QUANTILE, parts["radius"][0], rng, ledger=ledger,
                                step="frame: radius")
    floor = MIN_RELATIVE_HALF_WIDTH * max(1.0, *np.abs(centre))
    return Frame(centre, max((1 + inflate) * radius, floor), bound)


def _frame_budget(eps, delta) -> dict:
    parts = split_budget(eps, delta, FRAME_SHARES)
    # Only the medians spend delta: half each.
    return {name: (e, delta / 2 if "median" in name else 0.0) for name, (e, _) in parts.items()}


@dataclass(frozen=True)
class Grid:
    """Equal-width bins over a rectangle; flat bin k = by * m_x + bx (x fastest, as in R).

    Attributes
    ----------
    x_breaks, y_breaks : ndarray, shapes (m_x + 1,), (m_y + 1,)
    """

    x_breaks: np.ndarray
    y_breaks: np.ndarray

    @classmethod
    def over(cls, xlim, ylim, bins) -> "Grid":
        """``bins = (m_x, m_y)`` equal-width bins over [xlim] x [ylim] (numpy.linspace breaks)."""
        return cls(np.linspace(*xlim, bins[0] + 1), np.linspace(*ylim, bins[1] + 1))

    @property
    def shape(self) -> tuple:
        """(m_x, m_y)."""
        return (self.x_breaks.size - 1, self.y_breaks.size - 1)

    @property
    def size(self) -> int:
        """Number of bins m = m_x m_y."""
        return self.shape[0] * self.shape[1]

    def cells(self) -> pd.DataFrame:
        """One row per bin (x fastest): xmin, xmax, ymin, ymax."""
        bx, by = np.meshgrid(np.arange(self.shape[0]), np.arange(self.shape[1]))
        bx, by = bx.ravel(), by.ravel()
        return pd.DataFrame({"xmin": self.x_breaks[bx], "xmax": self.x_breaks[bx + 1],
                             "ymin": self.y_breaks[by], "ymax": self.y_breaks[by + 1]})

    def bin_index(self, points) -> np.ndarray:
        """Flat bin of each point: intervals (b_{i-1}, b_i], the first closed (R ``cut``,
        ``include.lowest``); points outside the frame go to the nearest edge bin (never dropped)."""
        points = np.asarray(points, dtype=float)
        bx = _axis_bin(self.x_breaks, points[:, 0])
        by = _axis_bin(self.y_breaks, points[:, 1])
        return by * self.shape[0] + bx


def _axis_bin(breaks, values) -> np.ndarray:
    return np.clip(np.searchsorted(breaks, values, side="left") - 1, 0, breaks.size - 2)


def bin_counts(points, grid: Grid, codes=None, n_groups: int = 1) -> np.ndarray:
    """Counts per (group, bin), shape (n_groups, m).

    ``codes`` are group indices 0..n_groups-1, or -1 for a row in no group (a label outside
    the declared domain or not selected; see :mod:`dppca.groups`): such a row is counted in
    no cell. Without ``codes`` every row is in the one group.
    """
    flat = grid.bin_index(points)
    if codes is not None:
        codes = np.asarray(codes, dtype=np.int64)
        in_group = codes >= 0
        flat = codes[in_group] * grid.size + flat[in_group]
    return np.bincount(flat, minlength=n_groups * grid.size).reshape(n_groups, grid.size).astype(float)


def default_bins(n: float, methods, eps, delta, calibration="analytic") -> int:
    """Bins per axis from public quantities only: round(sqrt(n / (kappa sigma))) within [4, 64].

    sigma is the largest noise standard deviation, in counts, of the requested mechanisms at
    their share (eps, delta) of the histogram budget (the Gaussian sigma for "add",
    sqrt(2) x the Laplace scale for "sparse"), and kappa = ``BINS_NOISE_RATIO``. The data fill
    roughly a quarter of the frame (the frame is 2.4 times the 0.99 radius wide), so an occupied
    bin holds about 4 n / b^2 points: the rule keeps that near 4 kappa sigma, i.e. well above the
    noise, while giving as many bins as the noise allows.
    """
    sd = max(_noise_sd(method, eps, delta, calibration) for method in methods)
    bins = round(math.sqrt(n / (BINS_NOISE_RATIO * sd)))
    return int(min(max(bins, BINS_RANGE[0]), BINS_RANGE[1]))


def _noise_sd(method, eps, delta, calibration) -> float:
    if method == "add":
        return gaussian_sigma(math.sqrt(2.0), eps, delta, calibration)
    return math.sqrt(2.0) * laplace_scale(2.0, eps)


@dataclass(frozen=True)
class HistogramRelease:
    """One private histogram over every group.

    Attributes
    ----------
    prob : ndarray, shape (n_groups, m)
        Probabilities per bin, summing to 1 within each group (all 0 for an empty group).
    totals : ndarray, shape (n_groups,)
        Private estimate of each group's size from the same release (post-processing):
        the sum of the unclipped noisy counts ("add") or of the kept counts ("sparse").
    noise_scale : float
        Gaussian sigma or Laplace scale, in counts.
    threshold : float
        Count threshold of "sparse" (nan for "add").
    empty_groups : tuple of int
        Groups whose released histogram kept no mass (their ``prob`` is all 0).
    """

    prob: np.ndarray
    totals: np.ndarray
    noise_scale: float
    threshold: float = float("nan")
    empty_groups: tuple = field(default=())


def private_histograms(counts, methods, eps, delta, rng, *, calibration="analytic",
                       ledger: Ledger | None = None, group_names=None) -> dict:
    """Release the histogram ``counts`` with each method, the budget split evenly between them.

    Parameters
    ----------
    counts : ndarray, shape (n_groups, m)
        Exact counts per (group, bin) from :func:`bin_counts`; each row is in at most one
        (group, bin) cell (rows in no group are in none).
    methods : sequence of {"add", "sparse"}
    eps, delta : float
        Budget of all the histograms together; each method gets (eps, delta) / len(methods).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
        Gaussian calibration of "add".
    ledger : Ledger, optional
    group_names : sequence of str, optional
        For warnings.

    Returns
    -------
    dict of str to HistogramRelease
        In ``HISTOGRAM_METHODS`` order.

    Notes
    -----
    Sensitivity (replace-one, n public): the cells (groups) are public or released before
    (adaptive composition), and each row is in at most one cell. The replaced row leaves at
    most one cell and the new one enters at most one, whatever the change (bin, group, or
    into/out of the groups shown): the count vector moves by at most 1 in two entries, L2
    sqrt(2), L1 2; a cell non-zero in one neighbour only holds a count of 1 (at most two such
    cells). One release covers every group (parallel composition, R's Algorithms 6-7). Both
    methods are two releases: basic composition, half the budget each (R spends the full
    budget on each, its Observation P3).
    """
    share = 1.0 / len(methods)
    out = {}
    for method in HISTOGRAM_METHODS:
        if method in methods:
            release = _RELEASES[method](counts, eps * share, delta * share, rng, calibration, ledger)
            out[method] = _warn_if_empty(release, method, group_names)
    return out


def additive_histogram(counts, eps, delta, rng, calibration="analytic",
                       ledger: Ledger | None = None) -> HistogramRelease:
    """Gaussian noise on every count, clipped at 0 and normalised per group (Algorithm 4).

    (eps, delta)-DP: L2 sensitivity sqrt(2) of the count vector (see
    :func:`private_histograms`); sigma from :func:`dppca.privacy.gaussian_sigma` (analytic
    by default; R uses the classic sigma, proven only for eps < 1, its Observation P4).
    """
    sigma = gaussian_sigma(math.sqrt(2.0), eps, delta, calibration)
    noisy, sigma = add_gaussian_noise(counts, sigma, math.sqrt(2.0), rng)
    if ledger is not None:
        ledger.record("histogram: add", f"Gaussian ({calibration})", math.sqrt(2.0), "L2", sigma,
                      eps, delta)
    return _release(np.maximum(noisy, 0.0), np.maximum(noisy.sum(axis=1), 0.0), sigma)


def sparse_histogram(counts, eps, delta, rng, calibration="analytic",
                     ledger: Ledger | None = None) -> HistogramRelease:
    """Laplace(2/eps) noise on the non-zero counts, kept if >= 1 + 2 ln(2/delta)/eps (Algorithm 5).

    (eps, delta)-DP (stability-based histogram; Korolova et al. 2009, Bun, Nissim & Stemmer
    2016): on the cells non-zero in both neighbours the L1 sensitivity is 2, so Laplace
    noise of scale 2/eps is eps-DP; a cell non-zero in only one neighbour holds a count of 1
    and is kept with probability P(1 + Z >= t) = exp(-ln(2/delta))/2 = delta/4, Z ~ Lap(2/eps).
    Empty cells get no noise and no draw (as in R). ``calibration`` is unused (Laplace).
    """
    scale = laplace_scale(2.0, eps)
    kept = np.zeros_like(counts)
    nonzero = counts > 0
    noisy, scale = add_laplace_noise(counts[nonzero], scale, 2.0, rng)
    # 1 + b ln(2/delta) with the discrete Laplace's scale b = t gamma >= 2/eps; + 2^-39 b covers its
    # tail P(Z >= z) = q^ceil(z/gamma) / (1 + q) <= exp(-z/b) / (2 - 1/t), t >= 2^40.
    threshold = 1.0 + scale * (math.log(2.0 / delta) + 2.0 ** -39)
    kept[nonzero] = np.where(noisy >= threshold, noisy, 0.0)
    if ledger is not None:
        ledger.record("histogram: sparse", "Laplace (thresholded)", 2.0, "L1", scale, eps, delta)
    return _release(kept, kept.sum(axis=1), scale, threshold)


def _release(kept, totals, noise_scale, threshold=float("nan")) -> HistogramRelease:
    sums = kept.sum(axis=1, keepdims=True)
    prob = np.divide(kept, sums, out=np.zeros_like(kept), where=sums > 0)
    empty = tuple(int(g) for g in np.flatnonzero(sums[:, 0] <= 0))
    return HistogramRelease(prob, totals, noise_scale, threshold, empty)


_RELEASES = {"add": additive_histogram, "sparse": sparse_histogram}


def _warn_if_empty(release: HistogramRelease, method: str, group_names) -> HistogramRelease:
    if release.empty_groups:
        names = [group_names[g] if group_names is not None else "all" for g in release.empty_groups]
        warnings.warn(f"the private {method!r} histogram kept no mass for group(s) {names}: its "
                      "probabilities are all 0 (a larger eps or fewer bins would help)", UserWarning,
                      stacklevel=3)
    return release


def histogram_frame(grid: Grid, prob, group_names=None) -> pd.DataFrame:
    """DataFrame xmin, xmax, ymin, ymax, prob[, group] with one row per (group, bin)."""
    prob = np.asarray(prob, dtype=float)
    cells = grid.cells()
    if group_names is None:
        return cells.assign(prob=prob.reshape(-1))
    frames = [cells.assign(prob=row, group=name) for name, row in zip(group_names, prob)]
    out = pd.concat(frames, ignore_index=True)
    out["group"] = pd.Categorical(out["group"], categories=list(group_names))
    return out


@dataclass(frozen=True)
class SamplingControl:
    """How synthetic points are drawn from a private histogram (R ``sampling_control``).

    Parameters
    ----------
    method : str or sequence of {"uniform", "center"}
        Base point of each synthetic observation: uniform inside the drawn bin, or its centre.
        Several give one sample each. Unknown names are errors (R drops them silently, and
        gives "center" for NULL; here None means the default "uniform").
    sample_size : int, optional
        Points per sample, >= 1; None means n (public).
    bandwidth_scale : float or dict of str to float, optional
        Standard deviation of the Gaussian jitter in units of the median bin width, >= 0.
        One number applies to every method; a dict needs every requested method. Default
        {"uniform": 0.25, "center": 0.5}.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Unknown or repeated methods, a sample size that is not a positive integer, a
        negative or non-finite bandwidth, a dict missing a method or naming an unknown one.

    See Also
    --------
    dp_score_plot : Uses it (``sampling_control=``).

    Notes
    -----
    Sampling is post-processing of a released histogram: it costs no budget as long as
    these settings do not depend on the data.

    Examples
    --------
    >>> from dppca import sampling_control
    >>> sampling_control(sample_size=100).sample_size
    100
    """

    method: tuple = ("uniform",)
    sample_size: int | None = None
    bandwidth_scale: dict | float | None = None

    def __post_init__(self):
        methods = options_arg("uniform" if self.method is None else self.method, "method",
                              SAMPLING_METHODS)
        size = None if self.sample_size is None else int_arg(self.sample_size, "sample_size", lower=1)
        object.__setattr__(self, "method", methods)
        object.__setattr__(self, "sample_size", size)
        object.__setattr__(self, "bandwidth_scale", _bandwidths(self.bandwidth_scale, methods))


def _bandwidths(value, methods) -> dict:
    if value is None:
        return {m: DEFAULT_BANDWIDTH[m] for m in methods}
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(SAMPLING_METHODS))
        missing = [m for m in methods if m not in value]
        if unknown or missing:
            raise DPPCAValueError(f"`bandwidth_scale` must give a value for each method {methods} "
                                  f"and no others; unknown {unknown}, missing {missing}")
        return {m: float_arg(value[m], f"bandwidth_scale[{m!r}]", nonnegative=True) for m in methods}
    if isinstance(value, (str, bytes)) or not np.isscalar(value):
        raise DPPCATypeError(f"`bandwidth_scale` must be a number or a dict method -> number; got {value!r}")
    return {m: float_arg(value, "bandwidth_scale", nonnegative=True) for m in methods}


def sample_histogram(hist: pd.DataFrame, size: int, method: str, bandwidth: float, rng) -> pd.DataFrame:
    """``size`` synthetic 2-D points from one histogram (R §8.3), post-processing.

    Bins are drawn with probability ``prob``; the base point is uniform in the bin
    (``"uniform"``) or its centre (``"center"``); Gaussian jitter with standard deviation
    ``bandwidth`` x median bin width (per axis) is added. Draw order: bins, then uniform x
    and y, then jitter x and y.

    Returns
    -------
    DataFrame with columns pc_x, pc_y (``size`` rows; 0 rows, with a warning, if the
    histogram has no mass).
    """
    weights = np.where(np.isfinite(hist["prob"]) & (hist["prob"] > 0), hist["prob"], 0.0)
    if weights.sum() <= 0 or size == 0:
        if size:
            warnings.warn("the histogram has no positive mass: no synthetic points were drawn",
                          UserWarning, stacklevel=2)
        return pd.DataFrame({"pc_x": np.empty(0), "pc_y": np.empty(0)})
    bins = rng.choice(weights.size, size=size, p=weights / weights.sum())
    lo = hist[["xmin", "ymin"]].to_numpy()[bins]
    hi = hist[["xmax", "ymax"]].to_numpy()[bins]
    base = (lo + hi) / 2 if method == "center" else \
        np.column_stack([rng.uniform(lo[:, j], hi[:, j]) for j in range(2)])
    widths = np.median(hist[["xmax", "ymax"]].to_numpy() - hist[["xmin", "ymin"]].to_numpy(), axis=0)
    jitter = np.column_stack([rng.normal(0.0, bandwidth * widths[j], size=size) for j in range(2)])
    points = base + jitter
    return pd.DataFrame({"pc_x": points[:, 0], "pc_y": points[:, 1]})


def allocate_sample_sizes(weights, total: int) -> np.ndarray:
    """Split ``total`` points over groups in proportion to ``weights`` (largest remainder).

    Ties go to the earlier group. Negative weights count as 0; all-zero weights give all 0.
    Use private weights (the released group totals), never the exact group sizes.
    """
    weights = np.maximum(np.asarray(weights, dtype=float), 0.0)
    if weights.sum() <= 0:
        return np.zeros(weights.size, dtype=int)
    raw = total * weights / weights.sum()
    out = np.floor(raw).astype(int)
    order = np.argsort(-(raw - out), kind="stable")
    out[order[:total - out.sum()]] += 1
    return out
