"""The `dppca report` command: outputs, budget split, errors."""
import json

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca.cli import main


def test_report_on_csv_writes_outputs(tmp_path, capsys, gaussian_frame, saved_figures):
    saved = saved_figures  # the figures as the report saved them, judged by what they draw
    csv = tmp_path / "data.csv"
    gaussian_frame.to_csv(csv, index=False)
    out = tmp_path / "report"
    code = main(["report", "--data", str(csv), "--k", "2", "--eps", "2", "--delta", "1e-5",
                 "--seed", "1", "--sections", "directions,scree", "--out", str(out),
                 "--missing", "0"])  # a declared fill value: the complete-data budget split
    assert code == 0
    directions = pd.read_csv(out / "directions.csv", index_col=0)
    assert list(directions.index) == ["a", "b", "c", "d"] and list(directions.columns) == ["PC1", "PC2"]
    ledger = json.loads((out / "ledger.json").read_text())
    assert ledger["sections"]["directions"]["spent_eps"] == pytest.approx(1.0)
    assert sorted(saved) == ["loadings.png", "scree.png"]
    loadings = saved["loadings.png"].axes[0]
    # the heat map draws the numbers of directions.csv (written at full precision)
    np.testing.assert_allclose(loadings.images[0].get_array(), directions.to_numpy(), atol=1e-12)
    assert [t.get_text() for t in loadings.get_yticklabels()] == ["a", "b", "c", "d"]
    for name in saved:  # issue 24: titles said "eps=1" for a section of a report of eps = 2
        title = " ".join(saved[name].axes[0].get_title().split())
        assert "eps 1 of 2 (section share)" in title and "eps=1" not in title, title
    scree = pd.read_csv(out / "scree.csv")
    line = saved["scree.png"].axes[0].lines[0]
    np.testing.assert_allclose(line.get_ydata(), scree["scree"].to_numpy(), rtol=1e-12)
    assert "Differentially Private PC Directions" in capsys.readouterr().out


def test_report_closes_its_figures(tmp_path, gaussian_frame):
    # A caller that runs many reports in one process (a notebook, a test) must not accumulate
    # open figures: matplotlib warns past 20, and the warning would depend on the run's order.
    import matplotlib.pyplot as plt

    plt.close("all")
    csv = tmp_path / "data.csv"
    gaussian_frame.to_csv(csv, index=False)
    assert main(["report", "--data", str(csv), "--k", "2", "--eps", "2", "--delta", "1e-5",
                 "--seed", "1", "--out", str(tmp_path / "report")]) == 0
    assert sorted(p.name for p in (tmp_path / "report").glob("*.png")) == [
        "loadings.png", "score.png", "scree.png"]
    assert plt.get_fignums() == []


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
    # the score frame is pure DP (issue 20): its delta share is not spent
    assert sum(d for _, d in spent) <= 1e-5 * (1 + 1e-9)
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


# --------------------------------------------------------------------- help and input files
def _subcommands():
    from dppca.cli import _parser

    action = next(a for a in _parser()._actions if a.dest == "command")
    return list(action.choices)


@pytest.mark.parametrize("argv", [[]] + [[name] for name in _subcommands()])
def test_help_of_every_subcommand(argv, capsys):
    # `dppca report --help` used to crash: argparse %-formats help strings ("10%").
    with pytest.raises(SystemExit) as stop:
        main(argv + ["--help"])
    assert stop.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert out.startswith("usage: dppca") and "--help" in out
    if argv == ["report"]:
        assert "(10% of the budget)" in out and "--group-levels" in out and "--columns" in out


def _run(tmp_path, frame_or_text, *args):
    """Write the data to data.csv, run `dppca report` on it; returns (code, out, err, folder)."""
    csv = tmp_path / "data.csv"
    if isinstance(frame_or_text, str):
        csv.write_text(frame_or_text)
    else:
        frame_or_text.to_csv(csv, index=False)
    out = tmp_path / "out"
    base = ["report", "--data", str(csv), "--eps", "3", "--delta", "1e-5", "--seed", "1",
            "--out", str(out)]
    code = main(base + list(args))
    return code, out


