# harness-lsp — run `make help` for the targets.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
NVIM_LUA := editors/nvim tests/e2e/nvim
STYLUA := $(VENV)/lua-tools/node_modules/.bin/stylua

.DEFAULT_GOAL := help

help: ## Show this help
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP) ## Create .venv and install the package with its dev dependencies

demo: setup ## Run the scripted demo: bounded vs naive context, and memory recalled by a second run
	$(BIN)/harness demo

lint: setup nvim-lint ## ruff (lint + format check), the import contract, mypy strict; Lua
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tools/check_imports.py
	$(BIN)/mypy

typecheck: setup ## mypy strict on harness and server
	$(BIN)/mypy

fmt: setup $(STYLUA) ## Apply ruff formatting and safe fixes; stylua
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	$(STYLUA) --config-path editors/nvim/stylua.toml $(NVIM_LUA)

test: setup lint ## Lint, then the whole test suite (unit, e2e through the real server)
	bash tools/system-deps.sh
	$(BIN)/pytest $(PYTEST_ARGS)

bench: setup ## Benchmarks (tests/bench); numbers go to docs/MEASUREMENTS.md
	$(BIN)/pytest tests/bench -q -s -p no:randomly $(PYTEST_ARGS)

system-deps: ## System packages the tests need (tools/system-deps.sh; installs only as root)
	bash tools/system-deps.sh

# -- Neovim plugin (editors/nvim): stylua (npm) and luacheck (Debian's lua-check) ----------
$(STYLUA):
	npm install --prefix $(VENV)/lua-tools --no-audit --no-fund --loglevel=error \
		@johnnymorganz/stylua-bin@2.5.2

nvim-lint: $(STYLUA) system-deps ## Neovim plugin: stylua --check, luacheck
	$(STYLUA) --check --config-path editors/nvim/stylua.toml $(NVIM_LUA)
	luacheck -q --config editors/nvim/.luacheckrc $(NVIM_LUA)

clean: ## Remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

.PHONY: help setup demo lint typecheck fmt test bench clean system-deps nvim-lint
