"""What a result is about, for supersession (§3.2): two reads of one file (of one range, or
a whole read), two greps of one pattern over one glob, two finds of one glob, two
listings of one directory are one answer. Paths are compared normalised.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.ledger import Observation
from harness.types import normalize_path

Key = tuple[str, str]
Range = tuple[int | None, int | None]
WHOLE: Range = (None, None)


def subject(obs: Observation) -> tuple[Key, Range] | None:
    """The subject and the line range of ``obs`` (``WHOLE`` unless a ranged read); None
    for a kind that is never superseded (writes, edits, exec, the model's words)."""
    if obs.kind == "read_file" and obs.read is not None:
        return ("read", normalize_path(obs.read.path)), (obs.read.offset, obs.read.limit)
    if obs.kind in ("grep", "find"):
        return (obs.kind, obs.target), WHOLE
    if obs.kind == "list_dir":
        return (obs.kind, normalize_path(obs.target)), WHOLE
    return None


Subject = tuple[Key, Range] | None


class Subjects:
    """The carried results of each subject, oldest first, as the window holds them."""

    def __init__(self) -> None:
        self._carried: dict[Key, dict[Range, list[int]]] = {}

    def add(self, seq: int, found: Subject) -> None:
        """Register a carried result without comparing it (rebuilding the index)."""
        if found is not None:
            key, rng = found
            self._carried.setdefault(key, {}).setdefault(rng, []).append(seq)

    def replace(self, old: int, new: int, found: Subject) -> None:
        """``new`` (a re-read) is carried for ``found`` in place of ``old`` (the stale read)."""
        if found is not None:
            key, rng = found
            seqs = self._carried.setdefault(key, {}).setdefault(rng, [])
            if old in seqs:
                seqs.remove(old)
            seqs.append(new)

    def offer(
        self,
        obs: Observation,
        found: Subject,
        same: Callable[[int, Observation], bool],
    ) -> tuple[int | None, list[int]]:
        """A new result ``obs`` of subject ``found``: ``(ref, [])`` when it shows exactly
        what the latest carried result of its subject and range shows (``same(ref, obs)``),
        so it becomes a stub pointing there; else
        ``(None, victims)``, the carried results it supersedes (only a successful result
        supersedes; a range only its own range, a whole read every range of its file)."""
        if found is None:
            return None, []
        key, rng = found
        ranges = self._carried.setdefault(key, {})
        if not obs.ok:
            ranges.setdefault(rng, []).append(obs.seq)
            return None, []
        carried = ranges.get(rng)
        if carried and same(carried[-1], obs):
            return carried[-1], []
        if rng == WHOLE:
            victims = [s for seqs in ranges.values() for s in seqs]
            ranges.clear()
        else:
            victims = ranges.pop(rng, [])
        ranges[rng] = [obs.seq]
        return None, victims