def _error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("dppca: error:") and err.count("\n") == 1
    return err


def test_non_numeric_columns_are_listed_not_dropped(tmp_path, capsys, gaussian_frame):
    data = gaussian_frame.assign(city="x", note="y")
    code, _ = _run(tmp_path, data, "--sections", "directions")
    assert code == 2
    err = _error(capsys)
    assert "columns ['city', 'note'] are not numeric" in err and "--columns" in err


def test_columns_option_chooses_the_features(tmp_path, gaussian_frame):
    data = gaussian_frame.assign(city="x")
    code, out = _run(tmp_path, data, "--columns", "c,a,b", "--sections", "directions")
    assert code == 0
    assert list(pd.read_csv(out / "directions.csv", index_col=0).index) == ["c", "a", "b"]


@pytest.mark.parametrize("args,message", [
    (["--columns", "a,nope"], "--columns names no column ['nope']"),
    (["--columns", " , "], "--columns must list at least one name"),
    (["--columns", "a,city"], "columns ['city'] are not numeric"),
    (["--group", "city", "--columns", "a,city"], "must not include the --group column 'city'"),
    (["--group-levels", "x,y"], "--group-levels needs --group"),
    (["--group", "city", "--group-levels", "@missing.txt"], "--group-levels: no file 'missing.txt'"),
])
def test_column_and_level_options_are_checked(tmp_path, capsys, gaussian_frame, args, message):
    code, _ = _run(tmp_path, gaussian_frame.assign(city="x"), *args)
    assert code == 2 and message in _error(capsys)


@pytest.mark.parametrize("text,message", [
    ("a,b,c,d\n", "has 4 columns and 0 rows"),
    ("", "is empty (no header, no rows)"),
    ("\n\n", "is empty (no header, no rows)"),
])
def test_files_without_rows_are_clear_errors(tmp_path, capsys, text, message):
    code, _ = _run(tmp_path, text)
    assert code == 2 and message in _error(capsys)


# ------------------------------------------------------------------------------ group labels
@pytest.fixture
def labelled(gaussian_frame):
    """400 rows: labels p (200), q (197), a lonely label (1) and 2 missing."""
    labels = ["p"] * 200 + ["q"] * 197 + ["lonely"] + [None, None]
    return gaussian_frame.assign(kind=labels)


def test_group_levels_are_the_groups_shown(tmp_path, capsys, labelled):
    # Declared levels: every level is a group (also 'unused', with no row); rows labelled
    # 'lonely' (outside the levels) are in no histogram, and nothing says so about them.
    code, out = _run(tmp_path, labelled, "--group", "kind", "--group-levels", "q,p,unused,(missing)",
                     "--sections", "score")
    assert code == 0
    hist = pd.read_csv(out / "score_histograms.csv")
    assert list(dict.fromkeys(hist["group"])) == ["q", "p", "unused", "(missing)"]
    printed = capsys.readouterr()
    assert "Groups shown: q, p, unused, (missing). Declared public by levels=" in " ".join(printed.out.split())
    assert "lonely" not in printed.out + printed.err
    ledger = json.loads((out / "ledger.json").read_text())["sections"]["score"]
    assert not any(r["step"].startswith("groups") for r in ledger["releases"])


def test_group_levels_from_a_file(tmp_path, labelled):
    (tmp_path / "levels.txt").write_text("p\n\nq\n")
    code, out = _run(tmp_path, labelled, "--group", "kind", "--group-levels",
                     f"@{tmp_path / 'levels.txt'}", "--sections", "score")
    assert code == 0 and set(pd.read_csv(out / "score_histograms.csv")["group"]) == {"p", "q"}


