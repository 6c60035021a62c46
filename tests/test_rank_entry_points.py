"""standardize="rank" at every entry point (DPPCA, the CLI, the app's settings), and the
estimand sentence in every result's summary."""
import argparse
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca._validation import DPPCAValueError
from dppca.app.runs import standardize_value
from dppca.cli import _parser as build_parser
from dppca.cli.plan import run_plan
from dppca.results.estimands import ESTIMANDS, direction_estimand, estimand


@pytest.fixture(scope="module")
def skewed():
    """2,000 rows, 4 columns: a Gaussian copula with correlation 0.6 between columns 0 and 1,
    the columns then sent through increasing, skewed transforms (exp, cube)."""
    rng = np.random.default_rng(5)
    z = rng.multivariate_normal(np.zeros(4), [[1, .6, 0, 0], [.6, 1, 0, 0], [0, 0, 1, .3],
                                              [0, 0, .3, 1]], size=2000)
    return pd.DataFrame({"a": np.exp(2 * z[:, 0]), "b": z[:, 1] ** 3, "c": z[:, 2],
                         "d": np.exp(z[:, 3])})


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def test_dppca_rank_components_are_the_rank_paths(skewed):
    model = _quiet(dppca.DPPCA(2, eps=2, standardize="rank", random_state=3).fit, skewed)
    assert model.result_.method == "rank"
    assert model.scale_ is None  # scale-free: no scales released
    # Unit orthogonal rows (eigenvectors of a symmetric matrix), to rounding.
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(2), atol=1e-10)
    # The whole budget is on the ledger (centre + directions, basic composition).
    assert model.ledger_.spent_eps == pytest.approx(2)
    assert model.transform(skewed).shape == (2000, 2)


def test_dppca_rank_refuses_another_method_and_other_strings(skewed):
    with pytest.raises(DPPCAValueError, match="rank"):
        dppca.DPPCA(2, standardize="rank", method="analyze_gauss").fit(skewed)
    with pytest.raises(DPPCAValueError, match="standardize"):
        dppca.DPPCA(2, standardize="ranks").fit(skewed)


def test_dppca_rank_explained_variance(skewed):
    try:
        _quiet(dppca.dp_scree, skewed, 2, eps=1, delta=1e-5, standardize="rank", rng=1)
    except (TypeError, ValueError):
        pytest.skip("dp_scree does not take standardize='rank' at this base")
    model = _quiet(dppca.DPPCA(2, eps=2, standardize="rank", explained_variance=True,
                               random_state=3).fit, skewed)
    assert model.explained_variance_.shape == (2,)
    assert model.ledger_.spent_eps == pytest.approx(2)


@pytest.mark.parametrize("given, expected", [([], "none"), (["--standardize"], "sd"),
                                             (["--standardize", "sd"], "sd"),
                                             (["--standardize", "rank"], "rank")])
def test_cli_standardize_option(given, expected):
    # The bare flag keeps its old meaning (private SD scales).
    for command in ("report", "plan"):
        args = build_parser().parse_args([command, "--data", "gau", "--eps", "1", "--delta",
                                          "1e-5"] + given)
        assert args.standardize == expected


def test_cli_standardize_refuses_unknown_choice(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["plan", "--n", "100", "--p", "3", "--eps", "1", "--delta",
                                   "1e-5", "--standardize", "ranks"])


def test_cli_plan_rank_models_the_rank_path(capsys):
    run_plan(argparse.Namespace(data=None, n=2000, p=6, k=2, eps=1.0,
                                               delta=1e-5, standardize="rank", group=None,
                                               sections="directions,scree,score"))
    out = capsys.readouterr().out
    assert "latent correlation" in out
    assert "eps=0.3333" in out  # no share for scales: the rank path needs none


def test_cli_report_rank_directions(tmp_path, capsys):
    out = tmp_path / "report"
    args = build_parser().parse_args(["report", "--data", "gau", "--eps", "2", "--delta", "1e-5",
                                      "--seed", "1", "--standardize", "rank", "--sections",
                                      "directions", "--out", str(out)])
    _quiet(args.func, args)
    printed = capsys.readouterr().out
    assert "Method:" in printed and "rank" in printed
    ledger = json.loads((out / "ledger.json").read_text())["sections"]["directions"]
    assert ledger["estimand"].startswith("Directions: " + ESTIMANDS["latent_correlation"][:30])


@pytest.mark.parametrize("value, expected", [("none", False), ("sd", True), ("rank", "rank"),
                                             (True, True), (False, False)])
def test_app_standardize_value(value, expected):
    assert standardize_value(value) == expected


# --------------------------------------------------------------- estimand sentences


@pytest.mark.parametrize("method, standardized, key", [
    ("gdppca", False, "kendall"), ("gdppca", True, "kendall_standardized"),
    ("rank", False, "latent_correlation"), ("analyze_gauss", False, "covariance"),
    ("noisy_power", True, "correlation"), ("nonprivate", False, "covariance"),
    ("dp_sggd", False, "lad")])
def test_direction_estimand(method, standardized, key):
    assert direction_estimand(method, standardized) == key


@pytest.fixture(scope="module")
def gau():
    return dppca.load_gau().iloc[:1000]


def _summary(result) -> str:
    return " ".join(str(result.summary()).split())  # one line: notes wrap at 100 characters


@pytest.mark.parametrize("options, key", [({}, "kendall"), ({"standardize": True},
                                                             "kendall_standardized"),
                                          ({"method": "analyze_gauss"}, "covariance")])
def test_directions_summary_names_its_estimand(gau, options, key):
    result = _quiet(dppca.dp_pc_dir, gau, 2, eps=1, delta=1e-5, rng=1, **options)
    assert result.estimand == f"Directions: {estimand(key)}"
    assert estimand(key) in _summary(result)


def test_rank_summary_names_its_estimand(gau):
    result = _quiet(dppca.dp_pc_dir, gau, 2, standardize="rank", eps=1, delta=1e-5, rng=1)
    assert "Estimand" in _summary(result) and "latent Gaussian-copula" in _summary(result)


def test_scree_summary_names_every_estimand(gau):
    result = _quiet(dppca.dp_scree, gau, 2, method=["clipped", "huber"], eps=1, delta=1e-5,
                    rng=1)
    text = _summary(result)
    for key in ("kendall", "clipped", "huber"):
        assert estimand(key) in text


def test_score_summary_names_its_estimand(gau):
    result = _quiet(dppca.dp_score, gau, 1, 1e-5, rng=1)
    text = _summary(result)
    assert estimand("kendall") in text and estimand("scores") in text
