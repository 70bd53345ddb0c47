"""Several observers of one run (``Observers``: each hook to each, in order), and the
approver a run's gate asks through (``WatchedApprover``): it tells the observers what was
asked about which call and what was answered, whoever answered — a dialog, the editor's
``harness/approve``, the terminal or ``--yes``."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness.report import RunInfo, RunObserver, RunResult, StepSummary
from harness.types import (
    Approval,
    ApprovalRequest,
    Approver,
    Attempt,
    Reply,
    ToolCall,
    ToolResult,
)

VERIFY_CALL = "verify"  # the call id of the verification's approvals and events


class Observers(RunObserver):
    """Every hook to each observer in turn; one that raises stops the rest (a host fault)."""

    def __init__(self, *observers: RunObserver | None) -> None:
        self.observers = [o for o in observers if o is not None]

    def run_started(self, run: RunInfo) -> None:
        for o in self.observers:
            o.run_started(run)

    def step_started(self, run: RunInfo, step: int) -> None:
        for o in self.observers:
            o.step_started(run, step)

    def text_delta(self, run: RunInfo, step: int, delta: str) -> None:
        for o in self.observers:
            o.text_delta(run, step, delta)

    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        for o in self.observers:
            o.model_replied(run, step, reply)

    def attempt_made(self, run: RunInfo, step: int, attempt: Attempt) -> None:
        for o in self.observers:
            o.attempt_made(run, step, attempt)

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        for o in self.observers:
            o.tool_started(run, step, call, label)

    def tool_finished(self, run: RunInfo, step: int, call: ToolCall, result: ToolResult) -> None:
        for o in self.observers:
            o.tool_finished(run, step, call, result)

    def approval_asked(self, run: RunInfo, step: int, call_id: str, ask: ApprovalRequest) -> None:
        for o in self.observers:
            o.approval_asked(run, step, call_id, ask)

    def approval_decided(
        self, run: RunInfo, step: int, call_id: str, ask: ApprovalRequest, decision: Approval
    ) -> None:
        for o in self.observers:
            o.approval_decided(run, step, call_id, ask, decision)

    def file_refreshed(
        self, run: RunInfo, step: int, path: str, read_step: int, cause: str
    ) -> None:
        for o in self.observers:
            o.file_refreshed(run, step, path, read_step, cause)

    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        for o in self.observers:
            o.verification_started(run, step, command)

    def verification_finished(self, run: RunInfo, step: int, result: ToolResult) -> None:
        for o in self.observers:
            o.verification_finished(run, step, result)

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        for o in self.observers:
            o.step_finished(run, summary)

    def file_written(self, run: RunInfo, path: Path) -> None:
        for o in self.observers:
            o.file_written(run, path)

    def user_warning(self, run: RunInfo, message: str) -> None:
        for o in self.observers:
            o.user_warning(run, message)

    def run_finished(self, run: RunInfo, result: RunResult) -> None:
        for o in self.observers:
            o.run_finished(run, result)


class WatchedApprover(RunObserver):
    """``approver`` as the gate asks it, each question and answer told to ``report_to``.
    Observing the run itself (put it among the run's observers), it knows the call being
    made: the approvals of a call are asked while it runs, one call at a time."""

    def __init__(self, approver: Approver, report_to: RunObserver | None = None) -> None:
        self.approver = approver
        self.report_to = report_to or RunObserver()
        self.run: RunInfo | None = None
        self.step = 0
        self.call_id = ""

    def run_started(self, run: RunInfo) -> None:
        self.run = run

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        self.step, self.call_id = step, call.id

    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        self.step, self.call_id = step, VERIFY_CALL

    async def __call__(self, request: ApprovalRequest) -> Approval:
        run, step, call_id = self.run, self.step, self.call_id
        if run is not None:
            self.report_to.approval_asked(run, step, call_id, request)
        try:
            answer = await self.approver(request)
        except asyncio.CancelledError:
            raise
        except Exception:  # the gate takes a broken approver as nobody to ask
            answer = Approval.UNAVAILABLE
            if run is not None:
                self.report_to.approval_decided(run, step, call_id, request, answer)
            raise
        if run is not None:
            self.report_to.approval_decided(run, step, call_id, request, answer)
        return answer


__all__ = ["VERIFY_CALL", "Observers", "WatchedApprover"]
