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


def test_an_observation_does_not_depend_on_earlier_calls_of_the_session():
    # n eps center_share = 200 x 1 x 0.2 < 200: DPPCA warns (DPCentreWarning, public numbers
    # only) once per session; the same input observed twice must give the same observation,
    # or the first of a data set and its neighbours would differ by call order alone.
    from dppca import DPPCA

    X, _ = base_data(200)
    def call(X, g):
        return DPPCA(n_components=2, eps=1.0, delta=1e-5, random_state=1).fit(X)

    first, second = observe(call, X, None), observe(call, X, None)
    assert any("DPCentreWarning" in w for w in first["warnings"])
    assert first == second


def test_the_cli_mask_hides_the_layout_of_released_values_only():
    # A released loading that changes sign (0.0091 vs -0.0106, cli report[schema] at n = 200)
    # shifts the table's padding; words and lines stay compared.
    from surface import _mask_numbers

    positive = "      PC1     PC2\n-----------------\nx1 0.9370  0.0091\nx2 0.3470 -0.1373"
    negative = "      PC1      PC2\n------------------\nx1 0.9345 -0.0106\nx2 0.3514  -0.1335"
    assert _mask_numbers(positive) == _mask_numbers(negative)
    assert _mask_numbers(positive) != _mask_numbers(positive.replace("x2", "y2"))
    assert _mask_numbers(positive) != _mask_numbers(positive + "\nx3 0.0395 0.9905")
    # a note wrapped at another place because a released number printed wider
    short = "[1] h = 0.5\n    (repair) + 0.25 noise\n[2] next"
    wide = "[1] h = 0.5 (repair)\n    + 0.125 noise\n[2] next"
    assert _mask_numbers(short) == _mask_numbers(wide)
    assert _mask_numbers(short) != _mask_numbers(short.replace("noise", "sampling"))
