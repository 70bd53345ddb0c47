"""Installing and configuring the plugin in real Neovim: `vim.lsp.enable('harness')` alone
works (lsp/harness.lua); the client serves every file buffer of the workspace whatever its
filetype (toml, none at all) and nothing else; setup() sets nothing in the statusline or
the keymaps unless asked; settings reach the server as camelCase."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import GOAL, fix_turns
from tests.e2e.nvim.session import Nvim, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim


def attached(nvim: Nvim, buf: int) -> bool:
    return bool(nvim.lua("return #vim.lsp.get_clients({ bufnr = ..., name = 'harness' }) > 0", buf))


def test_enable_alone_serves_every_buffer_of_the_workspace(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    (ws / "NOTES").write_text("no filetype here\n")
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not in the workspace\n")
    fake = fake_llm(fix_turns())
    env = {
        "HARNESS_PROVIDER": "openai",
        "HARNESS_BASE_URL": fake.url,
        "HARNESS_MODEL": "m",
        "HARNESS_STORE": str(tmp_path / "store.db"),
    }
    with session(tmp_path, ws, "enable-only", env=env) as nvim:
        default_statusline = nvim.lua(
            "return vim.api.nvim_get_option_info2('statusline', {}).default"
        )
        notes = nvim.edit(ws / "NOTES")
        assert nvim.lua("return vim.bo.filetype") == ""
        client = nvim.wait_attached(notes)
        toml = nvim.edit(ws / "pyproject.toml")
        assert nvim.wait_attached(toml) == client, "one client for the workspace"
        calc = nvim.edit(ws / "calc.py")
        assert nvim.wait_attached(calc) == client
        nvim.cmd("help")
        help_buf = nvim.lua("return vim.api.nvim_get_current_buf()")
        nvim.cmd("close")
        other = nvim.edit(outside)
        assert not attached(nvim, help_buf) and not attached(nvim, other)
        assert nvim.lua("return vim.lsp.get_client_by_id(...).root_dir", client) == str(ws)

        nvim.edit(ws / "pyproject.toml")
        nvim.type(f":HarnessRun {GOAL}<CR>")
        nvim.wait_message("run 1 finished")
        assert nvim.lines(calc)[1] == "    return a + b", "reloaded without setup() too"
        assert nvim.statusline().startswith("harness finished ")
        assert nvim.lua("return vim.go.statusline") == default_statusline, "nothing set"


def test_setup_sets_no_statusline_and_no_keymaps_unless_asked(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm([])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "s.db")}) as nvim:
        assert nvim.lua("return vim.go.statusline") == nvim.lua(
            "return vim.api.nvim_get_option_info2('statusline', {}).default"
        )
        assert nvim.lua("return vim.fn.maparg('<leader>hr', 'n')") == ""
        assert nvim.lua("return vim.fn.maparg('<leader>ha', 'n')") == ""


def test_statusline_true_adds_the_item(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    setup = {"statusline": True, "settings": settings(fake_llm([]), tmp_path / "s.db")}
    with session(tmp_path, ws, setup) as nvim:
        line = nvim.lua("return vim.go.statusline")
        assert "%{%v:lua.require'harness'.statusline()%}" in line
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.wait_statusline("harness · 0 notes")
        drawn = nvim.lua("return vim.api.nvim_eval_statusline(vim.go.statusline, {}).str")
        assert "calc.py" in drawn and "harness · 0 notes" in drawn


def test_keymaps_true_maps_the_suggestions_and_a_table_picks(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    base = {"settings": settings(fake_llm([]), tmp_path / "s.db")}
    with session(tmp_path, ws, {**base, "keymaps": True}) as nvim:
        for lhs in ("<leader>hr", "<leader>hc", "<leader>hm", "<leader>ht", "<leader>ha"):
            assert nvim.lua("return vim.fn.maparg(..., 'n')", lhs) != "", lhs
    with session(tmp_path, ws, {**base, "keymaps": {"memory": "<F5>", "trace": False}}) as nvim:
        assert nvim.lua("return vim.fn.maparg('<F5>', 'n')") != ""
        assert nvim.lua("return vim.fn.maparg('<leader>ht', 'n')") == ""
        assert nvim.lua("return vim.fn.maparg('<leader>hm', 'n')") == ""


def test_settings_reach_the_server(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    wanted = {
        **settings(fake_llm([]), tmp_path / "s.db"),
        "tokenBudget": 123456,
        "maxSteps": 7,
        "contextBudget": {"maxTokens": 9000, "share": 0.25},
    }
    with session(tmp_path, ws, {"settings": wanted}) as nvim:
        client = nvim.wait_attached(nvim.edit(ws / "calc.py"))
        status = nvim.lua(
            "local r = vim.lsp.get_client_by_id(...):request_sync('workspace/executeCommand',"
            " { command = 'harness.status', arguments = { vim.empty_dict() } }, 5000)"
            " return r.result",
            client,
        )
        got = status["settings"]
        assert got["tokenBudget"] == 123456 and got["maxSteps"] == 7
        assert got["contextBudget"]["maxTokens"] == 9000 and got["contextBudget"]["share"] == 0.25
        assert got["storePath"] == str(tmp_path / "s.db")
        assert got["provider"]["baseUrl"] == wanted["provider"]["baseUrl"]
