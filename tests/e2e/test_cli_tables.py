"""The human tables of `trace runs`, `memory list` and `trace show` at 80 and 120 columns
(issue 13, seen in a real tmux pane: `trace runs` dropped the `run` column, `memory list`
wrapped values three letters a line, `trace show` cut its headers and lost `result chars`).

Each table is rendered by the real CLI — piped with ``COLUMNS``, and on a real
pseudo-terminal of that width — and checked: no line is wider than the terminal, the id
column and every number are there whole, long values are cut with ``…``, and each row is
one line.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from .cli import call, calls, harness, harness_pty, reading, script

LONG_GOAL = "Rename calc_total to compute_total everywhere in the shop package and fix the tests"
LONG_VALUE = "run `make test` from the repository root; it builds the wheel first " * 3


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with three runs (one with refused and failed calls and the model's words)
    and notes with long keys and values, one pinned."""
    tmp = tmp_path_factory.mktemp("tables")
    ws = tmp / "shop"
    (ws / "src").mkdir(parents=True)
    (ws / ".env").write_text("X=1\n")
    (ws / "src" / "a.py").write_text("A = 1\n" * 300)
    store = tmp / "s.db"
    home = {"XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data")}
    turns = script(
        tmp / "t.json",
        reading(
            ".env",
            "src/a.py",
            said="I will read the source and the configuration before changing anything.",
        ),
        calls(call("edit_file", path="src/a.py", old="nope", new="B")),
        calls(call("grep", pattern="A = "), call("list_dir", path="src")),
        {"content": "Renamed it; nothing else needed changing."},
    )
    for goal in ("short", LONG_GOAL, LONG_GOAL + " again"):
        out = harness("run", goal, "--script", turns, "--store", store, "-w", ws, **home)
        assert out.code == 0, out.stderr
    for key, value, pin in (
        ("build-command", LONG_VALUE, True),
        ("a-rather-long-key-naming-the-test-runner-setup", "pytest -q", False),
        ("style", "ruff, line length 100", False),
    ):
        args = ["memory", "write", key, value, "-w", ws, "--store", store]
        assert harness(*args, *(["--pin"] if pin else [])).code == 0
    return store


def workspace(store: Path) -> str:
    return str(sqlite3.connect(store).execute("SELECT workspace FROM runs").fetchone()[0])


def tables(store: Path) -> dict[str, list[str]]:
    return {
        "trace runs": ["trace", "runs", "--store", str(store)],
        "memory list": ["memory", "list", "-w", workspace(store), "--store", str(store)],
        "trace show": ["trace", "show", "2", "--store", str(store)],
    }


PROSE = ("workspace ", "run ", "files changed: ", "est/rep: ")


def check_fits(name: str, lines: list[str], width: int, *, piped: bool = False) -> None:
    """Every line fits; piped, the prose lines around a table (a heading, a legend) are
    not broken at a width (a terminal wraps them at word boundaries)."""
    assert lines, name
    for line in lines:
        if piped and line.startswith(PROSE):
            continue
        assert len(line) <= width, f"{name} at {width}: {len(line)} columns: {line!r}"


def check_trace_runs(lines: list[str]) -> None:
    header = lines[0].split()
    assert header[:4] == ["run", "outcome", "steps", "tokens"], lines[0]
    rows = lines[1:]
    assert [row.split()[0] for row in rows] == ["3", "2", "1"], "every id, newest first"
    for row in rows:
        assert re.match(r"^\s*\d+\s+finished\s+4\s+[\d,]+\s", row), row
    assert any(row.rstrip().endswith("…") for row in rows), "a long goal is cut with …"


def check_memory_list(lines: list[str]) -> None:
    assert lines[0].startswith("workspace ")
    at = next(i for i, line in enumerate(lines) if line.startswith("key "))
    assert "3 of 64 notes" in " ".join(lines[:at]), "the usage line (prose: wrapped on a terminal)"
    header = lines[at].split()
    assert header[0] == "key" and "value" in header
    rows = lines[at + 1 :]
    assert len(rows) == 3, "one line per note: nothing wraps"
    keys = [row.split()[0] for row in rows]
    assert "build-command" in keys and "style" in keys
    (pinned,) = [row for row in rows if row.startswith("build-command")]
    assert "…" in pinned and "yes" in pinned


def check_trace_show(lines: list[str]) -> None:
    assert lines[0].startswith("run 2 · finished · ")
    (header,) = [line for line in lines if line.lstrip().startswith("step")]
    for long, short in (("refused", "ref"), ("failed", "fail")):
        assert long in header.split() or short in header.split(), header
    assert "chars" in header, "result chars is kept"
    numbers = [line for line in lines if re.match(r"^\s*\d+\s+[\d,]+\s", line)]
    assert [int(line.split()[0]) for line in numbers] == [1, 2, 3, 4]
    step1, step2 = numbers[0].split(), numbers[1].split()
    assert step1[-3:-1] == ["1", "0"], f"step 1: one refused, none failed: {numbers[0]}"
    assert step2[-3:-1] == ["0", "1"], f"step 2: one failed: {numbers[1]}"
    text = "\n".join(lines)
    assert "✗ 1 refused" in text and "✗ 1 failed" in text
    assert "said: I will read the source" in text
    assert "said: Renamed it; nothing else needed changing." in text


CHECKS = {
    "trace runs": check_trace_runs,
    "memory list": check_memory_list,
    "trace show": check_trace_show,
}


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("name", list(CHECKS))
def test_a_table_piped_at_the_width_columns_says(store: Path, name: str, width: int) -> None:
    out = harness(*tables(store)[name], COLUMNS=str(width))
    assert out.code == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    check_fits(name, lines, width, piped=True)
    CHECKS[name](lines)


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("name", list(CHECKS))
def test_a_table_on_a_terminal_of_that_width(store: Path, name: str, width: int) -> None:
    screen = harness_pty(*tables(store)[name], columns=width)
    assert screen.code == 0, screen.text
    check_fits(name, screen.lines, width)
    CHECKS[name](screen.lines)


def test_trace_step_prints_tool_calls_as_json(store: Path) -> None:
    out = harness("trace", "step", "1", "1", "--store", store)
    assert out.code == 0, out.stderr
    block = out.stdout.split("===== tool calls =====\n", 1)[1].split("\n=====", 1)[0]
    assert json.loads(block) == [
        {"name": "read_file", "arguments": {"path": ".env"}},
        {"name": "read_file", "arguments": {"path": "src/a.py"}},
    ]
    assert "{'name'" not in out.stdout, "not Python's repr"


def test_trace_show_lists_the_files_the_run_changed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    turns = script(
        tmp_path / "t.json",
        calls(call("write_file", path="notes/todo.txt", content="x\n")),
        {"content": "Wrote it."},
    )
    store = tmp_path / "s.db"
    assert harness("run", "x", "--script", turns, "--store", store, "-w", ws).code == 0
    out = harness("trace", "show", "1", "--store", store, COLUMNS="80")
    assert "files changed: notes/todo.txt" in out.stdout.splitlines()
