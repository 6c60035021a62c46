"""The public surface of dppca as (name, call) pairs, and the neighbour pairs of issue 23.

Shared by tests/privacy/test_surface.py (fast mode, in CI) and
benchmarks/differential_surface.py (full mode). A *call* maps (X, labels) to a result with
the same seed every time; :func:`observe` runs it and returns everything that is not a noisy
value: the result's type, ledger rows (mechanism, sensitivity, noise scale, eps, delta),
released thresholds and histogram shapes, output shapes, groups, and the sets of warnings
and exceptions. Replace-one neighbours must give equal observations (issue 23: "finite reals
in, a release out, the same messages for every neighbour").
"""
import contextlib
import io
import re
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

from dppca import (DPPCA, dp_pc_dir, dp_score, dp_score_group, dp_score_plot,
                   dp_score_plot_group, dp_scree, dp_scree_plot)
import dppca.sklearn
from dppca.methods import METHODS

EPS, DELTA = 1.0, 1e-5

#: The audit's extreme rows (issue 23, finding 3) for p = 3 columns.
EXTREME_ROWS = {
    "1e154": [1e154, 1e154, 1e154],
    "1.7e308": [1.7e308, 0.0, 0.0],
    "-1.7e308": [-1.7e308, 1.0, 1.0],
    "2^1023": [2.0 ** 1023, 1.0, -1.0],
    "5e-324": [5e-324, 5e-324, 5e-324],
    "mixed": [1.7e308, -1.7e308, 5e-324],
    # Missing and infinite cells: a NaN is data like any other (the missing= policy), +-inf an
    # extreme value; neighbours differing by them must look the same outside the noise.
    "one NaN": [np.nan, 0.5, -0.5],
    "all NaN": [np.nan, np.nan, np.nan],
    "+-inf": [np.inf, -np.inf, 1.0],
}

#: Label edge cases (issue 23, finding 2 and the brief): the first row's label replaced.
LABEL_EDGES = {"-0.0": -0.0, "nan string": "nan", "NaN string": "NaN", "None string": "None",
               "one-row group": "lonely"}


