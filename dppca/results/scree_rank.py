"""The rank path's scree result: eigenvalues of the private latent correlation, with intervals.

On the rank path (``dp_scree(X, k, standardize="rank")``) the scree values are the top-k
eigenvalues of the latent Gaussian-copula correlation matrix estimated from ONE private release
of the elementwise Kendall's tau matrix (the release the directions come from). Its trace is p
(public), so PVE = value / p exactly. The intervals bound the distance to the eigenvalues of the
population R = sin(pi tau_b / 2), tau_b the population Kendall's tau-b (the latent correlation for
continuous columns; with ties, what the rank path's tau-b normalisation estimates), from public
numbers and released values only
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
from .rank_concentration import bernstein_radius, untied_share_interval, weighted_chi2_bound
from ..privacy.neighbouring import relation_label
from .base import NONPRIVATE
from .scree import ScreeResult

#: The estimand, as every rank scree summary states it.
RANK_SCREE_ESTIMAND = ("Estimand: eigenvalues of the latent Gaussian-copula correlation matrix "
                       "(Han & Liu 2012); PVE over its trace p (public).")
#: The result's only method column.
RANK_METHOD = "rank"
#: Share of the miss probability alpha given to the tie shares' two events (sampling and noise
#: of the released diagonal, half each); the noise and the sampling of the off-diagonal entries
#: get (1 - SHARE_ALPHA) / 2 each. The shares enter the half-width only through log(1 / alpha)
#: terms of their intervals' ends, the other two through their radii: a tenth is enough.
SHARE_ALPHA = 0.1
#: A value whose relative interval half-width (half-width / value) reaches this is unreliable:
#: its interval then reaches 0, so the data do not show it to be positive.
RANK_RELIABLE_LIMIT = 1.0


#: Share of alpha of each of the two off-diagonal events (noise, sampling).
_OFF_DIAGONAL = (1.0 - SHARE_ALPHA) / 2.0
#: Floors phi of the sampling step's normalisation S'_jk = sqrt(max(t_j, phi) max(t_k, phi))
#: (the bridge's own floor, raised to it): phi = the bridge's floor suits heavily tied columns
#: (their tau-a entries are small with small variance), phi = 1 (no normalisation) columns
#: with few ties (no factor from uncertain shares). Each gets half the sampling's alpha.
SAMPLING_FLOORS = (0.0, 1.0)


@dataclass(frozen=True, eq=False)
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
        D = sqrt(sum_{j != k} (1 / sqrt(d_j d_k) - 1)^2), how far the tau-b normalisation moves
        the tau-a values (0 without ties and noise; post-processing). Shown in the summary as
        a measure of the ties; not a part of the half-width.
    repair_move : float
        How far the repair moved the bridged matrix, ||R_hat - B||_F, B before the repair,
        R_hat after it (post-processing).
    released_diagonal : ndarray, shape (p,), optional
        The released diagonal M_jj (unclipped). Default: all ones (no ties, no noise read).
    ratios : ndarray, shape (p, p), optional
        c_jk = |M_jk| / s_jk off the diagonal (0 on it). Default: all 0.
    floor : float in (0, 1]
        The diagonal floor of the normalisation
        (:data:`dppca.stats.copula_bridge.DIAGONAL_FLOOR`).
    largest_weight : float, optional
        For an incomplete U-statistic over a block design: the largest weight of one
        independent kernel (:func:`dppca.stats.elementwise_kendall_blocks_design.largest_kernel_weight`),
        with ``n`` twice the design's m
        (:func:`dppca.stats.elementwise_kendall_blocks_design.hoeffding_pairs`). Default: the
        complete statistic (m = floor(n / 2) equal weights).

    Notes
    -----
    Target: lambda_i(R), R_jk = sin(pi beta_jk / 2) for j != k, R_jj = 1, with
    beta_jk = tau_jk / sqrt(t_j t_k) the population Kendall's tau-b: tau_jk = E[sign(X_j - X'_j)
    sign(X_k - X'_k)] the population tau-a and t_j = tau_jj = P(X_j != X'_j) the population
    share of untied pairs (beta_jk = 0 where t_j t_k = 0), for i.i.d. rows X, X'. By
    Cauchy-Schwarz |tau_jk| <= sqrt(t_j t_k), so beta_jk is in [-1, 1]. Without ties (continuous
    margins) t = 1, beta = tau and, under a Gaussian copula, R is its latent correlation matrix
    (Han & Liu 2012, Lemma 2.1); with ties R is what the rank path's tau-b normalisation and sine
    bridge estimate (:func:`dppca.stats.copula_bridge.latent_correlation`). Released:
    M = T + N, T the sample tau-a matrix with its diagonal T_jj (the sample share of untied
    pairs), N symmetric with N_jk ~ N(0, sigma^2) independent for j <= k. The estimate is
    R_hat = P(B), P the nearest correlation matrix, B_jk = sin(pi b_jk / 2) off the diagonal
    (B_jj = 1), b_jk = clip(M_jk / s_jk, -1, 1), s_jk = sqrt(d_j d_k), d_j = clip(M_jj, f, 1),
    f = ``floor``.

    Claim: with probability at least 1 - alpha, for every i simultaneously,
    |lambda_i(R_hat) - lambda_i(R)| <= :meth:`halfwidth` (alpha)
    = r + (pi / 2) (g b + a + o), r = ``repair_move``, b = :meth:`sampling_radius`,
    a = :meth:`noise_radius`, g and o of steps (2) and (4) (all in :meth:`parts`);
    the tie shares' two events below get ``SHARE_ALPHA`` alpha together, the noise and the
    sampling (1 - ``SHARE_ALPHA``) alpha / 2 each.

    Proof. (1) Tie shares (:func:`dppca.results.rank_concentration.untied_share_interval`, events
    E_T on T_jj - t_j and E_N on N_jj): with probability >= 1 - ``SHARE_ALPHA`` alpha,
    l_j <= t_j <= u_j for every j, [l, u] computed from the released diagonal alone. On that
    event rho_jk = sqrt(t_j t_k) / s_jk lies in [sqrt(l_j l_k), sqrt(u_j u_k)] / s_jk, so
    |rho_jk - 1| <= gamma_jk := max(sqrt(u_j u_k) / s_jk - 1, 1 - sqrt(l_j l_k) / s_jk, 0).
    (2) Entrywise, j != k: clipping to [-1, 1] is the projection onto an interval that holds
    beta_jk, so |b_jk - beta_jk| <= Y_jk := |M_jk / s_jk - beta_jk|. With a public floor
    phi >= f (one of :data:`SAMPLING_FLOORS`, raised to f), t'_j = max(t_j, phi),
    S'_jk = sqrt(t'_j t'_k) and E = T - tau,
    M_jk / s_jk - beta_jk = rho'_jk E_jk / S'_jk + N_jk / s_jk + beta_jk (rho_jk - 1),
    rho'_jk = S'_jk / s_jk <= sqrt(max(u_j, phi) max(u_k, phi)) / s_jk =: rho+_jk (on the event
    of (1)), because tau_jk / s_jk = beta_jk rho_jk. Write A_jk = rho'_jk |E_jk| / S'_jk
    + |N_jk| / s_jk. With |beta_jk| <= 1: Y_jk <= A_jk + gamma_jk. If gamma_jk < 1, also
    Y_jk <= (A_jk + gamma_jk min(c_jk, 1)) / (1 - gamma_jk), c_jk = |M_jk| / s_jk: where
    c_jk + Y_jk <= 1, |beta_jk| <= c_jk + Y_jk (beta = M / s - (M / s - beta)) gives it by
    solving for Y_jk; otherwise Y_jk <= A_jk + gamma_jk, and c_jk > 1 - Y_jk
    >= 1 - A_jk - gamma_jk makes (A_jk + gamma_jk min(c_jk, 1)) / (1 - gamma_jk) at least
    A_jk + gamma_jk. So Y_jk <= w_jk A_jk + o_jk with (w, o) = (1 / (1 - gamma),
    gamma min(c, 1) / (1 - gamma)) where gamma_jk < 1/2 and (1, gamma) elsewhere; w depends on
    the released diagonal only. By the triangle inequality over the off-diagonal entries,
    ||b - beta||_F <= g ||E_off / S'||_F + ||w N_off / s||_F + ||o||_F,
    g = max_{j != k} w_jk rho+_jk.
    (3) Noise (event E_O, alpha' = (1 - ``SHARE_ALPHA``) alpha / 2): given the data and the
    diagonal noise, the N_jk, j < k, are independent N(0, sigma^2) and w, s are fixed, so
    ||w N_off / s||_F^2 = sum_{j<k} 2 w_jk^2 sigma^2 Z_jk^2 / s_jk^2 is at most
    :func:`dppca.results.rank_concentration.weighted_chi2_bound` with probability
    >= 1 - alpha': a is its square root.
    (4) Sampling (events E_S, alpha' / 2 for each floor phi): E_off / S' is a U-statistic of
    the kernel (u_j u_k / S'_jk)_{j != k}, u = sign(x - x'), S' fixed (population). Its variance
    is at most sum_{j != k} E[u_j^2 u_k^2] / (t'_j t'_k) <= sum_{j != k} min(t_j, t_k) /
    (t'_j t'_k) <= v := sum_{j != k} 1 / max(t'_j, t'_k), and its norm at most
    sqrt((sum 1 / t')^2 - sum 1 / t'^2), its mean's at most sqrt(p (p - 1)) (|tau_jk| <=
    sqrt(t_j t_k) <= S'_jk): a_S := their sum bounds the centred kernel.
    :func:`dppca.results.rank_concentration.bernstein_radius` (v, a_S, floor(n / 2),
    alpha' / 2) bounds ||E_off / S'||_F with probability >= 1 - alpha' / 2 (so does McDiarmid's
    radius, see :meth:`sampling_radius`; the smaller is taken); v, a_S and the McDiarmid radius
    decrease in every t'_j, so on the event of (1) the radius computed at t' = max(l, phi) is at
    least them. With both floors' events, g b is the smaller of the two floors' products.
    Over a block design (drawn independently of the rows) the same steps hold with m the
    design's :func:`dppca.stats.elementwise_kendall_blocks_design.hoeffding_pairs` and
    Bernstein's linear term at the largest kernel weight (``largest_weight``), in steps (1) and
    (4): the incomplete statistic is an average of weighted sums of independent kernels, the
    decomposition Hoeffding's bound rests on, so its larger variance than the complete
    statistic's is covered (the complete statistic's bound never used its extra averaging).
    (5) Bridge: |sin(pi x / 2) - sin(pi y / 2)| <= (pi / 2) |x - y|, so
    ||B - R||_F <= (pi / 2) ||b - beta||_F (both diagonals are 1).
    (6) Repair: ||R_hat - R||_F <= r + ||B - R||_F (kept because the repair is iterative and
    R need not be positive semi-definite with ties). (7) Weyl:
    |lambda_i(R_hat) - lambda_i(R)| <= ||R_hat - R||_2 <= ||R_hat - R||_F. A union bound over
    E_T, E_N, E_O and the two E_S gives the claim. The values lie in [0, p], so the interval is
    clipped to it. Nothing assumes continuous margins: a heavily tied column widens the
    interval only through its own shares (small s_jk, wide [l_j, u_j]) and the entries it
    touches.

    Examples
    --------
    >>> from dppca.results.scree_rank import RankBound
    >>> bound = RankBound(n=2000, p=5, sigma=0.02, smallest_normaliser=1.0,
    ...                   diagonal_term=0.0, repair_move=0.0)
    >>> round(bound.halfwidth(0.05), 3)
    1.063
    """

    n: int
    p: int
    sigma: float
    smallest_normaliser: float
    diagonal_term: float
    repair_move: float
    released_diagonal: np.ndarray | None = None
    ratios: np.ndarray | None = None
    floor: float = 0.05
    largest_weight: float | None = None

    @classmethod
    def from_release(cls, released, bridged, repaired, sigma, n, floor,
                     largest_weight=None) -> "RankBound":
        """The bound's ingredients from the released tau matrix and its post-processing.

        Parameters
        ----------
        released : ndarray, shape (p, p)
            The released noisy tau-a matrix, diagonal included.
        bridged : ndarray, shape (p, p)
            The bridged matrix before the repair
            (:func:`dppca.stats.copula_bridge.bridged_matrix`).
        repaired : ndarray, shape (p, p)
            The repaired latent correlation.
        sigma : float
            The release's noise sd.
        n : int
            Rows.
        floor : float
            The diagonal floor used by the bridge.
        largest_weight : float, optional
            The block design's largest kernel weight (None: the complete statistic).

        Returns
        -------
        RankBound
            Its released diagonal, the ratios c_jk = |M_jk| / s_jk, s_min, D and the repair
            move.

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
            return cls(int(n), 1, float(sigma), 1.0, 0.0, 0.0, np.ones(1), np.zeros((1, 1)),
                       float(floor), largest_weight)
        released = (released + released.T) / 2.0
        diagonal = np.clip(np.diag(released), floor, 1.0)
        normaliser = np.sqrt(np.outer(diagonal, diagonal))
        off = ~np.eye(p, dtype=bool)
        ratios = np.where(off, np.abs(released) / normaliser, 0.0)
        return cls(int(n), p, float(sigma), float(normaliser[off].min()),
                   float(np.sqrt(np.sum((1.0 / normaliser[off] - 1.0) ** 2))),
                   float(np.linalg.norm(repaired - bridged)), np.diag(released).copy(), ratios,
                   float(floor), largest_weight)

    def shares(self, alpha=0.05):
        """Simultaneous intervals [l_j, u_j] of the population untied shares t_j (step 1).

        Parameters
        ----------
        alpha : float in (0, 1)
            The joint miss probability of the whole bound; the shares get ``SHARE_ALPHA`` alpha.

        Returns
        -------
        lower, upper : ndarray, shape (p,)
            :func:`dppca.results.rank_concentration.untied_share_interval` with
            ``SHARE_ALPHA`` alpha / 2 for the sampling and as much for the noise.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> lower, upper = RankBound(2000, 2, 0.0, 1.0, 0.0, 0.0).shares()
        >>> float(upper[0]), bool(lower[0] > 0.98)
        (1.0, True)
        """
        diagonal = np.ones(self.p) if self.released_diagonal is None else self.released_diagonal
        return untied_share_interval(diagonal, self.n, self.sigma, SHARE_ALPHA * alpha / 2,
                                     SHARE_ALPHA * alpha / 2, self.largest_weight)

    def _entries(self, alpha):
        """Off-diagonal s, w and o of steps (1)-(2), and the shares' ends l, u (shape (p,))."""
        lower, upper = self.shares(alpha)
        diagonal = np.ones(self.p) if self.released_diagonal is None else self.released_diagonal
        ratios = np.zeros((self.p, self.p)) if self.ratios is None else self.ratios
        clipped = np.clip(diagonal, self.floor, 1.0)
        s = np.sqrt(np.outer(clipped, clipped))
        gamma = np.maximum.reduce([np.sqrt(np.outer(upper, upper)) / s - 1.0,
                                   1.0 - np.sqrt(np.outer(lower, lower)) / s,
                                   np.zeros_like(s)])
        small = gamma < 0.5
        weight = np.where(small, 1.0 / (1.0 - np.minimum(gamma, 0.5)), 1.0)
        offset = np.where(small, gamma * np.minimum(ratios, 1.0) * weight, gamma)
        off = ~np.eye(self.p, dtype=bool)
        return s[off], weight[off], offset[off], lower, upper

    def _sampling(self, alpha, floor):
        """(g, b) of step (4) for the normalisation floor phi = ``floor``, at level alpha' / 2."""
        s, weight, _, lower, upper = self._entries(alpha)
        off = ~np.eye(self.p, dtype=bool)
        high = np.maximum(upper, floor)
        factor = float(np.max(weight * np.sqrt(np.outer(high, high))[off] / s))
        shares = np.maximum(lower, floor)
        level, m = _OFF_DIAGONAL * alpha / len(SAMPLING_FLOORS), self.n // 2
        variance = float(np.sum(1.0 / np.maximum.outer(shares, shares)[off]))
        inverse = 1.0 / shares
        bound = math.sqrt(inverse.sum() ** 2 - np.sum(inverse ** 2)) + \
            math.sqrt(self.p * (self.p - 1))
        mcdiarmid = math.sqrt(variance / m) + inverse.sum() * math.sqrt(math.log(1 / level) / m)
        return factor, min(bernstein_radius(variance, bound, m, level, self.largest_weight),
                           mcdiarmid)

    def _best_sampling(self, alpha):
        return min((self._sampling(alpha, max(phi, self.floor)) for phi in SAMPLING_FLOORS),
                   key=lambda pair: pair[0] * pair[1])

    def noise_radius(self, alpha=0.05) -> float:
        """The noise radius a: a (1 - alpha') bound of ||w N_off / s||_F (step 3).

        Parameters
        ----------
        alpha : float in (0, 1)
            The joint miss probability of the whole bound (the noise gets
            alpha' = (1 - ``SHARE_ALPHA``) alpha / 2).

        Returns
        -------
        float
            sqrt of :func:`dppca.results.rank_concentration.weighted_chi2_bound` with the
            weights 2 w_jk^2 sigma^2 / s_jk^2, j < k; 0 when p = 1.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> round(RankBound(100, 2, 0.1, 1.0, 0.0, 0.0).noise_radius(), 4)
        0.3227
        """
        if self.p == 1:
            return 0.0
        s, weight = self._entries(alpha)[:2]
        upper = np.triu(np.ones((self.p, self.p), dtype=bool), 1)[~np.eye(self.p, dtype=bool)]
        weights = 2.0 * (weight[upper] * self.sigma / s[upper]) ** 2
        return math.sqrt(weighted_chi2_bound(weights, _OFF_DIAGONAL * alpha))

    def sampling_radius(self, alpha=0.05) -> float:
        """The sampling radius b: a (1 - alpha' / 2) bound of ||(T - tau)_off / S'||_F (step 4).

        Parameters
        ----------
        alpha : float in (0, 1)
            The joint miss probability of the whole bound (the sampling gets
            alpha' = (1 - ``SHARE_ALPHA``) alpha / 2, half to each normalisation floor).

        Returns
        -------
        float
            For the floor phi in :data:`SAMPLING_FLOORS` whose g b is the smaller: the smaller
            of :func:`dppca.results.rank_concentration.bernstein_radius` (v, a_S, m, alpha' / 2)
            and the McDiarmid radius sqrt(v / m) + W sqrt(log(2 / alpha') / m),
            W = sum_j 1 / t'_j, m = floor(n / 2), at t' = max(l, phi); 0 when p = 1.

        Notes
        -----
        McDiarmid (step 4's alternative; Hoeffding 1963, Section 5, for the U-statistic: the
        exponential of lam ||.|| is convex, so the mean of m disjoint pairs' kernels W bounds
        the U-statistic's moment generating function): one pair moves ||W_off / S'||_F by at
        most c = sqrt(2) W / m (||a a^T - b b^T||_F^2 = ||a||^4 + ||b||^4 - 2 (a.b)^2
        <= 2 W^2 for a = u / sqrt(t'), ||a||^2 <= W), so P(||.|| >= E ||.|| + x)
        <= exp(-2 x^2 / (m c^2)) = exp(-x^2 m / W^2), and E ||.|| <= sqrt(v / m). Both radii
        are deterministic bounds of the same quantity at the same level, so their minimum is
        one; each floor has its own event (alpha' / 2 each), so the smaller product is one too.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> round(RankBound(2000, 5, 0.0, 1.0, 0.0, 0.0).sampling_radius(), 4)
        0.4709
        """
        return 0.0 if self.p == 1 else self._best_sampling(alpha)[1]

    def parts(self, alpha=0.05) -> dict:
        """The half-width's parts: r, g, b, a, o (class Notes) and the half-width itself.

        Parameters
        ----------
        alpha : float in (0, 1)
            The joint miss probability of the whole bound.

        Returns
        -------
        dict
            ``repair`` r, ``factor`` g = max_{j != k} w_jk rho+_jk (for the floor of
            :meth:`sampling_radius`: how the tie shares' uncertainty scales the sampling),
            ``sampling`` b, ``noise`` a, ``tie`` o = ||o_jk||_F (what the tie shares'
            uncertainty can move the tau-b values) and ``halfwidth``; g = 1 and the others 0
            when p = 1.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> parts = RankBound(2000, 5, 0.0, 1.0, 0.0, 0.0).parts()
        >>> parts["factor"] > 1, parts["tie"]  # c = 0: nothing for the shares to move
        (True, 0.0)
        """
        if self.p == 1:
            return {"repair": 0.0, "factor": 1.0, "sampling": 0.0, "noise": 0.0, "tie": 0.0,
                    "halfwidth": 0.0}
        factor, sampling = self._best_sampling(alpha)
        noise, tie = self.noise_radius(alpha), float(np.linalg.norm(self._entries(alpha)[2]))
        return {"repair": self.repair_move, "factor": factor, "sampling": sampling,
                "noise": noise, "tie": tie, "halfwidth": self.repair_move
                + 0.5 * math.pi * (factor * sampling + noise + tie)}

    def halfwidth(self, alpha=0.05) -> float:
        """The (1 - alpha) half-width, for every value at once (see the class Notes).

        Parameters
        ----------
        alpha : float in (0, 1)
            Joint miss probability of all the intervals.

        Returns
        -------
        float
            r + (pi / 2) (g b + a + o); 0 when p = 1.

        Examples
        --------
        >>> from dppca.results.scree_rank import RankBound
        >>> RankBound(100, 1, 0.1, 1.0, 0.0, 0.0).halfwidth()
        0.0
        """
        return self.parts(alpha)["halfwidth"]

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
                        "tau-b target, ties allowed (the plan reads none); bound of RankBound",
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
    covers the population values (eigenvalues of sin(pi tau_b / 2), the latent correlation's for
    continuous columns; ties allowed), all k at once, with
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
        parts = self.fits[RANK_METHOD].bound.parts()
        spent = self.combined_ledger
        return [RANK_SCREE_ESTIMAND,
                f"Privacy: one Gaussian release of the elementwise Kendall's tau matrix "
                f"{'(after the noisy row count) ' if relation_label(spent) == 'add/remove' else ''}"
                f"spends "
                f"eps={spent.spent_eps:.4g}, delta={spent.spent_delta:.4g} "
                f"({relation_label(spent)} neighbours); the directions and the values are "
                "post-processing of it.",
                "Intervals value -/+ h, clipped to [0, p], cover the population values, all k at "
                "once, with probability >= 1 - alpha at any n, ties allowed: the eigenvalues of "
                "sin(pi tau_b / 2), tau_b the population Kendall's tau-b (the latent correlation "
                "for continuous columns). "
                f"h = {parts['repair']:.3g} (repair) + (pi/2) [{parts['factor']:.3g} x "
                f"sampling {parts['sampling']:.3g} + noise {parts['noise']:.3g} + "
                f"tie shares {parts['tie']:.3g}] = {parts['halfwidth']:.3g} at alpha = 0.05 "
                "(Weyl, Frobenius norms; the factor and the tie-share term come from the "
                "uncertain shares of untied pairs, the released diagonal; proof: "
                "dppca.results.scree_rank.RankBound). 'std err' is the first-order noise sd.",
                "'reliable' = NO: the interval's half-width reaches the value (it may be 0)."] \
            + self._extra_notes


__all__ = ["RANK_METHOD", "RANK_RELIABLE_LIMIT", "RANK_SCREE_ESTIMAND", "RankBound",
           "RankScreeFit", "RankScreeResult", "ValueRelease", "rank_values_step"]
