"""End-to-end attacks through the public API: the offset-data attack on floating-point sums."""
from __future__ import annotations

import numpy as np

from .distinguishing import DistinguishingResult, eps_lower_bound

#: The offset data: one column at offset 6.22e8 with sd 4.28, n = 43 (prefix sums of squares
#: cancel catastrophically at this offset-to-spread ratio); the neighbour replaces row 0 by 0.
#: Seed 178 is a draw on which a prefix-sum computation read 65.2 for a statistic that must
#: lie in [0, 1].
OFFSET, SPREAD, N_ROWS, SEED = 6.22e8, 4.28, 43, 178
#: Public clip and budget of the attacked call.
C_CLIP, EPS, DELTA = 6e-4, 1.0, 1e-5


def offset_neighbours() -> tuple[np.ndarray, np.ndarray]:
    """The neighbours of the offset attack: an offset column, and the same with row 0 set to 0.

    Returns
    -------
    D : ndarray, shape (43, 1)
        6.22e8 + 4.28 z with z standard normal (fixed seed): data far from the origin.
    D_prime : ndarray, shape (43, 1)
        D with row 0 replaced by 0 (a replace-one neighbour).

    See Also
    --------
    offset_attack : The distinguishing test on these neighbours.
    dppca.audit.neighbour_search : Searches such pairs for every registered release.

    Examples
    --------
    >>> from dppca.audit import offset_neighbours
    >>> D, D_prime = offset_neighbours()
    >>> D.shape, int((D != D_prime).sum())
    ((43, 1), 1)
    """
    D = (OFFSET + SPREAD * np.random.default_rng(SEED).standard_normal(N_ROWS))[:, None]
    D_prime = D.copy()
    D_prime[0] = 0.0
    return D, D_prime


def offset_attack(runs: int = 2000, seed: int = 0) -> DistinguishingResult:
    """The eps_lb of ``dp_scree(X, 1, "clipped", clipped_control(C_clip=6e-4), eps=1, delta=1e-5)``.

    The directions are fixed and public: with p = 1 the only direction is (1), passed as a
    :class:`PCDirections` from ``dp_pc_dir`` so that no budget goes to them. ``runs`` releases
    per neighbour, raw (``mono=False``) scree value as the test statistic (the threshold half
    orients it), Clopper-Pearson bounds on the other half.

    Parameters
    ----------
    runs : int
        Releases per neighbour.
    seed : int
        Seed of the releases.

    Returns
    -------
    DistinguishingResult
        The bound; eps_lb was 5.60 before the block-relative pair statistics (commit e9b978e),
        0 after.

    See Also
    --------
    offset_neighbours : The two datasets.
    distinguishing_audit : The test.

    Examples
    --------
    >>> from dppca.audit import offset_attack
    >>> offset_attack(runs=100).eps_lb <= 1
    True
    """
    from ..directions import dp_pc_dir
    from ..scree import dp_scree
    from ..controls import clipped_control

    control = clipped_control(C_clip=C_CLIP)
    outputs = []
    for side, X in enumerate(offset_neighbours()):
        directions = dp_pc_dir(X, 1, g_dppca=False)
        outputs.append(np.array([
            dp_scree(X, 1, method="clipped", control=control, eps=EPS, delta=DELTA, mono=False,
                     g_dppca=False,
                     rng=seed * 1_000_003 + side * runs + r, directions=directions).scree.iloc[0, 0]
            for r in range(runs)]))
    out_d, out_p = outputs
    half = runs // 2
    sign = 1.0 if np.mean(out_p[:half]) >= np.mean(out_d[:half]) else -1.0
    return eps_lower_bound(sign * out_d, sign * out_p, DELTA)

__all__ = ["offset_attack", "offset_neighbours"]
