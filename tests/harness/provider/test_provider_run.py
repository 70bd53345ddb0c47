"""A whole ``harness run`` against each wire's fake server, streaming on, with faults on the
wire: every attempt lands in ``provider_calls`` and the key lands nowhere."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import Fault
from tests.support.workspace import PARSER_PY, make_workspace

KEY = "sk-run-secret-0123456789abcdef"
TURNS = [
    {"tool_calls": [{"name": "read_file", "arguments": {"path": "parser.py"}}]},
    {
        "tool_calls": [
            {
                "name": "edit_file",
                "arguments": {"path": "parser.py", "old": "return x", "new": "return list(x)"},
            }
        ]
    },
    {"content": "Done: parse returns a list."},
]


def harness_run(
    workspace: Path, store: Path, wire: str, url: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["HARNESS_API_KEY"] = KEY
    argv = [sys.executable, "-m", "harness", "run", "make parse return a list"]
    argv += ["-w", str(workspace), "--provider", wire, "--base-url", url]
    argv += ["--store", str(store), "--json", "--yes"]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)


def provider_calls(store: Path) -> list[tuple[int, int, str | None, int | None, str]]:
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT step, attempt, failure, status, provider FROM provider_calls ORDER BY id"
        ).fetchall()
    return [tuple(r) for r in rows]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_run_survives_faults_and_records_every_attempt(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str
) -> None:
    workspace = make_workspace(tmp_path, {"parser.py": PARSER_PY})
    store = tmp_path / "harness.db"
    fake = fake_llm(TURNS, wire=wire)
    fake.inject(Fault.rate_limited(retry_after="1"), Fault.drop(after_events=3))
    done = harness_run(workspace, store, wire, fake.url)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "finished"
    assert (workspace / "parser.py").read_text() == "def parse(x):\n    return list(x)\n"
    assert all(body["stream"] is True for body in fake.requests)
    assert provider_calls(store) == [
        (1, 1, "rate_limited", 429, wire),
        (1, 2, "connection", 200, wire),
        (1, 3, None, 200, wire),
        (2, 1, None, 200, wire),
        (3, 1, None, 200, wire),
    ]
    for path in tmp_path.iterdir():
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in done.stdout + done.stderr
    assert recorded_usage(store) == [reported_usage(u, wire) for u in fake.usages]


def recorded_usage(store: Path) -> list[tuple[int | None, int | None, int | None]]:
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT prompt_tokens, cache_read_tokens, cache_write_tokens FROM provider_calls"
            " ORDER BY id"
        ).fetchall()
    return [tuple(r) for r in rows]


def reported_usage(usage: dict[str, Any] | None, wire: str) -> tuple[int | None, ...]:
    """What the fake reported, as the store should hold it (None: no answer, no usage)."""
    if usage is None:
        return (None, None, None)
    if wire == "openai":
        return (usage["prompt_tokens"], usage["prompt_tokens_details"]["cached_tokens"], None)
    read, write = usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]
    return (usage["input_tokens"] + read + write, read, write)


async def test_a_context_overflow_is_recorded_and_not_retried_by_the_provider(
    fake_llm: MakeFakeLLM, tmp_path: Path
) -> None:
    workspace = make_workspace(tmp_path, {"parser.py": PARSER_PY})
    store = tmp_path / "harness.db"
    fake = fake_llm(TURNS[2:], wire="anthropic")
    fake.inject(Fault.context_length())
    done = harness_run(workspace, store, "anthropic", fake.url)
    rows = provider_calls(store)
    assert rows[0][1:4] == (1, "context_overflow", 400)
    assert all(attempt == 1 for _, attempt, *_ in rows)  # the provider never retried it
    assert len(fake.requests) == len(rows)
    assert KEY not in done.stdout + done.stderr
