"""The live view of `harness run` on a terminal (issue 22): the model's words as they
arrive from a streaming server, a line per call with ✓/✗ and why (refused, denied), a line
when a file the model read changed on disk and was re-read, and at the end what changed,
file by file — the real CLI on a real pseudo-terminal against a Chat Completions server on
127.0.0.1 that streams the words in small pieces."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.conftest import MakeFakeLLM

from .cli import call, calls, harness_pty, run_args

USER_EDIT = "def total(x):\n    return x  # the user's\n"
THINK_S = 2.0  # the model "thinks" after the user's save, so the watcher sees it first


def test_the_live_view_streams_words_rows_a_refresh_and_the_changes(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = tmp_path / "shop"
    (ws / "src").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / ".env").write_text("API_TOKEN=not-for-the-model\n")
    (ws / "src" / "pricing.py").write_text("def total(x):\n    return x\n")

    def the_user_saves(body: dict[str, Any]) -> dict[str, Any]:
        (ws / "src" / "pricing.py").write_text(USER_EDIT)
        time.sleep(THINK_S)
        return calls(call("list_dir", path="src"), said="Let me look around.")

    fake = fake_llm(
        [
            calls(
                call("read_file", path="src/pricing.py"),
                call("read_file", path=".env"),
                said="Reading the pricing code\nand its settings.",
            ),
            the_user_saves,
            calls(
                call("edit_file", path="src/pricing.py", old="return x  #", new="return 2 * x  #"),
                call("exec", argv=["pytest", "-q"]),
            ),
            {"content": "Doubled total()."},
        ],
        chunk_chars=4,
    )
    home = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "d")}
    args = [a for a in run_args("Double it", fake.url, ws, tmp_path / "s.db") if a != "--json"]
    screen = harness_pty(*args, answers=[("(default: deny)?", "d\n")], timeout=90, **home)
    assert screen.code == 0, screen.text
    lines = screen.lines
    text = screen.text

    # The words, on their own line after the step; a line break continues indented.
    at = lines.index("step 1/100 · Reading the pricing code")
    assert lines[at + 1] == "  and its settings."
    assert "step 2/100 · Let me look around." in lines
    # A row per call: ✓, or ✗ and why.
    assert "step 1/100 · read src/pricing.py ✓" in lines
    assert "step 1/100 · read .env ✗ refused (builtin: .env)" in lines
    assert "step 3/100 · edit src/pricing.py ✓" in lines
    assert "step 3/100 · exec pytest -q ✗ denied by you" in lines
    # The user's save, re-read for the model before its next request.
    refreshed = [line for line in lines if "↻" in line]
    assert refreshed == ["step 3/100 · ↻ re-read src/pricing.py (a change on disk since step 1)"]
    # The end: the last words, the files changed, each with its lines added and removed.
    assert "files changed: src/pricing.py" in lines
    assert "  modified src/pricing.py  +1 −1" in lines
    assert lines[-2].startswith("run 1 finished · 4 steps"), text  # wraps at 80 columns
    assert (ws / "src" / "pricing.py").read_text() == USER_EDIT.replace("x  #", "2 * x  #")
