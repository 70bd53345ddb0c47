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

from collections.abc import Sequence

from harness.context.emission import CARRIED, Entry, Form
from harness.context.pairing import pair
from harness.context.plan import Plan
from harness.context.subjects import subject
from harness.context.texts import elide_arguments, replaces_text, unchanged_stub
from harness.ledger import MESSAGE, Observation


def admit(plan: Plan, new: Sequence[Observation]) -> None:
    """The new ledger items, capped where they enter (rule 4), paired with their calls,
    and each result offered to rule 2."""
    s = plan.state
    plan.admitted = len(s.items) + len(new)
    pairing = pair(new)
    for obs in new:
        assert obs.seq == len(s.items), "the ledger is append-only"
        s.items.append(obs)
        s.groups.append(pairing.group[obs.seq])
        s.subjects.append(subject(obs))
        if obs.kind == MESSAGE:
            cap = plan.ceiling.entry_cap
            calls = tuple(elide_arguments(c, cap) for c in pairing.calls[obs.seq])
            text = plan.capped(obs.text) if obs.text else ""
            entry = Entry(obs.seq, obs.step, MESSAGE, Form.WHOLE, text, calls)
        else:
            answers = pairing.answers.get(obs.seq)
            text = plan.capped(obs.text)
            entry = Entry(obs.seq, obs.step, obs.kind, Form.WHOLE, text, call_id=answers)
        s.entries.append(entry)
        s.cost += entry.cost
        if obs.kind != MESSAGE:
            offer(plan, obs)


def offer(plan: Plan, obs: Observation) -> None:
    """Rule 2 for the new result ``obs``, carried whole: it becomes the unchanged stub when
    it shows what the latest carried result of its subject shows; else it replaces the
    carried ones, and its header says so."""
    s = plan.state
    ref, victims = plan.subjects.offer(obs, s.subjects[obs.seq], lambda q, o: _same(plan, q, o))
    entry = s.entries[obs.seq]
    if ref is not None:
        refresh = plan.refresh_of(ref) if ref in s.stale else None
        at = refresh.step if refresh is not None else None
        stub = unchanged_stub(obs, s.items[ref], refreshed_at=at)
        plan.put(obs.seq, entry.restyled(Form.UNCHANGED, stub, ref))
        return
    carried = [v for v in victims if s.entries[v].form in CARRIED and v not in s.replaced]
    if not carried:
        return
    for victim in carried:
        s.replaced[victim] = obs.seq
    text = replaces_text(obs, [s.items[v] for v in carried])
    plan.put(obs.seq, entry.restyled(Form.WHOLE, plan.capped(text)))


def _same(plan: Plan, seq: int, obs: Observation) -> bool:
    """Whether ``obs`` shows exactly what the model holds for the carried ``seq``: its text,
    or for a stale copy the lines as its refresh entry corrected them (a ranged re-read
    whose lines did not change while others of the file did is the same answer)."""
    state = plan.state
    entry, earlier = state.entries[seq], state.items[seq]
    if not earlier.ok or seq in state.unrefreshed or entry.form is not Form.WHOLE:
        return False
    if seq not in state.stale:
        return earlier.text == obs.text
    refresh = plan.refresh_of(seq)
    if refresh is None or obs.read is None or earlier.read is None:
        return False
    same_header = obs.text.split("\n", 1)[0] == earlier.text.split("\n", 1)[0]
    return (
        same_header
        and refresh.shown_hash is not None
        and (refresh.shown_hash == obs.read.shown_hash)
    )
