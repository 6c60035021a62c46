"""The surface-wide differential test on dask input: every dask route runs a data set and its
replace-one neighbours (a random row, the audit's extreme rows, one NaN, an all-NaN row, +-inf)
with the same seed; everything that is not a noisy value (ledger rows, warnings, exceptions,
output shapes) must be identical, as for in-memory input (test_surface.py)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from dppca import dp_pc_dir, dp_score, dp_scree  # noqa: E402

from surface import base_data, differences, neighbours, observe  # noqa: E402

#: Rows of the base data set: several chunks of CHUNK rows and blocks of 51 rows.
N, CHUNK = 600, 250
PRIVATE = dict(eps=1.0, delta=1e-5, rng=1)
BLOCKS = dict(design="incomplete", pairs_per_row=50)


def _lazy(X):
    return da.from_array(np.asarray(X, dtype=float), chunks=(CHUNK, X.shape[1]))


ROUTES = {
    "dp_pc_dir g-DPPCA all pairs": lambda X, _: dp_pc_dir(_lazy(X), 2, design="complete",
                                                          **PRIVATE),
    "dp_pc_dir g-DPPCA blocks": lambda X, _: dp_pc_dir(_lazy(X), 2, **BLOCKS, **PRIVATE),
    "dp_pc_dir g-DPPCA private scales": lambda X, _: dp_pc_dir(_lazy(X), 2, standardize=True,
                                                               **BLOCKS, **PRIVATE),
    "dp_pc_dir rank blocks": lambda X, _: dp_pc_dir(_lazy(X), 2, standardize="rank", **BLOCKS,
                                                    **PRIVATE),
    "dp_scree": lambda X, _: dp_scree(_lazy(X), 2, **BLOCKS, **PRIVATE),
    "dp_score": lambda X, _: dp_score(_lazy(X), **PRIVATE),
}


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_dask_neighbours_give_the_same_public_observation(name):
    X, labels = base_data(N)
    call = ROUTES[name]
    reference = observe(call, X, labels)
    assert reference["error"] is None, reference["error"]
    observed = {which: observe(call, Xp, lp)
                for which, Xp, lp in neighbours(X, labels, labels_too=False)}
    assert "one NaN" in observed and "+-inf" in observed
    found = {which: differences(reference, seen) for which, seen in observed.items()}
    assert not any(found.values()), f"{name}: {found}"
