"""Rule 5 (§3): the window slides in steps, not every turn — and a slide is where the
copies rules 2 and 3 left as they were sent are cleaned up.

Walking newest to oldest, entries are carried while they fit in the low-water fill
(``harness.context.window.cut``); the first that does not fit and everything older become
stubs. Inside the new window no stale or superseded copy survives: a copy a later result
replaced becomes ``[read src/a.py] (elided: superseded by the read at step 7)``; a stale
read becomes its current text, ``[read src/a.py] (refreshed at step 9)`` and the lines as
refreshed, in its own place (its refresh entries then send nothing); a read whose refresh
failed becomes a stub saying why. At a slide too, every tool-call argument over 200 chars
in the turns before the newest is elided, and stays so.
"""

from __future__ import annotations

import math

from harness.context.emission import CARRIED, Entry, Form
from harness.context.plan import Plan
from harness.context.refresh import recheck
from harness.context.subjects import index
from harness.context.texts import (
    ARGUMENT_KEEP_CHARS,
    current_text,
    elide_arguments,
    refused_stub,
    superseded_stub,
    unchanged_stub,
    window_stub,
)
from harness.context.window import cut
from harness.ledger import MESSAGE, Confirmation, Refresh


def slide(plan: Plan, budget: int, low_water: float) -> None:
    """Slide the window so the entries fit ``budget``, carrying at most ``low_water`` of it."""
    s = plan.state
    start, n = s.fold.end, len(s.items)
    newest = next((q for q in range(n - 1, start - 1, -1) if s.items[q].kind == MESSAGE), n)
    _elide(plan, start, newest)
    fill = math.floor(low_water * budget)
    checks: dict[int, Confirmation | Refresh] = {}
    inside = {q: _inside(plan, q, checks) for q in range(start, n)}
    boundary, folded = _place(plan, inside, budget, fill)
    if boundary == n and newest < n and _elide(plan, newest, newest + 1):
        inside[newest] = s.entries[newest]
        boundary, folded = _place(plan, inside, budget, fill)
    kinds: list[Form | None] = []
    for q in range(start, boundary):
        entry = _outside(plan, q)
        plan.put(q, entry)
        kinds.append(entry.form if entry.counted else None)
    restored: dict[int, int] = {}  # an original older than the window -> its copy carried
    for q in range(boundary, n):
        plan.put(q, _settled(plan, q, inside[q], boundary, restored=restored, checks=checks))
    s.fold = s.fold.extended(kinds[: folded - start])
    s.boundary = boundary
    s.replaced.clear()
    s.stale.clear()
    s.unrefreshed.clear()
    s.cost = sum(e.cost for e in s.entries[s.fold.end :])
    plan.subjects = index(s)
    plan.slid = True


def _elide(plan: Plan, start: int, stop: int) -> bool:
    """Elide the long arguments of the turns in ``[start, stop)``; True if any was."""
    s = plan.state
    changed = False
    for q in range(start, stop):
        entry = s.entries[q]
        if not entry.call_texts or max(map(len, entry.call_texts)) <= ARGUMENT_KEEP_CHARS:
            continue  # no argument is that long when the whole call is not
        calls = tuple(elide_arguments(c, ARGUMENT_KEEP_CHARS) for c in entry.calls)
        if any(a is not b for a, b in zip(calls, entry.calls, strict=True)):
            plan.put(q, entry.with_calls(calls))
            changed = True
    return changed


def _place(plan: Plan, inside: dict[int, Entry], budget: int, fill: int) -> tuple[int, int]:
    """Where the window starts and where the fold ends, as seqs."""
    s = plan.state
    start, n = s.fold.end, len(s.items)
    outside = [_outside(plan, q) for q in range(start, n)]
    found = cut(
        [inside[q].cost for q in range(start, n)],
        [e.cost for e in outside],
        [s.groups[q] - start for q in range(start, n)],
        walk_from=max(0, s.boundary - start),
        budget=budget,
        fill=fill,
        line=s.fold.line_costs([e.form if e.counted else None for e in outside]),
    )
    return start + found.boundary, start + found.folded


