"""What the plugin tells the user, in real headless Neovim against the real server (issue 24,
fixes 1–5): a long server warning is one line pointing at the conversation buffer, which
holds it whole (no doubled prefix); the end of a run is whole in the conversation buffer
(files changed, refused calls); the statusline item never disappears while the agent edits
the open buffer; :HarnessChanges diffs a run's file against its before text and `X`
reverts it; :HarnessRun offers the last goal; :HarnessMemoryClear says how many notes
(and pinned ones) and can keep the pinned ones; messages name setup()'s settings and say
outcomes in words; :checkhealth reports a bad base URL as an error and a silent one as a
warning; :help harness works with no :helptags run by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import GOAL, NOTE_KEY, ORIGINAL, call, fix_turns
from tests.e2e.nvim.session import (
    PLUGIN,
    Nvim,
    cli,
    make_workspace,
    needs_nvim,
    run_lua,
    session,
    settings,
)
from tests.support.fake_llm import Fault

pytestmark = needs_nvim

SAMPLER = """
_G.samples = {}
_G.sampler = vim.uv.new_timer()
_G.sampler:start(0, 5, vim.schedule_wrap(function()
  table.insert(_G.samples, require('harness').statusline())
end))
"""


def conversation_lines(nvim: Nvim) -> list[str]:
    return list(nvim.lua("return require('harness.convbuf').lines()"))


def command(nvim: Nvim, name: str, args: dict[str, object]) -> object:
    return nvim.lua(
        "local c = vim.lsp.get_clients({ name = 'harness' })[1]"
        " local r = c:request_sync('workspace/executeCommand',"
        " { command = ..., arguments = { select(2, ...) } }, 5000)"
        " return r and r.result",
        name,
        args,
    )


def test_notices_end_of_run_statusline_last_goal_and_memory_clear(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    store = tmp_path / "store.db"
    edit_again = call("edit_file", path="calc.py", old="return a - b", new="return b - a")
    fake = fake_llm([*fix_turns(), {"tool_calls": [edit_again]}, {"content": "left it"}])
    with session(tmp_path, ws, {"settings": settings(fake, store)}) as nvim:
        calc = nvim.edit(ws / "calc.py")  # the agent edits the buffer you look at
        nvim.wait_attached(calc)
        nvim.wait_statusline("harness · 0 notes")
        nvim.lua(SAMPLER)
        nvim.type(f":HarnessRun {GOAL}<CR>")
        nvim.wait_message("run 1 finished")
        nvim.lua("_G.sampler:stop()")
        samples = nvim.lua("return _G.samples")
        assert len(samples) > 10 and "" not in samples, "the item never disappears"

        # the end of the run, whole, in the conversation buffer
        whole = [line for line in conversation_lines(nvim) if line.startswith("■ run 1 ")]
        assert whole and "changed calc.py" in whole[0] and "3 steps" in whole[0], whole

        # :HarnessChanges 1: the file in the quickfix list; <CR> diffs it, X puts it back
        nvim.cmd("HarnessChanges 1")
        nvim.wait("vim.fn.getqflist({ title = 0 }).title == 'harness changes'")
        items = nvim.lua("return vim.fn.getqflist()")
        assert len(items) == 2 and "modified" in items[0]["text"], items  # the file, its hunk
        nvim.wait("vim.bo.filetype == 'qf'", what="the quickfix window")
        nvim.type("<CR>")
        nvim.wait("#vim.api.nvim_tabpage_list_wins(0) == 2 and vim.wo.diff", what="the diff")
        wins = nvim.lua(
            "return vim.tbl_map(function(w) local b = vim.api.nvim_win_get_buf(w)"
            " return { diff = vim.wo[w].diff, name = vim.api.nvim_buf_get_name(b),"
            " lines = vim.api.nvim_buf_get_lines(b, 0, -1, false) } end,"
            " vim.api.nvim_tabpage_list_wins(0))"
        )
        assert all(w["diff"] for w in wins), wins
        before = next(w for w in wins if "harness://before/" in w["name"])
        assert before["lines"] == ORIGINAL.splitlines()
        nvim.cmd("tabclose")
        nvim.cmd("copen")
        nvim.type("X")
        nvim.wait_message("calc.py: restored")
        assert (ws / "calc.py").read_text() == ORIGINAL
        nvim.cmd("cclose")
        nvim.wait("vim.api.nvim_buf_get_lines(..., 1, 2, false)[1] == '    return a - b'", calc)

        # memory clear: counts first, and the pinned note can stay
        command(nvim, "harness.memory.write", {"key": "keep-me", "value": "v", "pinned": True})
        nvim.type(":HarnessMemoryClear<CR>")
        nvim.wait_prompt()
        nvim.type("3<CR>")
        nvim.wait_message("deleted 1 note; kept 1 pinned")
        listed = cli("memory", "list", "-w", str(ws), "--store", str(store))
        assert [n["key"] for n in listed] == ["keep-me"] and NOTE_KEY != "keep-me"

        # a long server warning comes in run 2: the buffer has unsaved changes
        nvim.wait("vim.bo[...].modified == false", calc)
        nvim.type("Go# mine<Esc>")
        nvim.wait("vim.bo[...].modified", calc)

        # :HarnessRun with no goal offers the last one
        nvim.type(":HarnessRun<CR>")
        nvim.wait_prompt()
        assert nvim.lua("return vim.fn.getcmdline()") == GOAL
        nvim.type("<C-u>swap the operands<CR>")
        nvim.wait_message("run 2 started")

        # the warning: one line that leads with the fact (within its first 60 characters)
        warning = nvim.wait_message("calc.py has unsaved changes")
        assert warning.find("not written: calc.py has unsaved changes") in range(0, 60), warning
        assert "harness: harness" not in warning and "LSP[" not in warning
        room = nvim.lua("return vim.v.echospace")
        assert len(warning) <= room, (warning, room)
        nvim.wait_message("run 2 finished")
        lines = conversation_lines(nvim)
        assert not any("\\n" in line for line in lines), lines
        end = next(line for line in lines if line.startswith("■ run 2 "))
        assert "1 refused" in end, end


def test_setting_names_outcome_words_and_checkhealth(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm([{"content": "never"}])
    bad = {**settings(fake, tmp_path / "s.db"), "provider": {"baseUrl": "localhost:18080/v1"}}
    with session(tmp_path, ws, {"settings": bad}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.type(":HarnessRun fix it<CR>")
        nvim.wait(
            "vim.iter(require('harness.convbuf').lines()):any(function(l)"
            " return l:find('fix it in setup() (settings.provider.baseUrl)', 1, true) end)",
            what="the refusal, whole, naming setup()'s setting",
        )
        assert not [m for m in nvim.messages() if "harness.provider" in m]
        nvim.cmd("checkhealth harness")
        report = nvim.lines()
        assert any(
            "ERROR" in line
            and "settings.provider.baseUrl in setup()" in line
            and "localhost:18080/v1" in line
            and "not an http(s) URL" in line
            for line in report
        ), report

    fake.inject(Fault.unauthorized())
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "s.db")}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.type(":HarnessRun fix it<CR>")
        end = nvim.wait_message("run 1 failed: the model provider returned an error")
        assert not [m for m in nvim.messages() if "provider_error" in m], nvim.messages()
        assert "provider_error" not in end
        nvim.cmd("checkhealth harness")
        assert any("OK" in line and "the base URL answers" in line for line in nvim.lines())
        fake.stop()  # the provider goes down
        nvim.cmd("bwipeout")
        nvim.cmd("checkhealth harness")
        report = nvim.lines()
        assert any("WARNING" in line and "does not answer" in line for line in report), report
        assert not any("the base URL answers" in line for line in report)


def test_help_works_right_after_install(tmp_path: Path) -> None:
    """A copy of the plugin with no doc/tags (a fresh install) put on the runtimepath: the
    plugin file generates the tags, and `:help harness` opens."""
    plugin = tmp_path / "harness"
    shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("tags"))
    proc = run_lua(
        tmp_path,
        f"vim.opt.rtp:prepend({str(plugin)!r})\n"
        "vim.cmd('runtime plugin/harness.lua')\n"
        "vim.cmd('help harness')\n"
        "io.stdout:write(vim.json.encode({ file = vim.fn.expand('%:t') }))\n",
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout) == {"file": "harness.txt"}
