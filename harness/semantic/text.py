"""Text addressing for the semantic tools (§14): a ``line_content`` quote turned into a
position (the symbol's first whole-word occurrence on the first line containing the quote),
columns converted between code points and an answer's position encoding, and a file's text
edits applied last to first."""

from __future__ import annotations

import hashlib
import itertools
import re

from harness.semantic.model import Encoding, FileEdit, Position

MAX_CANDIDATES = 5


def lines_of(text: str) -> list[str]:
    """Lines as LSP numbers them: split on ``\\n``, ``\\r\\n`` or ``\\r``, endings dropped."""
    return re.split(r"\r\n|\r|\n", text)


def word(symbol: str) -> re.Pattern[str]:
    """``symbol`` as a whole identifier (not inside a longer one; ``$`` counts as a letter)."""
    return re.compile(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])")


def locate(text: str, symbol: str, line_content: str, encoding: Encoding) -> Position | str:
    """The position of ``symbol`` on the first line that contains ``line_content`` and the
    symbol as a whole word, or what the model is told (up to five lines holding it)."""
    pattern = word(symbol)
    lines = lines_of(text)
    quoted = bool(line_content) and pattern.search(line_content) is not None
    for number, line in enumerate(lines):
        match = pattern.search(line) if quoted and line_content in line else None
        if match is not None:
            return Position(number, units(line[: match.start()], encoding))
    return _not_found(lines, symbol, line_content, pattern)


def _not_found(lines: list[str], symbol: str, quote: str, pattern: re.Pattern[str]) -> str:
    holding = [(n + 1, line) for n, line in enumerate(lines) if pattern.search(line)]
    if not holding:
        return f"`{symbol}` does not occur as a whole word anywhere in the file"
    shown = "\n".join(f"  {n}: {line.strip()[:160]}" for n, line in holding[:MAX_CANDIDATES])
    more = len(holding) - MAX_CANDIDATES
    rest = f"\n  … and {more:,} more" if more > 0 else ""
    return (
        f"no line contains {quote!r} together with `{symbol}`; quote one of the lines "
        f"that contain `{symbol}` exactly as `line_content`:\n{shown}{rest}"
    )


def units(prefix: str, encoding: Encoding) -> int:
    """How many columns ``prefix`` is in ``encoding``."""
    if encoding == "utf-32":
        return len(prefix)
    if encoding == "utf-8":
        return len(prefix.encode("utf-8"))
    return len(prefix.encode("utf-16-le")) // 2


def index_of(line: str, column: int, encoding: Encoding) -> int:
    """The code-point index of ``column`` (in ``encoding``) on ``line``; past the end of the
    line is its end (LSP: a character beyond the line defaults back to its length)."""
    if encoding == "utf-32":
        return min(column, len(line))
    count = 0
    for index, char in enumerate(line):
        if count >= column:
            return index
        count += (
            len(char.encode("utf-8")) if encoding == "utf-8" else (2 if ord(char) > 0xFFFF else 1)
        )
    return len(line)


def _offsets(text: str) -> list[int]:
    """The offset in ``text`` where each line starts."""
    starts = [0]
    for match in re.finditer(r"\r\n|\r|\n", text):
        starts.append(match.end())
    return starts


def _offset(text: str, starts: list[int], lines: list[str], pos: Position, enc: Encoding) -> int:
    if pos.line >= len(lines):
        return len(text)
    return starts[pos.line] + index_of(lines[pos.line], pos.character, enc)


def apply_edits(text: str, change: FileEdit, encoding: Encoding) -> str:
    """``text`` with ``change``'s edits applied, last position first (each edit's positions
    refer to the original text). Overlapping edits are an error."""
    lines, starts = lines_of(text), _offsets(text)
    spans = []
    for edit in change.edits:
        start = _offset(text, starts, lines, edit.span.start, encoding)
        end = _offset(text, starts, lines, edit.span.end, encoding)
        if end < start:
            raise ValueError(f"an edit of {change.path} ends before it starts")
        spans.append((start, end, edit.new_text))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            raise ValueError(f"two edits of {change.path} overlap")
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def listed_hash(text: str) -> str:
    """The hash a references answer records for each file it lists, as the tool read it
    (``harness.semantic.stale`` compares the file's current text with it)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


__all__ = [
    "MAX_CANDIDATES",
    "apply_edits",
    "index_of",
    "lines_of",
    "listed_hash",
    "locate",
    "units",
    "word",
]
