"""``missing=`` means the same in every entry point for the same neighbouring relation.

dp_pc_dir and dp_scree resolve the policy with the call's relation (``"auto"`` is ``"drop"``
under add/remove neighbours, ``"drop"`` is refused under replace-one ones, ``"pairwise"`` under
add/remove ones). ``DPPCA.fit`` and ``dppca report`` need every cell, as dp_scree does, so for
each ``missing`` x ``neighbouring`` they must give dp_scree's outcome: the same refusal message,
or the same policy label, relation label and missing-value ledger rows. dp_pc_dir agrees with
them too, except where its Kendall's tau directions can skip a cell (replace-one ``"auto"`` and
``"pairwise"``: pairwise-present).
"""
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import DPPCA, dp_pc_dir, dp_scree
from dppca._validation import DPPCAValueError
from dppca.cli import main

MISSING = ["auto", "drop", "median", "pairwise", 0.5]
NEIGHBOURINGS = ["replace", "add_remove"]
EPS, DELTA = 1.0, 1e-5


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(300, 3)) @ np.diag([3.0, 2.0, 1.0]), columns=list("abc"))
    frame.iloc[[1, 5, 9], 0] = np.nan
    frame.iloc[[2, 7], 2] = np.nan
    path = tmp_path_factory.mktemp("missing_neighbouring") / "holes.csv"
    frame.to_csv(path, index=False)
    return frame, path


def _rows(releases):
    """The missing-value releases of a ledger, as (step, eps, delta)."""
    return [(r["step"], r["eps"], r["delta"]) for r in releases
            if r["step"].startswith("missing values")]


def _refused(message):
    """A refusal, with the entry point the message names ("this dp_scree call needs every
    cell") made generic: the rest of the message must be the same."""
    return "refused", re.sub(r"this .+? call needs", "this ENTRY call needs", message)


def _api(call):
    """("ok", policy label, relation label, missing-value rows) or ("refused", message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # small-n accuracy warnings: public facts
            ledger = call()
    except DPPCAValueError as error:
        return _refused(str(error))
    payload = ledger.to_dict()
    return "ok", ledger.missing, payload["neighbouring"], _rows(payload["releases"])


def _scree(frame, missing, neighbouring):
    return _api(lambda: dp_scree(frame, 2, eps=EPS, delta=DELTA, rng=0, missing=missing,
                                 neighbouring=neighbouring).combined_ledger)


def _pc_dir(frame, missing, neighbouring):
    return _api(lambda: dp_pc_dir(frame, 2, eps=EPS, delta=DELTA, rng=0, missing=missing,
                                  neighbouring=neighbouring).ledger)


def _dppca(frame, missing, neighbouring):
    # center=False: the private centre is replace-one only, refused under add/remove
    return _api(lambda: DPPCA(2, eps=EPS, delta=DELTA, random_state=0, center=False,
                              missing=missing, neighbouring=neighbouring).fit(frame).ledger_)


def _report(path, missing, neighbouring, out, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["report", "--data", str(path), "--sections", "directions", "--eps", str(EPS),
                     "--delta", str(DELTA), "--seed", "0", "--missing", str(missing),
                     "--neighbouring", neighbouring, "--out", str(out)])
    printed = capsys.readouterr()
    if code != 0:
        prefix = "dppca: error: "
        assert printed.err.startswith(prefix), printed.err
        return _refused(printed.err.strip()[len(prefix):])
    ledger = json.loads((out / "ledger.json").read_text())
    sections = ledger["sections"]
    rows = _rows(sections.get("missing", {"releases": []})["releases"])
    assert f"missing values: {ledger['missing']};" in printed.out  # the summary says the same
    return "ok", ledger["missing"], sections["directions"]["neighbouring"], rows


@pytest.mark.parametrize("neighbouring", NEIGHBOURINGS)
@pytest.mark.parametrize("missing", MISSING)
def test_dppca_fit_and_report_resolve_missing_as_dp_scree(data, missing, neighbouring, tmp_path,
                                                          capsys):
    frame, path = data
    expected = _scree(frame, missing, neighbouring)
    assert _dppca(frame, missing, neighbouring) == expected
    assert _report(path, missing, neighbouring, tmp_path / "out", capsys) == expected


@pytest.mark.parametrize("neighbouring", NEIGHBOURINGS)
@pytest.mark.parametrize("missing", MISSING)
def test_dp_pc_dir_differs_from_dp_scree_only_where_it_can_skip_a_cell(data, missing,
                                                                       neighbouring):
    frame, _ = data
    scree, directions = _scree(frame, missing, neighbouring), _pc_dir(frame, missing, neighbouring)
    if neighbouring == "replace" and missing in ("auto", "pairwise"):
        # g-DPPCA's Kendall's tau keeps the pairs that observe both columns: nothing is filled
        label = "pairwise present (auto)" if missing == "auto" else "pairwise present"
        assert directions == ("ok", label, "replace-one (n public)", [])
        assert scree[0] == ("ok" if missing == "auto" else "refused")
    else:
        assert directions == scree


@pytest.mark.parametrize("missing", ["auto", "drop"])
def test_add_remove_drop_in_dppca_fit_releases_dp_pc_dir_on_the_complete_rows(data, missing):
    # The label is not all: DPPCA.fit drops the incomplete rows and hands the rest to dp_pc_dir,
    # so with the same seed its components are dp_pc_dir's on X.dropna() (same noise draws).
    frame, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = DPPCA(2, eps=EPS, delta=DELTA, random_state=0, center=False, missing=missing,
                      neighbouring="add_remove").fit(frame)
        direct = dp_pc_dir(frame.dropna(), 2, eps=EPS, delta=DELTA, rng=0,
                           neighbouring="add_remove")
    np.testing.assert_array_equal(model.components_, direct.directions.to_numpy().T)
    assert model.fill_ == {}  # nothing filled: transform leaves a hole as a hole
