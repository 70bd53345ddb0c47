"""A file's change split into hunks, and the inverse patch of one hunk (§11, issue 33).

The hunks of a file are the differences between its text before the run (or conversation)
and the text the agent last wrote (``difflib``, line by line): each a run of changed lines
between unchanged ones. A hunk's id is a digest of its path, place and texts, so it stays the
same whatever happens to the file on disk since. Undoing a hunk finds its lines — with the
unchanged line either side, the agent's — in the file as it is now and puts the lines from
before in their place; when they are not there (changed since) the undo is refused unless
``force``, which replaces the lines where the hunk would be.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Hunk:
    """One change: lines ``old_start``.. of the text before (``old_count`` of them, 0-based)
    became lines ``new_start``.. of the agent's text."""

    id: str
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    before: tuple[str, ...]  # the lines before, ends kept
    after: tuple[str, ...]  # the agent's lines
    context_above: str | None  # the unchanged line above (None: the hunk starts the file)
    context_below: str | None  # the unchanged line below (None: the hunk ends the file)

    def to_json(self, state: str) -> dict[str, Any]:
        """1-based line numbers, as editors count them."""
        return {
            "id": self.id,
            "oldStart": self.old_start + 1,
            "oldLines": self.old_count,
            "newStart": self.new_start + 1,
            "newLines": self.new_count,
            "before": "".join(self.before),
            "after": "".join(self.after),
            "state": state,
        }


class HunkMoved(Exception):
    """The hunk's lines are not in the file as the agent left them (changed since)."""


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def split_hunks(path: str, before: str, after: str) -> list[Hunk]:
    """The hunks that turn ``before`` into ``after``, top to bottom."""
    old, new = lines(before), lines(after)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    hunks = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        digest = hashlib.sha256(
            "\0".join([path, str(i1), "".join(old[i1:i2]), "".join(new[j1:j2])]).encode()
        ).hexdigest()[:16]
        hunks.append(
            Hunk(
                id=digest,
                old_start=i1,
                old_count=i2 - i1,
                new_start=j1,
                new_count=j2 - j1,
                before=tuple(old[i1:i2]),
                after=tuple(new[j1:j2]),
                context_above=new[j1 - 1] if j1 > 0 else None,
                context_below=new[j2] if j2 < len(new) else None,
            )
        )
    return hunks


def undo_hunk(hunk: Hunk, now: str, expected_at: int, *, force: bool) -> str:
    """``now`` with ``hunk``'s lines put back as they were before. ``expected_at``: where the
    hunk's first line should be in ``now`` (its place, shifted by hunks undone above it).
    Raises ``HunkMoved`` when its lines are not there, unless ``force``."""
    current = lines(now)
    at = _find(hunk, current, expected_at)
    if at is None:
        if not force:
            raise HunkMoved(
                f"lines {hunk.new_start + 1}–{hunk.new_start + max(hunk.new_count, 1)} changed "
                "since the agent wrote them; undo with force to put the old lines there anyway"
            )
        at = min(max(expected_at, 0), len(current))
    end = min(at + hunk.new_count, len(current))
    return "".join([*current[:at], *hunk.before, *current[end:]])


def _find(hunk: Hunk, current: Sequence[str], expected_at: int) -> int | None:
    """Where the hunk's lines, with their context, are in ``current``; the place nearest
    ``expected_at`` when there are several."""
    found = [i for i in range(len(current) - hunk.new_count + 1) if _matches(hunk, current, i)]
    if not found:
        return None
    return min(found, key=lambda i: abs(i - expected_at))


def _matches(hunk: Hunk, current: Sequence[str], i: int) -> bool:
    n = hunk.new_count
    if tuple(current[i : i + n]) != hunk.after:
        return False
    if hunk.context_above is None:
        if i != 0:
            return False
    elif i == 0 or current[i - 1] != hunk.context_above:
        return False
    if hunk.context_below is None:
        return i + n == len(current)
    return i + n < len(current) and current[i + n] == hunk.context_below


__all__ = ["Hunk", "HunkMoved", "lines", "split_hunks", "undo_hunk"]
