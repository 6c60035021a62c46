#!/usr/bin/env bash
# make dist: build the sdist and the wheel into dist/ (python -m build: the wheel is built from
# the sdist, so a file missing from the sdist fails here), check them (twine check --strict, the
# files each must carry, no setuptools deprecation warning), install the wheel into a fresh
# virtual environment outside the source tree and, from a folder outside it, run
# `dppca report` on the bundled adult data and the core test modules against the installed
# package. A data file left out of the wheel, or a test passing only because the source tree
# is importable, fails here. Exits non-zero on the first failure.
#   PYTHON   the Python that builds (needs build and twine: the dev extra); default .venv's
#   PYTHON_NEW  the Python the fresh venv is made from; default python3
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
PYTHON_NEW=${PYTHON_NEW:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dppca-dist.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The source tree must not be importable from the fresh venv.
unset PYTHONPATH
export MPLBACKEND=Agg
fail() { echo "make dist: $*" >&2; exit 1; }
stage() { echo "--- [${SECONDS}s] $*"; }
version=$("$PYTHON" -c "import ast, sys; tree = ast.parse(open('dppca/_version.py').read())
print(next(n.value.value for n in tree.body if isinstance(n, ast.Assign)
           and n.targets[0].id == '__version__'))")
stage "dppca $version: sdist and wheel (python -m build)"
rm -f dist/dppca-*.tar.gz dist/dppca-*.whl
"$PYTHON" -m build --outdir dist . >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "build failed"; }
if grep -i 'deprecat' "$WORK/build.log"; then fail "the build printed a deprecation warning (above)"; fi
sdist="dist/dppca-$version.tar.gz"
wheel="dist/dppca-$version-py3-none-any.whl"
[ -f "$sdist" ] && [ -f "$wheel" ] || { ls dist; fail "expected $sdist and $wheel"; }
ls -l "$sdist" "$wheel"

stage "twine check --strict"
"$PYTHON" -m twine check --strict "$sdist" "$wheel"

stage "contents"
"$PYTHON" - "$sdist" "$wheel" "$version" <<'EOF'
import sys
import tarfile
import zipfile
from pathlib import Path

sdist, wheel, version = sys.argv[1:]
top = f"dppca-{version}/"
in_sdist = {name.removeprefix(top) for name in tarfile.open(sdist).getnames()}
in_wheel = set(zipfile.ZipFile(wheel).namelist())
data = sorted(str(p) for p in Path("dppca/datasets/data").glob("*.gz"))
need_sdist = ["LICENSE", "README.md", "CHANGELOG.md", "CITATION.cff", "pyproject.toml",
              "dppca/_version.py", *data]
need_wheel = ["dppca/_version.py", f"dppca-{version}.dist-info/licenses/LICENSE", *data]
missing = [f"sdist: {n}" for n in need_sdist if n not in in_sdist]
missing += [f"wheel: {n}" for n in need_wheel if n not in in_wheel]
if not data or missing:
    sys.exit("missing from the distributions: " + ", ".join(missing or ["the data files"]))
print(f"sdist: {len(in_sdist)} files, wheel: {len(in_wheel)} files; both carry "
      + ", ".join(Path(n).name for n in data))
EOF

stage "fresh venv outside the source tree: install the wheel"
"$PYTHON_NEW" -m venv "$WORK/venv"
VENV="$WORK/venv"

# The wheel with its runtime dependencies; pytest, hypothesis and threadpoolctl for the core tests.
# --no-compile: Python compiles what is imported anyway; byte-compiling all of SciPy, pandas,
# numba, ... up front made the install 3x slower (336 s against 110 s on 2 busy cores).
"$VENV/bin/python" -m pip install -q --no-compile "$ROOT/$wheel" pytest hypothesis threadpoolctl

RUN="$WORK/run"
mkdir -p "$RUN/tests" "$RUN/data"
cd "$RUN"
"$VENV/bin/python" - "$VENV" "$version" <<'EOF'
import importlib.metadata
import sys
from pathlib import Path

import dppca

venv, version = Path(sys.argv[1]).resolve(), sys.argv[2]
where = Path(dppca.__file__).resolve()
assert venv in where.parents, f"dppca imported from {where}, not from the fresh venv {venv}"
assert dppca.__version__ == version == importlib.metadata.version("dppca"), (
    dppca.__version__, version, importlib.metadata.version("dppca"))
print(f"installed dppca {dppca.__version__} from {where.parent}")
EOF
# dppca --version where the command line has it (it must print the version), else the attribute.
if printed=$("$VENV/bin/dppca" --version 2>/dev/null); then
  echo "dppca --version: $printed"
  grep -qF "$version" <<<"$printed" || fail "dppca --version printed '$printed', not $version"
else
  echo "dppca.__version__: $("$VENV/bin/python" -c 'import dppca; print(dppca.__version__)')"
fi

stage "dppca report on the bundled adult data (installed wheel)"
"$VENV/bin/dppca" report --data adult --k 2 --eps 1 --delta 1e-5 --seed 1 --out "$RUN/report" \
  >"$WORK/report.log" 2>&1 || { cat "$WORK/report.log"; fail "dppca report failed"; }
tail -5 "$WORK/report.log"
[ -n "$(ls "$RUN/report")" ] || fail "dppca report wrote nothing to $RUN/report"
echo "report files: $(ls "$RUN/report" | tr '\n' ' ')"

stage "core tests against the installed wheel"
# Copies of the test modules and their conftest next to the project's pytest settings (markers,
# warning filters), in a folder where no dppca/ exists: `import dppca` finds the venv's.
cp "$ROOT/pyproject.toml" "$RUN/"
cp "$ROOT/tests/conftest.py" "$ROOT/tests/test_privacy.py" "$ROOT/tests/test_directions.py" \
  "$ROOT/tests/test_kendall.py" "$RUN/tests/"
[ -f "$ROOT/data/adult.csv.gz" ] && cp "$ROOT/data/adult.csv.gz" "$RUN/data/"
cat >"$RUN/tests/test_installed.py" <<EOF
"""The tests of this run import the installed wheel (made by tools/make_dist.sh)."""
from pathlib import Path

import dppca


def test_dppca_is_the_installed_wheel():
    assert Path("$VENV").resolve() in Path(dppca.__file__).resolve().parents, dppca.__file__
EOF
"$VENV/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$RUN" --basetemp "$WORK/pytest" \
  -m "not slow" \
  tests/test_installed.py tests/test_privacy.py tests/test_directions.py tests/test_kendall.py
echo "make dist: ok in ${SECONDS}s (dppca $version: $sdist, $wheel)"
