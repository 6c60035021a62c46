"""Issue 23, finding 4: the app's schema comes from the header, never from the cells.

The neighbour pair of the issue: D (300 rows, 3 numeric columns) and D' = D with one cell
replaced by "abc" (or by an empty cell). Before, D' had p = 2 with that column shown as the
guessed group column (and the empty cell made the upload refuse, naming the column). Now the
page text, the messages and the ledgers are the same for D and D'; only noisy values differ.
"""
import numpy as np
import pytest

from dppca.app.data import infer_group_column, prepare, read_csv_cells, read_upload
from dppca.app.runs import run_scree, scree_settings
from dppca.app.session import SessionBudget

from .test_app_browser import run, set_number, upload, wait_message, wait_runs

ROWS = np.random.default_rng(23).normal(size=(300, 3)) @ np.diag([3.0, 2.0, 1.0])


def neighbours() -> dict:
    """CSV texts of D and its neighbours (one cell of row 17, column b, replaced)."""
    lines = ["a,b,c"] + [",".join(f"{v:.6f}" for v in row) for row in ROWS]
    out = {"D": "\n".join(lines) + "\n"}
    for name, cell in (("abc", "abc"), ("empty", ""), ("inf", "inf"), ("quote", '"1')):
        changed = list(lines)
        fields = changed[18].split(",")
        changed[18] = ",".join([fields[0], cell, fields[2]])
        out[name] = "\n".join(changed) + "\n"
    return out


def public_view(csv_text: str) -> dict:
    """What the page shows or the ledger keeps about a dataset and one scree run on it."""
    frame = read_csv_cells(csv_text.encode())
    group = infer_group_column(frame.columns)  # the page's initial choice
    data = prepare(frame, group, key="k", label="upload: d.csv")
    settings = scree_settings(dict(k=2, scree_method=["clipped"], scree_mono=True, center=True,
                                   standardize=False, g_dppca=True), data)
    session = SessionBudget(5.0, 1e-5, dataset=data.label)
    released = session.release("scree", settings, 1.0, 1e-6,
                               lambda: run_scree(data, settings, 1.0, 1e-6),
                               ledger_of=lambda r: r.combined_ledger.to_dict(), gaussian=True)
    ledger = released.result.combined_ledger.to_frame()
    # Sensitivities and noise scales after the first release are functions of earlier noisy
    # releases (e.g. the released clipping threshold), so they differ between any two runs;
    # the public fields are the steps, mechanisms, norms and the (eps, delta) of each release.
    return {"columns": list(data.features.columns), "n": data.n, "p": data.p,
            "group": data.group_name, "session": session.table().to_dict("list"),
            "ledger": ledger[["step", "mechanism", "norm", "eps", "delta"]].to_dict("list")}


def test_a_non_numeric_or_empty_cell_changes_no_public_output():
    texts = neighbours()
    reference = public_view(texts["D"])
    assert reference["p"] == 3 and reference["group"] is None
    for name in ("abc", "empty", "inf", "quote"):
        assert public_view(texts[name]) == reference, name


def test_the_replaced_cell_is_missing_and_nothing_else_changes(tmp_path):
    texts = neighbours()
    path = tmp_path / "d.csv"
    path.write_text(texts["abc"])
    features = prepare(read_upload(path, "d.csv"), None, key="k", label="l").features.to_numpy()
    expected = np.round(ROWS, 6)
    expected[17, 1] = np.nan  # the public rule: a cell that is not a number is a missing cell
    np.testing.assert_array_equal(features, expected)


@pytest.mark.browser
def test_the_page_is_the_same_for_the_neighbour_pair(app_url, new_page, tmp_path):
    texts = neighbours()
    seen = []
    for name in ("D", "abc", "empty"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "survey.csv").write_text(texts[name])
        page = new_page(app_url)
        upload(page, folder / "survey.csv")
        page.wait_for_selector("#data-summary")
        # the plan echoes k once the upload is read; set_number waits for that echo only when
        # the plan is on the page (before it, a run could read the old k: the ledger said k=3)
        page.wait_for_selector("#scree-plan", state="visible")
        set_number(page, "k", 2)
        run(page, "scree")
        wait_runs(page, 1)
        seen.append({"summary": page.inner_text("#data-summary"),
                     "group": page.input_value("#upload_group_col"),
                     "message": wait_message(page, "scree", "ok"),
                     "bar": page.inner_text("#budget"),
                     "ledger": page.inner_text("#ledger")})
    assert "p = 3 variables; no group column" in seen[0]["summary"]
    assert seen[1] == seen[0] and seen[2] == seen[0]
