"""``dppca.plan``: the expected accuracy of a private analysis, before any data is touched.

A plan reads only public numbers (n, p, k, eps, delta and the call's settings), spends no budget
and predicts each private step's error with the accuracy model
(:mod:`dppca.privacy.accuracy`); the same predictions appear in the "Expected accuracy" block of
the result's ``summary()`` and in the :class:`dppca.DPAccuracyWarning` the call issues.
"""
from __future__ import annotations

import pandas as pd

from ._validation import (DPPCAValueError, bool_arg, delta_arg, eps_arg, int_arg, option_arg,
                          options_arg)
from .controls import SCREE_METHODS, resolve_controls
from .directions import SCALE_SHARE
from .privacy import CALIBRATIONS
from .preprocessing.missing import MEDIAN_SHARE, resolve_missing
from .preprocessing.scale_accuracy import scale_accuracy
from .privacy.accuracy import AccuracyReport
from .privacy.composition import GaussianGroup
from .privacy.neighbouring import (ADD_REMOVE, COUNT_DELTA_SHARE, COUNT_SHARE, LABELS,
                                   count_bounds, neighbouring_arg)
from .results.base import frame_table, notes_text
from .scree_plan import scree_plan
from .scree_rank import RANK, rank_scree_plan

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
        The other arguments of :func:`plan` (``missing`` as the resolved policy's label).
    spent : Spent or None
        What the call spends before its steps (medians, row count) and the rows and budget
        the predictions use (:func:`budget_after_shares`).

    Examples
    --------
    >>> from dppca import plan
    >>> plan(150, 4, 3, 1.0, 1e-5).reliable
    False
    """

    def __init__(self, accuracy, n, p, k, eps, delta, settings, spent=None):
        self.accuracy, self.n, self.p, self.k = accuracy, n, p, k
        self.eps, self.delta, self.settings = eps, delta, dict(settings)
        self.spent = spent

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
        before = [] if self.spent is None else self.spent.notes
        return "\n".join([str(table), *notes_text([verdict, *before, *self.accuracy.notes(),
                                                   *after])])

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return (f"Plan(n={self.n}, p={self.p}, k={self.k}, eps={self.eps:g}, delta={self.delta:g}, "
                f"reliable={self.reliable})")


def plan(n, p, k=2, eps=None, delta=None, *, method="clipped", control=None, g_dppca=True,
         standardize=False, calibration="analytic", scale_share=SCALE_SHARE, missing="auto",
         neighbouring="replace") -> Plan:
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
    g_dppca : bool
        As in :func:`dppca.dp_scree`.
    standardize : bool or "rank"
        As in :func:`dppca.dp_scree`; ``"rank"``: the rank path's directions and the
        predicted half-width of its scree intervals
        (:func:`dppca.scree_rank.rank_scree_plan`; ``method`` and ``control`` do not apply).
    calibration : {"analytic", "classic"}
    scale_share : float in (0, 1)
        As in :func:`dppca.dp_scree`.
    missing : {"auto", "median", "drop"}, float or dict
        As in :func:`dppca.dp_scree` (default "auto": private column medians under replace-one
        neighbours, dropped incomplete rows under add/remove ones). A policy that releases
        medians leaves the steps (1 - MEDIAN_SHARE) of eps and delta
        (:func:`budget_after_shares`); a dict is taken to declare every column when it names
        at least p of them (the plan has no column names), else medians are released.
    neighbouring : {"replace", "add_remove"}
        As in :func:`dppca.dp_pc_dir`. ``"add_remove"``: the noisy row count takes its share
        of the budget and the steps' sensitivities are those at the count's predicted public
        lower bound (:func:`budget_after_shares`).

    Returns
    -------
    Plan
        ``print(plan(...))`` shows the table and its notes; ``.to_frame()``, ``.reliable``;
        ``.spent`` the shares taken before the steps.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        n < 4, p < 1, k outside [1, p], eps or delta missing or out of range, unknown method
        or calibration, a bad control, a bad ``missing`` or ``neighbouring``, or a pair of
        them the call refuses (``missing="drop"`` under replace-one neighbours).

    Notes
    -----
    Privacy: spends nothing (no data is read). Each prediction is the noise sd of a step's
    Gaussian mechanism (public: sensitivity over sqrt(share) mu) relative to the step's signal
    under a stated assumption (:mod:`dppca.estimators.scree_accuracy`,
    :func:`dppca.methods.gdppca.direction_accuracy`), at the budget and rows the call's steps
    get after the medians and the row count (:func:`budget_after_shares`); ``n``, ``eps`` and
    ``delta`` of the plan stay the call's.

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
    spent = budget_after_shares(n, p, eps, delta, missing=missing, neighbouring=neighbouring,
                                calibration=calibration)
    if isinstance(standardize, str):  # the rank path: one Kendall's tau release
        return _rank_plan(n, p, k, eps, delta, method, control, standardize, calibration, spent)
    methods = ("clipped",) if method is None else options_arg(method, "method", SCREE_METHODS)
    controls = resolve_controls(control, methods)
    flags = {"g_dppca": bool_arg(g_dppca, "g_dppca"),
             "standardize": bool_arg(standardize, "standardize")}
    rows, eps_s, delta_s = spent.rows, spent.eps, spent.delta
    group = GaussianGroup(eps_s, delta_s, calibration)
    report = scree_plan(rows, p, k, group, methods, controls, flags, scale_share)
    extra = [f(rows, p, k, eps_s, delta_s, standardize=flags["standardize"],
               calibration=calibration) for f in STEP_PREDICTORS]
    if flags["standardize"] and flags["g_dppca"]:  # private scales before the directions
        extra.insert(0, scale_accuracy(rows, p, eps_s, delta_s, share=scale_share,
                                       calibration=calibration))
    accuracy = AccuracyReport([s for s in extra if s is not None] + report.steps)
    return Plan(accuracy, n, p, k, eps, delta, dict(method=methods, **flags,
                                                    calibration=calibration, **spent.settings),
                spent)


class Spent:
    """What a call spends before its steps (:func:`budget_after_shares`).

    Attributes
    ----------
    rows : int
        Rows the steps' sensitivities use: n, or under add/remove neighbours the predicted
        public lower bound of n (from the noisy count at its expected value n).
    eps, delta : float
        The budget left for the steps.
    settings : dict
        ``missing`` (the resolved policy's label) and ``neighbouring``.
    notes : list of str
        One line per share taken (for the plan's Notes).
    """

    def __init__(self, rows, eps, delta, settings, notes):
        self.rows, self.eps, self.delta = rows, eps, delta
        self.settings, self.notes = dict(settings), list(notes)

    def __repr__(self) -> str:
        return f"Spent(rows={self.rows}, eps={self.eps:.6g}, delta={self.delta:.6g})"


def budget_after_shares(n, p, eps, delta, *, missing="auto", neighbouring="replace",
                        calibration="analytic", entry="dp_scree") -> Spent:
    """The rows and (eps, delta) a call's steps get after its medians and its noisy row count.

    Parameters
    ----------
    n, p : int
        Rows and columns (public; under add/remove neighbours n is the expected count).
    eps, delta : float
        The call's budget.
    missing : {"auto", "median", "drop"}, float or dict
        The call's ``missing=`` (:func:`dppca.preprocessing.missing.resolve_missing`).
    neighbouring : {"replace", "add_remove"}
        The call's neighbouring relation.
    calibration : {"analytic", "classic"}
        Gaussian calibration of the add/remove group.
    entry : str
        The public function whose policy is resolved (default ``"dp_scree"``).

    Returns
    -------
    Spent

    Notes
    -----
    The same arithmetic as the calls, from the shares in the code: a policy that releases
    medians spends :data:`dppca.preprocessing.missing.MEDIAN_SHARE` of (eps, delta) first
    (basic composition, :func:`dppca.preprocessing.missing_entry.fill_missing`); under
    add/remove neighbours the row count takes
    :data:`dppca.privacy.neighbouring.COUNT_SHARE` of mu^2 of a Gaussian-DP group of (eps,
    delta - delta_n), delta_n = :data:`~dppca.privacy.neighbouring.COUNT_DELTA_SHARE` delta,
    and the steps run at that group's standalone share 1 - COUNT_SHARE
    (:func:`dppca.methods.add_remove.add_remove_fit`), with sensitivities at n_lo + 1
    (:func:`dppca.privacy.neighbouring.count_bounds` at the count's expected value n).
    Spends nothing.

    Examples
    --------
    >>> budget_after_shares(5000, 4, 1.0, 1e-5)  # "auto": private medians, 10% of the budget
    Spent(rows=5000, eps=0.9, delta=9e-06)
    >>> budget_after_shares(5000, 4, 1.0, 1e-5, missing=0.0)  # a declared fill value: free
    Spent(rows=5000, eps=1, delta=1e-05)
    >>> spent = budget_after_shares(5000, 4, 1.0, 1e-5, neighbouring="add_remove")
    >>> spent.rows < 5000 and spent.eps < 1.0
    True
    """
    relation = neighbouring_arg(neighbouring)
    policy = resolve_missing(missing, entry=entry, neighbouring=relation)
    medians = policy.kind == "median" or (policy.kind == "value" and policy.default is None
                                          and len(policy.values) < p)
    rows, notes = n, []
    if medians:
        eps, delta = (1.0 - MEDIAN_SHARE) * eps, (1.0 - MEDIAN_SHARE) * delta
        notes.append(f"missing values ({policy.label}): private column medians take "
                     f"{MEDIAN_SHARE:.0%} of eps and delta first; the steps below use "
                     f"eps={eps:.4g}, delta={delta:.3g}.")
    if relation == ADD_REMOVE:
        failure = COUNT_DELTA_SHARE * delta
        group = GaussianGroup(eps, delta - failure, calibration)
        sigma = group.share(COUNT_SHARE).sigma(1.0)
        rows = int(count_bounds(float(n), sigma, failure).rows.sensitivity_rows)
        eps, delta = group.standalone(1.0 - COUNT_SHARE)
        notes.append(f"{LABELS[ADD_REMOVE]}: the row count takes {COUNT_SHARE:.0%} of mu^2 "
                     f"(noise sd {sigma:.3g}) and its bounds {COUNT_DELTA_SHARE:.0%} of delta; "
                     f"the steps use eps={eps:.4g}, delta={delta:.3g} and sensitivities at "
                     f"{rows} rows (the count's lower bound at its expected value n={n}).")
    return Spent(rows, eps, delta, dict(missing=policy.label, neighbouring=relation), notes)



def _rank_plan(n, p, k, eps, delta, method, control, standardize, calibration, spent) -> Plan:
    """:func:`plan` of ``standardize="rank"``: public arithmetic only."""
    if standardize != RANK:
        raise DPPCAValueError(f"`standardize` must be False, True or {RANK!r}; got "
                              f"{standardize!r}")
    if method not in (None, "clipped", RANK) or control is not None:
        raise DPPCAValueError("with standardize='rank' the scree values are the latent "
                              "correlation's eigenvalues: `method` and `control` do not apply")
    return Plan(rank_scree_plan(spent.rows, p, k, spent.eps, spent.delta, calibration), n, p, k,
                eps, delta, dict(method=(RANK,), standardize=RANK, calibration=calibration,
                                 **spent.settings), spent)


__all__ = ["POST_RELEASE_NOTE", "Plan", "STEP_PREDICTORS", "Spent", "budget_after_shares", "plan"]
