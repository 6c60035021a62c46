"""The session privacy budget of the app, with its ledger and its cache of releases.

R's app lets a user press "run" forever, each press spending eps again on the same data
(its Observation P9). Here each dataset of a browser session gets one :class:`SessionBudget`:
a total (eps, delta) fixed at the first run, a :class:`dppca.privacy.Ledger` with one row per
run (the eps that run added to the session's spent eps), and a cache keyed by every input
that changes what is released. A run is refused before anything is computed when it would
take the spent (eps, delta) past the session total; that test uses only public numbers (the
budgets and the settings). Showing a cached result again (same inputs) or redrawing it (PVE
or eigenvalues, samples) is post-processing and costs nothing.

Composition. Each run is (eps_r, delta_r)-DP for the budget it was given (its own ledger,
kept in :attr:`SessionBudget.runs`, says how it was spent). Some runs are more: a scree run
with self-tuned controls is one Gaussian-DP group, i.e. mu_r-GDP with
mu_r = 1 / sigma(1; eps_r, delta_r) (analytic calibration; see
:class:`dppca.privacy.composition.GaussianGroup`). The session is then

    (min(eps_G, sum of eps_r over the GDP runs) + sum of eps_r over the other runs,
     sum of all delta_r)-DP,

with eps_G the eps at which mu-GDP, mu = sqrt(sum mu_r^2), gives delta_G = sum of delta_r
over the GDP runs. Proof: adaptive composition is the tensor product of trade-off functions,
G_mu1 x G_mu2 = G_sqrt(mu1^2 + mu2^2), and the product is monotone (Dong, Roth and Su 2022,
Thm 3.2, Cor 3.3, Prop D.1), so the GDP runs may be replaced by one (eps_G, delta_G)-DP
mechanism, or by their own (eps_r, delta_r), before basic composition with the rest (Dwork and
Roth 2014, Thm 3.16, adaptive form). With only basic runs this is basic composition.

With a budget store (``store=``, a :func:`dppca.budget` handle of a registered dataset), the
total and the spend are the store's: shared by every session, tab and reload, and kept across
server restarts. Each run is then debited by the store's privacy filter (basic composition,
valid for adaptively chosen budgets) before it computes, and stays charged if it fails.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import pandas as pd

from .._validation import DPPCAValueError, delta_arg, eps_arg, float_arg
from ..privacy import Ledger, gaussian_sigma
from ..privacy.composition import gdp_epsilon
from ..privacy.filter import BudgetExhaustedError
from ..privacy.spending import Budget, debit
from ..privacy.store import URL_VARIABLE, BudgetStore

#: Relative slack when comparing sums of floating-point budgets with the total (the Ledger's).
BUDGET_RTOL = 1e-9
#: Gaussian-DP composition is used only when it saves more than this (relative) over the sum of
#: the runs' eps; below, the calibration's solver tolerance would show as 0.99999998 for 1.
GDP_SNAP_RTOL = 1e-6


class Released(NamedTuple):
    """What :meth:`SessionBudget.release` returns."""

    result: Any
    cached: bool    # True: shown again from the session's releases, nothing spent
    run: int        # number of the run that released it (its row in the ledger)
    charged: float  # eps this call added to the session's spent eps (0 when cached)


class BudgetExceeded(DPPCAValueError):
    """A run would take the session past its total budget (public arithmetic only)."""


@dataclass
class Run:
    """One released run: what was asked, what it cost, and its own ledger."""

    number: int
    kind: str
    settings: dict
    eps: float
    delta: float
    private: bool
    ledger: dict = field(default_factory=dict)
    mu: float | None = None  # the run is mu-GDP (one Gaussian-DP group), else None
    charged: float = math.nan  # what the run added to the session's spent eps


def gdp_mu(eps, delta) -> float:
    """mu of a Gaussian-DP group whose analytic calibration is (eps, delta)-DP."""
    return 1.0 / gaussian_sigma(1.0, eps, delta, "analytic")


def composed(runs) -> tuple[float, float]:
    """Spent (eps, delta) of a list of runs (objects with eps, delta, mu); see the module notes.

    Examples
    --------
    >>> runs = [Run(i, "scree", {}, 1.0, 1e-6, True, mu=gdp_mu(1.0, 1e-6)) for i in (1, 2)]
    >>> eps, delta = composed(runs)
    >>> round(eps, 3), delta
    (1.403, 2e-06)
    """
    gaussian = [r for r in runs if r.mu is not None]
    basic_eps = sum(r.eps for r in runs if r.mu is None)
    delta = sum(r.delta for r in runs)
    if not gaussian:
        return basic_eps, delta
    mu = math.sqrt(sum(r.mu ** 2 for r in gaussian))
    eps_g = gdp_epsilon(mu, sum(r.delta for r in gaussian))
    eps_sum = sum(r.eps for r in gaussian)
    # Within the calibration's tolerance of basic composition (e.g. one run): charge the sum.
    return basic_eps + (eps_g if eps_g < eps_sum * (1 - GDP_SNAP_RTOL) else eps_sum), delta


class SessionBudget:
    """Total (eps, delta) of one dataset in one browser session, its ledger and cache.

    Parameters
    ----------
    eps_total : float
        Total epsilon of the session for this dataset (> 0).
    delta_total : float
        Total delta (in (0, 1)).
    dataset : str
        Label of the dataset (shown in the ledger).
    store : dppca.privacy.Budget, optional
        A registered dataset's budget in the store: its total replaces ``eps_total`` and
        ``delta_total``, spent and left are the store's (every session's runs), and each run is
        debited there before it computes.
    analyst : str, optional
        Who runs (the name a reverse proxy vouches for): logged with every charge to the store
        (without it, the store logs the server's user).

    Notes
    -----
    The total can be changed with :meth:`set_total` until the first run; after that it is
    fixed (a new total needs new data, i.e. a new budget). Composition: see the module notes.

    Examples
    --------
    >>> budget = SessionBudget(2.0, 1e-5, dataset="gau")
    >>> first = budget.release("scree", {"k": 3}, 1.0, 1e-6, lambda: "figure", gaussian=True)
    >>> again = budget.release("scree", {"k": 3}, 1.0, 1e-6, lambda: "figure", gaussian=True)
    >>> first.charged, again.cached, again.charged
    (1.0, True, 0.0)
    >>> second = budget.release("scree", {"k": 4}, 1.0, 1e-6, lambda: "figure", gaussian=True)
    >>> round(budget.spent[0], 3)    # Gaussian DP: less than 1 + 1
    1.403
    """

    def __init__(self, eps_total, delta_total, dataset: str = "", store=None, analyst=None):
        self.dataset, self.store, self.analyst = dataset, store, analyst
        if store is not None:
            status = store.status()
            eps_total, delta_total = status["eps_total"], status["delta_total"]
        self.ledger = Ledger(*_totals(eps_total, delta_total))
        self.runs: list[Run] = []
        self._cache: dict[Any, Any] = {}

    # ------------------------------------------------------------------ totals
    @property
    def eps_total(self) -> float:
        return self.ledger.eps

    @property
    def delta_total(self) -> float:
        return self.ledger.delta

    @property
    def fixed(self) -> bool:
        """True once something was released (or the total is the store's): it can no longer change."""
        return len(self.runs) > 0 or self.store is not None

    @property
    def spent(self) -> tuple[float, float]:
        if self.store is not None:
            status = self.store.status()
            return status["eps_spent"], status["delta_spent"]
        return self.ledger.spent_eps, self.ledger.spent_delta

    @property
    def run_count(self) -> int:
        """Runs charged on these data: the store's (every session's) with a store, else this
        session's."""
        if self.store is not None:
            return int(self.store.status()["runs"])
        return len(self.runs)

    @property
    def remaining(self) -> tuple[float, float]:
        spent_eps, spent_delta = self.spent
        return max(self.eps_total - spent_eps, 0.0), max(self.delta_total - spent_delta, 0.0)

    def set_total(self, eps_total, delta_total) -> None:
        """Change the total before the first run.

        Raises
        ------
        DPPCAValueError
            If a run was already released (the total is fixed), or the values are invalid.
        """
        eps_total, delta_total = _totals(eps_total, delta_total)
        if (eps_total, delta_total) == (self.eps_total, self.delta_total):
            return
        if self.fixed:
            raise DPPCAValueError(
                f"the session total is fixed at eps = {self.eps_total:g}, delta = "
                f"{self.delta_total:g} since the first run on these data; load another dataset "
                "to start a new budget")
        self.ledger = Ledger(eps_total, delta_total)

    # ------------------------------------------------------------------ runs
    def check(self, eps, delta, gaussian: bool = False) -> float:
        """The eps a run of (eps, delta) would add; refused if it does not fit in what is left.

        Parameters
        ----------
        eps, delta : float
            The run's budget.
        gaussian : bool
            Whether the run is one Gaussian-DP group (mu-GDP), composed as such.

        Returns
        -------
        float
            The eps the run adds to the spent eps (<= eps).

        Raises
        ------
        BudgetExceeded
            With the amounts asked, charged and left (public numbers only).
        """
        eps, delta = eps_arg(eps), delta_arg(delta)
        new = Run(0, "", {}, eps, delta, True, mu=gdp_mu(eps, delta) if gaussian else None)
        spent_eps, spent_delta = self.spent
        # Spending more delta can lower the composed eps: the spent eps never goes down (a
        # larger eps is a weaker, still valid, claim), so every charge is >= 0.
        after_eps, after_delta = composed(self.runs + [new])
        charge = max(after_eps - spent_eps, 0.0)
        after_eps = spent_eps + charge
        over = []
        if after_eps > self.eps_total * (1 + BUDGET_RTOL):
            cost = f" (costs {charge:.4g} with Gaussian-DP composition)" if charge < eps else ""
            over.append(f"eps: asked {eps:g}{cost}, left {self.remaining[0]:.4g}")
        if after_delta > self.delta_total * (1 + BUDGET_RTOL):
            over.append(f"delta: asked {delta:g}, left {self.remaining[1]:.3g}")
        if over:
            raise BudgetExceeded(
                "Refused: this run would exceed the session budget (" + "; ".join(over) + "). "
                f"Session total eps = {self.eps_total:g}, delta = {self.delta_total:g}; spent eps = "
                f"{spent_eps:.4g}, delta = {spent_delta:.3g}. Lower eps or delta for this run, or "
                "re-show a result already released (same settings cost nothing).")
        return charge

    def release(self, kind: str, settings: dict, eps, delta, compute: Callable[[], Any],
                private: bool = True, ledger_of: Callable[[Any], dict] | None = None,
                gaussian: bool = False, confirm: Callable[[Any], bool] | None = None):
        """The result of a run: from the cache if these settings were released, else computed.

        Parameters
        ----------
        kind : str
            "scree" or "score".
        settings : dict
            Every input that changes what is released (hashable values); with ``kind`` and
            (eps, delta) it is the cache key.
        eps, delta : float
            Budget of the run.
        compute : callable
            Computes the run (called only when not cached and the budget allows).
        private : bool
            Whether the run is private end to end (False for NON-PRIVATE directions).
        ledger_of : callable, optional
            The run's own ledger as a dict, for the session's JSON ledger.
        gaussian : bool
            The settings (public) make the run one Gaussian-DP group: composed as mu-GDP.
        confirm : callable, optional
            Checks on the result that it is one (all releases Gaussian); if not, the run is
            composed by basic composition, and refused (not shown) if it then does not fit.

        Returns
        -------
        Released
            ``(result, cached, run, charged)``: the result, whether it came from the cache (no
            cost), the number of the run that released it and the eps it added.

        Raises
        ------
        BudgetExceeded
            Before computing, when the run does not fit.
        """
        key = self.key(kind, settings, eps, delta)
        if key in self._cache:
            return self._cache[key]._replace(cached=True, charged=0.0)
        if self.store is not None:
            return self._release_from_store(key, kind, settings, eps, delta, compute, private,
                                            ledger_of)
        charge = self.check(eps, delta, gaussian)
        try:
            result = compute()
        except Exception:
            # Charged whatever the outcome: releases may have been computed, and the failure may
            # depend on the data. By basic composition when that fits (the run's releases are
            # unknown), else as its settings declare it.
            try:
                gaussian, charge = False, self.check(eps, delta, False)
            except BudgetExceeded:
                pass
            self._record_run(kind, settings, eps, delta, private, {}, gaussian, charge)
            raise
        if gaussian and confirm is not None and not confirm(result):
            gaussian, charge = False, self.check(eps, delta, False)
        number = self._record_run(kind, settings, eps, delta, private,
                                  ledger_of(result) if ledger_of else {}, gaussian, charge)
        self._cache[key] = Released(result, False, number, charge)
        return self._cache[key]

    def _record_run(self, kind, settings, eps, delta, private, ledger, gaussian, charge) -> int:
        """Append a charged run to the session ledger; its number."""
        number = len(self.runs) + 1
        mu = gdp_mu(eps, delta) if gaussian else None
        self.ledger.record(step=f"run {number}: {kind}",
                           mechanism=f"Gaussian-DP group (mu = {mu:.4g})" if gaussian else
                           "composition of the run's releases", sensitivity=math.nan, norm="-",
                           noise_scale=math.nan, eps=charge, delta=delta)
        self.runs.append(Run(number, kind, dict(settings), float(eps), float(delta), bool(private),
                             ledger, mu, charge))
        return number

    def _release_from_store(self, key, kind, settings, eps, delta, compute, private, ledger_of):
        """Debit the store (committed before ``compute`` runs), then compute; a failure stays
        charged (the store's log says which error class)."""
        eps, delta = eps_arg(eps), delta_arg(delta)
        try:
            who = {} if self.analyst is None else {"analyst": self.analyst}
            charge = debit(self.store, f"app: {kind}", eps, delta, settings=dict(settings), **who)
        except BudgetExhaustedError as refused:
            raise BudgetExceeded(f"Refused: {refused}. Re-show a result already released (same "
                                 "settings cost nothing).") from None
        number = len(self.runs) + 1
        self.ledger.record(step=f"run {number}: {kind}", mechanism="composition of the run's "
                           "releases (charged to the budget store)", sensitivity=math.nan,
                           norm="-", noise_scale=math.nan, eps=charge.eps, delta=charge.delta)
        run = Run(number, kind, dict(settings), eps, delta, bool(private), {}, None, charge.eps)
        self.runs.append(run)
        try:
            result = compute()
        except BaseException as error:
            self.store.store.record_outcome(charge.charge_id, "failed: " + type(error).__name__)
            raise
        run.ledger = ledger_of(result) if ledger_of else {}
        self.store.store.record_outcome(charge.charge_id, "ok", run.ledger)
        self._cache[key] = Released(result, False, number, charge.eps)
        return self._cache[key]

    @staticmethod
    def key(kind, settings, eps, delta) -> tuple:
        """Cache key: the kind, the sorted settings and the run's budget."""
        return (kind, float(eps), float(delta), tuple(sorted(settings.items())))

    # ------------------------------------------------------------------ outputs
    def table(self) -> pd.DataFrame:
        """The session ledger for the page: one row per run with running totals."""
        rows, eps_sum, delta_sum = [], 0.0, 0.0
        for run in self.runs:
            eps_sum, delta_sum = eps_sum + run.charged, delta_sum + run.delta
            rows.append({"run": run.number, "plot": run.kind, "settings": _describe(run.settings),
                         "missing values": run.ledger.get("missing") or "",
                         "eps asked": run.eps, "delta": run.delta,
                         "eps charged": run.charged,
                         "composition": "Gaussian DP" if run.mu is not None else "basic",
                         "eps spent so far": eps_sum, "delta spent so far": delta_sum,
                         "eps left": max(self.eps_total - eps_sum, 0.0),
                         "private end to end": "yes" if run.private else "NO (non-private directions)"})
        columns = ["run", "plot", "settings", "missing values", "eps asked", "delta", "eps charged", "composition",
                   "eps spent so far", "delta spent so far", "eps left", "private end to end"]
        return pd.DataFrame(rows, columns=columns)

    def to_dict(self) -> dict:
        """The session ledger: totals, composition rule, and every run with its own ledger."""
        return {"dataset": self.dataset,
                "composition": "Gaussian-DP runs composed as mu-GDP, then basic composition "
                               "(sum of eps, sum of delta) with the other runs",
                "neighbouring": self.ledger.neighbouring, "eps_total": self.eps_total,
                "delta_total": self.delta_total, "eps_spent": self.spent[0],
                "delta_spent": self.spent[1],
                "runs": [{"run": r.number, "plot": r.kind, "settings": r.settings, "eps": r.eps,
                          "delta": r.delta, "eps_charged": r.charged, "gdp_mu": r.mu,
                          "private_end_to_end": r.private, "ledger": r.ledger}
                         for r in self.runs]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, default=str)


def registered_budget(features) -> Budget | None:
    """The store's budget of the registered dataset whose fingerprint ``features`` have, or None.

    Only when a store is configured (``DPPCA_BUDGET_URL``): then uploaded numbers registered
    with ``dppca budget init NAME --data FILE`` are charged to NAME whatever the file's name,
    header or row order, in every session. The fingerprint is of the numeric columns.
    """
    if not os.environ.get(URL_VARIABLE):
        return None
    store = BudgetStore()
    name = store.find(features.to_numpy(dtype=float))
    return None if name is None else Budget(name, store)


def _totals(eps_total, delta_total) -> tuple[float, float]:
    return (float_arg(eps_total, "eps_total", positive=True),
            float_arg(delta_total, "delta_total", open_unit=True))


def _describe(settings: dict) -> str:
    """The settings for the ledger table; controls left empty (self-tuned) are not listed."""
    return ", ".join(f"{k}={_short(v)}" for k, v in settings.items() if v is not None)


def _short(value) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_short(v) for v in value) + ")"
    return f"{value:g}" if isinstance(value, float) else str(value)

__all__ = ["BudgetExceeded", "Released", "Run", "SessionBudget", "composed", "gdp_mu",
           "registered_budget"]
