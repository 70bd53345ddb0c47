"""Value types that cross module boundaries: acts and verdicts, tool calls and results,
provider requests and replies, trace events; frozen dataclasses, small derived properties."""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


class Act(StrEnum):
    READ = "read"
    WRITE = "write"
    EXEC = "exec"
    MCP = "mcp"  # a tool of an MCP server, target SERVER/TOOL (§15)


class Effect(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class Approval(StrEnum):
    """An approver's answer to an ``ask``."""

    ALLOW_ONCE = "allow"
    ALLOW_RUN = "allow_run"
    DENY = "deny"
    UNAVAILABLE = "unavailable"  # nobody to ask (no terminal, no --yes, no client)


@dataclass(frozen=True)
class ApprovalRequest:
    run_id: int
    act: Act
    target: str
    reason: str  # the rule that asked, in words
    # A write: the unified diff of the file before -> after (§6.3), not yet escaped.
    diff: str | None = None
    # An exec: the files this run has written so far (the command may run them).
    files_written: tuple[str, ...] = ()
    step: int = 0  # the tool call it approves (0 and "": none, e.g. an MCP server's start)
    call_id: str = ""


class Approver(Protocol):
    async def __call__(self, request: ApprovalRequest) -> Approval: ...


class DocumentGuard(Protocol):
    """What the editor knows about files: unsaved buffers are the user's (§6.5)."""

    def has_unsaved_changes(self, rel_path: str) -> bool: ...

    def unsaved_paths(self) -> tuple[str, ...]:
        """The workspace-relative paths of every file the editor holds unsaved."""
        ...


@dataclass(frozen=True)
class PolicyEvent:
    """One policy decision worth recording: a refusal, an ask and its answer, an exec that
    went ahead (§6.3: allowed execs are in the trace too)."""

    act: Act
    target: str
    effect: Effect
    rule: str | None  # the glob of the deciding rule, None for the per-act default
    layer: str  # "builtin", "workspace", "user", "editor", "default", "containment"
    allowed: bool
    detail: str = ""
    approval: Approval | None = None  # the approver's answer, when the act was asked


@dataclass(frozen=True)
class TraceEvent:
    """A context or memory event for the ``context_events`` table."""

    kind: str
    detail: Mapping[str, Any] = field(default_factory=dict)


def normalize_path(path: str) -> str:
    """Workspace-relative POSIX form used as an observation subject: ``./a.py`` is ``a.py``."""
    p = path.replace("\\", "/").strip()
    if not p:
        return "."
    p = posixpath.normpath(p)
    while p.startswith("./"):
        p = p[2:]
    return p


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ToolCall:
    """A call the model asked for. ``arguments_error`` is set when the provider's arguments
    were not a JSON object; the loop turns that into an observation."""

    id: str
    name: str
    arguments: Mapping[str, Any]
    arguments_error: str | None = None


@dataclass(frozen=True)
class ToolSchema:
    name: str
    description: str
    parameters: Mapping[str, Any]  # JSON schema of the arguments object


@dataclass(frozen=True)
class ReadSpan:
    """What a read showed the model: the file, the lines shown (``offset``/``limit`` as
    shown, not as asked: a read cut at the cap records the lines that fit; both None for a
    whole file), the hash of the whole file, and the hash of the text shown (without any
    marker), so a range's staleness can be decided by its own text."""

    path: str
    offset: int | None
    limit: int | None
    content_hash: str
    shown_hash: str | None = None

    @property
    def whole(self) -> bool:
        return self.offset is None and self.limit is None


@dataclass(frozen=True)
class FileWrite:
    """A file the agent wrote: bytes before (None for a new file) and after."""

    path: str
    before: bytes | None
    after: bytes

    @property
    def after_hash(self) -> str:
        return content_hash(self.after)


class NoticeKind(StrEnum):
    UNSAVED_REFUSED = "unsaved_refused"  # a write refused: the editor holds unsaved changes
    UNSAVED_CHANGED = "unsaved_changed"  # a command changed on disk a file dirty in the editor
    MCP_TOOLS_CHANGED = "mcp_tools_changed"  # an MCP server's tools changed mid-run (§15)


@dataclass(frozen=True)
class Notice:
    """Something the user must hear at once, not only the model (§6.5)."""

    kind: NoticeKind
    path: str  # workspace-relative ("" when about no file)
    message: str


class SandboxMode(StrEnum):
    AUTO = "auto"  # bubblewrap when installed, else run unsandboxed and say so once
    REQUIRED = "required"  # refuse to run commands without a sandbox
    OFF = "off"  # never sandbox (only the user's own config may choose this)


@dataclass(frozen=True)
class ExecConfig:
    """How ``exec`` runs commands (§6.6): the ``[exec]`` table of the policy."""

    sandbox: SandboxMode = SandboxMode.AUTO
    network: bool = True


@dataclass(frozen=True)
class ToolResult:
    """One tool's outcome. ``text`` is the full result the model would see uncapped; it
    begins with a header line such as ``[read src/a.py]``."""

    name: str
    target: str
    text: str
    ok: bool = True
    read: ReadSpan | None = None
    writes: tuple[FileWrite, ...] = ()
    policy: tuple[PolicyEvent, ...] = ()
    events: tuple[TraceEvent, ...] = ()
    exit_code: int | None = None  # exec: the program's exit status (None: it did not exit)
    notices: tuple[Notice, ...] = ()  # what the user must be told at once (§6.5)


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


PART_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Message:
    """One message after the system prompt.

    A user message's ``parts`` are its text blocks in order (the frame, the memory block,
    observation entries); an assistant message holds the model's words (``parts``, possibly
    none) and its ``tool_calls``; a tool message answers the call ``tool_call_id`` with its
    ``parts``. A wire joins the parts with ``PART_SEPARATOR`` or sends them as blocks.
    """

    role: Role
    parts: tuple[str, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    @property
    def text(self) -> str:
        return PART_SEPARATOR.join(self.parts)

    def texts(self) -> list[str]:
        """The message's texts in order: its parts, then each tool call's arguments."""
        return [*self.parts, *(arguments_text(c) for c in self.tool_calls)]


def arguments_text(call: ToolCall) -> str:
    """A tool call's arguments as sent on the wire: one JSON object, keys in the model's order."""
    return json.dumps(dict(call.arguments), ensure_ascii=False)


@dataclass(frozen=True)
class Request:
    """One model request (§3): the system prompt, the messages, then the ``trailer`` — the
    only text that changes every turn — sent last (as the last text of the last user turn),
    plus the tool schemas. ``Request.flat`` is the ``[system, user]`` form."""

    system: str
    messages: tuple[Message, ...] = ()
    trailer: str = ""
    tools: tuple[ToolSchema, ...] = ()

    @classmethod
    def flat(
        cls,
        system: str,
        parts: tuple[str, ...] | list[str],
        trailer: str = "",
        tools: tuple[ToolSchema, ...] = (),
    ) -> Request:
        return cls(system, (Message(Role.USER, tuple(parts)),), trailer, tools)

    def texts(self) -> list[str]:
        """Every text of the request in wire order (role markers and call ids excluded):
        what a shared prefix is measured over."""
        out = [self.system] if self.system else []
        for message in self.messages:
            out += message.texts()
        if self.trailer:
            out.append(self.trailer)
        return out

    @property
    def chars(self) -> int:
        return sum(len(t) for t in self.texts())

    @property
    def user(self) -> str:
        """Everything after the system prompt as one string (for the flat form: exactly the
        user message as sent)."""
        return PART_SEPARATOR.join(t for t in self.texts()[1 if self.system else 0 :])

    def messages_json(self) -> list[dict[str, Any]]:
        """The request as the trace stores it: role and content per message, the trailer
        joined to the last user message (or its own user message after tool answers)."""
        out: list[dict[str, Any]] = [{"role": "system", "content": self.system}]
        for m in self.messages:
            item: dict[str, Any] = {"role": m.role.value, "content": m.text}
            if m.tool_calls:
                item["toolCalls"] = [
                    {"id": c.id, "name": c.name, "arguments": dict(c.arguments)}
                    for c in m.tool_calls
                ]
            if m.tool_call_id is not None:
                item["toolCallId"] = m.tool_call_id
            out.append(item)
        if self.trailer:
            last = out[-1]
            if last["role"] == "user" and len(out) > 1:
                last["content"] = (
                    f"{last['content']}{PART_SEPARATOR}{self.trailer}"
                    if last["content"]
                    else self.trailer
                )
            else:
                out.append({"role": "user", "content": self.trailer})
        return out


@dataclass(frozen=True)
class Usage:
    """Token counts as the provider reported them (``estimated`` when it did not)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    estimated: bool = False


@dataclass(frozen=True)
class ContextCounts:
    """What one request carried (§3, §8.1): ledger entries in full (``carried``), entries
    stubbed, stale reads re-read, memory notes recalled."""

    carried: int = 0
    stubbed: int = 0
    reread: int = 0
    recalled: int = 0


@dataclass(frozen=True)
class Reply:
    content: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    finish_reason: str | None = None
    model: str = ""


@dataclass(frozen=True)
class Attempt:
    """One HTTP (or scripted) attempt at a model call, for ``provider_calls``."""

    provider: str
    model: str
    attempt: int
    latency_ms: float
    ttft_ms: float | None = None
    status: int | None = None
    usage: Usage | None = None
    finish_reason: str | None = None
    failure: str | None = None  # a FailureKind value
    error: str | None = None
    # For a host to show "retry 2 of 3 in 1.0 s after 429": the wait before the next attempt
    # (None: this attempt is the call's last), and the most attempts the call may make as
    # known after this one (lowered for timeouts and unreachable servers).
    retry_in_s: float | None = None
    max_attempts: int = 1


class AttemptSink(Protocol):
    def __call__(self, attempt: Attempt) -> None: ...


class Provider(Protocol):
    """A model. ``complete`` retries, reports every attempt (and to a ``wire.ReplySink`` the words
    as they arrive) to ``on_attempt``; raises ``ProviderError`` when it gives up."""

    name: str
    model: str

    async def complete(self, request: Request, on_attempt: AttemptSink) -> Reply: ...

    async def aclose(self) -> None: ...


class Outcome(StrEnum):
    """How a run ended (§8)."""

    SUCCESS = "success"
    FINISHED = "finished"
    STEP_CAP_REACHED = "step_cap_reached"
    BUDGET_EXHAUSTED = "budget_exhausted"
    CANCELLED = "cancelled"
    CONTEXT_OVERFLOW = "context_overflow"
    PROVIDER_ERROR = "provider_error"
    VERIFICATION_FAILED = "verification_failed"
    INTERRUPTED = "interrupted"  # the process running it died (set when a store is next opened)
    STORE_ERROR = "store_error"  # the store could not be written (a full disk): error says why

    @property
    def ok(self) -> bool:
        return self in (Outcome.SUCCESS, Outcome.FINISHED)


@dataclass(frozen=True)
class RunEnd:
    """How a run ended, as its row records it (§5): the outcome, the steps taken, the tokens
    spent, and what went wrong for the host's log (None: nothing)."""

    outcome: Outcome
    steps: int
    spent_tokens: int
    error: str | None = None
