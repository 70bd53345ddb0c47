"""Fixtures for the tool tests: a real workspace in tmp_path, a real policy and gate, and
``ToolEnv.call`` to dispatch a tool call the way the loop does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.policy import Gate, Policy, YesApprover
from harness.tools import all_tools, dispatch
from harness.tools.base import Tool, ToolContext
from harness.types import Approver, DocumentGuard, ToolCall, ToolResult
from harness.workspace import Workspace


@dataclass
class ToolEnv:
    root: Path
    workspace: Workspace
    ctx: ToolContext
    tools: dict[str, Tool]

    async def call(self, name: str, **arguments: Any) -> ToolResult:
        return await dispatch(ToolCall("call-1", name, arguments), self.tools, self.ctx)

    def write(self, rel: str, content: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path


MakeToolEnv = Callable[..., ToolEnv]


@pytest.fixture
def make_tool_env(tmp_path: Path) -> MakeToolEnv:
    def make(
        *,
        policy: Policy | None = None,
        approver: Approver | None = None,
        guard: DocumentGuard | None = None,
        read_limit: int = 12_000,
        env: dict[str, str] | None = None,
    ) -> ToolEnv:
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        workspace = Workspace(root)
        gate = Gate(policy or Policy(), approver or YesApprover(), run_id=1)
        ctx = ToolContext(
            workspace=workspace,
            gate=gate,
            run_id=1,
            step=1,
            read_limit_chars=read_limit,
            guard=guard,
            env=env or {},
        )
        return ToolEnv(workspace.root, workspace, ctx, all_tools())

    return make


@pytest.fixture
def tool_env(make_tool_env: MakeToolEnv) -> ToolEnv:
    return make_tool_env()
