"""Private by default, the user-xi bound, one sentence for the g-DPPCA sensitivity (issue 9)."""
from __future__ import annotations

import numpy as np
import pytest

from dppca.methods.gdppca import gdppca_directions
from dppca.privacy import Ledger


def test_user_xi_below_zero_is_clipped_into_zero_and_the_bound():
    # K_g averages g g^T with ||g|| = |xi| <= xi_bound once xi is clipped into [0, xi_bound], so
    # its top eigenvalue is at most xi_bound^2 = 1. A tiny noise (eps = 1e6) keeps the release
    # within a few sigma of K_g. Unclipped, xi = -10 gives ||g||^2 = 100 and a top eigenvalue
    # near 100 / p (about 33 here): 100x the sensitivity the noise was calibrated for.
    X = np.random.default_rng(0).normal(size=(60, 3))
    fit = gdppca_directions(X, 1, eps=1e6, delta=1e-5, rng=np.random.default_rng(1),
                            calibration="analytic", ledger=Ledger(1e6, 1e-5),
                            xi=lambda s: np.full_like(s, -10.0), xi_bound=1.0)
    assert fit.eigenvalues[0] <= 1.0 + 6 * fit.noise_sd
