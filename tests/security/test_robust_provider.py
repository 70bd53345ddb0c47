"""Attack: a hostile (or broken) provider answers with numbers or shapes that make no sense
(issue 20, item 8; SPEC §9): tool arguments nested 200,000 deep ended the run ``cancelled``
with a ``RecursionError``; ``total_tokens`` >= 2^63 raised ``OverflowError`` before the
``provider_calls`` row was written; negative usage made the spending go down, so the budget
was never reached.

Each answer goes through the real ``harness run`` against the fake model server (a real HTTP
server on 127.0.0.1) on both wires. The answer is ``malformed``: classified, one
``provider_calls`` row with that failure, the run ending ``provider_error`` — never an
internal error, never a traceback.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import Fault
from tests.support.workspace import PARSER_PY, make_workspace

DEEP = 200_000
JUST_TOO_DEEP = 101


def nested(depth: int) -> str:
    """A JSON object ``{"path": "parser.py", "x": [[[…]]]}`` nested ``depth`` levels."""
    return '{"path": "parser.py", "x": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def openai_body(arguments: str, usage: str) -> bytes:
    call = (
        '{"id": "c1", "type": "function", "function": {"name": "read_file", '
        f'"arguments": {arguments}}}}}'
    )
    return (
        '{"id": "x", "object": "chat.completion", "model": "m", "choices": [{"index": 0, '
        f'"message": {{"role": "assistant", "content": null, "tool_calls": [{call}]}}, '
        f'"finish_reason": "tool_calls"}}], "usage": {usage}}}'
    ).encode()


def anthropic_body(tool_input: str, usage: str) -> bytes:
    return (
        '{"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": '
        f'[{{"type": "tool_use", "id": "t1", "name": "read_file", "input": {tool_input}}}], '
        f'"stop_reason": "tool_use", "usage": {usage}}}'
    ).encode()


SANE = {
    "openai": '{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}',
    "anthropic": '{"input_tokens": 10, "output_tokens": 5}',
}
FLAT = '{"path": "parser.py"}'


def answer(wire: str, *, depth: int = 0, usage: str | None = None) -> bytes:
    tool_input = nested(depth) if depth else FLAT
    if wire == "openai":
        # The OpenAI wire carries arguments as a JSON string.
        return openai_body(json.dumps(tool_input), usage or SANE[wire])
    return anthropic_body(tool_input, usage or SANE[wire])


CASES = [
    pytest.param("openai", {"depth": DEEP}, id="openai-args-200000-deep"),
    pytest.param("anthropic", {"depth": DEEP}, id="anthropic-args-200000-deep"),
    pytest.param("openai", {"depth": JUST_TOO_DEEP}, id="openai-args-101-deep"),
    pytest.param("anthropic", {"depth": JUST_TOO_DEEP}, id="anthropic-args-101-deep"),
    pytest.param(
        "openai",
        {"usage": f'{{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": {2**63}}}'},
        id="openai-total-2^63",
    ),
    pytest.param(
        "anthropic",
        {"usage": f'{{"input_tokens": {2**63}, "output_tokens": 5}}'},
        id="anthropic-input-2^63",
    ),
    pytest.param(
        "openai",
        {"usage": '{"prompt_tokens": -100000, "completion_tokens": 5, "total_tokens": -99995}'},
        id="openai-negative",
    ),
    pytest.param(
        "anthropic",
        {"usage": '{"input_tokens": 10, "output_tokens": -100000}'},
        id="anthropic-negative",
    ),
]


def harness_run(
    workspace: Path, store: Path, wire: str, url: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env = {k: v for k, v in env.items() if not k.startswith("HARNESS_")}
    env["HARNESS_API_KEY"] = "sk-robust-provider-0123456789"
    argv = [sys.executable, "-m", "harness", "run", "read parser.py", "-w", str(workspace)]
    argv += ["--provider", wire, "--base-url", url, "--model", "m"]
    argv += ["--store", str(store), "--json", "--yes"]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)


@pytest.mark.parametrize(("wire", "shape"), CASES)
def test_a_pathological_answer_is_malformed_and_recorded(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, shape: dict[str, object]
) -> None:
    workspace = make_workspace(tmp_path, {"parser.py": PARSER_PY})
    store = tmp_path / "harness.db"
    fake = fake_llm([{"content": "done"}], wire=wire)
    fake.inject(Fault.http(200, body=answer(wire, **shape)))  # type: ignore[arg-type]
    done = harness_run(workspace, store, wire, fake.url)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] == "provider_error", result
    assert "model call failed" in done.stderr, done.stderr
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT step, attempt, failure FROM provider_calls").fetchall()
        outcome, error = db.execute("SELECT outcome, error FROM runs").fetchone()
    assert rows == [(1, 1, "malformed")]
    assert outcome == "provider_error" and error, error


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_arguments_100_deep_and_sane_usage_still_work(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str
) -> None:
    """The limit is past 100 levels: an answer at exactly 100 is a normal tool call."""
    workspace = make_workspace(tmp_path, {"parser.py": PARSER_PY})
    store = tmp_path / "harness.db"
    fake = fake_llm([{"content": "done"}], wire=wire)
    fake.inject(Fault.http(200, body=answer(wire, depth=100)))
    done = harness_run(workspace, store, wire, fake.url)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "finished"
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT failure, total_tokens FROM provider_calls").fetchall()
    assert rows[0] == (None, 15)
