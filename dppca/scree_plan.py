"""The accuracy model of one :func:`dppca.dp_scree` call (public numbers only) and its budget split.

:func:`scree_plan` is what ``dp_scree`` warns from before any private step and what
:func:`dppca.plan` shows; it reads n, p, k, the budget and the settings, never the data.
"""
from __future__ import annotations

from ._validation import float_arg
from .directions import SCALE_SHARE
from .estimators.scree_accuracy import scree_accuracy, scree_shares
from .methods.gdppca import direction_accuracy
from .preprocessing.schema import priced
from .privacy.accuracy import AccuracyReport

#: Share of the Gaussian-DP budget (of mu^2, see :class:`dppca.privacy.composition.GaussianGroup`) for
#: the private directions when g_dppca=True (R gives them half of eps and of delta).
DIRECTION_SHARE = 0.5


def scree_plan(n, p, k, group, methods, controls, flags, scale_share=SCALE_SHARE,
               directions=None) -> AccuracyReport:
    """The accuracy model of one :func:`dppca.dp_scree` call, from public numbers only.

    Parameters
    ----------
    n, p, k : int
        Rows, columns, components.
    group : GaussianGroup
        The call's Gaussian-DP group.
    methods : sequence of str
    controls : dict of str to control
    flags : dict
        ``g_dppca`` and ``standardize`` (bool); ``scales_declared`` (optional, bool): every
        scale is declared public, so none is released.
    scale_share : float
        The private scales' share (with standardize and g_dppca).
    directions : PCDirections, optional
        Directions given by the caller (their share is then read from their ledger).

    Returns
    -------
    AccuracyReport
        The directions (g-DPPCA in the call), then :func:`scree_accuracy`'s steps.

    Examples
    --------
    >>> from dppca.privacy.composition import GaussianGroup
    >>> from dppca.controls import resolve_controls
    >>> report = scree_plan(150, 4, 3, GaussianGroup(1.0, 1e-5), ["clipped"],
    ...                     resolve_controls(None, ["clipped"]), dict(g_dppca=True, standardize=False))
    >>> [s.step for s in report.unreliable][:2]
    ['directions', 'trace: rough centre']
    """
    steps, used = [], 0.0
    if getattr(directions, "ledger", None) is not None:
        used = sum(group.fraction_of(r.sensitivity, r.noise_scale)
                   for r in priced(directions.ledger))
    elif directions is None and flags["g_dppca"]:
        private_scales = flags["standardize"] and not flags.get("scales_declared")
        spent = float_arg(scale_share, "scale_share", open_unit=True) if private_scales else 0.0
        eps_d, delta_d = group.standalone(DIRECTION_SHARE * (1 - spent))
        steps.append(direction_accuracy(n, p, k, eps_d, delta_d, group.calibration))
        used = spent + DIRECTION_SHARE * (1 - spent)
    shares = scree_shares(n, max(1.0 - used, 1e-12), len(methods), group.mu, k < p,
                          public_centre(p, flags))
    steps.extend(scree_accuracy(n, p, k, group.mu, shares, methods, controls))
    return AccuracyReport(steps)


def public_centre(p, flags):
    """Public default centre of ||x_a - x_b||^2/2 for standardized data (E = tr S ~ p): p / 2.

    Examples
    --------
    >>> public_centre(4, {"standardize": True}), public_centre(4, {"standardize": False})
    (2.0, None)
    """
    return p / 2.0 if flags["standardize"] else None


__all__ = ["DIRECTION_SHARE", "public_centre", "scree_plan"]
