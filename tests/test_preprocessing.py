"""as_matrix, scales (public, sample, private) and the private scale's sensitivity."""
import numpy as np
import pandas as pd
import pytest

from dppca import DPPCAValueError, Ledger
from dppca.preprocessing import (SCALE_BIN_EDGES, as_matrix, private_column_scales, public_scale,
                                 sample_scale)


def test_as_matrix_keeps_names_and_casts_integers():
    mat = as_matrix(pd.DataFrame({"x": [1, 2, 3], "y": [0.5, 1.5, 2.5]}))
    assert mat.columns == ["x", "y"] and mat.values.dtype == np.float64 and mat.n == 3


def test_public_scale_accepts_series_by_name():
    s = public_scale(pd.Series({"b": 2.0, "a": 1.0}), ["a", "b"])
    assert s.tolist() == [1.0, 2.0]


def test_private_scales_are_close_to_sd_at_large_n():
    # n = 20000 Gaussian columns with sd 1, 10, 100; at eps = 2 the clipped-variance noise is
    # ~sqrt(3)/(2*10000)*sigma_unit(1,5e-6) ~ 5e-4 on v ~ 1/8..1/32, and clipping at 2-4 sd(D)
    # loses at most 8% of the variance: every scale within 15% of the sample sd.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 3)) * [1, 10, 100]
    scales = private_column_scales(as_matrix(X), 2.0, 1e-5, np.random.default_rng(1))
    assert np.allclose(scales / sample_scale(as_matrix(X)), 1, atol=0.15)


def test_private_scales_record_two_releases_totalling_the_budget():
    ledger = Ledger(1.0, 1e-5)
    X = np.random.default_rng(2).normal(size=(20000, 2))
    private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(3), ledger=ledger)
    assert len(ledger) == 2
    assert ledger.spent_eps == pytest.approx(1.0) and ledger.spent_delta == pytest.approx(1e-5)


def _released_statistics(X, clip):
    """The two statistics the private scale releases, before noise (see its docstring)."""
    m = X.shape[0] // 2
    absdiff = np.abs(X[:m] - X[m:2 * m])
    counts = np.concatenate([np.histogram(c[c > 0], bins=SCALE_BIN_EDGES)[0] for c in absdiff.T])
    variances = (np.minimum(absdiff, clip) ** 2 / (2 * clip ** 2)).mean(axis=0)
    return counts, variances


def test_private_scale_sensitivities_empirical_neighbour_search():
    # Replace each row in turn by outliers, zeros, duplicates of other rows and random points;
    # the histogram counts must move by at most sqrt(2p) in L2 and the clipped variances by at
    # most sqrt(p)/(2m), the sensitivities the docstring proves and the mechanism uses.
    rng = np.random.default_rng(4)
    n, p = 41, 3
    X = rng.standard_t(2, size=(n, p)) * [1, 50, 0.01]
    clip = np.array([2.0, 100.0, 0.02])
    # (1e6 * ones moves differences across bins, zeros drop them from the non-zero counts.)
    counts, variances = _released_statistics(X, clip)
    worst_counts = worst_var = 0.0
    for i in range(n):
        for new in (np.zeros(p), 1e6 * np.ones(p), X[(i + 7) % n], rng.normal(size=p) * [1, 50, .01]):
            Y = X.copy()
            Y[i] = new
            c, v = _released_statistics(Y, clip)
            worst_counts = max(worst_counts, np.linalg.norm(c - counts))
            worst_var = max(worst_var, np.linalg.norm(v - variances))
    m = n // 2
    assert worst_counts <= np.sqrt(2 * p) + 1e-12 and worst_counts >= np.sqrt(2 * p) / 2
    assert worst_var <= np.sqrt(p) / (2 * m) + 1e-12 and worst_var >= np.sqrt(p) / (2 * m) / 4


def test_private_scale_refuses_a_constant_column():
    X = np.column_stack([np.random.default_rng(5).normal(size=4000), np.full(4000, 3.0)])
    with pytest.raises(DPPCAValueError, match="columns \\['V2'\\]"):
        private_column_scales(as_matrix(X), 1.0, 1e-5, np.random.default_rng(6))
