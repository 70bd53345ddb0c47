"""A run as OpenTelemetry spans (§12), following the GenAI semantic conventions (the names
come from ``opentelemetry-semantic-conventions``; schema in ``export._schema``):

    invoke_agent harness          one per run, the trace's root (INTERNAL)
    ├─ chat {model}               one per provider attempt (CLIENT), retries included
    ├─ execute_tool {tool}        one per tool call the model made (INTERNAL)
    └─ verify                     the contract's verification command, if any

The run span carries the conversation, the outcome, the run's tokens and dollars; a chat
span the model, the provider, the tokens as reported (cache reads and writes included) and
the call's dollars; a tool span the tool, the call id and how it went (``ok``, ``refused``,
``denied``, ``failed``; anything but ``ok`` is also ``error.type`` and an error status).
Prompts, words, tool arguments and results are attached only with ``capture_content``;
every text is redacted of the registered keys whatever the setting, and cut (``content``).
Without content, what the model chose is not exported either: a tool name not in the
toolbox is ``unknown`` and a call id is its hash (``sha256:`` and 16 hex digits).

A chat span is made when its attempt ends (the provider reports it with its latency), so its
start is the end less the latency; the successful attempt's span stays open until the reply
arrives, to carry the reply's words. Every hook swallows its own faults: telemetry never
ends a run.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from harness.pricing import Pricer
from harness.report import RunInfo, RunObserver, RunResult, call_status
from harness.telemetry import content
from harness.types import Attempt, Reply, Request, ToolCall, ToolResult

log = logging.getLogger(__name__)

AGENT_NAME = "harness"
COST_USD = "harness.cost.usd"  # the conventions define no cost attribute (yet)
OUTCOME = "harness.run.outcome"
RUN_ID = "harness.run.id"
STEP = "harness.step"
TOOL_STATUS = "harness.tool.status"

F = TypeVar("F", bound=Callable[..., None])


def _safe(hook: F) -> F:
    """A hook that logs its own fault instead of ending the run."""

    @functools.wraps(hook)
    def guarded(*args: Any) -> None:
        try:
            hook(*args)
        except Exception:
            log.exception("telemetry: %s failed; the run goes on", hook.__name__)

    return guarded  # type: ignore[return-value]


class SpanObserver(RunObserver):
    """The spans of one run, ended by ``run_finished``."""

    def __init__(
        self,
        tracer: Tracer,
        *,
        provider: str,
        model: str,
        pricer: Pricer | None = None,
        capture_content: bool = False,
        tool_names: frozenset[str] | None = None,
    ) -> None:
        self.tracer, self.provider, self.model = tracer, provider, model
        self.tool_names = _toolbox_names() if tool_names is None else tool_names
        self.pricer, self.capture = pricer, capture_content
        self._run: Span | None = None
        self._context: Any = None
        self._chat: Span | None = None  # the successful attempt's span, until the reply
        self._tools: dict[str, Span] = {}
        self._verify: Span | None = None
        self._request: Request | None = None
        self._tokens = [0, 0]  # input, output over the run's attempts

    def _start(self, name: str, kind: SpanKind, attributes: dict[str, Any], at: int) -> Span:
        return self.tracer.start_span(
            name, self._context, kind, content.clean(attributes), start_time=at
        )

    @_safe
    def run_started(self, run: RunInfo) -> None:
        attributes: dict[str, content.AttributeValue | None] = {
            ga.GEN_AI_OPERATION_NAME: "invoke_agent",
            ga.GEN_AI_AGENT_NAME: AGENT_NAME,
            ga.GEN_AI_PROVIDER_NAME: self.provider,
            ga.GEN_AI_REQUEST_MODEL: self.model,
            ga.GEN_AI_CONVERSATION_ID: str(run.conversation_id or run.run_id),
            "harness.conversation.turn": run.turn,
            RUN_ID: run.run_id,
            ga.GEN_AI_INPUT_MESSAGES: content.goal_messages(run.goal) if self.capture else None,
        }
        span = self.tracer.start_span(
            f"invoke_agent {AGENT_NAME}", None, SpanKind.INTERNAL, content.clean(attributes)
        )
        self._run, self._context = span, trace.set_span_in_context(span)

    @_safe
    def model_asked(self, run: RunInfo, step: int, request: Request) -> None:
        self._request = request if self.capture else None

    @_safe
    def attempt_made(self, run: RunInfo, step: int, attempt: Attempt) -> None:
        end = time.time_ns()
        self._end_chat(end)  # a reply that never came: its span ends here
        start = end - int(attempt.latency_ms * 1_000_000)
        attributes = self._chat_attributes(step, attempt)
        span = self._start(
            content.span_name("chat", attempt.model), SpanKind.CLIENT, attributes, start
        )
        if attempt.failure is None:
            self._chat = span  # ended when the reply arrives, with its words
            return
        span.set_attribute(ERROR_TYPE, attempt.failure)
        span.set_status(
            Status(StatusCode.ERROR, content.status_text(attempt.error or attempt.failure))
        )
        span.end(end_time=end)

    def _chat_attributes(self, step: int, attempt: Attempt) -> dict[str, Any]:
        usage = attempt.usage
        cost = self.pricer.cost(usage) if self.pricer is not None and usage else None
        if usage is not None:
            self._tokens[0] += usage.prompt_tokens or 0
            self._tokens[1] += usage.completion_tokens or 0
        request = self._request
        return {
            ga.GEN_AI_OPERATION_NAME: "chat",
            ga.GEN_AI_PROVIDER_NAME: self.provider,
            ga.GEN_AI_REQUEST_MODEL: attempt.model,
            STEP: step,
            "harness.attempt": attempt.attempt,
            ga.GEN_AI_USAGE_INPUT_TOKENS: usage.prompt_tokens if usage else None,
            ga.GEN_AI_USAGE_OUTPUT_TOKENS: usage.completion_tokens if usage else None,
            ga.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: usage.cache_read_tokens if usage else None,
            ga.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS: (
                usage.cache_write_tokens if usage else None
            ),
            ga.GEN_AI_RESPONSE_FINISH_REASONS: (
                [attempt.finish_reason] if attempt.finish_reason else None
            ),
            "http.response.status_code": attempt.status,
            COST_USD: round(cost.usd, 8) if cost is not None else None,
            ga.GEN_AI_SYSTEM_INSTRUCTIONS: (
                content.system_instructions(request) if request else None
            ),
            ga.GEN_AI_INPUT_MESSAGES: content.input_messages(request) if request else None,
        }

    @_safe
    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        if self._chat is not None and self.capture:
            messages = content.clean({"m": content.output_messages(reply)})["m"]
            self._chat.set_attribute(ga.GEN_AI_OUTPUT_MESSAGES, messages)
        self._end_chat(time.time_ns())

    def _end_chat(self, at: int) -> None:
        if self._chat is not None:
            self._chat.end(end_time=at)
            self._chat = None

    @_safe
    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        self._tools[call.id] = self._tool_span(step, call, time.time_ns())

    def _tool_span(self, step: int, call: ToolCall, at: int) -> Span:
        name = call.name if call.name in self.tool_names or self.capture else "unknown"
        attributes = {
            ga.GEN_AI_OPERATION_NAME: "execute_tool",
            ga.GEN_AI_TOOL_NAME: content.subject(name),
            ga.GEN_AI_TOOL_CALL_ID: call.id if self.capture else _hashed(call.id),
            ga.GEN_AI_TOOL_TYPE: "function",
            STEP: step,
            ga.GEN_AI_TOOL_CALL_ARGUMENTS: content.arguments(call) if self.capture else None,
        }
        span_name = content.span_name("execute_tool", name)
        return self._start(span_name, SpanKind.INTERNAL, attributes, at)

    @_safe
    def tool_finished(self, run: RunInfo, step: int, call: ToolCall, result: ToolResult) -> None:
        now = time.time_ns()
        span = self._tools.pop(call.id, None) or self._tool_span(step, call, now)  # not run
        _finish(span, result, self.capture, now)

    @_safe
    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        attributes = {STEP: step, "harness.verify.command": command if self.capture else None}
        self._verify = self._start("verify", SpanKind.INTERNAL, attributes, time.time_ns())

    @_safe
    def verification_finished(self, run: RunInfo, step: int, result: ToolResult) -> None:
        if self._verify is not None:
            _finish(self._verify, result, self.capture, time.time_ns())
            self._verify = None

    @_safe
    def run_finished(self, run: RunInfo, result: RunResult) -> None:
        now = time.time_ns()
        self._end_chat(now)
        for span in self._tools.values():
            span.end(end_time=now)
        if self._verify is not None:
            self._verify.end(end_time=now)
        if self._run is None:
            return
        outcome = result.end.outcome
        attributes = {
            OUTCOME: outcome.value,
            ga.GEN_AI_USAGE_INPUT_TOKENS: self._tokens[0],
            ga.GEN_AI_USAGE_OUTPUT_TOKENS: self._tokens[1],
            "harness.run.steps": result.end.steps,
            "harness.run.spent_tokens": result.end.spent_tokens,
            COST_USD: result.cost_usd,
            ga.GEN_AI_OUTPUT_MESSAGES: (
                content.summary_messages(result.summary) if self.capture else None
            ),
        }
        self._run.set_attributes(content.clean(attributes))
        if not outcome.ok:
            self._run.set_attribute(ERROR_TYPE, outcome.value)
            self._run.set_status(Status(StatusCode.ERROR, outcome.value))
        self._run.end(end_time=now)
        self._run = None


def _toolbox_names() -> frozenset[str]:
    from harness.tools import all_tools  # the run's tools: the seven of §6.1 and memory's

    return frozenset(all_tools())


def _hashed(call_id: str) -> str:
    """A call id as exported without content: stable within a trace, saying nothing."""
    return "sha256:" + hashlib.sha256(call_id.encode("utf-8", "replace")).hexdigest()[:16]


def _finish(span: Span, result: ToolResult, capture: bool, at: int) -> None:
    status = call_status(result)
    span.set_attribute(TOOL_STATUS, status)
    if capture:
        span.set_attributes(content.clean({ga.GEN_AI_TOOL_CALL_RESULT: result.text}))
    if status != "ok":
        span.set_attribute(ERROR_TYPE, status)
        span.set_status(Status(StatusCode.ERROR, status))
    span.end(end_time=at)


__all__ = ["AGENT_NAME", "SpanObserver"]
