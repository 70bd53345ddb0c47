"""The ``Gate`` (§6.3): the policy plus an approver plus the grants given for the rest of
one run, and the messages that tell the model why an act was refused.

``check`` asks the approver on ``ask``; ``check_nowait`` never asks (an ``ask`` without a
run-wide grant is refused) — for assembly-time re-reads and for grep, which asks about
every file. An approver that fails is treated as unavailable: the act does not go ahead.
A decision carries a ``PolicyEvent`` for every refusal, every ask (with the answer), and
every exec that goes ahead — the trace shows what ran and what let it (§6.3).

The gate also keeps the files this run has written (``record_write``): an exec approval
names them, since the command may run them (a ``Makefile`` the agent wrote makes
``make test`` its command). A write's approval carries the diff (``check(..., diff=)``);
the write tools ``settle`` first and ask only once the new content is known.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass, field

from harness.policy.loading import Policy
from harness.policy.rules import Verdict
from harness.types import Act, Approval, ApprovalRequest, Approver, Effect, PolicyEvent

log = logging.getLogger(__name__)

NO_APPROVAL_REMEDY = (
    "no terminal or editor could be asked; run with --yes, or allow it in your policy (the "
    "user config, or the .harness/policy.toml of a folder you trust)"
)


@dataclass(frozen=True)
class Decision:
    """Whether an act may go ahead; ``message`` is what the model is told on a refusal."""

    allowed: bool
    message: str
    event: PolicyEvent | None = None


@dataclass
class Gate:
    """The policy plus an approver plus the grants given for the rest of one run."""

    policy: Policy
    approver: Approver
    run_id: int
    grants: set[tuple[Act, str]] = field(default_factory=set)
    # The files this run has written, in the order first written (dict: ordered, unique).
    written: dict[str, None] = field(default_factory=dict)
    step: int = 0  # the tool call whose approvals this gate asks (``at``)
    call_id: str = ""

    def at(self, step: int, call_id: str) -> Gate:
        """This run's gate asking for the call ``call_id`` of ``step``: its approval requests
        name that call; the grants and the files written stay the run's (shared)."""
        return dataclasses.replace(self, step=step, call_id=call_id)

    def record_write(self, rel: str) -> None:
        """``rel`` was written by this run: later exec approvals name it."""
        self.written[rel] = None

    def settle(self, act: Act, target: str) -> Decision | None:
        """The decision when no one needs asking (an allow, a deny, a granted ask); None when
        the act needs an approval (``check`` asks it)."""
        verdict = self.policy.explain(act, target)
        if verdict.effect is not Effect.ASK or (act, target) in self.grants:
            return _settled(act, target, verdict)
        return None

    async def check(self, act: Act, target: str, *, diff: str | None = None) -> Decision:
        """Settle the act, asking the approver on ``ask``; ``diff``: what a write changes."""
        verdict = self.policy.explain(act, target)
        if verdict.effect is not Effect.ASK or (act, target) in self.grants:
            return _settled(act, target, verdict)
        written = tuple(self.written) if act is Act.EXEC else ()
        request = ApprovalRequest(
            self.run_id, act, target, verdict.reason, diff, written, self.step, self.call_id
        )
        try:
            answer = await self.approver(request)
        except asyncio.CancelledError:
            raise
        except Exception:
            # An approver that breaks must not let the act through, nor kill the run.
            log.exception("approver failed for %s %r", act.value, target)
            answer = Approval.UNAVAILABLE
        if answer is Approval.ALLOW_RUN:
            self.grants.add((act, target))
        return _answered(act, target, verdict, answer)

    def grant_run(self, act: Act, target: str) -> None:
        """Allow an ``ask`` for ``(act, target)`` for the rest of the run (a deny still holds)."""
        self.grants.add((act, target))

    def check_nowait(self, act: Act, target: str) -> Decision:
        """Like ``check`` but never asks: an ``ask`` without a run-wide grant is refused."""
        verdict = self.policy.explain(act, target)
        if verdict.effect is not Effect.ASK or (act, target) in self.grants:
            return _settled(act, target, verdict)
        message = (
            f"refused: {act.value} `{target}` needs approval ({verdict.reason}), which is "
            "only asked for when a tool is called"
        )
        return Decision(False, message, _event(act, target, verdict, False, "needs approval"))


def _settled(act: Act, target: str, verdict: Verdict) -> Decision:
    """An allow (or a granted ask) or a deny: no approver involved. An exec that goes ahead
    is recorded too (§6.3): what ran, and which rule let it, is part of the audit trail."""
    if verdict.effect is not Effect.DENY:
        if act is not Act.EXEC:
            return Decision(True, "")
        detail = "granted for this run" if verdict.effect is Effect.ASK else "allowed"
        return Decision(True, "", _event(act, target, verdict, True, detail))
    where = (
        f"rule `{verdict.rule.glob}`, layer {verdict.layer}"
        if verdict.rule is not None
        else f"the default for {act.value}"
    )
    message = f"refused by policy: deny {act.value} `{target}` ({where})"
    return Decision(False, message, _event(act, target, verdict, False, "denied"))


def _answered(act: Act, target: str, verdict: Verdict, answer: Approval) -> Decision:
    allowed = answer in _ALLOWING
    event = _event(act, target, verdict, allowed, f"asked: {answer.value}", approval=answer)
    if allowed:
        return Decision(True, "", event)
    if answer is Approval.UNAVAILABLE:
        message = (
            f"refused: {act.value} `{target}` needs approval ({verdict.reason}) and approval "
            f"was not available: {NO_APPROVAL_REMEDY}"
        )
    else:
        message = f"refused: the user denied {act.value} `{target}` ({verdict.reason})"
    return Decision(False, message, event)


_ALLOWING = frozenset({Approval.ALLOW_ONCE, Approval.ALLOW_RUN})


def _event(
    act: Act,
    target: str,
    verdict: Verdict,
    allowed: bool,
    detail: str,
    *,
    approval: Approval | None = None,
) -> PolicyEvent:
    rule = verdict.rule.glob if verdict.rule is not None else None
    return PolicyEvent(act, target, verdict.effect, rule, verdict.layer, allowed, detail, approval)


__all__ = ["NO_APPROVAL_REMEDY", "Decision", "Gate"]
