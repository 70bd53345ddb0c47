"""What a run reports to whoever drives it: the run's fixed facts (``RunInfo``), per-step
summaries, the result, and the observer hooks a terminal or the language server implements.

Observers get a ``RunInfo`` — a frozen value — never the ``Run`` itself: a host reads what
it is told and cannot reach into the loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from harness.camel import camel_json, json_flat
from harness.types import (
    Approval,
    ApprovalRequest,
    Attempt,
    ContextCounts,
    NoticeKind,
    PolicyEvent,
    Reply,
    Request,
    RunEnd,
    ToolCall,
    ToolResult,
)

if TYPE_CHECKING:
    from harness.contract import TaskContract


@dataclass(frozen=True)
class RunInfo:
    """The facts of one run that do not change while it runs."""

    run_id: int
    goal: str
    root: Path
    max_steps: int
    token_budget: int
    conversation_id: int | None = None  # the conversation's first run (§11); None: its own
    turn: int = 1
    mode: str = "code"  # "plan": only the read tools (issue 33)

    @classmethod
    def of(
        cls, run_id: int, contract: TaskContract, conversation_id: int | None = None, turn: int = 1
    ) -> RunInfo:
        return cls(
            run_id,
            contract.goal,
            contract.root,
            contract.max_steps,
            contract.token_budget,
            run_id if conversation_id is None else conversation_id,
            turn,
            contract.mode,
        )


@dataclass(frozen=True)
class StepSummary:
    """What a client shows after each step (the ``harness/budget`` notification, §7)."""

    run_id: int
    step: int
    max_steps: int
    spent_tokens: int
    token_budget: int
    request_tokens: int
    context_ceiling: int
    reported_prompt_tokens: int | None
    counts: ContextCounts  # not in the notification: for a terminal's step line
    cached_prompt_tokens: int | None = None  # the provider's reported cache reads
    prefix_chars: int = 0  # characters shared from the start with the previous request
    # The run's dollars so far (None: the model has no price, or a call reported no usage),
    # and the part of them paid for prompt tokens read from the provider's cache (§11).
    cost_usd: float | None = None
    cached_cost_usd: float | None = None
    # The run's requests so far, cache-priced, over what appending every result would have
    # cost (harness.context.append_meter); None: not measured (the baseline assembly).
    context_vs_append: float | None = None

    def to_json(self) -> dict[str, Any]:
        """Exactly the §7 ``harness/budget`` object."""
        return camel_json(self, leave_out=("counts",))


def refusal_of(result: ToolResult) -> PolicyEvent | None:
    """The policy event that stopped the call, if one did (the last refusal recorded)."""
    return next((p for p in reversed(result.policy) if not p.allowed), None)


CallStatus = Literal["ok", "refused", "denied", "failed"]


def call_status(result: ToolResult) -> CallStatus:
    """How a call went (§11 ``toolResult``): ``denied`` by the user at an approval;
    ``refused`` by the policy, the containment, the editor (unsaved changes) or for want of
    an approver; ``failed`` as a tool (an error, a command's non-zero exit); else ``ok``."""
    refusal = refusal_of(result)
    if refusal is not None and refusal.approval is Approval.DENY:
        return "denied"
    unsaved = any(n.kind is NoticeKind.UNSAVED_REFUSED for n in result.notices)
    if refusal is not None or unsaved:
        return "refused"
    if not result.ok or result.exit_code not in (None, 0):
        return "failed"
    return "ok"


@dataclass(frozen=True)
class CallCounts:
    """The model's tool calls that did not go through (§8.1): ``refused`` by the policy, the
    containment, the editor (unsaved changes) or for want of an approver; ``denied`` by the
    user at an approval; ``failed`` as tools (an error, a command's non-zero exit)."""

    refused: int = 0
    denied: int = 0
    failed: int = 0

    def counted(self, result: ToolResult) -> CallCounts:
        """These counts with one more call, ``result``, counted."""
        status = call_status(result)
        return CallCounts(
            self.refused + (status == "refused"),
            self.denied + (status == "denied"),
            self.failed + (status == "failed"),
        )


@dataclass(frozen=True)
class RunResult:
    """How a run ended (§8.1). ``summary`` is the model's last words (None when its last
    reply said nothing); ``files_changed`` the workspace-relative paths it wrote, in
    first-write order; ``cost_usd`` the run's dollars (None: not known, §11); ``calls`` the
    calls refused, denied and failed. ``end.error`` is for the host's log and message, not
    part of the JSON."""

    run_id: int
    end: RunEnd = field(metadata=json_flat())
    cost_usd: float | None = None
    summary: str | None = None
    files_changed: tuple[str, ...] = ()
    calls: CallCounts = field(default_factory=CallCounts, metadata=json_flat())
    conversation_id: int | None = None  # the conversation's first run (§11)
    turn: int = 1

    def to_json(self) -> dict[str, Any]:
        """Exactly the §8.1 run object."""
        return camel_json(self, leave_out=("error",))


class RunObserver:
    """Hooks for whoever drives a run (a terminal, the language server). All optional; a
    hook that raises is a fault in the host, and ends the run with that error recorded."""

    def run_started(self, run: RunInfo) -> None: ...

    def step_started(self, run: RunInfo, step: int) -> None: ...

    def model_asked(self, run: RunInfo, step: int, request: Request) -> None:
        """The request of the step is about to be sent (again, after a context overflow)."""

    def text_delta(self, run: RunInfo, step: int, delta: str) -> None:
        """A piece of the model's words as it arrived (a streaming provider; §11 ``text``).
        The pieces of a step join to its reply's words, unless an attempt failed after
        some arrived (its retry starts over)."""

    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        """The model answered: its words (``reply.content``) and the calls it asked for."""

    def attempt_made(self, run: RunInfo, step: int, attempt: Attempt) -> None:
        """One attempt at the model call ended; a failed one carries ``retry_in_s`` (None:
        the call gives up) and ``max_attempts`` (for "retry 2 of 3 after 429")."""

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None: ...

    def tool_finished(self, run: RunInfo, step: int, call: ToolCall, result: ToolResult) -> None:
        """A call ran (or was refused, or not run): ``result`` says how it went."""

    def approval_asked(self, run: RunInfo, step: int, call_id: str, ask: ApprovalRequest) -> None:
        """The policy asked whoever approves (a dialog, ``harness/approve``, the terminal,
        ``--yes``) about the call ``call_id`` (``verify`` for the verification)."""

    def approval_decided(
        self, run: RunInfo, step: int, call_id: str, ask: ApprovalRequest, decision: Approval
    ) -> None:
        """The answer to ``approval_asked`` (``unavailable``: nobody could answer)."""

    def file_refreshed(
        self, run: RunInfo, step: int, path: str, read_step: int, cause: str
    ) -> None:
        """A file the model read at ``read_step`` changed — ``cause``: ``a change on disk``
        (the user, the editor, git), ``the write at step 3``, ``the exec at step 2`` — and
        step ``step``'s request carries what changed (§3 rule 3)."""

    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        """The model stopped; the contract's verification command starts."""

    def verification_finished(self, run: RunInfo, step: int, result: ToolResult) -> None:
        """``result.ok``: it passed; ``result.exit_code`` None: the command never exited
        (refused, not started, timed out); its ``policy`` events say what refused it."""

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None: ...

    def file_written(self, run: RunInfo, path: Path) -> None: ...

    def user_warning(self, run: RunInfo, message: str) -> None: ...

    def user_steered(self, run: RunInfo, step: int, text: str) -> None:
        """The user's words sent while the run went on, added after step ``step``'s results."""

    def run_finished(self, run: RunInfo, result: RunResult) -> None: ...


class FanOut(RunObserver):
    """Several observers as one: each hook calls each of them, in order."""

    def __init__(self, observers: tuple[RunObserver, ...]) -> None:
        self.observers = observers


def _relay(name: str) -> Any:
    def hook(self: FanOut, *args: Any) -> None:
        for observer in self.observers:
            getattr(observer, name)(*args)

    hook.__name__ = name
    return hook


HOOKS = tuple(n for n in vars(RunObserver) if not n.startswith("_"))
for _name in HOOKS:  # every hook, including one added later: none is forgotten
    setattr(FanOut, _name, _relay(_name))


def fan_out(*observers: RunObserver | None) -> RunObserver:
    """One observer calling each of ``observers`` (Nones left out)."""
    present = tuple(o for o in observers if o is not None)
    if len(present) == 1:
        return present[0]
    return FanOut(present)


__all__ = [
    "CallCounts",
    "CallStatus",
    "FanOut",
    "RunInfo",
    "RunObserver",
    "RunResult",
    "StepSummary",
    "call_status",
    "camel_json",
    "fan_out",
    "refusal_of",
]
