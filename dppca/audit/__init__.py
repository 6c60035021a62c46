"""Privacy audit: neighbour search and distinguishing tests for every release of the package.

The way Google's differential privacy library ships a stochastic tester, :mod:`dppca.audit`
checks each private release against its claim, in floating point:

* :func:`neighbour_search`: max ||f(D) - f(D')|| / claimed sensitivity of the pre-noise
  statistic f over random, structured (1e-300..1e300, offsets to 1e15, spreads to 1e-12,
  duplicates, origin rows) and greedily optimised replace-one neighbours; must be <= 1 + 1e-9.
* :func:`distinguishing_audit`: releases of the real mechanism on the worst pair, a threshold
  test and Clopper-Pearson bounds give eps_lb (Jagielski et al. 2020; Nasr et al. 2021); must
  be <= the claimed eps (up to the test's 5% error).
* :data:`REGISTRY`: one :class:`AuditedRelease` per release; :func:`register` adds one.

``tests/privacy`` runs a fast mode in the test suite; ``benchmarks/audit_privacy.py`` the full
mode with its table.

Examples
--------
>>> from dppca.audit import REGISTRY, neighbour_search
>>> result = neighbour_search(REGISTRY["scree: clipped pair means"], sizes=(5,), greedy_steps=5)
>>> bool(result.ratio <= 1 + 1e-9)
True
"""
from .attacks import offset_attack, offset_neighbours
from .distinguishing import DistinguishingResult, distinguishing_audit, eps_lower_bound
from .neighbours import DATASETS, SearchResult, neighbour_search
from .registry import REGISTRY, AuditedRelease, distance, register
from . import releases_scree, releases_other, releases_methods, releases_rank, releases_rank_scores  # noqa: F401,E402  (fill REGISTRY)
from . import releases_missing  # noqa: F401,E402  (fill REGISTRY)

#: Largest accepted ratio of observed change to claimed sensitivity.
RATIO_TOLERANCE = 1e-9

__all__ = ["offset_attack", "offset_neighbours", "AuditedRelease", "DATASETS", "DistinguishingResult", "REGISTRY", "RATIO_TOLERANCE",
           "SearchResult", "distance", "distinguishing_audit", "eps_lower_bound",
           "neighbour_search", "register"]
