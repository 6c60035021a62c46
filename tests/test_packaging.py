"""Release facts: one version everywhere, the license and citation files, the wheel's data.

``tools/make_dist.sh`` (``make dist``, run by ``make test``) builds the sdist and the wheel and
tests the wheel in a fresh virtual environment; these tests check the same facts from the
source tree, faster.
"""
import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import dppca

ROOT = Path(__file__).parent.parent

CHECK = """
import dppca, sys
from dppca import load_adult, load_gau, load_gau_g
assert dppca.__file__.startswith(sys.argv[1]), dppca.__file__
shapes = [load_gau().shape, load_gau_g().shape, load_adult().shape, load_adult(labels=True).shape]
assert shapes == [(5000, 20), (5000, 21), (32561, 5), (32561, 14)], shapes
print("ok", dppca.__file__)
"""


def _installed_from_this_tree():
    """Whether the dppca metadata Python finds belongs to this checkout (an editable install of
    ROOT, or the egg-info a build wrote here); another checkout's states that one's version."""
    try:
        dist = importlib.metadata.distribution("dppca")
    except importlib.metadata.PackageNotFoundError:
        return False
    if Path(dist.locate_file("")).resolve() == ROOT.resolve():  # dppca.egg-info of a build here
        return True
    direct_url = dist.read_text("direct_url.json")
    if direct_url is None:
        return False
    url = json.loads(direct_url).get("url", "")
    return url.startswith("file://") and Path(url.removeprefix("file://")).resolve() == ROOT.resolve()


def test_version_is_single_sourced():
    written = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "dppca/_version.py").read_text(),
                        re.MULTILINE)
    assert written is not None
    assert dppca.__version__ == written.group(1)
    # PEP 440 release numbers only: the R wrapper's handshake reads it with numeric_version().
    assert re.fullmatch(r"\d+\.\d+\.\d+", dppca.__version__)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = { attr = "dppca._version.__version__" }' in pyproject
    assert not re.search(r'^version = "', pyproject, re.MULTILINE)  # no second copy
    description = (ROOT / "r-wrapper/DESCRIPTION").read_text()
    assert re.search(r"^Version: (.+)$", description, re.MULTILINE).group(1) == dppca.__version__


def test_version_matches_installed_metadata():
    if not _installed_from_this_tree():
        pytest.skip("the installed dppca's metadata belongs to another checkout or install")
    assert dppca.__version__ == importlib.metadata.version("dppca")


def test_license_files():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 dppca developers" in text
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "MIT"' in pyproject and 'license-files = ["LICENSE"]' in pyproject
    # R's "MIT + file LICENSE": the file holds only the year and the copyright holder.
    assert "License: MIT + file LICENSE" in (ROOT / "r-wrapper/DESCRIPTION").read_text()
    r_license = (ROOT / "r-wrapper/LICENSE").read_text().splitlines()
    assert r_license == ["YEAR: 2026", "COPYRIGHT HOLDER: dppca developers"]


def test_citation_cff_parses_and_names_the_version():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    # The keys CFF 1.2.0 requires, and the version of this tree.
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= cff.keys()
    assert cff["version"] == dppca.__version__
    assert cff["license"] == "MIT"
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    paper, = [r for r in cff["references"] if "2507.15232" in r["url"]]
    assert [a["family-names"] for a in paper["authors"]] == ["Kim", "Jung"]
    assert paper["year"] == 2025 and paper["type"] == "article"


def test_changelog_has_an_entry_for_the_version():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[{re.escape(dppca.__version__)}\] - \d{{4}}-\d\d-\d\d$", changelog,
                     re.MULTILINE)


@pytest.mark.slow
def test_wheel_contains_datasets(tmp_path):
    pytest.importorskip("build")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist),
                    str(ROOT)], check=True, capture_output=True)
    wheel = next(dist.glob("dppca-*.whl"))
    assert wheel.name == f"dppca-{dppca.__version__}-py3-none-any.whl"
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                    str(wheel)], check=True, capture_output=True)
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run([sys.executable, "-c", CHECK, str(site)], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("ok")
