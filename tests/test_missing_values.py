"""Missing values as a declared policy: no entry point refuses or warns on NaN or inf cells, the
ledger and messages of neighbours differing by one missing cell are the same, and the
pairwise-present estimators equal the complete-data ones on complete data."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCA, dp_pc_dir, dp_score, dp_score_group, dp_scree
from dppca._validation import DPPCAValueError
from dppca.metrics import sin_theta
from dppca.methods.pairwise_present import present_count_sensitivity
from dppca.preprocessing.missing import resolve_missing
from dppca.stats.elementwise_kendall import kendall_sign_counts
from dppca.stats.kendall import kendall_tau_matrix
from dppca.stats.pairwise_kendall import present_kendall_counts
from dppca.stats.present_spatial_kendall import present_spatial_kendall


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(0)
    data = pd.DataFrame(rng.normal(size=(600, 4)) @ rng.normal(size=(4, 4)),
                        columns=list("abcd"))
    holes = data.copy()
    holes.iloc[7, 1] = np.nan
    holes.iloc[11, 2] = np.inf
    more = holes.copy()
    more.iloc[20, 3] = np.nan  # the neighbour: one more missing cell
    return data, holes, more


ENTRY_POINTS = {
    "gdppca": lambda X: dp_pc_dir(X, 2, eps=1, delta=1e-5, rng=3),
    "rank": lambda X: dp_pc_dir(X, 2, standardize="rank", eps=1, delta=1e-5, rng=3),
    "rank_pairwise": lambda X: dp_pc_dir(X, 2, standardize="rank", eps=1, delta=1e-5, rng=3,
                                         missing="pairwise"),
    "analyze_gauss": lambda X: dp_pc_dir(X, 2, method="analyze_gauss", eps=1, delta=1e-5, rng=3),
    "standardized": lambda X: dp_pc_dir(X, 2, standardize=True, eps=1, delta=1e-5, rng=3),
    "scree": lambda X: dp_scree(X, 2, eps=2, delta=1e-5, rng=3),
    "scree_rank": lambda X: dp_scree(X, 2, standardize="rank", eps=2, delta=1e-5, rng=3),
    "score": lambda X: dp_score(X, 2, 1e-5, rng=3),
    "score_group": lambda X: dp_score_group(X.assign(g=["x", "y"] * 300), "g", 3, 1e-5,
                                            levels=["x", "y"], rng=3),
    "DPPCA": lambda X: _fitted(DPPCA(2, eps=2, delta=1e-5, random_state=3).fit(X)),
}


def _fitted(model):
    """The fitted model, its ledger where the surface test reads it."""
    model.ledger, model.missing = model.ledger_, model.ledger_.missing
    return model


def _ledger(result):
    ledger = getattr(result, "combined_ledger", None) or result.ledger
    return ledger.to_frame().drop(columns=["noise_scale"], errors="ignore")


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_no_refusal_no_warning_and_the_same_ledger_for_one_more_missing_cell(frames, name):
    _, holes, more = frames
    with warnings.catch_warnings(record=True) as first:
        warnings.simplefilter("always")
        a = ENTRY_POINTS[name](holes)
    with warnings.catch_warnings(record=True) as second:
        warnings.simplefilter("always")
        b = ENTRY_POINTS[name](more)
    assert [str(w.message) for w in first] == [str(w.message) for w in second]
    pd.testing.assert_frame_equal(_ledger(a), _ledger(b))
    assert a.missing == b.missing
    ledger = getattr(a, "combined_ledger", None) or a.ledger
    assert ledger.spent_eps <= ledger.eps * (1 + 1e-12)


def test_pairwise_on_complete_data_is_the_old_gdppca(frames):
    data, _, _ = frames
    old = dp_pc_dir(data, 2, eps=1, delta=1e-5, rng=5, missing=0.0)  # nothing to fill: as before
    new = dp_pc_dir(data, 2, eps=1, delta=1e-5, rng=5, missing="pairwise")
    np.testing.assert_array_equal(old.directions.to_numpy(), new.directions.to_numpy())
    x = data.to_numpy()
    # Same pairs, same signs: only the order of the additions differs (relative 1e-12).
    np.testing.assert_allclose(present_spatial_kendall(x), kendall_tau_matrix(x), atol=1e-12)


def test_pairwise_present_sign_sums_are_the_complete_ones_on_complete_data(frames):
    x = frames[0].to_numpy().copy()
    x[:, 1] = np.round(x[:, 1])  # ties
    counts, present = present_kendall_counts(x)
    np.testing.assert_array_equal(counts, kendall_sign_counts(x)[0])
    assert (present == x.shape[0]).all()
    x[3, 0] = x[9, 1] = np.nan
    counts, present = present_kendall_counts(x)
    both = ~np.isnan(x[:, 0]) & ~np.isnan(x[:, 1])
    assert counts[0, 1] == kendall_sign_counts(x[both][:, :2])[0][0, 1]
    assert present[0, 1] == both.sum() == x.shape[0] - 2


def test_policy_errors_come_from_the_arguments():
    with pytest.raises(DPPCAValueError, match="add/remove"):
        resolve_missing("drop", entry="dp_pc_dir")
    with pytest.raises(DPPCAValueError, match="needs every cell"):
        resolve_missing("pairwise", entry="dp_scree")
    with pytest.raises(DPPCAValueError, match="`missing` must be one of"):
        resolve_missing("zero", entry="dp_score")
    assert resolve_missing("drop", entry="dp_pc_dir", neighbouring="add_remove").kind == "drop"
    with pytest.raises(DPPCAValueError, match="`pairwise` must be"):
        resolve_missing("auto", entry="dp_pc_dir", pairwise=True)


@pytest.mark.parametrize(("call", "default"), [
    (dict(standardize="rank"), "median"),      # the rank path: private medians
    (dict(method="rank"), "median"),
    ({}, "pairwise"),                          # g-DPPCA in raw units: pairwise present
    (dict(standardize=True), "median"),        # private scales need every cell
])
def test_auto_is_the_rank_paths_medians_and_g_dppcas_pairwise(frames, call, default):
    """missing="auto" is the same call as the policy it names (same seed: the same draws, the
    same directions and ledger rows), and "pairwise" stays available on the rank path."""
    _, holes, _ = frames
    auto = dp_pc_dir(holes, 2, eps=1, delta=1e-5, rng=3, **call)
    named = dp_pc_dir(holes, 2, eps=1, delta=1e-5, rng=3, missing=default, **call)
    assert auto.missing == f"{named.missing} (auto)"
    np.testing.assert_array_equal(auto.directions.to_numpy(), named.directions.to_numpy())
    assert auto.ledger.to_frame()["step"].tolist() == named.ledger.to_frame()["step"].tolist()
    if call.get("standardize") == "rank":
        asked = dp_pc_dir(holes, 2, eps=1, delta=1e-5, rng=3, missing="pairwise", **call)
        assert asked.missing == "pairwise present"


def test_count_sensitivity_is_attained_by_a_complete_row_replaced_by_an_empty_one():
    p = 5
    rows, cols = np.triu_indices(p)
    full, empty = np.ones(p), np.zeros(p)
    change = np.outer(full, full)[rows, cols] - np.outer(empty, empty)[rows, cols]
    assert np.linalg.norm(change) == pytest.approx(present_count_sensitivity(p))
    rng = np.random.default_rng(1)
    for _ in range(200):  # no pair of indicator vectors exceeds it
        u, v = rng.integers(0, 2, p), rng.integers(0, 2, p)
        diff = np.outer(u, u)[rows, cols] - np.outer(v, v)[rows, cols]
        assert np.linalg.norm(diff) <= present_count_sensitivity(p) + 1e-12


def test_rank_path_pairwise_at_15_percent_mcar_is_accurate():
    """Gaussian simulation, n = 4000, p = 6, eps = 2, 15% MCAR, 5 seeds, missing="pairwise".

    The pairwise-present entry keeps the pairs whose two rows observe both columns, a share
    (1 - 0.15)^4 = 0.52, so the tau noise (sd 2 p / (n mu sqrt(0.85)), mu = 0.5 at eps = 2) is
    amplified 1 / 0.52: sd 0.013 per entry, about 0.02 per latent correlation (the sine's slope
    pi / 2), ||E|| about sqrt(p) 0.02 = 0.05, and with the gap 3.2 the Davis-Kahan bound
    sqrt(2) ||E|| / gap is 0.02; the test allows 0.05. The debias is checked on the top
    eigenvalue (without the rescaling the counts release, it would shrink by the pair share
    towards 1): within 5% of the complete data's.
    """
    rng = np.random.default_rng(7)
    n, p = 4000, 6
    loading = np.array([1.0, 1.0, 1.0, 0.8, 0.5, 0.2])
    x = rng.normal(size=(n, 1)) * loading + rng.normal(size=(n, p)) * 0.6
    truth = dp_pc_dir(x, 1, standardize="rank")
    holes = x.copy()
    holes[rng.random(x.shape) < 0.15] = np.nan
    errors, values = [], []
    for seed in range(5):
        fit = dp_pc_dir(holes, 1, standardize="rank", eps=2, delta=1e-5, rng=seed,
                        missing="pairwise")
        errors.append(sin_theta(fit.directions.to_numpy(), truth.directions.to_numpy()))
        values.append(np.asarray(fit.eigenvalues)[0])
    assert np.mean(errors) < 0.05
    assert math.isclose(np.mean(values), np.asarray(truth.eigenvalues)[0], rel_tol=0.05)


def test_dppca_transform_fills_with_the_released_medians(frames):
    _, holes, _ = frames
    model = DPPCA(2, eps=2, delta=1e-5, random_state=0).fit(holes)
    assert list(model.fill_) == list(holes.columns)
    scores = model.transform(holes.iloc[:20])
    assert scores.shape == (20, 2) and np.isfinite(scores[[0, 1, 2, 3, 5, 8]]).all()


def test_report_applies_the_policy_once(tmp_path, frames):
    import json

    from dppca.cli import main

    _, holes, _ = frames
    holes.to_csv(tmp_path / "holes.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main(["report", "--data", str(tmp_path / "holes.csv"), "--eps", "2", "--delta", "1e-5",
              "--seed", "1", "--sections", "directions,scree", "--out", str(tmp_path / "out")])
    ledger = json.loads((tmp_path / "out" / "ledger.json").read_text())["sections"]
    assert list(ledger) == ["missing", "directions", "scree"]
    spent = sum(r["eps"] for section in ledger.values() for r in section["releases"])
    assert spent == pytest.approx(2.0)  # medians (10%) + two sections of the rest
    assert not any(r["step"].startswith("missing") for r in ledger["scree"]["releases"])


def test_rank_pairwise_present_over_a_block_design():
    """Large n takes the block design; NaN cells are ties there too and the same released
    counts rescale the sign sums. At n = 20,000, p = 4, 15% MCAR, eps = 4 the noise sd of an
    entry is about 2 p / n x 1.2 / eps / 0.52 ~ 2e-4 and the design's extra sampling sd about
    sqrt(2 / (n r)) ~ 2.6e-3 per entry (r = 15), both far below PC1's gap (p rho = 2), so the
    first direction is within sin-theta 0.05 of the complete data's non-private one."""
    rng = np.random.default_rng(11)
    n, p = 20_000, 4
    x = 0.5 ** 0.5 * rng.standard_normal((n, 1)) + 0.5 ** 0.5 * rng.standard_normal((n, p))
    holed = x.copy()
    holed[rng.random(x.shape) < 0.15] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dp_pc_dir(holed, 1, standardize="rank", eps=4.0, delta=1e-5, rng=3,
                           design="incomplete", pairs_per_row=15, missing="pairwise")
        reference = dp_pc_dir(x, 1, standardize="rank", g_dppca=False)
    steps = result.ledger.to_frame()["step"].tolist()
    assert steps[0].startswith("directions: elementwise Kendall's tau, pairwise present")
    assert "block design" in steps[0] and "present-row counts" in steps[1]
    assert sin_theta(result.directions.to_numpy(), reference.directions.to_numpy()) < 0.05


