"""The house rules, checked on the source tree (the layers themselves: lint-imports).

One home per idea: a module past SOFT_MAX_LINES lines is asked whether it holds two ideas
(it is split, or listed in EXCEPTIONS with the reason it is still one); every module
declares ``__all__`` (whose names exist); no module imports another module's private
(``_name``) objects; no two modules need each other (no import circle, at any depth).
"""
import ast
import importlib.util
import pathlib
import re

import pytest

import dppca

ROOT = pathlib.Path(dppca.__file__).parent
MODULES = sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)
#: Where to ask whether a module holds two ideas. Not a number to squeeze code under: a module
#: whose one idea needs more lines is listed in EXCEPTIONS with its reason.
SOFT_MAX_LINES = 450
#: Modules past SOFT_MAX_LINES: {path under dppca/: one line saying why it is still one idea}.
EXCEPTIONS: dict[str, str] = {
    "scree.py": "one idea, the dp_scree pipeline and its plot twin; the rank path's dispatch added "
                "a few lines (the rank scree itself lives in scree_rank.py)",
    "score.py": "one idea, the dp_score pipelines; the rank path's dispatch added a few lines (its "
                "pipeline lives in score_rank.py)",
    "sklearn.py": "one idea, the DPPCA estimator's fit/transform contract; standardize='rank' added "
                  "its branch",
    "results/scree.py": "one idea, the ScreeResult object (tables, intervals, summary, plot); the "
                        "estimand hook added a few lines",
    "results/scree_rank.py": "one idea, the rank scree's result with its proven interval bound "
                             "(RankBound), whose proof in the docstring is most of the lines",
    "directions.py": "one idea, dp_pc_dir's argument checks and dispatch; the missing= and "
                     "neighbouring= hooks added lines (their logic lives in "
                     "preprocessing/missing_entry.py and privacy/neighbouring.py)",
    "app/inputs.py": "one idea, what a client may send: a checker per input kind and the table of "
                     "every input id, kept together so that no id escapes the check",
}
#: Import circles not yet broken: {frozenset of modules: what needs what, and where to cut}.
#: The test fails when one is gone, so that the entry goes with it.
KNOWN_CIRCLES: dict = {}


def _name(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_holds_one_idea(path):
    lines, name = len(path.read_text().splitlines()), path.relative_to(ROOT).as_posix()
    assert lines <= SOFT_MAX_LINES or name in EXCEPTIONS, (
        f"dppca/{name} has {lines} lines (> {SOFT_MAX_LINES}): split it by idea or add it to "
        "EXCEPTIONS with a reason; never reflow code to fit")


@pytest.mark.parametrize("name", sorted(EXCEPTIONS))
def test_exceptions_are_current(name):
    # An entry names a module that exists and still needs it, with a reason.
    path = ROOT / name
    assert path.is_file() and len(path.read_text().splitlines()) > SOFT_MAX_LINES, \
        f"dppca/{name} is gone or back under {SOFT_MAX_LINES} lines: remove it from EXCEPTIONS"
    assert EXCEPTIONS[name].strip()


def _import_map():
    """tools/import_map.py, loaded from the source tree (tools/ is not a package)."""
    path = ROOT.parent / "tools" / "import_map.py"
    if not path.is_file():
        pytest.skip("an installed dppca without its source tree (tools/)")
    spec = importlib.util.spec_from_file_location("import_map", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_import_circles():
    # Every import counts, inside functions too (grimp reads them all): a circle hidden in a
    # function still makes two modules that cannot be understood or moved apart.
    tool = _import_map()
    graph = tool.import_graph("dppca")
    found = {frozenset(c) for c in tool.circles(graph)}
    new = [" -> ".join(tool.shortest_cycle(graph, sorted(c))) for c in found - set(KNOWN_CIRCLES)]
    assert not new, f"import circles: {new}; move the shared constant or helper to the lower module"
    gone = [sorted(c) for c in set(KNOWN_CIRCLES) - found]
    assert not gone, f"circles broken, remove them from KNOWN_CIRCLES: {gone}"


def test_circle_finder_sees_function_level_imports():
    # The finder must not miss what it is for: a two-module circle through a function-level import.
    tool = _import_map()
    assert tool.circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert tool.circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    graph = tool.import_graph("dppca")
    assert "dppca.scree" in graph["dppca.cli.report"]  # imported inside scree_section only


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_declares_all_and_its_names_exist(path):
    if _name(path).startswith("dppca.app"):
        pytest.importorskip("shiny")
    module = importlib.import_module(_name(path))
    assert isinstance(getattr(module, "__all__", None), list), "no __all__"
    missing = [n for n in module.__all__ if not hasattr(module, n) and n != "DPPCA"]
    assert not missing


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_imported_from_another_module(path):
    tree = ast.parse(path.read_text())
    private = [f"{node.module}.{alias.name}" for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom)
               for alias in node.names
               if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert not private


def test_package_holds_only_modules_and_data():
    # A merge leaves *.orig / *.rej copies beside the files it touched; the package ships only
    # its modules and the bundled data sets (gzip).
    strays = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".py", ".gz"}]
    assert strays == []


#: Comments and docstrings give each rule's reason in its own terms; which issue asked for it
#: belongs in git history. A reference like "issue 20" or "finding 3" outside an Examples section:
ISSUE_REFERENCE = re.compile(r"\b[Ii]ssues? ?#?\d+|\b[Ff]inding \d+")
#: Files with references still to rewrite: {path under dppca/: why they are not rewritten yet}.
#: The test fails once a listed file is clean, so that its entry goes too.
PENDING_ISSUE_REFERENCES: dict[str, str] = {}


def _outside_examples(text):
    """(line number, line) of ``text`` outside the numpydoc Examples sections of its docstrings."""
    lines, inside = text.splitlines(), False
    for number, line in enumerate(lines, 1):
        header = number < len(lines) and set(lines[number].strip()) == {"-"} and line.strip()
        if header:
            inside = line.strip() == "Examples"
        elif inside and '"""' in line:
            inside = False
        if not inside:
            yield number, line


def _issue_references(path):
    return [f"{number}: {line.strip()}" for number, line in _outside_examples(path.read_text())
            if ISSUE_REFERENCE.search(line)]


@pytest.mark.parametrize("path", [p for p in MODULES if "datasets" not in p.relative_to(ROOT).parts],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_issue_numbers_in_comments(path):
    found, name = _issue_references(path), path.relative_to(ROOT).as_posix()
    if name in PENDING_ISSUE_REFERENCES:
        assert found, f"dppca/{name} has no issue reference left: remove it from the pending list"
        return
    assert not found, (f"dppca/{name}: give the rule's reason (the maths, the bound, the failure "
                       f"probability), not the issue that asked for it: {found}")


def test_issue_reference_finder():
    # It sees a reference in a comment or a docstring, and none in an Examples section.
    text = ('"""Rule (issue 20).\n\nExamples\n--------\n>>> f()  # issue 3\n"""\n'
            "x = 1  # finding 5\n")
    assert [n for n, line in _outside_examples(text) if ISSUE_REFERENCE.search(line)] == [1, 7]
