"""The privacy filter's rule (dppca.privacy.filter): basic composition and Gaussian-DP runs."""
import math

import pytest

from dppca import DPPCAValueError
from dppca.privacy.composition import gdp_epsilon
from dppca.privacy.filter import BudgetExhaustedError, PrivacyFilter, gaussian_mu


def _spend(filt, runs, mu=None):
    """Admit runs of (eps, delta) until the filter refuses; the admitted charges."""
    charges = []
    for eps, delta in runs:
        try:
            charges.append(filt.admit(charges, eps, delta, mu))
        except BudgetExhaustedError:
            break
    return charges


def test_basic_filter_admits_exactly_the_runs_that_fit():
    # 1.0 five times is exactly 5.0: admitted; the sixth run exceeds the total.
    assert len(_spend(PrivacyFilter(5.0, 1e-5), [(1.0, 1e-6)] * 8)) == 5
    # delta runs out first here: 1e-5 / 3e-6 = 3.33 runs
    assert len(_spend(PrivacyFilter(100.0, 1e-5), [(0.1, 3e-6)] * 8)) == 3


def test_float_shares_that_sum_to_the_total_are_admitted():
    # Ten runs of 0.1 sum to 1 + 5.6e-17 in exact arithmetic on the floats: within the 1e-9
    # relative slack of the call ledgers (FILTER_RTOL); an eleventh is 10% over.
    charges = _spend(PrivacyFilter(1.0, 1e-5), [(0.1, 1e-7)] * 11)
    assert len(charges) == 10


def test_refusal_names_public_numbers_only():
    filt = PrivacyFilter(1.0, 1e-5)
    charges = [filt.admit([], 0.75, 1e-6)]
    with pytest.raises(BudgetExhaustedError, match=r"needs eps=0.5.*total \(eps=1, delta=1e-05\) "
                                                   r"has eps=0.25, delta=9e-06 left"):
        filt.admit(charges, 0.5, 1e-6)


def test_gaussian_runs_compose_by_mu_squared_and_match_dp_accounting():
    """The Gaussian filter admits runs while sum mu_i^2 <= mu_G^2; dp-accounting's PLD accountant
    (an independent implementation) finds those runs together within (eps_G, delta_G)."""
    from dp_accounting import GaussianDpEvent
    from dp_accounting.pld import PLDAccountant

    filt = PrivacyFilter(4.0, 2e-5, gaussian_share=0.5)  # Gaussian filter: (2, 1e-5)
    mu = gaussian_mu(0.5, 1e-6)
    charges = _spend(filt, [(0.5, 1e-6)] * 50, mu=mu)
    gaussian = [c for c in charges if c.stream == "gaussian"]
    assert len(gaussian) == math.floor(filt.mu_total ** 2 / mu ** 2 * (1 + 1e-9))
    accountant = PLDAccountant(value_discretization_interval=1e-4)
    for charge in gaussian:
        accountant.compose(GaussianDpEvent(1.0 / charge.mu))
    # PLD's pessimistic discretisation overstates eps by about the interval per composition.
    assert accountant.get_epsilon(1e-5) <= 2.0 + 1e-2
    # One more Gaussian run would not fit: the GDP total of the admitted runs plus one exceeds eps_G.
    accountant.compose(GaussianDpEvent(1.0 / mu))
    assert accountant.get_epsilon(1e-5) > 2.0
    # Then the basic filter (2, 1e-5) takes Gaussian runs at their nominal (eps, delta): 4 of 0.5.
    assert [c.stream for c in charges].count("basic") == 4


def test_gaussian_share_gives_more_runs_than_basic_composition():
    mu = gaussian_mu(0.5, 1e-7)
    basic = _spend(PrivacyFilter(4.0, 1e-5), [(0.5, 1e-7)] * 200, mu=mu)
    mixed = _spend(PrivacyFilter(4.0, 1e-5, gaussian_share=0.9), [(0.5, 1e-7)] * 200, mu=mu)
    assert len(basic) == 8
    assert len(mixed) > 2 * len(basic)


def test_classic_run_past_its_proof_is_charged_its_gdp_epsilon():
    # Classic calibration at eps = 10, delta = 1e-2: mu = 10 / sqrt(2 ln 125) = 3.22, whose eps at
    # delta = 1e-2 is above 10 (Dong, Roth and Su 2022, Cor. 2.13): the classic formula is not
    # (10, 1e-2)-DP, and the basic filter charges the larger number.
    mu = gaussian_mu(10.0, 1e-2, "classic")
    charge = PrivacyFilter(20.0, 0.1).admit([], 10.0, 1e-2, mu)
    assert charge.stream == "basic" and charge.eps == gdp_epsilon(mu, 1e-2) > 10.0
    # Within its proof (eps < 1) it is charged its nominal eps.
    assert PrivacyFilter(20.0, 0.1).admit([], 0.5, 1e-6, gaussian_mu(0.5, 1e-6, "classic")).eps == 0.5


@pytest.mark.parametrize("args, rule", [((0.0, 1e-5), "eps"), ((1.0, 1.0), "delta"),
                                        ((1.0, 1e-5, 1.0), "gaussian_share"),
                                        ((1.0, 0.0, 0.5), "delta > 0")])
def test_totals_are_checked(args, rule):
    with pytest.raises(DPPCAValueError, match=rule):
        PrivacyFilter(*args)
