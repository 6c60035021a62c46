#!/usr/bin/env bash
# The Python environment R uses through reticulate: Debian's reticulate 1.28 cannot load
# numpy 2, so this venv pins numpy<2 and installs dppca into it (with rpy2: the R tests
# check that the rpy2 and reticulate routes build the same R objects). pyarrow 26 needs
# numpy 2, so it is held below 26 (dask reads Parquet/CSV paths with it).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -f .venv-r/.installed-dev-r ] || [ pyproject.toml -nt .venv-r/.installed-dev-r ] ||
   [ tools/make_r_venv.sh -nt .venv-r/.installed-dev-r ]; then
  "$PYTHON" -m venv .venv-r
  .venv-r/bin/pip install -q --upgrade pip
  .venv-r/bin/pip install -q "numpy>=1.26,<2" "pyarrow<26" -e ".[dev,r]"
  touch .venv-r/.installed-dev-r
fi
.venv-r/bin/python -c "import numpy, dppca; print('R venv: numpy', numpy.__version__)"
