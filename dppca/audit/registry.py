"""The registry of audited releases: one :class:`AuditedRelease` per private release of the package.

Adding a release (a new private scale, partition selection, ...) is one call to :func:`register`
with its pre-noise statistic, its claimed sensitivity and a runner of the real mechanism.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

#: Norms a sensitivity can be claimed in (Frobenius = L2 of the flattened matrix).
NORMS = ("L2", "L1", "Linf")


@dataclass(frozen=True)
class AuditedRelease:
    """One private release, as the audit sees it (its fields are also its attributes).

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"scree: clipped pair means"``.
    statistic : callable (X, ctx) -> ndarray
        The pre-noise statistic on a dataset X (ndarray, shape (n, p)) given public values
        ``ctx``; the same ctx is used for both neighbours.
    sensitivity : callable (n, p, ctx) -> float
        The claimed replace-one sensitivity of ``statistic`` in ``norm`` (n public).
    norm : {"L2", "L1", "Linf"}
        Norm in which ``sensitivity`` is claimed (Frobenius: "L2" of the flattened matrix).
    mechanism : callable (X, ctx, rng) -> ndarray, optional
        One release of the real mechanism (same shape as ``statistic``'s output or any vector);
        None: no distinguishing test (e.g. releases whose output is not a noisy statistic).
    eps, delta : float
        Claimed privacy of one ``mechanism`` run.
    p : int
        Number of data columns the audit generates.
    context : callable (D, rng) -> dict
        Public values (clip thresholds, pairings, frames) drawn from the *base* dataset D only.
    xfail : str or None
        Why today's code is known to fail this audit (tests mark it ``xfail(strict=True)``).
    kinds : tuple of str
        Which dataset families suit the release (``"all"`` or names in
        :data:`dppca.audit.neighbours.DATASETS`).
    claim : str
        The claimed sensitivity in words, for tables (e.g. ``"2 sqrt(k)/n (1 + nE)"``).
    fast_runs : int or None
        Releases per neighbour of the quick distinguishing test when the default is too slow
        for this mechanism (e.g. thousands of Python-level steps per release); None: default.

    See Also
    --------
    register : Adds a release to :data:`REGISTRY`.
    neighbour_search : Audits its sensitivity.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.audit import AuditedRelease
    >>> mean = AuditedRelease("example: clipped mean", lambda X, c: np.clip(X, 0, 1).mean(axis=0),
    ...                       lambda n, p, c: np.sqrt(p) / n)
    >>> mean.norm, mean.eps, mean.delta
    ('L2', 1.0, 1e-05)
    """

    name: str
    statistic: Callable
    sensitivity: Callable
    norm: str = "L2"
    mechanism: Callable | None = None
    eps: float = 1.0
    delta: float = 1e-5
    p: int = 2
    context: Callable = field(default=lambda D, rng: {})
    xfail: str | None = None
    kinds: tuple = ("all",)
    claim: str = ""
    fast_runs: int | None = None

    def __post_init__(self):
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}; got {self.norm!r}")


REGISTRY: dict[str, AuditedRelease] = {}


def register(release: AuditedRelease) -> AuditedRelease:
    """Add ``release`` to :data:`REGISTRY` (its name must be new); returns it.

    Parameters
    ----------
    release : AuditedRelease
        The release to audit; ``release.name`` becomes its key.

    Returns
    -------
    AuditedRelease
        ``release`` itself (so ``register`` can wrap a definition).

    Raises
    ------
    ValueError
        If a release of that name is already registered.

    See Also
    --------
    AuditedRelease : What is registered.
    neighbour_search : Audits a release.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.audit import AuditedRelease, REGISTRY, neighbour_search, register
    >>> mean = AuditedRelease("example: clipped mean", lambda X, c: np.clip(X, 0, 1).mean(axis=0),
    ...                       lambda n, p, c: np.sqrt(p) / n)
    >>> bool(neighbour_search(register(mean), sizes=(5,), greedy_steps=3).ratio <= 1 + 1e-9)
    True
    >>> del REGISTRY["example: clipped mean"]  # keep the package's registry as it was
    """
    if release.name in REGISTRY:
        raise ValueError(f"release {release.name!r} is already registered")
    REGISTRY[release.name] = release
    return release


def distance(a, b, norm: str) -> float:
    """The distance ||a - b|| in ``norm``; inf when the shapes differ or a value is not finite.

    Parameters
    ----------
    a, b : array_like
        Two outputs of a statistic (any shape).
    norm : {"L2", "L1", "Linf"}
        The norm of the flattened difference.

    Returns
    -------
    float
        The distance (0 for two empty arrays).

    See Also
    --------
    neighbour_search : Compares it with the claimed sensitivity.

    Examples
    --------
    >>> from dppca.audit import distance
    >>> distance([0, 0], [3, 4], "L2"), distance([0, 0], [3, 4], "L1"), distance([0], [1, 2], "L2")
    (5.0, 7.0, inf)
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        return float("inf")
    diff = (a - b).ravel() if a.size else np.zeros(1)
    if not np.all(np.isfinite(diff)):
        return float("inf")
    size = float(np.max(np.abs(diff)))
    if norm == "Linf" or size == 0:
        return size
    unit = diff / size  # the norm of values near DBL_MAX must not overflow
    return size * float(np.sum(np.abs(unit)) if norm == "L1" else np.linalg.norm(unit))

__all__ = ["AuditedRelease", "distance", "register"]
