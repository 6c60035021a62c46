#!/usr/bin/env bash
# Runs every test suite: pytest on numpy 2 (main venv), the core tests again on numpy 1.26
# (the venv R's reticulate uses), the doctests, the docstring check, the documentation site
# (make docs), the release (make dist: the wheel tested in a fresh venv), the R wrapper's
# testthat tests and R CMD check.
# Ends with one plain line "N passed, N failed" summing all suites; exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
export MPLBACKEND=Agg
passed=0; failed=0; status=0
# Logs go to a fresh folder, so that two runs on one machine never overwrite each other's.
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/dppca-tests.XXXXXX")
echo "logs: $LOGS"

count() {  # count LOG: add pytest's "N passed" / "N failed" (and errors) to the totals
  local p f e
  p=$(grep -Eo '[0-9]+ passed' "$1" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  f=$(grep -Eo '[0-9]+ failed' "$1" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  e=$(grep -Eo '[0-9]+ errors?' "$1" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  passed=$((passed + p)); failed=$((failed + f + e))
}

step() { echo; echo "=== $* ==="; }

step "system packages"
bash tools/install_system_deps.sh || status=1

step "main venv (numpy 2)"
make -s .venv/.installed-dev PYTHON="$PYTHON" || status=1
step "pytest (numpy 2)"
.venv/bin/python -m pytest -q -p no:cacheprovider tests 2>&1 | tee "$LOGS/pytest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count "$LOGS/pytest.log"

step "doctests (every Examples section in dppca/)"
.venv/bin/python -m pytest -q -p no:cacheprovider --doctest-modules dppca 2>&1 | tee "$LOGS/doctest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count "$LOGS/doctest.log"

check() {  # check NAME COMMAND...: one passed or failed check
  if "${@:2}"; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; echo "FAILED: $1"; fi
}
step "layers (import-linter contract in pyproject.toml)"
check "layers" .venv/bin/lint-imports
step "docstrings (numpydoc validation, tools/check_docstrings.py)"
check "docstrings" .venv/bin/python tools/check_docstrings.py
step "documentation site (make docs: Sphinx -W, tutorials executed)"
check "docs" make -s docs PYTHON="$PYTHON"
step "release (make dist: sdist and wheel built and checked, the wheel tested in a fresh venv)"
check "dist" make -s dist PYTHON="$PYTHON"

step "R venv (numpy 1.26) and core tests on it"
bash tools/make_r_venv.sh || status=1
.venv-r/bin/python -m pytest -q -p no:cacheprovider -m "not slow" tests/test_privacy.py \
  tests/test_directions.py tests/test_kendall.py 2>&1 | tee "$LOGS/pytest-np1.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count "$LOGS/pytest-np1.log"

if [ -x tools/run_r_tests.sh ]; then
  step "R wrapper (testthat, R CMD check, vignette)"
  bash tools/run_r_tests.sh 2>&1 | tee "$LOGS/r.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  rp=$(grep -Eo 'R: [0-9]+ passed' "$LOGS/r.log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  rf=$(grep -Eo 'R: [0-9]+ passed, [0-9]+ failed' "$LOGS/r.log" | tail -1 | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 0)
  passed=$((passed + rp)); failed=$((failed + rf))
fi

[ "$failed" -eq 0 ] || status=1
echo
echo "$passed passed, $failed failed"
exit $status
