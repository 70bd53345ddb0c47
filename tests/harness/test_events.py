"""The §11 event sequence of a real run (real tools, policy, store; the scripted model, which
streams its words): reads, an edit, a refused read, an approval allowed and one denied, a
failed edit — in order, numbered, each call's result with its status and why; and the
store gives back the same events, the words of a step merged into one ``text``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.contract import TaskContract
from harness.policy import Policy
from harness.provider.scripted import ScriptedProvider
from harness.run.events import merge_text, stored_events
from harness.run.session import Backend, RunRequest, open_session
from harness.store import Store
from harness.types import Act, Approval, ApprovalRequest
from tests.support.scripted_turns import call
from tests.support.workspace import make_workspace

TURNS: list[dict[str, Any]] = [
    {
        "content": "Looking at the code first.",
        "tool_calls": [call("read_file", path="a.py"), call("grep", pattern="x =")],
    },
    {
        "content": "Now the fix.",
        "tool_calls": [
            call("edit_file", path="a.py", old="x = 1", new="x = 2"),
            call("read_file", path=".env"),
            call("edit_file", path="a.py", old="nowhere", new="y"),
        ],
    },
    {
        "tool_calls": [
            call("write_file", path=".vscode/tasks.json", content="{}\n"),
            call("exec", argv=["make", "test"]),
        ]
    },
    {"content": "Done: x is 2."},
]


class Approver:
    """Allows writes, denies commands."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval.ALLOW_ONCE if request.act is Act.WRITE else Approval.DENY


def _shape(event: dict[str, Any]) -> tuple[Any, ...]:
    kind = event["kind"]
    if kind == "toolCall":
        return (event["step"], kind, event["name"], event["target"])
    if kind == "toolResult":
        return (event["step"], kind, event["status"], event.get("why"))
    if kind == "approval":
        return (event["step"], kind, event["act"], event.get("decision"))
    return (event["step"], kind)


async def test_a_run_is_the_event_sequence_and_the_store_gives_it_back(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, {"a.py": "x = 1\n", ".env": "KEY=1\n"})
    store = Store(tmp_path / "s.db")
    live: list[dict[str, Any]] = []
    session = await open_session(
        TaskContract.workspace("set x to 2", ws),
        Backend(store=store, provider=ScriptedProvider(TURNS)),
        RunRequest(
            approver=(approver := Approver()),
            policy=Policy.load(ws, user_config=None),
            on_event=live.append,
        ),
    )
    result = await session.execute()
    run_id = session.run_id

    merged = merge_text(live)
    assert [_shape(e) for e in merged] == [
        (0, "user"),
        (1, "text"),
        (1, "toolCall", "read_file", "a.py"),
        (1, "toolResult", "ok", None),
        (1, "toolCall", "grep", "x ="),
        (1, "toolResult", "ok", None),
        (1, "budget"),
        (2, "text"),
        (2, "toolCall", "edit_file", "a.py"),
        (2, "toolResult", "ok", None),
        (2, "toolCall", "read_file", ".env"),
        (2, "toolResult", "refused", "refused (builtin: .env)"),
        (2, "toolCall", "edit_file", "a.py"),
        (2, "toolResult", "failed", "`old` was not found in `a.py`"),
        (2, "budget"),
        (3, "toolCall", "write_file", ".vscode/tasks.json"),
        (3, "approval", "write", None),
        (3, "approval", "write", "allow"),
        (3, "toolResult", "ok", None),
        (3, "toolCall", "exec", "make test"),
        (3, "approval", "exec", None),
        (3, "approval", "exec", "deny"),
        (3, "toolResult", "denied", "denied by you"),
        (3, "budget"),
        (4, "text"),
        (4, "budget"),
        (4, "end"),
    ]
    # Every event names its run and conversation; seq counts from 1 without a gap live.
    assert {(e["runId"], e["conversationId"]) for e in live} == {(run_id, run_id)}
    assert [e["seq"] for e in live] == list(range(1, len(live) + 1))
    # The words streamed in pieces, and join to what the model said.
    deltas = [e for e in live if e["kind"] == "text" and e["step"] == 1]
    assert len(deltas) > 1 and "".join(e["delta"] for e in deltas) == TURNS[0]["content"]
    assert merged[0]["text"] == "set x to 2"
    # An approval carries what was asked: the write's diff, the command whole.
    write_ask = next(e for e in live if e["kind"] == "approval" and e["act"] == "write")
    assert write_ask["callId"] == "call_2_0" and "+{}" in write_ask["diff"]
    exec_ask = next(e for e in live if e["kind"] == "approval" and e["act"] == "exec")
    assert exec_ask["command"] == "make test" and exec_ask["target"] == "make test"
    # The approver's request itself names the call it approves (no side channel).
    asked = [(r.act, r.step, r.call_id) for r in approver.asked]
    assert asked == [(Act.WRITE, 3, "call_2_0"), (Act.EXEC, 3, "call_2_1")]
    call_ev = next(e for e in live if e["kind"] == "toolCall")
    assert call_ev["arguments"] == {"path": "a.py"} and call_ev["callId"] == "call_0_0"
    summary = next(e for e in live if e["kind"] == "toolResult" and e["step"] == 2)
    assert summary["summary"].startswith("edit a.py · wrote a.py")
    # its detail is the head of the result: for a write, the diff (never the summary again)
    assert summary["detail"].startswith("@@") and "\n+" in summary["detail"], summary
    read = next(e for e in live if e["kind"] == "toolResult" and e["step"] == 1)
    assert read.get("detail", "") != read["summary"]
    # budget and end are the harness/budget and harness/runFinished objects.
    budget = next(e for e in live if e["kind"] == "budget")
    assert budget["spentTokens"] > 0 and budget["maxSteps"] == session.run.contract.max_steps
    end = live[-1]
    assert end["outcome"] == "finished" and end["summary"] == "Done: x is 2."
    assert (end["refused"], end["denied"], end["failed"]) == (1, 1, 1)
    assert result.to_json().items() <= end.items()

    # The store gives back the same events, the words merged per step; `after` a seq.
    assert stored_events(store, [run_id]) == merged
    later = [e for e in merged if e["seq"] > 10]
    assert stored_events(store, [run_id], after=10) == later
    reopened = Store(tmp_path / "s.db")
    assert stored_events(reopened, [run_id]) == merged
    reopened.close()
    store.close()


