"""What every tool shares: the context a call runs in, the ``Tool`` protocol, what each tool
class declares about its results (``Declaration``: label, target argument, supersession
subject — the one place these are named), and the result header format (``[read src/a.py]``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from harness.types import DocumentGuard, ExecConfig, PolicyEvent, ToolResult

if TYPE_CHECKING:
    from harness.policy import Gate
    from harness.workspace import Workspace

# What makes two results of one tool "one answer" (§3 rule 2): the same normalised path
# (a read also by its line range), or the same target text (a pattern and its glob).
Supersedes = Literal["path", "target"]


@dataclass(frozen=True)
class Declaration:
    """What a tool class declares about its results, once, on its class line: the label
    of its headers and stubs (``[read a.py]``), the argument that names its target, and
    what a later result must share with an earlier one to supersede it (None: never)."""

    label: str
    target: str | None = None
    supersedes: Supersedes | None = None


# Filled as tool classes are declared (``harness.tools`` imports them all); kinds that are
# no tool (``verify``) are labelled by their own name.
_DECLARED: dict[str, Declaration] = {}


def declaration(kind: str) -> Declaration:
    """What the tool ``kind`` declared (its own name as label if it is no tool). Import it
    from ``harness.tools``, which declares every tool before anyone asks."""
    return _DECLARED.get(kind) or Declaration(kind)


def label_of(kind: str) -> str:
    """How results of ``kind`` are labelled: ``read`` for ``read_file``."""
    return declaration(kind).label


def header(kind: str, target: str) -> str:
    """``[read src/a.py]``: the first line of a result and of its stub."""
    label = label_of(kind)
    return f"[{label} {target}]" if target else f"[{label}]"


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown fields are an error the model is told about."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass
class ToolContext:
    """Everything a tool call may touch. Built by the loop for each step."""

    workspace: Workspace
    gate: Gate
    run_id: int
    step: int
    read_limit_chars: int  # read_file refuses a whole file or range longer than this
    guard: DocumentGuard | None = None
    memory: Any = None  # harness.memory.RunMemory when memory is enabled
    env: Mapping[str, str] = field(default_factory=dict)  # exec environment, keys scrubbed
    exec_config: ExecConfig = field(default_factory=ExecConfig)  # sandbox and network (§6.6)
    # Called with (relative path, bytes before or None, bytes after) before a write touches
    # the disk; the store commits an intent row so a crash never leaves a write that revert
    # cannot undo (§5). If it raises, the write does not happen.
    before_write: Callable[[str, bytes | None, bytes], None] | None = None
    semantic: Any = None  # harness.semantic.SemanticPort: the run's language servers (§14)
    writer: EditorWriter | None = None  # the editor that makes the writes (ACP), else disk


class EditorWriter(Protocol):
    """An editor that makes the agent's writes itself (ACP's ``fs/write_text_file``): its
    buffers and its review of the changes follow them (§13). Every check and record of a
    write is the harness's, made first; only the last act — the bytes onto the file — is
    the editor's. Called on a worker thread; raises ``OSError`` when the editor did not."""

    def write_text(self, rel_path: str, text: str) -> None: ...


class Tool(Protocol):
    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[ToolArgs]]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult: ...


class BaseTool:
    """What a tool class declares on its class line: ``class ReadFile(BaseTool,
    name="read_file", args=ReadFileArgs, label="read", target="path", supersedes="path")``
    — its name, its arguments, and its ``Declaration`` (label, target argument, what makes
    two results one answer). Its docstring is its ``description``, the text the model
    reads (as in pydantic-ai or LangChain tools): one paragraph, its lines joined by single
    spaces, with ``{fact}`` fields filled from ``facts`` (the tool's limits, so the text
    cannot drift from the code)."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[ToolArgs]]

    def __init_subclass__(
        cls,
        *,
        name: str,
        args: type[ToolArgs],
        label: str | None = None,
        target: str | None = None,
        supersedes: Supersedes | None = None,
        facts: Mapping[str, object] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        _DECLARED[name] = Declaration(label or name, target, supersedes)
        if not cls.__doc__:
            # Only ``python -OO`` strips docstrings; the model must never get an empty text.
            raise RuntimeError(f"tool {name} has no description (is Python running with -OO?)")
        cls.name = name
        cls.Args = args
        cls.description = " ".join(inspect.cleandoc(cls.__doc__).split()).format_map(facts or {})


def failure(
    kind: str, target: str, message: str, *, policy: tuple[PolicyEvent, ...] = ()
) -> ToolResult:
    """A tool result that reports an error to the model (never an exception)."""
    return ToolResult(
        name=kind,
        target=target,
        text=f"{header(kind, target)}\nerror: {message}",
        ok=False,
        policy=policy,
    )
