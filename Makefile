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
# `make test` runs the suite in this many processes (pytest-xdist; a test file stays in one).
TEST_WORKERS ?= 2
NVIM_LUA := editors/nvim tests/e2e/nvim
STYLUA := $(VENV)/lua-tools/node_modules/.bin/stylua

.DEFAULT_GOAL := help

help: ## Show this help
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

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

lint: $(DEV_STAMP) nvim-lint ## ruff (lint + format check), the import, size and start-up contracts, mypy strict; Lua
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tools/check_imports.py
	$(BIN)/python tools/check_size.py
	$(BIN)/python tools/check_startup.py
	$(BIN)/python tools/check_ts_cycles.py
	$(BIN)/python -m server.protocol.gen --check
	$(BIN)/python tools/check_client_words.py
	$(BIN)/mypy

protocol: $(DEV_STAMP) ## Write the files generated from server/protocol: the command manifest, protocolDecl.ts, protocol.lua, the docs' generated tables
	$(BIN)/python -m server.protocol.gen

typecheck: $(DEV_STAMP) ## mypy strict on harness and server
	$(BIN)/mypy

fmt: $(DEV_STAMP) $(STYLUA) ## Apply ruff formatting and safe fixes; stylua
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	$(STYLUA) --config-path editors/nvim/stylua.toml $(NVIM_LUA)

test: lint system-deps vscode-check vscode-deps mcp-servers acp-clients ## Lint, the whole test suite (unit, e2e, editors), and `harness demo` once
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  if (cd "$$tmp" && "$(CURDIR)/$(BIN)/harness" demo > demo.log 2>&1) && test -s "$$tmp/demo-out/context.svg"; \
	  then echo "harness demo: ok (exit 0, chart written)"; \
	  else cat "$$tmp/demo.log"; echo "make test: harness demo failed" >&2; exit 1; fi

# Tests whose rule a small N proves in `make test`; HARNESS_SOAK=1 runs them at full scale.
SOAK_SCALE := tests/harness/test_loop.py::test_a_turn_of_many_calls_runs_32_and_answers_the_rest \
	tests/e2e/test_cli_demo.py::test_a_long_demo_raises_the_bounded_budget_and_says_so \
	tests/harness/mcp/test_mcp_runtime.py::test_stderr_flood_does_not_block_and_50_mb_is_cut

soak: $(DEV_STAMP) system-deps ## The standing reliability suite (tests/reliability) with larger counts (HARNESS_SOAK=1)
	HARNESS_SOAK=1 $(BIN)/pytest tests/reliability $(SOAK_SCALE) --timeout=1800 $(PYTEST_ARGS)
	$(BIN)/python tools/reliability_report.py

bench: $(DEV_STAMP) ## Benchmarks (tests/bench); numbers go to docs/MEASUREMENTS.md
	$(BIN)/pytest tests/bench -q -s -p no:randomly $(PYTEST_ARGS)

system-deps: ## System packages the tests need (tools/system-deps.sh; installs only as root)
	bash tools/system-deps.sh

# -- VS Code extension (editors/vscode) ----------------------------------------------------
VSCODE := editors/vscode
VSCODE_NPM := $(VSCODE)/node_modules/.package-lock.json
VSCODE_SOURCES := $(wildcard $(VSCODE)/src/*.ts) $(wildcard $(VSCODE)/media/*) $(addprefix $(VSCODE)/,package.json tsconfig.json README.md .vscodeignore)

$(VSCODE_NPM): $(VSCODE)/package.json $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The check's inputs: a re-run of `make test` with none of them changed skips it (~20 s CPU).
VSCODE_CHECKED := $(VSCODE)/.stamp-check
VSCODE_CHECK_INPUTS := $(wildcard $(VSCODE)/src/*.ts $(VSCODE)/src/test/*.ts) \
	$(addprefix $(VSCODE)/,package.json tsconfig.json eslint.config.mjs .prettierrc.json .prettierignore)

$(VSCODE_CHECKED): $(VSCODE_NPM) $(VSCODE_CHECK_INPUTS)
	cd $(VSCODE) && npm run -s lint && npm run -s typecheck && npm run -s test:unit
	touch $@

vscode-check: $(VSCODE_CHECKED) ## VS Code extension: ESLint, tsc --noEmit, unit tests (node --test)

$(VSCODE)/harness.vsix: $(VSCODE_NPM) $(VSCODE_SOURCES)
	cd $(VSCODE) && npm run -s package

vsix: $(VSCODE)/harness.vsix ## Build editors/vscode/harness.vsix with @vscode/vsce

vscode-deps: system-deps vsix ## code-server (npm) and Chromium (apt) for tests/e2e/test_vscode_*.py
	bash $(VSCODE)/scripts/install-code-server.sh >/dev/null

# -- MCP reference servers (npm) the MCP tests drive (tests/harness/mcp) ----------------------
MCP_NPM := tests/mcp_servers/node_modules/.package-lock.json

$(MCP_NPM): tests/mcp_servers/package.json tests/mcp_servers/package-lock.json
	cd tests/mcp_servers && npm ci --no-audit --no-fund --loglevel=error
	touch $@

mcp-servers: $(MCP_NPM) ## @modelcontextprotocol/server-everything and server-filesystem for the MCP tests

# -- a real ACP client (npm) the ACP tests drive harness acp with (tests/e2e/test_acp_acpx.py) --
ACP_NPM := tests/acp_clients/node_modules/.package-lock.json

$(ACP_NPM): tests/acp_clients/package.json tests/acp_clients/package-lock.json
	# npm ci refuses this lock (npm/cli#4828: acpx's platform-only optional packages are
	# missing from a lock written on Linux); npm install keeps the locked versions.
	cd tests/acp_clients && npm install --no-audit --no-fund --loglevel=error --no-save
	touch $@

acp-clients: $(ACP_NPM) ## acpx, a headless ACP client, for the ACP smoke test

# -- Neovim plugin (editors/nvim): stylua (npm) and luacheck (Debian's lua-check) ----------
$(STYLUA):
	npm install --prefix $(VENV)/lua-tools --no-audit --no-fund --loglevel=error \
		@johnnymorganz/stylua-bin@2.5.2

nvim-lint: $(STYLUA) system-deps ## Neovim plugin: stylua --check, luacheck
	$(STYLUA) --check --config-path editors/nvim/stylua.toml $(NVIM_LUA)
	luacheck -q --config editors/nvim/.luacheckrc $(NVIM_LUA)

clean: ## Remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
	rm -rf $(VSCODE)/dist $(VSCODE)/out-test $(VSCODE)/harness.vsix $(VSCODE_CHECKED)

.PHONY: help setup demo lint protocol typecheck fmt test soak bench clean system-deps nvim-lint vscode-check vsix vscode-deps mcp-servers acp-clients
