"""Approvals in the editor (§6.3): a policy ``ask`` becomes ``window/showMessageRequest``
with the buttons Allow / Allow for this run / Deny.

No answer means the run waits — for as long as the user takes. Cancelling the run cancels
the wait (the ``CancelledError`` reaches the ``await`` here) and the client is told to drop
the dialog. A dismissed dialog is a Deny; a client that cannot show the request makes the
gate treat the approval as unavailable (the model is told so).
"""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol

from harness.types import Approval, ApprovalRequest
from server.rpc import ask_client

ALLOW = "Allow"
ALLOW_RUN = "Allow for this run"
DENY = "Deny"
ANSWERS = {ALLOW: Approval.ALLOW_ONCE, ALLOW_RUN: Approval.ALLOW_RUN, DENY: Approval.DENY}
MAX_TARGET_CHARS = 300


class LspApprover:
    """The ``Approver`` of a run hosted by the server."""

    def __init__(
        self, protocol: JsonRPCProtocol, waiting: Callable[[bool], None] | None = None
    ) -> None:
        self.protocol = protocol
        self.waiting = waiting  # told True while a dialog is open (for harness.status)

    async def __call__(self, request: ApprovalRequest) -> Approval:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=approval_message(request),
            actions=[types.MessageActionItem(title=title) for title in ANSWERS],
        )
        if self.waiting is not None:
            self.waiting(True)
        try:
            answer = await ask_client(self.protocol, types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        finally:
            if self.waiting is not None:
                self.waiting(False)
        title = getattr(answer, "title", None)
        return ANSWERS.get(title, Approval.DENY) if isinstance(title, str) else Approval.DENY


def approval_message(request: ApprovalRequest) -> str:
    target = request.target
    if len(target) > MAX_TARGET_CHARS:
        target = target[: MAX_TARGET_CHARS - 1] + "…"
    return (
        f"Harness run {request.run_id} wants to {request.act.value} `{target}` "
        f"({request.reason}). Allow it?"
    )


__all__ = ["ALLOW", "ALLOW_RUN", "ANSWERS", "DENY", "LspApprover", "approval_message"]
