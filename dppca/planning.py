"""``dppca.plan``: the expected accuracy of a private analysis, before any data is touched.

A plan reads only public numbers (n, p, k, eps, delta and the call's settings), spends no budget
and predicts each private step's error with the accuracy model
(:mod:`dppca.privacy.accuracy`); the same predictions appear in the "Expected accuracy" block of
the result's ``summary()`` and in the :class:`dppca.DPAccuracyWarning` the call issues.
"""
from __future__ import annotations

import pandas as pd

from ._validation import bool_arg, delta_arg, eps_arg, int_arg, option_arg, options_arg
from .controls import SCREE_METHODS, resolve_controls
from .directions import SCALE_SHARE
from .methods.latent_correlation import rank_direction_accuracy
from .privacy import CALIBRATIONS
from .preprocessing.scale_accuracy import scale_accuracy
from .privacy.accuracy import AccuracyReport
from .privacy.composition import GaussianGroup
from .results.base import frame_table, notes_text
from .scree_plan import scree_plan

#: What the plan cannot know before the release: the directions' real eigengaps.
POST_RELEASE_NOTE = (
    "The directions' prediction assumes a Kendall eigengap of trace / p. After the release the "
    "directions' summary adds a post-release prediction from the released eigenvalues "
    "(post-processing: it costs nothing) and warns when it reaches random level (sin-theta 0.9).")

#: Predictors of further steps, called as f(n, p, k, eps, delta, *, standardize, calibration)
#: and returning a StepAccuracy or None (the private column scales of standardize=True are
#: predicted by :func:`dppca.preprocessing.scale_accuracy.scale_accuracy`, first in the plan).
STEP_PREDICTORS: list = []


class Plan:
    """The expected accuracy of a :func:`dppca.dp_scree` call (directions included).

    Made by :func:`plan`; spends no budget.

    Attributes
    ----------
    accuracy : AccuracyReport
        One prediction per private step.
    n, p, k : int
    eps, delta : float
    settings : dict
        The other arguments of :func:`plan`.

    Examples
    --------
    >>> from dppca import plan
    >>> plan(150, 4, 3, 1.0, 1e-5).reliable
    False
    """

    def __init__(self, accuracy, n, p, k, eps, delta, settings):
        self.accuracy, self.n, self.p, self.k = accuracy, n, p, k
        self.eps, self.delta, self.settings = eps, delta, dict(settings)

    @property
    def reliable(self) -> bool:
        """Whether every step's predicted error is within its threshold."""
        return not self.accuracy.unreliable

    def to_frame(self) -> pd.DataFrame:
        """One row per step (:meth:`dppca.privacy.accuracy.AccuracyReport.to_frame`)."""
        return self.accuracy.to_frame()

    def as_text(self) -> str:
        """The table and its Notes block (assumptions, and the fix of every unreliable step)."""
        title = (f"Expected accuracy: n={self.n}, p={self.p}, k={self.k}, eps={self.eps:.4g}, "
                 f"delta={self.delta:.3g} (public numbers; spends nothing)")
        table = frame_table(self.accuracy.table_frame(), title=title)
        verdict = ("Every step is predicted reliable." if self.reliable else
                   f"{len(self.accuracy.unreliable)} step(s) predicted UNRELIABLE: the call will "
                   "issue a DPAccuracyWarning and mark the numbers resting on them.")
        after = [POST_RELEASE_NOTE] if any(s.step == "directions" for s in self.accuracy.steps) \
            else []
        return "\n".join([str(table), *notes_text([verdict, *self.accuracy.notes(), *after])])

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return (f"Plan(n={self.n}, p={self.p}, k={self.k}, eps={self.eps:g}, delta={self.delta:g}, "
                f"reliable={self.reliable})")


def plan(n, p, k=2, eps=None, delta=None, *, method="clipped", control=None, g_dppca=True,
         standardize=False, calibration="analytic", scale_share=SCALE_SHARE) -> Plan:
    """Expected accuracy of :func:`dppca.dp_scree` with these settings, from public numbers only.

    Parameters
    ----------
    n, p : int
        Rows (n >= 4) and columns (p >= 1) of the data (public).
    k : int
        Components, 1 <= k <= p.
    eps, delta : float
        The call's budget: eps > 0, delta in (0, 1).
    method : str or sequence of str
        Scree methods, as in :func:`dppca.dp_scree` (default "clipped").
    control : control object, dict or None
        As in :func:`dppca.dp_scree` (a public ``C_clip`` skips the clipped tuning).
    g_dppca, standardize : bool
        As in :func:`dppca.dp_scree`. ``standardize="rank"``: the rank path of
        :func:`dppca.dp_pc_dir` (:func:`dppca.methods.latent_correlation.rank_direction_accuracy`;
        the plan then covers its directions only: the scree has no rank path yet).
    calibration : {"analytic", "classic"}
    scale_share : float in (0, 1)
        As in :func:`dppca.dp_scree`.

    Returns
    -------
    Plan
        ``print(plan(...))`` shows the table and its notes; ``.to_frame()``, ``.reliable``.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        n < 4, p < 1, k outside [1, p], eps or delta missing or out of range, unknown method
        or calibration, a bad control.

    Notes
    -----
    Privacy: spends nothing (no data is read). Each prediction is the noise sd of a step's
    Gaussian mechanism (public: sensitivity over sqrt(share) mu) relative to the step's signal
    under a stated assumption (:mod:`dppca.estimators.scree_accuracy`,
    :func:`dppca.methods.gdppca.direction_accuracy`).

    References
    ----------
    Davis, C. and Kahan, W. M. (1970), the sin-theta theorem (directions). Dong, Roth and Su
    (2022), Gaussian differential privacy (the shares of mu^2).

    Examples
    --------
    >>> from dppca import plan
    >>> result = plan(n=5000, p=10, k=3, eps=1.0, delta=1e-5)
    >>> result.reliable
    True
    >>> list(result.to_frame()["step"])[:2]
    ['directions', 'trace: rough centre']
    """
    n = int_arg(n, "n", 4)
    p = int_arg(p, "p", 1)
    k = int_arg(k, "k", 1, p)
    eps, delta = eps_arg(eps), delta_arg(delta)
    option_arg(calibration, "calibration", CALIBRATIONS)
    methods = ("clipped",) if method is None else options_arg(method, "method", SCREE_METHODS)
    controls = resolve_controls(control, methods)
    if isinstance(standardize, str) and standardize == "rank":
        step = rank_direction_accuracy(n, p, k, eps, delta, calibration)
        return Plan(AccuracyReport([step]), n, p, k, eps, delta,
                    dict(method=("rank",), standardize="rank", calibration=calibration))
    flags = {"g_dppca": bool_arg(g_dppca, "g_dppca"),
             "standardize": bool_arg(standardize, "standardize")}
    group = GaussianGroup(eps, delta, calibration)
    report = scree_plan(n, p, k, group, methods, controls, flags, scale_share)
    extra = [f(n, p, k, eps, delta, standardize=flags["standardize"], calibration=calibration)
             for f in STEP_PREDICTORS]
    if flags["standardize"] and flags["g_dppca"]:  # private scales before the directions
        extra.insert(0, scale_accuracy(n, p, eps, delta, share=scale_share, calibration=calibration))
    accuracy = AccuracyReport([s for s in extra if s is not None] + report.steps)
    return Plan(accuracy, n, p, k, eps, delta, dict(method=methods, **flags,
                                                    calibration=calibration))




__all__ = ["POST_RELEASE_NOTE", "Plan", "STEP_PREDICTORS", "plan"]
