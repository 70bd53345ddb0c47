"""A run as the §11 event sequence every front draws: ``RunEvents`` observes the run, numbers
each event (``seq``, per run, from 1), hands it to its sinks as it happens and records it in
the store, so that ``harness.run.events`` (``stored_events``) gives a client opened later the
same conversation.

    {runId, conversationId, seq, step, kind, …}
    user        step 0      text: the goal, mode, context?: [{path, offset?, limit?}] attached
    text        step n      delta: the model's words as they arrive
    toolCall    step n      callId, name, arguments, target
    approval    step n      callId, act, target, command?, diff?  — then again with decision
    toolResult  step n      callId, status: ok|refused|denied|failed, why?, summary,
                            output? (exec, verify, mcp__*), locations? (references,
                            diagnostics),
                            reason? (a failed call's whole error), wrote? (paths),
                            detail? (the head a front folds under the row)
    budget      step n      the harness/budget fields
    end         last step   the harness/runFinished fields

The store holds one ``text`` per step with the whole words, numbered as the last delta it
merges (``merge_text`` does the same to a live sequence: the two are then equal), so a
client that saw seq ``n`` and asks for what came ``after`` it never misses words. A reply
that did not stream is one ``text`` with all its words. The verification is a call too
(``callId`` ``verify``, name ``verify``). Texts the model or a command chose travel as they
are (the model's words are Markdown: clients draw them sanitised, §11); approval texts are
shown as every approver shows them (escaped, ``harness.policy.approval``); what is stored
is redacted of every key (§6.7).
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from harness.errors import StoreError
from harness.marks import call_mark, verify_mark
from harness.redact import redact
from harness.report import RunInfo, RunObserver, RunResult, StepSummary, call_status
from harness.run.observers import VERIFY_CALL
from harness.run.toolbox import label, target_of
from harness.types import (
    Approval,
    ApprovalRequest,
    FileWrite,
    Reply,
    ToolCall,
    ToolResult,
)

if TYPE_CHECKING:
    from harness.store import Store

log = logging.getLogger(__name__)

Event = dict[str, Any]
EventSink = Callable[[Event], None]

KINDS = ("user", "text", "toolCall", "approval", "toolResult", "budget", "end")
DECISIONS: Mapping[Approval, str] = {
    Approval.ALLOW_ONCE: "allow",
    Approval.ALLOW_RUN: "allowRun",
    Approval.DENY: "deny",
    Approval.UNAVAILABLE: "unavailable",
}
MAX_SUMMARY_CHARS = 160
DETAIL_LINES = 12  # a toolResult's ``detail``: the head of the result (or the write's diff)
MAX_DETAIL_CHARS = 2000
OUTPUT_EDGE_CHARS = 2000  # a command's output shown: this much of its head and of its tail
MAX_LOCATIONS = 50
MAX_REASON_CHARS = 2000
_ROW = re.compile(r"([^\s:][^:\n]*):(\d+):")  # ``path:line:`` of a references/diagnostics row
MAX_HELD_CHARS = 4096  # words with no whitespace held back at most this long, then sent


class RunEvents(RunObserver):
    """The events of run ``run_id`` of conversation ``conversation_id``, to each sink and to
    ``store`` (None: not recorded). A sink that raises is a fault in its host (the run ends
    with it recorded); a store that fails is logged, and the run goes on."""

    def __init__(
        self,
        store: Store | None,
        run_id: int,
        conversation_id: int,
        sinks: Iterable[EventSink] = (),
    ) -> None:
        self.store, self.run_id, self.conversation_id = store, run_id, conversation_id
        self.sinks = list(sinks)
        self.seq = 0
        self._words: list[str] = []  # this step's deltas, not yet recorded
        self._words_at: tuple[int, int] = (0, 0)  # (step, seq) of the last of them
        self._held = ""  # the words since the last whitespace, not yet sent (a key's piece?)
        self.attached: list[dict[str, Any]] = []  # what the user attached: {path, offset?, limit?}
        self._vs_append: float | None = None  # the last budget's cost against appending

    def subscribe(self, sink: EventSink) -> None:
        self.sinks.append(sink)

    # -- emitting --------------------------------------------------------------------------

    def _emit(self, step: int, kind: str, body: Mapping[str, Any], *, record: bool = True) -> None:
        self.seq += 1
        event: Event = {
            **body,
            "runId": self.run_id,
            "conversationId": self.conversation_id,
            "seq": self.seq,
            "step": step,
            "kind": kind,
        }
        if record:
            self._record(step, event)
        live = _redacted(event)  # keys never reach a front (§6.7); the store redacts its own
        for sink in self.sinks:
            sink(live)

    def _send_words(self, step: int, words: str) -> None:
        self._emit(step, "text", {"delta": words}, record=False)
        self._words_at = (step, self.seq)

    def _record(self, step: int, event: Event) -> None:
        if self.store is None:
            return
        try:
            self.store.add_run_event(self.run_id, step, event)
        except StoreError as exc:  # a full disk: one line, the run itself says the rest
            log.error("run %d: event %d could not be recorded: %s", self.run_id, event["seq"], exc)
        except Exception:
            log.exception("run %d: event %d could not be recorded", self.run_id, event["seq"])

    def _flush_words(self) -> None:
        """Send what is held back, then record the words heard so far as one ``text`` event
        (numbered as the last)."""
        if not self._words:
            return
        if self._held:
            self._send_words(self._words_at[0], self._held)
            self._held = ""
        step, seq = self._words_at
        words, self._words = "".join(self._words), []
        self._record(step, _text_event(self, step, seq, words))

    # -- hooks -----------------------------------------------------------------------------

    def run_started(self, run: RunInfo) -> None:
        attached = {"context": self.attached} if self.attached else {}
        self._emit(0, "user", {"text": run.goal, "mode": run.mode, **attached})

    def user_steered(self, run: RunInfo, step: int, text: str) -> None:
        self._emit(step, "user", {"text": text, "steer": True})

    def text_delta(self, run: RunInfo, step: int, delta: str) -> None:
        if not delta:
            return
        if self._words and self._words_at[0] != step:
            self._flush_words()
        self._words.append(delta)
        self._words_at = (step, self._words_at[1])
        # A key has no whitespace: the words are sent up to the last whitespace and the rest
        # held until more arrive, so a key streamed in pieces is redacted whole (§6.7).
        self._held += delta
        cut = max(self._held.rfind(c) for c in " \n\t\r")
        if cut < 0 and len(self._held) <= MAX_HELD_CHARS:
            return
        send = cut + 1 if cut >= 0 else len(self._held)
        words, self._held = self._held[:send], self._held[send:]
        self._send_words(step, words)

    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        if self._words:
            self._flush_words()
        elif reply.content:  # not streamed: the words at once
            self._emit(step, "text", {"delta": reply.content})

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        body = {
            "callId": call.id,
            "name": call.name,
            "arguments": dict(call.arguments),
            "target": target_of(call),
        }
        self._emit(step, "toolCall", body)

    def tool_finished(self, run: RunInfo, step: int, call: ToolCall, result: ToolResult) -> None:
        body = result_body(call.id, result, label(call))
        self._emit(step, "toolResult", {**body, **shown_result(call.name, result)})

    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        body = {"callId": VERIFY_CALL, "name": "verify", "arguments": {}, "target": command}
        self._emit(step, "toolCall", body)

    def verification_finished(self, run: RunInfo, step: int, result: ToolResult) -> None:
        body = result_body(VERIFY_CALL, result, "verify", verify=True)
        self._emit(step, "toolResult", {**body, **shown_result("verify", result)})

    def approval_asked(self, run: RunInfo, step: int, call_id: str, ask: ApprovalRequest) -> None:
        from harness.policy.approval import approval_body  # pydantic's policy: on first ask

        self._emit(step, "approval", approval_body(ask))

    def approval_decided(
        self, run: RunInfo, step: int, call_id: str, ask: ApprovalRequest, decision: Approval
    ) -> None:
        from harness.policy.approval import approval_body

        body = {**approval_body(ask), "decision": DECISIONS[decision]}
        self._emit(step, "approval", body)

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        self._flush_words()
        self._vs_append = summary.context_vs_append
        self._emit(summary.step, "budget", summary.to_json())

    def run_finished(self, run: RunInfo, result: RunResult) -> None:
        self._flush_words()  # the words of a step the run stopped in
        end = {**result.to_json(), "contextVsAppend": self._vs_append}  # issue 34
        self._emit(result.end.steps, "end", end)


def _redacted(value: Any) -> Any:
    """``value`` (an event's JSON) with every string redacted of every key."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def _text_event(events: RunEvents, step: int, seq: int, words: str) -> Event:
    return {
        "delta": words,
        "runId": events.run_id,
        "conversationId": events.conversation_id,
        "seq": seq,
        "step": step,
        "kind": "text",
    }


def result_body(call_id: str, result: ToolResult, what: str, *, verify: bool = False) -> Event:
    """A ``toolResult``: how the call went, why not (when it did not), and one line."""
    status = call_status(result)
    body: Event = {"callId": call_id, "status": status, "summary": summary_of(what, result)}
    if status != "ok":
        body["why"] = (verify_mark(result) if verify else call_mark(result)).words
    head = detail_of(result)
    if head:
        body["detail"] = head
    return body


def detail_of(result: ToolResult) -> str:
    """The head of the result a front folds under the call's row: a write's diff, else the
    output's first and last lines (less its header line, which the summary says); at most
    ``DETAIL_LINES`` lines and ``MAX_DETAIL_CHARS``."""
    lines = _diff_lines(result.writes) if result.writes else result.text.splitlines()[1:]
    if not lines:
        return ""
    if len(lines) > DETAIL_LINES:
        tail = DETAIL_LINES // 3
        hidden = len(lines) - DETAIL_LINES
        lines = [*lines[: DETAIL_LINES - tail], f"… {hidden:,} more lines …", *lines[-tail:]]
    text = "\n".join(lines)
    return text if len(text) <= MAX_DETAIL_CHARS else text[: MAX_DETAIL_CHARS - 1] + "…"


def _diff_lines(writes: tuple[FileWrite, ...]) -> list[str]:
    out: list[str] = []
    for w in writes:
        before = (w.before or b"").decode("utf-8", "replace").splitlines()
        after = w.after.decode("utf-8", "replace").splitlines()
        diff = difflib.unified_diff(before, after, w.path, w.path, n=1, lineterm="")
        if len(writes) > 1:  # a rename's files: each named
            out.append(f"{w.path}:")
        out.extend(list(diff)[2:] if w.before is not None else [f"+++ {w.path} (new)"])
    return out


def shown_result(name: str, result: ToolResult) -> Event:
    """What a front shows of a result beyond its line: a command's (or an MCP tool's)
    ``output`` (its head and tail, ``OUTPUT_EDGE_CHARS`` each), the ``locations``
    (``{path, line}``) of references and diagnostics rows, a failed call's whole
    ``reason``, the paths a call ``wrote`` (a rename's every file)."""
    if result.writes:
        return {"wrote": [w.path for w in result.writes]}
    ran = result.ok or result.exit_code is not None
    if (name in ("exec", "verify") and ran) or (name.startswith("mcp__") and result.ok):
        text = result.text
        if len(text) > 2 * OUTPUT_EDGE_CHARS:
            left = len(text) - 2 * OUTPUT_EDGE_CHARS
            cut = f"\n… ({left:,} characters left out) …\n"
            text = text[:OUTPUT_EDGE_CHARS] + cut + text[-OUTPUT_EDGE_CHARS:]
        return {"output": text}
    if name in ("references", "diagnostics"):
        rows = (_ROW.match(line) for line in result.text.splitlines()[1:])
        found = [{"path": m[1], "line": int(m[2])} for m in rows if m is not None]
        return {"locations": found[:MAX_LOCATIONS]} if found else {}
    if not result.ok:  # the whole reason the model was told, not only its first clause
        reason = result.text.split("\n", 1)[-1].removeprefix("error: ").strip()
        return {"reason": reason[:MAX_REASON_CHARS]}
    return {}


def summary_of(what: str, result: ToolResult) -> str:
    """One line: the call, and what it gave (lines, files written, the exit status)."""
    lines = result.text.count("\n")  # the header line is not counted: lines after it
    facts = []
    if result.writes:
        facts.append("wrote " + ", ".join(w.path for w in result.writes))
    elif result.exit_code is not None:
        facts.append(f"exit {result.exit_code}")
    if lines:
        facts.append(f"{lines:,} line{'s' if lines != 1 else ''}")
    line = " ".join(f"{what} · {' · '.join(facts)}".split()) if facts else " ".join(what.split())
    return line if len(line) <= MAX_SUMMARY_CHARS else line[: MAX_SUMMARY_CHARS - 1] + "…"


def merge_text(events: Iterable[Event]) -> list[Event]:
    """A live sequence as the store holds it: each run of ``text`` deltas of one step as one
    event with the whole words, numbered as its last delta."""
    out: list[Event] = []
    for event in events:
        last = out[-1] if out else None
        if (
            event["kind"] == "text"
            and last is not None
            and last["kind"] == "text"
            and (last["runId"], last["step"]) == (event["runId"], event["step"])
        ):
            out[-1] = {**last, "delta": last["delta"] + event["delta"], "seq": event["seq"]}
        else:
            out.append(dict(event))
    return out


def stored_events(store: Store, run_ids: Iterable[int], after: int | None = None) -> list[Event]:
    """The recorded events of ``run_ids`` in order (``after``: past that ``seq``)."""
    return store.run_events(list(run_ids), after)


__all__ = [
    "DECISIONS",
    "KINDS",
    "Event",
    "EventSink",
    "RunEvents",
    "merge_text",
    "result_body",
    "shown_result",
    "stored_events",
    "summary_of",
]
