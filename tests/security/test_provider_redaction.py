"""Attack: a hostile provider endpoint echoes the API key in its error text, placed to straddle
every point where text is cut (SPEC §6.7, §9; issue 9 seen 6: 26 of 55 key characters leaked
because the text was cut before the key was redacted). No piece of the key of 12 characters or
more may reach ``provider_calls.error``, ``runs.error``, stderr, stdout, an attempt, an
exception, a tool call's arguments error, or any byte of the store's files."""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness import redact
from harness.errors import ProviderError
from harness.provider import RetryPolicy, make_provider
from harness.types import Reply, Request
from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import FakeLLM, Fault
from tests.support.provider_store import complete_recorded

KEY = "sk-" + hashlib.sha256(b"provider-redaction-attack").hexdigest()[:52]  # 55 characters
WINDOW = 12  # §6.7: a piece of 12+ characters of a key is a leak
# Around every cut the code has had or has: 200-char previews, 500-char messages, and more.
OFFSETS = [0, 7, 150, 180, 195, 199, 200, 210, 480, 495, 499, 500, 600, 1000, 5000]
REQUEST = Request.flat("system", ("question",))
WIRES = ["openai", "anthropic"]


def pieces(secret: str = KEY) -> set[str]:
    return {secret[i : i + WINDOW] for i in range(len(secret) - WINDOW + 1)}


def assert_no_piece(label: str, text: str | bytes | None) -> None:
    if text is None:
        return
    haystack = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    leaked = sorted(p for p in pieces() if p in haystack)
    assert not leaked, f"{label} holds {len(leaked)} pieces of the key, e.g. {leaked[:3]}"


def bodies(offset: int) -> list[Any]:
    pad = "x" * offset
    spaced = "w " * (offset // 2)  # survives whitespace folding at the same offset
    return [
        {"error": {"message": f"{pad}{KEY} is not valid", "type": "invalid_request_error"}},
        {"type": "error", "error": {"type": "authentication_error", "message": f"{spaced}{KEY}"}},
        f"<html>{pad}{KEY}</html>",
        (" " * offset + KEY).encode(),  # folds to the key at the very start
    ]


def check(outcome: Reply | ProviderError, attempts: list[Any], rows: list[dict[str, Any]]) -> None:
    if isinstance(outcome, ProviderError):
        assert_no_piece("the exception", str(outcome))
        assert_no_piece("the exception args", repr(outcome.args))
    else:
        for call in outcome.tool_calls:
            assert_no_piece("an arguments error", call.arguments_error)
    for attempt in attempts:
        assert_no_piece("an attempt", repr(attempt))
    for row in rows:
        assert_no_piece("provider_calls.error", row["error"])


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("status", [401, 500, 200], ids=["401", "500", "200-not-json"])
async def test_an_echoed_key_never_leaks_in_part(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, offset: int, status: int
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    shapes = bodies(offset)
    if status == 200:  # a 200 whose body is not JSON: the "malformed" preview
        shapes = [s for s in shapes if not isinstance(s, dict)]
    fake.inject(*[Fault.http(status, body=b) for b in shapes])
    config = fake.config(stream=False, retry=RetryPolicy(max_attempts=1))
    for n in range(len(shapes)):
        outcome, attempts, rows = await complete_recorded(
            config, REQUEST, tmp_path / f"h{n}.db", key=KEY
        )
        assert isinstance(outcome, ProviderError)
        assert rows and rows[0]["error"]
        check(outcome, attempts, rows)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("offset", OFFSETS)
async def test_a_key_in_a_mid_stream_error_event_never_leaks(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, offset: int
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(Fault.stream_error("auth", message="m" * offset + KEY, after_events=2))
    config = fake.config(stream=True, retry=RetryPolicy(max_attempts=2, backoff_base_s=0))
    outcome, attempts, rows = await complete_recorded(config, REQUEST, tmp_path / "h.db", key=KEY)
    assert rows[0]["failure"] is not None and rows[0]["error"]
    check(outcome, attempts, rows)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("offset", [0, 180, 195, 480])
async def test_a_key_in_tool_arguments_never_leaks_into_the_arguments_error(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, offset: int
) -> None:
    turn = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a"}}]}
    fake = fake_llm([turn], wire=wire)
    fake.inject(Fault.bad_arguments('{"path": "' + "p" * offset + KEY))
    outcome, attempts, rows = await complete_recorded(
        fake.config(stream=True), REQUEST, tmp_path / "h.db", key=KEY
    )
    assert isinstance(outcome, Reply)
    assert outcome.tool_calls[0].arguments_error is not None
    check(outcome, attempts, rows)


async def test_a_provider_built_with_a_key_registers_it() -> None:
    other = "sk-registered-" + secrets.token_hex(15)  # no run of one digit a test could hit
    provider = make_provider(FakeLLM().config(base_url="http://127.0.0.1:9/v1"), other)
    await provider.aclose()
    assert other in redact.registered()
    # The whole key, and what a cut upstream left of it (its first 40 characters).
    assert redact.redact(f"echo {other[:40]}…{other}") == "echo [redacted]…[redacted]"


def harness_run(
    workspace: Path, store: Path, wire: str, url: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["HARNESS_API_KEY"] = KEY
    argv = [sys.executable, "-m", "harness", "run", "fix the parser", "-w", str(workspace)]
    argv += ["--provider", wire, "--base-url", url, "--store", str(store), "--yes"]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("offset", [180, 195, 480, 495])
async def test_a_whole_run_against_a_hostile_server_leaks_no_piece(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, offset: int
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "parser.py").write_text("def parse(x):\n    return x\n")
    store = tmp_path / "harness.db"
    fake = fake_llm([{"content": "never"}], wire=wire)
    body = {"error": {"message": "k" * offset + KEY, "type": "invalid_request_error"}}
    fake.inject(Fault.http(401, body=body))
    done = harness_run(workspace, store, wire, fake.url)
    assert done.returncode != 0
    assert fake.headers[0].get("x-api-key", fake.headers[0].get("authorization", "")).endswith(KEY)
    with sqlite3.connect(store) as db:
        (run_error,) = db.execute("SELECT error FROM runs").fetchone()
        (call_error,) = db.execute("SELECT error FROM provider_calls").fetchone()
    assert run_error and call_error
    if offset < 400:  # further on, the redaction marker itself is past the 500-char cut
        assert "[redacted]" in call_error
    assert_no_piece("runs.error", run_error)
    assert_no_piece("provider_calls.error", call_error)
    assert_no_piece("stderr", done.stderr)
    assert_no_piece("stdout", done.stdout)
    for path in tmp_path.iterdir():  # the store, its -wal and -shm
        if path.is_file():
            assert_no_piece(path.name, path.read_bytes())
