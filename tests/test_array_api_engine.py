"""Tests for dppca.stats.array_api_kendall: the Kendall engine on the array API standard.

Run on ``array-api-strict`` (a conforming library with no numpy conveniences), and on CuPy or
PyTorch when one is installed (skipped otherwise).

Tolerance, derived from the rounding argument of :func:`dppca.stats.kendall.rounding_slack`:
each engine computes every pair's term g g^T to a relative error of at most
e = (d + 2) u / 1e-4 per entry (u = 2^-53; the Gram distance of a pair outside the
near-duplicate set) and sums n(n-1)/2 terms of Frobenius norm <= G^2 (G = sup ||g||), a
running or blocked sum adding at most about (n + d) u G^2 after normalisation. So either
engine is within (d e + (n + d) u) G^2 of the exact K, and two engines are within twice
that: about 8e-11 at d = 5 (G = 1), against the 1e-3 or more of a real mistake.
"""
import numpy as np
import pytest

from dppca import DPPCAValueError
from dppca.audit import AuditedRelease, RATIO_TOLERANCE, neighbour_search
from dppca.methods.gdppca import GDPPCA_SENSITIVITY_CONSTANT, gdppca_directions
from dppca.privacy import Ledger
from dppca.stats import pair_design
from dppca.stats.array_api_kendall import array_api_kendall_tau_matrix, is_foreign_array, to_numpy
from dppca.stats.kendall import kendall_tau_matrix, sign_bound
from dppca.stats.kendall_reference import kendall_tau_matrix_naive
from dppca.stats.pair_design import block_design, incomplete_kendall_tau_matrix

from test_kendall import DATASETS

xps = pytest.importorskip("array_api_strict")

UNIT = 2.0 ** -53
SIGNS = {"spherical": {"sign": "spherical"}, "winsorized": {"sign": "winsorized"},
         "winsorized_r0.7": {"sign": "winsorized", "radius": 0.7}}


def engines_tolerance(n, d, sign_args):
    """Frobenius distance allowed between two engines' K (module docstring)."""
    e = (d + 2) * UNIT / 1e-4
    G2 = sign_bound(d, **sign_args) ** 2
    return 2.0 * (d * e + (n + d) * UNIT) * G2


@pytest.mark.parametrize("sign_args", SIGNS.values(), ids=SIGNS.keys())
@pytest.mark.parametrize("make_data", DATASETS.values(), ids=DATASETS.keys())
def test_strict_arrays_match_the_pair_sum(make_data, sign_args):
    X = make_data()
    K = kendall_tau_matrix(xps.asarray(X), **sign_args)  # dispatched by the input's type
    assert isinstance(K, np.ndarray) and K.shape == (X.shape[1],) * 2
    tol = engines_tolerance(*X.shape, sign_args)
    assert np.linalg.norm(K - kendall_tau_matrix_naive(X, **sign_args)) <= tol
    assert np.linalg.norm(K - kendall_tau_matrix(X, **sign_args, engine="blas")) <= tol


@pytest.mark.parametrize("tile", [3, 7, 64, 5000])
def test_tiles_and_numpy_input(tile):
    """Tiles of any size cover each pair once (near duplicates straddling tiles included), and
    numpy input runs the same code with engine='array_api'."""
    X = DATASETS["near_duplicates_1e-9"]()[::2]
    ref = kendall_tau_matrix_naive(X)
    tol = engines_tolerance(*X.shape, {})
    assert np.linalg.norm(kendall_tau_matrix(xps.asarray(X), tile=tile) - ref) <= tol
    assert np.linalg.norm(kendall_tau_matrix(X, tile=tile, engine="array_api") - ref) <= tol


@pytest.mark.parametrize("sign_args", SIGNS.values(), ids=SIGNS.keys())
def test_block_design_matches_numpy(sign_args):
    X = DATASETS["t1"]()
    design = block_design(X.shape[0], 49, np.random.default_rng(7))
    K_np = incomplete_kendall_tau_matrix(X, design, **sign_args)
    K_xp = incomplete_kendall_tau_matrix(xps.asarray(X), design, **sign_args)
    # every block is within the engines' tolerance at its size; the weights |B|/n sum to 1
    assert np.linalg.norm(K_xp - K_np) <= engines_tolerance(*X.shape, sign_args)
    assert K_xp.dtype == np.float64 and K_xp.shape == (5, 5)


