"""Approvals (``window/showMessageRequest``) in real Neovim never take keys typed for
something else. Seen: typing ``x = 1⏎`` in insert mode while the prompt appeared answered it
(as Deny) and lost the text; ``1⏎`` would have allowed a command. Here an approval arrives
while the user types; every key lands in the buffer, the run keeps waiting, and only
:HarnessApprove followed by a letter answers it."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import call
from tests.e2e.nvim.session import Nvim, cli, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim

WRITE_RAN = [sys.executable, "-c", "open('ran.txt', 'w').write('yes')"]


class Asked(NamedTuple):
    nvim: Nvim
    ws: Path
    store: Path


def first_step_result(store: Path) -> str:
    """What the trace holds as the result of run 1's first step."""
    result: str = cli("trace", "step", "1", "1", "--store", str(store))["result"]
    return result


def pending(nvim: Nvim) -> int:
    return int(nvim.lua("return #require('harness.approval').pending()"))


def server_waits(nvim: Nvim) -> bool:
    status = nvim.lua(
        "local c = vim.lsp.get_clients({ name = 'harness' })[1]"
        " local r = c:request_sync('workspace/executeCommand',"
        " { command = 'harness.status', arguments = { vim.empty_dict() } }, 5000)"
        " return r and r.result"
    )
    return bool(status["runs"]) and status["runs"][0]["awaitingApproval"] is True


def float_state(nvim: Nvim) -> dict[str, Any]:
    state: dict[str, Any] = nvim.lua(
        "local win, focused = require('harness.approval').window()"
        " return { shown = win ~= nil and vim.api.nvim_win_is_valid(win),"
        " focused = focused, current = vim.api.nvim_get_current_win() == win,"
        " focusable = win ~= nil and vim.api.nvim_win_get_config(win).focusable }"
    )
    return state


def exec_after(event: threading.Event) -> Any:
    """A turn that asks to exec only once the test says the user is typing."""

    def turn(body: dict[str, Any]) -> dict[str, Any]:
        event.wait(20)
        return {"tool_calls": [call("exec", argv=WRITE_RAN)]}

    return turn


def start_waiting_run(nvim: Nvim, ws: Path) -> int:
    calc = nvim.edit(ws / "calc.py")
    nvim.wait_attached(calc)
    nvim.type(":HarnessRun run the command<CR>")
    nvim.wait_message("run 1 started")
    return calc


@pytest.fixture
def asked(tmp_path: Path, fake_llm: MakeFakeLLM) -> Iterator[Asked]:
    """A session whose run 1 waits on the approval of an exec (asked at once)."""
    ws = make_workspace(tmp_path)
    store = tmp_path / "store.db"
    fake = fake_llm([{"tool_calls": [call("exec", argv=WRITE_RAN)]}, {"content": "stopping"}])
    with session(tmp_path, ws, {"settings": settings(fake, store)}) as nvim:
        start_waiting_run(nvim, ws)
        nvim.wait("#require('harness.approval').pending() == 1", what="the approval")
        yield Asked(nvim, ws, store)


