"""What the provider tests share: tool schemas, a two-call turn, and one call to a provider
made for a fake server."""

from __future__ import annotations

from typing import Any

import pytest

from harness.provider import make_provider
from harness.types import Attempt, Reply, Request, ToolSchema
from tests.support.fake_llm import FakeLLM

READ = ToolSchema(
    "read_file",
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
GREP = ToolSchema("grep", "Search.", {"type": "object", "properties": {}})
TWO_CALLS = {
    "tool_calls": [
        {"name": "read_file", "arguments": {"path": "src/parser.py"}},
        {"name": "grep", "arguments": {"pattern": "def parse", "path_glob": "*.py"}},
    ]
}
STREAM = [pytest.param(False, id="whole"), pytest.param(True, id="stream")]


async def call_provider(
    fake: FakeLLM, *, stream: bool, request: Request, key: str | None = None, **config: Any
) -> tuple[Reply, list[Attempt]]:
    """One ``complete`` through a provider built for ``fake``; the reply and every attempt."""
    attempts: list[Attempt] = []

    def sink(attempt: Attempt) -> None:
        attempts.append(attempt)

    provider = make_provider(fake.config(stream=stream, **config), key)
    try:
        reply = await provider.complete(request, sink)
    finally:
        await provider.aclose()
    return reply, attempts
