"""Splitting a privacy budget and keeping the ledger of releases.

Every private number a result exposes comes from one of the releases on its
:class:`Ledger`. Releases compose sequentially (basic composition): the total
(eps, delta) of a call is the sum over its releases, and the ledger refuses a
release that would exceed the budget the call was given.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from .._validation import DPPCAValueError, float_arg

#: Relative slack allowed when summing floating-point budget shares.
_BUDGET_RTOL = 1e-9
#: The mechanism of a zero-cost ledger row for a value the user declared public (a codebook's
#: bounds or scales, :mod:`dppca.preprocessing.schema`): no budget, not a private release.
DECLARED = "public (declared)"


@dataclass(frozen=True)
class Release:
    """One private release (a row of a :class:`Ledger`).

    The fields are the constructor's parameters and the instance's attributes.

    Parameters
    ----------
    step : str
        What was released (e.g. ``"directions: Kendall's tau matrix"``).
    mechanism : str
        ``"Gaussian (analytic)"``, ``"Gaussian (classic)"``, ``"Laplace"``, ``"exponential"``...
    sensitivity : float
        Sensitivity of the released statistic under replace-one neighbours.
    norm : str
        Norm in which ``sensitivity`` is measured (``"L2"``, ``"L1"``, ``"Frobenius"``, ``"rank"``).
    noise_scale : float
        Gaussian standard deviation, Laplace scale, or ``nan`` for the exponential mechanism.
    eps, delta : float
        Budget spent by this release.

    See Also
    --------
    dppca.Ledger : Records releases and checks that they stay within the call's budget.

    Examples
    --------
    >>> from dppca.privacy import Release
    >>> release = Release("mean", "Gaussian (analytic)", 0.1, "L2", 0.37, 1.0, 1e-5)
    >>> release.mechanism, release.eps
    ('Gaussian (analytic)', 1.0)
    """

    step: str
    mechanism: str
    sensitivity: float
    norm: str
    noise_scale: float
    eps: float
    delta: float


class Ledger:
    """The releases of one call, with the budget the call was given.

    Parameters
    ----------
    eps : float
        Total epsilon of the call (> 0).
    delta : float
        Total delta of the call, in [0, 1).

    Raises
    ------
    DPPCAValueError
        From :meth:`record` when a release would take the total past ``(eps, delta)``.

    See Also
    --------
    dppca.privacy.Release : One row of the ledger.
    dppca.privacy.split_budget : Basic composition of named parts.
    dppca.privacy.GaussianGroup : Gaussian-DP composition of Gaussian releases.

    Examples
    --------
    Every result carries the ledger of its call:

    >>> from dppca import dp_pc_dir, load_gau
    >>> result = dp_pc_dir(load_gau(), k=2, eps=1, delta=1e-5, rng=1)
    >>> ledger = result.ledger
    >>> (ledger.eps, ledger.delta)
    (1.0, 1e-05)
    >>> list(ledger.to_frame()["step"])
    ["directions: Kendall's tau matrix"]
    """

    neighbouring = "replace-one (n public)"

    def __init__(self, eps: float, delta: float):
        self.eps = float_arg(eps, "eps", positive=True)
        self.delta = float_arg(delta, "delta", nonnegative=True)
        self.releases: list[Release] = []

    def record(self, step, mechanism, sensitivity, norm, noise_scale, eps, delta) -> Release:
        """Append a release after checking it fits in what is left of the budget."""
        release = Release(step, mechanism, float(sensitivity), norm, float(noise_scale),
                          float(eps), float(delta))
        if self.spent_eps + release.eps > self.eps * (1 + _BUDGET_RTOL) or \
                self.spent_delta + release.delta > self.delta * (1 + _BUDGET_RTOL) + 1e-300:
            raise DPPCAValueError(
                f"release '{step}' (eps={eps:g}, delta={delta:g}) would exceed the call's budget "
                f"(eps={self.eps:g}, delta={self.delta:g}; spent eps={self.spent_eps:g}, "
                f"delta={self.spent_delta:g})")
        self.releases.append(release)
        return release

    def extend(self, other: "Ledger") -> None:
        """Record every release of ``other`` here (a sub-call spent part of this budget)."""
        for release in other.releases:
            self.record(**asdict(release))

    @property
    def spent_eps(self) -> float:
        return sum(r.eps for r in self.releases)

    @property
    def spent_delta(self) -> float:
        return sum(r.delta for r in self.releases)

    def __len__(self) -> int:
        return len(self.releases)

    def __iter__(self):
        return iter(self.releases)

    def to_frame(self) -> pd.DataFrame:
        """One row per release, columns as in :class:`Release`."""
        columns = list(Release.__dataclass_fields__)
        return pd.DataFrame([asdict(r) for r in self.releases], columns=columns)

    def to_dict(self) -> dict:
        """Plain payload (for JSON and the R bridges)."""
        return {"eps": self.eps, "delta": self.delta, "neighbouring": self.neighbouring,
                "spent_eps": self.spent_eps, "spent_delta": self.spent_delta,
                "releases": [asdict(r) for r in self.releases]}

    def __repr__(self) -> str:
        return (f"Ledger(eps={self.eps:g}, delta={self.delta:g}, releases={len(self)}, "
                f"spent eps={self.spent_eps:g}, delta={self.spent_delta:g})")


def split_budget(eps: float, delta: float, shares: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Split ``(eps, delta)`` into named parts by basic composition.

    Parameters
    ----------
    eps, delta : float
        The budget to split.
    shares : dict of str to float
        Non-negative shares summing to 1; the same share is applied to eps and delta.

    Returns
    -------
    dict of str to (float, float)
        ``{name: (share * eps, share * delta)}``.

    Raises
    ------
    DPPCAValueError
        If a share is negative or the shares do not sum to 1.

    See Also
    --------
    dppca.Ledger : Where the parts' releases are recorded.
    GaussianGroup : Gaussian-DP composition, tighter for several Gaussian releases.

    Examples
    --------
    >>> from dppca.privacy import split_budget
    >>> split_budget(1.0, 1e-5, {"frame": 0.5, "histograms": 0.5})
    {'frame': (0.5, 5e-06), 'histograms': (0.5, 5e-06)}
    """
    for name, share in shares.items():
        float_arg(share, f"share of {name!r}", closed_unit=True)
    total = sum(shares.values())
    if abs(total - 1) > 1e-9:
        raise DPPCAValueError(f"budget shares must sum to 1; got {total:g} for {dict(shares)}")
    return {name: (share * eps, share * delta) for name, share in shares.items()}

__all__ = ["DECLARED", "Ledger", "Release", "split_budget"]
