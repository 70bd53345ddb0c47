"""Rule 3 (§3): a stale read is refreshed, not trusted.

The ledger says when a read's file changed; the text the model holds decides whether the
read is stale: a re-read showing the same lines (an edit outside a ranged read's lines, or
outside the lines a capped read showed) confirms the read and sends nothing. Otherwise a
**refresh entry** is appended after everything already sent — the stale copy stays as it
was sent until the next slide (``harness.context.slide``) — naming the read it corrects
and what changed it, then the changed lines as they are now (``harness.context.hunks``):

    [read src/a.py:40-52] (refreshed at step 9: the write at step 5 changed it since the
    read at step 3)
    @@ lines 44–47 now @@
    …

If the policy refuses the re-read, or the path is gone, the entry says so instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.context.declared import empty_file
from harness.context.emission import CARRIED, Entry, Form, Refreshed
from harness.context.events import refused_event, reread_event
from harness.context.hunks import changed_lines
from harness.context.outcome import Refresher
from harness.context.own_edits import Pointer, own_edit_line, pointer_text
from harness.context.plan import Plan
from harness.context.state import Unrefreshed
from harness.context.texts import label, refresh_text, same_lines, unrefreshed_text
from harness.ledger import Confirmation, Ledger, Observation, Refresh
from harness.types import ReadSpan, content_hash, normalize_path

Check = Confirmation | Refresh | Unrefreshed


def recheck(
    obs: Observation, ledger: Ledger, refresh: Refresher, *, step: int, mark: int
) -> Check | None:
    """None when nothing changed ``obs``'s file since the model's copy was taken; else a
    ``Confirmation`` (the lines the model holds are unchanged), a ``Refresh`` (their
    current text) or ``Unrefreshed`` (why the re-read failed)."""
    change = ledger.stale_reason(obs)
    if change is None or obs.read is None:
        return None
    outcome = refresh(obs.read)
    if not outcome.ok or outcome.content_hash is None:
        return Unrefreshed(change, outcome.reason)
    shown = outcome.shown_hash or content_hash(outcome.text.encode())
    prior = ledger.refresh_of(obs.seq)
    held = prior.shown_hash if prior is not None else obs.read.shown_hash
    if shown == held or outcome.content_hash == ledger.seen_hash(obs):
        return Confirmation(obs.seq, mark, outcome.content_hash)
    return Refresh(obs.seq, step, mark, outcome.text, outcome.content_hash, change, shown)


def held_text(obs: Observation, ledger: Ledger) -> str | None:
    """The lines the model holds for the read ``obs``: its latest refresh's, else the body
    of the read as it was sent (None when it cannot be told apart from the header)."""
    prior = ledger.refresh_of(obs.seq)
    if prior is not None:
        return prior.text
    assert obs.read is not None
    lines = obs.text.split("\n")[1:]
    while lines and lines[0].startswith("note: "):
        lines.pop(0)
    if lines and lines[-1].startswith("…[line"):
        lines.pop()
    body = "\n".join(lines)
    if body == empty_file():
        body = ""
    return body if content_hash(body.encode()) == obs.read.shown_hash else None


def check_window(plan: Plan) -> None:
    """Rule 3 for the carried reads whose file changed since the last turn (each was right
    as of then: refreshed, confirmed or taken after its file's last change); the refresh
    entries go after everything else, in the order of the reads they correct."""
    s = plan.state
    pointers: list[_Pointed] = []
    for seq in range(s.boundary, plan.admitted):
        about = s.subjects[seq]
        if about is None or s.items[seq].read is None or s.entries[seq].form not in CARRIED:
            continue
        if seq in s.replaced or seq in s.unrefreshed:
            continue  # a later result is the current answer, or the model was told
        if seq >= plan.sent or normalized(s.items[seq]) in plan.changed:
            _check(plan, seq, pointers)
    _join(plan, pointers)


def normalized(obs: Observation) -> str:
    assert obs.read is not None
    return normalize_path(obs.read.path)


def _check(plan: Plan, seq: int, pointers: list[_Pointed]) -> None:
    s = plan.state
    obs = s.items[seq]
    check = recheck(obs, plan.ledger, plan.refresh, step=plan.step, mark=plan.mark)
    if isinstance(check, Confirmation):
        plan.confirmations[seq] = check
    elif isinstance(check, Refresh):
        plan.refreshes[seq] = check
        plan.events[seq] = reread_event(obs, check)
        span = obs.read
        assert span is not None
        held = held_text(obs, plan.ledger)
        own = own_edit_line(plan, obs, check, held)
        if own is not None:
            text = pointer_text(plan.step, [([label(obs)], [own])])
        else:
            body = check.text if held is None else changed_lines(held, check.text, span.offset or 1)
            text = refresh_text(obs, plan.step, check.invalidated_by, _once(plan, obs, body))
        read = ReadSpan(span.path, span.offset, span.limit, check.content_hash, check.shown_hash)
        s.stale[seq] = _append(plan, obs, text, read)
        if own is not None:
            pointers.append(_Pointed(s.stale[seq], len(plan.refreshed) - 1, obs, own))
    elif isinstance(check, Unrefreshed):
        s.unrefreshed[seq] = check
        plan.events[seq] = refused_event(obs, check, plan.step)
        text = unrefreshed_text(obs, plan.step, check.change, check.reason)
        s.stale[seq] = _append(plan, obs, text, None)


@dataclass(frozen=True)
class _Pointed:
    """An own-edit pointer appended this turn: its entry, its place in ``plan.refreshed``,
    the read it refreshes and what it says."""

    seq: int
    at: int
    read: Observation
    pointer: Pointer


def _join(plan: Plan, pointers: list[_Pointed]) -> None:
    """This turn's own-edit pointers as one text, on the first one's entry (the others send
    nothing; each keeps its own line in the ledger): the reads of one file that the same
    calls made stale share one line naming them all."""
    if len(pointers) < 2:
        return
    groups: dict[tuple[str, str, bool], list[_Pointed]] = {}
    for p in pointers:
        key = (normalized(p.read), p.pointer.who, not p.pointer.spans)
        groups.setdefault(key, []).append(p)
    text = pointer_text(
        plan.step,
        [([label(p.read) for p in g], [p.pointer for p in g]) for g in groups.values()],
    )
    s = plan.state
    for i, p in enumerate(pointers):
        sent = text if i == 0 else ""
        plan.put(p.seq, s.entries[p.seq].restyled(Form.REFRESH, sent))
        plan.refreshed[p.at] = replace(plan.refreshed[p.at], chars=len(sent))


def _once(plan: Plan, obs: Observation, body: str) -> str:
    """``body`` (or the empty-file line), unless an earlier refresh entry of this request
    shows the same lines of the same file (two reads of one file, one change): then a
    pointer to it, so the changed lines are sent once."""
    body = body or empty_file()
    first = plan.shown.setdefault((normalized(obs), body), obs)
    pointer = same_lines(first)
    return pointer if first is not obs and len(pointer) < len(body) else body


def _append(plan: Plan, stale: Observation, text: str, read: ReadSpan | None) -> int:
    """A refresh entry for ``stale``: a new item at the end, recorded in the ledger at
    commit at this position."""
    s = plan.state
    new = Observation(
        len(s.items), plan.step, stale.kind, stale.target, text, read=read, reread_of=stale.seq
    )
    entry = Entry(new.seq, new.step, new.kind, Form.REFRESH, plan.capped(text))
    plan.append(new, entry)
    plan.refreshed.append(Refreshed(stale.target, stale.step, len(entry.text), read is not None))
    return new.seq
