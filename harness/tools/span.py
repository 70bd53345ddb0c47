"""The text a read shows (§3 rule 4): whole, or a line range, or — over the cap — the whole
lines that fit and a marker naming them and the remedy. ``read_file`` and the assembly-time
re-read (``harness.run.reread``) both call ``read_span``, so they decode, number and cut alike.

Lines are split on ``\\n`` only (``\\r`` stays, as editors and grep number lines). A file up
to ``FULL_HASH_MAX_BYTES`` is read whole (it is hashed whole anyway); a larger one is
streamed: lines before the range are counted, not kept, and reading stops once the cap is
filled, so a ranged read of a 2 GB file reads only what it shows.

Markers, on their own line after the text shown:

- ``…[lines 1–312 of 1,204 shown; read_file with offset=313 for the rest]`` (``, limit=N``
  is added when the request had a limit; a file too large to count says ``of a 2.0 GiB
  file`` instead of the line count);
- a single line longer than the cap keeps its head:
  ``…[line 81 cut: 3,900 of 53,220 chars shown (grep shows the text around a match);
  read_file with offset=82 for the rest]``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from harness.tools.access import BINARY_SNIFF_BYTES, split_lines
from harness.workspace import FULL_HASH_MAX_BYTES, OpenFile

_CHUNK = 1024 * 1024
EMPTY_FILE = "(empty file)"  # what a read of an empty file shows


class SpanError(Exception):
    """Why a span cannot be shown (binary, not UTF-8, past the end): told to the model."""


@dataclass(frozen=True)
class SpanText:
    body: str  # the text shown, ending with the marker when partial
    first: int  # first line shown (1-based); 0 for an empty file
    last: int  # last line shown (== first - 1 when nothing was shown)
    total: int | None  # lines in the file, when known (always for files read whole)
    partial: bool
    shown_hash: str  # sha256 of the text shown, without the marker
    content_hash: str  # of the whole file (``harness.workspace.file_hash``)

    @property
    def count(self) -> int:
        return self.last - self.first + 1 if self.first else 0


@dataclass(frozen=True)
class _Want:
    """What was asked: the first line, how many, the cap, and the file's name for errors."""

    start: int
    limit: int | None
    cap: int
    what: str

    @property
    def range_end(self) -> int | None:
        return self.start + self.limit - 1 if self.limit is not None else None


@dataclass(frozen=True)
class _Facts:
    """What is known of the file: its line count (None: too large to count), hash, size."""

    total: int | None
    digest: str
    size: int


def read_span(f: OpenFile, offset: int | None, limit: int | None, cap: int, what: str) -> SpanText:
    """The body for lines ``offset..offset+limit-1`` (whole file when both are None) within
    ``cap`` characters. ``what`` names the file in errors. Raises ``SpanError``."""
    want = _Want(offset or 1, limit, cap, what)
    head = f.read(BINARY_SNIFF_BYTES)
    if b"\x00" in head:
        raise SpanError(_binary(what, f.st.st_size))
    if f.st.st_size <= FULL_HASH_MAX_BYTES:
        data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SpanError(_binary(what, len(data))) from None
        digest = hashlib.sha256(data).hexdigest()
        lines = split_lines(text)
        if offset is None and limit is None and len(text) <= cap:
            return SpanText(text, 1 if lines else 0, len(lines), len(lines), False, digest, digest)
        facts = _Facts(len(lines), digest, f.st.st_size)
        return _fit(lines[want.start - 1 :], want, facts)
    streamed, total = _stream(f, want)
    return _fit(streamed, want, _Facts(total, f.content_hash(), f.st.st_size))


def _fit(chosen: list[str], want: _Want, facts: _Facts) -> SpanText:
    """``chosen``: the file's lines from ``want.start`` on — all of them, or as streamed,
    fewer than exist when the cap was reached first (then ``facts.total`` is None)."""
    total = facts.total
    if not chosen:
        if total == 0 and want.start == 1 and want.limit is None:
            return SpanText("", 0, 0, 0, False, _sha(""), facts.digest)
        raise SpanError(
            f"offset {want.start} is past the end: {want.what} has {total or 0:,} lines"
        )
    wanted = chosen if want.limit is None else chosen[: want.limit]
    text = "\n".join(wanted)
    complete = total is not None or (want.limit is not None and len(chosen) >= want.limit)
    if complete and len(text) <= want.cap:
        end = want.start + len(wanted) - 1
        return SpanText(text, want.start, end, total, False, _sha(text), facts.digest)
    # The marker naming the last line that could be shown is at least as long as the real
    # one: reserving its length keeps the result within the cap.
    widest = lines_marker(want.start, want.start + len(wanted), total, facts.size, want.range_end)
    budget = max(0, want.cap - len(widest) - 1)
    shown: list[str] = []
    used = 0
    for line in wanted:
        extra = len(line) + (1 if shown else 0)
        if used + extra > budget:
            break
        shown.append(line)
        used += extra
    if not shown:
        return _cut_line(wanted[0], want, facts)
    last = want.start + len(shown) - 1
    body = "\n".join(shown)
    marker = lines_marker(want.start, last, total, facts.size, want.range_end)
    return SpanText(f"{body}\n{marker}", want.start, last, total, True, _sha(body), facts.digest)


