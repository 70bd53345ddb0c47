"""``harness/approve`` (§7): the approval as a request for a client that draws it where the
conversation is — declared by the client with ``experimental: {harness: {approvals: true}}``
in ``initialize``.

    harness/approve {runId, step, callId, act, target, reason, command?, diff?, call?,
                     filesWritten, options}
        → {decision: "allow" | "allowRun" | "deny"}

Every text is shown as ``harness.policy.approval`` shows it (keys redacted, control
characters escaped, a newline as ``⏎``): ``target`` on one line, cut past a limit with a
count of what is hidden; ``command`` (an exec) whole, a line after each ``⏎``; ``diff`` (a
write) whole, a line per diff line; ``filesWritten`` the files this run wrote (an exec).

A null answer (dismissed) or one that is not a decision (``{decision: "yes"}``, a number)
is not an answer: it is logged and the question is asked again (``server.lsp.approvals``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from pygls.protocol import JsonRPCProtocol

from harness.types import Approval, ApprovalRequest
from server.lsp.wire.rpc import ask_client, wait_to_reask
from server.protocol.messages import APPROVE

log = logging.getLogger(__name__)

CAPABILITY = ("harness", "approvals")  # experimental.harness.approvals
DECISIONS = {"allow": Approval.ALLOW_ONCE, "allowRun": Approval.ALLOW_RUN, "deny": Approval.DENY}


@dataclass(frozen=True)
class InlineAsk:
    """Where the question goes, and how often a dismissed one is asked again."""

    protocol: JsonRPCProtocol
    reask_interval_s: float


def declares_inline(capabilities: Any) -> bool:
    """Whether the client's ``initialize`` capabilities hold ``experimental.harness.approvals``
    set to true (anything else, or nothing, is the ``showMessageRequest`` path)."""
    value: Any = getattr(capabilities, "experimental", None)
    for key in CAPABILITY:
        value = _field(value, key)
    return value is True


def _field(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return value.get(key)
    if hasattr(value, "_asdict"):  # pygls turns unknown JSON objects into namedtuples
        return value._asdict().get(key)
    return None


def approve_params(request: ApprovalRequest, limit: int) -> dict[str, Any]:
    """The ``harness/approve`` params of ``request``: the run, the one approval body every
    front shows (``harness.policy.approval.approval_body``: the call it approves, the act,
    target, why and detail), the options."""
    from harness.policy.approval import approval_body

    return {"runId": request.run_id, **approval_body(request, limit), "options": list(DECISIONS)}


def decision_of(answer: Any) -> Approval | None:
    """The user's decision, or None when ``answer`` is not one."""
    decision = _field(answer, "decision")
    return DECISIONS.get(decision) if isinstance(decision, str) else None


def _what(answer: Any) -> str:
    """What a bad answer was, without echoing the client's text."""
    if answer is None:
        return "null (dismissed)"
    if _field(answer, "decision") is not None:
        return "a decision that is not one of " + ", ".join(DECISIONS)
    return "no `decision`"


async def ask_inline(where: InlineAsk, request: ApprovalRequest, limit: int) -> Approval:
    """Ask until the client answers with a decision (or the run is cancelled)."""
    params = approve_params(request, limit)
    while True:
        sent = time.monotonic()
        answer = await ask_client(where.protocol, APPROVE, params)
        decision = decision_of(answer)
        if decision is not None:
            return decision
        level = logging.INFO if answer is None else logging.WARNING
        log.log(
            level,
            "run %d: %s answered %s, which is not an answer; asking again",
            request.run_id,
            APPROVE,
            _what(answer),
        )
        await wait_to_reask(sent, where.reask_interval_s)


__all__ = ["APPROVE", "CAPABILITY", "DECISIONS", "InlineAsk", "approve_params", "ask_inline"]
