"""What every approver shares (§6.3): the act's target as it must be shown to the user —
whole, control characters escaped, newlines visible, and never cut without saying how much
is hidden — and the two approvers that need nobody (``--yes``, and no one to ask).

A newline is shown as ``⏎`` (a ``⏎`` the text itself holds is shown as ``\\u23ce``, so the
mark always means a newline); every other control or formatting character is escaped by
``harness.escape.printable`` (``\\x1b``, ``\\r``, ``\\u202e``). A preview cuts the shown
text between two characters, never inside an escape, and counts what it left out in
characters of the shown text. The full view ends a line after each ``⏎``.

A write's approval shows the diff (``write_diff``: unified, before → after), each line
escaped like the target and cut like it, and no more than a given number of lines without
saying how many more there are (``diff_lines``). An exec's approval names the files this run
wrote (``written_names``), escaped.

Every registered key is redacted first (``harness.redact``): a dialog, a prompt and the
file holding a whole command all leave the process (§6.7), and the model may well have put
the user's key in a command.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.escape import printable
from harness.redact import redact
from harness.types import Act, Approval, ApprovalRequest

NEWLINE_MARK = "⏎"
MAX_TARGET_CHARS = 300  # an approval's target on one line, past which it is cut
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


def write_diff(path: str, before: bytes | None, after: bytes) -> str:
    """The unified diff of a write (``--- /dev/null`` for a new file), as plain text; a
    binary or non-UTF-8 side is summarised, not shown."""
    old = _as_text(before)
    new = _as_text(after)
    if old is None or new is None:
        size = "nothing" if before is None else f"{len(before):,} bytes"
        return f"binary file {path}: {size} → {len(after):,} bytes (not shown)"
    lines = difflib.unified_diff(
        _lines(old),
        _lines(new),
        fromfile="/dev/null" if before is None else f"a/{path}",
        tofile=f"b/{path}",
        lineterm="",
    )
    return "\n".join(lines) or f"no change to {path}"


def _lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only (a ``\\r`` or a form feed stays, to be shown escaped)."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _as_text(data: bytes | None) -> str | None:
    if data is None:
        return ""
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def diff_lines(diff: str, max_lines: int, line_chars: int, more: str = "") -> list[str]:
    """The diff's lines as shown: escaped, each cut at ``line_chars`` characters with a count,
    at most ``max_lines`` of them, then a line saying how many more there are (``more``: how
    to see them)."""
    lines = diff.split("\n")
    out = []
    for line in lines[:max_lines]:
        head = preview(line, line_chars)
        out.append(head.text + (f" … ({head.hidden:,} more characters)" if head.cut else ""))
    if len(lines) > max_lines:
        rest = len(lines) - max_lines
        out.append(f"… {rest:,} more line{'' if rest == 1 else 's'} of the diff{more}")
    return out


def whole_diff(diff: str) -> list[str]:
    """Every line of the diff, escaped, none cut."""
    return [shown(line) for line in diff.split("\n")]


def diff_cut(diff: str, max_lines: int, line_chars: int) -> bool:
    """Whether ``diff_lines`` leaves anything out."""
    return diff_lines(diff, max_lines, line_chars) != whole_diff(diff)


def written_names(paths: Sequence[str], limit: int = 20) -> str:
    """The files a run wrote, escaped, comma-separated; past ``limit``, how many more."""
    names = ", ".join(shown(p) for p in paths[:limit])
    return names + (f" and {len(paths) - limit:,} more" if len(paths) > limit else "")


def approval_body(request: ApprovalRequest, limit: int = MAX_TARGET_CHARS) -> dict[str, Any]:
    """What is asked, as plain text, the one rendering every front shows (``harness/approve``,
    the §11 ``approval`` event, ACP's permission request): the call it approves, the act,
    the target on one line (cut past ``limit`` with a count of what is hidden), why
    (``reason``), the files this run wrote (an exec), the whole command (an exec), the
    whole diff (a write), an MCP call's server, tool and arguments (``call``)."""
    head = preview(request.target, limit)
    target = head.text + (f" … ({head.hidden:,} more characters hidden)" if head.cut else "")
    body: dict[str, Any] = {
        "step": request.step,
        "callId": request.call_id,
        "act": request.act.value,
        "target": target,
        "reason": shown(request.reason),
        "filesWritten": [shown(p) for p in request.files_written],
    }
    if request.act is Act.EXEC:
        body["command"] = full_view(request.target)
    if request.diff is not None:
        body["diff"] = "\n".join(whole_diff(request.diff))
        if request.act is Act.MCP:  # not a change: the server, tool and arguments (issue 35)
            body["call"] = body["diff"]
    return body


def target_noun(request: ApprovalRequest) -> str:
    """What the target is, in the question's words: a command, an MCP call, a path."""
    return {"exec": "command", "mcp": "call"}.get(request.act.value, "path")


class YesApprover:
    """``--yes``: every ask is allowed once (and recorded as asked) — but a blanket yes
    never approves starting a workspace's MCP server (§15: only the user, shown what runs)."""

    blanket = True

    async def __call__(self, request: ApprovalRequest) -> Approval:
        return Approval.ALLOW_ONCE


class UnavailableApprover:
    """Nobody to ask: every ask is refused and the model is told why."""

    async def __call__(self, request: ApprovalRequest) -> Approval:
        return Approval.UNAVAILABLE


__all__ = [
    "MAX_TARGET_CHARS",
    "NEWLINE_MARK",
    "Preview",
    "UnavailableApprover",
    "YesApprover",
    "approval_body",
    "diff_cut",
    "diff_lines",
    "full_view",
    "preview",
    "shown",
    "target_noun",
    "whole_diff",
    "write_diff",
    "written_names",
]
