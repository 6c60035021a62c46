#!/usr/bin/env bash
# The R side: build r-wrapper (dppcapy; R CMD build knits vignettes/reticulate.Rmd), run
# R CMD check --no-manual on the tarball (which runs the testthat suite), copy the knitted
# vignette to vignettes/_build/reticulate.html, and print one plain line
#   R: N passed, M failed
# where N and M count testthat expectations plus three steps (build, check with no ERROR
# or WARNING, vignette HTML). Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/vignettes/_build"
WORK=$(mktemp -d /tmp/dppcapy-check.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

bash tools/install_system_deps.sh >/dev/null || { echo "R: 0 passed, 1 failed"; exit 1; }
bash tools/make_r_venv.sh || { echo "R: 0 passed, 1 failed"; exit 1; }

export RETICULATE_PYTHON="$ROOT/.venv-r/bin/python"
export NOT_CRAN=true
export _R_CHECK_FORCE_SUGGESTS_=false
export MPLBACKEND=Agg
passed=0; failed=0
step_ok() { passed=$((passed + 1)); echo "ok: $*"; }
step_failed() { failed=$((failed + 1)); echo "FAILED: $*"; }

[ -f r-wrapper/data/gau.rda ] || (cd r-wrapper && Rscript data-raw/make_data.R)

echo "--- R CMD build r-wrapper"
if (cd "$WORK" && R CMD build "$ROOT/r-wrapper" >build.log 2>&1); then
  step_ok "R CMD build"
else
  cat "$WORK/build.log"; step_failed "R CMD build"
fi
tarball=$(ls "$WORK"/dppcapy_*.tar.gz 2>/dev/null | head -1)

if [ -n "$tarball" ]; then
  echo "--- R CMD check --no-manual $(basename "$tarball")"
  (cd "$WORK" && R CMD check --no-manual "$tarball" >check.log 2>&1)
  check_dir="$WORK/dppcapy.Rcheck"
  status_line=$(grep -E '^Status:' "$check_dir/00check.log" 2>/dev/null | tail -1)
  grep -E '(WARNING|ERROR|NOTE)$' -A8 "$check_dir/00check.log" 2>/dev/null | head -60
  echo "${status_line:-Status: check did not finish}"
  if [ -n "$status_line" ] && ! grep -qE 'ERROR|WARNING' <<<"$status_line"; then
    step_ok "R CMD check ($status_line)"
  else
    tail -40 "$WORK/check.log"; step_failed "R CMD check"
  fi

  echo "--- testthat (run by R CMD check)"
  rout=$(ls "$check_dir"/tests/testthat.Rout* 2>/dev/null | head -1)
  summary=$(grep -E '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$rout" 2>/dev/null | tail -1)
  if [ -n "$summary" ]; then
    echo "testthat: $summary"
    tf=$(sed -E 's/.*FAIL ([0-9]+).*/\1/' <<<"$summary")
    tp=$(sed -E 's/.*PASS ([0-9]+).*/\1/' <<<"$summary")
    ts=$(sed -E 's/.*SKIP ([0-9]+).*/\1/' <<<"$summary")
    passed=$((passed + tp)); failed=$((failed + tf))
    [ "$ts" -eq 0 ] || { grep -A3 'Skipped' "$rout" | head -20; step_failed "$ts testthat skips (Python missing?)"; }
    [ "$tf" -eq 0 ] || tail -60 "$rout"
  else
    [ -n "$rout" ] && tail -40 "$rout"
    step_failed "testthat did not report"
  fi

  echo "--- vignette HTML"
  mkdir -p "$OUT"
  rm -f "$OUT/reticulate.html"
  tar -xzf "$tarball" -C "$WORK" dppcapy/inst/doc/reticulate.html 2>/dev/null &&
    cp "$WORK/dppcapy/inst/doc/reticulate.html" "$OUT/reticulate.html"
  if [ -s "$OUT/reticulate.html" ] && grep -q "Privacy ledger: budget" "$OUT/reticulate.html"; then
    step_ok "vignette knitted: vignettes/_build/reticulate.html"
  else
    step_failed "vignette HTML missing, or its code did not run"
  fi
else
  step_failed "no tarball: check, tests and vignette not run"
fi

echo "R: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
