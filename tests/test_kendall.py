"""Tests for dppca.stats.kendall: the tiled Laplacian Kendall's tau against the pair sum.

Tolerances. The fast path (kendall_tau_matrix) and the reference
(kendall_tau_matrix_naive) sum the same n(n-1)/2 terms in different orders
and forms, so they agree to rounding: observed relative Frobenius errors are
~1e-15. The 1e-10 bound leaves room for the documented worst case of the fast
path, about (d + 2) * 1.1e-16 / 1e-4 per pair (pairs just outside the
near-duplicate threshold), while still catching any real mistake, which shows
up at 1e-3 or worse. Identities that hold exactly in exact arithmetic (trace,
invariances, tile size) use 1e-12: a few hundred roundings of O(1) terms.
"""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import pdist
from scipy.stats import ortho_group

from dppca import DPPCATypeError, DPPCAValueError
from dppca.stats import blas_blocks, fused_pairs, kendall
from dppca.stats.kendall import SIGNS, kendall_tau_matrix, sign_bound, spatial_sign
from dppca.stats.kendall_reference import kendall_tau_matrix_naive

MATCH_RTOL = 1e-10  # fast vs naive, see the module docstring
EXACT_RTOL = 1e-12  # exact identities, see the module docstring


def rel_err(A, B):
    """Relative Frobenius error of A against the reference B (B != 0).

    Both are divided by max|B| first, so tiny K (data spanning hundreds of
    orders of magnitude) do not underflow in the norm.
    """
    top = np.max(np.abs(B))
    return np.linalg.norm((A - B) / top) / np.linalg.norm(B / top)


def tanh_xi(s):
    """A smooth bounded user scale function (sup = 1)."""
    return np.tanh(s)


# ---------------------------------------------------------------------------
# Data sets
# ---------------------------------------------------------------------------


def gaussian():
    return np.random.default_rng(1).standard_normal((300, 5))


def multivariate_t1():
    """Multivariate t with 1 df (Cauchy tails): Gaussian / sqrt(chi2_1)."""
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((300, 5)) @ np.diag([3.0, 2.0, 1.0, 1.0, 0.5])
    return Z / np.sqrt(rng.chisquare(1, size=(300, 1)))


def rounded_integers():
    """Integers in d = 3: many exact duplicate rows."""
    return np.round(np.random.default_rng(3).standard_normal((300, 3)))


def shifted():
    """Spread 1 around 1e6: the Gram trick without centring loses ~12 digits."""
    return gaussian() + 1e6


def near_duplicates():
    """150 rows and a copy of each moved by ~1e-9: 150 near-duplicate pairs."""
    X = np.random.default_rng(4).standard_normal((150, 4))
    return np.vstack([X, X + 1e-9 * np.random.default_rng(5).standard_normal(X.shape)])


def adult_subsample():
    """1500 rows of UCI Adult's numeric columns: integers, heavy duplication."""
    root = Path(__file__).resolve().parents[1]
    for path in (root / "data" / "adult.csv.gz", root / "dppca/datasets/data/adult.csv.gz"):
        if path.exists():
            A = np.loadtxt(path, delimiter=",", skiprows=1)
            return A[np.random.default_rng(6).choice(len(A), 1500, replace=False)]
    pytest.skip("adult.csv.gz not found")


DATASETS = {
    "gaussian": gaussian,
    "t1": multivariate_t1,
    "rounded_integers": rounded_integers,
    "shifted_1e6": shifted,
    "near_duplicates_1e-9": near_duplicates,
    "adult_1500": adult_subsample,
}
SIGN_ARGS = {
    "spherical": {"sign": "spherical"},
    "winsorized": {"sign": "winsorized"},
    "winsorized_r0.7": {"sign": "winsorized", "radius": 0.7},
    "user_xi": {"xi": tanh_xi},
}


# ---------------------------------------------------------------------------
# Fast path against the explicit pair sum
# ---------------------------------------------------------------------------


