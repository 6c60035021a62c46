"""``budget=``: a dataset's handle, and the debit every private call makes before it computes.

:func:`budget` returns a :class:`Budget` (a dataset in a :class:`~dppca.privacy.store.BudgetStore`).
Every private function takes ``budget=`` (a handle or a dataset name) and calls :func:`debit` right
after its argument checks, before it touches the data: the run's (eps, delta) is charged in one
transaction, and a refusal (:class:`~dppca.privacy.filter.BudgetExhaustedError`) stops the call
before any private computation. The :func:`records_outcome` decorator appends what became of the
run (its ledger, or the class of the error) to the log; the charge stays whatever the outcome.
"""
from __future__ import annotations

import contextvars
import functools

from .._validation import DPPCATypeError
from .filter import gaussian_mu
from .store import BudgetStore

#: The charges made by the public call now running (outermost only), for its outcome rows.
_CALL_CHARGES: contextvars.ContextVar = contextvars.ContextVar("dppca_call_charges", default=None)


class Budget:
    """A registered dataset's privacy budget: the ``budget=`` of every private call.

    Parameters
    ----------
    name : str
        The dataset's name in the store.
    store : BudgetStore
        The store that holds it.

    See Also
    --------
    dppca.budget : Opens a handle by name.
    dppca.privacy.store.BudgetStore.register : How a curator sets a dataset's total.

    Examples
    --------
    >>> import os, tempfile
    >>> import dppca
    >>> from dppca.privacy.store import BudgetStore
    >>> store = BudgetStore("sqlite:///" + os.path.join(tempfile.mkdtemp(), "b.sqlite3"))
    >>> store.register("gau", eps=3.0, delta=1e-5)
    >>> with dppca.budget("gau", budget_store=store) as b:
    ...     _ = dppca.dp_pc_dir(dppca.load_gau(), k=2, eps=1, delta=1e-6, rng=1, budget=b)
    >>> b.status()["eps_left"]
    2.0
    """

    def __init__(self, name, store):
        self.name, self.store = str(name), store
        self.store.status(self.name)  # an unknown name fails here, before any call

    def status(self) -> dict:
        """Total, spent and left (public numbers); see :meth:`BudgetStore.status`."""
        return self.store.status(self.name)

    def log(self):
        """The release log (a pandas DataFrame); see :meth:`BudgetStore.log`."""
        return self.store.log(self.name)

    def __enter__(self) -> "Budget":
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def __repr__(self) -> str:
        s = self.status()
        return (f"Budget({self.name!r}: eps {s['eps_spent']:g} of {s['eps_total']:g} spent, "
                f"delta {s['delta_spent']:g} of {s['delta_total']:g}; {self.store!r})")


def budget(name, *, budget_store=None) -> Budget:
    """The privacy budget of registered dataset ``name``: pass it as ``budget=`` to private calls.

    Parameters
    ----------
    name : str
        The dataset's name (registered by a curator: ``dppca budget init NAME --eps --delta``).
    budget_store : BudgetStore or str, optional
        The store, or its SQLAlchemy URL; default ``DPPCA_BUDGET_URL``, else SQLite under the user's
        data directory.

    Returns
    -------
    Budget
        The handle; also a context manager (``with dppca.budget("survey") as b: ...``).

    Raises
    ------
    DPPCAValueError
        If no dataset has that name.
    dppca.privacy.store.BudgetStoreError
        If the store cannot be opened.

    See Also
    --------
    Budget : The handle.

    Notes
    -----
    Every call given ``budget=`` debits its whole (eps, delta) before any private computation,
    through the dataset's privacy filter (:class:`dppca.privacy.filter.PrivacyFilter`, valid for
    adaptively chosen budgets); a call that fails afterwards stays charged.

    Examples
    --------
    >>> import os, tempfile
    >>> import dppca
    >>> url = "sqlite:///" + os.path.join(tempfile.mkdtemp(), "b.sqlite3")
    >>> dppca.privacy.store.BudgetStore(url).register("survey", eps=1.0, delta=1e-5)
    >>> dppca.budget("survey", budget_store=url).status()["eps_left"]
    1.0
    """
    store = budget_store if isinstance(budget_store, BudgetStore) else BudgetStore(budget_store)
    return Budget(name, store)


