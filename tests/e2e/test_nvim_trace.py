""":HarnessTrace in real Neovim: the runs, then a run's steps (request tokens against the
ceiling, cached share, carried / stubbed / re-read, refused / failed, the calls), then one
step in full (the prompt as sent, the unelided results)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import GOAL, SUMMARY, call, fix_turns, short
from tests.e2e.nvim.session import Nvim, cli, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim


def current(nvim: Nvim) -> tuple[str, list[str]]:
    name = str(nvim.lua("return vim.api.nvim_buf_get_name(0)"))
    return name, nvim.lines()


def wait_view(nvim: Nvim, name: str) -> list[str]:
    nvim.wait("vim.api.nvim_buf_get_name(0) == ...", name, what=f"the view {name}")
    return nvim.lines()


def test_the_trace_views(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    (ws / ".env").write_text("SECRET=1\n")
    turns = [
        {"tool_calls": [call("read_file", path=".env")]},  # refused by the secrets layer
        *fix_turns(),
    ]
    fake = fake_llm(turns, cache_tokens=(300, 0))
    store = tmp_path / "store.db"
    with session(tmp_path, ws, {"settings": settings(fake, store)}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.type(f":HarnessRun {GOAL}<CR>")
        nvim.wait_message("run 1 finished")
        shown = cli("trace", "show", "1", "--store", str(store))

        nvim.type(":HarnessTrace<CR>")
        runs = wait_view(nvim, "harness://trace")
        assert runs[0].split() == ["run", "outcome", "steps", "tokens", "started", "goal"]
        assert runs[1].split()[:4] == ["1", "finished", "4", short(shown["run"]["spentTokens"])]
        assert runs[1].endswith(GOAL)

        nvim.type("<CR>")  # the cursor starts on the newest run
        run = wait_view(nvim, "harness://trace/1")
        assert run[0] == f"run 1 · finished · 4 steps · {short(shown['run']['spentTokens'])} tokens"
        assert run[1] == f"goal: {GOAL}"
        assert f"summary: {SUMMARY}" in run
        assert "files changed: calc.py" in run
        header = next(i for i, line in enumerate(run) if line.startswith("step "))
        rows = run[header + 1 :]
        assert len(rows) == 4
        for row, step in zip(rows, shown["steps"], strict=True):
            cells = row.split()
            assert cells[0] == str(step["step"])
            assert cells[1] == f"{short(step['estTokens'])}/{short(step['contextCeiling'])}"
            share = round(step["cachedPromptTokens"] / step["reportedPromptTokens"] * 100)
            assert f" {share}% " in row, row
        assert rows[0].split()[-1] == "read_file"
        assert rows[2].split()[-2:] == ["edit_file,", "remember"]
        assert f"“{SUMMARY[:30]}" in rows[3], "a step with no calls shows what the model said"
        refused = rows[0].split()[-3]  # the .env read was refused by the secrets layer
        assert refused == "1", rows[0]

        nvim.type(f"{header + 2}G<CR>")  # the first step, in full
        step = wait_view(nvim, "harness://trace/1/1")
        assert step[0] == "# run 1 · step 1"
        assert "## prompt (as sent)" in step and "### system" in step
        assert "## result (unelided)" in step
        assert any(".env" in line for line in step[step.index("## result (unelided)") :])

        nvim.type("<BS>")
        wait_view(nvim, "harness://trace/1")
        nvim.type("q")
        nvim.wait("vim.api.nvim_buf_get_name(0):find('harness://', 1, true) == nil")

        nvim.type(":HarnessTrace 1<CR>")  # straight to a run
        assert wait_view(nvim, "harness://trace/1")[1] == f"goal: {GOAL}"
        nvim.type(":HarnessTrace 7<CR>")
        assert "no run 7" in nvim.wait_message("no run 7")
