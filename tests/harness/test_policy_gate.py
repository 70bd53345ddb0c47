"""The gate: asks the approver on ``ask``, remembers run-wide grants, never lets a failing
approver through, and tells the model why an act was refused (rule and layer named)."""

from __future__ import annotations

from harness.policy import (
    NO_APPROVAL_REMEDY,
    Gate,
    Layer,
    Policy,
    Rule,
    UnavailableApprover,
    YesApprover,
)
from harness.types import Act, Approval, ApprovalRequest, Effect

R, W, X = Act.READ, Act.WRITE, Act.EXEC
ASK, DENY = Effect.ASK, Effect.DENY

EXEC_ASK = Policy()  # exec asks by default


class Answering:
    """An approver giving fixed answers in order and recording the requests."""

    def __init__(self, *answers: Approval) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.requests.append(request)
        return self.answers.pop(0)


async def test_allow_for_run_is_remembered_for_that_target_only():
    approver = Answering(Approval.ALLOW_RUN, Approval.DENY)
    gate = Gate(EXEC_ASK, approver, run_id=1)
    assert (await gate.check(X, "make test")).allowed
    again = await gate.check(X, "make test")
    assert again.allowed and len(approver.requests) == 1  # not asked twice
    # ...but the exec is still recorded, as going ahead on the run's grant (§6.3)
    assert again.event is not None and again.event.allowed
    assert (again.event.effect, again.event.detail) == (ASK, "granted for this run")
    assert not (await gate.check(X, "make lint")).allowed
    assert len(approver.requests) == 2


async def test_allow_once_asks_again():
    approver = Answering(Approval.ALLOW_ONCE, Approval.ALLOW_ONCE)
    gate = Gate(EXEC_ASK, approver, run_id=1)
    await gate.check(X, "ls")
    await gate.check(X, "ls")
    assert len(approver.requests) == 2


async def test_unavailable_approver_refuses_and_says_why():
    gate = Gate(EXEC_ASK, UnavailableApprover(), run_id=1)
    decision = await gate.check(X, "make")
    assert not decision.allowed
    assert decision.message == (
        "refused: exec `make` needs approval (the default for exec) and approval was not "
        f"available: {NO_APPROVAL_REMEDY}"
    )
    assert "--yes" in decision.message and ".harness/policy.toml" in decision.message
    assert decision.event is not None and decision.event.detail == "asked: unavailable"


async def test_yes_approver_allows_and_records_the_ask():
    gate = Gate(EXEC_ASK, YesApprover(), run_id=1)
    decision = await gate.check(X, "make")
    assert decision.allowed
    assert decision.event is not None and decision.event.effect is ASK


async def test_user_deny_is_an_observation():
    decision = await Gate(EXEC_ASK, Answering(Approval.DENY), run_id=1).check(X, "ls")
    assert decision.message == "refused: the user denied exec `ls` (the default for exec)"
    assert decision.event is not None and decision.event.detail == "asked: deny"


async def test_deny_message_names_rule_and_layer():
    gate = Gate(Policy(), YesApprover(), run_id=1)
    decision = await gate.check(W, ".env")
    assert not decision.allowed
    assert decision.message == "refused by policy: deny write `.env` (rule `.env`, layer builtin)"
    event = decision.event
    assert event is not None
    assert (event.rule, event.layer, event.effect, event.allowed) == (
        ".env",
        "builtin",
        DENY,
        False,
    )


async def test_a_secret_in_another_case_is_refused_naming_the_rule():
    decision = await Gate(Policy(), YesApprover(), run_id=1).check(R, "deploy/ID_RSA")
    assert decision.message == (
        "refused by policy: deny read `deploy/ID_RSA` (rule `id_rsa`, layer builtin)"
    )


async def test_default_deny_message():
    gate = Gate(Policy(defaults={X: DENY}), YesApprover(), run_id=1)
    decision = await gate.check(X, "ls")
    assert decision.message == "refused by policy: deny exec `ls` (the default for exec)"


async def test_plain_allow_records_nothing():
    decision = await Gate(Policy(), UnavailableApprover(), run_id=1).check(R, "src/a.py")
    assert decision.allowed and decision.event is None


async def test_an_exec_allowed_by_a_rule_is_recorded_with_the_rule():
    # Issue 13: "an exec allowed by a rule leaves no policy event" (SPEC §6.3).
    policy = Policy([Layer("user", (Rule(X, Effect.ALLOW, "pytest*"),))])
    decision = await Gate(policy, UnavailableApprover(), run_id=1).check(X, "pytest -q")
    assert decision.allowed
    event = decision.event
    assert event is not None
    assert (event.act, event.target, event.effect) == (X, "pytest -q", Effect.ALLOW)
    assert (event.rule, event.layer, event.allowed, event.detail) == (
        "pytest*",
        "user",
        True,
        "allowed",
    )
    assert event.approval is None


async def test_an_answered_ask_carries_the_answer_typed():
    for answer in (Approval.ALLOW_ONCE, Approval.DENY, Approval.UNAVAILABLE):
        decision = await Gate(EXEC_ASK, Answering(answer), run_id=1).check(X, "make")
        assert decision.event is not None and decision.event.approval is answer


async def test_failing_approver_refuses():
    class Broken:
        async def __call__(self, request: ApprovalRequest) -> Approval:
            raise RuntimeError("dialog crashed")

    decision = await Gate(EXEC_ASK, Broken(), run_id=1).check(X, "ls")
    assert not decision.allowed and "not available" in decision.message


async def test_approval_request_carries_run_and_reason():
    approver = Answering(Approval.DENY)
    policy = Policy([Layer("workspace", (Rule(W, ASK, "*.lock"),))])
    decision = await Gate(policy, approver, run_id=42).check(W, "poetry.lock")
    assert not decision.allowed and "denied" in decision.message
    (seen,) = approver.requests
    assert seen.run_id == 42 and seen.act is W and seen.target == "poetry.lock"
    assert seen.reason == "rule `*.lock` in layer workspace"


async def test_check_nowait_never_asks():
    approver = Answering()  # any question would fail: no answers
    gate = Gate(EXEC_ASK, approver, run_id=1)
    refused = gate.check_nowait(X, "make")
    assert not refused.allowed and "needs approval" in refused.message
    assert refused.event is not None and not refused.event.allowed
    assert gate.check_nowait(R, "src/a.py").allowed
    assert not gate.check_nowait(R, ".env").allowed
    gate.grant_run(X, "make")
    assert gate.check_nowait(X, "make").allowed
    assert approver.requests == []


async def test_grant_never_lifts_a_deny():
    gate = Gate(Policy(), YesApprover(), run_id=1)
    gate.grant_run(R, ".env")
    assert not (await gate.check(R, ".env")).allowed
    assert not gate.check_nowait(R, ".env").allowed
