"""Every argument below is named by the error a bad value gets: dppca's own error classes with
the argument in backticks, never a bare TypeError from inside (issue 24, finding 16: these
names appeared in error messages but no test asserted them)."""
import ast
import re
from pathlib import Path

import pytest

import dask.dataframe as dd
import numpy as np
import pandas as pd

import dppca
from dppca import DPPCATypeError, DPPCAValueError, cli, load_gau
from dppca.app import create_app, run_app
from dppca.estimators.frame import private_frame
from dppca.methods import METHOD_OPTIONS
from dppca.preprocessing.dask_input import as_dask_matrix
from dppca.preprocessing.schema import read_schema
from dppca.privacy import gaussian_sigma, partition_selection_threshold, select_partitions
from dppca.privacy.filter import PrivacyFilter
from dppca.privacy.quantiles import unbounded_quantile
from dppca.privacy.shuffle import shuffle_local_budget
from dppca.privacy.store import BudgetStore
from dppca.privacy.store_schema import postgres_grants
from dppca.simulate import (contaminated_gaussian, elliptical_gaussian, kim_jung_outlier_center,
                            kim_jung_sigma)

X = load_gau().iloc[:200, :4]
BUDGET = dict(eps=1.0, delta=1e-5)

CASES = {
    "calibration": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, calibration="exact", **BUDGET),
    "scale_share": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, standardize=True, scale_share=1.5,
                                           **BUDGET),
    "axes": lambda: dppca.dp_score(X, axes=(1, 9), **BUDGET),
    "levels": lambda: dppca.dp_score_group(X.assign(g=["a", "b"] * 100), "g", levels=[], **BUDGET),
    "private_plot": lambda: dppca.dp_score_plot(X, private_plot=("bogus",), **BUDGET),
    "center_share": lambda: dppca.DPPCA(2, center_share=2).fit(X),
    "norm_bound": lambda: dppca.dp_pc_dir(X, 2, method="analyze_gauss", norm_bound=-1, **BUDGET),
    "standardize": lambda: dppca.dp_pc_dir(X, 2, standardize="yes"),
    "scale": lambda: dppca.dp_pc_dir(X, 2, standardize=True, scale=[1, 2]),
    "sample_size": lambda: dppca.sampling_control(sample_size=-3),
    "bandwidth_scale": lambda: dppca.sampling_control(bandwidth_scale=-1),
    "scatter_alpha": lambda: dppca.score_plot_control(scatter_alpha=3),
    "hist_alpha_range": lambda: dppca.score_plot_control(hist_alpha_range=(0.9, 0.1)),
    "show_group_legend": lambda: dppca.score_plot_control(show_group_legend="no"),
    # was "'int' object is not iterable" from inside the check
    "group_colors": lambda: dppca.score_plot_control(group_colors=3),
    "palette": lambda: dppca.score_plot_control(palette=3),
    "eta0": lambda: dppca.huber_control(eta0=-1),
    "m2_frac": lambda: dppca.huber_control(m2_frac=2),
    "trim_const": lambda: dppca.pmwm_control(trim_const=-1),
    "max_partitions": lambda: partition_selection_threshold(1.0, 1e-5, 0),
    "sensitivity": lambda: gaussian_sigma(-1, 1.0, 1e-5),
}


def _rng():
    return np.random.default_rng(0)


#: Errors that name the argument elsewhere in the message (found by the audit below).
MENTIONED = {
    "--k": lambda: cli.run_report(cli._parser().parse_args(
        ["report", "--data", "gau", "--k", "99", "--eps", "1", "--delta", "1e-5"])),
    "budget": lambda: create_app(budget="survey"),  # a budget without the data it belongs to
    "port": lambda: run_app(port=0, launch_browser=False),
    "centre_share": lambda: dppca.dp_pc_dir(X, 2, method="analyze_gauss", centring="private",
                                            centre_share=2, **BUDGET),
    "columns": lambda: as_dask_matrix(dd.from_pandas(X, npartitions=1), columns=["nope"]),
    "constant": lambda: dppca.dp_pc_dir(X, 2, method="cai_xia_zha", constant=-1, **BUDGET),
    "counts": lambda: select_partitions([-1, 2], 1.0, 1e-6, _rng()),
    "delta_share": lambda: shuffle_local_budget(1000, 1.0, 1e-6, delta_share=1.5),
    "design": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, design="bogus", **BUDGET),
    "directions": lambda: dppca.dp_scree(X, 2, directions="nope", **BUDGET),
    "eigenvalues": lambda: kim_jung_sigma(5, eigenvalues=(1, 2, 3)),
    "explained_variance": lambda: dppca.DPPCA(2, method="analyze_gauss",
                                              explained_variance=True).fit(X),
    "gaussian_share": lambda: PrivacyFilter(1.0, 1e-5, gaussian_share=1.5),
    "halving": lambda: dppca.dp_pc_dir(X, 2, method="dp_sggd", halving=0, **BUDGET),
    "kind": lambda: postgres_grants("alice", kind="owner"),
    "mu": lambda: PrivacyFilter(1.0, 1e-5, gaussian_share=0.5).admit([], 0.5, 1e-6, mu=0.0),
    "role": lambda: postgres_grants("alice; DROP TABLE charges"),
    "inflate": lambda: private_frame(np.zeros((50, 2)), 1.0, 1e-5, _rng(), inflate=-1),
    "lambda_1": lambda: kim_jung_outlier_center(4, lambda_1=-1),
    "n_components": lambda: dppca.DPPCA(9).fit(X),
    "noise": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, noise="loud", **BUDGET),
    "noise_sd": lambda: dppca.dp_pc_dir(X, 2, method="k_dp_ojas", top_eigenvalue=1.0, **BUDGET),
    "nonprivate": lambda: dppca.dp_pc_dir(X, 2, nonprivate="yes"),
    "p": lambda: dppca.plan(n=100, p=0, k=1, eps=1.0, delta=1e-5),
    "pairs_per_row": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, pairs_per_row=0, **BUDGET),
    "radius": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, sign="winsorized", radius=-1, **BUDGET),
    "range_constant": lambda: dppca.dp_pc_dir(X, 2, method="k_dp_pca", range_constant=-1,
                                              **BUDGET),
    "sd": lambda: contaminated_gaussian(10, np.eye(4), sd=-1),
    "sigma": lambda: elliptical_gaussian(10, [[1.0, 2.0]]),
    "x": lambda: unbounded_quantile([], 0.5, 1.0, _rng()),
    "xi_bound": lambda: dppca.dp_pc_dir(X, 2, g_dppca=True, xi_bound=-1, **BUDGET),
}