async def test_a_run_stopped_mid_words_keeps_the_words_heard(tmp_path: Path) -> None:
    """The live view's words are what the store holds, even when the run stops before the
    model's reply is complete (a provider that fails after streaming some words)."""
    ws = make_workspace(tmp_path, {"a.py": "x = 1\n"})
    store = Store(tmp_path / "s.db")
    live: list[dict[str, Any]] = []

    class Broken(ScriptedProvider):
        async def complete(self, request: Any, on_attempt: Any) -> Any:
            on_attempt.text("Half a tho")
            raise RuntimeError("the provider broke")

    session = await open_session(
        TaskContract.workspace("g", ws),
        Backend(store=store, provider=Broken([])),
        RunRequest(
            approver=Approver(), policy=Policy.load(ws, user_config=None), on_event=live.append
        ),
    )
    await session.execute()
    # Sent up to the last whitespace as it arrived, the rest (a key's piece?) at the end.
    assert [e["kind"] for e in live] == ["user", "text", "text", "end"]
    assert "".join(e["delta"] for e in live if e["kind"] == "text") == "Half a tho"
    assert stored_events(store, [session.run_id]) == merge_text(live)
    store.close()


async def test_a_follow_ups_events_name_its_conversation_and_read_back_in_turn_order(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path, {"a.py": "x = 1\n"})
    store = Store(tmp_path / "s.db")
    seen: list[list[dict[str, Any]]] = []
    conversation: int | None = None
    for goal, words in (("look", "Looked."), ("and again", "Again.")):
        live: list[dict[str, Any]] = []
        session = await open_session(
            TaskContract.workspace(goal, ws),
            Backend(store=store, provider=ScriptedProvider([{"content": words}])),
            RunRequest(
                approver=Approver(),
                policy=Policy.load(ws, user_config=None),
                on_event=live.append,
                conversation_id=conversation,
            ),
        )
        await session.execute()
        conversation = conversation or session.run_id
        seen.append(live)
    first, second = seen
    assert {e["conversationId"] for e in first + second} == {conversation}
    assert first[0]["runId"] != second[0]["runId"] and second[0]["seq"] == 1
    runs = [run.run_id for run in store.conversation_runs(conversation)]
    assert stored_events(store, runs) == merge_text(first) + merge_text(second)
    store.close()


def test_a_key_streamed_in_pieces_never_reaches_a_front(tmp_path: Path) -> None:
    """§6.7: the model echoing a key token by token (4 characters a delta, as a real stream
    cuts it) sends no piece of it to any front; the words arrive up to each whitespace, the
    rest when the step's reply comes, and what is sent joins to the words redacted."""
    from harness import redact
    from harness.report import RunInfo
    from harness.run.events import RunEvents
    from harness.types import Reply, Usage

    key = "sk-streamed-" + "0123456789abcdef" * 3
    redact.register(key)
    seen: list[dict[str, Any]] = []
    events = RunEvents(None, 1, 1, [seen.append])
    info = RunInfo(1, "goal", tmp_path, 10, 1000)
    words = f"Writing {key} into .env now."
    for i in range(0, len(words), 4):
        events.text_delta(info, 1, words[i : i + 4])
    events.model_replied(info, 1, Reply(words, (), Usage(0, 0)))
    sent = "".join(e["delta"] for e in seen if e["kind"] == "text")
    assert sent == redact.redact(words) == "Writing [redacted] into .env now."
    assert not any(key[j : j + 12] in e["delta"] for e in seen for j in range(len(key) - 11))


async def test_the_end_event_carries_the_runs_cost_against_appending(tmp_path: Path) -> None:
    """Issue 34: a client that only reads a run's end (a panel opened later) gets the one
    honest number too — the run's cache-priced cost against what appending would have cost
    (1.0 for a run that never slid or refreshed), as the last ``budget`` said it."""
    ws = make_workspace(tmp_path, {"a.py": "x = 1\n"})
    store = Store(tmp_path / "s.db")
    live: list[dict[str, Any]] = []
    session = await open_session(
        TaskContract.workspace("look", ws),
        Backend(
            store=store,
            provider=ScriptedProvider([call("read_file", path="a.py"), {"content": "Looked."}]),
        ),
        RunRequest(
            approver=Approver(), policy=Policy.load(ws, user_config=None), on_event=live.append
        ),
    )
    await session.execute()
    budgets = [e for e in live if e["kind"] == "budget"]
    (end,) = [e for e in live if e["kind"] == "end"]
    assert end["contextVsAppend"] == budgets[-1]["contextVsAppend"] == 1.0
    assert stored_events(store, [session.run_id])[-1]["contextVsAppend"] == 1.0
    store.close()
