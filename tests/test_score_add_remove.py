"""``dp_score`` and its relatives under ``neighbouring="add_remove"`` (n private): the count first,
the directions, frame and histograms at its bounds, the refusals from the arguments, and the
surface test that the true n appears in no output."""
import json
import math
import warnings

import numpy as np
import pytest

from dppca import (DPPCAValueError, dp_score, dp_score_group, dp_score_plot,
                   dp_score_plot_group)
from dppca.estimators.histograms import default_bins
from dppca.methods.add_remove import kendall_add_remove_sensitivity
from dppca.privacy import Ledger
from dppca.privacy.counted_group import count_first
from dppca.privacy.neighbouring import COUNT_DELTA_SHARE
from dppca.privacy.quantiles import private_quantile, unbounded_quantile
from dppca.score import BUDGET_SHARES

from test_neighbouring import DELTA, EPS, N, _shows_n, data  # noqa: F401 (data: a fixture)

#: The directions' third of (eps, delta) holds the count (dp_score's Notes).
EPS_D, DELTA_D = EPS * BUDGET_SHARES[True]["directions"], DELTA * BUDGET_SHARES[True]["directions"]


def _count(seed):
    """The count a call with ``rng=seed`` releases first (the same draw of the same generator)."""
    return count_first(N, EPS_D, DELTA_D, "analytic", np.random.default_rng(seed),
                       Ledger(EPS_D, DELTA_D))[0]


def test_score_releases_the_count_first_and_takes_every_sensitivity_at_its_bounds(data):
    result = dp_score(data, EPS, DELTA, rng=5, neighbouring="add_remove")
    count = _count(5)
    assert count.lower < N < count.upper  # fails with probability delta_n
    assert result.n_obs == count.reported != N
    frame = result.ledger.to_frame()
    assert list(frame["step"][:2]) == ["row count (add/remove neighbours)",
                                       "row count: public bounds n_lo, n_hi (failure probability)"]
    assert frame["delta"][1] == pytest.approx(COUNT_DELTA_SHARE * DELTA_D, rel=1e-12)
    rows = dict(zip(frame["step"], frame["sensitivity"]))
    # the directions: 2 sqrt(2) / (n_lo + 1) plus the engine's slack at n_hi, above the
    # replace-one bound at the true n
    assert rows["directions: Kendall's tau matrix"] == pytest.approx(
        kendall_add_remove_sensitivity(count.lower, 4, slack_rows=count.upper), rel=1e-12)
    assert rows["directions: Kendall's tau matrix"] > 2 * math.sqrt(2) / N
    # the frame's searches and the histograms keep their bounds (1 per count; sqrt(2), 2)
    assert rows["frame: radius (x)"] == rows["frame: x median"] == 1.0
    assert rows["histogram: add"] == pytest.approx(math.sqrt(2.0))
    # the default bins read the public bound n_lo + 1, not n
    eps_h, delta_h = EPS * BUDGET_SHARES[True]["histograms"] / 2, \
        DELTA * BUDGET_SHARES[True]["histograms"] / 2
    assert result.bins == (default_bins(count.lower + 1, ("add", "sparse"), eps_h, delta_h),) * 2
    # the whole budget, never more (the samplers' snapping raises each sigma a hair)
    assert EPS * (1 - 1e-6) <= result.ledger.spent_eps <= EPS * (1 + 1e-9)
    assert result.ledger.spent_delta <= DELTA * (1 + 1e-9)
    assert result.ledger.to_dict()["neighbouring"] == "add/remove (n private)"


def test_searches_aim_at_q_times_the_public_count():
    # 1,000 values 1..1000: the 0.5 target of a count of 2,000 is rank 1,000, the largest value;
    # of the true m, rank 500. At eps = 50 the searches' rank error is about
    # (2 / 50) ln(#candidates) < 1 rank, so +-30 ranks cannot fail but for a broken target.
    x = np.arange(1.0, 1001.0)
    rng = np.random.default_rng(0)
    assert abs(unbounded_quantile(x, 0.5, 50.0, rng) - 500) < 30
    assert unbounded_quantile(x, 0.5, 50.0, rng, count=2000.0) > 970
    assert abs(unbounded_quantile(x, 0.5, 50.0, rng, count=1200.0) - 600) < 30
    assert abs(private_quantile(x, 0.5, 50.0, rng, 0.0, 2000.0) - 500) < 30
    assert abs(private_quantile(x, 0.5, 50.0, rng, 0.0, 2000.0, count=1200.0) - 600) < 30


