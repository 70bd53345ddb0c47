"""What every approver shares (§6.3): the act's target as it must be shown to the user —
whole, control characters escaped, newlines visible, and never cut without saying how much
is hidden — and the two approvers that need nobody (``--yes``, and no one to ask).

A newline is shown as ``⏎`` (a ``⏎`` the text itself holds is shown as ``\\u23ce``, so the
mark always means a newline); every other control or formatting character is escaped by
``harness.escape.printable`` (``\\x1b``, ``\\r``, ``\\u202e``). A preview cuts the shown
text between two characters, never inside an escape, and counts what it left out in
characters of the shown text. The full view ends a line after each ``⏎``.

Every registered key is redacted first (``harness.redact``): a dialog, a prompt and the
file holding a whole command all leave the process (§6.7), and the model may well have put
the user's key in a command.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.escape import printable
from harness.redact import redact
from harness.types import Approval, ApprovalRequest

NEWLINE_MARK = "⏎"
_MARK_ESCAPED = "\\u23ce"


def _shown_chars(text: str) -> list[str]:
    out: list[str] = []
    for c in redact(text):
        if c == "\n":
            out.append(NEWLINE_MARK)
        elif c == NEWLINE_MARK:
            out.append(_MARK_ESCAPED)
        else:
            out.append(printable(c))
    return out


def shown(text: str) -> str:
    """``text`` on one line, as an approver shows it."""
    return "".join(_shown_chars(text))


def full_view(text: str) -> str:
    """``text`` as shown, with a line break after each ``⏎`` so a script reads as lines."""
    return "".join(c + "\n" if c == NEWLINE_MARK else c for c in _shown_chars(text))


@dataclass(frozen=True)
class Preview:
    """The head of a shown text and how many characters of it are left out."""

    text: str
    hidden: int  # characters of the shown text not in ``text``

    @property
    def cut(self) -> bool:
        return self.hidden > 0


def preview(text: str, limit: int) -> Preview:
    """At most ``limit`` characters of ``shown(text)``, cut between two escapes."""
    parts = _shown_chars(text)
    total = sum(len(p) for p in parts)
    if total <= limit:
        return Preview("".join(parts), 0)
    head: list[str] = []
    used = 0
    for part in parts:
        if used + len(part) > limit:
            break
        head.append(part)
        used += len(part)
    return Preview("".join(head), total - used)


def target_noun(request: ApprovalRequest) -> str:
    return "command" if request.act.value == "exec" else "path"


class YesApprover:
    """``--yes``: every ask is allowed once (and recorded as asked)."""

    async def __call__(self, request: ApprovalRequest) -> Approval:
        return Approval.ALLOW_ONCE


class UnavailableApprover:
    """Nobody to ask: every ask is refused and the model is told why."""

    async def __call__(self, request: ApprovalRequest) -> Approval:
        return Approval.UNAVAILABLE


__all__ = [
    "NEWLINE_MARK",
    "Preview",
    "UnavailableApprover",
    "YesApprover",
    "full_view",
    "preview",
    "shown",
    "target_noun",
]
