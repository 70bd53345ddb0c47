"""Sweep: a planted API key never leaves the command line (issue 9 acceptance; SPEC §6.7).

The same attack as ``test_sweep_lsp`` through the real ``harness`` command: the key is
``HARNESS_API_KEY`` (resolved, so registered), the goal quotes it, a workspace file holds
it, the model says it, greps for it, reads a path and runs a command that put it where
labels are cut, writes notes with it, sends arguments that are not JSON with it and says it
in its last words; the provider echoes it across every cut (a retried 500; a final 401).

The run happens on a pseudo-terminal (live progress, the approval prompt answered by typing,
every byte the terminal received is kept), then piped with ``--json``; afterwards the
operator's commands (``trace runs|show|step``, ``memory list|get``, human and ``--json``)
print what was stored. Every byte of every stdout and stderr, and the store's file,
``-wal`` and ``-shm``, are searched for the key and every 12-character piece of it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import ROOT, Result, on_a_pty
from tests.support.fake_llm import FakeLLM, Fault
from tests.support.planted import Planted, store_files

PLANTED = Planted.new("clisweep")
KEY = PLANTED.key
PATH_PAD = "r" * 185  # the toolbox cuts a label at 200: the key starts at 190
ARGV_PAD = "x" * 93
TIMEOUT_S = 90.0
QUESTION_END = b"(default: deny)? "


def busy_turns(last: Any) -> list[Any]:
    command = f"echo {ARGV_PAD}{KEY}; echo key=$HARNESS_API_KEY; cat notes.txt"
    return [
        {
            "content": f"I found the key {KEY} in notes.txt",
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "notes.txt"}},
                {"name": "read_file", "arguments": {"path": PATH_PAD + KEY}},
                {"name": "grep", "arguments": {"pattern": KEY}},
                {"name": "exec", "arguments": {"argv": ["sh", "-c", command]}},
                {"name": "remember", "arguments": {"key": "deploy-key", "value": f"is {KEY}"}},
                {"name": "remember", "arguments": {"key": f"key-{KEY}", "value": "named"}},
            ],
        },
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        last,
    ]


def error_body(offset: int) -> dict[str, Any]:
    message = "e" * offset + KEY + " is wrong"
    return {"error": {"message": message, "type": "invalid_request_error"}}


@dataclass
class Sweep:
    ws: Path
    store: Path
    terminal: bytes = b""  # what the pty received (stdout and stderr of the first run)
    terminal_code: int = -1
    outputs: dict[str, Result] = field(default_factory=dict)
    store_open: dict[str, bytes] = field(default_factory=dict)
    store_after: dict[str, bytes] = field(default_factory=dict)

    def last_turn(self, body: dict[str, Any]) -> dict[str, Any]:
        """The model's last words; asked for while the run holds the store open, so the
        store's files (its ``-wal`` too) are read then."""
        self.store_open = {p.name: p.read_bytes() for p in store_files(self.store)}
        return {"content": f"Done. For the record, the key was {ARGV_PAD}{KEY}."}


