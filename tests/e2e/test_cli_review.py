"""Review, rewind and plan from the real CLI against a real Chat Completions fake
(issue 33): ``harness run --plan`` offers only the tools that read and refuses a write,
the trace says the mode; a follow-up with ``--continue`` carries out the plan."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.run.toolbox import PLAN_TOOLS
from tests.conftest import MakeFakeLLM

from .cli import ROOT, call, calls, env, harness, run_args

# No test here is about the after-edit diagnostics (tests/e2e/conftest.py says why).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")


def test_run_plan_refuses_writes_and_the_follow_up_carries_the_plan(
    ws: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    before = (ws / "src" / "a.py").read_text()
    fake = fake_llm(
        [
            calls(call("write_file", path="src/a.py", content="x = 1\n")),
            {"content": "Plan: fix the sign in add()."},
            calls(call("edit_file", path="src/a.py", old="a - b", new="a + b")),
            {"content": "Done."},
        ]
    )
    store = tmp_path / "s.db"
    out = harness(*run_args("Fix add()", fake.url, ws, store, "--plan"))
    assert out.code == 0, out.stderr
    result = out.json()
    assert result["summary"] == "Plan: fix the sign in add()." and result["refused"] == 1
    assert (ws / "src" / "a.py").read_text() == before
    tools = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert tools == PLAN_TOOLS  # the read tools, the semantic ones among them (§14)
    show = harness("trace", "show", str(result["runId"]), "--store", store, "--json").json()
    assert show["run"]["mode"] == "plan"

    conv = str(result["runId"])
    # The follow-up needs no goal: after a plan it is "Carry out the plan above." (issue 33).
    no_goal = ["run", "--continue", conv, *run_args("-", fake.url, ws, store)[2:]]
    out = harness(*no_goal)
    assert out.code == 0, out.stderr
    assert "Plan: fix the sign in add()." in str(fake.requests[2]["messages"])
    assert "Carry out the plan above." in str(fake.requests[2]["messages"][-1])
    assert (ws / "src" / "a.py").read_text() == before.replace("a - b", "a + b")
    # After a code turn there is no plan to carry out: the goal is required.
    out = harness(*no_goal)
    assert out.code == 2 and "goal" in out.stderr and "plan" in out.stderr
    assert len(fake.requests) == 4


FILES = 30
AGENTS = "AGENT = 2\n" * 300


def two_turns(ws: Path, store: Path, fake_llm: MakeFakeLLM) -> int:
    """Turn 1 writes one.py; turn 2 rewrites ``FILES`` files the workspace holds."""
    for n in range(FILES):
        (ws / f"f{n:02}.py").write_text("ORIGINAL = 1\n")
    fake = fake_llm(
        [
            calls(call("write_file", path="one.py", content="ONE = 1\n")),
            {"content": "1"},
            calls(*(call("write_file", path=f"f{n:02}.py", content=AGENTS) for n in range(FILES))),
            {"content": "2"},
        ]
    )
    first = harness(*run_args("one", fake.url, ws, store, "--json"))
    assert first.code == 0, first.stderr
    conv = first.json()["conversationId"]
    second = harness(*run_args("two", fake.url, ws, store, "--json", "--continue", str(conv)))
    assert second.code == 0, second.stderr
    assert (ws / "f00.py").read_text() == AGENTS
    return int(conv)


def test_rewind_to_a_turn_and_its_bad_input(
    ws: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    store = tmp_path / "s.db"
    conv = two_turns(ws, store, fake_llm)
    bad = harness("rewind", str(conv), "--to", "5", "--store", store, "-w", ws)
    assert bad.code == 1 and "has turns 1–2, not 5" in bad.stderr
    assert (ws / "f00.py").read_text() == AGENTS
    none = harness("rewind", "999", "--to", "1", "--store", store, "-w", ws)
    assert none.code != 0 and "no conversation 999" in none.stderr
    out = harness("rewind", "--to", "2", "--store", store, "-w", ws, "--json")
    assert out.code == 0, out.stderr
    assert out.json()["restored"] and out.json()["rewoundRuns"] == [conv + 1]
    assert all((ws / f"f{n:02}.py").read_text() == "ORIGINAL = 1\n" for n in range(FILES))
    assert (ws / "one.py").read_text() == "ONE = 1\n"


def test_sigkill_mid_rewind_leaves_whole_files_and_the_rewind_reruns(
    ws: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    store = tmp_path / "s.db"
    conv = two_turns(ws, store, fake_llm)
    args = ["rewind", str(conv), "--to", "2", "--store", str(store), "-w", str(ws)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *args], env=env(), cwd=ROOT, stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the intent (the rewound marks) is committed first
        with sqlite3.connect(store, timeout=5) as db:
            if db.execute("SELECT SUM(rewound) FROM runs").fetchone()[0]:
                break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    contents = {(ws / f"f{n:02}.py").read_text() for n in range(FILES)}
    assert contents <= {"ORIGINAL = 1\n", AGENTS}, "every file whole, before or after"
    again = harness(*args)
    assert again.code == 0, again.stderr
    assert all((ws / f"f{n:02}.py").read_text() == "ORIGINAL = 1\n" for n in range(FILES))
    assert not list(ws.glob(".*.harness-tmp"))
