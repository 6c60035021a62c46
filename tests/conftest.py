"""Shared fixtures: small datasets with fixed seeds."""
import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def gaussian_frame():
    """n=400 rows, p=4 named columns, a clear first PC along (1,1,0,0)/sqrt2."""
    rng = np.random.default_rng(20261121)
    cov = np.diag([1.0, 1.0, 0.5, 0.25])
    cov[0, 1] = cov[1, 0] = 0.9
    X = rng.multivariate_normal(np.zeros(4), cov, size=400)
    return pd.DataFrame(X, columns=["a", "b", "c", "d"])
