"""Checking success (§2): when the model stops calling tools, the contract's verification
command runs as an ``exec`` the operator approved, and its exit status decides.

The command needs no approval (the operator named it), but a deny rule still holds. Its
result is an observation like any other (``[verify CMD] passed|failed``), so a model whose
check failed sees why and can go on.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from harness.contract import Verification
from harness.ledger import Ledger
from harness.run.toolbox import Toolbox
from harness.tools.base import ToolContext, header
from harness.types import Act, ToolCall, ToolResult


@dataclass(frozen=True)
class VerificationResult:
    """Whether the check passed, and the observation that says so."""

    passed: bool
    result: ToolResult


async def verify(
    verification: Verification, toolbox: Toolbox, ctx: ToolContext, ledger: Ledger
) -> VerificationResult:
    assert verification.argv is not None, "verify only runs an enabled verification"
    argv = list(verification.argv)
    command = shlex.join(argv)
    toolbox.gate.grant_run(Act.EXEC, command)
    call = ToolCall(id=f"verify_{ctx.step}", name="exec", arguments={"argv": argv})
    ran = await toolbox.call(call, ctx, ledger)
    passed = ran.ok and ran.exit_code == verification.expect_exit
    word = "passed" if passed else "failed"
    body = ran.text.split("\n", 1)[1] if "\n" in ran.text else ran.text
    text = f"{header('verify', command)} {word} (expected exit {verification.expect_exit})\n{body}"
    return VerificationResult(
        passed,
        ToolResult("verify", command, text, ok=passed, policy=ran.policy, exit_code=ran.exit_code),
    )


__all__ = ["VerificationResult", "verify"]
