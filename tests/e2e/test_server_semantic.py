"""The editor back end of the semantic tools (§14) through the real server: a client that
declares ``experimental.harness.semantic`` is asked with ``harness/semantic``; its answer
is used (the harness writes a rename itself, the trace names the editor), places outside
the workspace are refused, and an ``unavailable`` answer falls back to the headless back
end (real jedi-language-server), the trace saying so. A client without the capability is
never asked. The client here is a scripted editor: it answers what a test sets."""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import pytest_lsp
from pytest_lsp import ClientServerConfig, client_capabilities

from tests.e2e.lsp import (
    SERVER_COMMAND,
    HarnessClient,
    call,
    client_factory,
    close,
    initialize_params,
    plain,
    server_env,
    settings,
    turn,
    wait_watching,
)
from tests.support.fake_llm import FakeLLM

SEMANTIC = "harness/semantic"
A = "def total(items):\n    return sum(items)\n"
B = "from a import total\n\nx = total([3])  # total\n"
ANSWERED: weakref.WeakKeyDictionary[HarnessClient, list[Any]] = weakref.WeakKeyDictionary()
ASKED: weakref.WeakKeyDictionary[HarnessClient, list[dict[str, Any]]] = weakref.WeakKeyDictionary()


def editor_factory() -> HarnessClient:
    client = client_factory()
    ANSWERED[client], ASKED[client] = [], []

    @client.feature(SEMANTIC)
    def on_semantic(ls: HarnessClient, params: Any) -> Any:
        ASKED[ls].append(plain(params))
        answers = ANSWERED[ls]
        return answers.pop(0) if answers else {"unavailable": "no provider"}

    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=editor_factory, server_env=server_env()
    ),
    name="editor",
)
async def editor_fixture(
    lsp_client: HarnessClient, ws: Path, fake: FakeLLM, store: Path
) -> AsyncIterator[None]:
    (ws / "a.py").write_text(A)
    (ws / "b.py").write_text(B)
    params = initialize_params([ws], settings(fake, store))
    params.capabilities = attrs.evolve(
        client_capabilities("visual-studio-code"), experimental={"harness": {"semantic": True}}
    )
    await lsp_client.initialize_session(params)
    await wait_watching(lsp_client)
    yield
    await close(lsp_client)


def _edit(uri: str, line: int, start: int, end: int, text: str) -> dict[str, Any]:
    span = {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}
    return {"uri": uri, "edit": {"range": span, "newText": text}}


def _workspace_edit(*places: dict[str, Any]) -> dict[str, Any]:
    """``documentChanges`` (a URI-keyed ``changes`` map does not survive pygls's decoding)."""
    changes: dict[str, list[Any]] = {}
    for place in places:
        changes.setdefault(place["uri"], []).append(place["edit"])
    return {
        "documentChanges": [
            {"textDocument": {"uri": uri, "version": None}, "edits": edits}
            for uri, edits in changes.items()
        ]
    }


RENAME = call("rename_symbol", symbol="total", new_name="sum_items", path="a.py",
              line_content="def total(items):")  # fmt: skip


async def _run(client: HarnessClient, fake: FakeLLM, *calls: dict[str, Any]) -> int:
    fake.add_turns(*(turn(c) for c in calls), {"content": "done"})
    run_id = (await client.command("harness.run", {"goal": "rename total"}))["runId"]
    assert (await client.wait_finished(run_id, 60))["outcome"] == "finished"
    return int(run_id)


async def _step(client: HarnessClient, run_id: int, step: int) -> dict[str, Any]:
    return dict(await client.command("harness.trace.step", {"runId": run_id, "step": step}))


def _semantic_events(step: dict[str, Any]) -> list[Any]:
    """Who answered each semantic query of ``step`` (the trace's ``semantic`` events)."""
    keys = ("backend", "server", "fallback")
    found = [e["detail"] for e in step["events"] if e["kind"] == "semantic"]
    return [{k: d[k] for k in keys if k in d} for d in found]


async def test_the_editor_answers_the_rename_and_the_harness_writes_it(
    editor: HarnessClient, ws: Path, fake: FakeLLM
) -> None:
    a, b = (ws / "a.py").as_uri(), (ws / "b.py").as_uri()
    ANSWERED[editor].append(
        {
            "server": "scripted editor",
            "edit": _workspace_edit(
                _edit(a, 0, 4, 9, "sum_items"),
                _edit(b, 0, 14, 19, "sum_items"),
                _edit(b, 2, 4, 9, "sum_items"),
            ),
        }
    )
    run_id = await _run(editor, fake, RENAME)

    asked, *after = ASKED[editor]
    assert {q["method"] for q in after} == {"diagnostics"}, "the turn wrote files"
    assert asked == {
        "method": "rename",
        "textDocument": {"uri": a},
        "position": {"line": 0, "character": 4},
        "newName": "sum_items",
    }
    step = await _step(editor, run_id, 1)
    assert (ws / "a.py").read_text() == A.replace("total", "sum_items"), step["result"]
    assert (ws / "b.py").read_text() == "from a import sum_items\n\nx = sum_items([3])  # total\n"
    step = await _step(editor, run_id, 1)
    assert _semantic_events(step) == [{"backend": "editor", "server": "scripted editor"}]
    assert step["result"].startswith("[renamed total → sum_items] 3 places in 2 files")


async def test_a_place_outside_the_workspace_refuses_the_rename(
    editor: HarnessClient, ws: Path, fake: FakeLLM, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("total = 1\n")
    a = (ws / "a.py").as_uri()
    ANSWERED[editor].append(
        {
            "server": "scripted editor",
            "edit": _workspace_edit(
                _edit(a, 0, 4, 9, "sum_items"), _edit(outside.as_uri(), 0, 0, 5, "sum_items")
            ),
        }
    )
    run_id = await _run(editor, fake, RENAME)
    step = await _step(editor, run_id, 1)
    assert "1 places outside the workspace; nothing was written" in step["result"]
    assert (ws / "a.py").read_text() == A and outside.read_text() == "total = 1\n"


async def test_unavailable_falls_back_to_the_headless_server(
    editor: HarnessClient, ws: Path, fake: FakeLLM
) -> None:
    refs = call("references", symbol="total", path="a.py", line_content="def total(")
    ANSWERED[editor].append({"unavailable": "no reference provider for python"})
    ANSWERED[editor].append({"server": "scripted editor", "locations": "not a list"})
    run_id = await _run(editor, fake, refs, refs)

    assert [q["method"] for q in ASKED[editor]] == ["references", "references"], "no writes"
    for n, why in ((1, "no reference provider for python"), (2, "the `locations` answer")):
        step = await _step(editor, run_id, n)
        (event,) = _semantic_events(step)
        assert (event["backend"], event["server"]) == ("server", "jedi-language-server")
        assert why in event["fallback"], event
        assert "b.py:3: x = total([3])  # total" in step["result"]


async def test_a_client_without_the_capability_is_never_asked(
    client: HarnessClient, ws: Path, fake: FakeLLM
) -> None:
    (ws / "a.py").write_text(A)
    (ws / "b.py").write_text(B)
    refs = call("references", symbol="total", path="a.py", line_content="def total(")
    run_id = await _run(client, fake, refs)
    (event,) = _semantic_events(await _step(client, run_id, 1))
    assert event == {"backend": "server", "server": "jedi-language-server"}
