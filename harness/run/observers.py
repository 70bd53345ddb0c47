"""The approver a run's gate asks through (``WatchedApprover``): it tells the run's
observers what was asked about which call (the request names it: ``step``, ``call_id``)
and what was answered, whoever answered — a dialog, the editor's ``harness/approve``, the
terminal or ``--yes``."""

from __future__ import annotations

import asyncio

from harness.report import RunInfo, RunObserver
from harness.types import Approval, ApprovalRequest, Approver

VERIFY_CALL = "verify"  # the call id of the verification's approvals and events


class WatchedApprover(RunObserver):
    """``approver`` as the gate asks it, each question and answer told to ``report_to``.
    Observing the run (put it among the run's observers), it knows the run's ``RunInfo``."""

    def __init__(self, approver: Approver, report_to: RunObserver | None = None) -> None:
        self.approver = approver
        self.report_to = report_to or RunObserver()
        self.run: RunInfo | None = None

    def run_started(self, run: RunInfo) -> None:
        self.run = run

    async def __call__(self, request: ApprovalRequest) -> Approval:
        run, step, call_id = self.run, request.step, request.call_id
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


__all__ = ["VERIFY_CALL", "WatchedApprover"]
