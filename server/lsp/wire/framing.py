"""The LSP base protocol on the way in: ``Content-Length`` frames cut out of the bytes the
client writes to stdin, and the thread that reads them.

pygls's reader (``pygls.io_.run_async``, 2.1) matches exactly ``Content-Length: <digits>\\r\\n``
and otherwise waits for a blank line *after* a length it never got, so one missing or
non-numeric ``Content-Length`` makes it misread every later message: the connection is
wedged for good, silently. No upstream issue covers it (searched pygls's tracker: #604 is
the server's own length in characters, #133 a client-side symptom); the server reads the
stream here instead:

- header names are matched case-insensitively, ``\\n`` is accepted for ``\\r\\n``, other
  headers (``Content-Type``) are ignored, blank lines between frames are skipped;
- a header block without a usable length, a garbage or over-long header line, or a length
  over ``MAX_BODY_BYTES`` is a ``BadFrame``: the server answers it with an error and the
  parser *resynchronises* — it skips to the next ``Content-Length:`` in the stream (an
  absurd length is not trusted to skip by: that would wait for bytes that never come);
- bytes are read by one daemon thread (``StdinPump``), never by a pool the server must
  join, so a client that keeps stdin open cannot stop the process from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
from dataclasses import dataclass
from typing import BinaryIO

MAX_HEADER_LINE_BYTES = 8 * 1024
MAX_HEADER_LINES = 32
MAX_BODY_BYTES = 64 * 1024 * 1024
READ_CHUNK_BYTES = 64 * 1024
QUEUED_CHUNKS = 64  # the pump waits when the server is this far behind

_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\S*)[ \t]*", re.IGNORECASE)
_HEADER = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*:.*")  # an RFC 9110 token, ":", a value
_RESYNC = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_RESYNC_KEEP = len(b"content-length:")


@dataclass(frozen=True)
class BadFrame:
    """What could not be read as a frame; the parser has skipped past it."""

    reason: str


class FrameParser:
    """Sans-IO: ``feed(data)`` returns the bodies (``bytes``) and ``BadFrame``s completed."""

    def __init__(self, max_body: int = MAX_BODY_BYTES) -> None:
        self.max_body = max_body
        self._buf = bytearray()
        self._length: int | None = None  # from the header block being read
        self._lines = 0
        self._body: int | None = None  # bytes of body awaited
        self._resync = False
        self._resync_from = 0

    def feed(self, data: bytes) -> list[bytes | BadFrame]:
        self._buf += data
        out: list[bytes | BadFrame] = []
        while self._step(out):
            pass
        return out

    def _step(self, out: list[bytes | BadFrame]) -> bool:
        """Consume what one state can; False when more bytes are needed."""
        if self._resync:
            return self._find_header()
        if self._body is not None:
            if len(self._buf) < self._body:
                return False
            out.append(bytes(self._buf[: self._body]))
            del self._buf[: self._body]
            self._body = None
            return True
        return self._header_line(out)

    def _header_line(self, out: list[bytes | BadFrame]) -> bool:
        end = self._buf.find(b"\n")
        if end < 0:
            if len(self._buf) > MAX_HEADER_LINE_BYTES:
                self._bad(out, f"a header line is over {MAX_HEADER_LINE_BYTES:,} bytes")
                return True
            return False
        line = bytes(self._buf[:end]).rstrip(b"\r")
        if not line:
            del self._buf[: end + 1]
            return self._end_of_headers(out)
        self._lines += 1
        problem = self._header(line)
        if problem is None:
            del self._buf[: end + 1]
        else:  # the line stays: the next header may start inside it
            self._bad(out, problem)
        return True

    def _header(self, line: bytes) -> str | None:
        """Take one header line; what is wrong with it, or None."""
        if len(line) > MAX_HEADER_LINE_BYTES:
            return f"a header line is over {MAX_HEADER_LINE_BYTES:,} bytes"
        if self._lines > MAX_HEADER_LINES:
            return f"the header block is over {MAX_HEADER_LINES} lines"
        if (match := _LENGTH.fullmatch(line)) is not None:
            value = match.group(1)
            if not value.isdigit() or len(value) > 15:
                return "`Content-Length` is not a number of bytes"
            self._length = int(value)
            return None
        if not _HEADER.fullmatch(line) or _RESYNC.search(line, 1):
            return "expected a header line (`Name: value`) or a blank line"
        return None

    def _end_of_headers(self, out: list[bytes | BadFrame]) -> bool:
        if self._lines == 0:  # a stray blank line between frames
            return True
        length, self._length, self._lines = self._length, None, 0
        if length is None:
            self._bad(out, "the header block has no `Content-Length`", start=0)
        elif length > self.max_body:  # searched past, not skipped: the length may be a lie
            self._bad(out, f"a message of {length:,} bytes is over {self.max_body:,}", start=0)
        else:
            self._body = length
        return True

    def _bad(self, out: list[bytes | BadFrame], reason: str, start: int = 1) -> None:
        """Report ``reason`` and look for the next ``Content-Length:`` from ``start`` (1:
        past the beginning of the bad line, so the search always moves on)."""
        out.append(BadFrame(reason))
        self._length, self._lines = None, 0
        self._resync, self._resync_from = True, start

    def _find_header(self) -> bool:
        match = _RESYNC.search(self._buf, self._resync_from)
        if match is None:
            del self._buf[: max(self._resync_from, len(self._buf) - _RESYNC_KEEP)]
            self._resync_from = 0
            return False
        del self._buf[: match.start()]
        self._resync, self._resync_from = False, 0
        return True


class StdinPump:
    """Reads the client's bytes in a daemon thread and hands them to the event loop in
    order; ``None`` marks the end of the stream."""

    def __init__(self, stdin: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUED_CHUNKS)
        self._fd = stdin.fileno()
        self._loop = loop
        self._thread = threading.Thread(target=self._run, name="harness-lsp stdin", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                data: bytes | None = os.read(self._fd, READ_CHUNK_BYTES) or None
            except OSError:
                data = None
            if not self._put(data) or data is None:
                return

    def _put(self, data: bytes | None) -> bool:
        try:
            future = asyncio.run_coroutine_threadsafe(self.queue.put(data), self._loop)
        except RuntimeError:  # the loop is closed: the server is gone
            return False
        with contextlib.suppress(Exception):
            future.result()
            return True
        return False


__all__ = ["MAX_BODY_BYTES", "BadFrame", "FrameParser", "StdinPump"]
