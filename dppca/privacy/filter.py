"""A privacy filter: which adaptively chosen runs a dataset's total (eps, delta) still admits.

A dataset's total is split once, when it is registered, into two filters that run side by side:

* the **basic** filter (eps_B, delta_B) = (1 - g) (eps, delta) admits a run of (eps_i, delta_i)
  while sum eps_i <= eps_B and sum delta_i <= delta_B. Basic composition is a valid privacy
  filter: the run budgets may be chosen adaptively, after seeing earlier results (Rogers, Roth,
  Ullman and Vadhan 2016, the filter COMP_{eps_g, delta_g} of §3 and §5);
* the **Gaussian** filter (eps_G, delta_G) = g (eps, delta), with mu_G the Gaussian-DP parameter
  of a Gaussian mechanism calibrated to (eps_G, delta_G), admits Gaussian runs (every release a
  Gaussian mechanism, together mu_i-GDP) while sum mu_i^2 <= mu_G^2. Adaptively chosen mu_i with
  that bound compose to mu_G-GDP (Smith and Thakurta 2022, fully adaptive composition for Gaussian
  DP; also Whitehouse, Ramdas, Rogers and Wu 2023), which is (eps_G, delta_G)-DP.

Each filter is an interactive (eps_k, delta_k)-DP mechanism, and the analyst interleaves them as
they like: concurrent composition of interactive mechanisms adds their (eps, delta) (Vadhan and
Wang 2021; Lyu 2022; Vadhan and Zhang 2023), so every sequence of admitted runs is together
(eps, delta)-DP. A Gaussian run that no longer fits the Gaussian filter is charged to the basic
filter at the larger of its nominal (eps_i, delta_i) and the eps its mu gives at delta_i (so a
classic calibration with eps >= 1, which is not proven (eps, delta)-DP, is charged what it costs).

A run is admitted when the sum of the charges is within a relative 1e-9 of the total, the slack
the call's :class:`~dppca.Ledger` allows; so the guarantee holds for the totals times 1 + 1e-9,
plus the rounding of the sums (under n x 2^-53 relative for n runs, 1e-10 for a million runs).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .._validation import DPPCAValueError, float_arg

#: Relative slack on the totals (the same as a call's Ledger: shares that sum to 1 in floating point).
FILTER_RTOL = 1e-9
#: The filters a run can be charged to.
STREAMS = ("basic", "gaussian")


class BudgetExhaustedError(DPPCAValueError):
    """A dataset's privacy filter refuses a run: its (eps, delta) does not fit what is left.

    The message is built from public numbers only: the dataset's total, the budgets of the runs
    already admitted and the run's own budget.

    See Also
    --------
    PrivacyFilter.admit : The rule that refuses.

    Examples
    --------
    >>> from dppca.privacy.filter import BudgetExhaustedError, PrivacyFilter
    >>> try:
    ...     PrivacyFilter(1.0, 1e-5).admit([], 2.0, 1e-6)
    ... except BudgetExhaustedError as error:
    ...     print("left" in str(error))
    True
    """


@dataclass(frozen=True)
class Charge:
    """What one admitted run costs: the filter it is charged to and the amounts.

    Parameters
    ----------
    stream : {"basic", "gaussian"}
        The filter charged.
    eps, delta : float
        The amounts charged to the basic filter (0 on the Gaussian filter).
    mu : float or None
        The run's Gaussian-DP parameter (Gaussian runs only); on the Gaussian filter mu^2 is charged.
    charge_id : int or None
        The run's row in the store's log, once it is charged there.

    Examples
    --------
    >>> from dppca.privacy.filter import Charge
    >>> Charge("basic", 1.0, 1e-6, None).stream
    'basic'
    """

    stream: str
    eps: float
    delta: float
    mu: float | None
    charge_id: int | None = None


class PrivacyFilter:
    """A dataset's total (eps, delta) as a basic filter and a Gaussian-DP filter side by side.

    Parameters
    ----------
    eps : float
        The dataset's total epsilon, > 0.
    delta : float
        The dataset's total delta, in [0, 1).
    gaussian_share : float
        Share g in [0, 1) of the total (both eps and delta) given to the Gaussian filter; the
        basic filter gets the rest. 0 (the default) charges every run by basic composition.

    Raises
    ------
    DPPCAValueError
        A total or a share out of range; from :meth:`admit`, :class:`BudgetExhaustedError`.

    See Also
    --------
    dppca.privacy.composition.GaussianGroup : Gaussian-DP composition inside one call.

    Notes
    -----
    Validity under adaptively chosen budgets: see the module docstring (Rogers et al. 2016;
    Smith and Thakurta 2022; concurrent composition, Vadhan and Wang 2021, Lyu 2022).

    References
    ----------
    Rogers, R., Roth, A., Ullman, J. and Vadhan, S. (2016). Privacy odometers and filters:
    pay-as-you-go composition. NeurIPS.
    Smith, A. and Thakurta, A. (2022). Fully adaptive composition for Gaussian differential
    privacy. arXiv:2210.17520.
    Whitehouse, J., Ramdas, A., Rogers, R. and Wu, Z. S. (2023). Fully-adaptive composition in
    differential privacy. ICML.

    Examples
    --------
    Five runs of eps = 1 fit a total of 5; the sixth is refused:

    >>> from dppca.privacy.filter import PrivacyFilter
    >>> spent = []
    >>> for _ in range(5):
    ...     spent.append(PrivacyFilter(5.0, 1e-5).admit(spent, 1.0, 1e-6))
    >>> PrivacyFilter(5.0, 1e-5).left(spent)["eps_left"]
    0.0
    """

    def __init__(self, eps, delta, gaussian_share=0.0):
        self.eps = float_arg(eps, "eps", positive=True)
        self.delta = float_arg(delta, "delta", nonnegative=True)
        if not self.delta < 1:
            raise DPPCAValueError(f"`delta` must be in [0, 1); got {delta!r}")
        self.gaussian_share = float_arg(gaussian_share, "gaussian_share", nonnegative=True)
        if not self.gaussian_share < 1:
            raise DPPCAValueError(f"`gaussian_share` must be in [0, 1); got {gaussian_share!r}")
        if self.gaussian_share > 0 and self.delta == 0:
            raise DPPCAValueError("`gaussian_share` > 0 needs a total delta > 0 (Gaussian runs "
                                  "have delta > 0)")
        g = self.gaussian_share
        self.basic_eps, self.basic_delta = (1 - g) * self.eps, (1 - g) * self.delta
        self.mu_total = gaussian_mu(g * self.eps, g * self.delta) if g > 0 else 0.0

    def admit(self, spent, eps, delta, mu=None) -> Charge:
        """The charge of a run of (eps, delta) (mu-GDP when ``mu`` is given), or a refusal.

        Parameters
        ----------
        spent : Spent or iterable of Charge
            What the runs already admitted spent (or those runs).
        eps, delta : float
            The run's nominal budget.
        mu : float, optional
            The run's Gaussian-DP parameter, for runs whose every release is Gaussian.

        Returns
        -------
        Charge
            The Gaussian filter's when it has room for mu^2, else the basic filter's.

        Raises
        ------
        BudgetExhaustedError
            If neither filter has room (a message of public numbers only).
        DPPCAValueError
            If eps, delta or mu is out of range (see :func:`run_arguments`).
        """
        eps, delta, mu = run_arguments(eps, delta, mu)
        spent = Spent.of(spent)
        gaussian_mu2, basic_eps, basic_delta = spent.mu2, spent.eps, spent.delta
        if mu is not None and self.mu_total > 0 and \
                math.fsum([gaussian_mu2, mu * mu]) <= _slack(self.mu_total ** 2):
            return Charge("gaussian", 0.0, 0.0, float(mu))
        cost = eps if mu is None else max(eps, gdp_epsilon_at(mu, delta))
        if math.fsum([basic_eps, cost]) <= _slack(self.basic_eps) and \
                math.fsum([basic_delta, delta]) <= _slack(self.basic_delta):
            return Charge("basic", float(cost), float(delta), None if mu is None else float(mu))
        left = self.left(spent)
        raise BudgetExhaustedError(
            f"the privacy budget is exhausted: this run needs eps={eps:g}, delta={delta:g}, "
            f"and the dataset's total (eps={self.eps:g}, delta={self.delta:g}) has "
            f"eps={left['eps_left']:g}, delta={left['delta_left']:g} left"
            + (f" (and mu^2={left['mu2_left']:g} of Gaussian-DP budget)" if self.mu_total else ""))

    def left(self, spent) -> dict:
        """Spent and left: basic eps and delta, and the Gaussian filter's mu^2 (public numbers)."""
        spent = Spent.of(spent)
        gaussian_mu2, basic_eps, basic_delta = spent.mu2, spent.eps, spent.delta
        mu2_total = self.mu_total ** 2
        return {"eps_total": self.eps, "delta_total": self.delta,
                "gaussian_share": self.gaussian_share,
                "eps_spent": basic_eps, "delta_spent": basic_delta,
                "eps_left": max(0.0, self.basic_eps - basic_eps),
                "delta_left": max(0.0, self.basic_delta - basic_delta),
                "mu2_spent": gaussian_mu2, "mu2_left": max(0.0, mu2_total - gaussian_mu2),
                "runs": spent.runs}


