"""Memory and trace commands return exactly what the CLI prints with ``--json`` for the same
store (§8.1); ``harness.run.revert`` puts files back byte for byte."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.cli import harness
from tests.e2e.lsp import (
    HarnessClient,
    call,
    held,
    turn,
)
from tests.support.fake_llm import FakeLLM
from tests.support.transcript import as_trace

# Runs here edit Python files, but no rule here is about diagnostics: no jedi-language-server
# after each editing turn (tests/e2e/conftest.py).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")


async def cli(*args: str | Path) -> Any:
    """``harness … --json`` in a subprocess (off the event loop: the server keeps talking)."""
    out = await asyncio.to_thread(harness, *args, "--json")
    assert out.code == 0, out.stderr
    return out.json()


async def a_run_that_remembers(client: HarnessClient, fake: FakeLLM) -> int:
    # Only a folder the user trusts may write global notes (§4).
    assert (await client.command("harness.trust", {"trusted": True}))["trusted"]
    fake.add_turns(
        turn(call("remember", key="build", value="make test runs the suite")),
        turn(call("remember", key="style", value="tabs, not spaces", scope="global")),
        turn(call("read_file", path="src/b.py")),
        {"content": "noted"},
    )
    run_id: int = (await client.command("harness.run", {"goal": "learn the project"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    return run_id


async def test_memory_commands_return_what_the_cli_returns(
    client: HarnessClient, fake: FakeLLM, ws: Path, store: Path
) -> None:
    await a_run_that_remembers(client, fake)
    written = await client.command(
        "harness.memory.write", {"key": "deploy", "value": "never on Fridays", "pinned": True}
    )
    w = ("-w", ws, "--store", store)

    assert await client.command("harness.memory.list") == await cli("memory", "list", *w)
    listed = await client.command("harness.memory.list", {"scope": "global"})
    assert listed == await cli("memory", "list", "--global", "--store", store)
    assert [n["key"] for n in listed] == ["style"]
    for key in ("build", "deploy"):
        got = await client.command("harness.memory.get", {"key": key})
        assert got == await cli("memory", "get", key, *w)
    assert written["note"] == await cli("memory", "get", "deploy", *w)
    assert set(written) == {"note", "replaced", "truncated", "evicted", "similar"}
    assert written["note"]["kind"] == "decision" and written["note"]["pinned"] is True

    unpinned = await client.command("harness.memory.pin", {"key": "deploy", "pinned": False})
    assert unpinned == await cli("memory", "get", "deploy", *w)
    assert unpinned["pinned"] is False

    before = await cli("memory", "get", "build", *w)
    deleted = await client.command("harness.memory.delete", {"key": "build"})
    assert deleted == {"deleted": 1, "note": before}
    await client.command("harness.memory.write", {"key": "k", "value": "v", "pinned": True})
    await client.command("harness.memory.write", {"key": "tmp", "value": "gone soon"})
    kept = await client.command("harness.memory.clear", {"keepPinned": True})
    assert kept == {"deleted": 2, "pinned": 0}  # as `memory clear --keep-pinned --json`
    assert [n["key"] for n in await cli("memory", "list", *w)] == ["k"]
    assert await client.command("harness.memory.clear") == {"deleted": 1, "pinned": 1}
    assert await cli("memory", "list", *w) == []
    cleared = await client.command("harness.memory.clear", {"scope": "global"})
    assert cleared == {"deleted": 1, "pinned": 0}


async def test_trace_commands_return_what_the_cli_returns(
    client: HarnessClient, fake: FakeLLM, store: Path
) -> None:
    run_id = await a_run_that_remembers(client, fake)
    s = ("--store", store)
    assert await client.command("harness.trace.runs") == await cli("trace", "runs", *s)
    assert await client.command("harness.trace.runs", {"limit": 1}) == await cli(
        "trace", "runs", "--limit", "1", *s
    )
    shown = await client.command("harness.trace.run", {"runId": run_id})
    assert shown == await cli("trace", "show", str(run_id), *s)
    for step in (1, 3, 4):
        detail = await client.command("harness.trace.step", {"runId": run_id, "step": step})
        assert detail == await cli("trace", "step", str(run_id), str(step), *s)
    step3 = await client.command("harness.trace.step", {"runId": run_id, "step": 3})
    assert step3["prompt"] == as_trace(fake.requests[2]["messages"]), "the prompt as sent"


async def test_revert_puts_the_files_back(client: HarnessClient, fake: FakeLLM, ws: Path) -> None:
    a, b = ws / "src" / "a.py", ws / "src" / "b.py"
    a.write_bytes(b"# crlf and bytes\r\nx = 1\r\n\xe2\x82\xac\n")
    original_a, original_b = a.read_bytes(), b.read_bytes()
    fake.add_turns(
        turn(call("write_file", path="src/a.py", content="a = 'agent'\n")),
        turn(call("edit_file", path="src/b.py", old="B_VERSION = 1", new="B_VERSION = 2")),
        turn(call("write_file", path="src/new.py", content="created = True\n")),
        {"content": "done"},
    )
    run_id = (await client.command("harness.run", {"goal": "change things"}))["runId"]
    await client.wait_finished(run_id)
    assert (ws / "src" / "new.py").exists()
    b.write_text("B_VERSION = 2  # and the user's own change\n")
    client.did_write.clear()

    result = await client.command("harness.run.revert", {"runId": run_id})

    actions = {f["path"]: f["action"] for f in result["files"]}
    assert actions == {"src/a.py": "restored", "src/b.py": "refused", "src/new.py": "deleted"}
    assert result["restored"] == 1 and result["deleted"] == 1 and result["refused"] == 1
    refused = next(f for f in result["files"] if f["path"] == "src/b.py")
    assert "changed since the run wrote it" in refused["reason"]
    assert a.read_bytes() == original_a
    assert not (ws / "src" / "new.py").exists()
    assert b.read_text() == "B_VERSION = 2  # and the user's own change\n"
    assert sorted(client.did_write) == sorted(
        (ws / "src" / n).resolve().as_uri() for n in ("a.py", "new.py")
    )

    forced = await client.command("harness.run.revert", {"runId": run_id, "force": True})
    assert {f["path"]: f["action"] for f in forced["files"]}["src/b.py"] == "restored"
    assert b.read_bytes() == original_b


async def test_revert_refuses_a_dirty_buffer_and_an_active_run(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    b = ws / "src" / "b.py"
    fake.add_turns(turn(call("write_file", path="src/b.py", content="agent\n")), {"content": "x"})
    run_id = (await client.command("harness.run", {"goal": "write b"}))["runId"]
    await client.wait_finished(run_id)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=b.as_uri(), language_id="python", version=1, text="agent\n"
            )
        )
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=b.as_uri(), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="typing…\n")],
        )
    )
    result = await client.command("harness.run.revert", {"runId": run_id})
    assert result["files"][0]["action"] == "refused"
    assert "unsaved changes in the editor" in result["files"][0]["reason"]
    assert b.read_text() == "agent\n"

    release = threading.Event()
    fake.add_turns(held(release, {"content": "slow"}))
    busy = (await client.command("harness.run", {"goal": "slow"}))["runId"]
    with pytest.raises(JsonRpcException, match="still in progress"):
        await client.command("harness.run.revert", {"runId": busy})
    release.set()
    await client.wait_finished(busy)
