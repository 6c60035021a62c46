"""Issue 23: the surface-wide differential test (fast mode; the full mode is
benchmarks/differential_surface.py).

Every public entry point runs a data set D and its replace-one neighbours D' (a random row, the
audit's extreme rows 1e154 / +-1.7e308 / 2^1023 / 5e-324 / mixed, label edge cases -0.0 and
NaN-like strings, a one-row group) with the same seed. Everything that is not a noisy value
must be identical: warnings, exceptions, ledger rows (noise scales, sensitivities, eps,
delta), thresholds, histogram shapes, groups, output shapes, the CLI's files and ledger.json.
A difference is an output one neighbour can produce and the other cannot: eps = infinity.
"""
import numpy as np
import pytest

from dppca import dp_score_group
from dppca.preprocessing import VALUE_BOUND, as_matrix

from surface import (CLI_ENTRIES, base_data, differences, entry_points, neighbours,
                     numeric_zero_labels, observe)

#: n = 1000 rows: DPPCA releases its private centre (n eps center_share >= 200), the path of
#: stats.signs.unit_scaled that overflowed for an entry >= 2^1023.
N = 1000


@pytest.fixture(scope="module")
def surface(tmp_path_factory):
    return entry_points(tmp_path_factory.mktemp("surface"))


@pytest.mark.parametrize("name", sorted(entry_points(tmp=None)) + sorted(CLI_ENTRIES))
def test_neighbours_give_the_same_public_observation(surface, name):
    X, labels = base_data(N)
    call = surface[name]
    reference = observe(call, X, labels)
    grouped = "group" in name or name in CLI_ENTRIES
    found = {}
    for which, Xp, lp in neighbours(X, labels, labels_too=grouped):
        diff = differences(reference, observe(call, Xp, lp))
        if diff:
            found[which] = diff
    assert not found, f"{name}: neighbours differ outside the noise: {found}"


def test_signed_zero_numeric_labels_give_the_same_groups_and_ledger():
    X, _ = base_data(N)
    labels, signed = numeric_zero_labels(N)
    call = lambda X, g: dp_score_group(X, g, 1.0, 1e-5, rng=1)  # noqa: E731
    assert not differences(observe(call, X, labels), observe(call, X, signed))


def test_the_row_cleaning_rule_is_a_public_map_of_each_value():
    # Exact: the clamp moves only values beyond the public bound, to the bound with their sign.
    X = np.array([[1.5, -1.7e308], [5e-324, 2.0 ** 1023], [-3.0, VALUE_BOUND]])
    cleaned = as_matrix(X).values
    assert cleaned.tolist() == [[1.5, -VALUE_BOUND], [5e-324, VALUE_BOUND], [-3.0, VALUE_BOUND]]
    assert as_matrix(X[:, :1] * 1e-3).values.tolist() == (X[:, :1] * 1e-3).tolist()
