"""`harness run` end to end: the real CLI in a subprocess, a real Chat Completions server on
127.0.0.1 as the model, a real workspace and a real SQLite store (issues 2 and 3)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeFakeLLM
from tests.support.transcript import as_trace, request_text

from .cli import ROOT, call, calls, env, harness, reading, run_args
from .lsp import busy_turns

# No test here is about the after-edit diagnostics (tests/e2e/conftest.py says why).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")


@pytest.fixture
def project(ws: Path) -> Path:
    """The end-to-end workspace (``src/a.py`` with the bug, ``src/b.py``) and its test."""
    (ws / "test_a.py").write_text(
        "import sys\nsys.path.insert(0, 'src')\nfrom a import add\nassert add(2, 3) == 5\n"
    )
    return ws


def test_a_multi_step_task_reads_greps_edits_and_verifies(
    project: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm(
        [
            calls(call("grep", pattern="BUG"), call("list_dir")),
            calls(call("read_file", path="src/a.py")),
            calls(
                call("edit_file", path="src/a.py", old="return a - b  # BUG", new="return a + b")
            ),
            {"content": "Fixed add()."},
        ]
    )
    store = tmp_path / "s.db"
    out = harness(
        *run_args("Fix add()", fake.url, project, store, "--verify", f"{sys.executable} test_a.py")
    )
    assert out.code == 0, out.stderr
    result = out.json()
    assert result == {
        "runId": result["runId"],
        "outcome": "success",
        "steps": 4,
        "spentTokens": result["spentTokens"],
        "costUsd": None,  # model "m" has no price
        "summary": "Fixed add().",
        "filesChanged": ["src/a.py"],
        "conversationId": result["runId"],
        "turn": 1,
        "refused": 0,
        "denied": 0,
        "failed": 0,
    }
    assert result["spentTokens"] > 0
    assert (project / "src" / "a.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert len(fake.requests) == 4

    show = harness("trace", "show", str(result["runId"]), "--store", store, "--json").json()
    assert show["run"]["outcome"] == "success" and show["run"]["goal"] == "Fix add()"
    assert [s["step"] for s in show["steps"]] == [1, 2, 3, 4]
    assert show["steps"][0]["toolCalls"] == [
        {"name": "grep", "arguments": {"pattern": "BUG"}},
        {"name": "list_dir", "arguments": {}},
    ]
    assert show["steps"][3]["decision"] == "stop → verify passed"
    for s in show["steps"]:
        assert set(s) >= {
            "step",
            "decision",
            "toolCalls",
            "estTokens",
            "reportedPromptTokens",
            "carried",
            "stubbed",
            "reread",
            "recalled",
            "resultChars",
        }
        assert s["reportedPromptTokens"] is not None

    step2 = harness("trace", "step", str(result["runId"]), "2", "--store", store, "--json").json()
    assert set(step2) == {"runId", "step", "prompt", "result", "toolCalls", "events"}
    assert step2["result"] == "[read src/a.py]\ndef add(a, b):\n    return a - b  # BUG\n"
    sent = fake.requests[1]["messages"]
    assert step2["prompt"] == as_trace(sent), "the trace keeps the prompt exactly as sent"
    assert any(e["kind"] == "assembled" for e in step2["events"])

    runs = harness("trace", "runs", "--store", store, "--json").json()
    assert runs[0]["runId"] == result["runId"] and runs[0]["workspace"] == str(project.resolve())


def user_text(body: dict[str, Any]) -> str:
    return request_text(body)


def test_requests_append_refreshes_and_point_at_what_the_model_holds(
    project: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    (project / "src" / "a.py").write_text("ORIGINAL_A = 'first read text'\n")

    def change_b_on_disk(body: dict[str, Any]) -> dict[str, Any]:
        (project / "src" / "b.py").write_text("B_VERSION = 2  # changed by the user\n")
        return calls(call("list_dir", path="src"))

    def look_until_the_change_shows(body: dict[str, Any]) -> dict[str, Any]:
        # The CLI's watcher reports the change within a few hundred ms; the model keeps
        # looking (a cheap listing each turn) until a request carries it, then stops.
        if "B_VERSION = 2" in user_text(body):
            return {"content": "done"}
        return calls(call("list_dir", path="src"))

    fake = fake_llm(
        [
            reading("src/a.py", "src/b.py"),
            calls(call("write_file", path="src/a.py", content="ORIGINAL_A = 'second version'\n")),
            calls(call("read_file", path="./src/a.py")),
            change_b_on_disk,
            *[look_until_the_change_shows] * 390,
        ]
    )
    out = harness(
        *run_args("Look around", fake.url, project, tmp_path / "s.db", "--max-steps", "400")
    )
    assert out.code == 0, out.stderr
    assert out.json()["outcome"] == "finished"
    requests = [user_text(b) for b in fake.requests]
    # after the agent's own write, the next request keeps the copy it sent and appends a
    # one-line refresh pointing at the call, which holds the new text (§3 rule 3, revised)
    refreshed = "(refreshed at step 3: your write at step 2 replaced it)"
    told = requests[2].index(refreshed)
    assert requests[2].index("first read text") < told
    assert "ORIGINAL_A = 'second version'" in requests[2]
    # reading a.py again: what the model holds (the read as the refresh pointed it to the
    # write) is what the file is, so the re-read is the unchanged pointer (rule 2)
    assert (
        "[read src/a.py] (unchanged since the read at step 1 as refreshed at step 3, shown above)"
        in requests[3]
    )
    # b.py changed on disk while the model answered the fourth request: the first request
    # that knows it carries the refresh of b.py, after the copy the model holds
    assert "B_VERSION = 1" in requests[3]
    fresh = requests[-1]
    told = fresh.index("[read src/b.py] (refreshed at step")
    assert fresh.index("B_VERSION = 1") < told < fresh.index("B_VERSION = 2  # changed by the user")
    assert "it changed on disk since the read at step 1" in fresh[told:]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["run"], "the following arguments are required: goal", id="no-goal"),
        pytest.param(["run", "x", "--context-share", "1.5"], "(0, 1]", id="bad-share"),
        pytest.param(["run", "x", "--max-steps", "zero"], "positive integer", id="bad-steps"),
        pytest.param(["run", "x", "--provider", "nope"], "invalid choice", id="bad-provider"),
        pytest.param(
            ["run", "x", "-w", "/no/such/dir", "--provider", "scripted", "--script", "x.json"],
            "not a directory",
            id="no-workspace",
        ),
        pytest.param(
            ["run", "x", "--provider", "openai", "-w", "."], "no API key", id="missing-key"
        ),
        pytest.param(
            ["run", "x", "--provider", "scripted", "--script", "/no/such.json"],
            "cannot read the script",
            id="missing-script",
        ),
        pytest.param(["run", "   ", "--provider", "scripted"], "goal is empty", id="empty-goal"),
        pytest.param(["trace", "show", "abc"], "invalid int value", id="bad-run-id"),
        pytest.param(["frobnicate"], "invalid choice", id="unknown-command"),
    ],
)
def test_bad_cli_input_exits_2_with_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    out = (
        harness(*args, "--store", tmp_path / "s.db")
        if args[0] == "run" and len(args) > 1
        else harness(*args)
    )
    assert out.code == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert message in lines[0]


def test_the_api_key_never_reaches_the_store_or_the_logs(
    project: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    secret = "sk-test-NEVER-STORE-THIS-4f9a"
    fake = fake_llm(
        [
            calls(call("read_file", path="src/a.py")),
            calls(
                call("exec", argv=[sys.executable, "-c", "import os; print(sorted(os.environ))"])
            ),
            {"content": "done"},
        ]
    )
    store = tmp_path / "s.db"
    out = harness(*run_args("x", fake.url, project, store, "--yes"), HARNESS_API_KEY=secret)
    assert out.code == 0, out.stderr
    assert fake.headers[0].get("authorization") == f"Bearer {secret}"  # it was used
    for suffix in ("", "-wal", "-shm"):
        path = Path(str(store) + suffix)
        if path.exists():
            assert secret.encode() not in path.read_bytes()
    assert secret not in out.stdout + out.stderr
    step2 = harness("trace", "step", "1", "2", "--store", store, "--json").json()
    assert "HARNESS_API_KEY" not in step2["result"], "exec never sees the key"


def test_sigkill_mid_run_leaves_whole_steps(
    project: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm(busy_turns(200), delay_s=0.02)
    store = tmp_path / "s.db"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness",
            *run_args("x", fake.url, project, store, "--max-steps", "200"),
        ],
        env=env(),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(fake.requests) < 12 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    conn = sqlite3.connect(store)
    steps = conn.execute("SELECT step, tool_calls FROM steps WHERE run_id = 1 ORDER BY step")
    rows = steps.fetchall()
    assert len(rows) >= 5
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    for step, made in rows:
        n_obs = conn.execute(
            "SELECT count(*) FROM observations WHERE run_id = 1 AND step = ?", (step,)
        ).fetchone()[0]
        n_edits = conn.execute(
            "SELECT count(*) FROM edits WHERE run_id = 1 AND step = ?", (step,)
        ).fetchone()[0]
        assert n_obs == len(json.loads(made)) == 3
        assert n_edits == 1
    (recorded,) = conn.execute("SELECT steps FROM runs WHERE id = 1").fetchone()
    assert recorded == len(rows)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_ctrl_c_cancels_the_run_at_the_next_safe_point(
    project: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm([calls(call("list_dir")) for _ in range(100)], delay_s=0.2)
    store = tmp_path / "s.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *run_args("x", fake.url, project, store)],
        env=env(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while len(fake.requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, err
    result = json.loads(out)
    assert result["outcome"] == "cancelled" and result["steps"] >= 2
    conn = sqlite3.connect(store)
    assert (
        conn.execute("SELECT outcome FROM runs WHERE id = ?", (result["runId"],)).fetchone()[0]
        == "cancelled"
    )
    assert conn.execute("SELECT count(*) FROM steps").fetchone()[0] == result["steps"]
