"""How much of the tau release's noise the tau-b normalisation and the sine bridge pass on.

The rank path releases the elementwise Kendall's tau-a matrix T plus Gaussian noise of sd sigma
on each entry, then normalises by the released diagonal (tau-b) and bridges each entry with
R_jk = sin(pi t_jk / 2). The largest first-order noise sd that reaches a latent correlation is
one formula, shared by the directions' accuracy model and the scree's values; it lives here.
Everything is arithmetic on public numbers and released values (post-processing), so it sits
with the privacy layer's other noise arithmetic, where both the methods and the results layers
may read it.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["bridged_noise_sd", "smallest_normaliser"]


def smallest_normaliser(released, floor: float) -> float:
    """The smallest tau-b normaliser min_{j != k} sqrt(d_j d_k), d = clip(diagonal, floor, 1).

    Parameters
    ----------
    released : array_like, shape (p, p)
        A released (noisy) tau-a matrix, diagonal included.
    floor : float
        The diagonal floor of :func:`dppca.stats.copula_bridge.latent_correlation`
        (``DIAGONAL_FLOOR``, 0.05).

    Returns
    -------
    float in [floor, 1]
        The product of the two smallest clipped diagonal entries, square-rooted (they give the
        smallest sqrt(d_j d_k) over pairs j != k); 1 when p = 1 (no pair, nothing bridged).

    Examples
    --------
    >>> import numpy as np
    >>> round(smallest_normaliser(np.diag([0.9, 0.4, 1.0]), 0.05), 4)
    0.6
    >>> smallest_normaliser(np.eye(1), 0.05)
    1.0
    """
    diagonal = np.sort(np.clip(np.diag(np.asarray(released, dtype=float)), floor, 1.0))
    if diagonal.size < 2:
        return 1.0
    return math.sqrt(diagonal[0] * diagonal[1])


def bridged_noise_sd(sigma: float, normaliser: float) -> float:
    """Largest first-order sd of the noise on one latent correlation R_jk, j != k.

    Parameters
    ----------
    sigma : float
        The tau release's noise sd (public: the ledger's).
    normaliser : float
        :func:`smallest_normaliser` of the release.

    Returns
    -------
    float
        (pi / 2) sigma / normaliser, in correlation units.

    Notes
    -----
    R_jk = sin(pi t_jk / 2) with t_jk = T~_jk / sqrt(d_j d_k): |d sin(pi t / 2) / dt| <= pi / 2
    and dividing by sqrt(d_j d_k) >= ``normaliser`` multiplies the entry's noise by at most
    1 / ``normaliser``, so noise of sd sigma on T~_jk moves R_jk by at most
    (pi / 2) sigma / ``normaliser`` in sd, to first order (the diagonal's own noise enters
    through d, a released value). Post-processing of the release.

    Examples
    --------
    >>> round(bridged_noise_sd(0.01, 1.0), 5)
    0.01571
    """
    return 0.5 * math.pi * float(sigma) / float(normaliser)