def base_data(n: int, seed: int = 0):
    """(X, labels): n rows of a 3-variable Gaussian with unequal variances below 1, labels 'a'/'b'."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * [1.0, 0.5, 0.25]  # scales < 1: X / scales can overflow
    return X, np.array(["a", "b"] * (n // 2) + ["a"] * (n % 2), dtype=object)


def neighbours(X, labels, extremes=EXTREME_ROWS, labels_too=True):
    """(name, X', labels') replace-one neighbours of (X, labels): a random row, each extreme
    row, and (when ``labels_too``) each label edge case; row 0 is the one replaced."""
    rng = np.random.default_rng(1)
    out = []
    random_row = X.copy()
    random_row[0] = rng.normal(size=X.shape[1]) * 10
    out.append(("random row", random_row, labels))
    for name, row in extremes.items():
        Xp = X.copy()
        Xp[0] = row
        out.append((name, Xp, labels))
    if labels_too:
        for name, label in LABEL_EDGES.items():
            lp = labels.copy()
            lp[0] = label
            out.append((name, X, lp))
    return out


def numeric_zero_labels(n: int):
    """A numeric label column of 0.0 and 1.0, and its neighbour with one -0.0 (finding 2)."""
    labels = np.array([0.0, 1.0] * (n // 2) + [0.0] * (n % 2))
    signed = labels.copy()
    signed[0] = -0.0
    return labels, signed


def entry_points(tmp: Path | None = None, full: bool = False) -> dict:
    """name -> call(X, labels). ``full`` adds standardize=True for every method and plots."""
    calls = {}
    # "nonprivate" is excluded: it promises no privacy, and refuses data at the clamp bound
    # (a data-dependent error on purpose: no silently clamped non-private answer).
    for method in (m for m in METHODS if m != "nonprivate"):
        calls[f"dp_pc_dir[{method}]"] = lambda X, g, m=method: dp_pc_dir(
            X, 2, eps=EPS, delta=DELTA, method=m, rng=1)
        if full or method == "gdppca":
            calls[f"dp_pc_dir[{method}, standardize]"] = lambda X, g, m=method: dp_pc_dir(
                X, 2, standardize=True, eps=EPS, delta=DELTA, method=m, rng=1)
    calls["dp_scree"] = lambda X, g: dp_scree(X, 2, eps=EPS, delta=DELTA, rng=1)
    calls["dp_scree[standardize]"] = lambda X, g: dp_scree(X, 2, standardize=True, eps=EPS,
                                                           delta=DELTA, rng=1)
    calls["dp_score"] = lambda X, g: dp_score(X, EPS, DELTA, rng=1)
    calls["dp_score[standardize]"] = lambda X, g: dp_score(X, EPS, DELTA, standardize=True, rng=1)
    calls["dp_score_group"] = lambda X, g: dp_score_group(X, g, EPS, DELTA, rng=1)
    calls["dp_score_group[levels]"] = lambda X, g: dp_score_group(X, g, EPS, DELTA, rng=1,
                                                                  levels=["a", "b"])
    calls.update(declared_entry_points(full))
    calls["DPPCA.fit"] = lambda X, g: DPPCA(n_components=2, eps=EPS, delta=DELTA,
                                            random_state=1).fit(X)
    calls["DPPCA.fit[standardize]"] = lambda X, g: DPPCA(
        n_components=2, eps=EPS, delta=DELTA, random_state=1, standardize=True).fit(X)
    if full:
        calls["dp_scree_plot"] = lambda X, g: dp_scree_plot(X, 2, eps=EPS, delta=DELTA, rng=1)
        calls["dp_score_plot"] = lambda X, g: dp_score_plot(X, EPS, DELTA, rng=1)
        calls["dp_score_plot_group"] = lambda X, g: dp_score_plot_group(X, g, EPS, DELTA, rng=1)
    if tmp is not None:
        calls.update({name: lambda X, g, o=option: cli_report(X, g, tmp, option=o)
                      for name, option in CLI_ENTRIES.items()})
    calls["app run_scree"] = lambda X, g: app_run("scree", X, g)
    calls["app run_score[groups]"] = lambda X, g: app_run("score", X, g)
    calls.update(rank_entry_points(full))
    return calls


def rank_entry_points(full: bool = False) -> dict:
    """name -> call(X, labels) on the rank path (``standardize="rank"``): private marginal
    ranks / a private Kendall's tau matrix and no scales, so its thresholds, ledger rows and
    messages must leave neighbours indistinguishable outside the noise as well."""
    rank = dict(eps=EPS, delta=DELTA, rng=1, standardize="rank")
    calls = {
        "dp_pc_dir[standardize=rank]": lambda X, g: dp_pc_dir(X, 2, **rank),
        # "auto" is private medians on the rank path; pairwise present when asked for
        "dp_pc_dir[standardize=rank, pairwise]": lambda X, g: dp_pc_dir(X, 2, missing="pairwise",
                                                                         **rank),
        "dp_scree[standardize=rank]": lambda X, g: dp_scree(X, 2, **rank),
        "dp_score[standardize=rank]": lambda X, g: dp_score(X, **rank),
        "DPPCA.fit[standardize=rank]": lambda X, g: DPPCA(n_components=2, eps=EPS, delta=DELTA,
                                              random_state=1, standardize="rank").fit(X),
        # the app's scree is left out: its scree methods (clipped, pmwm, huber) all refuse
        # standardize="rank" (a public refusal, the same for every input)
        "app run_score[groups, rank]": lambda X, g: app_run("score", X, g, standardize="rank",
                                                            group_levels="a, b"),
    }
    if full:
        calls["dp_score_group[standardize=rank]"] = lambda X, g: dp_score_group(X, g, **rank)
    return calls


#: Declared public metadata of base_data's columns (about 3 SD bounds, the true scales).
DECLARED_BOUNDS = {"V1": (-3.0, 3.0), "V2": (-1.5, 1.5), "V3": (-0.75, 0.75)}
DECLARED_SCALES = {"V1": 1.0, "V2": 0.5, "V3": 0.25}


#: The CLI's entries (they need a folder): name -> the report's extra arguments: "schema" for
#: ``--standardize --schema FILE`` declaring DECLARED_BOUNDS and DECLARED_SCALES of the report's
#: columns x1..x3, "rank" for ``--standardize rank`` (the rank path in every section).
CLI_ENTRIES = {"cli report": None, "cli report[schema]": "schema", "cli report[rank]": "rank"}


def declared_entry_points(full: bool = False) -> dict:
    """name -> call(X, labels) with declared ``bounds=``/``scale=`` (issue 20, item 3): the
    clipped input, the cut score frame, the bounded scree trace and the partly declared scales
    must leave neighbours indistinguishable outside the noise too."""
    both = dict(bounds=DECLARED_BOUNDS, scale=DECLARED_SCALES, standardize=True)
    calls = {
        "dp_pc_dir[gdppca, declared]": lambda X, g: dp_pc_dir(X, 2, eps=EPS, delta=DELTA, rng=1,
                                                              **both),
        "dp_scree[declared]": lambda X, g: dp_scree(X, 2, eps=EPS, delta=DELTA, rng=1, **both),
        "dp_scree[bounds]": lambda X, g: dp_scree(X, 2, eps=EPS, delta=DELTA, rng=1,
                                                  bounds=DECLARED_BOUNDS),
        "dp_score[declared]": lambda X, g: dp_score(X, EPS, DELTA, rng=1, **both),
        "dp_score[bounds, partial scale]": lambda X, g: dp_score(
            X, EPS, DELTA, rng=1, bounds=DECLARED_BOUNDS, scale={"V3": 0.25}, standardize=True),
        "dp_score_group[levels, declared]": lambda X, g: dp_score_group(
            X, g, EPS, DELTA, rng=1, levels=["a", "b"], **both),
        # a bare array: DPPCA names its features V1, V2, ... as dp_pc_dir does
        "DPPCA.fit[declared, explained_variance]": lambda X, g: DPPCA(
            n_components=2, eps=EPS, delta=DELTA, random_state=1, explained_variance=True,
            **both).fit(X),
    }
    if full:
        calls["dp_scree_plot[declared]"] = lambda X, g: dp_scree_plot(X, 2, eps=EPS, delta=DELTA,
                                                                      rng=1, **both)
        calls["dp_score_plot[declared]"] = lambda X, g: dp_score_plot(X, EPS, DELTA, rng=1, **both)
        calls["dp_score_plot_group[declared]"] = lambda X, g: dp_score_plot_group(
            X, g, EPS, DELTA, rng=1, levels=["a", "b"], **both)
    return calls


#: The page's values of an app run (dppca/app/runs.py): defaults, clipped scree, grouped score.
APP_VALUES = dict(k=2, scree_method=["clipped"], scree_mono=True, center=True, standardize=False,
                  g_dppca=True, axis_x=1, axis_y=2, score_method=["add", "sparse"], bins_x=None,
                  bins_y=None, use_group=True, group_levels="")


def app_run(kind: str, X, labels, **values):
    """The app's run function on (X, labels), its package calls seeded (rng=1): the app draws
    fresh entropy, and a shared seed is what makes neighbours comparable. ``values`` override
    the page's :data:`APP_VALUES` (e.g. ``standardize="rank"``, the select's rank option)."""
    import functools
    from unittest import mock

    from dppca.app import runs
    from dppca.app.data import AppData

    data = AppData(key="surface", label="surface", features=pd.DataFrame(X, columns=["x1", "x2", "x3"]),
                   labels=pd.Series(labels, name="g"), group_name="g")
    seeded = {name: functools.partial(getattr(runs, name), rng=1)
              for name in ("dp_scree", "dp_score_plot", "dp_score_plot_group")}
    with mock.patch.multiple(runs, **seeded):
        if kind == "scree":
            return runs.run_scree(data, runs.scree_settings({**APP_VALUES, **values}, data),
                                  EPS, DELTA)
        return runs.run_score(data, runs.score_settings({**APP_VALUES, **values}, data), EPS, DELTA)


def cli_report(X, labels, tmp: Path, option: str | None = None):
    """``dppca report`` on X (with a group column) written to a CSV: (stdout with every number
    masked, output file names, ledger.json with its numbers: public facts). With option
    "schema", ``--standardize --schema FILE``: a codebook CSV declaring DECLARED_BOUNDS and
    DECLARED_SCALES for x1..x3 (the report's declared section, clipped input and cut frames);
    with "rank", ``--standardize rank``."""
    from dppca.cli import main

    data = pd.DataFrame(X, columns=["x1", "x2", "x3"]).assign(g=labels)
    path, out = tmp / "data.csv", tmp / "out"
    data.to_csv(path, index=False, float_format="%.17g")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(["report", "--data", str(path), "--columns", "x1,x2,x3", "--group", "g",
                     "--eps", str(EPS), "--delta", str(DELTA), "--seed", "1",
                     "--out", str(out), *_cli_arguments(tmp, option)])
    ledger = (out / "ledger.json").read_text() if (out / "ledger.json").exists() else None
    files = sorted(p.name for p in out.rglob("*"))
    import shutil

    import matplotlib.pyplot as plt

    # main() closes the figures it saves; close anything else a run left open, or matplotlib's
    # "More than 20 figures" warning would tell runs apart by their order
    plt.close("all")

    shutil.rmtree(out, ignore_errors=True)
    return code, _mask_numbers(stdout.getvalue()), files, ledger


def _cli_arguments(tmp: Path, option: str | None) -> list:
    """The report's extra arguments for a :data:`CLI_ENTRIES` option."""
    if option == "schema":
        return _schema_arguments(tmp)
    # the groups declared as with the schema, so that the rank path runs in every section
    return ["--standardize", "rank", "--group-levels", "a,b"] if option == "rank" else []


def _schema_arguments(tmp: Path) -> list:
    """``--standardize --schema FILE`` with DECLARED_BOUNDS/SCALES renamed to x1..x3, and the
    groups declared (``--group-levels a,b``) so that the report runs to its end (the plain entry
    covers private partition selection, which releases no label here)."""
    path = tmp / "schema.csv"
    pd.DataFrame([{"column": f"x{name[1:]}", "lower": low, "upper": high,
                   "scale": DECLARED_SCALES[name], "units": "unit"}
                  for name, (low, high) in DECLARED_BOUNDS.items()]).to_csv(path, index=False)
    return ["--standardize", "--schema", str(path), "--group-levels", "a,b"]


def _mask_numbers(text: str) -> str:
    """``text`` with every number (sign included) masked as ``#``, runs of blanks made one
    blank and table rules (``====``, ``----``) made one length. The report prints released
    values in aligned tables (pandas, the summary tables): a column's padding and its rule's
    length follow the printed widths of its values, so a released loading that changes sign
    (0.0091 vs -0.0106, a minus sign more or less) moves the blanks and rules around it. That
    layout is post-processing of released values, like the numbers themselves; the words,
    lines and their order stay compared. The Notes are wrapped to a fixed width around released
    values too, so a continuation line (indented) is joined to the line it continues."""
    masked = re.sub(r"[-+]?\d[\d.,]*(e[-+]?\d+)?%?", "#", text)
    masked = re.sub(r"[=\-]{3,}", "---", masked)
    masked = re.sub(r"[ \t]+", " ", masked)
    return re.sub(r"\n (?=\S)", " ", masked)


#: Ledger steps whose sensitivity (and so noise scale) is post-processing of an earlier noisy
#: release of the same call, so it may differ between neighbours like any noisy value:
#: cai_xia_zha's projector sensitivity is computed from the model parameters estimated from
#: its Analyze Gauss release (methods/cai_xia_zha.py, Notes). Everything else must be equal.
DERIVED_STEPS = ("spectral projector (Cai-Xia-Zha",)


#: Messages computed from released (noisy) values only, so they may differ between neighbours
#: like those values (both outcomes are possible on both sides): a sparse histogram whose
#: noisy counts all fall below its public threshold (estimators/histograms.py), and the
#: synthetic points of a private plot drawn from such a histogram (estimators/sampling.py), and
#: g-DPPCA's post-release accuracy warning, computed from the released eigenvalues
#: (methods/gdppca.py, released_direction_accuracy), and dp_scree's post-release trace row,
#: computed from the released trace and its clip histogram (results/scree_checks.py, trace_step),
#: and its Kendall-order row, computed from the released values and their public noise sd
#: (scree_directions.py, kendall_order_accuracy), and the rank path's unlocated columns: which
#: columns the normal scores' range release located is ``located`` of
#: preprocessing/normal_scores.py (located_warps), a function of the released range histograms and
#: their public noise sd alone (score_rank.py, _warn_unlocated, names those columns), and the
#: rank scree's post-release row, the interval half-width over the released value, whose
#: tie-share term reads the released diagonal (results/scree_rank.py, RankBound, rank_values_step).
NOISY_MESSAGES = ("histogram kept no mass", "the histogram has no positive mass",
                  "directions (post-release)", "trace (post-release)",
                  "directions vs covariance (post-release)",
                  "normal scores: the private range release located",
                  "rank: scree values (post-release)")


def _public_messages(messages) -> list:
    return [m for m in messages if not any(noisy in m for noisy in NOISY_MESSAGES)]


def _frame(frame) -> str:
    if frame is None:
        return "None"
    frame = frame.copy()
    if "step" in frame:
        derived = frame["step"].astype(str).map(lambda s: any(d in s for d in DERIVED_STEPS))
        for column in ("sensitivity", "noise_scale"):
            if column in frame:
                frame[column] = frame[column].astype(object).where(~derived, "released")
    return repr(frame.to_dict("split"))


def facts(result) -> dict:
    """Everything in a result that is not a noisy value (exact floats, NaN-safe)."""
    if isinstance(result, tuple):  # the CLI report
        return {"cli": result}
    out = {"type": type(result).__name__}
    for attr in ("ledger", "combined_ledger", "ledger_"):
        ledger = getattr(result, attr, None)
        if ledger is not None and hasattr(ledger, "to_frame"):
            out[attr] = _frame(ledger.to_frame())
    for attr in ("directions", "pve", "scree", "components_", "mean_", "scale_"):
        value = getattr(result, attr, None)
        if value is not None and hasattr(np.asarray(value), "shape"):
            out[f"{attr}.shape"] = np.shape(np.asarray(value, dtype=object))
    releases = getattr(result, "_releases", None)
    if releases:
        out["releases"] = {m: (r.noise_scale, r.threshold, r.prob.shape) for m, r in releases.items()}
    if getattr(result, "groups", None) is not None:
        out["groups"] = list(result.groups)
    figure = getattr(result, "figure", None)
    if figure is not None and hasattr(figure, "axes"):
        out["axes"] = len(figure.axes)
        import matplotlib.pyplot as plt

        plt.close(figure)
    return out


def observe(call, X, labels) -> dict:
    """Run ``call`` and return its public observation: facts, warnings, exception.

    Each observation starts from a fresh session as far as warnings go: Python's filters are
    "always", and DPPCA's once-per-session registry of DPCentreWarning messages
    (dppca.sklearn._SHOWN) is emptied for the call. That warning's condition, n eps
    center_share < 200, and its text are public numbers only; what the registry adds is
    whether an earlier call of the same session already showed it, a fact about the session,
    not about the data (the same input run twice would otherwise differ)."""
    with warnings.catch_warnings(record=True) as caught, \
            mock.patch.object(dppca.sklearn, "_SHOWN", set()):
        warnings.simplefilter("always")
        try:
            seen, error = facts(call(X, labels)), None
        except Exception as err:  # a refusal is an observation too
            seen, error = None, f"{type(err).__name__}: {err}"
    messages = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return {"facts": seen, "error": error, "warnings": messages}


def differences(a: dict, b: dict) -> dict:
    """The keys of two observations that differ, with both values (for the failure message)."""
    diff = {"error": (a["error"], b["error"])} if a["error"] != b["error"] else {}
    if _public_messages(a["warnings"]) != _public_messages(b["warnings"]):
        diff["warnings"] = (a["warnings"], b["warnings"])
    fa, fb = a["facts"] or {}, b["facts"] or {}
    diff.update({k: (fa.get(k), fb.get(k)) for k in set(fa) | set(fb) if fa.get(k) != fb.get(k)})
    return diff


__all__ = ["CLI_ENTRIES", "DECLARED_BOUNDS", "DECLARED_SCALES", "DERIVED_STEPS", "EXTREME_ROWS", "NOISY_MESSAGES", "LABEL_EDGES", "base_data", "cli_report", "declared_entry_points", "differences",
           "entry_points", "facts", "neighbours", "numeric_zero_labels", "observe",
           "rank_entry_points"]
