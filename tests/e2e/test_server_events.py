"""``harness/runEvent`` and ``harness.run.events`` (§7, §11) through the real server and a
real LSP client, on both wires (the fake model server streams the words in pieces): a run
that reads, edits, is refused a read, asks for a command (denied in the dialog) and stops —
its events in order, every one forwarded live, and the store's copy equal to the live
sequence with each step's words merged; ``after``; bad arguments refused with a message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from harness.run.events import merge_text
from tests.conftest import MakeFakeLLM
from tests.e2e.lsp import (
    HarnessClient,
    call,
    initialize_params,
    wait_watching,
)

# Runs here edit Python files, but no rule here is about diagnostics: no jedi-language-server
# after each editing turn (tests/e2e/conftest.py).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")

WORDS = "I will read the module, then fix the subtraction."
TURNS: list[dict[str, Any]] = [
    {
        "content": WORDS,
        "tool_calls": [call("read_file", path="src/a.py"), call("grep", pattern="BUG")],
    },
    {
        "content": "Fixing it now.",
        "tool_calls": [
            call("edit_file", path="src/a.py", old="a - b  # BUG", new="a + b"),
            call("read_file", path=".env"),
        ],
    },
    {"tool_calls": [call("exec", argv=["make", "test"])]},
    {"content": "The addition adds."},
]
EXPECTED = [
    (0, "user", None),
    (1, "text", None),
    (1, "toolCall", "read_file"),
    (1, "toolResult", "ok"),
    (1, "toolCall", "grep"),
    (1, "toolResult", "ok"),
    (1, "budget", None),
    (2, "text", None),
    (2, "toolCall", "edit_file"),
    (2, "toolResult", "ok"),
    (2, "toolCall", "read_file"),
    (2, "toolResult", "refused"),
    (2, "budget", None),
    (3, "toolCall", "exec"),
    (3, "approval", None),
    (3, "approval", "deny"),
    (3, "toolResult", "denied"),
    (3, "budget", None),
    (4, "text", None),
    (4, "budget", None),
    (4, "end", "finished"),
]


def _shape(e: dict[str, Any]) -> tuple[Any, ...]:
    detail = e.get("name") or e.get("status") or e.get("decision") or e.get("outcome")
    return (e["step"], e["kind"], detail)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_events_stream_live_and_read_back_the_same(
    bare: HarnessClient, fake_llm: MakeFakeLLM, ws: Path, tmp_path: Path, wire: str
) -> None:
    (ws / ".env").write_text("KEY=1\n")
    fake = fake_llm(TURNS, wire=wire, chunk_chars=6)
    store = tmp_path / "store" / "harness.db"
    provider = {"name": wire, "baseUrl": fake.url, "model": "m"}
    await bare.initialize_session(
        initialize_params([ws], {"provider": provider, "storePath": str(store)})
    )
    await wait_watching(bare)
    bare.answers = ["Deny"]
    started = await bare.command("harness.run", {"goal": "fix add"})
    run_id = started["runId"]
    await bare.wait_finished(run_id)
    await bare.wait_for(lambda: any(e["kind"] == "end" for e in bare.events))

    live = [e for e in bare.events if e["runId"] == run_id]
    assert [e["seq"] for e in live] == list(range(1, len(live) + 1))
    merged = merge_text(live)
    assert [_shape(e) for e in merged] == EXPECTED
    words = [e["delta"] for e in live if e["kind"] == "text" and e["step"] == 1]
    assert len(words) >= len(WORDS) // 6 and "".join(words) == WORDS  # as they arrived
    assert merged[-1] == {
        **bare.finished[-1],
        **{k: merged[-1][k] for k in ("seq", "step", "kind", "conversationId", "contextVsAppend")},
    }
    assert merged[-1]["contextVsAppend"] > 0  # issue 34: the run's cost against appending
    asked = next(e for e in live if e["kind"] == "approval")
    assert (asked["act"], asked["command"]) == ("exec", "make test")

    # A run's events are one page by default (issue 30): all of them here, `next` null.
    stored = await bare.command("harness.run.events", {"runId": run_id})
    assert stored == {"events": merged, "next": None}
    assert await bare.command("harness.run.events", {"conversationId": run_id}) == merged
    tail = await bare.command("harness.run.events", {"runId": run_id, "after": merged[-3]["seq"]})
    assert tail["events"] == merged[-2:]
    # Paged (issue 30): `limit` events a page, `next` the `after` of the next, null at the end.
    pages, after = [], None
    while True:
        asked: dict[str, int] = {"runId": run_id, "limit": 2}
        if after is not None:
            asked["after"] = after
        page = await bare.command("harness.run.events", asked)
        assert len(page["events"]) <= 2
        pages += page["events"]
        after = page["next"]
        if after is None:
            break
    assert pages == merged and len(merged) > 2

    for bad, words_ in [
        ({}, "either `runId` or `conversationId`"),
        ({"runId": run_id, "conversationId": run_id}, "either `runId` or `conversationId`"),
        ({"conversationId": run_id, "after": 1}, "`after` goes with `runId`"),
        ({"conversationId": run_id, "limit": 5}, "`limit` goes with `runId`"),
        ({"runId": run_id, "limit": 0}, "limit"),
        ({"runId": 999}, "no run 999"),
        ({"runId": "1"}, "runId"),
    ]:
        with pytest.raises(JsonRpcException, match=words_):
            await bare.command("harness.run.events", bad)