@pytest.mark.parametrize("call", [
    lambda X: dp_score(X, EPS, DELTA, standardize="rank", neighbouring="add_remove"),
    lambda X: dp_score(X, EPS, DELTA, g_dppca=False, neighbouring="add_remove"),
    lambda X: dp_score(X, EPS, DELTA, standardize=True, neighbouring="add_remove"),
    lambda X: dp_score(X, EPS, DELTA, noise="r_dppca", neighbouring="add_remove"),
    lambda X: dp_score_plot(X, EPS, DELTA, standardize="rank", neighbouring="add_remove"),
    lambda X: dp_score_group(X, np.zeros(len(X)), EPS, DELTA, levels=[0.0], g_dppca=False,
                             neighbouring="add_remove"),
    lambda X: dp_score_plot_group(X, np.zeros(len(X)), EPS, DELTA, levels=[0.0],
                                  standardize="rank", neighbouring="add_remove"),
])
def test_uncovered_score_releases_are_refused_from_the_arguments(data, call):
    for X in (data, data.iloc[:3]):  # the same refusal whatever the rows
        with pytest.raises(DPPCAValueError, match="neighbouring='add_remove' is not supported by"):
            call(X)


def test_declared_scales_are_covered(data):
    result = dp_score(data, EPS, DELTA, standardize=True, scale=[3.0, 3.0, 1.0, 1.0], rng=1,
                      neighbouring="add_remove")
    assert result.scale_source != "none" and result.n_obs != N


def _texts(result) -> list:
    """Every printed or exported field of a score result (and its figure when drawn)."""
    texts = [str(result.summary()), repr(result), json.dumps(result.to_dict(), default=str),
             result.to_frame().to_csv(), result.ledger.to_frame().to_csv(), repr(result.ledger),
             json.dumps(result.ledger.to_dict(), default=str), str(result.directions.summary()),
             repr(result.directions), json.dumps(result.directions.to_dict(), default=str),
             str(result.n_obs), str(vars(result).get("group_sizes"))]
    texts += [str(step) for step in getattr(result.directions.accuracy, "steps", [])]
    texts += [str(len(frame)) for samples in result.samples.values()
              for frame in samples.values()]
    if result.figure is not None:
        texts += [text.get_text() for text in result.figure.texts]
        texts += [text.get_text() for ax in result.figure.axes
                  for text in ax.texts + [ax.title, ax.xaxis.label, ax.yaxis.label]]
    return texts


def _run(call, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call(*args, **kwargs)
    return result, [str(w.message) for w in caught]


def test_true_n_appears_in_no_score_output(data):
    import matplotlib

    matplotlib.use("Agg")
    labels = np.where(data["a"].to_numpy() > 0, "up", "down")
    runs = [_run(dp_score_plot, data, EPS, DELTA, rng=2, neighbouring="add_remove"),
            _run(dp_score_plot_group, data, labels, EPS, DELTA, rng=2,
                 neighbouring="add_remove"),
            _run(dp_score_group, data, labels, EPS, DELTA, levels=["down", "up", "other"], rng=2,
                 neighbouring="add_remove", bounds={c: (-40.0, 40.0) for c in "abcd"})]
    texts = []
    for result, messages in runs:
        assert result.n_obs != N
        summary = str(result.summary())
        assert "No. Observations (noisy)" in summary and "add/remove" in summary
        assert str(result.n_obs) in summary
        texts += _texts(result) + messages
    assert runs[1][0].groups == ["down", "up"]  # partition selection ran under add/remove
    assert not [text[:200] for text in texts if _shows_n(text)]
    # the same outputs under replace-one do print n (the check can fail)
    replace, messages = _run(dp_score, data, EPS, DELTA, rng=2)
    assert any(_shows_n(text) for text in _texts(replace) + messages)


def test_labels_given_apart_lose_the_rows_that_drop_removes():
    # missing="drop" (the add/remove default) removes X's incomplete rows; labels given as one
    # per row must lose the same rows, or the kept rows would take other rows' labels (and the
    # length check would refuse on the private number of complete rows).
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 3))
    x[rng.random(3000) < 0.05, 1] = np.nan
    labels = np.array(["a", "b", "c"])[np.arange(3000) % 3]
    as_column = pd.DataFrame(x, columns=["V1", "V2", "V3"]).assign(g=labels)
    expected = dp_score_group(as_column, "g", 2.0, DELTA, levels=["a", "b", "c"], rng=1,
                              neighbouring="add_remove")
    for given in (labels, list(labels), pd.Series(labels), pd.Categorical(labels)):
        got = dp_score_group(x, given, 2.0, DELTA, levels=["a", "b", "c"], rng=1,
                             neighbouring="add_remove")
        assert got.n_obs == expected.n_obs
        np.testing.assert_array_equal(got.group_sizes.to_numpy(), expected.group_sizes.to_numpy())
