"""A scripted model: a JSON file of turns, for the demo and tests (no network, no key).

File format: ``{"model": "scripted", "turns": [...]}`` or a bare list of turns. A turn is
``{"tool_calls": [{"name": ..., "arguments": {...}}]}`` or ``{"content": "..."}``, with an
optional ``"delay_s"``. When the turns run out the model answers with no tool calls, which
ends the run. Usage is the harness's own estimate (4 chars per token), marked as such.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.provider.wire import text_sink
from harness.tokens import estimate_tokens
from harness.types import Attempt, AttemptSink, Reply, Request, ToolCall, Usage


class ScriptedProvider:
    name = "scripted"

    def __init__(
        self,
        turns: Sequence[Mapping[str, Any]],
        *,
        model: str = "scripted",
        before_turn: Callable[[int], None] | None = None,
    ) -> None:
        self.model = model
        self._turns = [_check_turn(i, t) for i, t in enumerate(turns)]
        self._next = 0
        self._before_turn = before_turn
        self.requests: list[Request] = []

    @classmethod
    def from_file(cls, path: Path | str, **kwargs: Any) -> ScriptedProvider:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the script {path}: {exc}") from exc
        if isinstance(data, dict):
            turns = data.get("turns")
            kwargs.setdefault("model", str(data.get("model", "scripted")))
        else:
            turns = data
        if not isinstance(turns, list):
            raise ConfigError(f"script {path}: expected a list of turns or {{'turns': [...]}}")
        return cls(turns, **kwargs)

    async def complete(self, request: Request, on_attempt: AttemptSink) -> Reply:
        index = self._next
        self._next += 1
        self.requests.append(request)
        if self._before_turn is not None:
            self._before_turn(index)
        started = time.perf_counter()
        turn: Mapping[str, Any] = self._turns[index] if index < len(self._turns) else {}
        delay = float(turn.get("delay_s", 0) or 0)
        if delay > 0:
            await asyncio.sleep(delay)
        calls = tuple(
            ToolCall(id=f"call_{index}_{n}", name=str(c["name"]), arguments=c.get("arguments", {}))
            for n, c in enumerate(turn.get("tool_calls", []))
        )
        content = str(turn.get("content", ""))
        _stream_words(content, on_attempt)
        tools = json.dumps([dict(t.parameters) for t in request.tools]) if request.tools else ""
        prompt = estimate_tokens(request.chars + len(tools))
        completion = estimate_tokens(len(json.dumps(turn)))
        usage = Usage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            estimated=True,
        )
        finish = "tool_calls" if calls else "stop"
        on_attempt(
            Attempt(
                provider=self.name,
                model=self.model,
                attempt=1,
                latency_ms=(time.perf_counter() - started) * 1000,
                usage=usage,
                finish_reason=finish,
            )
        )
        return Reply(
            content=content, tool_calls=calls, usage=usage, finish_reason=finish, model=self.model
        )

    async def aclose(self) -> None:
        return None


def _stream_words(content: str, on_attempt: AttemptSink) -> None:
    """The words to a listening sink a word at a time, as a streaming model sends them."""
    words = text_sink(on_attempt)
    if words is not None:
        for piece in re.findall(r"\S+\s*|\s+", content):
            words(piece)


def _check_turn(index: int, turn: object) -> Mapping[str, Any]:
    if not isinstance(turn, Mapping):
        raise ConfigError(f"script turn {index}: expected an object")
    calls = turn.get("tool_calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, Mapping) and isinstance(c.get("name"), str) for c in calls
    ):
        raise ConfigError(f"script turn {index}: tool_calls must be a list of {{name, arguments}}")
    for c in calls:
        if not isinstance(c.get("arguments", {}), Mapping):
            raise ConfigError(f"script turn {index}: arguments of {c['name']} must be an object")
    return turn
