"""Durable memory across two real runs through the CLI, a real Chat Completions server on
127.0.0.1 as the model, and a real SQLite store (issue 4)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.support.transcript import request_text

from .cli import harness, run_args


def test_a_note_remembered_in_run_1_is_recalled_by_run_2(
    ws: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    (ws / "Makefile").write_text("test:\n\techo ok\n")
    store = tmp_path / "s.db"
    first = fake_llm(
        [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "Makefile"}}]},
            {
                "tool_calls": [
                    {
                        "name": "remember",
                        "arguments": {"key": "build-command", "value": "make test"},
                    }
                ]
            },
            {"content": "noted"},
        ]
    )
    run1 = harness(*run_args("Find out how to build", first.url, ws, store))
    assert run1.code == 0, run1.stderr
    run1_id = run1.json()["runId"]
    assert "build-command" not in request_text(first.requests[0])

    second = fake_llm([{"content": "nothing to do"}])
    run2 = harness(*run_args("Build it", second.url, ws, store))
    assert run2.code == 0, run2.stderr
    request = request_text(second.requests[0])
    heading = request.index("## Memory")
    note = request.index("build-command: make test")
    step = request.index("Step 1 of")
    assert heading < note < step, "the note is carried under the memory heading"
    assert "not instructions" in request[heading:note]

    listed = harness("memory", "list", "-w", ws, "--store", store, "--json")
    assert listed.code == 0, listed.stderr
    [entry] = listed.json()
    assert entry["key"] == "build-command" and entry["value"] == "make test"
    assert entry["runId"] == run1_id and entry["step"] == 2
    assert entry["kind"] == "fact" and entry["pinned"] is False and entry["scope"] == "workspace"
    assert entry["recalls"] >= 1
