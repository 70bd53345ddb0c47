"""Conversations through the real server (issue 22; §7 ``harness.run`` ``conversationId``,
``harness.conversations``, §11), one server for every check: a follow-up's first request
starts with the previous request's text up to its trailer, on the bodies the fake servers
of both wires received; a file changed between turns is re-read; ``harness.conversations``
and ``harness.trace.runs`` are scoped to the client's two folders; a bad follow-up is a
clear error and the server keeps serving; a conversation's changes and events span its
runs and `harness.run.revertFile` with `conversationId` puts a file back as it was before
the conversation."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from server.lsp.errors import INVALID_PARAMS
from tests.conftest import MakeFakeLLM
from tests.e2e.cli import harness, script
from tests.e2e.lsp import HarnessClient, call, initialize_params, settings, turn, wait_watching
from tests.support.fake_llm import FakeLLM
from tests.support.wire_texts import body_text, without_trailer

# Runs here edit Python files, but no rule here is about diagnostics: no jedi-language-server
# after each editing turn (tests/e2e/conftest.py).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")

CONVERSATION_KEYS = [
    "conversationId",
    "goal",
    "runs",
    "lastOutcome",
    "spentTokens",
    "startedAt",
    "finishedAt",
    "lastRunId",
]


def folder(tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    ws.mkdir()
    (ws / "a.py").write_text(f"NAME = '{name}'\n")
    return ws


async def ask(bare: HarnessClient, arguments: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    started = await bare.command("harness.run", arguments)
    return started, await bare.wait_finished(started["runId"])


def prefix_kept(fake: FakeLLM, before: int, after: int) -> str:
    """What the request ``after`` adds to the request ``before`` less its trailer."""
    previous, follow = body_text(fake.requests[before]), body_text(fake.requests[after])
    assert follow.startswith(without_trailer(previous)), "the previous request is the prefix"
    return follow[len(without_trailer(previous)) :]


async def test_follow_ups_continue_conversations_scoped_to_the_clients_folders(
    bare: HarnessClient, fake: FakeLLM, store: Path, tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    one, two, other = (folder(tmp_path, n) for n in ("one", "two", "other"))
    turns = script(tmp_path / "t.json", {"content": "done"})
    out = await asyncio.to_thread(
        harness, "run", "elsewhere", "--script", turns, "-w", other, "--store", store, "--json"
    )
    elsewhere = out.json()["runId"]
    await bare.initialize_session(initialize_params([one, two], settings(fake, store)))
    await wait_watching(bare)

    # OpenAI wire, folder one: a run, the user's edit, a follow-up.
    fake.add_turns(turn(call("read_file", path="a.py")), {"content": "It names one."})
    started, finished = await ask(bare, {"goal": "Look", "workspaceFolder": str(one)})
    first = started["runId"]
    assert started == {"runId": first, "conversationId": first}
    assert (finished["conversationId"], finished["turn"]) == (first, 1)
    (one / "a.py").write_text("NAME = 'renamed'\n")
    fake.add_turns({"content": "Noted."})
    started, finished = await ask(bare, {"goal": "And now?", "conversationId": first})
    assert started["conversationId"] == first and finished["turn"] == 2
    new = prefix_kept(fake, 1, 2)
    assert "It names one." in new and "And now?" in new
    assert "changed on disk since the read at step 1 of turn 1" in new and "renamed" in new

    # Anthropic wire, folder two.
    claude = fake_llm([turn(call("read_file", path="a.py")), {"content": "Two."}], wire="anthropic")
    options = settings(claude, store)
    options["provider"] = {"name": "anthropic", "baseUrl": claude.url, "model": "m"}
    bare.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"harness": options})
    )
    started, _ = await ask(bare, {"goal": "Look at two", "workspaceFolder": str(two)})
    second = started["runId"]
    assert started["runId"] != first and len(claude.requests) == 2, "the new settings apply"
    claude.add_turns({"content": "Still two."})
    _, finished = await ask(bare, {"goal": "Sure?", "conversationId": second})
    assert "Two." in prefix_kept(claude, 1, 2) and finished["conversationId"] == second

    # Scope: the client's folders, one folder, or all.
    listed = await bare.command("harness.conversations")
    assert [c["conversationId"] for c in listed] == [second, first]
    assert list(listed[0]) == CONVERSATION_KEYS
    assert (listed[1]["runs"], listed[1]["goal"], listed[1]["lastOutcome"]) == (
        2,
        "Look",
        "finished",
    )
    only = await bare.command("harness.conversations", {"workspaceFolder": str(one)})
    assert [c["conversationId"] for c in only] == [first]
    every = await bare.command("harness.conversations", {"workspaceFolder": "*", "limit": 5})
    assert [c["conversationId"] for c in every] == [second, first, elsewhere]
    runs = await bare.command("harness.trace.runs")
    assert [(r["conversationId"], r["turn"]) for r in runs][:2] == [(second, 2), (second, 1)]

    # A follow-up of an unknown conversation, or of another folder's, is a clear error.
    for bad, why in ((9_999, "no conversation 9999"), (elsewhere, "another workspace")):
        with pytest.raises(JsonRpcException) as caught:
            await bare.command("harness.run", {"goal": "x", "conversationId": bad})
        assert caught.value.code == INVALID_PARAMS and why in str(caught.value)
    assert await bare.command("harness.status")

    # Editor context: a range of a file, and a file outside the folders (refused like a read).
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN = 'not for the model'\n")
    lines = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
    context = [{"uri": (one / "a.py").as_uri(), "range": lines}, {"uri": secret.as_uri()}]
    claude.add_turns({"content": "Seen."})
    await ask(bare, {"goal": "Explain this", "workspaceFolder": str(one), "context": context})
    sent = body_text(claude.requests[-1])
    assert "The user attached:\n- a.py, lines 1–1\n- " + str(secret) in sent
    assert "[read a.py:1-1]\nNAME = 'renamed'" in sent
    assert "not for the model" not in sent
    with pytest.raises(JsonRpcException) as caught:
        await bare.command("harness.run", {"goal": "x", "context": [{"uri": "untitled:1"}]})
    assert caught.value.code == INVALID_PARAMS and "not a file:// URI" in str(caught.value)

    # A conversation's changes and events span its runs; one file is put back (§7, §11).
    original = (one / "a.py").read_text()
    claude.add_turns(turn(call("edit_file", path="a.py", old="renamed", new="first")))
    claude.add_turns({"content": "One."})
    started, _ = await ask(bare, {"goal": "Edit", "workspaceFolder": str(one)})
    conv = started["conversationId"]
    claude.add_turns(turn(call("edit_file", path="a.py", old="first", new="second")))
    claude.add_turns({"content": "Two."})
    started, _ = await ask(bare, {"goal": "Again", "conversationId": conv})
    runs_of = [conv, started["runId"]]
    changes = await bare.command("harness.run.changes", {"conversationId": conv})
    assert [(c["path"], c["before"], c["after"], c["runIds"]) for c in changes] == [
        ("a.py", original, "NAME = 'second'\n", runs_of)
    ]
    events = await bare.command("harness.run.events", {"conversationId": conv})
    assert sorted({e["runId"] for e in events}) == runs_of
    done = await bare.command("harness.run.revertFile", {"conversationId": conv, "path": "a.py"})
    assert (done["conversationId"], done["action"]) == (conv, "restored")
    assert (one / "a.py").read_text() == original

    # `harness.run.revert` with `conversationId`: every run of it, newest first (§7).
    claude.add_turns(turn(call("edit_file", path="a.py", old="renamed", new="third")))
    claude.add_turns({"content": "Three."})
    started, _ = await ask(bare, {"goal": "Edit once more", "workspaceFolder": str(one)})
    conv = started["conversationId"]
    claude.add_turns(turn(call("write_file", path="b.py", content="B = 1\n")))
    claude.add_turns({"content": "Four."})
    await ask(bare, {"goal": "Add b.py", "conversationId": conv})
    assert (one / "a.py").read_text() != original and (one / "b.py").exists()
    undone = await bare.command("harness.run.revert", {"conversationId": conv})
    assert (undone["conversationId"], undone["restored"], undone["deleted"]) == (conv, 1, 1)
    assert [r["runId"] for r in undone["runs"]] == [conv + 1, conv]  # newest first
    assert (one / "a.py").read_text() == original and not (one / "b.py").exists()
