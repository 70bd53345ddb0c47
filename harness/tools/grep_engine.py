"""The search behind the ``grep`` tool: which lines of which files match a regex.

Fast path: each file's text is searched whole with one compiled pattern; only where that
finds something is the line located (by counting newlines) and checked on its own, so a
match never spans lines, as in ``grep``. Pure-ASCII files (most source) are
searched as bytes without decoding. One thread: a reader thread would wait on the GIL
behind the regex after every read, which costs more than it overlaps.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import AnyStr

from harness.tools.access import is_binary

# Files over this size are searched too, but read whole; one read is bounded by it so a
# stray multi-gigabyte file cannot exhaust memory.
MAX_FILE_BYTES = 64 * 1024 * 1024
_CHUNK = 256 * 1024


@dataclass(frozen=True)
class LineHit:
    path: str
    line_no: int
    text: str
    column: int  # where the match starts in ``text``


@dataclass
class SearchOutcome:
    """The first ``keep`` hits in path order, and counts of everything."""

    hits: list[LineHit] = field(default_factory=list)
    total_lines: int = 0
    files_with_hits: int = 0
    files_searched: int = 0
    binary_skipped: int = 0
    unreadable: int = 0
    refused: int = 0  # files with hits that the policy does not let the agent read
    # Files with hits that were not kept, to say how many files hold "the rest".
    files_with_rest: int = 0


@dataclass(frozen=True)
class Matcher:
    """The pattern compiled twice: as ``str`` for Unicode semantics, and as ``bytes`` for
    pure-ASCII files, where both mean the same and no decoding is needed (most source).
    ``literal`` is a substring every match must contain, when the pattern has one."""

    text: re.Pattern[str]
    raw: re.Pattern[bytes] | None
    literal: str | None = None

    @property
    def raw_literal(self) -> bytes | None:
        return self.literal.encode("ascii") if self.literal and self.literal.isascii() else None


def compile_pattern(pattern: str) -> Matcher:
    """``re.MULTILINE`` so ``^`` and ``$`` mean line start and end, as in grep. Raises
    ``re.error`` for a bad pattern."""
    text = re.compile(pattern, re.MULTILINE)
    try:
        raw: re.Pattern[bytes] | None = re.compile(pattern.encode("utf-8"), re.MULTILINE)
    except re.error:
        raw = None  # e.g. `\\u00e9` has no bytes form; such patterns decode every file
    return Matcher(text, raw, required_literal(pattern))


def required_literal(pattern: str) -> str | None:
    """For a pattern that does not start with a literal: the longest run of plain characters
    at its top level (text every match contains), or None. GNU grep's trick: find the
    literal with a fast substring search, then run the regex on that line only, instead of
    trying the regex at every position of the file (slow in ``re`` without a literal
    prefix)."""
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser as sre  # type: ignore[attr-defined]

    parsed = sre.parse(pattern)
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    if parsed.data and parsed.data[0][0] is c.LITERAL:
        return None  # ``re`` already scans for a literal prefix at C speed
    best, run = "", ""
    for op, arg in parsed.data:
        if op is c.LITERAL:
            run += chr(arg)
            best = max(best, run, key=len)
        else:
            run = ""
    return best if len(best) >= 3 and "\n" not in best else None


def search(
    root: Path,
    rels: Iterable[str],
    matcher: Matcher,
    *,
    keep: int,
    permit: Callable[[str], bool] = lambda rel: True,
    stop: threading.Event | None = None,
) -> SearchOutcome:
    """Search ``rels`` (relative to ``root``) in order, keeping the first ``keep`` hits.

    ``permit`` is asked only about files that have a hit (asking about every file would cost
    more than the search); a file it refuses is counted, never shown. ``stop`` ends the
    search early (the caller was cancelled).
    """
    out = SearchOutcome()
    base = str(root)
    for rel in rels:
        if stop is not None and stop.is_set():
            break
        data = _read(os.path.join(base, rel))
        if data is None:
            out.unreadable += 1
            continue
        out.files_searched += 1
        if is_binary(data):
            out.binary_skipped += 1
        elif matcher.raw is not None and data.isascii():
            if matcher.raw_literal is not None:
                _search_lines(
                    rel,
                    data,
                    matcher.raw,
                    matcher.raw_literal,
                    out,
                    nl=b"\n",
                    keep=keep,
                    permit=permit,
                )
            else:
                _search_file(rel, data, matcher.raw, out, nl=b"\n", keep=keep, permit=permit)
        else:
            text = data.decode("utf-8", errors="replace")
            if matcher.literal is not None:
                _search_lines(
                    rel, text, matcher.text, matcher.literal, out, nl="\n", keep=keep, permit=permit
                )
            else:
                _search_file(rel, text, matcher.text, out, nl="\n", keep=keep, permit=permit)
    return out


def _read(path: str) -> bytes | None:
    """os.open/os.read: a third of the cost of ``open().read()`` for many small files."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        chunks: list[bytes] = []
        size = 0
        while size < MAX_FILE_BYTES:
            chunk = os.read(fd, _CHUNK)
            chunks.append(chunk)
            size += len(chunk)
            if len(chunk) < _CHUNK:  # a short read of a regular file is its end
                break
    except OSError:
        return None
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _search_file(
    rel: str,
    text: AnyStr,
    regex: re.Pattern[AnyStr],
    out: SearchOutcome,
    *,
    nl: AnyStr,
    keep: int,
    permit: Callable[[str], bool],
) -> None:
    m = regex.search(text)
    if m is None:
        return
    if not permit(rel):
        out.refused += 1
        return
    counted_from, line_no, lines_here, kept_here = 0, 1, 0, 0
    while m is not None:
        start = m.start()
        line_start = text.rfind(nl, 0, start) + 1
        line_end = text.find(nl, start)
        if line_end < 0:
            line_end = len(text)
        line = text[line_start:line_end]
        column = _column_in_line(regex, m, line, line_start, line_end)
        if column is not None:
            line_no += text.count(nl, counted_from, line_start)
            counted_from = line_start
            lines_here += 1
            out.total_lines += 1
            if len(out.hits) < keep:
                out.hits.append(LineHit(rel, line_no, _as_text(line), column))
                kept_here += 1
        if line_end >= len(text):
            break
        m = regex.search(text, line_end + 1)
    if lines_here:
        out.files_with_hits += 1
        out.files_with_rest += lines_here > kept_here


