"""Text summaries of every result: headers, titles, widths, alpha, the Notes block."""
import re

import numpy as np
import pytest

from dppca import (DPPCAValueError, dp_pc_dir, dp_score, dp_score_group, dp_scree, load_gau,
                   load_gau_g)
from dppca.cli import main
from dppca.privacy import Ledger
from dppca.results.base import LEDGER_STUB_WIDTH, SUMMARY_WIDTH, ledger_table

BUDGET = dict(eps=4.0, delta=1e-5)
ALL_SCREE = ("clipped", "pmwm", "huber")


@pytest.fixture(scope="module")
def gau():
    # n = 5000: enough rows for private column scales at eps = 4 (35% of it).
    return load_gau()


@pytest.fixture(scope="module")
def results(gau):
    """One result of every kind and flavour, name -> result."""
    gg = load_gau_g()
    return {
        "directions private": dp_pc_dir(gau, 2, g_dppca=True, rng=1, **BUDGET),
        "directions standardized": dp_pc_dir(gau, 2, standardize=True, g_dppca=True, rng=1, **BUDGET),
        "directions nonprivate": dp_pc_dir(gau, 2, g_dppca=False),
        "directions with reference": dp_pc_dir(gau, 2, g_dppca=True, rng=1, nonprivate=True, **BUDGET),
        "scree private": dp_scree(gau, 3, method=ALL_SCREE, g_dppca=True, rng=1, **BUDGET),
        "scree nonprivate directions": dp_scree(gau, 3, g_dppca=False, rng=1, nonprivate=True, **BUDGET),
        "score private": dp_score(gau, g_dppca=True, rng=1, **BUDGET),
        "score nonprivate directions": dp_score(gau, g_dppca=False, rng=1, nonprivate=True, **BUDGET),
        "score grouped": dp_score_group(gg, "group", g_dppca=True, rng=1, nonprivate=True, **BUDGET),
    }


def _text(result, **kwargs) -> str:
    return str(result.summary(**kwargs))


def _flat(text: str) -> str:
    """The text with line breaks and runs of spaces collapsed (notes wrap at 100 characters)."""
    return " ".join(text.split())


@pytest.mark.parametrize("name", [
    "directions private", "directions standardized", "directions nonprivate",
    "directions with reference", "scree private", "scree nonprivate directions", "score private",
    "score nonprivate directions", "score grouped"])
def test_every_line_fits_in_100_characters(results, name):
    lines = _text(results[name]).splitlines()
    too_long = [line for line in lines if len(line) > SUMMARY_WIDTH]
    assert not too_long, f"{name}: {len(too_long)} lines over {SUMMARY_WIDTH}: {too_long[:2]}"


def test_long_ledger_steps_wrap_onto_continuation_rows():
    ledger = Ledger(1.0, 1e-5)
    step = "a very long release name that describes the statistic in many many words (PC1..PCk)"
    ledger.record(step, "Gaussian (analytic) with a long mechanism name", 1.0, "L2", 2.0, 0.5, 5e-6)
    table = ledger_table(ledger)
    text = table.as_text()
    assert max(len(line) for line in text.splitlines()) <= SUMMARY_WIDTH
    stubs = [row[0].data.strip() for row in table][1:]  # row 0 holds the column headers
    assert " ".join(stubs) == step  # every word kept, in order
    assert all(len(stub) <= LEDGER_STUB_WIDTH for stub in stubs)
    row = next(line for line in text.splitlines() if line.startswith("a very long"))
    assert "0.5" in row and "5e-06" in row  # the numbers sit on the step's first row


def test_notes_start_with_a_notes_heading_as_in_statsmodels(results):
    for name, result in results.items():
        lines = _text(result).splitlines()
        start = lines.index("Notes:")
        assert lines[start - 1] == "" and lines[start + 1].startswith("[1] "), name
        numbered = [line for line in lines[start + 1:] if re.match(r"\[\d+\] ", line)]
        continued = [line for line in lines[start + 1:] if not re.match(r"\[\d+\] ", line)]
        assert [int(re.match(r"\[(\d+)\]", line).group(1)) for line in numbered] == \
            list(range(1, len(numbered) + 1)), name
        # Continuation lines are indented under the note text (hanging indent).
        assert all(line.startswith("    ") for line in continued), name