@pytest.mark.parametrize("sign_args", SIGNS.values(), ids=SIGNS.keys())
def test_data_near_the_largest_double(sign_args):
    """Entries above DBL_MAX / 4 are divided by 4 first: finite, and the BLAS form's answer
    (there through signs.without_overflow). At this scale every pair is winsorized, so
    K = r^2 K_spherical, of norm up to r^2 = 5: the tolerance is scaled by G^2 as above."""
    X = DATASETS["gaussian"]() * 2.0 ** 1020  # entries up to ~2^1022 = DBL_MAX / 4
    K = kendall_tau_matrix(xps.asarray(X), **sign_args)
    assert np.all(np.isfinite(K))
    assert np.linalg.norm(K - kendall_tau_matrix(X, **sign_args, engine="blas")) <= \
        engines_tolerance(*X.shape, sign_args)


def test_same_sensitivity_noise_and_ledger_through_the_release(monkeypatch):
    """gdppca_directions with the engine swapped for the array-API one on strict arrays:
    the same sensitivity, sigma and ledger; the same noise draws (CPU samplers, same seed), so
    the released eigenvalues differ by the statistic's rounding only (Weyl: <= its norm)."""
    X = DATASETS["gaussian"]()

    def run():
        ledger = Ledger(1.0, 1e-5)
        fit = gdppca_directions(X, 5, eps=1.0, delta=1e-5, rng=np.random.default_rng(3),
                                calibration="analytic", ledger=ledger)
        return fit, ledger

    fit_np, ledger_np = run()
    calls = []

    def on_strict_arrays(Y, **kw):
        calls.append(Y.shape)
        return kendall_tau_matrix(xps.asarray(Y), **kw)

    monkeypatch.setattr(pair_design, "kendall_tau_matrix", on_strict_arrays)
    fit_xp, ledger_xp = run()
    assert calls == [X.shape]  # the complete design (n^2 p small): one call, all rows
    assert (fit_xp.sensitivity, fit_xp.noise_sd) == (fit_np.sensitivity, fit_np.noise_sd)
    assert ledger_xp.to_frame().equals(ledger_np.to_frame())
    assert np.max(np.abs(fit_xp.eigenvalues - fit_np.eigenvalues)) <= engines_tolerance(300, 5, {})


def test_neighbour_search_within_the_claimed_sensitivity():
    """The audit's adversarial neighbour search, on this engine: ratio <= 1 (claim 2 sqrt(2) G^2 / n).
    The winsorized sign at r = 1 exercises both weight forms (capped and 1/d^2)."""
    sign_args = {"sign": "winsorized", "radius": 1.0}
    release = AuditedRelease(
        "array-API Kendall", claim="2 sqrt(2) G^2/n (Frob.)",
        statistic=lambda X, c: kendall_tau_matrix(xps.asarray(X), **sign_args),
        sensitivity=lambda n, p, c: GDPPCA_SENSITIVITY_CONSTANT * sign_bound(p, **sign_args) ** 2 / n,
        mechanism=None, eps=1.0, delta=1e-5, p=3)
    with np.errstate(all="ignore"):
        result = neighbour_search(release, seed=0, sizes=(5, 12, 50))
    assert result.ratio <= 1 + RATIO_TOLERANCE, f"ratio {result.ratio:.6g} at {result.where}"


def test_dispatch_rule():
    assert is_foreign_array(xps.asarray(np.zeros((2, 2))))
    assert not is_foreign_array(np.zeros((2, 2))) and not is_foreign_array([[0.0, 1.0], [1.0, 0.0]])
    assert to_numpy(xps.asarray(np.eye(2))).tolist() == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize("kwargs, name", [
    ({"xi": np.tanh}, "xi"), ({"tile": 0}, "tile"), ({"sign": "bogus"}, "sign"),
    ({"radius": -1.0, "sign": "winsorized"}, "radius")])
def test_bad_arguments_name_the_argument(kwargs, name):
    with pytest.raises(DPPCAValueError, match=f"`{name}`"):
        kendall_tau_matrix(xps.asarray(np.ones((4, 2))), **kwargs)


@pytest.mark.parametrize("shape", [(5,), (1, 3)])
def test_bad_shape(shape):
    with pytest.raises(DPPCAValueError, match="`X`"):
        array_api_kendall_tau_matrix(xps.asarray(np.ones(shape)))


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_gpu_libraries_match_numpy(library):
    """CuPy or PyTorch (on its GPU when there is one): same K as numpy to the tolerance."""
    module = pytest.importorskip(library)
    X = DATASETS["gaussian"]()
    if library == "torch":
        device = "cuda" if module.cuda.is_available() else "cpu"
        Y = module.asarray(X, dtype=module.float64, device=device)
    else:
        Y = module.asarray(X)
    for sign_args in SIGNS.values():
        K = kendall_tau_matrix(Y, **sign_args)
        assert np.linalg.norm(K - kendall_tau_matrix(X, **sign_args, engine="blas")) <= \
            engines_tolerance(*X.shape, sign_args)
