"""How a tool call went, as the terminal shows it at the end of its progress line: ``✓``,
``✗ refused (builtin: .env)``, ``✗ leaves the workspace``, ``! needs approval — not
available``, ``✗ exit 1``, ``✗ `old` was not found in `a.py```.

Read from the result's typed fields first — its policy events (the deciding layer and
rule, the approver's answer), its notices, ``ok`` and ``exit_code`` — and only for a failure
nothing typed explains from the first clause of the error the model was shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from harness.escape import printable
from harness.report import refusal_of
from harness.types import Approval, Effect, NoticeKind, PolicyEvent, ToolResult

REASON_CHARS = 120
_LEADING_PATH = re.compile(r"^`[^`]*`\s+")


class Went(StrEnum):
    OK = "ok"
    FAILED = "failed"  # ran, or tried to, and did not work
    REFUSED = "refused"  # stopped by policy, containment, the user or the editor
    NEEDS_APPROVAL = "needs_approval"  # an ask with nobody to answer it


@dataclass(frozen=True)
class Mark:
    """How one call went: the kind, and the words after the mark."""

    went: Went
    words: str = ""

    @property
    def symbol(self) -> str:
        return {Went.OK: "✓", Went.NEEDS_APPROVAL: "!"}.get(self.went, "✗")

    @property
    def style(self) -> str:
        return {Went.OK: "green", Went.NEEDS_APPROVAL: "yellow"}.get(self.went, "red")

    @property
    def text(self) -> str:
        return f"{self.symbol} {self.words}" if self.words else self.symbol

    @property
    def stopped(self) -> bool:
        """Refused, or waiting for an approval nobody could give."""
        return self.went in (Went.REFUSED, Went.NEEDS_APPROVAL)


NO_APPROVAL = "needs approval — not available"


def call_mark(result: ToolResult) -> Mark:
    """How a tool call went."""
    refusal = refusal_of(result)
    if refusal is not None:
        return refusal_mark(refusal)
    if any(n.kind is NoticeKind.UNSAVED_REFUSED for n in result.notices):
        return Mark(Went.REFUSED, "refused: unsaved changes in the editor")
    if not result.ok:
        return Mark(Went.FAILED, error_reason(result))
    if result.exit_code not in (None, 0):
        return Mark(Went.FAILED, f"exit {result.exit_code}")
    return Mark(Went.OK)


def verify_mark(result: ToolResult) -> Mark:
    """How the verification went: passed, failed with its exit status, refused, or did not
    run (and why)."""
    if result.ok:
        return Mark(Went.OK, "passed")
    refusal = refusal_of(result)
    if refusal is not None:
        return refusal_mark(refusal)
    if result.exit_code is not None:
        return Mark(Went.FAILED, f"failed (exit {result.exit_code})")
    return Mark(Went.FAILED, f"did not run: {error_reason(result)}")


def refusal_mark(event: PolicyEvent) -> Mark:
    if event.layer == "containment":
        return Mark(Went.REFUSED, _first_clause(_LEADING_PATH.sub("", event.detail)))
    if event.layer == "plan":  # not a policy default: the run only reads
        return Mark(Went.REFUSED, "refused (plan mode: this run only reads)")
    if event.approval is Approval.UNAVAILABLE:
        return Mark(Went.NEEDS_APPROVAL, NO_APPROVAL)
    if event.approval is Approval.DENY:
        return Mark(Went.REFUSED, "denied by you")
    if event.effect is Effect.ASK:  # asked for at a moment nobody is asked (a re-read)
        return Mark(Went.NEEDS_APPROVAL, "needs approval")
    if event.rule is not None:
        return Mark(Went.REFUSED, printable(f"refused ({event.layer}: {event.rule})"))
    if event.layer == "plan":  # a plan- or ask-mode run only reads
        return Mark(Went.REFUSED, f"refused ({event.detail})")
    return Mark(Went.REFUSED, f"refused (the default for {event.act.value})")


def error_reason(result: ToolResult) -> str:
    """The first clause of the error the model was shown (the line after the header)."""
    lines = result.text.split("\n", 2)
    body = lines[1] if len(lines) > 1 else lines[0]
    return _first_clause(body.removeprefix("error: "))


def _first_clause(text: str) -> str:
    clause = printable(text.split("; ", 1)[0].strip())
    return clause if len(clause) <= REASON_CHARS else clause[: REASON_CHARS - 1] + "…"


__all__ = [
    "NO_APPROVAL",
    "Mark",
    "Went",
    "call_mark",
    "error_reason",
    "refusal_mark",
    "refusal_of",
    "verify_mark",
]
