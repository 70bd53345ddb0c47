"""Rule 2 (§3): superseded observations compact.

Two reads of one file (of one range, or a whole read), two greps of one pattern over one
glob, two finds of one glob, two listings of one directory are one answer — what a tool
class declared as ``supersedes`` (``harness.tools.base.Declaration``). Paths are compared
normalised.

Between slides nothing already sent changes: a later result byte-identical to the latest
carried one becomes ``[read src/a.py] (unchanged since the read at step 3, shown above)``;
a differing one is carried whole, its header naming what it replaces
(``[read src/a.py] (replaces the read at step 3)``), and the earlier copy stays as sent
until the next slide (``harness.context.slide``) makes it a stub.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from harness.context.emission import CARRIED, Form
from harness.context.texts import replaces_text, unchanged_stub
from harness.ledger import Observation
from harness.tools import declaration
from harness.types import normalize_path

if TYPE_CHECKING:
    from harness.context.plan import Plan
    from harness.context.state import State

Key = tuple[str, str]
Range = tuple[int | None, int | None]
WHOLE: Range = (None, None)
Subject = tuple[Key, Range] | None


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


def offer(plan: Plan, obs: Observation) -> None:
    """Rule 2 for the new result ``obs``, carried whole: it becomes the unchanged stub when
    it shows what the latest carried result of its subject shows; else it replaces the
    carried ones, and its header says so."""
    s = plan.state
    ref, victims = plan.subjects.offer(obs, s.subjects[obs.seq], lambda q, o: _same(s, q, o))
    entry = s.entries[obs.seq]
    if ref is not None:
        stub = unchanged_stub(obs, s.items[ref])
        plan.put(obs.seq, entry.restyled(Form.UNCHANGED, stub, ref))
        return
    carried = [v for v in victims if s.entries[v].form in CARRIED and v not in s.replaced]
    if not carried:
        return
    for victim in carried:
        s.replaced[victim] = obs.seq
    text = replaces_text(obs, [s.items[v] for v in carried])
    plan.put(obs.seq, entry.restyled(Form.WHOLE, plan.capped(text)))


def _same(state: State, seq: int, obs: Observation) -> bool:
    """Whether ``obs`` shows exactly what the carried ``seq`` shows (a stale copy never
    does: the model is told to read it with its refresh)."""
    entry, earlier = state.entries[seq], state.items[seq]
    if not earlier.ok or seq in state.stale or seq in state.unrefreshed:
        return False
    if entry.form is Form.WHOLE:
        return earlier.text == obs.text
    return False
