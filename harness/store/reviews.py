"""The SQL of hunk review (§11, issue 33): each keep or undo of a hunk of a conversation's
changes is a row of ``hunk_reviews``; the latest row of a hunk is its state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.store.base import now_iso
from harness.store.connection import Connection


@dataclass(frozen=True)
class HunkMark:
    """One keep or undo of a hunk: ``left`` is the file's bytes an undo left (None: a keep)."""

    path: str
    hunk_id: str
    state: str  # "kept" | "undone"
    left: bytes | None = None


def insert_marks(conn: Connection, conversation_id: int, marks: Sequence[HunkMark]) -> None:
    now = now_iso()
    for m in marks:
        conn.execute(
            "INSERT INTO hunk_reviews"
            " (conversation_id, path, hunk_id, state, left_content, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (conversation_id, m.path, m.hunk_id, m.state, m.left, now),
        )


def select_marks(conn: Connection, conversation_id: int) -> list[HunkMark]:
    """Every mark of the conversation, oldest first (a later mark of a hunk wins)."""
    return [
        HunkMark(r[0], r[1], r[2], r[3])
        for r in conn.execute(
            "SELECT path, hunk_id, state, left_content FROM hunk_reviews"
            " WHERE conversation_id = ? ORDER BY id",
            (conversation_id,),
        )
    ]


__all__ = ["HunkMark", "insert_marks", "select_marks"]
