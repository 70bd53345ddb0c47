"""Changes from outside the agent while a run is in progress (§6.4) and the user's unsaved
buffers (§6.5), through the real server: the watcher, ``didSave``, ``didOpen``/``didChange``."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.lsp import (
    WAIT_S,
    HarnessClient,
    call,
    changes_seen,
    turn,
)
from tests.support.fake_llm import FakeLLM
from tests.support.transcript import request_text

# Runs here edit Python files, but no rule here is about diagnostics: no jedi-language-server
# after each editing turn (tests/e2e/conftest.py).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")


def user_text(body: dict[str, Any]) -> str:
    return request_text(body)


async def test_a_file_changed_on_disk_is_refreshed_in_the_next_request(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    seen = threading.Event()

    def change_b_on_disk(body: dict[str, Any]) -> dict[str, Any]:
        (ws / "src" / "b.py").write_text("B_VERSION = 2  # changed on disk\n")
        assert seen.wait(WAIT_S), "the watcher never reported the change to the run"
        return turn(call("list_dir", path="src"))

    fake.add_turns(turn(call("read_file", path="src/b.py")), change_b_on_disk, {"content": "ok"})
    run_id = (await client.command("harness.run", {"goal": "look"}))["runId"]
    await changes_seen(client, run_id)  # the model answers only once the run knows
    seen.set()
    assert (await client.wait_finished(run_id))["outcome"] == "finished"

    requests = [user_text(b) for b in fake.requests]
    assert len(requests) == 3
    assert "B_VERSION = 1" in requests[1]
    # §3 rule 3: the copy already sent stays; the refresh entry after it gives the change.
    last = requests[2]
    refresh = last.index("[read src/b.py] (refreshed at step 3: it changed on disk since the read")
    assert last.index("B_VERSION = 1") < refresh < last.index("B_VERSION = 2  # changed on disk")


async def test_did_save_feeds_the_run_at_once(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    # A .gitignore'd file: the watcher ignores it, so only didSave can report the change.
    (ws / ".gitignore").write_text("notes/\n")
    (ws / "notes").mkdir()
    note = ws / "notes" / "todo.txt"
    note.write_text("first version\n")
    uri = note.as_uri()
    loop = asyncio.get_running_loop()

    seen = threading.Event()

    def save_in_editor(body: dict[str, Any]) -> dict[str, Any]:
        note.write_text("saved from the editor\n")
        loop.call_soon_threadsafe(
            client.text_document_did_save,
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)),
        )
        assert seen.wait(WAIT_S), "didSave never reached the run"
        return turn(call("list_dir"))

    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="plaintext", version=1, text="first version\n"
            )
        )
    )
    fake.add_turns(turn(call("read_file", path="notes/todo.txt")), save_in_editor, {"content": "k"})
    run_id = (await client.command("harness.run", {"goal": "look"}))["runId"]
    await changes_seen(client, run_id)
    seen.set()
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    last = user_text(fake.requests[2])
    refresh = last.index("[read notes/todo.txt] (refreshed at step 3: it changed on disk since")
    assert last.index("first version") < refresh < last.index("saved from the editor")


async def test_a_file_with_unsaved_changes_is_not_written_and_the_user_is_warned(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    a = ws / "src" / "a.py"
    on_disk = a.read_text()
    uri = a.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=on_disk
            )
        )
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="# mine\n")],
        )
    )
    fake.add_turns(
        turn(call("read_file", path="src/a.py")),
        turn(call("write_file", path="src/a.py", content="# the agent's\n")),
        turn(call("write_file", path="src/b.py", content="B_VERSION = 3\n")),
        {"content": "done"},
    )
    run_id = (await client.command("harness.run", {"goal": "rewrite a"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"

    assert a.read_text() == on_disk, "the user's file was not written"
    assert (ws / "src" / "b.py").read_text() == "B_VERSION = 3\n", "other files are"
    assert client.did_write == [(ws / "src" / "b.py").resolve().as_uri()]
    (warning,) = [w for w in client.warnings() if "src/a.py" in w]
    assert "unsaved changes in the editor" in warning
    read = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "the editor holds unsaved changes to this file" in read["result"]
    refused = await client.command("harness.trace.step", {"runId": run_id, "step": 2})
    assert "unsaved changes in the editor" in refused["result"]


async def test_a_saved_or_reloaded_buffer_is_not_dirty(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    a, b = ws / "src" / "a.py", ws / "src" / "b.py"
    for path, version in ((a, 1), (b, 1)):
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(), language_id="python", version=version, text=path.read_text()
                )
            )
        )
    # a: edited, then saved. b: "reloaded" by the editor with the same text as on disk.
    a.write_text("saved = True\n")
    for path, text in ((a, "saved = True\n"), (b, b.read_text())):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=a.as_uri()))
    )
    fake.add_turns(
        turn(
            call("write_file", path="src/a.py", content="agent_a = 1\n"),
            call("write_file", path="src/b.py", content="agent_b = 1\n"),
        ),
        {"content": "done"},
    )
    run_id = (await client.command("harness.run", {"goal": "write both"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    assert a.read_text() == "agent_a = 1\n" and b.read_text() == "agent_b = 1\n"
    assert not [w for w in client.warnings() if "unsaved" in w]


def open_dirty(client: HarnessClient, path: Path, typed: str) -> None:
    """The editor opens ``path`` and the user types ``typed`` into it, unsaved."""
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text="")
        )
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=typed)],
        )
    )


async def test_an_exec_that_changes_a_dirty_file_is_reported_at_once(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    # Seen (issue 9, seen 8): an exec changed a file the editor holds unsaved, silently.
    a, b = ws / "src" / "a.py", ws / "src" / "b.py"
    open_dirty(client, a, "# the user's unsaved work\n")
    told = threading.Event()

    def after_the_warning(body: dict[str, Any]) -> dict[str, Any]:
        assert told.wait(WAIT_S), "the user was not told while the run went on"
        return {"content": "done"}

    script = "printf 'rewritten\\n' > src/a.py; printf 'B_VERSION = 9\\n' > src/b.py"
    fake.add_turns(turn(call("exec", argv=["sh", "-c", script])), after_the_warning)
    run_id = (await client.command("harness.run", {"goal": "regenerate"}))["runId"]
    await client.wait_for(lambda: [w for w in client.warnings() if "src/a.py" in w])
    assert not client.finished, "told at once, not at the end of the run"
    told.set()
    assert (await client.wait_finished(run_id))["outcome"] == "finished"

    assert a.read_text() == "rewritten\n" and b.read_text() == "B_VERSION = 9\n"
    (warning,) = [w for w in client.warnings() if "changed" in w]
    assert "A command the agent ran changed src/a.py on disk" in warning
    assert "unsaved changes in the editor" in warning
    assert "src/b.py" not in warning, "a file without unsaved changes is not reported"
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "changed src/a.py on disk, which has unsaved changes" in step["result"]


async def test_a_fifo_open_in_the_editor_never_freezes_the_server(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    # Comparing a dirty buffer with the disk read the file on the event loop: a FIFO the
    # editor had open froze the whole server on the agent's first write to it.
    pipe = ws / "pipe"
    os.mkfifo(pipe)
    open_dirty(client, pipe, "typed into a pipe\n")
    fake.add_turns(
        turn(call("write_file", path="pipe", content="x\n")),
        turn(call("exec", argv=["true"])),
        {"content": "done"},
    )
    run_id = (await client.command("harness.run", {"goal": "write the pipe"}))["runId"]
    assert (await asyncio.wait_for(client.wait_finished(run_id), WAIT_S))["outcome"] == "finished"
    assert (await client.command("harness.status"))["runs"] == []
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "unsaved changes in the editor" in step["result"], "refused: the buffer is the user's"
