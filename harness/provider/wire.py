"""What the wire formats share: assembling a ``Reply`` from parts (streamed or whole), tool-call
arguments that may not be JSON, and the token estimate used when a server reports no usage.

An answer whose numbers make no sense or whose structure is pathological is ``malformed``
(§9), found here before anything else sees it: a token count below 0 or above
``MAX_REPORTED_TOKENS`` (no model reads or writes a billion tokens in one call; a count of
2^63 would overflow the store's integers, a negative one would make the spending go down),
or tool arguments nested deeper than ``MAX_ARGUMENT_DEPTH`` (which Python's recursive JSON
code would follow until it overflows the stack).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.provider.failure import malformed
from harness.redact import clip
from harness.tokens import estimate_tokens
from harness.types import Attempt, AttemptSink, Reply, Request, ToolCall, Usage

# Finish reasons meaning "the output limit cut the reply short" (OpenAI, Anthropic).
CUT_OFF = frozenset({"length", "max_tokens"})
MAX_ARGUMENT_DEPTH = 100  # levels of objects and arrays in one call's arguments, itself included
MAX_REPORTED_TOKENS = 10**9


def request_chars(request: Request) -> int:
    """Characters of what is sent: both messages and the tool schemas."""
    tools = sum(
        len(t.name) + len(t.description) + len(json.dumps(t.parameters)) for t in request.tools
    )
    return request.chars + tools


def parse_arguments(
    name: str, raw: object, *, cut_off: bool = False
) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as an object, or ``({}, why)`` when they are not one."""
    if isinstance(raw, dict):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if not isinstance(raw, str):
        return {}, f"the arguments of `{name}` must be a JSON object, got {type(raw).__name__}"
    try:
        value = json.loads(raw)
    except RecursionError:
        raise _too_deep(name) from None
    except ValueError as exc:
        why = f"the arguments of `{name}` are not valid JSON ({exc}); got {_preview(raw)}"
        if cut_off:
            why += " — the reply was cut off at the output token limit"
        return {}, why + "; send the arguments as one JSON object"
    if not isinstance(value, dict):
        return {}, (
            f"the arguments of `{name}` must be a JSON object, got {type(value).__name__}"
            f" {_preview(raw)}"
        )
    return value, None


def nesting_depth(value: object) -> int:
    """Levels of objects and arrays in ``value`` (a scalar is 0), found without recursion."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        deepest = max(deepest, level)
        if level > MAX_ARGUMENT_DEPTH:
            break  # enough to refuse it; the rest need not be walked
        pending.extend((child, level + 1) for child in children)
    return deepest


def _too_deep(name: str) -> Exception:
    return malformed(
        f"the arguments of `{name}` are nested more than {MAX_ARGUMENT_DEPTH} levels deep"
    )


def check_usage(usage: Usage) -> None:
    """Refuse (``malformed``) a reported token count below 0 or above ``MAX_REPORTED_TOKENS``."""
    for field_name in ("prompt", "completion", "total", "cache_read", "cache_write"):
        count = getattr(usage, f"{field_name}_tokens")
        if count is not None and not 0 <= count <= MAX_REPORTED_TOKENS:
            raise malformed(
                f"the answer reports {count:,} {field_name.replace('_', ' ')} tokens; a count "
                f"must lie between 0 and {MAX_REPORTED_TOKENS:,}"
            )


def _preview(raw: str, limit: int = 200) -> str:
    # Redacted before it is cut: a model can echo a key too (§6.7).
    return repr(clip(raw, limit + 1))


class ReplySink(Protocol):
    """An ``AttemptSink`` that also hears the model's words as they arrive (§11 ``text``):
    a provider calls ``text`` with each piece, in order, before the attempt ends. The words
    of an attempt that then fails were heard too (its retry starts over)."""

    def __call__(self, attempt: Attempt) -> None: ...

    def text(self, delta: str) -> None: ...


TextSink = Callable[[str], None]


def text_sink(on_attempt: AttemptSink) -> TextSink | None:
    """Where ``on_attempt`` takes the model's words: its ``text``, if it is a ``ReplySink``."""
    sink = getattr(on_attempt, "text", None)
    return sink if callable(sink) else None


@dataclass
class PendingCall:
    """A tool call being assembled; streamed arguments arrive in pieces."""

    id: str = ""
    name: str = ""
    pieces: list[str] = field(default_factory=list)
    value: dict[str, Any] | None = None  # when the server sent an object, not a string


@dataclass
class ReplyBuilder:
    """The parts of one reply as they arrive; ``build`` makes the immutable ``Reply``."""

    content: list[str] = field(default_factory=list)
    calls: dict[int, PendingCall] = field(default_factory=dict)
    finish_reason: str | None = None
    model: str = ""
    usage: Usage | None = None
    on_text: TextSink | None = None  # hears each piece of the words as it is added

    def add_text(self, text: str) -> None:
        """A piece of the model's words, in order."""
        self.content.append(text)
        if self.on_text is not None:
            self.on_text(text)

    def call(self, index: int) -> PendingCall:
        pending = self.calls.get(index)
        if pending is None:
            pending = self.calls[index] = PendingCall()
        return pending

    def whole_call(self, index: int, call_id: object, name: object, arguments: object) -> None:
        """A call a whole (non-streamed) answer holds: its arguments as an object (as some
        servers send them) or as text."""
        pending = self.call(index)
        pending.id = str(call_id or "")
        pending.name = str(name or "")
        if isinstance(arguments, dict):
            pending.value = arguments
        elif arguments is not None:
            pending.pieces.append(str(arguments))

    @property
    def has_output(self) -> bool:
        return bool(self.content or self.calls)

    def build(self, request: Request, fallback_model: str) -> Reply:
        cut_off = self.finish_reason in CUT_OFF
        calls: list[ToolCall] = []
        completion_chars = 0
        for n, (_, pending) in enumerate(sorted(self.calls.items())):
            raw: object = pending.value if pending.value is not None else "".join(pending.pieces)
            args, error = parse_arguments(pending.name, raw, cut_off=cut_off)
            if nesting_depth(args) > MAX_ARGUMENT_DEPTH:
                raise _too_deep(pending.name)
            completion_chars += len(pending.name) + len(str(raw))
            calls.append(
                ToolCall(
                    id=pending.id or f"call_{n}",
                    name=pending.name,
                    arguments=args,
                    arguments_error=error,
                )
            )
        content = "".join(self.content)
        if self.usage is not None:
            check_usage(self.usage)
        usage = self.usage or estimate_usage(request, len(content) + completion_chars)
        return Reply(
            content=content,
            tool_calls=tuple(calls),
            usage=usage,
            finish_reason=self.finish_reason,
            model=self.model or fallback_model,
        )


def estimate_usage(request: Request, completion_chars: int) -> Usage:
    """The harness's own count (4 chars per token), marked as an estimate."""
    prompt = estimate_tokens(request_chars(request))
    completion = estimate_tokens(completion_chars)
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        estimated=True,
    )


def as_int(value: object) -> int | None:
    """An integer token count from JSON, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


__all__ = [
    "CUT_OFF",
    "MAX_ARGUMENT_DEPTH",
    "MAX_REPORTED_TOKENS",
    "PendingCall",
    "ReplyBuilder",
    "ReplySink",
    "TextSink",
    "as_int",
    "check_usage",
    "estimate_usage",
    "nesting_depth",
    "parse_arguments",
    "request_chars",
    "text_sink",
]
