# harness-lsp — run `make help` for the targets.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two installs in one venv: `make demo` needs only the package and its runtime
# dependencies; `make lint`/`make test` add the development tools.
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev
PYTEST_ARGS ?=

.DEFAULT_GOAL := help

help: ## Show this help
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml $(RUNTIME_STAMP)
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

setup: $(DEV_STAMP) ## Create .venv and install the package with its dev dependencies

demo: $(RUNTIME_STAMP) ## Run the scripted demo: bounded vs naive context, and memory recalled by a second run
	$(BIN)/harness demo

lint: $(DEV_STAMP) ## ruff (lint + format check), the import and size contracts, mypy strict
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tools/check_imports.py
	$(BIN)/python tools/check_size.py
	$(BIN)/mypy

typecheck: $(DEV_STAMP) ## mypy strict on harness and server
	$(BIN)/mypy

fmt: $(DEV_STAMP) ## Apply ruff formatting and safe fixes
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: lint ## Lint, the whole test suite (unit, e2e through the real server), and `harness demo` once
	$(BIN)/pytest $(PYTEST_ARGS)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  if (cd "$$tmp" && "$(CURDIR)/$(BIN)/harness" demo > demo.log 2>&1) && test -s "$$tmp/demo-out/context.svg"; \
	  then echo "harness demo: ok (exit 0, chart written)"; \
	  else cat "$$tmp/demo.log"; echo "make test: harness demo failed" >&2; exit 1; fi

bench: $(DEV_STAMP) ## Benchmarks (tests/bench); numbers go to docs/MEASUREMENTS.md
	$(BIN)/pytest tests/bench -q -s -p no:randomly $(PYTEST_ARGS)

clean: ## Remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

.PHONY: help setup demo lint typecheck fmt test bench clean
