"""The amplified k-DP-Ojas audit entry runs where FMT21 Theorem 3.8 is actually applied.

The entry (dppca/audit/releases_methods.py) pads the audit's rows with public rows to
SHUFFLE_ROWS; the generic audit (test_audit.py) runs its neighbour search and distinguishing
test. Here: that SHUFFLE_ROWS is the smallest size at which the method uses the shuffled
calibration at the audit's budget, so the audited release is the amplified one.
"""
import numpy as np
import pytest

from dppca.audit import REGISTRY
from dppca.audit.releases_methods import DELTA, EPS, SHUFFLE_ROWS, _shuffle_padded
from dppca.methods.k_dp_ojas import k_dp_ojas_directions
from dppca.privacy import Ledger

ENTRY = (f"k_dp_ojas (amplification='shuffle', amplified, n = {SHUFFLE_ROWS} with padding): "
         "clipped Oja gradients")


def _step_mechanism(rows):
    ledger = Ledger(EPS, DELTA)
    X = np.random.default_rng(0).normal(size=(rows, 2))
    k_dp_ojas_directions(X, 1, eps=EPS, delta=DELTA, rng=np.random.default_rng(1),
                         calibration="analytic", ledger=ledger, amplification="shuffle",
                         norm_bound=2.0)
    return ledger.to_frame().iloc[-1]["mechanism"]


@pytest.mark.parametrize("rows, amplified", [(SHUFFLE_ROWS, True), (SHUFFLE_ROWS - 2, False)])
def test_entry_size_is_the_smallest_amplified_one(rows, amplified):
    # m = rows // 2 paired differences: 967 use the shuffled noise, 966 keep parallel composition
    assert (_step_mechanism(rows) == "Gaussian (analytic) + shuffling") == amplified


def test_entry_is_registered_with_the_padding_and_affordable_runs():
    release = REGISTRY[ENTRY]
    assert release.mechanism is not None and not release.xfail and release.fast_runs <= 100
    D = np.zeros((5, 2))
    padded = _shuffle_padded(D)
    assert padded.shape == (SHUFFLE_ROWS, 2)
    # the padding depends on the public n and p only: the same public rows for both neighbours
    D_prime = D.copy()
    D_prime[0] = 1e6
    assert np.array_equal(_shuffle_padded(D_prime)[5:], padded[5:])