@pytest.mark.parametrize("name", list(MENTIONED))
def test_bad_value_error_mentions_its_argument(name):
    with pytest.raises((DPPCAValueError, DPPCATypeError), match=f"`{re.escape(name)}`"):
        MENTIONED[name]()


#: Errors on files: each case gets a temporary folder.
FILE_CASES = {
    "timeout": lambda tmp: BudgetStore(f"sqlite:///{tmp / 'b.sqlite3'}", timeout=0),
    "values": lambda tmp: BudgetStore(f"sqlite:///{tmp / 'b.sqlite3'}").fingerprint([1.0, 2.0]),
    # a JSON codebook whose entry has no column name
    "column": lambda tmp: read_schema(_written(tmp / "codebook.json", '[{"lower": 0, "upper": 1}]')),
}


def _written(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name", list(FILE_CASES))
def test_bad_file_or_store_argument_is_named(tmp_path, name):
    with pytest.raises(DPPCAValueError, match=f"`{name}`"):
        FILE_CASES[name](tmp_path)


@pytest.mark.parametrize("name", list(CASES))
def test_bad_value_names_its_argument(name):
    with pytest.raises((DPPCAValueError, DPPCATypeError), match=f"^`{name}` must"):
        CASES[name]()


def test_cases_are_real_arguments():
    """Each name is a parameter of the function its case calls (no typo makes a case vacuous)."""
    import inspect

    owners = {"center_share": dppca.DPPCA, "max_partitions": partition_selection_threshold,
              "sensitivity": gaussian_sigma}
    for name in CASES:
        functions = [owners[name]] if name in owners else [
            dppca.dp_pc_dir, dppca.dp_score, dppca.dp_score_group, dppca.dp_score_plot,
            dppca.sampling_control, dppca.score_plot_control, dppca.huber_control,
            dppca.pmwm_control]
        options = METHOD_OPTIONS["analyze_gauss"] if name == "norm_bound" else ()
        assert name in options or any(name in inspect.signature(f).parameters
                                      for f in functions), name


# ---------------------------------------------------------------------------------------------
# The mechanical audit (issue 24, finding 16): every argument name that an error message of
# dppca mentions is asserted by some pytest.raises(..., match=...) in tests/.
ROOT = Path(__file__).resolve().parents[1]
#: An argument named in a message: an identifier (or a CLI option) in backticks.
NAMED = re.compile(r"`(-{0,2}[A-Za-z_][A-Za-z0-9_]*)`")


def _strings(node) -> list[str]:
    """The string constants under ``node`` (f-strings: their literal parts)."""
    return [sub.value for sub in ast.walk(node)
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str)]


def _error_classes(trees) -> set[str]:
    """dppca's own exception classes (DPPCAValueError, DPPCATypeError, BudgetExceeded, ...)."""
    return {node.name for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and any(ast.unparse(b).endswith(("Error", "Exceeded")) for b in node.bases)}


def _named_in_errors() -> dict[str, str]:
    """name -> one place: the name given to a ``*_arg`` check (whose errors say "`name` must
    ..."), and each backticked name in the message of a ``raise`` of dppca's own error classes,
    over dppca/."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted((ROOT / "dppca").rglob("*.py"))}
    classes = _error_classes(trees.values())
    names = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1].endswith("_arg") \
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                    and isinstance(node.args[1].value, str):
                names.setdefault(node.args[1].value, where)
            elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) \
                    and ast.unparse(node.exc.func).split(".")[-1] in classes:
                for text in _strings(node.exc):
                    for name in NAMED.findall(text):
                        names.setdefault(name, where)
    return names


def _asserted_in_tests() -> set[str]:
    """Names that a ``pytest.raises(..., match=...)`` in tests/ asserts: the backticked names
    of its pattern, or, for a pattern built from a variable (a parametrized test), those of the
    strings in the test's parametrize decorators; plus the keys of ``CASES``, ``MENTIONED`` and ``FILE_CASES`` above."""
    asserted = set(CASES) | set(MENTIONED) | set(FILE_CASES)
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            decorated = [text for d in function.decorator_list for text in _strings(d)]
            for call in ast.walk(function):
                if isinstance(call, ast.Call) and ast.unparse(call.func).endswith("raises"):
                    for keyword in (kw for kw in call.keywords if kw.arg == "match"):
                        constant = isinstance(keyword.value, ast.Constant)
                        texts = _strings(keyword.value) + ([] if constant else decorated)
                        asserted.update(n for text in texts for n in NAMED.findall(text))
    return asserted


def test_every_argument_named_by_an_error_is_asserted():
    named = _named_in_errors()
    assert len(named) > 80  # the collector finds the checks (106 names when written)
    asserted = _asserted_in_tests()
    missing = {name: where for name, where in named.items() if name not in asserted}
    assert not missing, f"argument names in error messages that no test asserts: {missing}"
