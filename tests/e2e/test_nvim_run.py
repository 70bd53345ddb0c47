"""The plugin in real headless Neovim against the real server and a model on 127.0.0.1:
:HarnessRun from a ``pyproject.toml`` buffer (filetype ``toml``) runs a task that edits an
open file; the buffer shows the new text with no :checktime; the statusline shows what the
``harness/budget`` notifications carried; progress reaches ``LspProgress`` and
``vim.lsp.status()``; the end is announced with the outcome, the summary and the files."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import FIXED, GOAL, SUMMARY, fix_turns, short
from tests.e2e.nvim.session import make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim


def test_a_run_from_a_toml_buffer_edits_an_open_file(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm(fix_turns())
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        calc = nvim.edit(ws / "calc.py")
        toml = nvim.edit(ws / "pyproject.toml")
        assert nvim.lua("return vim.bo.filetype") == "toml"
        nvim.wait_attached(toml)
        nvim.wait_statusline("harness · 0 notes")  # harness.status, asked on attach

        nvim.type(f":HarnessRun {GOAL}<CR>")
        end = nvim.wait_message("run 1 finished")

        # the open buffer shows the agent's text, with no :checktime
        assert nvim.lines(calc) == FIXED.splitlines()
        assert nvim.lua("return vim.bo[...].modified", calc) is False
        assert (ws / "calc.py").read_text() == FIXED

        # the statusline showed each budget the server sent, and shows the last one now
        seen = nvim.lua("return _G.seen.status")
        budgets = [s for s in seen if s["kind"] == "budget"]
        assert [b["params"]["step"] for b in budgets] == [1, 2, 3]
        for b in budgets:
            p = b["params"]
            assert b["line"].startswith(  # the step first: a narrow statusline cuts the tail
                f"harness step {p['step']}/{p['maxSteps']} · "
                f"{short(p['spentTokens'])}/{short(p['tokenBudget'])} · "
                f"{short(p['requestTokens'])}/{short(p['contextCeiling'])}"
            ), b
        last = budgets[-1]["params"]
        assert last["spentTokens"] > 0 and last["tokenBudget"] == 2000000
        assert nvim.statusline() == (
            f"harness finished step 3/100 · {short(last['spentTokens'])}/2M · "
            f"{short(last['requestTokens'])}/{short(last['contextCeiling'])}"
        )  # no cost ratio: at 80 columns it pushed the file name out of the statusline

        # progress went through LspProgress, and vim.lsp.status() showed it meanwhile
        progress = nvim.lua("return _G.seen.progress")
        kinds = [p["kind"] for p in progress]
        assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
        assert any("step 2/100" in (p["status"] or "") for p in progress), progress

        # the end: outcome, files changed, steps, tokens — then the answer's head
        assert "run 1 finished · changed calc.py · 3 steps · " in end, end
        assert end.index("tokens") < end.index(SUMMARY[:25]), end
        assert len(fake.requests) == 3

        # on a narrow screen the announcement stays one line (a longer one would make the
        # message area wait for ENTER and swallow the next key) and says where the rest is
        narrow, room = nvim.lua(
            "vim.o.columns = 60"
            " return { require('harness.events').announcement(...), vim.v.echospace }",
            {
                "runId": 1,
                "outcome": "finished",
                "steps": 3,
                "spentTokens": 6900,
                "summary": SUMMARY,
                "filesChanged": ["calc.py"],
            },
        )
        assert len("harness: " + narrow) <= room and narrow.endswith(" (:Harness)"), narrow
        assert narrow.startswith("run 1 finished · changed "), "the facts come first"


def test_a_run_started_right_after_opening_waits_for_the_server(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """:HarnessRun with no goal asks for one; typed before initialize was answered, it
    waits for the server instead of failing."""
    ws = make_workspace(tmp_path)
    fake = fake_llm([{"content": "nothing to do"}])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        nvim.type(":edit pyproject.toml<CR>:HarnessRun<CR>")
        nvim.wait_prompt()
        nvim.type("look around<CR>")
        assert "look around" in nvim.wait_message("run 1 started")
        nvim.wait_message("run 1 finished")
        assert not [m for m in nvim.messages() if "no harness-lsp" in m]
        assert fake.requests[0]["messages"][1]["content"].count("look around") >= 1
