"""DP-SGGD (Maunu, Yu & Lerman 2022): noisy geodesic gradient descent for least-absolute-deviation PCA."""
from __future__ import annotations

import math

import numpy as np

from .._validation import DPPCAValueError, float_arg, int_arg
from ..privacy import Ledger, gaussian_sigma, split_budget
from ._base import DirectionFit, orient, top_eigen
from ._shared import paired_differences, spherise
from .analyze_gauss import noisy_second_moment
from ..privacy.samplers import add_gaussian_noise

#: Default number of descent iterations T (see the docstring for why it is small).
ITERATIONS = 50
#: Default initial step eta_0; the step halves every HALVING iterations.
STEP_SIZE = 0.05
HALVING = 25
#: Default share of (eps, delta) spent on the Analyze Gauss initialisation (Kim & Jung: 1/2).
INIT_SHARE = 0.5
#: Residuals below this norm are treated as zero (the point lies on the current subspace).
_ZERO_RESIDUAL = 1e-12


def dp_sggd_directions(values: np.ndarray, k: int, *, eps: float, delta: float,
                       rng: np.random.Generator, calibration: str, ledger: Ledger,
                       iterations=ITERATIONS, batch_size=None, step_size=STEP_SIZE,
                       init_share=INIT_SHARE, halving=HALVING) -> DirectionFit:
    """Noisy (stochastic) geodesic gradient descent on the Grassmannian LAD objective.

    Minimises F(V) = (1/m) sum_i ||(I - V V^T) z_i|| over p x k matrices V with orthonormal
    columns, z_i the spatial signs of the m = floor(n/2) paired differences, starting from a
    private Analyze Gauss estimate.

    Parameters
    ----------
    values : ndarray, shape (n, p), n >= 2
    k : int, 1 <= k <= p
    eps, delta : float
        Budget of the call (initialisation and descent).
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}
    ledger : Ledger
    iterations : int, >= 1
        T (default 50).
    batch_size : int, optional
        B in [1, m] (default m, the full batch, i.e. dp-GGD: see Notes).
    step_size : float, > 0
        eta_0 (default 0.05); eta_t = eta_0 / 2^floor(t / halving) (the halving schedule of
        Maunu et al.'s experiments).
    halving : int, >= 1
        Iterations between halvings of the step (default 25; the paper's experiments: 50,
        with T = N iterations).
    init_share : float in (0, 1)
        Share of (eps, delta) spent on the initialisation (default 1/2, as Kim & Jung).

    Returns
    -------
    DirectionFit
        V_T, its columns rotated within the subspace to the eigenvectors of V^T M V, M the
        released initial matrix (post-processing, so that PC1 comes first); eigenvalues are
        those of V^T M V.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Bad options (e.g. ``batch_size`` larger than m).

    Notes
    -----
    Privacy (replace-one, n public). The spatial sign of a paired difference is a per-pair
    map, so one replaced row changes one z_i (||z_i|| <= 1).

    1. Initialisation, (init_share eps, init_share delta): Analyze Gauss on the z_i, whose
       norm bound 1 is exact and public, so no private bound is needed; Frobenius sensitivity
       sqrt(2)/m. Maunu et al. initialise with an unaccounted "dp-PCA"; here it is charged.
    2. Descent, the rest: the descent direction of one point, Q z z^T V / ||Q z|| with
       Q = I - V V^T, is u a^T with u a unit vector and a = V^T z, ||a|| <= 1, so two such
       terms differ by at most 2 in Frobenius norm: a batch mean moves by at most 2/B. Points
       with zero residual contribute 0 (REAPER's convention). Each point enters at most E steps
       (E = T for the full batch; with B < m, batches are disjoint within each epoch of a
       random permutation, E = ceil(T / floor(m/B))). E adaptive Gaussian releases with
       sensitivity 2/B and the same sigma compose to one Gaussian mechanism with sensitivity
       2 sqrt(E)/B (Gaussian DP, Dong, Roth & Su 2022, Cor. 3.3): sigma = gaussian_sigma(2
       sqrt(E)/B, ...). Basic composition of 1 and 2 gives (eps, delta).

    Corrections to the printed algorithm: the paper's "gradient" Q x x^T V / ||Q x|| is minus
    the gradient of ||Q x||, so the step is V + eta (direction + noise), not V - eta (...);
    the initialisation's budget is accounted; no amplification by subsampling is claimed
    (Maunu et al.'s moments-accountant noise B sqrt(T log(1/delta))/(n^2 eps) is not used).
    Without amplification a mini-batch does not lower the noise (per step it grows as
    sqrt(m/B)), hence the full-batch default. T = 50 and eta_0 = 0.05 rather than Kim & Jung's
    T = n^2 single-sample steps with eta = 1/n^2: sigma grows as sqrt(T), 10^6 Python-level
    steps per fit are far too slow. (T, eta_0) = (50, 0.05) was the best of 15 candidates
    (T in 1..300, eta_0 in 0.02..2, init share 0.3..0.99) on Kim & Jung's design at d = 10,
    n = 1500, eps = 0.5, and the best or within 2% of the best of 11 candidates off their grid
    (d = 8, n = 1200; 15 data sets per distribution): the descent then improves on its
    half-budget initialisation by 20-25%, while larger steps let the noise undo it. At such
    (n, eps) spending more of the budget on the initialisation can do better still: without
    amplification the descent's noise is the bottleneck.

    Maunu et al.'s own regime (benchmarks/reproduce_maunu.py: haystack model, r = 2, D = 20,
    N = 2000, inlier ratio 0.5, eps = 0.8, delta = 1/N, 50 data sets; log10 d^2 of the final
    iterate, median [quartiles]): the default reaches -3.22 [-3.30, -3.07]; the paper's
    stochastic schedule (T = N = 2000 steps, B = 20, eta_k = 2^-floor(k/50)) with our
    accounting 0.54 [0.49, 0.57], a random subspace, also with eta_0 = 0.05 (0.51); the
    Analyze Gauss start alone -1.53. Without amplification by subsampling each point enters
    E = 40 batches of 20, so each step's noise has sd 2 sqrt(40)/20 u(eps) against the full
    batch's 2 sqrt(50)/1000 u(eps) (u = the Gaussian mechanism's multiplier): 45 times more
    per step, which 2000 small steps do not average away. The full-batch default is kept.

    Cost: O(T B p k + T p k^2) time after the O(n p^2 + p^3) initialisation; O(m p) memory.

    References
    ----------
    Maunu, T., Yu, C. and Lerman, G. (2022). Stochastic and private nonconvex outlier-robust
    PCA. MSML 2022, Algorithms 1-2, Theorem 6. Kim, M. and Jung, S. (2025), Appendix C.3.
    """
    signs = spherise(paired_differences(values, rng))
    m, p = signs.shape
    T = int_arg(iterations, "iterations", 1)
    B = m if batch_size is None else int_arg(batch_size, "batch_size", 1)
    if B > m:
        raise DPPCAValueError(f"`batch_size` must be at most floor(n/2) = {m} (the number of "
                              f"paired differences); got {B}")
    eta0 = float_arg(step_size, "step_size", positive=True)
    halving = int_arg(halving, "halving", 1)
    parts = split_budget(eps, delta, {"init": float_arg(init_share, "init_share", open_unit=True),
                                      "descent": 1 - init_share})
    start, _, _ = noisy_second_moment(signs, 1.0, *parts["init"], rng, calibration, ledger,
                                      step="directions: Analyze Gauss initialisation on spatial "
                                           "signs of paired differences")
    batches, uses = _batches(m, B, T, rng)
    sensitivity = 2.0 * math.sqrt(uses) / B
    sigma = gaussian_sigma(sensitivity, *parts["descent"], calibration)
    ledger.record(f"directions: {T} noisy geodesic gradient steps (composed)",
                  f"Gaussian ({calibration})", sensitivity, "Frobenius", sigma, *parts["descent"])
    V = top_eigen(start, k)[1]
    for t, batch in enumerate(batches):
        step = eta0 / 2 ** (t // halving)
        direction = noisy_descent(signs[batch], V, sigma, rng)
        V = _polar(V + step * direction)
    eigenvalues, rotation = top_eigen(V.T @ start @ V, k)
    return DirectionFit(orient(V @ rotation), eigenvalues, f"Gaussian ({calibration})",
                        sensitivity, sigma,
                        notes=[f"DP-SGGD: Analyze Gauss start, then {T} noisy geodesic steps with "
                               f"batches of {B} of {m} spatial signs of paired differences; "
                               "eigenvalues are those of the initial release restricted to the "
                               "final subspace."])


def _batches(m: int, B: int, T: int, rng):
    """Row indices of each step and the largest number of steps any row enters."""
    if B == m:
        return [slice(None)] * T, T
    per_epoch = m // B
    epochs = math.ceil(T / per_epoch)
    orders = [rng.permutation(m) for _ in range(epochs)]
    batches = [orders[t // per_epoch][(t % per_epoch) * B:(t % per_epoch + 1) * B] for t in range(T)]
    return batches, epochs


def noisy_descent(points: np.ndarray, V: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """One DP-SGGD step's release: :func:`descent_direction` of a batch plus Gaussian noise.

    The method's own noise line, public by signature so that the privacy audit runs it
    (dppca/audit/releases_methods.py): a noise weakened here is seen there.

    Parameters
    ----------
    points : ndarray, shape (B, p)
        The batch: spatial signs (rows of norm <= 1).
    V : ndarray, shape (p, k)
        The current iterate (orthonormal columns; public: a function of earlier releases).
    sigma : float, > 0
        Noise sd, calibrated by the caller for the step's Frobenius sensitivity 2/B (composed
        over the steps a row enters).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (p, k)
        The noisy descent direction.

    Notes
    -----
    Privacy: replacing one point moves the direction by at most 2/B in Frobenius norm
    (:func:`descent_direction`); N(0, sigma^2) noise on each of the p k entries through the
    floating-point-safe sampler :func:`dppca.privacy.samplers.add_gaussian_noise` makes the step
    a Gaussian mechanism of parameter mu = (2/B) / sigma (Maunu, Yu & Lerman 2022, Algorithm 2).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.methods.dp_sggd import noisy_descent
    >>> noisy_descent(np.eye(3), np.eye(3)[:, :1], 0.1, np.random.default_rng(0)).shape
    (3, 1)
    """
    B = points.shape[0]
    return add_gaussian_noise(descent_direction(points, V, B), sigma, 2.0 / B, rng)[0]


def descent_direction(points: np.ndarray, V: np.ndarray, B: int) -> np.ndarray:
    """(1/B) sum_z Q z (z^T V) / ||Q z||: minus the gradient of F, zero residuals skipped.

    Each term is u a^T with ||u|| = 1 and ||a|| = ||V^T z|| <= 1 for ||z|| <= 1, so replacing
    one point moves the result by at most 2/B in Frobenius norm (the step's sensitivity).
    """
    coords = points @ V
    residuals = points - coords @ V.T
    norms = np.sqrt(np.einsum("ij,ij->i", residuals, residuals))
    weights = np.where(norms > _ZERO_RESIDUAL, 1.0 / np.where(norms > 0, norms, 1.0), 0.0)
    return (residuals * weights[:, None]).T @ coords / B


def _polar(A: np.ndarray) -> np.ndarray:
    """Nearest matrix with orthonormal columns, U W^T from A = U S W^T (the retraction)."""
    U, _, Wt = np.linalg.svd(A, full_matrices=False)
    return U @ Wt

__all__ = ["descent_direction", "dp_sggd_directions", "noisy_descent"]
