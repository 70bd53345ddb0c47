"""The real TUI: Neovim in a pseudo-terminal of 120×40 (pexpect), its screen rendered by a
terminal emulator (pyte), keys typed into the terminal. What a user sees: the statusline
item (setup's ``statusline = true``), the end-of-run message with the summary, the memory
float, an approval float that leaves the cursor where the user types, and a whole
conversation in the conversation buffer with no hit-enter prompt at any point."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.scenario import GOAL, NOTE_KEY, NOTE_VALUE, SUMMARY, call, fix_turns
from tests.e2e.nvim.session import INIT, NVIM, clean_env, make_workspace, needs_nvim, settings
from tests.support.fake_llm import Fault

pytestmark = needs_nvim

COLUMNS, LINES = 120, 40
WAIT_S = 30.0
# The conversation's screen, as text, regenerated on every run (docs/img, like the panel's).
SCREEN_CAPTURE = Path(__file__).resolve().parents[2] / "docs" / "img" / "nvim-conversation.txt"
# Device control strings (Neovim's XTGETTCAP queries): pyte does not know them and would
# print their payload.
DCS = re.compile(rb"\x1bP.*?\x1b\\", re.S)


class Terminal:
    def __init__(self, child: pexpect.spawn, columns: int = COLUMNS, lines: int = LINES) -> None:
        self.child = child
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        # Answer the terminal queries Neovim sends (device attributes, cursor position).
        self.screen.write_process_input = child.send
        self.forbidden: tuple[str, ...] = ()  # texts that must never be on the screen

    def pump(self) -> None:
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=0.02)
            except (pexpect.TIMEOUT, pexpect.EOF):
                return
            self.stream.feed(DCS.sub(b"", data))
            seen = [t for t in self.forbidden if t in self.text()]
            assert not seen, f"{seen} on the screen:\n{self.text()}"

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def row(self, n: int) -> str:
        return self.screen.display[n]

    def wait_for(self, text: str, row: int | None = None) -> str:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            self.pump()
            where = self.row(row) if row is not None else self.text()
            if text in where:
                return where
        raise AssertionError(f"{text!r} never appeared on the screen:\n{self.text()}")

    def wait_gone(self, text: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            self.pump()
            if text not in self.text():
                return
        raise AssertionError(f"{text!r} stayed on the screen:\n{self.text()}")

    def type(self, keys: str) -> None:
        self.child.send(keys)


def spawn(
    tmp_path: Path,
    ws: Path,
    setup: dict[str, Any],
    path: Path,
    size: tuple[int, int] = (COLUMNS, LINES),
) -> pexpect.spawn:
    env = clean_env(tmp_path, HARNESS_SETUP=json.dumps(setup), TERM="xterm-256color")
    assert NVIM is not None
    return pexpect.spawn(
        NVIM,
        ["-i", "NONE", "-n", "-u", str(INIT), str(path)],
        cwd=str(ws),
        env=env,
        dimensions=(size[1], size[0]),
        timeout=WAIT_S,
    )


def quit_nvim(child: pexpect.spawn) -> None:
    child.send("\x1b:qall!\r")
    try:
        child.expect(pexpect.EOF, timeout=15)
    finally:
        child.close(force=True)


STATUS_ROW, MESSAGE_ROW = LINES - 2, LINES - 1


def test_the_tui_shows_statusline_end_message_and_memory_float(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    fake = fake_llm(fix_turns())
    setup = {"statusline": True, "settings": settings(fake, tmp_path / "store.db")}
    child = spawn(tmp_path, ws, setup, ws / "pyproject.toml")
    term = Terminal(child)
    try:
        status_row, message_row = STATUS_ROW, MESSAGE_ROW
        term.wait_for("harness · 0 notes", row=status_row)
        assert "pyproject.toml" in term.row(status_row)

        term.type(":edit calc.py\r:edit pyproject.toml\r")
        term.type(f":HarnessRun {GOAL}\r")
        end = term.wait_for("run 1 finished", row=message_row)
        # the end line first (outcome, files, steps, tokens), then the answer's head
        assert "run 1 finished · changed calc.py · 3 steps · " in end, end
        assert SUMMARY[:20] in end, end
        status = term.wait_for("harness finished", row=status_row)
        assert "/2M · " in status and "step 3/100" in status, status

        term.type(":HarnessMemory\r")
        term.wait_for("harness memory · 1 note")
        screen = term.text()
        row = next(line for line in screen.splitlines() if NOTE_KEY in line)
        assert NOTE_VALUE in row and "fact" in row and "run 1/2" in row, screen
        assert "d delete · p pin/unpin · a add" in screen
        term.type("q")
        deadline = time.monotonic() + WAIT_S
        while "harness memory" in term.text() and time.monotonic() < deadline:
            term.pump()
        assert "harness memory" not in term.text()
    finally:
        quit_nvim(child)


def test_the_tui_approval_float_leaves_the_typing_alone(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = make_workspace(tmp_path)
    typing = threading.Event()

    def exec_when_typing(body: dict[str, Any]) -> dict[str, Any]:
        typing.wait(20)
        return {"tool_calls": [call("exec", argv=[sys.executable, "-c", "print(1)"])]}

    fake = fake_llm([exec_when_typing, {"content": "ran it"}])
    setup = {"statusline": True, "settings": settings(fake, tmp_path / "store.db")}
    child = spawn(tmp_path, ws, setup, ws / "calc.py")
    term = Terminal(child)
    try:
        term.wait_for("harness · 0 notes", row=STATUS_ROW)
        term.type(":HarnessRun run it\r")
        term.wait_for("run 1 started", row=MESSAGE_ROW)
        term.type("Gox = 1")
        term.wait_for("-- INSERT --", row=MESSAGE_ROW)
        typing.set()
        term.wait_for("harness: approval needed")
        top = term.row(1)
        assert top.rstrip().endswith("╮") and "approval needed" in top, "top-right corner"
        assert "⚠ approve" in term.wait_for("⚠ approve", row=STATUS_ROW)
        term.type("\r1\r2\r")  # what used to answer the prompt
        term.wait_for("-- INSERT --", row=MESSAGE_ROW)
        deadline = time.monotonic() + WAIT_S
        while "2" not in term.row(4)[:3] and time.monotonic() < deadline:
            term.pump()
        assert [term.row(i)[:40].rstrip() for i in range(2, 5)] == ["x = 1", "1", "2"], term.text()
        assert "approval needed" in term.text(), "still waiting"

        term.type("\x1b:HarnessApprove\r")
        term.wait_for("[q] later")
        term.type("a")
        term.wait_for("run 1 finished", row=MESSAGE_ROW)
        assert "approval needed" not in term.text()
    finally:
        quit_nvim(child)


HIT_ENTER = ("Press ENTER", "-- More --", "Type number and <Enter>")


def test_the_tui_walks_a_conversation_with_no_hit_enter_prompt(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """:Harness, a goal typed on the prompt line, the model's words and a tool line, an
    approval denied with `d` on its line in the buffer, a follow-up, then a provider outage
    (a warning and the run's end, two messages in a row): never a prompt waiting for ENTER."""
    ws = make_workspace(tmp_path)
    words = "Reading calc.py before I change anything."
    exec_argv = [sys.executable, "-c", "print(1)"]
    fake = fake_llm(
        [
            {"content": words, "tool_calls": [call("read_file", path="calc.py")]},
            {"tool_calls": [call("exec", argv=exec_argv)]},
            {"content": "I did not run it."},
            {"content": "Glad to help."},
        ]
    )
    fake.inject_at(5, Fault.unauthorized())
    setup = {"statusline": True, "settings": settings(fake, tmp_path / "store.db")}
    child = spawn(tmp_path, ws, setup, ws / "calc.py")
    term = Terminal(child)
    term.forbidden = HIT_ENTER
    try:
        term.wait_for("harness · 0 notes", row=STATUS_ROW)
        term.type(":Harness\r")
        term.wait_for("harness · new conversation")
        term.type("icheck the add function\x1b\r")
        term.wait_for("▶ you: check the add function")
        term.wait_for(words[:30])  # the conversation's 39 columns wrap the rest
        term.wait_for("✓ read_file calc.py")
        term.wait_for("approval needed")  # the float
        term.wait_for("a allow · A allow for the run")  # and the buffer
        term.type("/^⚠\rd")
        term.wait_for("■ run 1 finished")
        assert "1 denied" in term.wait_for("1 denied")
        term.wait_gone("approval needed")  # seen: the answered approval's float stayed
        term.type("ithanks\x1b\r")
        term.wait_for("▶ you: thanks")
        term.wait_for("Glad to help.")
        term.wait_for("■ run 2 finished · 1 step · ")  # not "1 steps"; the answer above it
        SCREEN_CAPTURE.write_text(term.text().rstrip() + "\n", encoding="utf-8")  # looked at
        term.type(":HarnessAsk once more\r")
        term.wait_for("run 3 failed", row=MESSAGE_ROW)
        term.wait_for("■ run 3 failed")
    finally:
        quit_nvim(child)


ANSWER = "add() subtracts.\nIt should add."


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_tui_conversation_fits_the_terminal(
    tmp_path: Path, fake_llm: MakeFakeLLM, size: tuple[int, int]
) -> None:
    """At 80×24 and 120×40: the code window stays in view beside or above the conversation,
    the approval float inside the conversation window, the statusline keeps the file name
    and the approval cue, the answer is drawn once and the end line is one line."""
    columns, lines = size
    ws = make_workspace(tmp_path)
    exec_argv = [sys.executable, "-c", "print(1)"]
    fake = fake_llm(
        [
            {"tool_calls": [call("read_file", path="calc.py")]},
            {"tool_calls": [call("exec", argv=exec_argv)]},
            {"content": ANSWER},
        ]
    )
    setup = {"statusline": True, "settings": settings(fake, tmp_path / "store.db")}
    child = spawn(tmp_path, ws, setup, ws / "calc.py", size=size)
    term = Terminal(child, columns, lines)
    term.forbidden = HIT_ENTER
    capture = SCREEN_CAPTURE.with_name(f"nvim-conversation-{columns}x{lines}.txt")
    try:
        term.wait_for("harness · 0 notes")
        term.type(":Harness\r")
        term.wait_for("harness · new conversation")
        term.type("icheck the add function\x1b\r")
        term.wait_for("approval needed")
        screen = term.text()
        # the code is still on the screen, left of or above the float
        assert "def add(a, b):" in screen and "return a - b" in screen, screen
        code_row = next(r for r in screen.splitlines() if "def add(a, b):" in r)
        assert "approval" not in code_row, screen
        status = next(r for r in screen.splitlines() if "⚠ approve" in r)
        assert "calc.py" in status, status
        capture.with_suffix(".approval.txt").write_text(screen.rstrip() + "\n")  # looked at
        term.type("\\d")  # <leader>d from the prompt line: deny
        term.wait_for("■ run 1 finished · 1 denied")
        term.wait_gone("approval needed")
        screen = term.text()
        assert screen.count("add() subtracts.") == 1 and "It should add." in screen, screen
        rows = screen.splitlines()
        at = next(i for i, r in enumerate(rows) if "■ run 1 finished" in r)
        end = rows[at] + rows[at + 1]  # a narrow window wraps the one line (breakindent)
        assert "tokens" in end and "subtracts" not in end, end
        capture.write_text(screen.rstrip() + "\n", encoding="utf-8")  # looked at
    finally:
        quit_nvim(child)
