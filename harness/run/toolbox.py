"""What a run's tool calls run against: the tools, the workspace, the policy gate, the
editor's guard, memory and the exec environment — and the rules of a turn's calls: at most
``MAX_CALLS_PER_TURN`` run (§6.1), each labelled in the words of result headers, the
files a command changed on disk noted in the ledger (§3.3), and a command that changed a
file the editor holds unsaved reported to the user at once (a ``Notice``, §6.5).

The session builds one ``Toolbox`` per run; the loop asks it for each step's
``ToolContext`` (``context``): the one place that decides what a call may touch, so the
sandbox settings and the hook that announces a write to the store before it happens are
given to tools here too.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.contract import RunMode
from harness.ledger import Cause, Ledger
from harness.tools import all_tools, dispatch, tool_schemas
from harness.tools.base import (
    EditorWriter,
    Tool,
    ToolContext,
    declaration,
    failure,
    header,
    label_of,
)
from harness.types import (
    Act,
    DocumentGuard,
    Effect,
    ExecConfig,
    Notice,
    NoticeKind,
    PolicyEvent,
    ToolCall,
    ToolResult,
    ToolSchema,
)

if TYPE_CHECKING:
    from harness.memory import RunMemory
    from harness.policy import Gate
    from harness.run.instructions import FolderInstructions
    from harness.semantic import SemanticPort
    from harness.workspace import Workspace

# What a plan-mode run is offered (issue 33): the tools that only read, those of them that
# exist (the §14 semantic tools by name, once they are registered). Every other call is
# refused here, whatever the prompt said.
PLAN_TOOLS = frozenset(
    {"read_file", "grep", "find", "list_dir", "remember", "symbols", "references", "diagnostics"}
)

MAX_CALLS_PER_TURN = 32  # §6.1: the rest of a turn's calls are answered "not run"
MAX_LABEL_CHARS = 200

# (run_id, step, path, bytes before or None, bytes after): ``Store.announce_write``.
Announce = Callable[[int, int, str, bytes | None, bytes], None]


@dataclass
class Toolbox:
    """The tools of one run and everything they may touch."""

    workspace: Workspace
    gate: Gate
    tools: Mapping[str, Tool]
    env: Mapping[str, str]  # the exec environment, keys scrubbed
    guard: DocumentGuard | None = None
    memory: RunMemory | None = None
    exec_config: ExecConfig = field(default_factory=ExecConfig)  # the policy's [exec] table
    announce: Announce | None = None  # commits an intent row before every write (§5)
    instructions: FolderInstructions | None = None  # the folders' AGENTS.md, appended (§12)
    # What the user is told once, when the run starts: ignored policy rules, no sandbox.
    warnings: tuple[str, ...] = ()
    semantic: SemanticPort | None = None  # the run's language servers (§14)
    mode: RunMode = "code"  # "plan": only ``PLAN_TOOLS`` are offered and run
    writer: EditorWriter | None = None  # the editor that makes the writes (ACP), else disk
    schemas: tuple[ToolSchema, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.offer(self.mode)

    def offer(self, mode: RunMode) -> None:
        """Offer every tool (``code``) or only ``PLAN_TOOLS`` (``plan``)."""
        self.mode = mode
        offered = {n: t for n, t in self.tools.items() if mode == "code" or n in PLAN_TOOLS}
        self.schemas = tool_schemas(offered)

    def with_semantic(self, port: SemanticPort | None) -> Toolbox:
        """This toolbox with the semantic tools of §14 answered by ``port`` (None: as is)."""
        if port is None:
            return self
        tools = {**self.tools, **all_tools(semantic=True)}
        return dataclasses.replace(self, tools=tools, semantic=port)

    def context(self, run_id: int, step: int, read_limit_chars: int) -> ToolContext:
        return ToolContext(
            workspace=self.workspace,
            gate=self.gate,
            run_id=run_id,
            step=step,
            read_limit_chars=read_limit_chars,
            guard=self.guard,
            memory=self.memory,
            env=self.env,
            exec_config=self.exec_config,
            before_write=(
                functools.partial(self.announce, run_id, step) if self.announce else None
            ),
            semantic=self.semantic,
            writer=self.writer,
        )

    async def call(self, call: ToolCall, ctx: ToolContext, ledger: Ledger) -> ToolResult:
        """Run one call (never raises but for cancellation). After a command, every file
        the run knows that changed on disk is noted as changed by that exec, and every file
        the editor holds unsaved that it changed is a notice for the user."""
        if self.mode != "code" and call.name not in PLAN_TOOLS:
            return plan_refusal(call, self.mode)
        is_exec = call.name == "exec"
        before = ledger.known_paths() if is_exec else None
        unsaved = self._unsaved_hashes() if is_exec else {}
        ctx = dataclasses.replace(ctx, gate=ctx.gate.at(ctx.step, call.id))  # its approvals'
        result = await dispatch(call, self.tools, ctx)
        if before is not None:
            for path, old in before.items():
                new = self.workspace.hash_of(path)
                if new != old:
                    ledger.note_change(path, Cause.EXEC, ctx.step, new)
        return self._unsaved_changed(result, unsaved) if unsaved else result

    def _unsaved_hashes(self) -> dict[str, str | None]:
        """The content hash of each file the editor holds unsaved (None: not readable)."""
        if self.guard is None:
            return {}
        return {path: self.workspace.hash_of(path) for path in self.guard.unsaved_paths()}

    def _unsaved_changed(self, result: ToolResult, before: Mapping[str, str | None]) -> ToolResult:
        changed = [path for path, old in before.items() if self.workspace.hash_of(path) != old]
        if not changed:
            return result
        notices = tuple(
            Notice(
                NoticeKind.UNSAVED_CHANGED,
                path,
                f"A command the agent ran changed {path} on disk, which has unsaved changes "
                "in the editor: the buffer and the file now differ. Compare them before you "
                "save (saving keeps your version and discards the command's).",
            )
            for path in changed
        )
        notes = "".join(
            f"\nnote: this command changed {path} on disk, which has unsaved changes in the "
            "editor; the user has been told"
            for path in changed
        )
        return dataclasses.replace(
            result, text=result.text + notes, notices=result.notices + notices
        )

    def relative(self, raw: str | Path) -> str | None:
        """A changed path as the ledger names it; None when it is outside the workspace."""
        path = Path(raw)
        if not path.is_absolute():
            return str(raw)
        try:
            return self.workspace.relative(path)
        except ValueError:
            return None


def plan_refusal(call: ToolCall, mode: RunMode = "plan") -> ToolResult:
    """A call a plan-mode (or ask-mode) run is not offered: refused by the harness (a policy
    event of the ``plan`` layer, so the trace and the events say ``refused``)."""
    act = Act.EXEC if call.name == "exec" else Act.WRITE
    event = PolicyEvent(act, label(call), Effect.DENY, None, "plan", False, f"{mode} mode")
    then = (
        "Answer without calling a tool with your plan; the user carries it out in code mode"
        if mode == "plan"
        else "Answer the question from what you read; the user switches to code mode to change"
    )
    return failure(
        call.name,
        label(call),
        f"`{call.name}` is refused: this run is in {mode} mode and only reads. {then}",
        policy=(event,),
    )


def label(call: ToolCall) -> str:
    """``read src/a.py``: what a call is about, in the words of the result headers."""
    verb = label_of(call.name)
    subject = target_of(call)
    return f"{verb} {subject}"[:MAX_LABEL_CHARS] if subject else verb


def target_of(call: ToolCall) -> str:
    """The argument the tool declared as its target (``path``, ``pattern``, ``argv`` …)."""
    key = declaration(call.name).target
    value = call.arguments.get(key) if key is not None else None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return shlex.join(str(a) for a in value)
    return ""


def not_run(call: ToolCall, made: int) -> ToolResult:
    """The answer to a call past the per-turn limit: not run, and why (§6.1)."""
    target = target_of(call)[:MAX_LABEL_CHARS]
    return ToolResult(
        name=call.name,
        target=target,
        text=(
            f"{header(call.name, target)}\nerror: not run: this turn made {made:,} tool calls "
            f"and at most {MAX_CALLS_PER_TURN} run per turn; call it again in a later turn "
            "if you still need it"
        ),
        ok=False,
    )


__all__ = ["MAX_CALLS_PER_TURN", "PLAN_TOOLS", "Toolbox", "label", "not_run", "target_of"]
