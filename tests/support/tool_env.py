"""A real tool environment for tests outside ``tests/harness/tools``: a workspace in a
directory, a real policy and gate, and ``ToolEnv.call`` to dispatch a call the way the loop
does. (``tests/harness/tools/conftest.py`` wraps it in fixtures.)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.policy import Gate, Policy, YesApprover
from harness.tools import all_tools, dispatch
from harness.tools.base import Tool, ToolContext
from harness.types import Approver, DocumentGuard, ExecConfig, ToolCall, ToolResult
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


@dataclass
class WriteIntents:
    """A real ``before_write`` callback: records each announced write; raises when told to."""

    calls: list[tuple[str, bytes | None]] = field(default_factory=list)
    fail: bool = False

    def __call__(self, rel: str, before: bytes | None, after: bytes = b"") -> None:
        self.calls.append((rel, before))
        if self.fail:
            raise OSError("the store is read-only")


def make_tool_env(
    root: Path,
    *,
    policy: Policy | None = None,
    approver: Approver | None = None,
    guard: DocumentGuard | None = None,
    read_limit: int = 12_000,
    env: dict[str, str] | None = None,
    exec_config: ExecConfig | None = None,
    before_write: Callable[[str, bytes | None, bytes], None] | None = None,
) -> ToolEnv:
    root.mkdir(parents=True, exist_ok=True)
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
        exec_config=exec_config or ExecConfig(),
        before_write=before_write,
    )
    return ToolEnv(workspace.root, workspace, ctx, all_tools())