def _inside(plan: Plan, seq: int, checks: dict[int, Confirmation | Refresh]) -> Entry:
    """The entry as the new window carries it: cleaned up, and an unchanged stub counted
    as carried whole again (what it costs if its original leaves the window) — as its
    current text when its file changed since (``checks`` keeps the re-read)."""
    s = plan.state
    entry, obs = s.entries[seq], s.items[seq]
    if seq in s.replaced:
        return entry.restyled(Form.SUPERSEDED, superseded_stub(obs, s.items[s.replaced[seq]]))
    if entry.form is Form.REFRESH:
        return entry.restyled(Form.MERGED, "")
    if seq in s.unrefreshed:
        why = s.unrefreshed[seq]
        return entry.restyled(Form.REFUSED, refused_stub(obs, why.change, why.reason))
    refresh = plan.refresh_of(seq) if seq in s.stale else None
    if refresh is not None:
        text = plan.capped(current_text(obs, refresh.step, refresh.text))
        return entry.restyled(Form.CURRENT, text)
    if entry.form is Form.UNCHANGED:
        if obs.read is not None and plan.ledger.stale_reason(obs) is not None:
            return _rechecked(plan, seq, entry, checks)
        return entry.restyled(Form.WHOLE, plan.capped(obs.text))
    return entry


def _settled(
    plan: Plan,
    seq: int,
    inside: Entry,
    boundary: int,
    *,
    restored: dict[int, int],
    checks: dict[int, Confirmation | Refresh],
) -> Entry:
    """An unchanged stub stays one while its original is in the window and carried; it is
    superseded with it; when the original left, the first such stub is carried whole again
    (a window stub when it may be stale) and the later ones point to it."""
    s = plan.state
    entry = s.entries[seq]
    if entry.form is not Form.UNCHANGED or entry.ref is None:
        return inside
    ref = entry.ref
    if ref in s.replaced:
        by = s.items[s.replaced[ref]]
        return entry.restyled(Form.SUPERSEDED, superseded_stub(s.items[seq], by))
    if ref >= boundary:
        return entry
    obs = s.items[seq]
    if inside.form is Form.UNCHANGED:  # stale, and the re-read failed
        return _outside(plan, seq)
    check = checks.get(seq)
    if isinstance(check, Refresh):
        plan.refreshes[seq] = check
    elif check is not None:
        plan.confirmations[seq] = check
    if ref in restored:
        again = restored[ref]
        return entry.restyled(Form.UNCHANGED, unchanged_stub(obs, s.items[again]), again)
    restored[ref] = seq
    return inside


def _rechecked(
    plan: Plan, seq: int, entry: Entry, checks: dict[int, Confirmation | Refresh]
) -> Entry:
    """An unchanged stub whose file changed since: as the window would carry it if its
    original left — whole when its lines are as they were, else its current text (rule
    5: the window is the newest entries); the stub itself when the re-read fails."""
    obs = plan.state.items[seq]
    check = recheck(obs, plan.ledger, plan.refresh, step=plan.step, mark=plan.mark)
    if check is None or isinstance(check, Confirmation):
        if check is not None:
            checks[seq] = check
        return entry.restyled(Form.WHOLE, plan.capped(obs.text))
    if isinstance(check, Refresh):
        checks[seq] = check
        return entry.restyled(Form.CURRENT, plan.capped(current_text(obs, plan.step, check.text)))
    return entry


def _outside(plan: Plan, seq: int) -> Entry:
    """The entry as it is sent once older than the window."""
    s = plan.state
    entry, obs = s.entries[seq], s.items[seq]
    if entry.form in (Form.REFRESH, Form.MERGED):
        return entry if entry.form is Form.MERGED else entry.restyled(Form.MERGED, "")
    if seq in s.replaced:
        return entry.restyled(Form.SUPERSEDED, superseded_stub(obs, s.items[s.replaced[seq]]))
    if seq in s.unrefreshed:
        why = s.unrefreshed[seq]
        return entry.restyled(Form.REFUSED, refused_stub(obs, why.change, why.reason))
    if entry.form not in CARRIED and entry.form is not Form.UNCHANGED:
        return entry
    chars = len(entry.text) if entry.form is Form.CURRENT else len(obs.text)
    return entry.restyled(Form.WINDOW, window_stub(obs, chars) if obs.text else "")
