"""Fixtures for the tool tests: a real workspace in tmp_path, a real policy and gate, and
``ToolEnv.call`` to dispatch a tool call the way the loop does (tests/support/tool_env.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.tool_env import ToolEnv, make_tool_env

MakeToolEnv = Callable[..., ToolEnv]

__all__ = ["MakeToolEnv", "ToolEnv"]


@pytest.fixture(name="make_tool_env")
def make_tool_env_fixture(tmp_path: Path) -> MakeToolEnv:
    def make(**options: Any) -> ToolEnv:
        return make_tool_env(tmp_path / "ws", **options)

    return make


@pytest.fixture
def tool_env(make_tool_env: MakeToolEnv) -> ToolEnv:
    return make_tool_env()
