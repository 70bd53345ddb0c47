"""Fixtures for the semantic tests: a real tool environment whose ``ctx.semantic`` is the
real headless back end (jedi-language-server, or a misbehaving server of ours)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from harness.semantic.config import LanguageServer, SemanticConfig, parse_semantic
from langservers import HeadlessSemantics
from tests.support.tool_env import ToolEnv, make_tool_env

FAKE = str(Path(__file__).resolve().parent.parent / "support" / "fake_langserver.py")


def fake_server(mode: str, timeout_ms: int = 30_000, *more: str) -> SemanticConfig:
    spec = LanguageServer("fake", (sys.executable, FAKE, mode, *more), (".fake",))
    return SemanticConfig((spec,), timeout_ms=timeout_ms)


@pytest.fixture
async def semantic_env(tmp_path: Path) -> AsyncIterator[Callable[..., ToolEnv]]:
    opened: list[HeadlessSemantics] = []

    def make(
        config: SemanticConfig | None = None, environ: dict[str, str] | None = None, **options: Any
    ) -> ToolEnv:
        env = make_tool_env(tmp_path / "ws", **options)
        chosen = config or parse_semantic({}, "test")
        port = HeadlessSemantics(env.root, chosen, os.environ if environ is None else environ)
        opened.append(port)
        env.ctx.semantic = port
        env.tools = {**env.tools, **_semantic_tools()}
        return env

    yield make
    for port in opened:
        await port.close()


def _semantic_tools() -> dict[str, Any]:
    from harness.tools import all_tools

    return all_tools(semantic=True)