def env(tmp: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    base = {k: v for k, v in base.items() if not k.startswith("HARNESS_")}
    base.update(
        HARNESS_API_KEY=KEY,
        XDG_CONFIG_HOME=str(tmp / "config"),
        COLUMNS="200",
        LINES="50",
        TERM="xterm-256color",
    )
    return base


def on_a_terminal(argv: list[str], environ: dict[str, str], answer: bytes) -> tuple[int, bytes]:
    """Run ``argv`` with stdin, stdout and stderr on a pty; type ``answer`` at each question."""
    answered = 0

    def reply(screen: bytes) -> bytes | None:
        nonlocal answered
        if screen.count(QUESTION_END) > answered:
            answered += 1
            return answer
        return None

    return on_a_pty(argv, environ, timeout=TIMEOUT_S, reply=reply)


def run_args(goal: str, fake: FakeLLM, sweep: Sweep, *more: str) -> list[str]:
    return [
        sys.executable, "-m", "harness", "run", goal, "-w", str(sweep.ws),
        "--provider", "openai", "--base-url", fake.url, "--model", "m",
        "--store", str(sweep.store), *more,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sweep]:
    tmp = tmp_path_factory.mktemp("cli-sweep")
    result = Sweep(ws=tmp / "ws", store=tmp / "store" / "harness.db")
    result.ws.mkdir()
    (result.ws / "notes.txt").write_text(f"deploy key: {KEY}\n")
    environ = env(tmp)
    fake = FakeLLM(busy_turns(result.last_turn)).start()
    try:
        fake.inject(Fault.http(500, body=error_body(195)))
        fake.inject_at(3, Fault.bad_arguments('{"path": "' + "p" * 180 + KEY))
        argv = run_args(f"deploy with {KEY}", fake, result)
        result.terminal_code, result.terminal = on_a_terminal(argv, environ, b"a\n")
        for offset in (0, 180, 195, 480, 495):
            fake.inject(Fault.http(401, body=error_body(offset)))
        result.outputs["run --json (provider_error)"] = cli(
            run_args("again", fake, result, "--json")[3:], environ
        )
        fake.inject(Fault.http(401, body=error_body(190)))
        result.outputs["run (piped, provider_error)"] = cli(
            run_args("once more", fake, result)[3:], environ
        )
        operator_commands(result, environ)
        result.store_after = {p.name: p.read_bytes() for p in store_files(result.store)}
        yield result
    finally:
        fake.stop()


def cli(args: list[str], environ: dict[str, str]) -> Result:
    done = subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=environ,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def operator_commands(sweep: Sweep, environ: dict[str, str]) -> None:
    store = ["--store", str(sweep.store)]
    runs = cli(["trace", "runs", *store, "--json"], environ)
    assert runs.code == 0, runs.stderr
    sweep.outputs["trace runs --json"] = runs
    sweep.outputs["trace runs"] = cli(["trace", "runs", *store], environ)
    for run in runs.json():
        rid = str(run["runId"])
        shown = cli(["trace", "show", rid, *store, "--json"], environ)
        sweep.outputs[f"trace show {rid} --json"] = shown
        sweep.outputs[f"trace show {rid}"] = cli(["trace", "show", rid, *store], environ)
        for step in shown.json()["steps"]:
            n = str(step["step"])
            for mode in ([], ["--json"]):
                label = f"trace step {rid} {n} {' '.join(mode)}".strip()
                sweep.outputs[label] = cli(["trace", "step", rid, n, *store, *mode], environ)
    ws = ["-w", str(sweep.ws), *store]
    for args in (
        ["list"],
        ["list", "--json"],
        ["get", "deploy-key"],
        ["get", "deploy-key", "--json"],
    ):
        sweep.outputs[f"memory {' '.join(args)}"] = cli(["memory", *args, *ws], environ)


# -- the attack really happened ------------------------------------------------------------


def test_the_sweep_saw_whole_runs(sweep: Sweep) -> None:
    screen = sweep.terminal.decode("utf-8", "replace")
    assert sweep.terminal_code == 0, screen[-2000:]
    assert "wants to exec" in screen, "the command was asked about on the terminal"
    plain = re.sub(r"\x1b\[[0-9;]*m", "", screen)  # the outcome is coloured on a terminal
    assert "run 1 finished · 3 steps" in plain, "the run ended on the terminal"
    failed = sweep.outputs["run --json (provider_error)"]
    assert failed.code == 1 and json.loads(failed.stdout)["outcome"] == "provider_error"
    step = json.loads(sweep.outputs["trace step 1 1 --json"].stdout)
    assert "deploy key: [redacted]" in step["result"] and "key=\n" in step["result"]
    notes = json.loads(sweep.outputs["memory list --json"].stdout)
    assert {n["key"] for n in notes} == {"deploy-key", "key-[redacted]"}
    for label, out in sweep.outputs.items():
        if not label.startswith("run"):
            assert out.code == 0, (label, out.stderr)


# -- every output ------------------------------------------------------------------------------


def test_the_terminal_never_shows_the_key(sweep: Sweep) -> None:
    PLANTED.assert_absent("what the terminal received", sweep.terminal)


def test_the_terminal_approval_prompt_never_shows_the_key(sweep: Sweep) -> None:
    screen = sweep.terminal.decode("utf-8", "replace")
    start = screen.index("wants to exec")
    question = screen[screen.rindex("\n", 0, start) : screen.index("(default: deny)?", start)]
    assert "echo key=$HARNESS_API_KEY" in question
    PLANTED.assert_absent("the approval prompt", question)


def test_a_failed_run_prints_no_piece_of_the_key(sweep: Sweep) -> None:
    texts: dict[str, str | bytes | None] = {}
    for label in ("run --json (provider_error)", "run (piped, provider_error)"):
        out = sweep.outputs[label]
        assert "[redacted]" in out.stderr, out.stderr
        texts |= {f"{label} stdout": out.stdout, f"{label} stderr": out.stderr}
    PLANTED.assert_none_leak(texts)


def test_the_operators_commands_print_no_piece_of_the_key(sweep: Sweep) -> None:
    texts: dict[str, str | bytes | None] = {}
    for label, out in sweep.outputs.items():
        if not label.startswith("run"):
            texts |= {f"{label} stdout": out.stdout, f"{label} stderr": out.stderr}
    assert len(texts) >= 20
    PLANTED.assert_none_leak(texts)


def test_the_store_files_never_hold_the_key(sweep: Sweep) -> None:
    assert any(name.endswith("-wal") for name in sweep.store_open), "read while open"
    PLANTED.assert_none_leak(
        {f"{name} (while the run held it open)": d for name, d in sweep.store_open.items()}
        | {f"{name} (after)": d for name, d in sweep.store_after.items()}
    )
