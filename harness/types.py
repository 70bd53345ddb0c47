"""Value types that cross module boundaries: acts and verdicts, tool calls and results,
provider requests and replies, trace events. Frozen dataclasses; no behaviour beyond
small derived properties."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


class Act(StrEnum):
    READ = "read"
    WRITE = "write"
    EXEC = "exec"


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


class Approver(Protocol):
    async def __call__(self, request: ApprovalRequest) -> Approval: ...


class DocumentGuard(Protocol):
    """What the editor knows about files: unsaved buffers are the user's (§6.5)."""

    def has_unsaved_changes(self, rel_path: str) -> bool: ...


@dataclass(frozen=True)
class PolicyEvent:
    """One policy decision worth recording (a refusal, an ask and its answer)."""

    act: Act
    target: str
    effect: Effect
    rule: str | None  # the glob of the deciding rule, None for the per-act default
    layer: str  # "builtin", "workspace", "user", "editor", "default", "containment"
    allowed: bool
    detail: str = ""


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
    """What a read showed the model: the file, the range, and the hash of the whole file."""

    path: str
    offset: int | None
    limit: int | None
    content_hash: str

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


@dataclass(frozen=True)
class Request:
    """One model request: always ``[system, user]`` plus tool schemas (§3)."""

    system: str
    user: str
    tools: tuple[ToolSchema, ...] = ()

    def messages(self) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user},
        ]

    @property
    def chars(self) -> int:
        return len(self.system) + len(self.user)


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


class AttemptSink(Protocol):
    def __call__(self, attempt: Attempt) -> None: ...


class Provider(Protocol):
    """A model. ``complete`` retries internally and reports every attempt to ``on_attempt``;
    it raises ``ProviderError`` (or ``ContextOverflowError``) when it gives up."""

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

    @property
    def ok(self) -> bool:
        return self in (Outcome.SUCCESS, Outcome.FINISHED)
