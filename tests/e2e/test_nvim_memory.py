""":HarnessMemory in real Neovim: the float lists the note a run remembered (key, value,
kind, pinned, run/step); `d` deletes, `p` pins, `a` adds — each checked through the CLI on
the same store; :HarnessMemoryClear asks first. Lua's `{}` is a JSON array, so commands with
no arguments must still send an object (the issue's `-32602 … not an array`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import GOAL, NOTE_KEY, NOTE_VALUE, fix_turns
from tests.e2e.nvim.session import Nvim, cli, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim


def notes(nvim: Nvim) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = cli(
        "memory", "list", "--store", str(nvim.store), "-w", str(nvim.ws)
    )
    return found


def float_lines(nvim: Nvim) -> list[str]:
    return list(
        nvim.lua(
            "local win, buf = require('harness.memory').window()"
            " return win and vim.api.nvim_buf_get_lines(buf, 0, -1, false) or {}"
        )
    )


def wait_float(nvim: Nvim, text: str, present: bool = True) -> list[str]:
    nvim.wait(
        "(function(t, want) local win, buf = require('harness.memory').window()"
        " if not win then return false end"
        " local has = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\\n')"
        ":find(t, 1, true) ~= nil return has == want end)(...)",
        text,
        present,
        what=f"the memory float {'to show' if present else 'to drop'} {text!r}",
    )
    return float_lines(nvim)


def row_of(nvim: Nvim, key: str) -> str:
    return next(line for line in float_lines(nvim) if line.startswith(key + " "))


def test_the_memory_float_lists_deletes_pins_and_adds(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm(fix_turns())
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "pyproject.toml"))
        nvim.type(f":HarnessRun {GOAL}<CR>")
        nvim.wait_message("run 1 finished")

        nvim.type(":HarnessMemory<CR>")
        wait_float(nvim, NOTE_KEY)
        row = row_of(nvim, NOTE_KEY)
        assert NOTE_VALUE in row and " fact " in row and "run 1/2" in row, row
        assert "pinned" not in row
        assert nvim.lua("return vim.api.nvim_get_current_win()") == nvim.lua(
            "return (require('harness.memory').window())"
        ), "the float has the focus: its keys are for it"

        # a: an operator note, through two prompts
        nvim.type("a")
        nvim.type("deploy<CR>")
        nvim.type("make release<CR>")
        wait_float(nvim, "deploy")
        assert "decision" in row_of(nvim, "deploy") and "you" in row_of(nvim, "deploy")

        # p on the deploy row pins it; d on the run's note deletes it
        nvim.type("/^deploy<CR>p")
        nvim.wait_message("pinned note `deploy`")
        wait_float(nvim, "pinned")
        nvim.type(f"/^{NOTE_KEY}<CR>d")
        nvim.wait_message(f"deleted note `{NOTE_KEY}`")
        wait_float(nvim, NOTE_KEY, present=False)
        (left,) = notes(nvim)  # through the CLI, on the same store
        assert (left["key"], left["value"], left["pinned"]) == ("deploy", "make release", True)

        nvim.type("q")
        nvim.wait("require('harness.memory').window() == nil")

        # :HarnessMemoryClear asks (1: keep them, 2: delete them), and also deletes pinned notes
        nvim.type(":HarnessMemoryClear<CR>")
        nvim.wait_prompt()  # after it counted the notes
        nvim.type("1<CR>")
        nvim.wait_message("nothing deleted")
        nvim.type(":HarnessMemoryClear<CR>")
        nvim.wait_prompt()
        nvim.type("2<CR>")
        nvim.wait_message("deleted 1 note")
        assert notes(nvim) == []


def test_commands_without_arguments_send_an_object(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm([])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        client = nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.lua(
            "_G.answer = nil"
            " local rpc = require('harness.rpc')"
            " rpc.request(vim.lsp.get_client_by_id(...), 'harness.memory.list', {},"
            " function(r) _G.answer = { ok = true, n = #r } end,"
            " function(e) _G.answer = { ok = false, message = e.message } end)",
            client,
        )
        assert nvim.wait("_G.answer") == {"ok": True, "n": 0}
        assert not [m for m in nvim.messages() if "-32602" in m or "array" in m]