def test_keys_typed_in_insert_mode_never_answer_an_approval(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    typing = threading.Event()
    fake = fake_llm([exec_after(typing), {"content": "ran it"}])
    store = tmp_path / "store.db"
    with session(tmp_path, ws, {"settings": settings(fake, store)}) as nvim:
        calc = start_waiting_run(nvim, ws)
        nvim.type("Gox = 1")
        nvim.wait("vim.api.nvim_get_mode().mode == 'i'")
        typing.set()  # the approval arrives now, mid-typing
        nvim.wait("#require('harness.approval').pending() == 1", what="the approval")
        assert nvim.wait_message("Harness run 1 wants to exec")
        assert float_state(nvim) == {
            "shown": True,
            "focused": False,
            "current": False,
            "focusable": False,
        }
        assert "⚠ approve" in nvim.statusline()

        # what answered the old prompt: Enter, digits, Enter, the answer letters
        nvim.type("<CR>1<CR>2<CR>3<CR>y = 2<CR>a r d q")
        nvim.wait("vim.api.nvim_buf_get_lines(..., -2, -1, false)[1] == 'a r d q'", calc)
        assert nvim.lines(calc)[-6:] == ["x = 1", "1", "2", "3", "y = 2", "a r d q"]
        assert nvim.mode() == "i", "still typing"
        # normal mode too: letters and digits are the user's commands, not answers
        nvim.type("<Esc>1Gdd")
        nvim.wait("vim.api.nvim_buf_get_lines(..., 0, 1, false)[1] == '    return a - b'", calc)
        assert pending(nvim) == 1 and server_waits(nvim)
        assert not (ws / "ran.txt").exists()
        assert float_state(nvim)["current"] is False

        # the deliberate answer: :HarnessApprove, then `a`
        nvim.type(":HarnessApprove<CR>")
        nvim.wait("select(2, require('harness.approval').window())", what="the float to focus")
        assert float_state(nvim)["current"] is True
        assert nvim.mode() == "n"
        nvim.type("a")
        nvim.wait_message("run 1 finished")
        assert pending(nvim) == 0 and float_state(nvim)["shown"] is False
        assert (ws / "ran.txt").read_text() == "yes"
        assert "exit code: 0" in first_step_result(store)


def test_neovim_declares_approvals_and_is_asked_by_harness_approve(asked: Asked) -> None:
    """Neovim declares ``experimental.harness.approvals``, so the server asks it with
    ``harness/approve``: the request names the run, the step and the call it approves."""
    nvim = asked.nvim
    declared = nvim.lua(
        "local c = vim.lsp.get_clients({ name = 'harness' })[1]"
        " return vim.tbl_get(c.config.capabilities, 'experimental', 'harness', 'approvals')"
    )
    assert declared is True
    item = nvim.lua("return require('harness.approval').pending()[1]")
    assert (item["method"], item["run_id"], item["step"]) == ("harness/approve", 1, 1), item
    assert item["call_id"], "the call it approves"
    assert item["message"].startswith("Harness run 1 wants to exec "), item["message"]
    assert server_waits(nvim)


def test_leaving_the_float_keeps_the_approval_and_d_denies(asked: Asked) -> None:
    nvim, ws, store = asked
    nvim.type(":HarnessApprove<CR>")
    nvim.wait("select(2, require('harness.approval').window())")
    nvim.type("q")  # later
    nvim.wait("not select(2, require('harness.approval').window())")
    assert pending(nvim) == 1 and server_waits(nvim)
    assert float_state(nvim)["shown"] is True
    nvim.type(":HarnessApprove<CR>")
    nvim.wait("select(2, require('harness.approval').window())")
    nvim.type("d")
    nvim.wait_message("run 1 finished")
    assert not (ws / "ran.txt").exists()
    assert "refused: the user denied exec" in first_step_result(store)


def test_an_approval_is_dropped_when_its_run_is_cancelled(asked: Asked) -> None:
    nvim, ws, _ = asked
    nvim.type(":HarnessCancel<CR>")
    nvim.wait_message("run 1 was cancelled")
    nvim.wait("#require('harness.approval').pending() == 0", what="the approval to go")
    assert float_state(nvim)["shown"] is False
    assert "⚠" not in nvim.statusline()
    assert not (ws / "ran.txt").exists()


def test_a_long_command_can_be_read_whole_before_answering(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """``harness/approve`` carries the whole command: the focused float shows all of it
    (the server's dialog would cut it and offer "Show full command"), the answers in view."""
    ws = make_workspace(tmp_path)
    long_argv = [sys.executable, "-c", "print('" + "x" * 400 + "')"]
    fake = fake_llm([{"tool_calls": [call("exec", argv=long_argv)]}, {"content": "stopped"}])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.type(":HarnessRun run it<CR>")
        nvim.wait("#require('harness.approval').pending() == 1", what="the approval")
        nvim.type(":HarnessApprove<CR>")
        nvim.wait("select(2, require('harness.approval').window())")
        lines = nvim.lua(
            "local win = require('harness.approval').window()"
            " return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)"
        )
        assert "x" * 400 in "".join(lines), lines  # the whole command, not a cut
        assert "[d] Deny" in " ".join(lines[-2:]) and "Show full" not in " ".join(lines), lines
        nvim.type("d")
        nvim.wait_message("run 1 finished")