def _search_lines(
    rel: str,
    text: AnyStr,
    regex: re.Pattern[AnyStr],
    literal: AnyStr,
    out: SearchOutcome,
    *,
    nl: AnyStr,
    keep: int,
    permit: Callable[[str], bool],
) -> None:
    """Only lines holding ``literal`` can match: find them with ``find`` (memchr speed)
    and run the regex on each such line alone (``pos``/``endpos``, so it cannot span)."""
    pos, counted_from, line_no, lines_here, kept_here = 0, 0, 1, 0, 0
    asked = False
    while (idx := text.find(literal, pos)) >= 0:
        line_start = text.rfind(nl, 0, idx) + 1
        line_end = text.find(nl, idx)
        if line_end < 0:
            line_end = len(text)
        m = regex.search(text, line_start, line_end)
        if m is not None:
            if not asked:
                asked = True
                if not permit(rel):
                    out.refused += 1
                    return
            line_no += text.count(nl, counted_from, line_start)
            counted_from = line_start
            lines_here += 1
            out.total_lines += 1
            if len(out.hits) < keep:
                out.hits.append(
                    LineHit(
                        rel, line_no, _as_text(text[line_start:line_end]), m.start() - line_start
                    )
                )
                kept_here += 1
        pos = line_end + 1
    if lines_here:
        out.files_with_hits += 1
        out.files_with_rest += lines_here > kept_here


def _as_text(line: str | bytes) -> str:
    text = line.decode("ascii") if isinstance(line, bytes) else line
    return text.rstrip("\r")


def _column_in_line(
    regex: re.Pattern[AnyStr], m: re.Match[AnyStr], line: AnyStr, line_start: int, line_end: int
) -> int | None:
    """Where the match starts in its line, or None when no match lies within that line."""
    if m.end() <= line_end:
        return m.start() - line_start
    # The match ran past the line end (e.g. `a\s+b` across a newline): grep would not
    # take it, but another match may still lie within the line.
    inner = regex.search(line)
    return inner.start() if inner is not None else None


__all__ = ["LineHit", "Matcher", "SearchOutcome", "compile_pattern", "search"]
