"""Review by hunk in real headless Neovim against the real server (issue 37): signs on the
hunks the agent changed in the code buffer, `]h` to move between them, a hunk kept and one
undone with the mapped keys (the undo on disk, the buffer reloaded), `:HarnessChanges`
listing each hunk with its state, `<CR>` on a write's row opening its diff, and `R` on a
turn of the conversation restoring the files to before it, after naming them."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import call
from tests.e2e.nvim.session import Nvim, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim

LONG = "".join(f"line {i}\n" for i in range(1, 11))


def signs(nvim: Nvim, buf: int) -> list[int]:
    rows = nvim.lua(
        "local ns = vim.api.nvim_get_namespaces()['harness.hunks']"
        " return vim.tbl_map(function(m) return m[2] + 1 end,"
        " vim.api.nvim_buf_get_extmarks(..., ns, 0, -1, {}))",
        buf,
    )
    return sorted(set(rows))


def cursor_line(nvim: Nvim) -> int:
    return int(nvim.lua("return vim.api.nvim_win_get_cursor(0)[1]"))


def test_hunks_kept_undone_and_a_turn_restored(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    (ws / "long.py").write_text(LONG)
    fake = fake_llm(
        [
            {
                "tool_calls": [
                    call("edit_file", path="long.py", old="line 2\n", new="LINE TWO\n"),
                    call("edit_file", path="long.py", old="line 9\n", new="LINE NINE\n"),
                ]
            },
            {"content": "Changed two lines."},
            {"tool_calls": [call("edit_file", path="long.py", old="line 5\n", new="LINE FIVE\n")]},
            {"content": "And a third."},
        ]
    )
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        long = nvim.edit(ws / "long.py")
        nvim.wait_attached(long)
        nvim.cmd("HarnessRun shout lines 2 and 9")
        nvim.wait_message("run 1 finished")
        nvim.cmd("HarnessAsk and line 5")
        nvim.wait_message("run 2 finished")
        nvim.wait("vim.api.nvim_buf_get_lines(..., 4, 5, false)[1] == 'LINE FIVE'", long)

        # a sign on each hunk to review; ]h goes from one to the next
        nvim.wait(
            "#vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces()"
            "['harness.hunks'], 0, -1, {}) == 3",
            long,
            what="three hunk signs",
        )
        assert signs(nvim, long) == [2, 5, 9]
        nvim.lua("vim.api.nvim_win_set_cursor(0, { 1, 0 })")
        nvim.type("]h")
        nvim.wait("vim.api.nvim_win_get_cursor(0)[1] == 2", what="]h to line 2")

        # keep line 2's hunk; undo line 9's: the file has line 9 back, the buffer too
        nvim.type("\\hk")
        nvim.wait_message("hunk kept · 2 to review")
        nvim.wait(
            "#vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces()"
            "['harness.hunks'], 0, -1, {}) == 2",
            long,
            what="the kept hunk's sign gone",
        )
        nvim.type("]h")
        nvim.wait("vim.api.nvim_win_get_cursor(0)[1] == 5", what="]h to line 5")
        nvim.cmd("HarnessHunk next")
        nvim.wait("vim.api.nvim_win_get_cursor(0)[1] == 9", what=":HarnessHunk next to line 9")
        nvim.type("\\hu")
        nvim.wait_message("hunk undone · 1 to review")
        assert (ws / "long.py").read_text().splitlines()[8] == "line 9"
        assert (ws / "long.py").read_text().splitlines()[1] == "LINE TWO"
        nvim.wait("vim.api.nvim_buf_get_lines(..., 8, 9, false)[1] == 'line 9'", long)
        nvim.wait(
            "#vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces()"
            "['harness.hunks'], 0, -1, {}) == 1",
            long,
            what="one hunk left",
        )
        assert signs(nvim, long) == [5]

        # :HarnessChanges: the file, then each hunk with its state
        nvim.cmd("HarnessChanges")
        nvim.wait("vim.bo.filetype == 'qf'", what="the quickfix window")
        texts = [i["text"] for i in nvim.lua("return vim.fn.getqflist()")]
        assert "1 to review" in texts[0], texts
        assert sorted(t.split(":")[0].strip() for t in texts[1:]) == [
            "~ hunk kept",
            "~ hunk pending",
            "~ hunk undone",
        ], texts
        nvim.cmd("cclose")

        # <CR> on the write's row in the conversation: its diff
        nvim.cmd("Harness")
        row = nvim.lua(
            "for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do"
            " if l:find('✓ edit_file long.py', 1, true) then return i end end"
        )
        nvim.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", row)
        nvim.type("<CR>")
        nvim.wait("vim.wo.diff and #vim.api.nvim_tabpage_list_wins(0) == 2", what="the diff")
        nvim.cmd("tabclose")

        # R on turn 2: the files it changes named first, then restored to before it
        nvim.lua(
            "_G.asked = nil vim.ui.select = function(items, opts, on_choice)"
            " _G.asked = opts.prompt on_choice(items[2]) end"
        )
        nvim.cmd("Harness")
        nvim.cmd("Harness")
        row = nvim.lua(
            "for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do"
            " if l == '▶ you: and line 5' then return i end end"
        )
        nvim.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", row)
        nvim.type("R")
        nvim.wait("_G.asked ~= nil", what="the question")
        asked = nvim.lua("return _G.asked")
        assert asked == "Restore to before turn 2? It puts back long.py.", asked
        nvim.wait_message("back to before turn 2")
        lines = (ws / "long.py").read_text().splitlines()
        assert lines[4] == "line 5" and lines[1] == "LINE TWO", lines
