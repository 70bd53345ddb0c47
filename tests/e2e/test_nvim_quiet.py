"""A quiet conversation buffer (issue 37) in real headless Neovim against the real server:
the answer drawn once, as the model's words, and the end line one line; a tool row with
the head of its result folded under it (never the row again); the transcript read-only
(`dd` changes nothing); keys typed on the prompt line are text, never an answer; an
approval answered from anywhere with the buffer's approve keys or `:HarnessApprove deny`;
its float inside the conversation window, the code window left visible; `g?`; words sent
while a run works steer it; `@` and `/` completion; `:Harness plan`; `:Harness history`
through vim.ui.select with dates and outcomes."""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import call
from tests.e2e.nvim.session import Nvim, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim

ANSWER = "add() subtracts.\nIt should add."


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


FLOATS = (
    "vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end,"
    " vim.api.nvim_list_wins())"
)


def test_the_answer_once_rows_keys_and_approvals(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    release = threading.Event()
    exec_argv = [sys.executable, "-c", "print(1)"]
    fake = fake_llm(
        [
            {"tool_calls": [call("read_file", path="calc.py")]},
            {"content": ANSWER},
            # run 2: two approvals, one denied with the approve key, one with the command
            {"tool_calls": [call("exec", argv=exec_argv)]},
            {"tool_calls": [call("exec", argv=exec_argv)]},
            {"content": "Did not run them."},
            # run 3: held until the user has steered it
            held(release, {"tool_calls": [call("list_dir", path=".")]}),
            {"content": "Leaving b.py alone."},
            # run 4: a plan
            {"content": "1. change add()"},
        ]
    )
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        calc = nvim.edit(ws / "calc.py")
        nvim.wait_attached(calc)
        code_win = nvim.lua("return vim.api.nvim_get_current_win()")
        nvim.cmd("Harness")
        nvim.type("icheck add<Esc><CR>")
        nvim.wait_message("run 1 finished")
        wait_drawn(nvim, "■ run 1 finished")
        lines = drawn(nvim)

        # the answer once, as the model's words (its own lines), and the end line one line
        assert sum("add() subtracts." in line for line in lines) == 1, lines
        assert "  It should add." in lines, lines
        end = [line for line in lines if line.startswith("■ run 1 ")]
        assert len(end) == 1 and "subtracts" not in end[0] and "\\n" not in end[0], end
        assert re.fullmatch(r"■ run 1 finished · 2 steps · \S+ tokens", end[0]), end
        message = next(m for m in nvim.messages() if "run 1 finished" in m)
        assert "\\n" not in message and len(message) <= nvim.lua("return vim.v.echospace")

        # the tool row, then the head of its result folded under it — not the row again
        row = lines.index(next(line for line in lines if line.startswith("  ✓ read_file")))
        assert re.fullmatch(r"  ✓ read_file calc\.py · \d lines", lines[row]), lines[row]
        fold = [line for line in lines[row + 1 : row + 5] if line.startswith("    │ ")]
        assert fold and lines[row + 1] == fold[0] and lines[row] not in fold, lines
        assert any("return a - b" in line for line in fold), fold
        closed = nvim.lua(
            "local row, win = ..., require('harness.convbuf').window()"
            " return vim.api.nvim_win_call(win, function() return vim.fn.foldclosed(row) end)",
            row + 2,
        )
        assert closed == row + 2, "the result is folded"

        # the transcript is read-only: dd on it changes nothing
        nvim.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", row + 1)
        nvim.type("dd")
        nvim.wait("vim.fn.mode() == 'n'")
        assert drawn(nvim) == lines and not nvim.lua("return vim.bo.modifiable")

        # g? lists the keys
        nvim.type("g?")
        nvim.wait("vim.bo.filetype == '' and vim.api.nvim_win_get_config(0).relative ~= ''")
        keys = nvim.lines()
        assert keys[0] == "harness conversation keys" and any("<leader>a" in k for k in keys)
        nvim.type("q")
        nvim.wait("vim.bo.filetype == 'harness'")

        # run 2: an approval; keys typed on the prompt line are text, never an answer
        nvim.type("Girun it<Esc><CR>")
        nvim.wait("#require('harness.approval').pending() == 1", what="the approval")
        nvim.wait("vim.fn.mode() == 'n'")
        nvim.lua("vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(0), 0 })")
        nvim.type("a")
        nvim.wait("vim.fn.mode() == 'i'", what="`a` on the prompt line: Insert mode")
        nvim.type("a<Esc>")
        nvim.wait("vim.fn.mode() == 'n'")
        assert drawn(nvim)[-1] == "> a"
        assert nvim.lua("return #require('harness.approval').pending()") == 1, "not answered"

        # its float is inside the conversation window: the code window stays visible
        conv_win = nvim.lua("return require('harness.convbuf').window()")
        floats = nvim.lua(f"return vim.tbl_map(vim.api.nvim_win_get_config, {FLOATS})")
        assert len(floats) == 1 and floats[0]["relative"] == "win", floats
        assert floats[0]["win"] == conv_win
        code_right = nvim.lua(
            "local w = ... return vim.api.nvim_win_get_position(w)[2] + vim.api.nvim_win_get_width(w)",
            code_win,
        )
        float_col = nvim.lua(f"return vim.api.nvim_win_get_position({FLOATS}[1])[2]")
        assert float_col >= code_right, (float_col, code_right)

        # answered from the prompt line with the buffer's approve key (<leader>d: \d)
        nvim.type("\\d")
        nvim.wait("#require('harness.approval').pending() == 0", what="denied by \\d")
        nvim.wait("#require('harness.approval').pending() == 1", what="the second approval")
        nvim.cmd("HarnessApprove deny")
        nvim.wait_message("run 2 finished")
        wait_drawn(nvim, "■ run 2 finished · 2 denied")
        assert drawn(nvim)[-1] == "> a", "what was typed is kept"

        # run 3: words sent while it works steer it
        nvim.lua("vim.bo.modifiable = true vim.api.nvim_buf_set_lines(0, -2, -1, false, { '> ' })")
        nvim.type("Gistart over<Esc><CR>")
        nvim.wait_message("run 3 started")
        nvim.type("Gileave b.py alone<Esc><CR>")
        nvim.wait_message("run 3 hears it after this step")
        release.set()
        nvim.wait_message("run 3 finished")
        wait_drawn(nvim, "▶ you (while it works): leave b.py alone")
        steered = json.dumps(fake.requests[6])
        assert "# The user, while you work" in steered and "leave b.py alone" in steered
        assert nvim.lua("return require('harness.conversation').current().id") == 1

        # `@` and `/` completion on the prompt line (the buffer's omnifunc)
        nvim.cmd("set completeopt=menuone,noinsert")
        nvim.type("Gi@cal<C-x><C-o>")
        nvim.wait("vim.fn.pumvisible() == 1", what="the completion menu")
        items = "vim.tbl_map(function(i) return i.word end, vim.fn.complete_info({'items'}).items)"
        assert nvim.lua(f"return {items}") == ["@calc.py"]
        nvim.type("<C-y> <C-u>/pl<C-x><C-o>")
        nvim.wait("vim.fn.pumvisible() == 1", what="the prompts")
        assert nvim.lua(f"return {items}") == ["/plan"]
        nvim.type("<C-e><Esc>")

        # :Harness plan: a run that only reads, in the same conversation
        nvim.lua("vim.bo.modifiable = true vim.api.nvim_buf_set_lines(0, -2, -1, false, { '> ' })")
        nvim.cmd("Harness plan how to fix add")
        nvim.wait_message("plan 4 started")
        nvim.wait_message("run 4 finished")
        assert nvim.lua("return require('harness.conversation').current().runs[4].mode") == "plan"
        tools = {t["function"]["name"] for t in fake.requests[-1].get("tools", [])}
        assert "read_file" in tools and "write_file" not in tools and "exec" not in tools

        # :Harness history: vim.ui.select, each conversation with its date and outcome
        nvim.lua(
            "_G.picked = nil vim.ui.select = function(items, opts, on_choice)"
            " _G.picked = vim.tbl_map(opts.format_item, items) on_choice(items[1]) end"
        )
        nvim.cmd("Harness history")
        nvim.wait("_G.picked ~= nil")
        picked = nvim.lua("return _G.picked")
        assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d · finished · 4 turns · ", picked[0]), picked


def test_a_writes_approval_shows_its_diff_in_the_buffer(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    (ws / ".harness").mkdir()
    rule = '[[rules]]\nact = "write"\neffect = "ask"\nglob = "calc.py"\n'
    (ws / ".harness" / "policy.toml").write_text(rule)
    edit = call("edit_file", path="calc.py", old="return a - b", new="return a + b")
    fake = fake_llm([{"tool_calls": [edit]}, {"content": "Fixed."}])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.cmd("Harness")
        nvim.type("ifix add<Esc><CR>")
        nvim.wait("#require('harness.approval').pending() == 1", what="the write's approval")
        wait_drawn(nvim, "-    return a - b")
        wait_drawn(nvim, "+    return a + b")
        nvim.cmd("HarnessApprove allow")
        nvim.wait_message("run 1 finished")
        assert (ws / "calc.py").read_text().endswith("return a + b\n")
