""":checkhealth harness in real Neovim, and finding the server as SPEC §10 says: your `cmd`
setting, else the workspace's .venv/bin/harness-lsp, else harness-lsp on $PATH — and a
clear message saying how to install it when there is none."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import call
from tests.e2e.nvim.session import VENV_BIN, Nvim, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim


def checkhealth(nvim: Nvim) -> list[str]:
    nvim.cmd("checkhealth harness")  # synchronous: the report is whole when it returns
    assert nvim.lua("return vim.bo.filetype") == "checkhealth"
    return nvim.lines()


def has(report: list[str], *texts: str) -> bool:
    return any(all(t in line for t in texts) for line in report)


def errors(report: list[str]) -> list[str]:
    return [line for line in report if "ERROR" in line]


def test_checkhealth_has_no_error(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    store = tmp_path / "store.db"
    turns = [{"tool_calls": [call("symbols", path="calc.py")]}, {"content": "one function"}]
    with session(tmp_path, ws, {"settings": settings(fake_llm(turns), store)}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        report = checkhealth(nvim)
        assert errors(report) == [], report
        assert has(report, "OK", "Neovim 0.1")
        assert has(report, "OK", "harness-lsp found through $PATH", str(VENV_BIN))
        assert has(report, "OK", "harness-lsp 0.", "answers (the running client)")
        assert has(report, "provider openai, model m, base URL http://127.0.0.1:")
        assert has(report, "OK", "no API key needed")
        assert has(report, "OK", "store: " + str(store))
        assert has(report, "bubblewrap")
        # the conversation's layout at 120 columns: a split that leaves the code 80
        assert has(report, "OK", "conversation: vertical (fits the screen), 39 columns")
        assert has(report, "the code window keeps 80 columns")
        assert has(report, "the harness started no language server yet"), report

        # after a semantic call (§14) the language server the harness started is listed
        nvim.cmd("HarnessRun outline calc.py")
        nvim.wait_message("run 1 finished", within_s=60)
        report = checkhealth(nvim)
        assert has(report, "OK", "started by the harness: python: jedi-language-server"), report
        nvim.cmd("set columns=80")
        report = checkhealth(nvim)
        assert has(report, "OK", "conversation: horizontal (fits the screen)"), report


def test_checkhealth_without_a_client_starts_the_server_itself(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """No file open, so no client: the check starts the server, which also reports the
    settings it could not take (a warning, not an error)."""
    ws = make_workspace(tmp_path)
    store = tmp_path / "store.db"
    setup = {"settings": {**settings(fake_llm([]), store), "maxSteps": 0}}
    with session(tmp_path, ws, setup) as nvim:
        report = checkhealth(nvim)
        assert errors(report) == [], report
        assert has(report, "OK", "harness-lsp 0.", "answers")
        assert not has(report, "running client")
        assert has(report, "WARNING", "maxSteps"), report
        assert has(report, "OK", "store: " + str(store))


def test_no_server_says_how_to_install_it(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    with session(tmp_path, ws, {}, server_on_path=False) as nvim:
        nvim.edit(ws / "calc.py")
        told = nvim.wait_message("harness-lsp was not found")
        assert "Install it" in told and "cmd" in told
        nvim.edit(ws / "pyproject.toml")
        nvim.type(":HarnessRun fix it<CR>")
        nvim.wait_message("no harness-lsp serves this buffer")
        assert len([m for m in nvim.messages() if "was not found" in m]) == 1, "told once"
        assert nvim.lua("return #vim.lsp.get_clients({ name = 'harness' })") == 0
        report = checkhealth(nvim)
        assert has(report, "ERROR", "harness-lsp was not found")
        assert has(report, "Install it")


def test_the_workspace_venv_comes_before_path_when_trusted(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "bin" / "harness-lsp").symlink_to(VENV_BIN / "harness-lsp")
    setup = {"settings": settings(fake_llm([]), tmp_path / "s.db")}
    with session(tmp_path, ws, setup) as nvim:  # not trusted: $PATH's, and the report says why
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        report = checkhealth(nvim)
        assert has(report, "WARNING", ".venv/bin/harness-lsp not trusted", "not run"), report
        assert has(report, "OK", "found through $PATH", str(VENV_BIN / "harness-lsp"))
    config = tmp_path / "xdg" / "config" / "harness" / "policy.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"trusted = [{str(ws)!r}]\n")
    with session(tmp_path, ws, setup, server_on_path=False) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        report = checkhealth(nvim)
        assert has(report, "OK", "found through the workspace's .venv", str(ws / ".venv"))


def test_the_cmd_setting_comes_first(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "bin" / "harness-lsp").symlink_to("/bin/false")
    setup = {
        "cmd": [sys.executable, "-m", "server"],
        "settings": settings(fake_llm([]), tmp_path / "s.db"),
    }
    with session(tmp_path, ws, setup) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        report = checkhealth(nvim)
        assert has(report, "OK", "found through your `cmd` setting", "-m server"), report