#: Both engines (the fused numba kernel takes the built-in signs only).
ENGINES = ["blas", "fused"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("sign_args", SIGN_ARGS.values(), ids=SIGN_ARGS.keys())
@pytest.mark.parametrize("make_data", DATASETS.values(), ids=DATASETS.keys())
def test_fast_matches_naive(make_data, sign_args, engine):
    if engine == "fused" and "xi" in sign_args:
        pytest.skip("a user xi runs in Python: BLAS engine only")
    X = make_data()
    K = kendall_tau_matrix(X, **sign_args, engine=engine)
    assert rel_err(K, kendall_tau_matrix_naive(X, **sign_args)) < MATCH_RTOL


@pytest.mark.parametrize("tile", [2, 7, 33])
def test_near_duplicates_split_across_strips(tile, monkeypatch):
    # Small tiles put many near-duplicate pairs in different strips and
    # tiles; each must still be found and summed directly (the fused kernel's
    # row blocks and column tiles too, and its threads on a small input).
    X = near_duplicates()
    K = kendall_tau_matrix(X, tile=tile, engine="blas")
    assert rel_err(K, kendall_tau_matrix_naive(X)) < MATCH_RTOL
    monkeypatch.setattr(fused_pairs, "BLOCK_ROWS", tile)
    monkeypatch.setattr(fused_pairs, "BLOCK_COLS", tile + 3)
    monkeypatch.setattr(fused_pairs, "PARALLEL_MIN_ROWS", 2)
    K = kendall_tau_matrix(X, engine="fused")
    assert rel_err(K, kendall_tau_matrix_naive(X)) < MATCH_RTOL


def test_default_engine_follows_the_public_rule():
    X = gaussian()
    assert fused_pairs.use_fused(300, 5, "spherical")
    assert not fused_pairs.use_fused(300, fused_pairs.FUSED_MAX_P + 1, "spherical")
    assert not fused_pairs.use_fused(300, 5, "custom")
    # same arithmetic per pair, different summation order: rounding only (EXACT_RTOL)
    assert rel_err(kendall_tau_matrix(X), kendall_tau_matrix(X, engine="blas")) < EXACT_RTOL
    assert np.array_equal(kendall_tau_matrix(X), kendall_tau_matrix(X, engine="fused"))
    with pytest.raises(ValueError, match="`engine`"):
        kendall_tau_matrix(X, engine="gpu")
    with pytest.raises(ValueError, match="`engine`"):
        kendall_tau_matrix(X, xi=tanh_xi, engine="fused")
    # data near DBL_MAX make the winsorized sign a Python xi: the BLAS form runs, no refusal
    # (a refusal would depend on the data; the audit's DBL_MAX neighbours found it)
    big = X * 1e306
    big[0] = np.finfo(np.float64).max
    K = kendall_tau_matrix(big, "winsorized", radius=1e150, engine="fused")
    assert rel_err(K, kendall_tau_matrix_naive(big, "winsorized", radius=1e150)) < MATCH_RTOL


#: Dimensions with their own generated fused kernel to test: each one-row one-pass kernel
#: (d < TWO_ROWS_MIN_D), the first two-row ones, the two-row kernels at the edges of their
#: groups of coordinates (one to three distance passes), the rule's p.
_GROUP = fused_pairs.DIST_GROUP[2]
SPECIALISED_P = sorted({*range(1, fused_pairs.TWO_ROWS_MIN_D + 2), _GROUP, _GROUP + 1,
                        2 * _GROUP, 2 * _GROUP + 1, 3 * _GROUP + 1, fused_pairs.FUSED_MAX_P})


def hard_rows(p, seed=7):
    """Gaussian rows plus exact duplicates, near duplicates (moved by 1e-9), integer rows (ties
    in every coordinate), outliers 1e12 away and rows within 1e-12 of the centre."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((160, p))
    return np.vstack([X, X[:30], X[30:60] + 1e-9 * rng.standard_normal((30, p)),
                      np.round(X[60:90]), 1e12 * X[90:93], 1e-12 * X[93:96]])


@pytest.mark.parametrize("blocks", [None, (7, 13)], ids=["default tiles", "small tiles"])
@pytest.mark.parametrize("sign", SIGNS)
@pytest.mark.parametrize("p", SPECIALISED_P)
def test_fused_kernel_matches_blas_within_the_slack(p, sign, blocks, monkeypatch):
    # Each engine's normalised K is within e G^2 of the exact one in every entry, e the
    # per-entry error of kendall.rounding_slack (slack = d e n / sqrt2), so the two differ by
    # <= 2 e G^2; against the explicit pair sum they also agree to MATCH_RTOL (a wrong pair,
    # tile edge or flag shows up at 1e-3 or worse, far above both).
    if blocks:
        monkeypatch.setattr(fused_pairs, "BLOCK_ROWS", blocks[0])
        monkeypatch.setattr(fused_pairs, "BLOCK_COLS", blocks[1])
        monkeypatch.setattr(fused_pairs, "PARALLEL_MIN_ROWS", 2)
    X = hard_rows(p)
    n = X.shape[0]
    K = kendall_tau_matrix(X, sign, engine="fused")
    per_entry = kendall.rounding_slack(n, p) * np.sqrt(2.0) / (p * n)
    assert np.max(np.abs(K - kendall_tau_matrix(X, sign, engine="blas"))) <= \
        2 * per_entry * sign_bound(p, sign) ** 2
    assert rel_err(K, kendall_tau_matrix_naive(X, sign)) < MATCH_RTOL


def test_fused_kernel_compiles_in_memory_without_a_writable_folder(tmp_path, monkeypatch):
    # A read-only install and no user cache: the generated source cannot be written, so the
    # kernel is compiled in memory (no error, the same arithmetic: the same result bitwise).
    X = gaussian()[:, :2]
    K = kendall_tau_matrix(X, engine="fused")
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("")
    monkeypatch.setattr(fused_pairs, "_source_folders", lambda: [blocker / "sub"])
    fused_pairs._compiled_kernel.cache_clear()
    try:
        assert np.array_equal(kendall_tau_matrix(X, engine="fused"), K)
    finally:
        fused_pairs._compiled_kernel.cache_clear()


@settings(max_examples=60, deadline=None)
@given(
    X=st.integers(2, 25).flatmap(
        lambda n: st.integers(1, 4).flatmap(
            lambda d: arrays(
                np.float64,
                (n, d),
                # small integers force duplicates; the floats cover the rest
                elements=st.one_of(
                    st.integers(-2, 2).map(float),
                    st.floats(-1e3, 1e3, allow_subnormal=False),
                ),
            )
        )
    ),
    sign=st.sampled_from(SIGNS),
    tile=st.integers(1, 9),
    engine=st.sampled_from(ENGINES),
)
def test_fast_matches_naive_property(X, sign, tile, engine):
    K = kendall_tau_matrix(X, sign, tile=tile, engine=engine)
    K0 = kendall_tau_matrix_naive(X, sign)
    if not np.any(K0):  # all rows identical: both must be exactly 0
        assert not np.any(K)
    else:
        assert rel_err(K, K0) < MATCH_RTOL


# ---------------------------------------------------------------------------
# Structure of K
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sign", SIGNS)
def test_symmetric_and_deterministic(sign):
    X = multivariate_t1()
    K = kendall_tau_matrix(X, sign, tile=64)
    assert K.shape == (5, 5)
    assert np.array_equal(K, K.T)
    assert np.array_equal(K, kendall_tau_matrix(X, sign, tile=64))
    assert np.linalg.eigvalsh(K).min() > -1e-14  # PSD up to rounding


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cores, pinned_blas", [(1, True), (1, False), (2, True), (3, True)])
def test_threading_does_not_change_the_result(monkeypatch, cores, pinned_blas, engine):
    # The split over worker threads (and the fallback without OpenBLAS's
    # thread-local switch) only reorders the sum.
    X = rounded_integers()
    K = kendall_tau_matrix(X, tile=50, engine=engine)
    monkeypatch.setattr(kendall, "available_cores", lambda: cores)
    monkeypatch.setattr(fused_pairs, "available_cores", lambda: cores)
    monkeypatch.setattr(fused_pairs, "PARALLEL_MIN_ROWS", 2)
    if not pinned_blas:
        monkeypatch.setattr(kendall, "openblas_local_thread_setters", lambda: ())
    assert rel_err(kendall_tau_matrix(X, tile=50, engine=engine), K) < EXACT_RTOL


def test_spherical_trace_is_one_without_duplicates():
    # Each pair adds a unit-norm g, so tr K is the mean of ||g||^2 = 1.
    assert abs(np.trace(kendall_tau_matrix(gaussian())) - 1.0) < EXACT_RTOL


def test_spherical_trace_is_share_of_distinct_pairs():
    X = rounded_integers()
    distinct = np.mean(pdist(X) > 0)
    assert distinct < 0.99  # the data really have duplicates
    assert abs(np.trace(kendall_tau_matrix(X)) - distinct) < EXACT_RTOL


@pytest.mark.parametrize("radius", [None, 0.5, 100.0])
def test_winsorized_trace_is_mean_squared_sign(radius):
    X = multivariate_t1()
    r = np.sqrt(X.shape[1]) if radius is None else radius
    # ||g(t)|| = min(r, ||t||) with t = (x_j - x_i)/sqrt2, computed by scipy.
    expected = np.mean(np.minimum(r, pdist(X) / np.sqrt(2.0)) ** 2)
    K = kendall_tau_matrix(X, "winsorized", radius)
    assert abs(np.trace(K) - expected) < EXACT_RTOL * expected


@pytest.mark.parametrize("sign", ["spherical", "winsorized"])
@pytest.mark.parametrize("tile, cols", [(7, 7), (2048, 64)])
def test_blas_weight_pass_without_numba_matches_the_compiled_pass(sign, tile, cols, monkeypatch):
    # The compiled weight pass (blas_blocks._weigh) and its numpy fallback weigh, test and mask
    # the same pairs with the same arithmetic (the distance's d + 2 terms in another order), so
    # they agree to rounding; a pair masked or flagged by one only would show up at 1e-3.
    # 64 columns per block give blocks of 300 x 64: a diagonal mask across five blocks.
    monkeypatch.setattr(blas_blocks, "BLOCK_COLS", cols)
    X = rounded_integers()
    K = kendall_tau_matrix(X, sign, tile=tile, engine="blas")
    monkeypatch.setattr(blas_blocks, "_weigh_kernel", lambda: None)
    assert rel_err(kendall_tau_matrix(X, sign, tile=tile, engine="blas"), K) < EXACT_RTOL
    assert rel_err(K, kendall_tau_matrix_naive(X, sign)) < MATCH_RTOL


@pytest.mark.parametrize("sign_args", SIGN_ARGS.values(), ids=SIGN_ARGS.keys())
def test_tile_size_does_not_matter(sign_args):
    X = rounded_integers()
    K = kendall_tau_matrix(X, **sign_args, tile=2048)
    for tile in (1, 7, 64, 299, 300):
        assert rel_err(kendall_tau_matrix(X, **sign_args, tile=tile), K) < EXACT_RTOL


@pytest.mark.parametrize("sign_args", SIGN_ARGS.values(), ids=SIGN_ARGS.keys())
def test_translation_and_rotation_invariance(sign_args):
    X = multivariate_t1()
    Q = ortho_group.rvs(5, random_state=7)
    K = kendall_tau_matrix(X, **sign_args)
    shifted_K = kendall_tau_matrix(X + np.arange(1.0, 6.0) * 1e3, **sign_args)
    rotated_K = kendall_tau_matrix(X @ Q, **sign_args)
    assert rel_err(shifted_K, K) < EXACT_RTOL
    # x -> Q^T x maps g(t) g(t)^T to Q^T g g^T Q (g is orthogonally equivariant)
    assert rel_err(rotated_K, Q.T @ K @ Q) < EXACT_RTOL


@pytest.mark.parametrize("factor", [3.0, 2.0**20, 1e8])
def test_winsorized_radius_is_in_data_units(factor):
    # g^(c r)(c t) = c g^(r)(t), so K scales by c^2 when data and radius do.
    X = multivariate_t1()
    K = kendall_tau_matrix(X, "winsorized", 1.5)
    scaled = kendall_tau_matrix(factor * X, "winsorized", factor * 1.5)
    assert rel_err(scaled / factor**2, K) < EXACT_RTOL


@pytest.mark.parametrize("sign", SIGNS)
def test_duplicate_rows_contribute_zero(sign):
    a, b = np.array([1.0, 2.0, 3.0]), np.array([2.0, 0.0, 5.0])
    X = np.array([a, a, b, b, a])
    g = spatial_sign((b - a) / np.sqrt(2.0), sign)
    # 6 of the 10 pairs are (a, b); the 4 duplicate pairs add nothing.
    expected = 6 * np.outer(g, g) / 10
    assert rel_err(kendall_tau_matrix(X, sign), expected) < EXACT_RTOL
    assert np.array_equal(kendall_tau_matrix(np.ones((50, 3)), sign), np.zeros((3, 3)))


def test_two_rows_give_one_outer_product():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert np.allclose(kendall_tau_matrix(X), [[0.36, 0.48], [0.48, 0.64]], rtol=0, atol=1e-15)


def test_adult_full_data_is_finite_and_matches_duplicate_share():
    A = adult_subsample()  # skips when the data are absent
    K = kendall_tau_matrix(A)
    assert np.all(np.isfinite(K))
    assert abs(np.trace(K) - np.mean(pdist(A) > 0)) < EXACT_RTOL


# ---------------------------------------------------------------------------
# spatial_sign and sign_bound
# ---------------------------------------------------------------------------


def test_spatial_sign_values():
    T = np.array([[3.0, 4.0], [0.0, 0.0], [0.3, 0.4], [-6.0, 8.0]])
    assert np.allclose(spatial_sign(T), [[0.6, 0.8], [0, 0], [0.6, 0.8], [-0.6, 0.8]])
    wins = spatial_sign(T, "winsorized", radius=2.0)
    assert np.allclose(wins, [[1.2, 1.6], [0, 0], [0.3, 0.4], [-1.2, 1.6]])
    assert np.allclose(spatial_sign(T[0], "winsorized"), T[0] * np.sqrt(2) / 5)
    assert np.allclose(spatial_sign(T[:1], xi=lambda s: 2 * s), 2 * T[:1])


def test_spatial_sign_extreme_scales():
    # Norms via power-of-two rescaling: no overflow or underflow.
    T = np.array([[3e200, 4e200], [3e-200, 4e-200]])
    assert np.allclose(spatial_sign(T), [[0.6, 0.8], [0.6, 0.8]])


@pytest.mark.parametrize("sign_args", SIGN_ARGS.values(), ids=SIGN_ARGS.keys())
def test_spatial_sign_respects_bound(sign_args):
    T = 10.0 * np.random.default_rng(8).standard_cauchy((500, 5))
    norms = np.linalg.norm(spatial_sign(T, **sign_args), axis=1)
    bound = sign_bound(5, sign_args.get("sign", "spherical"), sign_args.get("radius"),
                       1.0 if "xi" in sign_args else None)
    assert norms.max() <= bound * (1 + 1e-15)


def test_sign_bound_values():
    assert sign_bound(9) == 1.0
    assert sign_bound(9, "winsorized") == 3.0
    assert sign_bound(9, "winsorized", radius=0.5) == 0.5
    assert sign_bound(9, xi_bound=2.5) == 2.5
    assert sign_bound(9, xi_bound=2.5, xi=tanh_xi) == 2.5


# ---------------------------------------------------------------------------
# Bad arguments
# ---------------------------------------------------------------------------

X_SMALL = np.arange(12.0).reshape(4, 3)


@pytest.mark.parametrize("func", [kendall_tau_matrix, kendall_tau_matrix_naive, spatial_sign])
@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"sign": "gaussian"}, "sign"),
        ({"sign": None}, "sign"),
        ({"sign": "winsorized", "radius": 0.0}, "radius"),
        ({"sign": "winsorized", "radius": -1.0}, "radius"),
        ({"sign": "winsorized", "radius": np.inf}, "radius"),
        ({"sign": "winsorized", "radius": np.nan}, "radius"),
        ({"sign": "winsorized", "radius": "1"}, "radius"),
        ({"sign": "winsorized", "radius": True}, "radius"),
        ({"xi": 1.0}, "xi"),
        ({"xi": lambda s: np.ones(3)}, "xi"),  # wrong shape
        ({"xi": lambda s: np.full_like(s, np.nan)}, "xi"),  # not finite
    ],
)
def test_bad_sign_arguments(func, kwargs, name):
    with pytest.raises((DPPCAValueError, DPPCATypeError),  # not any ValueError / TypeError
                        match=f"`{name}`"):
        func(X_SMALL, **kwargs)


def test_unknown_sign_lists_options():
    with pytest.raises(ValueError, match="spherical.*winsorized"):
        kendall_tau_matrix(X_SMALL, "wins")


@pytest.mark.parametrize("tile", [0, -3, 2.5, True, "64", None])
def test_bad_tile(tile):
    with pytest.raises((DPPCAValueError, DPPCATypeError),  # not any ValueError / TypeError
                        match="`tile`"):
        kendall_tau_matrix(X_SMALL, tile=tile)


@pytest.mark.parametrize("X", [np.ones(5), np.ones((1, 3)), np.ones((2, 2, 2))])
def test_bad_shape(X):
    with pytest.raises(ValueError, match="`X`"):
        kendall_tau_matrix(X)


@pytest.mark.parametrize(
    "args, kwargs, name",
    [
        ((0,), {}, "d"),
        ((2.5,), {}, "d"),  # whole doubles are accepted (R passes them), fractions are not
        ((3, "bogus"), {}, "sign"),
        ((3, "winsorized", -2.0), {}, "radius"),
        ((3,), {"xi_bound": 0.0}, "xi_bound"),
        ((3,), {"xi_bound": np.inf}, "xi_bound"),
        ((3,), {"xi": tanh_xi}, "xi_bound"),  # missing
        ((3,), {"xi": "tanh", "xi_bound": 1.0}, "xi"),
    ],
)
def test_bad_sign_bound_arguments(args, kwargs, name):
    with pytest.raises((DPPCAValueError, DPPCATypeError),  # not any ValueError / TypeError
                        match=f"`{name}`"):
        sign_bound(*args, **kwargs)


@pytest.mark.parametrize("n, tile", [(858, 2048), (3000, 2048), (130, 64), (40, 7)])
def test_blocks_cover_each_pair_once(n, tile):
    # Blocks of rows x columns (858 x 320 and 1024 x 320 at the default tile: a strip's
    # diagonal crosses several blocks), split over 2 workers, whose weight pass keeps the pairs j > i: every pair
    # i < j is weighed exactly once.
    from dppca.stats.blas_blocks import block_shape, block_tasks

    hits = np.zeros((n, n), dtype=np.int64)
    height, width = block_shape(n, tile)
    for worker in range(2):
        for rows, cols in block_tasks(n, height, width, worker, 2):
            i, j = np.ogrid[rows, cols]
            hits[rows, cols] += j > i
    assert np.array_equal(hits, np.triu(np.ones((n, n), dtype=np.int64), 1))


def test_blas_thread_count_is_restored_after_every_call():
    # OpenBLAS's "thread-local" switch sets the whole process's count in pthreads builds (the
    # numpy and scipy wheels); worker threads each restoring their own "previous" count raced
    # and left the caller on one BLAS thread in 15 of 23 calls below (main at 97f04c9). Each
    # call must leave every loaded OpenBLAS's count as it found it.
    from threadpoolctl import threadpool_info

    from dppca import dp_pc_dir

    def counts():
        return [info["num_threads"] for info in threadpool_info()]

    before = counts()
    X = np.random.default_rng(0).standard_normal((3000, 50))
    for _ in range(10):
        kendall_tau_matrix(X, engine="blas")  # two workers where the machine has two cores
        assert counts() == before
        kendall_tau_matrix(X[:, :10])  # the fused kernel
        assert counts() == before
    Y = np.random.default_rng(1).standard_normal((60_000, 10))  # n^2 p above COMPLETE_WORK
    for seed in range(2):
        dp_pc_dir(Y, 2, eps=1, delta=1e-5, rng=seed)  # the incomplete design's block workers
        assert counts() == before
