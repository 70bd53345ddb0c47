"""Rule 3, the agent's own edit (§3): a refresh entry of one line that points at the call.

When every change to a read's file since the model's copy was taken is the agent's own
successful ``edit_file`` / ``write_file`` / ``rename_symbol`` (an unbroken chain of hashes
from the copy's, ``Ledger.own_writes``) and the re-read — through the policy and
containment, like any refresh — has the hash the last of them left, the call that made the
change already stands later in the request, its arguments whole:

    [read src/a.py:40-52] (refreshed at step 9: your edit at step 5 changed lines 44–47;
    that call shows the new text)
    [read src/b.py] (refreshed at step 9: your rename at step 5 changed lines 12, 40)

Anything else that touched the file (a command, the user, a formatter, git — alone or on
top of the agent's edit), or a call whose arguments the request elided, gets the hunks.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from harness.context.hunks import lines_named
from harness.context.plan import Plan
from harness.ledger import MESSAGE, Change, Observation, Refresh
from harness.tools import label_of

OWN_KINDS = frozenset({"edit_file", "write_file", "rename_symbol"})
ELIDED = "…[elided: "


def own_edit_line(plan: Plan, obs: Observation, check: Refresh, held: str | None) -> str | None:
    """The one-line refresh of the read ``obs`` when only the agent's own calls changed its
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
        return f"your write at {at} replaced it; that call holds the whole new text"
    if held is None:
        return None
    span = obs.read
    assert span is not None
    lines = changed_line_ranges(held, check.text, span.offset or 1)
    many = len(changes) > 1
    if set(kinds) == {"rename_symbol"}:  # its call names the symbol, not each line's text
        return f"your rename at {at} changed {lines}"
    what = label_of(kinds[0]) if len(set(kinds)) == 1 else "edit"
    calls = "those calls show" if many else "that call shows"
    return f"your {what}{'s' if many else ''} at {at} changed {lines}; {calls} the new text"


def changed_line_ranges(held: str, now: str, first: int) -> str:
    """``lines 44–47, 60`` — the lines of ``now`` that differ from ``held`` (numbered from
    ``first``); a pure deletion names the line after it."""
    old, new = held.split("\n"), now.split("\n")
    spans: list[str] = []
    for tag, _, _, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        last = max(j1, j2 - 1)
        spans.append(
            lines_named(first + j1, first + last).removeprefix("lines ").removeprefix("line ")
        )
    word = "line" if len(spans) == 1 and "–" not in spans[0] else "lines"
    return f"{word} {', '.join(spans)}"


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