def test_private_scaling_header_says_private_and_its_share(results, gau):
    text = _text(results["directions standardized"])
    assert re.search(r"Scaling:\s+private \(35% of eps\)", text)
    assert re.search(r"Scaling:\s+none", _text(results["directions private"]))
    public = dp_pc_dir(gau, 2, standardize=True, scale=gau.std(), g_dppca=True, rng=1, **BUDGET)
    assert re.search(r"Scaling:\s+public", _text(public))


def test_scree_scaling_header_reads_the_share_off_its_ledger(gau):
    res = dp_scree(gau, 2, standardize=True, g_dppca=True, rng=1, **BUDGET, missing=0.0)
    ledger = res.combined_ledger
    share = sum(r.eps for r in ledger if r.step.startswith("scale")) / ledger.eps
    assert share > 0
    assert re.search(rf"Scaling:\s+private \({share:.0%} of eps\)", _text(res))


def test_report_sections_say_the_data_were_scaled_privately(tmp_path, gau, capsys):
    csv = tmp_path / "gau.csv"
    gau.iloc[:, :5].to_csv(csv, index=False)
    code = main(["report", "--data", str(csv), "--eps", "4", "--delta", "1e-5", "--seed", "1",
                 "--standardize", "--out", str(tmp_path / "out")])
    assert code == 0
    text = capsys.readouterr().out
    headers = re.findall(r"Scaling:\s+(.+?)\s*$", text, flags=re.M)
    assert len(headers) == 3 and all(h.startswith("private (10% of eps") for h in headers), headers
    assert "Scaling:                            none" not in text


def test_nonprivate_directions_are_titled_nonprivate(results):
    text = _text(results["directions nonprivate"])
    assert text.splitlines()[0].strip() == "PC Directions (NON-PRIVATE)"
    assert "Differentially Private" not in text
    assert _text(results["directions private"]).splitlines()[0].strip() == \
        "Differentially Private PC Directions"


@pytest.mark.parametrize("name", ["scree nonprivate directions", "score nonprivate directions"])
def test_nonprivate_directions_are_named_in_title_and_header(results, name):
    result = results[name]
    assert result.directions_private is False
    text = _text(result)
    title = text.splitlines()[0]
    assert "NON-PRIVATE Directions" in title and not title.strip().startswith("Differentially")
    assert re.search(r"Directions:\s+NON-PRIVATE", text)


@pytest.mark.parametrize("name", ["directions private", "scree private", "score private",
                                  "score grouped"])
def test_private_directions_flag(results, name):
    assert results[name].directions_private is True
    assert "NON-PRIVATE Directions" not in _text(results[name])


def test_summary_alpha_sets_the_interval_columns(results):
    res = results["scree private"]
    text = _text(res, alpha=0.1)
    assert "[0.05" in text and "0.95]" in text and "[0.025" not in text
    ci = res.conf_int(0.1)
    clipped = text[text.index("clipped (private)"):]
    row = next(line for line in clipped.splitlines() if line.startswith("PC1"))
    numbers = [float(v) for v in row.split()[1:5]]  # the last column is "reliable" (yes/NO)
    # Columns: scree, std err, lower, upper, ... (4 decimals printed).
    assert numbers[2] == pytest.approx(ci.at["PC1", ("clipped", "lower")], abs=5e-5)
    assert numbers[3] == pytest.approx(ci.at["PC1", ("clipped", "upper")], abs=5e-5)
    assert "[0.025" in _text(res)  # the default is alpha = 0.05, as in statsmodels


@pytest.mark.parametrize("alpha", [0, 1, -0.1, "0.05", np.nan])
def test_summary_alpha_is_checked(results, alpha):
    with pytest.raises((DPPCAValueError, TypeError), match="`alpha`"):
        results["scree private"].summary(alpha=alpha)


def test_html_summary_still_renders(results):
    html = results["score grouped"].summary().as_html()
    assert "<table" in html and "Ledger" in html