def test_an_integer_column_gets_its_median_whether_or_not_a_cell_is_missing():
    """A CSV column reads as int64 without a hole and as float64 with one: the median release
    (and so the ledger) must not follow the dtype the hole gives."""
    rng = np.random.default_rng(5)
    whole = pd.DataFrame({"a": rng.integers(0, 50, 300), "b": rng.normal(size=300)})
    holed = whole.astype({"a": float})
    holed.loc[7, "a"] = np.nan
    ledgers = [dp_scree(X, 2, eps=1.0, delta=1e-5, rng=2).combined_ledger.to_frame()
               for X in (whole, holed)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        steps = [list(frame["step"]) for frame in ledgers]
    assert steps[0] == steps[1] and steps[0][0] == "missing values: private column medians"
    pd.testing.assert_series_equal(ledgers[0]["sensitivity"], ledgers[1]["sensitivity"])


def test_private_medians_carry_no_phantom_bins_at_a_small_budget():
    """N(5, 1), n = 3000, eps 0.02: noise sd 229 per count. A bin without data passes the
    threshold with probability 0.05 / 289 (Bonferroni), so at most 5% of the runs carry a
    phantom bin and the others read the median within 1 sd: 34 of 40 fails with probability
    3e-3 even if every phantom moved it that far. At the old 2 sd, about 6.6 phantom bins of
    more than 450 counts each per column put 11 of 40 medians beyond 1 sd (some at 0)."""
    from dppca.preprocessing.missing import private_medians
    from dppca.privacy.composition import GaussianGroup

    x = np.random.default_rng(0).normal(5.0, 1.0, size=(3000, 1))
    share = GaussianGroup(0.02, 1e-6).share(1.0)
    medians = [private_medians(x, share, np.random.default_rng(seed))[0] for seed in range(40)]
    assert np.sum(np.abs(np.array(medians) - 5.0) < 1.0) >= 34


def test_a_partial_dict_of_declared_values_is_labelled_with_its_medians():
    # a dict names some columns; the others get private medians, and the label says so (a
    # single number declares every column: no median, so its label names no median)
    from dppca.preprocessing.missing import resolve_missing

    partial = resolve_missing({"a": 0.0}, entry="dp_scree")
    assert "median imputation for the others" in partial.label
    assert "median" not in resolve_missing(0.0, entry="dp_scree").label


def test_private_medians_of_a_narrow_column_far_from_zero_are_refined():
    """Years 1974-2002 (sd 8.4, n = 4000) lie in one bin [1448, 2048) of the log grid, so one
    stage reads the median hundreds of sds off. The refinements (600 / 6^3 = 2.8 years per bin
    at the last stage) read it off counts of 4000 / 29 = 138 per year: at eps 0.1 (the medians'
    share of eps 1), a refinement's noise sd per count is 51 x sqrt(10) = 162, under the
    2.50 sd threshold (405) at the last stage, which falls back to the stage before: bins of
    16.7 years, whose kept counts (two bins share the data's 29 years) put the median within
    those bins: within 0.75 sd (6.3 years, under half of such a bin) in at least 19 of 20 seeds
    (one stage reads it at 1448-1750, hundreds of sds off)."""
    from dppca.preprocessing.missing import private_medians
    from dppca.privacy.composition import GaussianGroup

    years = np.random.default_rng(0).integers(1974, 2003, size=(4000, 1)).astype(float)
    share = GaussianGroup(0.1, 1e-6).share(1.0)
    medians = np.array([private_medians(years, share, np.random.default_rng(seed))[0]
                        for seed in range(20)])
    assert np.sum(np.abs(medians - np.median(years)) < 0.75 * years.std()) >= 19


def test_private_medians_release_every_stage_whatever_the_data():
    """The ledger has one row per stage with the same noise, whether a column is all missing,
    constant, or spread (a fall-back is post-processing, never a missing release)."""
    from dppca.preprocessing.median_stages import MEDIAN_STAGES
    from dppca.preprocessing.missing import private_medians
    from dppca.privacy import Ledger
    from dppca.privacy.composition import GaussianGroup

    rng = np.random.default_rng(1)
    frames = []
    for x in (np.full((500, 2), np.nan), np.full((500, 2), 3.0), rng.normal(size=(500, 2))):
        ledger = Ledger(1.0, 1e-5)
        private_medians(x, GaussianGroup(1.0, 1e-5).share(1.0), np.random.default_rng(0), ledger)
        frames.append(ledger.to_frame())
    assert len(frames[0]) == MEDIAN_STAGES
    for frame in frames[1:]:
        pd.testing.assert_frame_equal(frame, frames[0])


def test_private_median_of_a_column_of_mostly_zeros_is_exactly_zero():
    """90% exact zeros: the median's bin is the grid's central one, (-2^-24, 2^-24), read as 0
    (an interpolated 1e-10 next to the zeros would be a value of its own to pair statistics).
    The zeros' 3,600 counts are 41 noise sd of stage 1 (sd 87), which finds that bin in every
    seed."""
    from dppca.preprocessing.missing import private_medians
    from dppca.privacy.composition import GaussianGroup

    rng = np.random.default_rng(3)
    x = np.where(rng.random((4000, 2)) < 0.9, 0.0, rng.lognormal(5.0, 1.0, (4000, 2)))
    share = GaussianGroup(0.1, 1e-6).share(1.0)
    for seed in range(5):
        assert private_medians(x, share, np.random.default_rng(seed)).tolist() == [0.0, 0.0]