def run_arguments(eps, delta, mu=None) -> tuple:
    """A run's (eps, delta, mu) checked for a filter: eps finite >= 0, delta in [0, 1), mu None or
    finite > 0.

    A filter adds what runs spend, so a negative or infinite eps or delta would give budget back
    (after a charge of -inf every run fits), and mu = 0 adds mu^2 = 0 to the Gaussian filter, so
    such runs would never be refused. eps = 0 (a run that releases nothing) is allowed.

    Parameters
    ----------
    eps, delta : float
        The run's nominal budget.
    mu : float, optional
        The run's Gaussian-DP parameter.

    Returns
    -------
    (float, float, float or None)
        The checked values.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Naming the argument and its rule.

    Examples
    --------
    >>> from dppca.privacy.filter import run_arguments
    >>> run_arguments(1, 1e-6)
    (1.0, 1e-06, None)
    """
    eps = float_arg(eps, "eps", nonnegative=True)
    delta = float_arg(delta, "delta", nonnegative=True)
    if not delta < 1:
        raise DPPCAValueError(f"`delta` must be in [0, 1); got {delta!r}")
    return eps, delta, None if mu is None else float_arg(mu, "mu", positive=True)


def gaussian_mu(eps, delta, calibration="analytic") -> float:
    """The Gaussian-DP mu of a Gaussian mechanism calibrated to (eps, delta): 1 / sigma(1, eps, delta).

    Parameters
    ----------
    eps, delta : float
        The budget the mechanism is calibrated to.
    calibration : {"analytic", "classic"}
        The calibration (see :func:`dppca.privacy.gaussian_sigma`).

    Returns
    -------
    float
        mu = sensitivity / sigma.

    Examples
    --------
    >>> from dppca.privacy.filter import gaussian_mu
    >>> round(gaussian_mu(1.0, 1e-5), 4)
    0.2681
    """
    from .mechanisms import gaussian_sigma

    return 1.0 / gaussian_sigma(1.0, eps, delta, calibration)


