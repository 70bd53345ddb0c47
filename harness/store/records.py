"""The values the trace is written from and read back as: a step's record, a run row, a
step row with the §8.1 counts, one step in full, an edit, and a run with its steps. The JSON
converters give the §8.1 shapes (camelCase on the wire)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.camel import camel_json
from harness.types import ContextCounts, FileWrite, PolicyEvent, TraceEvent, Usage


@dataclass(frozen=True)
class ObservationRecord:
    seq: int
    kind: str
    target: str
    ok: bool
    text: str
    content_hash: str | None = None  # of the whole file, for reads


@dataclass(frozen=True)
class StepRecord:
    """Everything one completed step leaves behind; written in one transaction."""

    run_id: int
    step: int
    decision: str
    content: str
    prompt: Sequence[Mapping[str, Any]]
    tool_calls: Sequence[Mapping[str, Any]]
    result: str
    effective_tokens: int
    est_tokens: int
    started_at: str
    spent_tokens: int
    usage: Usage = field(default_factory=Usage)  # the reply's (None counts: not reported)
    counts: ContextCounts = field(default_factory=ContextCounts)
    observations: Sequence[ObservationRecord] = ()
    events: Sequence[TraceEvent] = ()
    policy: Sequence[PolicyEvent] = ()
    edits: Sequence[FileWrite] = ()
    recalls: Sequence[tuple[str, str]] = field(default_factory=tuple)  # (scope, key)
    prefix_chars: int | None = None  # characters shared with the previous request (§8.1)
    context: str | None = None  # the run's context snapshot after the step (JSON), if kept


@dataclass(frozen=True)
class RunRow:
    run_id: int
    goal: str
    workspace: str
    provider: str
    model: str
    outcome: str | None
    steps: int
    spent_tokens: int
    started_at: str
    finished_at: str | None
    error: str | None
    conversation_id: int | None = None  # the conversation's first run (§11)
    turn: int = 1
    author: str | None = None  # who recorded it, ``user@host`` (None: before migration 8)
    mode: str = "code"  # "plan": a run offered only the read tools (issue 33)
    rewound: bool = False  # a checkpoint restore went back to before it (issue 33)

    def to_json(self) -> dict[str, Any]:
        return camel_json(self, leave_out=("provider", "model", "error", "author"))


@dataclass(frozen=True)
class ConversationRow:
    """One conversation of a workspace (``harness.conversations``): its first run's id and
    goal, how many runs it has, the last run's outcome, the tokens of all, and the times."""

    conversation_id: int
    goal: str
    runs: int
    last_outcome: str | None
    spent_tokens: int
    started_at: str
    finished_at: str | None
    last_run_id: int = 0  # its newest run: the ``before`` of the next page (issue 30)

    def to_json(self) -> dict[str, Any]:
        return camel_json(self)


@dataclass(frozen=True)
class StepRow:
    """One step as ``trace show`` lists it. ``refused`` counts the calls stopped by policy,
    containment, approval or unsaved editor changes; ``failed`` the calls whose result was an
    error for any other reason (see ``harness.store.steps.call_counts``)."""

    step: int
    decision: str
    tool_calls: list[dict[str, Any]]
    est_tokens: int
    reported_prompt_tokens: int | None
    effective_tokens: int
    counts: ContextCounts
    result_chars: int
    cached_prompt_tokens: int | None = None
    prefix_chars: int | None = None
    refused: int = 0
    failed: int = 0
    said: str | None = None  # the model's words that step; None when it said nothing

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "decision": self.decision,
            "toolCalls": self.tool_calls,
            "estTokens": self.est_tokens,
            "reportedPromptTokens": self.reported_prompt_tokens,
            "cachedPromptTokens": self.cached_prompt_tokens,
            "prefixChars": self.prefix_chars,
            "contextCeiling": self.effective_tokens,
            "carried": self.counts.carried,
            "stubbed": self.counts.stubbed,
            "reread": self.counts.reread,
            "recalled": self.counts.recalled,
            "refused": self.refused,
            "failed": self.failed,
            "resultChars": self.result_chars,
            "said": self.said,
        }


@dataclass(frozen=True)
class RunTrace:
    """A run and its steps, as ``trace show`` and ``harness.trace.run`` give them: the run
    object adds ``summary`` (the last step's words) and ``filesChanged`` (the paths the run
    wrote, in first-write order, relative to the workspace)."""

    run: RunRow
    steps: tuple[StepRow, ...]
    files_changed: tuple[str, ...]

    @property
    def summary(self) -> str | None:
        return self.steps[-1].said if self.steps else None

    def to_json(self) -> dict[str, Any]:
        run = {
            **self.run.to_json(),
            "summary": self.summary,
            "filesChanged": list(self.files_changed),
        }
        return {"run": run, "steps": [s.to_json() for s in self.steps]}


@dataclass(frozen=True)
class StepDetail:
    run_id: int
    step: int
    prompt: list[dict[str, Any]]
    result: str
    tool_calls: list[dict[str, Any]]
    events: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return camel_json(self)


@dataclass(frozen=True)
class EditRow:
    """One write of a run. ``committed`` is False for an intent whose step never committed
    (the process died between announcing the write and committing the step), or whose write
    the step did not report: the file may hold ``before`` or ``after``. ``new_dirs`` are the
    directories the write was to create (workspace-relative, outermost first)."""

    step: int
    path: str
    before: bytes | None
    after: bytes
    committed: bool = True
    new_dirs: tuple[str, ...] = ()
