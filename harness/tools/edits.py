"""The text of an ``edit_file`` (§6.1): ``old`` replaced exactly once (CRLF files matched
with plain newlines), and the words that describe the edit to the model."""

from __future__ import annotations


def replace_once(target: str, text: str, old: str, new: str) -> tuple[str, str, str] | str:
    """The new text, or why not. A file with CRLF endings matches an ``old`` written with
    plain ``\\n`` (models rarely reproduce ``\\r``), and keeps its CRLF endings."""
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
    if count == 0:
        return (
            f"`old` was not found in `{target}`; read the file and copy the exact text "
            "(including indentation and line breaks)"
        )
    if count > 1:
        return (
            f"`old` occurs {count} times in `{target}`; include more surrounding lines so it "
            "is unique"
        )
    return text.replace(old, new, 1), old, new


def line_count(text: str) -> int:
    """Lines in a piece of text as an editor shows them: none for ``""``; a final newline
    ends the last line rather than starting another."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def describe_edit(old: str, new: str, line: int) -> str:
    """``replaced 3 lines with 1 line at line 5 (152 → 20 chars)``; ``removed 3 lines at
    line 5 (152 → 0 chars)`` when ``new`` is empty."""
    n_old, n_new = line_count(old), line_count(new)
    chars = f"({len(old):,} → {len(new):,} chars)"
    if not new:
        return f"removed {_lines(n_old)} at line {line} {chars}"
    return f"replaced {_lines(n_old)} with {_lines(n_new)} at line {line} {chars}"


def _lines(n: int) -> str:
    return f"{n:,} line{'' if n == 1 else 's'}"


__all__ = ["describe_edit", "line_count", "replace_once"]