def _cut_line(line: str, want: _Want, facts: _Facts) -> SpanText:
    n = want.start
    rest = ""
    end = want.range_end
    if (end is None or end > n) and (facts.total is None or facts.total > n):
        rest = f"; read_file with offset={n + 1}"
        if end is not None:
            rest += f", limit={end - n}"
        rest += " for the rest"

    def marker(shown: int) -> str:
        return (
            f"…[line {n:,} cut: {shown:,} of {len(line):,} chars shown (grep shows the text "
            f"around a match){rest}]"
        )

    head = line[: max(0, want.cap - len(marker(len(line))) - 1)]
    body = f"{head}\n{marker(len(head))}"
    return SpanText(body, n, n, facts.total, True, _sha(head), facts.digest)


def read_body_cap(limit_chars: int, target: str, notes: tuple[str, ...] = ()) -> int:
    """The cap on a read's body, so that the result (header with the widest range, notes,
    body) fits in the per-result cap ``limit_chars``: ``read_file`` and the assembly-time
    re-read use this one figure, so a re-read shows the very lines the read showed."""
    reserve = len(f"[read {target}:{10**12}-{10**12}]") + sum(len(n) + 1 for n in notes)
    return max(200, limit_chars - reserve - len(EMPTY_FILE) - 2)


def lines_marker(first: int, last: int, total: int | None, size: int, range_end: int | None) -> str:
    """``…[lines 1–312 of 1,204 shown; read_file with offset=313 for the rest]``."""
    of = f"of {total:,}" if total is not None else f"of a {_size(size)} file"
    remedy = f"read_file with offset={last + 1}"
    if range_end is not None:
        remedy += f", limit={range_end - last}"
    return f"…[lines {first:,}–{last:,} {of} shown; {remedy} for the rest]"


def _stream(f: OpenFile, want: _Want) -> tuple[list[str], int | None]:
    """Lines from ``want.start`` on, at most ``limit`` + 1 and about ``cap`` characters (one
    past, so the caller sees that more exists), and the line count if the end was reached."""
    start, limit, cap, what = want.start, want.limit, want.cap, want.what
    pos, line_no = _skip_lines(f, start)
    if pos is None:
        raise SpanError(f"offset {start} is past the end: {what} has {line_no:,} lines")
    lines: list[str] = []
    chars = 0
    pending = b""
    while (limit is None or len(lines) < limit + 1) and chars <= cap:
        chunk = f.read_at(pos, _CHUNK)
        if not chunk:
            if pending:
                lines.append(_decode(pending, what, start + len(lines)))
            return lines, start + len(lines) - 1
        pos += len(chunk)
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            lines.append(_decode(raw, what, start + len(lines)))
            chars += len(lines[-1]) + 1
        if len(pending) > 4 * cap:  # one line longer than the cap: its head is enough
            lines.append(_decode(pending[: 4 * cap], what, start + len(lines), partial=True))
            break
    return lines, None


def _skip_lines(f: OpenFile, start: int) -> tuple[int | None, int]:
    """The byte offset of line ``start`` (None if the file has fewer lines) and the number
    of lines counted on the way."""
    pos, line_no, last_byte = 0, 1, b"\n"
    while line_no < start:
        chunk = f.read_at(pos, _CHUNK)
        if not chunk:
            counted = line_no - 1 if last_byte == b"\n" else line_no
            return None, counted
        need = start - line_no
        found = chunk.count(b"\n")
        if found < need:
            line_no += found
            pos += len(chunk)
            last_byte = chunk[-1:]
            continue
        idx = -1
        for _ in range(need):
            idx = chunk.index(b"\n", idx + 1)
        return pos + idx + 1, start
    return pos, line_no


def _decode(raw: bytes, what: str, n: int, *, partial: bool = False) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if partial and exc.start >= len(raw) - 3:
            return raw[: exc.start].decode("utf-8")
        raise SpanError(
            f"{what} is not UTF-8 text (line {n:,}); read_file works on text files only"
        ) from None


def _binary(what: str, size: int) -> str:
    return (
        f"{what} is a binary or non-UTF-8 file ({size:,} bytes); read_file works on text files only"
    )


def _size(size: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size:,}-byte"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


__all__ = ["EMPTY_FILE", "SpanError", "SpanText", "lines_marker", "read_body_cap", "read_span"]
