"""The rank path's scree result: eigenvalues of the private latent correlation, with intervals.

On the rank path (``dp_scree(X, k, standardize="rank")``) the scree values are the top-k
eigenvalues of the latent Gaussian-copula correlation matrix estimated from ONE private release
of the elementwise Kendall's tau matrix (the release the directions come from). Its trace is p
(public), so PVE = value / p exactly. The intervals bound the distance to the eigenvalues of the
population latent correlation R = sin(pi tau / 2) from public numbers and released values only
(:class:`RankBound`, proof in its docstring): they cover both the privacy noise and the sampling
error, simultaneously for all values, with probability at least 1 - alpha at any n.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.stats import chi2

from ..privacy.accuracy import AccuracyReport, StepAccuracy
from ..privacy.bridge_noise import bridged_noise_sd
from .base import NONPRIVATE
from .scree import ScreeResult

#: The estimand, as every rank scree summary states it.
RANK_SCREE_ESTIMAND = ("Estimand: eigenvalues of the latent Gaussian-copula correlation matrix "
                       "(Han & Liu 2012); PVE over its trace p (public).")
#: The result's only method column.
RANK_METHOD = "rank"
#: A value whose relative interval half-width (half-width / value) reaches this is unreliable:
#: its interval then reaches 0, so the data do not show it to be positive.
RANK_RELIABLE_LIMIT = 1.0


@dataclass(frozen=True)
class RankBound:
    """Public ingredients of the rank scree intervals; :meth:`halfwidth` turns them into one.

    Parameters
    ----------
    n, p : int
        Rows and columns (public).
    sigma : float
        The tau release's noise sd (public: the ledger's).
    smallest_normaliser : float
        The smallest normaliser s_min = min_{j != k} sqrt(d_j d_k), d = the released diagonal
        clipped to [floor, 1] (post-processing); 1 when p = 1.
    diagonal_term : float
        The diagonal noise's term D = sqrt(sum_{j != k} (1 / sqrt(d_j d_k) - 1)^2)
        (post-processing).
    repair_move : float
        How far the repair moved the bridged matrix, ||R_hat - B||_F, B before the repair,
        R_hat after it (post-processing).

    Notes
    -----
    Target: lambda_i(R), R_jk = sin(pi tau_jk / 2), tau the population Kendall's tau of the
    rows' distribution (rows i.i.d.; the sampling part is about that population) with
    continuous margins (under a Gaussian copula R is its latent correlation matrix, Han & Liu
    2012, Lemma 2.1; the claim holds for R as defined under any copula). Released:
    M = T + N, T the sample tau-a matrix (its diagonal is 1: no ties), N symmetric with
    N_jk ~ N(0, sigma^2) independent for j <= k. The estimate is R_hat = P(B), P the nearest
    correlation matrix, B_jk = sin(pi b_jk / 2) off the diagonal (B_jj = 1),
    b_jk = clip(M_jk / s_jk, -1, 1), s_jk = sqrt(d_j d_k), d_j = clip(M_jj, floor, 1).

    Claim: with probability at least 1 - alpha, for every i simultaneously,
    |lambda_i(R_hat) - lambda_i(R)| <= :meth:`halfwidth` (alpha)
    = r + (pi / 2) ((a + b) / s_min + D), with a = sigma sqrt(2 q_{1 - alpha / 2}),
    q the chi2 quantile with p (p - 1) / 2 degrees of freedom,
    b = sqrt(p (p - 1) / m) + p sqrt(log(2 / alpha) / m), m = floor(n / 2),
    D = ``diagonal_term``, r = ``repair_move``, s_min = ``smallest_normaliser``.

    Proof. (1) Entrywise, j != k: clip to [-1, 1] is the projection onto an interval that holds
    tau_jk, so |b_jk - tau_jk| <= |M_jk / s_jk - tau_jk|, and
    M_jk / s_jk - tau_jk = (T_jk - tau_jk) / s_jk + N_jk / s_jk + tau_jk (1 / s_jk - 1).
    With |tau_jk| <= 1, 1 / s_jk >= 1 and |sin(pi x / 2) - sin(pi y / 2)| <= (pi / 2) |x - y|,
    the triangle inequality in the Frobenius norm over the off-diagonal entries gives
    ||B - R||_F <= (pi / 2) (||T - tau||_F / s_min + ||N_off||_F / s_min + D). The diagonal's
    noise enters only through s, which is released: D and s_min are exact, no probability
    is spent on them.
    (2) Noise: ||N_off||_F^2 = 2 sum_{j<k} N_jk^2 and sum_{j<k} N_jk^2 / sigma^2 ~ chi2 with
    p (p - 1) / 2 degrees of freedom, so ||N_off||_F <= a with probability 1 - alpha / 2.
    (3) Sampling (Hoeffding 1963, Section 5): T = (1 / n!) sum_pi W_pi, each W_pi the mean of
    the kernel h(x, y)_jk = sign(x_j - y_j) sign(x_k - y_k) over the m disjoint pairs
    (pi(1), pi(2)), ..., an average of m independent kernels with mean tau. x -> exp(lam ||x||)
    is convex, so (Jensen) E exp(lam ||T - tau||) <= E exp(lam ||W - tau||). As a function of
    the m independent pairs, ||W - tau||_F moves by at most c = sqrt(2) p / m when one pair
    changes: the kernel is u u^T off the diagonal, u = sign(x - y) in {-1, 0, 1}^p, and
    ||u u^T - v v^T||_F^2 = ||u||^4 + ||v||^4 - 2 (u.v)^2 <= 2 p^2 (at most the entrywise
    bound 2 sqrt(p (p - 1)) for p >= 2). McDiarmid's lemma gives
    E exp(lam (||W - tau|| - E ||W - tau||)) <= exp(lam^2 m c^2 / 8), and
    E ||W - tau||_F <= (E ||W - tau||_F^2)^(1/2) = (sum_{j != k} Var h_jk / m)^(1/2)
    <= sqrt(p (p - 1) / m). Chernoff with the best lam:
    P(||T - tau||_F >= sqrt(p (p - 1) / m) + t) <= exp(-2 t^2 / (m c^2)) = exp(-t^2 m / p^2),
    which is alpha / 2 at t = p sqrt(log(2 / alpha) / m).
    (4) Repair: ||R_hat - R||_F <= ||R_hat - B||_F + ||B - R||_F = r + ||B - R||_F. (Where R
    is a correlation matrix, as under the Gaussian copula, the exact nearest correlation matrix
    P(B) satisfies ||P(B) - R||_F <= ||B - R||_F, the projection onto a closed convex set
    holding R being non-expansive, and r could be dropped; r is kept because the repair is
    iterative (R_hat approximates P(B)) and sin(pi tau / 2) need not be positive
    semi-definite outside that model. B is positive semi-definite in most releases and then
    r = 0.) (5) Weyl: |lambda_i(R_hat) - lambda_i(R)| <= ||R_hat - R||_2
    <= ||R_hat - R||_F. A union bound over (2) and (3) gives the claim. The values lie in
    [0, p] (a correlation matrix's eigenvalues), so the interval is clipped to it.

    With ties (discrete or rounded columns). Steps (1)-(5) never use T_jj = 1: the algebra of
    (1) holds for any normaliser s and the kernel of (3) stays in [-1, 1], so the claim holds
    with ties too, for the target sin(pi tau / 2) of the population tau-a, which ties attenuate
    (|tau_jk| <= sqrt(t_j t_k), t the population share of untied pairs). The values estimate
    the tau-b bridge instead (normalised by the released diagonal), and the gap between the two
    is what D measures (1 / s_jk - 1, large when a column is mostly ties): the intervals stay
    valid but widen, up to [0, p]. For the tau-b target sin(pi tau_jk / (2 sqrt(t_j t_k))) the
    sampling error of T_jk / sqrt(T_jj T_kk) picks up the factor 1 / sqrt(t_j t_k) plus the
    diagonal's own sampling error, and for discrete columns neither target is the latent
    correlation (their bridges differ): no interval here claims that case.

    Examples
    --------
    >>> from dppca.results.scree_rank import RankBound
    >>> bound = RankBound(n=2000, p=5, sigma=0.02, smallest_normaliser=1.0,
    ...                   diagonal_term=0.0, repair_move=0.0)
    >>> round(bound.halfwidth(0.05), 3)
    0.9
    """

    n: int
    p: int
    sigma: float
    smallest_normaliser: float
    diagonal_term: float
    repair_move: float

    @classmethod
    def from_release(cls, released, bridged, repaired, sigma, n, floor) -> "RankBound":
        """The bound's ingredients from the released tau matrix and its post-processing.

        Parameters
        ----------
        released : ndarray, shape (p, p)
            The released noisy tau-a matrix, diagonal included.
        bridged : ndarray, shape (p, p)
            :func:`dppca.stats.copula_bridge.bridged_matrix` of it (before the repair).
        repaired : ndarray, shape (p, p)
            :func:`dppca.stats.copula_bridge.latent_correlation` of it (after the repair).
        sigma : float
            The release's noise sd.
        n : int
            Rows (public).
        floor : float
            The diagonal floor the bridge used.

        Returns
        -------
        RankBound
            Post-processing of released values only.

        Examples
        --------
        >>> import numpy as np
        >>> from dppca.results.scree_rank import RankBound
        >>> tau = np.array([[0.9, 0.3], [0.3, 1.0]])
        >>> bound = RankBound.from_release(tau, tau, tau, 0.01, 100, 0.05)
        >>> round(bound.smallest_normaliser, 4), round(bound.diagonal_term, 4)
        (0.9487, 0.0765)
        """
        p = released.shape[0]
        if p == 1:  # R = [1]: nothing is estimated
            return cls(int(n), 1, float(sigma), 1.0, 0.0, 0.0)
        diagonal = np.clip(np.diag(released), floor, 1.0)
        off = ~np.eye(p, dtype=bool)
        normaliser = np.sqrt(np.outer(diagonal, diagonal))[off]
        return cls(int(n), p, float(sigma), float(normaliser.min()),
                   float(np.sqrt(np.sum((1.0 / normaliser - 1.0) ** 2))),
                   float(np.linalg.norm(repaired - bridged)))

    def noise_radius(self, alpha=0.05) -> float:
        """The noise radius a: sigma sqrt(2 chi2_q(1 - alpha / 2)), q = p (p - 1) / 2.

        Parameters
        ----------
        alpha : float in (0, 1)
            Twice the miss probability allowed to the noise.

        Returns
        -------
        float
            A (1 - alpha / 2) upper bound of ||N_off||_F (exact quantile).

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> round(RankBound(100, 2, 0.1, 1.0, 0.0, 0.0).noise_radius(), 4)
        0.3170
        """
        entries = self.p * (self.p - 1) / 2
        return 0.0 if entries == 0 else self.sigma * math.sqrt(2.0 * chi2.ppf(1 - alpha / 2,
                                                                               entries))

    def sampling_radius(self, alpha=0.05) -> float:
        """The sampling radius b of the tau-a matrix (Hoeffding decomposition, McDiarmid).

        Parameters
        ----------
        alpha : float in (0, 1)
            Twice the miss probability allowed to the sampling error.

        Returns
        -------
        float
            The radius sqrt(p (p - 1) / m) + p sqrt(log(2 / alpha) / m),
            m = floor(n / 2): a
            (1 - alpha / 2) upper bound of ||T - tau||_F over the off-diagonal entries.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> round(RankBound(2000, 5, 0.0, 1.0, 0.0, 0.0).sampling_radius(), 4)
        0.4451
        """
        pairs, entries = self.n // 2, self.p * (self.p - 1)
        return math.sqrt(entries / pairs) + self.p * math.sqrt(math.log(2 / alpha) / pairs)

    def halfwidth(self, alpha=0.05) -> float:
        """The (1 - alpha) half-width, for every value at once (see the class Notes).

        Parameters
        ----------
        alpha : float in (0, 1)
            Joint miss probability of all the intervals.

        Returns
        -------
        float
            The half-width r + (pi / 2) ((a + b) / s_min + D); 0 when p = 1.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> RankBound(100, 1, 0.1, 1.0, 0.0, 0.0).halfwidth()
        0.0
        """
        if self.p == 1:
            return 0.0
        spread = (self.noise_radius(alpha) + self.sampling_radius(alpha)) / self.smallest_normaliser
        return self.repair_move + 0.5 * math.pi * (spread + self.diagonal_term)

    def noise_sd(self) -> float:
        """First-order noise sd of one eigenvalue: sqrt 2 (pi / 2) sigma / s_min.

        To first order lambda_i moves by v^T E v = 2 sum_{j<k} v_j v_k E_jk, whose variance is
        4 sum_{j<k} v_j^2 v_k^2 Var E_jk <= 2 max Var E_jk (sum_{j != k} v_j^2 v_k^2 <= 1), and
        E_jk has sd at most (pi / 2) sigma / s_min
        (:func:`dppca.privacy.bridge_noise.bridged_noise_sd`). Shown as the values' "std err".

        Returns
        -------
        float
            The sd bound, in eigenvalue units.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> round(RankBound(100, 3, 0.01, 1.0, 0.0, 0.0).noise_sd(), 5)
        0.02221
        """
        return math.sqrt(2.0) * bridged_noise_sd(self.sigma, self.smallest_normaliser)


@dataclass(frozen=True)
class ValueRelease:
    """The released values in the shape :class:`dppca.results.scree.ScreeResult` reads.

    Parameters
    ----------
    estimate : ndarray, shape (k,)
        The values (eigenvalues).
    noise_sd : ndarray, shape (k,)
        Their first-order noise sd.
    lower : ndarray, shape (k,)
        0, the lower end of the range they lie in.
    upper : ndarray, shape (k,)
        The upper end p.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.results.scree_rank import ValueRelease
    >>> ValueRelease(np.array([2.0]), np.array([0.1]), np.zeros(1), np.full(1, 3.0)).upper
    array([3.])
    """

    estimate: np.ndarray
    noise_sd: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


@dataclass(frozen=True)
class RankScreeFit:
    """What the rank scree released: values, mechanism, and the public bound of their error.

    Parameters
    ----------
    release : ValueRelease
        The top-k eigenvalues of the private latent correlation.
    mechanism : str
        Short name for the summary.
    tuning : str
        How the values were made (for the notes).
    bound : RankBound
        The interval's ingredients.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.results.scree_rank import RankBound, RankScreeFit, ValueRelease
    >>> fit = RankScreeFit(ValueRelease(np.ones(1), np.zeros(1), np.zeros(1), np.ones(1)),
    ...                    "none", "none", RankBound(10, 1, 0.0, 1.0, 0.0, 0.0))
    >>> fit.bound.halfwidth()
    0.0
    """

    release: ValueRelease
    mechanism: str
    tuning: str
    bound: RankBound


def rank_values_step(halfwidth, value, step="rank: scree values (post-release)",
                     quantity="PC1's interval half-width / value (95%, noise and sampling; a "
                              "bound, not a median)") -> StepAccuracy:
    """An accuracy row: relative half-width of the rank scree interval (reliable below 1).

    Parameters
    ----------
    halfwidth, value : float
        The interval's half-width and the value it is relative to.
    step, quantity : str
        Row labels.

    Returns
    -------
    StepAccuracy
        Predicted = half-width / value, unit "relative", threshold ``RANK_RELIABLE_LIMIT``.

    Examples
    --------
    >>> rank_values_step(0.5, 2.0).reliable
    True
    """
    return StepAccuracy(step, quantity, float(halfwidth) / max(float(value), np.finfo(float).tiny),
                        "relative", RANK_RELIABLE_LIMIT,
                        "continuous columns (no ties); bound of RankBound",
                        "more rows (sampling part), more eps (noise part) or fewer columns")


class RankScreeResult(ScreeResult):
    """:class:`ScreeResult` of the rank path: latent-correlation eigenvalues, PVE over p.

    Made by :func:`dppca.dp_scree` with ``standardize="rank"``; one method column, "rank".

    Parameters
    ----------
    fit : RankScreeFit
        The released values and their bound.
    ledger : Ledger
        The call's ledger (one Kendall's tau release, plus declared rows).
    directions : pandas.DataFrame, shape (p, k)
        The latent correlation's eigenvectors (same release).
    n_obs : int
        Rows (public).
    eps, delta : float
        The call's budget.
    calibration : str
        Gaussian calibration.
    seed : int or str
        As given.
    nonprivate : dict, optional
        NON-PRIVATE latent eigenvalues ``{"scree": values, "trace": p}``.
    accuracy : AccuracyReport, optional
        The pre-release rows and the directions' post-release row.
    extra_notes : sequence of str
        Extra summary lines.

    Notes
    -----
    ``conf_int(alpha)``: value -/+ :meth:`RankBound.halfwidth` (alpha), clipped to [0, p]; it
    covers the population latent eigenvalues of continuous columns, all k at once, with
    probability at least 1 - alpha at any n (noise and sampling error; proof in
    :class:`RankBound`). ``std_err`` is the first-order noise sd (:meth:`RankBound.noise_sd`).
    ``reliable``: half-width below the value. PVE = value / p, ``total_variance`` p.
    Privacy: everything is post-processing of one (eps, delta)-DP release.

    Examples
    --------
    >>> from dppca import dp_scree, load_gau
    >>> result = dp_scree(load_gau().iloc[:2000, :4], k=2, standardize="rank", eps=1,
    ...                   delta=1e-5, rng=1)
    >>> result.methods, float(result.total_variance["rank"])
    (('rank',), 4.0)
    """

    def __init__(self, fit, *, ledger, directions, n_obs, eps, delta, calibration, seed,
                 nonprivate=None, accuracy=None, extra_notes=()):
        p = directions.shape[0]
        before = [] if accuracy is None else list(accuracy.steps)
        super().__init__({RANK_METHOD: fit}, trace=float("nan"), trace_std_err=float("nan"),
                         ledgers={RANK_METHOD: ledger}, shared_releases=len(ledger),
                         directions=directions, private_directions=True,
                         scale_source="none", n_obs=n_obs, eps=eps, delta=delta,
                         calibration=calibration, seed=seed, mono=True, controls={},
                         nonprivate=nonprivate, extra_notes=extra_notes,
                         accuracy=AccuracyReport(before))
        # Total variance: the trace p of a correlation matrix (public), not a release.
        self.trace, self.trace_std_err = float(p), 0.0
        self.total_variance[RANK_METHOD] = float(p)
        self.pve = self.scree / self.total_variance
        self.cumulative_pve = self.pve.cumsum()
        half = fit.bound.halfwidth()
        self.value_error = pd.DataFrame({RANK_METHOD: half / np.maximum(
            self.raw[RANK_METHOD].to_numpy(), np.finfo(float).tiny)}, index=self.raw.index)
        first = self.raw[RANK_METHOD].iloc[0]
        self.accuracy = AccuracyReport(before + [rank_values_step(half, first)])

    def _reliable_values(self) -> pd.DataFrame:
        """Reliable: the 95% half-width is below the value (its interval excludes 0)."""
        half = self.fits[RANK_METHOD].bound.halfwidth()
        return pd.DataFrame({RANK_METHOD: self.raw[RANK_METHOD] > RANK_RELIABLE_LIMIT * half},
                            index=self.raw.index)

    def conf_int(self, alpha=0.05) -> pd.DataFrame:
        """(1 - alpha) simultaneous intervals value -/+ half-width, clipped to [0, p].

        Parameters
        ----------
        alpha : float in (0, 1)
            Their joint miss probability (at most).

        Returns
        -------
        pandas.DataFrame
            Rows PC1..PCk, columns ("rank", "lower"/"upper").

        Examples
        --------
        >>> from dppca import dp_scree, load_gau
        >>> result = dp_scree(load_gau().iloc[:2000, :4], k=2, standardize="rank", eps=1,
        ...                   delta=1e-5, rng=1)
        >>> bool((result.conf_int() <= 4).all().all())
        True
        """
        raw = self.raw[RANK_METHOD]
        half = self.fits[RANK_METHOD].bound.halfwidth(alpha)
        return pd.DataFrame({(RANK_METHOD, "lower"): np.maximum(raw - half, 0.0),
                             (RANK_METHOD, "upper"): np.minimum(raw + half, self.n_features)},
                            index=raw.index)

    def plot(self, type="scree", plot_control=None, ax=None, alpha=0.05):
        """Draw the scree or PVE plot; the y axis names the latent correlation's eigenvalues.

        Parameters
        ----------
        type : {"scree", "pve"}
            What to draw.
        plot_control : ScreePlotControl, dict or None
            Appearance (:func:`dppca.scree_plot_control`); its ``ylab`` wins when given.
        ax : matplotlib Axes, optional
            Where to draw.
        alpha : float in (0, 1)
            Error bars: the (1 - alpha) intervals of :meth:`conf_int`.

        Returns
        -------
        matplotlib.figure.Figure
            As :meth:`dppca.results.scree.ScreeResult.plot`.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from dppca import dp_scree, load_gau
        >>> result = dp_scree(load_gau().iloc[:2000, :4], k=2, standardize="rank", eps=1,
        ...                   delta=1e-5, rng=1)
        >>> result.plot().axes[0].get_ylabel()
        'Eigenvalue of the latent correlation (trace p)'
        """
        from .._validation import control_arg
        from ..controls import ScreePlotControl

        control = control_arg(plot_control, ScreePlotControl, "plot_control")
        if control.ylab is None and type == "scree":
            control = replace(control, ylab="Eigenvalue of the latent correlation (trace p)")
        return super().plot(type=type, plot_control=control, ax=ax, alpha=alpha)

    def _header(self):
        left, right = super()._header()
        facts = {"Directions": "latent correlation (private, same release)",
                 "Total variance": f"p = {self.n_features} (public: trace of a correlation matrix)"}
        left = [(key, facts.get(key, value)) for key, value in left]
        right = [(key, "scale-free (ranks)" if key == "Scaling" else value)
                 for key, value in right]
        return left, right

    def _tables(self, alpha=0.05):
        tables = super()._tables(alpha)
        if self.has_nonprivate:  # the reference's title names its matrix
            tables[-1].title = f"{NONPRIVATE} reference (sample latent correlation)"
        return tables

    def _notes(self):
        bound = self.fits[RANK_METHOD].bound
        spent = self.combined_ledger
        return [RANK_SCREE_ESTIMAND,
                f"Privacy: one Gaussian release of the elementwise Kendall's tau matrix spends "
                f"eps={spent.spent_eps:.4g}, delta={spent.spent_delta:.4g} (replace-one "
                "neighbours); the directions and the values are post-processing of it.",
                "Intervals value -/+ h, clipped to [0, p], cover the population latent eigenvalues "
                "of continuous columns, all k at once, with probability >= 1 - alpha at any n: "
                f"h = {bound.repair_move:.3g} (repair) + (pi/2) [(noise {bound.noise_radius():.3g}"
                f" + sampling {bound.sampling_radius():.3g}) / {bound.smallest_normaliser:.3g} "
                f"+ diagonal {bound.diagonal_term:.3g}] = {bound.halfwidth():.3g} at alpha = 0.05 "
                "(Weyl, Frobenius norms; proof: dppca.results.scree_rank.RankBound). With tied "
                "columns they bound the bridge of the population tau-a (attenuated by the ties), "
                "which the diagonal term separates from the tau-b values: wide, up to [0, p]. "
                "'std err' is the first-order noise sd.",
                "'reliable' = NO: the interval's half-width reaches the value (it may be 0)."] \
            + self._extra_notes


__all__ = ["RANK_METHOD", "RANK_RELIABLE_LIMIT", "RANK_SCREE_ESTIMAND", "RankBound",
           "RankScreeFit", "RankScreeResult", "ValueRelease", "rank_values_step"]