def test_groups_without_levels_come_from_partition_selection(tmp_path, capsys, labelled):
    # eps 3 for one section: the selection gets 0.3 and delta 1e-6, threshold
    # 1 + (2/0.3) ln(1e6) = 93 rows, so p and q (about 200 rows) pass with probability
    # 1 - e^-15/2 and the lonely label with probability < 1e-6.
    code, out = _run(tmp_path, labelled, "--group", "kind", "--sections", "score",
                     "--missing", "0")  # declared fill value: the selection keeps its 0.3
    assert code == 0
    assert set(pd.read_csv(out / "score_histograms.csv")["group"]) == {"p", "q"}
    printed = " ".join(capsys.readouterr().out.split())  # summaries wrap at 100 characters
    assert "released by private partition selection" in printed and "lonely" not in printed
    ledger = json.loads((out / "ledger.json").read_text())["sections"]["score"]
    assert ledger["spent_eps"] == pytest.approx(3.0)
    assert any(r["step"] == "groups: partition selection" for r in ledger["releases"])


def test_labels_are_read_as_written(tmp_path, gaussian_frame):
    # A CSV's group column is read as text: "01" and "1" are different labels, as written.
    data = gaussian_frame.assign(kind=["01"] * 200 + ["1"] * 200)
    code, out = _run(tmp_path, data, "--group", "kind", "--group-levels", "01,1",
                     "--sections", "score")
    assert code == 0
    assert list(dict.fromkeys(pd.read_csv(out / "score_histograms.csv", dtype={"group": str})["group"])) \
        == ["01", "1"]


def _adult_levels(tmp_path):
    from dppca import load_adult

    countries = list(load_adult(labels=True)["native_country"].cat.categories) + ["(missing)"]
    assert len(countries) == 42 and "Holand-Netherlands" in countries
    path = tmp_path / "countries.txt"
    path.write_text("\n".join(countries) + "\n")
    return countries, path


def test_adult_native_country_with_declared_levels(tmp_path, capsys):
    # The reported leak: the report refused, naming 'Holand-Netherlands' (one person). A row
    # subset (keeping that person) written to CSV keeps the test fast; all 42 levels declared.
    from dppca import load_adult

    adult = load_adult(labels=True)
    rows = adult.iloc[::16].index.union(adult.index[adult["native_country"] == "Holand-Netherlands"])
    data = adult.loc[rows, ["age", "education_num", "hours_per_week", "native_country"]]
    countries, path = _adult_levels(tmp_path)
    code, out = _run(tmp_path, data, "--group", "native_country", "--group-levels", f"@{path}",
                     "--k", "2", "--sections", "score")
    assert code == 0
    hist = pd.read_csv(out / "score_histograms.csv")
    assert list(dict.fromkeys(hist["group"])) == countries


@pytest.mark.slow
def test_adult_bundled_native_country_runs(tmp_path):
    countries, path = _adult_levels(tmp_path)
    out = tmp_path / "adult"
    assert main(["report", "--data", "adult", "--group", "native_country", "--group-levels",
                 ",".join(countries), "--k", "2", "--eps", "1", "--delta", "1e-5", "--seed", "1",
                 "--sections", "score", "--out", str(out)]) == 0
    assert set(pd.read_csv(out / "score_histograms.csv")["group"]) == set(countries)


def test_report_reads_parquet_and_keeps_column_names(tmp_path, gaussian_frame):
    # A Parquet file gives the same report as the same rows in a CSV (same seed, same numbers).
    pytest.importorskip("pyarrow")
    gaussian_frame.to_parquet(tmp_path / "data.parquet")
    gaussian_frame.to_csv(tmp_path / "data.csv", index=False)
    for name in ("data.parquet", "data.csv"):
        assert main(["report", "--data", str(tmp_path / name), "--eps", "1", "--delta", "1e-5",
                     "--seed", "3", "--sections", "directions", "--out",
                     str(tmp_path / name.replace(".", "_"))]) == 0
    parquet = pd.read_csv(tmp_path / "data_parquet" / "directions.csv", index_col=0)
    csv = pd.read_csv(tmp_path / "data_csv" / "directions.csv", index_col=0)
    assert list(parquet.index) == list(gaussian_frame.columns)
    pd.testing.assert_frame_equal(parquet, csv)


def test_version_prints_the_version(capsys):
    # `dppca --version`: the single-sourced dppca.__version__ (dppca/_version.py), which is also
    # what the built distribution's metadata says (tests/test_packaging.py checks that)
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert dppca.__version__.count(".") == 2
    assert capsys.readouterr().out == f"dppca {dppca.__version__}\n"
