"""A server's stderr, drained so a flood never blocks it, its last lines kept to say why
it failed (``Tail``)."""

from __future__ import annotations

import contextlib
import os
import threading
from typing import TextIO

TAIL_BYTES = 2_000


class Tail:
    """A pipe the server writes its stderr to; a thread reads it to the end and keeps the
    last ``TAIL_BYTES``. ``file`` is what the SDK passes as the process's stderr."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self.file: TextIO = os.fdopen(write, "w")
        self.total = 0
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(read,), daemon=True)
        self._thread.start()

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65_536):
                with self._lock:
                    self.total += len(chunk)
                    self._tail = (self._tail + chunk)[-TAIL_BYTES:]

    def started(self) -> None:
        """The server has its own copy of the pipe: close ours, so the drain ends with it."""
        with contextlib.suppress(OSError):
            self.file.close()

    def text(self) -> str:
        with self._lock:
            tail = bytes(self._tail).decode("utf-8", "replace").strip()
        lines = tail.splitlines()[-5:]
        return " / ".join(lines)


__all__ = ["TAIL_BYTES", "Tail"]
