#!/usr/bin/env bash
# Debian packages the R side needs (R 4.2 from Debian: CRAN is not reachable), and Chromium
# for the app's browser tests (Playwright drives it; its own browser download is not used),
# and fonts-droid-fallback (1.8 MB; CJK glyphs for figures with such column names, found by
# dppca.plotting.labels.FALLBACK_FONTS; fonts-noto-cjk would be 57 MB). PostgreSQL: the budget store's tests start a throwaway
# cluster (tests/budget/conftest.py). Idempotent.
set -euo pipefail
pkgs="postgresql r-base-core r-cran-reticulate r-cran-testthat r-cran-ggplot2 r-cran-patchwork r-cran-knitr r-cran-rmarkdown pandoc chromium fonts-droid-fallback"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $missing >/dev/null
fi
echo "system packages ok: $(R --version | head -1); $(chromium --version 2>/dev/null)"
