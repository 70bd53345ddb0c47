"""Several observers of one run (``Observers``: each hook to each, in order), and the
approver a run's gate asks through (``WatchedApprover``): it tells the observers what was
asked about which call and what was answered, whoever answered — a dialog, the editor's
``harness/approve``, the terminal or ``--yes``."""

from __future__ import annotations

import asyncio

from harness.report import FanOut, RunInfo, RunObserver
from harness.types import (
    Approval,
    ApprovalRequest,
    Approver,
    ToolCall,
)

VERIFY_CALL = "verify"  # the call id of the verification's approvals and events


class Observers(FanOut):
    """Every hook to each observer in turn (Nones left out); one that raises stops the rest
    (a host fault)."""

    def __init__(self, *observers: RunObserver | None) -> None:
        super().__init__(tuple(o for o in observers if o is not None))


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
