"""The terminal's lines in ``harness chat`` (issue 33, steering): one thread reads stdin for
the whole chat and gives each line to whoever it is for — between turns, the next turn;
while an approval is asked, its answer; while a turn runs, words for that turn
(``harness.run.steer``'s path: queued, then added as the user's message after the current
step's tool results). Only on a terminal: piped lines stay one turn each."""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

SENT = "harness: sent to the running turn (it reads it after this step): {text}\n"


class ChatInput:
    """stdin's lines, routed. ``next_line`` (between turns) and ``prompt`` (an approval's
    ``PromptFn``) wait for a line; ``steering(put)`` sends the lines typed meanwhile to
    ``put`` for as long as a turn runs."""

    def __init__(self, stdin: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self._stdin = stdin or sys.stdin
        self._stderr = stderr or sys.stderr
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._steer: Callable[[str], None] | None = None
        self._asking = 0
        threading.Thread(target=self._read, name="chat-stdin", daemon=True).start()

    def _read(self) -> None:
        while True:
            line = self._stdin.readline()
            if not line:
                self._lines.put(None)
                return
            self._route(line)

    def _route(self, line: str) -> None:
        with self._lock:
            steer = None if self._asking else self._steer
        text = line.strip()
        if steer is None or not text:
            self._lines.put(line)
            return
        steer(text)
        self._stderr.write(SENT.format(text=text))
        self._stderr.flush()

    def _wait(self) -> str:
        line = self._lines.get()
        if line is None:
            self._lines.put(None)  # every later wait sees the end too
            raise EOFError("stdin closed")
        return line

    def next_line(self, prompt: str) -> str:
        """The next turn's line, as ``input(prompt)`` gives it (EOFError at the end)."""
        sys.stdout.write(prompt)
        sys.stdout.flush()
        return self._wait().rstrip("\n")

    def prompt(self, text: str) -> str:
        """An approval's question on stderr and its answer (the next line typed)."""
        with self._lock:
            self._asking += 1
        try:
            self._stderr.write(text)
            self._stderr.flush()
            return self._wait()
        finally:
            with self._lock:
                self._asking -= 1

    @contextmanager
    def steering(self, put: Callable[[str], None]) -> Iterator[None]:
        """While the block runs, a line typed (no approval asked) goes to ``put``."""
        with self._lock:
            self._steer = put
        try:
            yield
        finally:
            with self._lock:
                self._steer = None


__all__ = ["ChatInput"]