def gdp_epsilon_at(mu, delta) -> float:
    """eps of a mu-GDP run at ``delta`` (0 when delta = 0 is asked: charged its nominal eps then)."""
    from .composition import gdp_epsilon

    return gdp_epsilon(mu, delta) if 0 < delta < 1 else 0.0


@dataclass(frozen=True)
class Spent:
    """What a dataset's admitted runs spent: Gaussian mu^2, basic eps and delta, and their count.

    Parameters
    ----------
    mu2, eps, delta : float
        Sum of mu_i^2 on the Gaussian filter; sums of eps_i and delta_i on the basic filter.
    runs : int
        Number of runs.

    Examples
    --------
    >>> from dppca.privacy.filter import Charge, Spent
    >>> Spent.of([Charge("basic", 0.5, 1e-6, None), Charge("basic", 0.25, 0.0, None)]).eps
    0.75
    """

    mu2: float
    eps: float
    delta: float
    runs: int

    @classmethod
    def of(cls, charges) -> "Spent":
        """Correctly rounded sums (:func:`math.fsum`) over ``charges`` (a Spent is returned as is)."""
        if isinstance(charges, Spent):
            return charges
        charges = list(charges)
        basic = [c for c in charges if c.stream == "basic"]
        return cls(math.fsum(c.mu * c.mu for c in charges if c.stream == "gaussian"),
                   math.fsum(c.eps for c in basic), math.fsum(c.delta for c in basic), len(charges))


def _slack(total: float) -> float:
    return total * (1 + FILTER_RTOL)


__all__ = ["BudgetExhaustedError", "Charge", "FILTER_RTOL", "PrivacyFilter", "STREAMS", "Spent",
           "gaussian_mu", "gdp_epsilon_at", "run_arguments"]
