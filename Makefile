# The commands the README names. Everything installs what it needs on a fresh Debian machine.
PYTHON ?= python3
VENV   := .venv
VENV_R := .venv-r
PIP    := $(VENV)/bin/pip

.PHONY: demo test bench docs dist clean

## demo: install the package and run the private report on the bundled adult data
demo: $(VENV)/.installed
	$(VENV)/bin/dppca report --data adult --k 5 --eps 1 --delta 1e-5 --seed 1 --standardize --out report/

## test: install everything (Python, R from Debian packages) and run every test suite
test:
	bash tools/run_tests.sh

## dist: sdist and wheel in dist/, checked (twine), the wheel tested in a fresh venv outside the tree
dist: $(VENV)/.installed-dev
	PYTHON=$(VENV)/bin/python PYTHON_NEW=$(PYTHON) bash tools/make_dist.sh

## bench: the speed and accuracy benchmarks (tables, not tests): every bench_*.py that has --quick, or
## one suite through the runner, its output saved with its provenance in benchmarks/results/:
##   make bench SUITE=bench_centre ARGS="--seeds 5"    (python -m benchmarks --list: the suites)
SUITE ?=
ARGS  ?=
bench: $(VENV)/.installed-dev
ifeq ($(SUITE),)
	$(VENV)/bin/python -m benchmarks --quick-set
else
	$(VENV)/bin/python -m benchmarks $(SUITE) $(ARGS)
endif

$(VENV)/.installed: pyproject.toml dppca/_version.py
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q .
	touch $@

$(VENV)/.installed-dev: pyproject.toml dppca/_version.py
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e ".[dev,r]"
	touch $@

## docs: the documentation site (Sphinx, tutorials executed) into docs/_build/html; warnings are errors
docs: $(VENV)/.installed-dev
	$(VENV)/bin/python -m sphinx -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf $(VENV) $(VENV_R) build dist *.egg-info report docs/_build docs/_generated docs/api docs/tutorials