def debit(budget, function, eps, delta, *, gaussian=False, calibration="analytic", analyst=None,
          **settings):
    """Charge a call's (eps, delta) to ``budget`` (a :class:`Budget`, a name or None: nothing).

    Parameters
    ----------
    budget : Budget, str or None
        Where to charge; a name opens it in the default store.
    function : str
        The public function's name (the log's function column).
    eps, delta : float
        The call's validated budget.
    gaussian : bool
        True when every release of the call is a Gaussian mechanism, together mu-GDP with mu the
        Gaussian-DP parameter of ``calibration`` at (eps, delta) (e.g. g-DPPCA's directions).
    calibration : {"analytic", "classic"}
        The call's Gaussian calibration (for ``gaussian=True``).
    analyst : str, optional
        Who asked for the run, for the log (default: the OS user running this process; the app
        passes the user its reverse proxy authenticated).
    **settings
        Public settings of the call, logged as JSON.

    Returns
    -------
    Charge or None
        The charge (None when ``budget`` is None).

    Raises
    ------
    dppca.privacy.filter.BudgetExhaustedError
        When the filter refuses the run (nothing is charged, nothing computed).
    DPPCATypeError
        If ``budget`` is not a handle, a name or None.

    Examples
    --------
    >>> from dppca.privacy.spending import debit
    >>> debit(None, "dp_pc_dir", 1.0, 1e-5) is None
    True
    """
    if budget is None:
        return None
    handle = budget_arg(budget)
    mu = gaussian_mu(eps, delta, calibration) if gaussian and delta > 0 else None
    charge = handle.store.debit(handle.name, eps, delta, mu=mu, function=function,
                                settings={"calibration": calibration, **settings},
                                analyst=analyst)
    scope = _CALL_CHARGES.get()
    if scope is not None:
        scope.append((handle.store, charge.charge_id))
    return charge


def budget_arg(budget) -> Budget:
    """A :class:`Budget` from a handle or a dataset name (opened in the default store)."""
    if isinstance(budget, Budget):
        return budget
    if isinstance(budget, str):
        return Budget(budget, BudgetStore())
    raise DPPCATypeError(f"`budget` must be a dppca.budget(...) handle or a dataset name; got "
                         f"{type(budget).__name__}")


def records_outcome(function):
    """Decorator of a public private function: after it returns or fails, append the outcome of
    each charge its own :func:`debit` made (the ledger JSON, or the error's class only, whose
    message is not logged) to the store's log. Nested calls record nothing (they are not charged).
    """
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        charges = []
        token = _CALL_CHARGES.set(charges)
        try:
            result = function(*args, **kwargs)
        except BaseException as error:
            _record(charges, "failed: " + type(error).__name__, None)
            raise
        finally:
            _CALL_CHARGES.reset(token)
        _record(charges, "ok", _ledger_payload(result))
        return result

    return wrapper


def _record(charges, status, ledger):
    for store, charge_id in charges:
        store.record_outcome(charge_id, status, ledger)


def _ledger_payload(result):
    """The result's full ledger as JSON: one ledger, or (a scree) the combined ledger of the call
    with each method's own."""
    ledger = getattr(result, "ledger", getattr(result, "ledger_", None))
    if hasattr(ledger, "to_dict"):
        return ledger.to_dict()
    ledgers = ledger if isinstance(ledger, dict) else getattr(result, "ledgers", None)
    if not isinstance(ledgers, dict):
        return None
    payload = {name: value.to_dict() for name, value in ledgers.items() if hasattr(value, "to_dict")}
    combined = getattr(result, "combined_ledger", None)
    return {"combined": combined.to_dict(), "methods": payload} if hasattr(combined, "to_dict") \
        else payload


__all__ = ["Budget", "budget", "budget_arg", "debit", "records_outcome"]
