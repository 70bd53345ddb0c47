"""Which conversation an ACP session is. A client names a session by the id it got from
``session/new`` — before the conversation's first run exists — and may ask for it again
(``session/load``) from another process, so the pairing is kept in a small private file
beside the store: ``{sessionId: {cwd, runs}}``."""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

MAX_SESSIONS = 500  # the oldest are forgotten past this


def new_session_id() -> str:
    return f"harness-{secrets.token_hex(8)}"


class SessionBook:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def add_run(self, session_id: str, cwd: Path, run_id: int) -> None:
        with self._lock:
            book = self._read()
            entry = book.pop(session_id, None) or {"cwd": str(cwd), "runs": []}
            entry["runs"] = [*entry.get("runs", []), run_id]
            book[session_id] = entry  # the most recent last
            for old in list(book)[: max(0, len(book) - MAX_SESSIONS)]:
                del book[old]
            self._write(book)

    def runs(self, session_id: str, cwd: Path) -> list[int] | None:
        """The runs of ``session_id`` in ``cwd``; None when it is not known there."""
        entry = self._read().get(session_id)
        if not isinstance(entry, dict) or entry.get("cwd") != str(cwd):
            return None
        return [r for r in entry.get("runs", []) if isinstance(r, int)]

    def _write(self, book: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_suffix(".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(book, f)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("cannot record ACP sessions in %s: %s", self.path, exc)


__all__ = ["SessionBook", "new_session_id"]
