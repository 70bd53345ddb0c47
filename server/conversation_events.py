"""The §11 run events (``{runId, conversationId, seq, step, kind, …}``) of a run, made from
its observer hooks and handed to a sink — the seam the fronts read a run through. Once the
shared event stream (``harness/events.py``) is on main this module is its adapter only.

Kinds: ``user`` (``text``), ``text`` (``delta``), ``toolCall`` (``callId, name, arguments,
target``), ``approval`` (``callId, act, target, command?, diff?``, then again with
``decision``), ``toolResult`` (``callId, status: ok|refused|denied|failed, why?,
summary``), ``budget`` (the ``harness/budget`` fields), ``end`` (the ``harness/runFinished``
fields).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.report import RunInfo, RunObserver, RunResult, StepSummary, refusal_of
from harness.store import Store
from harness.toolbox import label
from harness.tools.base import declaration
from harness.types import Approval, ApprovalRequest, NoticeKind, Reply, ToolCall, ToolResult

Sink = Callable[[dict[str, Any]], None]
MAX_SUMMARY_CHARS = 200


@dataclass
class EventMaker:
    """Numbers the events of one run."""

    conversation_id: int | None
    run_id: int = 0
    seq: int = 0

    def make(self, step: int, kind: str, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        conversation = self.conversation_id if self.conversation_id is not None else self.run_id
        head = {"runId": self.run_id, "conversationId": conversation, "seq": self.seq}
        return {**head, "step": step, "kind": kind, **fields}


def target_of(call: ToolCall) -> str:
    """The argument the tool declared as its target (a path, a pattern, a command)."""
    key = declaration(call.name).target
    value = call.arguments.get(key) if key is not None else None
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


def status_of(result: ToolResult) -> tuple[str, str | None]:
    """``ok``, ``refused``, ``denied`` or ``failed``, and why (§11)."""
    refusal = refusal_of(result)
    first = _first_line(result.text, skip_header=True)
    if refusal is not None and refusal.approval is Approval.DENY:
        return "denied", "denied at the approval"
    unsaved = any(n.kind is NoticeKind.UNSAVED_REFUSED for n in result.notices)
    if refusal is not None or unsaved:
        return "refused", first
    if not result.ok or result.exit_code not in (None, 0):
        return "failed", first
    return "ok", None


def _first_line(text: str, *, skip_header: bool = False) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    if skip_header and len(lines) > 1:
        lines = lines[1:]
    return lines[0][:MAX_SUMMARY_CHARS] if lines else ""


class Events(RunObserver):
    """The observer that makes a run's events and hands each to ``sink``."""

    def __init__(self, maker: EventMaker, sink: Sink) -> None:
        self.maker = maker
        self.sink = sink
        self.step = 0
        self.call_id: str | None = None

    def _emit(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = self.maker.make(self.step, kind, **fields)
        self.sink(event)
        return event

    def run_started(self, run: RunInfo) -> None:
        self.maker.run_id = run.run_id
        self._emit("user", text=run.goal)

    def step_started(self, run: RunInfo, step: int) -> None:
        self.step = step

    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        if reply.content:
            self._emit("text", delta=reply.content)

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        self.call_id = call.id
        arguments = dict(call.arguments)
        self._emit(
            "toolCall", callId=call.id, name=call.name, arguments=arguments, target=target_of(call)
        )

    def tool_finished(self, run: RunInfo, step: int, call: ToolCall, result: ToolResult) -> None:
        status, why = status_of(result)
        fields: dict[str, Any] = {"callId": call.id, "status": status}
        if why:
            fields["why"] = why
        self._emit("toolResult", **fields, summary=_first_line(result.text))
        self.call_id = None

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        fields = summary.to_json()
        fields.pop("runId", None)
        fields.pop("step", None)
        self._emit("budget", **fields)

    def run_finished(self, run: RunInfo, result: RunResult) -> None:
        fields = result.to_json()
        fields.pop("runId", None)
        self._emit("end", **fields)

    def approval(self, request: ApprovalRequest) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "callId": self.call_id,
            "act": request.act.value,
            "target": request.target,
        }
        if request.act.value == "exec":
            fields["command"] = request.target
            fields["filesWritten"] = list(request.files_written)
        if request.diff is not None:
            fields["diff"] = request.diff
        return self._emit("approval", **fields)

    def decided(self, asked: dict[str, Any], answer: Approval) -> None:
        keep = ("callId", "act", "target", "command", "diff")
        self._emit("approval", **{k: asked[k] for k in keep if k in asked}, decision=answer.value)


def stored_events(store: Store, run_id: int, conversation_id: int) -> list[dict[str, Any]]:
    """A finished run's events from the store, for a client opened later: the user's goal,
    each step's words, its calls and how each went — read from the step's results, each of
    which opens with its call's header (``[read src/a.py]``, then ``error: …`` when it did
    not go through). Until the store keeps every event (§11), a call whose result cannot be
    found is told as ``ok``."""
    trace = store.run_trace(run_id)
    if trace is None:
        return []
    maker = EventMaker(conversation_id, run_id)
    events = [maker.make(0, "user", text=trace.run.goal)]
    for step in trace.steps:
        if step.said:
            events.append(maker.make(step.step, "text", delta=step.said))
        detail = store.step_detail(run_id, step.step) if step.tool_calls else None
        results = detail.result if detail is not None else ""
        at = 0
        for index, stored in enumerate(step.tool_calls):
            call = ToolCall(f"s{step.step}c{index}", stored["name"], stored.get("arguments", {}))
            arguments = dict(call.arguments)
            events.append(
                maker.make(
                    step.step,
                    "toolCall",
                    callId=call.id,
                    name=call.name,
                    arguments=arguments,
                    target=target_of(call),
                )
            )
            status, why, at = _stored_result(results, f"[{label(call)}", at)
            fields = {"callId": call.id, "status": status, **({"why": why} if why else {})}
            events.append(maker.make(step.step, "toolResult", **fields, summary=label(call)))
    return events


def _stored_result(results: str, head: str, start: int) -> tuple[str, str | None, int]:
    """How the call whose result opens with ``head`` went, and where to look for the next."""
    found = results.find(head, start)
    if found < 0:
        return "ok", None, start
    lines = results[found:].split("\n", 2)
    second = lines[1] if len(lines) > 1 else ""
    if second.startswith("error: "):
        return "failed", second.removeprefix("error: ")[:MAX_SUMMARY_CHARS], found + len(head)
    return "ok", None, found + len(head)


__all__ = ["EventMaker", "Events", "Sink", "status_of", "stored_events", "target_of"]
