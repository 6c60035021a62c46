"""The ``dppca`` console script run as a user runs it (a subprocess), and the report's
all-or-none output: every check comes before the first private release (issue 24, 6 and 17)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dppca
from dppca import cli
from dppca._validation import DPPCAValueError

ROOT = Path(dppca.__file__).resolve().parent.parent


def _dppca(*args, cwd):
    """Run the installed console script (``python -m dppca.cli`` where it is not installed)
    with this checkout first on the path; returns the CompletedProcess."""
    script = Path(sys.executable).with_name("dppca")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "dppca.cli"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    return subprocess.run(command + list(args), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def _one_line_error(run, *phrases):
    assert run.returncode == 2, (run.returncode, run.stderr)
    err = run.stderr
    assert "Traceback" not in err, err
    for phrase in phrases:
        assert phrase in err, err


def test_console_script_usage_errors_exit_2(tmp_path):
    run = _dppca("report", cwd=tmp_path)  # argparse: the required options are named
    _one_line_error(run, "usage: dppca report", "the following arguments are required: --data, --eps, --delta")
    _one_line_error(_dppca("bogus", cwd=tmp_path), "invalid choice: 'bogus'")
    _one_line_error(_dppca("report", "--data", "gau", "--eps", "one", "--delta", "1e-5", cwd=tmp_path),
                    "argument --eps: invalid float value: 'one'")


def test_console_script_report_runs_and_writes_every_file(tmp_path, gaussian_frame):
    gaussian_frame.to_csv(tmp_path / "data.csv", index=False)
    run = _dppca("report", "--data", "data.csv", "--eps", "2", "--delta", "1e-5", "--seed", "1",
                 "--sections", "directions,scree", "--k", "3", "--out", "rep", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == [
        "directions.csv", "ledger.json", "loadings.png", "scree.csv", "scree.png"]
    assert run.stdout.startswith("dppca report on data.csv: n=400, p=4")
    assert not list(tmp_path.glob(".dppca-report-*"))  # no staging folder left behind


@pytest.mark.parametrize("text, out, phrases", [
    # finding 6: 2 rows wrote 4 of 7 files, then failed "at least 4 rows" (the scree's)
    ("a,b,c\n1,2,3\n4,5,7\n", "rep", ["`--data` must have at least 4 rows; got 2"]),
    # finding 7: pandas renamed the second "a" to "a.1" silently
    ("a,a,b\n1,2,3\n4,5,7\n2,2,2\n1,0,1\n", "rep", ["duplicate column names ['a']"]),
    ("a,b,c\n1,2,3\n4,5,7\n2,2,2\n1,0,1\n", "rep --k 9", ["`--k` must be an integer in [1, 3]; got 9"]),
    # finding 17: an --out that cannot be written (under a file) is found before any release
    ("a,b,c\n1,2,3\n4,5,7\n2,2,2\n1,0,1\n", "data.csv/rep", ["--out: cannot write the report to"]),
    ("a,b,c\n1,2,3\n4,5,7\n2,2,2\n1,0,1\n", "data.csv", ["--out must be a folder"]),
])
def test_console_script_checks_everything_before_any_release(tmp_path, text, out, phrases):
    (tmp_path / "data.csv").write_text(text)
    out, *more = out.split()
    run = _dppca("report", "--data", "data.csv", "--eps", "1", "--delta", "1e-5", "--out", out,
                 *more, cwd=tmp_path)
    _one_line_error(run, *phrases)
    # nothing was released or written: no summary printed, no report folder, no staging folder
    assert run.stdout == ""
    assert not (tmp_path / "rep").exists() and not list(tmp_path.glob(".dppca-report-*"))


def test_console_script_app_errors_exit_2(tmp_path):
    """`dppca app` checks its options before serving (no server starts in these runs)."""
    _one_line_error(_dppca("app", "--data", "nope.csv", "--no-browser", cwd=tmp_path),
                    "no bundled dataset or file named 'nope.csv'")
    _one_line_error(_dppca("app", "--eps-total", "1", "--no-browser", cwd=tmp_path),
                    "give both `eps_total` and `delta_total`")
    # a CSV is read into a frame (it used to reach the app as a (frame, bundled) tuple)
    (tmp_path / "lab.csv").write_text("a,b,g\n1,2,x\n5,6,y\n2,2,x\n3,1,y\n")
    _one_line_error(_dppca("app", "--data", "lab.csv", "--group", "g", "--port", "0",
                           "--no-browser", cwd=tmp_path), "`port` must be an integer in [1, 65535]")


def test_report_writes_all_files_or_none(tmp_path, gaussian_frame, monkeypatch):
    """A section failing after others wrote their files leaves no report folder (and an
    existing folder keeps its old files only)."""
    gaussian_frame.to_csv(tmp_path / "data.csv", index=False)

    def failing(*_):
        raise DPPCAValueError("scree failed")

    monkeypatch.setitem(cli.SECTIONS, "scree", failing)
    argv = ["report", "--data", str(tmp_path / "data.csv"), "--eps", "1", "--delta", "1e-5",
            "--seed", "2"]
    assert cli.main(argv + ["--out", str(tmp_path / "new")]) == 2
    assert not (tmp_path / "new").exists()
    old = tmp_path / "old"
    old.mkdir()
    (old / "notes.txt").write_text("mine")
    assert cli.main(argv + ["--out", str(old)]) == 2
    assert [p.name for p in old.iterdir()] == ["notes.txt"]
    assert cli.main(argv + ["--out", str(old), "--sections", "directions"]) == 0
    assert sorted(p.name for p in old.iterdir()) == ["directions.csv", "ledger.json", "loadings.png",
                                                     "notes.txt"]
