# harness-lsp — run `make help` for the targets.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.DEFAULT_GOAL := help

help: ## Show this help
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP) ## Create .venv and install the package with its dev dependencies

demo: setup ## Run the scripted demo: bounded vs naive context, and memory recalled by a second run
	$(BIN)/harness demo

lint: setup ## ruff (lint + format check), the import contract, mypy strict
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tools/check_imports.py
	$(BIN)/mypy

typecheck: setup ## mypy strict on harness and server
	$(BIN)/mypy

fmt: setup ## Apply ruff formatting and safe fixes
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: setup lint vscode-check vscode-deps ## Lint, then the whole test suite (unit, e2e through the real server and editors)
	$(BIN)/pytest $(PYTEST_ARGS)

bench: setup ## Benchmarks (tests/bench); numbers go to docs/MEASUREMENTS.md
	$(BIN)/pytest tests/bench -q -s -p no:randomly $(PYTEST_ARGS)

system-deps: ## System packages the tests need (tools/system-deps.sh; installs only as root)
	bash tools/system-deps.sh

# -- VS Code extension (editors/vscode) ----------------------------------------------------
VSCODE := editors/vscode
VSCODE_NPM := $(VSCODE)/node_modules/.package-lock.json
VSCODE_SOURCES := $(wildcard $(VSCODE)/src/*.ts) $(addprefix $(VSCODE)/,package.json tsconfig.json README.md .vscodeignore)

$(VSCODE_NPM): $(VSCODE)/package.json $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

vscode-check: $(VSCODE_NPM) ## VS Code extension: ESLint, tsc --noEmit, unit tests (node --test)
	cd $(VSCODE) && npm run -s lint && npm run -s typecheck && npm run -s test:unit

$(VSCODE)/harness.vsix: $(VSCODE_NPM) $(VSCODE_SOURCES)
	cd $(VSCODE) && npm run -s package

vsix: $(VSCODE)/harness.vsix ## Build editors/vscode/harness.vsix with @vscode/vsce

vscode-deps: system-deps vsix ## code-server (npm) and Chromium (apt) for tests/e2e/test_vscode_*.py
	bash $(VSCODE)/scripts/install-code-server.sh >/dev/null

clean: ## Remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
	rm -rf $(VSCODE)/dist $(VSCODE)/out-test $(VSCODE)/harness.vsix

.PHONY: help setup demo lint typecheck fmt test bench clean system-deps vscode-check vsix vscode-deps
