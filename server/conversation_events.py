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


__all__ = ["EventMaker", "Events", "Sink", "status_of", "target_of"]
