"""The conversation buffer in real headless Neovim against the real server (SPEC §11, issue
24), one session walking a whole conversation: `:Harness` toggles a `filetype=harness`
split with a prompt line; `:'<,'>HarnessRun` attaches the selection (its bytes reach the
first request); the model's words and tool lines show while the run is still going; a
follow-up typed on the prompt line continues the same conversation; an approval shows in
the buffer and the float, `d` on its line denies it, and the denial is shown and counted;
`:HarnessChanges` lists the changed file, <CR> diffs it against the before text, `X`
reverts it; `:HarnessAsk` follows up; `:Harness history` draws the conversation again."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import ORIGINAL, call
from tests.e2e.nvim.session import Nvim, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim

WORDS = "I will read calc.py first."
ANSWER = "add() subtracts: it should add."
FIXED = "def add(a, b):\n    return a + b\n"


def drawn(nvim: Nvim) -> list[str]:
    return nvim.lines(int(nvim.lua("return require('harness.convbuf').buffer()")))


def wait_drawn(nvim: Nvim, text: str) -> None:
    nvim.wait(
        "(function(t) return vim.iter(vim.api.nvim_buf_get_lines("
        "require('harness.convbuf').buffer(), 0, -1, false))"
        ":any(function(l) return l:find(t, 1, true) ~= nil end) end)(...)",
        text,
        what=f"{text!r} in the conversation buffer",
    )


def held(release: threading.Event, turn: dict[str, Any]) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        release.wait(20)
        return turn

    return answer


def test_a_whole_conversation(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    release = threading.Event()
    exec_argv = [sys.executable, "-c", "print(1)"]
    fake = fake_llm(
        [
            {"content": WORDS, "tool_calls": [call("read_file", path="calc.py")]},
            held(release, {"content": ANSWER}),
            # the follow-up: a write, then an exec the user denies
            {"tool_calls": [call("edit_file", path="calc.py", old="a - b", new="a + b")]},
            {"tool_calls": [call("exec", argv=exec_argv)]},
            {"content": "Fixed it."},
            {"content": "You are welcome."},
        ]
    )
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        calc = nvim.edit(ws / "calc.py")
        nvim.wait_attached(calc)
        nvim.wait_statusline("harness · 0 notes")

        # :Harness toggles a split of filetype harness with the prompt line at the bottom
        nvim.cmd("Harness")
        assert nvim.lua("return vim.bo.filetype") == "harness"
        assert nvim.lines()[-1] == "> " and nvim.lua("return #vim.api.nvim_list_wins()") == 2
        nvim.cmd("Harness")
        assert nvim.lua("return #vim.api.nvim_list_wins()") == 1
        assert nvim.lua("return vim.api.nvim_get_current_buf()") == calc

        # a visual selection attached: its bytes reach the first request
        nvim.type("ggVj:HarnessRun what is wrong here?<CR>")
        nvim.wait_message("run 1 started")
        nvim.cmd("Harness")
        wait_drawn(nvim, "▶ you: what is wrong here?")
        wait_drawn(nvim, "attached calc.py:1-2")

        # words and tool lines while the run is still going
        wait_drawn(nvim, WORDS)
        wait_drawn(nvim, "✓ read_file calc.py")
        wait_drawn(nvim, "    │ ")  # its result, under it, folded
        folded = nvim.lua(
            "local win = require('harness.convbuf').window()"
            " local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)"
            " for row, l in ipairs(lines) do if l:find('^    │') then"
            " return vim.api.nvim_win_call(win, function() return vim.fn.foldclosed(row) end)"
            " end end"
        )
        assert folded not in (None, -1), "the result is folded"
        assert "run 1 finished" not in " ".join(nvim.messages())
        release.set()
        nvim.wait_message("run 1 finished")
        first = json.dumps(fake.requests[0])
        assert "return a - b" in first and "calc.py" in first, first
        wait_drawn(nvim, ANSWER)
        wait_drawn(nvim, "■ run 1 finished")

        # a follow-up on the prompt line (normal-mode <CR> sends)
        nvim.cmd("Harness")
        nvim.cmd("Harness")
        assert nvim.lua("return vim.bo.filetype") == "harness"
        nvim.type("inow fix it<Esc><CR>")
        nvim.wait_message("run 2 started")
        assert nvim.lua("return require('harness.conversation').current().id") == 1
        assert drawn(nvim)[-1] == "> ", "the prompt line is empty again"

        # the approval: in the float (not focused) and in the buffer; `d` on it denies
        nvim.wait("#require('harness.approval').pending() == 1", what="the approval")
        assert nvim.lua("return select(2, require('harness.approval').window())") is False
        wait_drawn(nvim, "a allow · A allow for the run · d deny")
        row = next(i for i, line in enumerate(drawn(nvim), 1) if line.startswith("⚠ "))
        nvim.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", row)
        nvim.type("d")
        floats = (
            "#vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' "
            "end, vim.api.nvim_list_wins())"
        )
        nvim.wait(f"{floats} == 0", what="the answered approval's float closed")
        nvim.wait_message("run 2 finished")
        wait_drawn(nvim, "■ run 2 finished")
        end = next(line for line in drawn(nvim) if line.startswith("■ run 2 "))
        assert "1 denied" in end and "changed calc.py" in end, end
        assert any(line.startswith("  ✗ exec") and "denied" in line for line in drawn(nvim))
        second = json.dumps(fake.requests[2])
        assert ANSWER in second, "the follow-up's context is the conversation so far"
        assert (ws / "calc.py").read_text() == FIXED

        # :HarnessChanges: the changed file; <CR> a diff against the before text; X reverts
        nvim.cmd("HarnessChanges")
        nvim.wait("vim.fn.getqflist({ title = 0 }).title == 'harness changes'")
        items = nvim.lua("return vim.fn.getqflist()")
        assert len(items) == 2 and "modified" in items[0]["text"], items  # the file, its hunk
        assert "1 to review" in items[0]["text"] and "~ hunk pending:" in items[1]["text"]
        nvim.wait("vim.bo.filetype == 'qf'", what="the quickfix window")
        nvim.type("<CR>")
        nvim.wait("#vim.api.nvim_tabpage_list_wins(0) == 2 and vim.wo.diff", what="the diff")
        wins = nvim.lua(
            "return vim.tbl_map(function(w) local b = vim.api.nvim_win_get_buf(w)"
            " return { diff = vim.wo[w].diff, name = vim.api.nvim_buf_get_name(b),"
            " lines = vim.api.nvim_buf_get_lines(b, 0, -1, false) } end,"
            " vim.api.nvim_tabpage_list_wins(0))"
        )
        assert all(w["diff"] for w in wins)
        before = next(w for w in wins if "harness://before/" in w["name"])
        assert before["lines"] == ORIGINAL.splitlines()
        nvim.cmd("tabclose")
        nvim.cmd("copen")
        nvim.type("X")
        nvim.wait_message("calc.py: restored")
        assert (ws / "calc.py").read_text() == ORIGINAL

        # :HarnessAsk: one more turn of the same conversation
        nvim.cmd("HarnessAsk thanks")
        nvim.wait_message("run 3 finished")
        wait_drawn(nvim, "▶ you: thanks")
        assert nvim.lua("return require('harness.conversation').current().id") == 1

        # :Harness history: the conversation drawn again from the store
        nvim.cmd("Harness new")
        assert not [line for line in drawn(nvim) if line.startswith("▶ you")]
        nvim.type(":Harness history<CR>")
        nvim.wait_prompt()
        nvim.type("1<CR>")
        wait_drawn(nvim, "▶ you: what is wrong here?")
        for text in (WORDS, "■ run 2 finished", "▶ you: thanks", "■ run 3 finished"):
            wait_drawn(nvim, text)
