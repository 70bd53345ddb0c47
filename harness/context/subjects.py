"""What a result is about, for supersession (§3 rule 2): what its tool declared as
``supersedes`` (``harness.tools.base.Declaration``) — the normalised path, with a read's
line range, or the target text — and the index of the results the window carries whole
for each subject."""

from __future__ import annotations

from collections.abc import Callable

from harness.context.declared import declaration
from harness.context.emission import CARRIED
from harness.context.state import State, Subject
from harness.ledger import Observation
from harness.types import normalize_path

Key = tuple[str, str]
Range = tuple[int | None, int | None]
WHOLE: Range = (None, None)


def subject(obs: Observation) -> Subject:
    """The subject and the line range of ``obs`` (``WHOLE`` unless a ranged read); None
    for a kind that is never superseded (writes, edits, exec, the model's words) and for
    the assembler's own refresh entries."""
    rule = declaration(obs.kind).supersedes
    if rule is None or obs.reread_of is not None:
        return None
    if rule == "target":
        return (obs.kind, obs.target), WHOLE
    if obs.read is not None:
        return (obs.kind, normalize_path(obs.read.path)), (obs.read.offset, obs.read.limit)
    return (obs.kind, normalize_path(obs.target)), WHOLE


class Subjects:
    """The carried results of each subject, oldest first, as the window holds them."""

    def __init__(self) -> None:
        self._carried: dict[Key, dict[Range, list[int]]] = {}

    def add(self, seq: int, found: Subject) -> None:
        """Register a carried result without comparing it (rebuilding the index)."""
        if found is not None:
            key, rng = found
            self._carried.setdefault(key, {}).setdefault(rng, []).append(seq)

    def offer(
        self, obs: Observation, found: Subject, same: Callable[[int, Observation], bool]
    ) -> tuple[int | None, list[int]]:
        """A new result ``obs`` of subject ``found``: ``(ref, [])`` when it shows exactly
        what the latest carried result of its subject and range shows, so it becomes a stub
        pointing there; else ``(None, victims)``, the carried results it supersedes (only a
        successful result supersedes; a range only its own range, a whole read every range
        of its file)."""
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


def index(state: State) -> Subjects:
    """The subjects of the results carried whole in the window and not yet replaced."""
    subjects = Subjects()
    for seq in range(state.boundary, len(state.items)):
        if state.entries[seq].form in CARRIED and seq not in state.replaced:
            subjects.add(seq, state.subjects[seq])
    return subjects
