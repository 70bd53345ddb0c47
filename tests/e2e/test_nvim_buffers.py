"""Buffers in real Neovim: a buffer with unsaved changes is never overwritten, and the user
sees why; an agent write that arrives for a buffer modified meanwhile is not reloaded (the
user is told); :HarnessRevert restores the file and reloads the buffer."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import FIXED, GOAL, ORIGINAL, SUMMARY, call
from tests.e2e.nvim.session import make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim

EDIT = {"tool_calls": [call("edit_file", path="calc.py", old="return a - b", new="return a + b")]}


def test_unsaved_changes_are_never_overwritten(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm([EDIT, {"content": SUMMARY}])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        calc = nvim.edit(ws / "calc.py")
        nvim.wait_attached(calc)
        nvim.type("Go# mine, not saved<Esc>")
        nvim.wait("vim.bo[...].modified", calc)
        nvim.edit(ws / "pyproject.toml")  # the buffer stays open, hidden, modified
        nvim.type(f":HarnessRun {GOAL}<CR>")
        nvim.wait_message("run 1 finished")

        warning = nvim.wait_message("unsaved changes")
        assert "calc.py" in warning
        assert nvim.lines(calc) == [*ORIGINAL.splitlines(), "# mine, not saved"]
        assert (ws / "calc.py").read_text() == ORIGINAL


def test_a_write_to_a_buffer_modified_meanwhile_is_not_reloaded(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """The server wrote (it had no unsaved change from us yet); the buffer is modified when
    harness/didWrite arrives: it keeps the user's state, and the user is told."""
    ws = make_workspace(tmp_path)
    fake = fake_llm([EDIT, {"content": SUMMARY}])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        calc = nvim.edit(ws / "calc.py")
        nvim.wait_attached(calc)
        nvim.cmd("set modified")  # modified, but no text change reached the server
        nvim.type(f":HarnessRun {GOAL}<CR>")
        message = nvim.wait_message("was not reloaded")
        assert "calc.py" in message and ":e!" in message
        assert (ws / "calc.py").read_text() == FIXED, "the agent wrote the file"
        assert nvim.lines(calc) == ORIGINAL.splitlines(), "the buffer kept what the user had"


def test_revert_restores_the_file_and_reloads_its_buffer(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm([EDIT, {"content": SUMMARY}])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        calc = nvim.edit(ws / "calc.py")
        nvim.wait_attached(calc)
        nvim.type(f":HarnessRun {GOAL}<CR>")
        nvim.wait_message("run 1 finished")
        assert nvim.lines(calc) == FIXED.splitlines()

        (ws / "calc.py").write_text("def add(a, b):\n    return b + a\n")  # changed since
        nvim.type(":HarnessRevert 1<CR>")
        assert "refused calc.py" in nvim.wait_message("run 1 revert")
        nvim.wait_prompt()  # 1: keep them, 2: overwrite them
        nvim.type("2<CR>")
        assert "restored calc.py" in nvim.wait_message("run 1 revert: restored")
        nvim.wait("vim.api.nvim_buf_get_lines(..., 1, 2, false)[1] == '    return a - b'", calc)
        assert (ws / "calc.py").read_text() == ORIGINAL
        assert nvim.lua("return vim.bo[...].modified", calc) is False

        # no run given: pick one of the finished runs
        nvim.type(":HarnessRevert<CR>")
        nvim.wait_prompt()
        nvim.type("1<CR>")
        assert "unchanged calc.py" in nvim.wait_message("unchanged")
