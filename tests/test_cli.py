"""The `dppca report` command: outputs, budget split, errors."""
import json

import pandas as pd
import pytest

from dppca.cli import main


def test_report_on_csv_writes_outputs(tmp_path, capsys, gaussian_frame):
    csv = tmp_path / "data.csv"
    gaussian_frame.to_csv(csv, index=False)
    out = tmp_path / "report"
    code = main(["report", "--data", str(csv), "--k", "2", "--eps", "2", "--delta", "1e-5",
                 "--seed", "1", "--sections", "directions", "--out", str(out)])
    assert code == 0
    directions = pd.read_csv(out / "directions.csv", index_col=0)
    assert list(directions.index) == ["a", "b", "c", "d"] and list(directions.columns) == ["PC1", "PC2"]
    ledger = json.loads((out / "ledger.json").read_text())
    assert ledger["sections"]["directions"]["spent_eps"] == pytest.approx(2.0)
    assert (out / "loadings.png").stat().st_size > 1000
    assert "Differentially Private PC Directions" in capsys.readouterr().out


def test_report_is_reproducible(tmp_path, gaussian_frame):
    csv = tmp_path / "data.csv"
    gaussian_frame.to_csv(csv, index=False)
    runs = []
    for name in ("a", "b"):
        main(["report", "--data", str(csv), "--eps", "1", "--delta", "1e-5", "--seed", "5",
              "--sections", "directions", "--out", str(tmp_path / name)])
        runs.append(pd.read_csv(tmp_path / name / "directions.csv", index_col=0))
    pd.testing.assert_frame_equal(*runs)


@pytest.mark.parametrize("args,message", [
    (["--data", "nope.csv"], "no bundled dataset or file named 'nope.csv'"),
    (["--data", "gau", "--eps", "0"], "`eps` must be a finite number > 0"),
    (["--data", "gau", "--sections", "bogus"], "--sections must name sections"),
])
def test_report_errors_are_one_line(args, message, capsys, tmp_path):
    base = ["report", "--eps", "1", "--delta", "1e-5", "--out", str(tmp_path)]
    assert main(base + args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_report_total_spend_is_the_budget_given(tmp_path):
    # Private scales once (10%), then three sections on equal shares of the rest: the ledgers
    # in ledger.json must add up to exactly the eps and delta on the command line.
    out = tmp_path / "r"
    # eps = 10: private scales of 20 columns need a large budget at n = 5000 (see the docstring
    # of private_column_scales); this test is about the accounting.
    assert main(["report", "--data", "gau_g", "--k", "2", "--eps", "10", "--delta", "1e-5",
                 "--seed", "3", "--standardize", "--group", "group", "--out", str(out)]) == 0
    ledger = json.loads((out / "ledger.json").read_text())
    spent = [(led["spent_eps"], led["spent_delta"]) for led in _flat(ledger["sections"])]
    assert sum(e for e, _ in spent) == pytest.approx(10.0)
    assert sum(d for _, d in spent) == pytest.approx(1e-5)
    assert ledger["sections"]["scales"]["spent_eps"] == pytest.approx(1.0)
    for name in ("score.png", "scree.png", "loadings.png", "scree.csv", "score_histograms.csv"):
        assert (out / name).exists()


def _flat(sections):
    """Ledgers of every section (a section may hold one ledger per method)."""
    for value in sections.values():
        if "spent_eps" in value:
            yield value
        else:
            yield from _flat(value)
