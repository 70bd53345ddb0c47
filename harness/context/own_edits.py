"""Rule 3, the agent's own edit (§3): a refresh entry of one line that points at the call.

When every change to a read's file since the model's copy was taken is the agent's own
successful ``edit_file`` / ``write_file`` / ``rename_symbol`` (an unbroken chain of hashes
from the copy's, ``Ledger.own_writes``) and the re-read — through the policy and
containment, like any refresh — has the hash the last of them left, the call that made the
change already stands later in the request, its arguments whole:

    [read src/a.py:40-52] (refreshed at step 9: your edit at step 5 changed lines 44–47)
    [read src/b.py] (refreshed at step 9: your rename at step 5 changed lines 12, 40)

The reads of one file that the same calls made stale share one line, naming them all
(``[read src/a.py:40-52, 30-129] …``, the lines of the file those calls changed), and one
turn's pointers are one text (``pointer_text``): each pointer line is ~100 characters,
carried on every later request, so on an edit-heavy session that never slides they are
what the bounded request pays over appending (issue 34).

Anything else that touched the file (a command, the user, a formatter, git — alone or on
top of the agent's edit), or a call whose arguments the request elided, gets the hunks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from harness.context.declared import label_of
from harness.context.hunks import lines_named
from harness.context.plan import Plan
from harness.ledger import MESSAGE, Change, Observation, Refresh

OWN_KINDS = frozenset({"edit_file", "write_file", "rename_symbol"})
ELIDED = "…[elided: "
GAP = 2  # unchanged lines between two changed ones named as one span (as hunks' context)
Span = tuple[int, int]  # first and last line, the file's numbering
_RANGED = re.compile(r"^(\[.+):(\d+-\d*)\]$")  # ``[read src/a.py:40-52]``


@dataclass(frozen=True)
class Pointer:
    """One stale read's own-edit refresh: the calls (``your edit at step 5``) and the lines
    they changed in the model's copy; no lines: a write replaced the whole text."""

    who: str
    spans: tuple[Span, ...] = ()

    def says(self, spans: Sequence[Span] | None = None) -> str:
        """``your edit at step 5 changed lines 44–47`` (``spans``: the lines to name)."""
        if not self.spans:
            return f"{self.who} replaced it"
        return f"{self.who} changed {lines_text(spans or self.spans)}"


def own_edit_line(plan: Plan, obs: Observation, check: Refresh, held: str | None) -> Pointer | None:
    """The pointer refreshing the read ``obs`` when only the agent's own calls changed its
    file since the model's copy (``held``: the lines the model holds); else None."""
    changes = plan.ledger.own_writes(obs)
    if not changes or changes[-1].new_hash != check.content_hash:
        return None
    made = [_maker(plan, c) for c in changes]
    if any(m is None for m in made):
        return None
    kinds = [m.kind for m in made if m is not None]
    steps = sorted({c.step for c in changes})
    at = f"step {steps[0]}" if len(steps) == 1 else f"steps {', '.join(map(str, steps))}"
    if kinds == ["write_file"]:
        return Pointer(f"your write at {at}")
    if held is None:
        return None
    span = obs.read
    assert span is not None
    spans = changed_spans(held, check.text, span.offset or 1, ranged=not span.whole)
    if not spans:
        return None
    if set(kinds) == {"rename_symbol"}:  # its call names the symbol, not each line's text
        return Pointer(f"your rename at {at}", tuple(spans))
    what = label_of(kinds[0]) if len(set(kinds)) == 1 else "edit"
    return Pointer(f"your {what}{'s' if len(changes) > 1 else ''} at {at}", tuple(spans))


def pointer_text(step: int, groups: Sequence[tuple[Sequence[str], Sequence[Pointer]]]) -> str:
    """One turn's own-edit refresh text: a line per group of reads (their labels) and the
    pointers refreshing them — ``[read src/a.py:40-52, 30-129] (refreshed at step 9: your
    edit at step 5 changed lines 44–47)``, the lines being every line the group's copies
    name."""
    lines = []
    for labels, pointers in groups:
        spans = merged([s for p in pointers for s in p.spans])
        lines.append(f"{subjects(labels)} (refreshed at step {step}: {pointers[0].says(spans)})")
    return "\n".join(lines)


def subjects(labels: Sequence[str]) -> str:
    """``[read src/a.py:40-52, 30-129]`` for ranged reads of one file; else the labels."""
    found = [_RANGED.match(label) for label in labels]
    if len(labels) > 1 and all(found) and len({m[1] for m in found if m}) == 1:
        return f"{labels[0].rsplit(':', 1)[0]}:{', '.join(m[2] for m in found if m)}]"
    return " ".join(labels)


def merged(spans: Sequence[Span]) -> list[Span]:
    """``spans`` sorted, those at most ``GAP`` unchanged lines apart joined: one call's
    region (``lines 84–87`` for an edit of 84, 86 and 87) is named as one."""
    out: list[Span] = []
    for first, last in sorted(set(spans)):
        if out and first <= out[-1][1] + GAP + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def lines_text(spans: Sequence[Span]) -> str:
    """``lines 44–47, 60`` (``line 44``)."""
    named = [lines_named(a, b).removeprefix("lines ").removeprefix("line ") for a, b in spans]
    word = "line" if len(spans) == 1 and spans[0][0] == spans[0][1] else "lines"
    return f"{word} {', '.join(named)}"


def changed_spans(held: str, now: str, first: int, *, ranged: bool = False) -> list[Span]:
    """The lines of ``now`` that differ from ``held`` (numbered from ``first``); a pure
    deletion names the line after it. For a ranged read (``ranged``) still as long as it
    was, a deletion at its end is the lines an insertion pushed out of the range, not a
    change: not named."""
    old, new = held.split("\n"), now.split("\n")
    ops = SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    if ranged and len(old) == len(new) and ops and ops[-1][0] == "delete":
        ops = ops[:-1]
    return [(first + j1, first + max(j1, j2 - 1)) for tag, _, _, j1, j2 in ops if tag != "equal"]


def _maker(plan: Plan, change: Change) -> Observation | None:
    """The agent's result that made ``change`` (the result just before it in the ledger),
    when its call stands in the request with its arguments whole."""
    s = plan.state
    seq = change.seq - 1
    if not 0 <= seq < len(s.items) or s.items[seq].kind not in OWN_KINDS:
        return None
    made = s.items[seq]
    if not made.ok or made.call_id is None:
        return None
    for q in range(seq, s.fold.end - 1, -1):
        entry = s.entries[q]
        if entry.kind != MESSAGE or not any(c.id == made.call_id for c in entry.calls):
            continue
        sent = [
            t
            for c, t in zip(entry.calls, entry.call_texts or (), strict=False)
            if c.id == made.call_id
        ]
        return made if sent and ELIDED not in sent[0] and entry.form.value == "whole" else None
    return None
