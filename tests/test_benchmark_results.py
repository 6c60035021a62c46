"""The benchmark results say where they came from, and the docs quote them as they are.

(a) every file in ``benchmarks/results/`` carries a provenance header (benchmarks/provenance.py)
with a commit and a command; (b) every recorded command names a benchmark script whose own
argparse parser accepts the recorded arguments (parsed, not run: benchmarks/suites.py); (c) a
number in README.md or docs/*.md quoted in a sentence that names a results file occurs in that
file, to the digits shown. Nothing here runs a benchmark.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"
RESULTS = BENCHMARKS / "results"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_benchmarks_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


provenance = _load("provenance")
suites = _load("suites")

RESULT_FILES = sorted(p for p in RESULTS.iterdir()
                      if p.is_file() and not p.name.endswith(".png.txt") and not p.name.startswith("."))
HEADERS = {path.name: provenance.read_header(path) for path in RESULT_FILES}


@pytest.mark.parametrize("name", list(HEADERS))
def test_result_file_names_its_commit_and_command(name):
    header = HEADERS[name]
    missing = [key for key in provenance.REQUIRED if key not in header]
    assert not missing, f"benchmarks/results/{name}: no provenance {missing} (benchmarks/provenance.py)"
    assert re.match(r"[0-9a-f]{40}\b", header["commit"]), header["commit"]


def _commands():
    return sorted({(header["command"], name) for name, header in HEADERS.items()
                   if "command" in header}, key=lambda item: item[1])


@pytest.mark.parametrize("command,name", _commands())
def test_recorded_command_still_parses(command, name):
    suite, args = suites.split_command(command)
    assert (BENCHMARKS / f"{suite}.py").exists(), f"{name}: {command!r} names no script"
    try:
        suites.parse_arguments(suite, args)
    except SystemExit as error:  # argparse rejected the recorded arguments
        pytest.fail(f"{name}: benchmarks/{suite}.py no longer accepts {args} (exit {error.code})")


def test_every_suite_parses_its_arguments_with_argparse():
    # The check above needs each suite's parser; a suite without one would run when "parsed".
    for suite in suites.suites():
        assert "parse_args" in (BENCHMARKS / f"{suite}.py").read_text(), suite


# ---------------------------------------------------------------------------------------------
# (c) numbers quoted from results files
# ---------------------------------------------------------------------------------------------

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(`*])")


def quoted_numbers(sentence: str) -> list:
    """The result numbers of a sentence, as written (their decimals say the precision)."""
    found = []
    for match in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?)(\s?(?:x|s|ms)\b)?", sentence):
        number, unit = match.group(1), match.group(2)
        before, after = sentence[:match.start()], sentence[match.end():]
        if re.search(r"[=<>^]\s*$|\d[eE][-+]?$|(?<![\d.])-$", before) or after.startswith(("e-", "e+", "^")):
            continue  # a parameter (eps = 0.5), an exponent or a negative number (a range's end counts)
        if after[:1].isalnum() or after.startswith((".", "/")) and after[1:2].isdigit():
            continue  # part of a name or a version
        if unit or "." in number:
            found.append(number)
    return found


def matches(cited: str, values) -> bool:
    """``cited`` occurs among ``values`` to its shown digits (0.31 for 0.305, 77 for 76.7)."""
    decimals = len(cited.partition(".")[2])
    half = 0.5 * 10 ** -decimals + 1e-9
    target = float(cited)
    return any(abs(value - target) <= half for value in values)


def _sentences(text: str):
    """Each table row, each list item's and paragraph's sentences."""
    for block in re.split(r"\n(?=\s*(?:[-*+]|\d+\.) )", text):
        if block.lstrip().startswith("|"):
            yield from block.splitlines()
        else:
            yield from SENTENCE_END.split(" ".join(block.split()))


def _cited_files(sentence: str) -> list:
    names = set(re.findall(r"benchmarks/results/([\w.\-]+\w)", sentence))
    names |= {path.name for path in RESULT_FILES if f"`{path.name}`" in sentence}
    return sorted(name for name in names if (RESULTS / name).exists())


def _citations():
    """(document, sentence, cited files, numbers): each sentence or table row that names a
    results file, and each row of a table right after a paragraph that names one."""
    documents = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    for document in documents:
        paragraph_files = []
        for block in re.split(r"\n\s*\n", document.read_text()):
            is_table = block.lstrip().startswith("|")
            for sentence in _sentences(block):
                files = _cited_files(sentence) or (paragraph_files if is_table else [])
                numbers = quoted_numbers(sentence)
                if files and numbers:
                    yield document.relative_to(REPO).as_posix(), sentence, files, numbers
            if not is_table:
                paragraph_files = _cited_files(" ".join(block.split()))


CITATIONS = list(_citations())


def _plain(path) -> str:
    """A results file's text with its numbers apart: CSV commas split, 21,454 read as 21454."""
    text = provenance.read_text(path)
    if ".csv" in path.suffixes:
        return text.replace(",", " ")
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


@pytest.mark.parametrize("document,sentence,files,numbers", CITATIONS,
                         ids=[f"{c[0]}:{'+'.join(c[2])}:{i}" for i, c in enumerate(CITATIONS)])
def test_quoted_numbers_occur_in_the_cited_results(document, sentence, files, numbers):
    values = [float(v) for name in files for v in NUMBER.findall(_plain(RESULTS / name))]
    missing = [number for number in numbers if not matches(number, values)]
    assert not missing, f"{document}: {missing} not in {files}: {sentence[:300]}"


def test_the_number_check_sees_the_readme_citations():
    # The README's private-scales paragraph quotes small_data_pooling.txt: the check must find
    # it (else a change to the sentence splitting could silently check nothing).
    assert any(doc == "README.md" and "small_data_pooling.txt" in files for doc, _, files, _ in CITATIONS)
    # ... and the Figure 4 table of docs/choosing.md, row by row, under the paragraph naming it
    assert any(doc == "docs/choosing.md" and sentence.startswith("| Analyze Gauss defaults")
               for doc, sentence, _, _ in CITATIONS)
    assert quoted_numbers("was 1.25x (a), 0.31 s at eps = 0.5, n = 442, 1e-5, v0.2.0, 0.11-9.4x, the 0.557") == \
        ["1.25", "0.31", "0.11", "9.4", "0.557"]
    assert matches("0.31", [0.305]) and matches("77", [76.7]) and not matches("1.25", [1.27])
