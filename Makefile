# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# Each creates .venv when absent, installs the pinned CPU torch first (an unpinned
# torch would pull a multi-GB CUDA build), then the project, then provisions models/.
# Stamp files make a second run with nothing changed install nothing.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.localcrag-installed
MODELS := models/.provisioned
# files holding cog blocks rendered by scripts/readme_tables.py (make lint checks them)
COG_FILES := README.md docs/ingest.md docs/performance.md

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2

.PHONY: install models run lint test bench bench-quick readme readme-tables clean-venv help

help:
	@echo "make run    - install if needed, provision models, start localcrag"
	@echo "make lint   - ruff (lint + format check), mypy, the import contracts, README figures up to date"
	@echo "make test   - install if needed, make lint, run the test suite"
	@echo "make bench  - run the benchmarks and rewrite BENCHMARKS.md and BENCHMARKS.json"
	@echo "make readme - re-run README's eval commands into docs/results/, re-render README's tables"

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml constraints.txt | $(PY)
	$(PIP) install --disable-pip-version-check -q -c constraints.txt torch==2.13.0
	$(PIP) install --disable-pip-version-check -q -c constraints.txt -e '.[dev]'
	@touch $@

install: $(STAMP)

$(MODELS): $(STAMP) localcrag/provision.py localcrag/models/embed_onnx.py localcrag/ingest/ocr.py
	$(PY) -m localcrag.provision
	@touch $@

models: $(MODELS)

run: $(MODELS)
	$(PY) -m localcrag

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(VENV)/bin/cog --check -I scripts --check-fail-msg 'run make readme-tables (or cog -r -I scripts $(COG_FILES))' $(COG_FILES)

test: $(MODELS) lint
	$(PY) -m pytest -q

bench: $(MODELS)
	$(PY) -m bench
	$(MAKE) readme-tables

bench-quick: $(MODELS)
	$(PY) -m bench --quick

# README's tables (and the figures in docs/ingest.md and docs/performance.md) are cog blocks
# rendered by scripts/readme_tables.py from BENCHMARKS.json (make bench) and docs/results/*.json
# (written here by re-running README's eval commands).
readme: $(MODELS)
	$(PY) scripts/readme_evals.py
	$(MAKE) readme-tables

readme-tables: $(STAMP)
	$(VENV)/bin/cog -r -I scripts $(COG_FILES)

clean-venv:
	rm -rf $(VENV) $(MODELS)
