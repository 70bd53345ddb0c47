"""The terminal approver: its answers, the default Deny, a closed stdin, ``[v]iew``, and
which approver ``harness run`` uses (``--yes``, a terminal, nobody). The terminal user is
an injected prompt function; tests/security/test_policy_approvals.py drives the real one."""

from __future__ import annotations

from typing import Any

import pytest

from harness.cli.approve import (
    PREVIEW_CHARS,
    TerminalApprover,
    default_approver,
    question,
    whole,
)
from harness.policy import Gate, Policy, UnavailableApprover, YesApprover
from harness.types import Act, Approval, ApprovalRequest, Effect

X = Act.EXEC
EXEC_ASK = Policy()


class ScriptedPrompt:
    """A terminal user: answers in order, records the questions."""

    def __init__(self, *answers: str | type[BaseException]) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []

    def __call__(self, text: str) -> str:
        self.questions.append(text)
        answer = self.answers.pop(0)
        if isinstance(answer, type):
            raise answer()
        return answer


@pytest.mark.parametrize(
    ("answer", "allowed", "detail"),
    [
        pytest.param("a", True, "asked: allow", id="allow-once"),
        pytest.param("y\n", True, "asked: allow", id="yes"),
        pytest.param(" Allow ", True, "asked: allow", id="allow-word"),
        pytest.param("r", True, "asked: allow_run", id="allow-run"),
        pytest.param("d", False, "asked: deny", id="deny"),
        pytest.param("", False, "asked: deny", id="default-deny"),
        pytest.param("what?", False, "asked: deny", id="unknown-deny"),
        pytest.param(EOFError, False, "asked: unavailable", id="closed-stdin"),
    ],
)
async def test_terminal_approver_answers(answer: Any, allowed: bool, detail: str):
    prompt = ScriptedPrompt(answer)
    gate = Gate(EXEC_ASK, TerminalApprover(prompt), run_id=3)
    decision = await gate.check(X, "make test")
    assert decision.allowed is allowed
    assert decision.event is not None
    assert (decision.event.effect, decision.event.detail) == (Effect.ASK, detail)
    assert decision.event.allowed is allowed
    assert prompt.questions == [
        question(ApprovalRequest(3, X, "make test", "the default for exec"))
    ]


def test_the_question_shows_run_reason_target_and_answers():
    text = question(ApprovalRequest(3, X, "make test", "the default for exec"))
    assert text == (
        "\nharness run 3 wants to exec (the default for exec):\n"
        "  make test\n"
        "[a]llow once, allow for this [r]un, [d]eny, [v]iew the whole command "
        "(default: deny)? "
    )


async def test_view_shows_the_whole_command_then_asks_again():
    argv = "x" * (PREVIEW_CHARS + 50) + "\nTAIL"
    prompt = ScriptedPrompt("v", "d")
    answer = await TerminalApprover(prompt)(ApprovalRequest(1, X, argv, "r"))
    assert answer is Approval.DENY
    first, second = prompt.questions
    assert "TAIL" not in first and "(55 more characters hidden: answer v" in first
    request = ApprovalRequest(1, X, argv, "r")
    assert second == whole(request) + question(request)
    assert "x" * (PREVIEW_CHARS + 50) + "⏎\nTAIL\n----- end of the command -----" in second


async def test_viewing_forever_is_a_deny():
    prompt = ScriptedPrompt(*["v"] * 20)
    assert await TerminalApprover(prompt)(ApprovalRequest(1, X, "ls", "r")) is Approval.DENY


@pytest.mark.parametrize(
    ("yes", "interactive", "kind"),
    [
        pytest.param(True, True, YesApprover, id="yes-wins"),
        pytest.param(True, False, YesApprover, id="yes"),
        pytest.param(False, True, TerminalApprover, id="terminal"),
        pytest.param(False, False, UnavailableApprover, id="nobody"),
    ],
)
def test_default_approver(yes: bool, interactive: bool, kind: type):
    assert isinstance(default_approver(yes, interactive), kind)


def test_an_mcp_calls_question_says_the_call_not_the_change():
    """Issue 35: an MCP call's server, tool and arguments are not "the change"; the
    question says what they are, and the §11 approval event has them as its own ``call``."""
    from harness.policy.approval import approval_body

    call = 'MCP server: time\ntool: get_current_time\narguments: {"timezone": "UTC"}'
    asked = ApprovalRequest(3, Act.MCP, "time/get_current_time", "the default for mcp", call)
    text = question(asked)
    assert "the call, as plain text (control characters escaped):" in text
    assert "the change" not in text and "[v]iew the whole call" in text
    assert '    arguments: {"timezone": "UTC"}\n' in text
    assert approval_body(asked)["call"] == call
    assert "call" not in approval_body(ApprovalRequest(3, X, "make test", "r"))
