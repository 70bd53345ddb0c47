"""Attack: an API key reaches the store (§6.7). A provider echoes the key in an error, the
model repeats it in its words, a tool result or a note carries it: none of it may land in
the database file, its ``-wal`` or its ``-shm`` — not whole, and not cut into a prefix.

A planted unique secret is registered as a key, put in every text a run stores, and then
searched for in the raw bytes of the three files, while the store is open (the WAL holds the
recent pages) and after it is closed.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from harness import types as t
from harness.contract import MemoryLimits
from harness.memory import RunMemory
from harness.redact import REDACTED, register
from harness.store import ObservationRecord, StepRecord, Store

PREFIX_CHARS = 12  # a cut key is a leak too: no 12-character piece of it may survive


@pytest.fixture
def secret() -> str:
    planted = "sk-planted-" + secrets.token_hex(16)
    register(planted)
    return planted


def raw_bytes(path: Path) -> bytes:
    return b"".join(
        p.read_bytes() for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()
    )


def leaked(data: bytes, secret: str) -> list[str]:
    """Every piece of ``secret`` found in ``data`` (the whole key, or a prefix or suffix)."""
    pieces = {secret, secret[:PREFIX_CHARS], secret[-PREFIX_CHARS:]}
    return [p for p in pieces if p.encode() in data]


def step_with(secret: str, run_id: int) -> StepRecord:
    said = f"I used the key {secret} to call the API"
    return StepRecord(
        run_id=run_id,
        step=1,
        decision=f"exec curl -H 'Authorization: Bearer {secret}'",
        content=said,
        prompt=[
            {"role": "system", "content": "be careful"},
            {"role": "user", "content": f"the key is {secret}", "extra": [{secret: secret}]},
        ],
        tool_calls=[{"name": "exec", "arguments": {"argv": ["curl", f"-Hkey:{secret}"]}}],
        result=f"[exec curl]\nerror: 401 for key {secret}",
        effective_tokens=24_000,
        est_tokens=100,
        started_at="2026-01-01T00:00:00Z",
        spent_tokens=10,
        observations=[ObservationRecord(0, "exec", f"curl {secret}", False, f"echo {secret}")],
        events=[
            t.TraceEvent(
                "assembled", {"note": secret, "nested": {"k": [secret]}, "obj": Path(secret)}
            )
        ],
        policy=[
            t.PolicyEvent(
                t.Act.EXEC, f"curl {secret}", t.Effect.ASK, None, "default", False, secret
            )
        ],
        edits=[t.FileWrite("notes.txt", None, b"no secret in here")],
    )


def test_a_planted_key_reaches_no_file_of_the_store(tmp_path: Path, secret: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    path = tmp_path / "store.db"
    with Store(path) as store:
        run = store.create_run(
            goal=f"deploy with {secret}",
            workspace=str(ws),
            provider="openai",
            model="m",
            contract=f'{{"goal": "deploy with {secret}"}}',
        )
        failed = t.Attempt("openai", "m", 1, 12.0, status=401, failure="auth", error=f"no {secret}")
        store.record_attempt(run, 1, failed)
        store.record_attempt(run, 1, t.Attempt("openai", "m", 2, 9.0, usage=t.Usage(1, 1, 2)))
        store.commit_step(step_with(secret, run))
        store.add_events(run, None, [t.TraceEvent("run_end", {"error": f"gave up: {secret}"})])
        memory = RunMemory(store, ws, run, MemoryLimits(), trusted=True)
        assert memory.remember("api-key", f"the key is {secret}", "workspace", 1).ok
        assert memory.remember(f"key-{secret}", "value", "global", 1).ok
        store.memory_write(ws, "operator", f"use {secret}", None, None, "decision")
        store.finish_run(run, t.RunEnd(t.Outcome.PROVIDER_ERROR, 1, 10, secret))
        while_open = raw_bytes(path)
        assert Path(f"{path}-wal").exists()
        detail = store.step_detail(run, 1)
        assert detail is not None and REDACTED in detail.result
        note = store.memory_get(ws, "api-key")
        assert note is not None and note.value == f"the key is {REDACTED}"
    assert leaked(while_open, secret) == []
    assert leaked(raw_bytes(path), secret) == []


def test_a_key_is_redacted_before_a_note_is_cut(tmp_path: Path, secret: str) -> None:
    """A value whose key straddles the 2,000-character cap: cutting first would keep a
    prefix of the key; redacting first keeps none."""
    path = tmp_path / "store.db"
    # Cut first, the 1,988 characters kept before the mark would end in 20 of the key's.
    value = "x" * 1_968 + secret + " and more" * 10
    with Store(path) as store:
        result = store.memory_write("global", "long", value, None, None, "decision")
        assert result.truncated and result.note is not None
        assert len(result.note.value) == 2_000
        assert secret[:PREFIX_CHARS] not in result.note.value
    assert leaked(raw_bytes(path), secret) == []
