"""The head of a tool result as a front shows it under the call's row (issue 36): an edit's
diff, a command's output head and tail, a read's first lines, a failure's text — a few
lines, never the whole result (that is in the trace, one click away). Pure."""

from __future__ import annotations

import difflib

from harness.types import FileWrite, ToolResult

HEAD_LINES = 12
TAIL_LINES = 6
MAX_HEAD_CHARS = 2000
MAX_DIFF_LINES = 40


def result_head(result: ToolResult) -> str:
    """A few lines of what the call gave: the diff of what it wrote, else its text's head
    (and tail, when longer), less the header line; cut at ``MAX_HEAD_CHARS``."""
    if result.writes:
        text = "\n".join(_diff(w) for w in result.writes)
    else:
        text = _head_and_tail(result.text.split("\n")[1:])
    text = text.rstrip("\n")
    return text if len(text) <= MAX_HEAD_CHARS else text[: MAX_HEAD_CHARS - 1] + "…"


def _head_and_tail(lines: list[str]) -> str:
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        return "\n".join(lines)
    hidden = len(lines) - HEAD_LINES - TAIL_LINES
    middle = f"… {hidden:,} more line{'s' if hidden != 1 else ''} …"
    return "\n".join([*lines[:HEAD_LINES], middle, *lines[-TAIL_LINES:]])


def _diff(write: FileWrite) -> str:
    before = _text(write.before).splitlines(keepends=False)
    after = _text(write.after).splitlines(keepends=False)
    old = f"a/{write.path}" if write.before is not None else "/dev/null"
    rows = list(difflib.unified_diff(before, after, old, f"b/{write.path}", n=1, lineterm=""))
    if len(rows) > MAX_DIFF_LINES:
        hidden = len(rows) - MAX_DIFF_LINES
        rows = [*rows[:MAX_DIFF_LINES], f"… {hidden:,} more diff line{'s' if hidden != 1 else ''}"]
    return "\n".join(rows)


def _text(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", errors="replace")
