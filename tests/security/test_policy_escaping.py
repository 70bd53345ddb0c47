"""Attack: text the model, a command or a repository chose reaches the operator's terminal
raw (issue 9, seen 4: control characters in ``trace show`` and ``trace step``). A real run
(the real CLI, the scripted model, ``--yes``) leaves escape sequences, carriage returns and
bells in the goal, the model's words, a tool call, a command's output and a memory note;
then ``harness trace runs|show|step`` and ``harness memory list|get`` print them, and the
test reads every byte they wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli import Result, harness

NASTY = "\x1b[31mRED\x1b[0m\rOVER\x07\u202eRTL\x9b2J"
RAW = ("\x1b", "\r", "\x07", "\u202e", "\x9b")


def assert_escaped(out: Result) -> None:
    assert out.code == 0, out.stderr
    for stream in (out.stdout, out.stderr):
        raw = sorted({c for c in stream if c in RAW})
        assert raw == [], f"raw control characters reached the terminal: {raw!r}"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int]:
    """A store holding one real run full of control characters."""
    tmp = tmp_path_factory.mktemp("escaping")
    ws = tmp / "ws"
    ws.mkdir()
    script = tmp / "script.json"
    printf = "printf '\\033[31mred\\r\\a'"
    turns = [
        {
            "content": f"thinking {NASTY}",
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": f"nope{NASTY}.txt"}},
                {"name": "exec", "arguments": {"argv": ["sh", "-c", printf]}},
                {"name": "remember", "arguments": {"key": "colour", "value": f"is {NASTY}"}},
            ],
        },
        {"content": f"done {NASTY}"},
    ]
    script.write_text(json.dumps({"turns": turns}))
    store = tmp / "store.db"
    out = harness(
        "run", f"goal {NASTY}", "-w", ws, "--script", script, "--store", store, "--yes",
        "--json", XDG_CONFIG_HOME=str(tmp / "config"),
    )  # fmt: skip
    assert out.code == 0, out.stderr
    return ws, store, int(out.json()["runId"])


def test_the_run_really_recorded_control_characters(recorded: tuple[Path, Path, int]) -> None:
    _, store, run_id = recorded
    step = harness("trace", "step", str(run_id), "1", "--store", store, "--json").json()
    assert "\x1b[31mred\r\x07" in step["result"], "the command's raw output is kept"
    assert any(NASTY in m["content"] for m in step["prompt"]), "the goal is in the prompt"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["trace", "runs"], id="trace-runs"),
        pytest.param(["trace", "show", "{run}"], id="trace-show"),
        pytest.param(["trace", "step", "{run}", "1"], id="trace-step-1"),
        pytest.param(["trace", "step", "{run}", "2"], id="trace-step-2"),
    ],
)
def test_trace_output_is_escaped(recorded: tuple[Path, Path, int], command: list[str]) -> None:
    _, store, run_id = recorded
    out = harness(*(c.format(run=run_id) for c in command), "--store", store)
    assert_escaped(out)
    assert "\\x1b[31mRED" in out.stdout, "the text is shown, escaped"


def test_trace_step_shows_the_escapes_and_keeps_lines(recorded: tuple[Path, Path, int]) -> None:
    _, store, run_id = recorded
    out = harness("trace", "step", str(run_id), "1", "--store", store)
    assert_escaped(out)
    assert "goal \\x1b[31mRED\\x1b[0m\\rOVER\\x07\\u202eRTL\\x9b2J" in out.stdout
    assert "\\x1b[31mred\\r\\x07" in out.stdout
    assert "===== results (unelided) =====\n" in out.stdout


def test_trace_show_names_the_escaped_goal(recorded: tuple[Path, Path, int]) -> None:
    _, store, run_id = recorded
    out = harness("trace", "show", str(run_id), "--store", store)
    assert_escaped(out)
    assert "goal \\x1b[31mRED" in out.stdout.splitlines()[0]


@pytest.mark.parametrize(
    "command",
    [pytest.param(["list"], id="memory-list"), pytest.param(["get", "colour"], id="memory-get")],
)
def test_memory_output_is_escaped(recorded: tuple[Path, Path, int], command: list[str]) -> None:
    ws, store, _ = recorded
    out = harness("memory", *command, "-w", ws, "--store", store)
    assert_escaped(out)
    assert "\\x1b[31mRED" in out.stdout
