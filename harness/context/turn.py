"""One assembly of the bounded context (§3): from what the last request sent and what the
ledger holds now, the entries of this turn's request.

Order of work: admit the new ledger items (cap them, pair results with calls, rule 2
supersession); re-check the carried reads whose files changed (rule 3); then, if
everything no longer fits, slide the window (rule 5). Every change to an entry that was
already sent is recorded with its cause, so the ``breaks`` of the request are exact.

A stale read is re-read **at the end** (``Placement "end"``, the default): the re-read is
an item of its own after everything already carried — it happened now (rule 6) — and the
stale entry becomes a one-line stub where it was. So the prefix breaks where the model's
latest copy of the file is, and the next change to that file breaks it near the end, not
near the start. ``"in_place"`` (the re-read replaces the stale entry where it is) is the
measured alternative (docs/MEASUREMENTS.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from harness.context.emission import CARRIED, Entry, Form
from harness.context.events import refused_event, reread_event
from harness.context.pairing import pair
from harness.context.refresh import Check, Refresher, Refused, recheck
from harness.context.state import State
from harness.context.subjects import Subjects, subject
from harness.context.texts import (
    ARGUMENT_KEEP_CHARS,
    cap_entry,
    elide_arguments,
    refused_stub,
    reread_text,
    superseded_stub,
    unchanged_stub,
    window_stub,
)
from harness.context.window import cut
from harness.ledger import MESSAGE, Confirmation, Ledger, Observation, Refresh
from harness.types import PART_SEPARATOR, ReadSpan, TraceEvent

Placement = Literal["end", "in_place", "hybrid"]


class Turn:
    """The mutable plan of one assembly over a copy of the state."""

    def __init__(
        self,
        state: State,
        ledger: Ledger,
        refresh: Refresher,
        *,
        step: int,
        cap: int,
        placement: Placement = "end",
    ) -> None:
        self.state = state.copy()
        self.sent = len(state.items)
        self.placement = placement
        self.moved: dict[int, int] = {}  # stale read -> its re-read at the end
        self.admitted = len(state.items)  # items from the ledger; re-reads come after
        self.ledger = ledger
        self.refresh = refresh
        self.step = step
        self.cap = cap
        self.mark = ledger.mark()
        self.causes: dict[int, str] = {}
        self.refreshes: dict[int, Refresh] = {}
        self.confirmations: dict[int, Confirmation] = {}
        self.events: dict[int, TraceEvent] = {}
        self.changed, self.state.changes = ledger.changed_since(state.changes)
        self.subjects = Subjects()
        s = self.state
        for seq in range(s.boundary, len(s.items)):
            if s.entries[seq].form in CARRIED:
                self.subjects.add(seq, s.subjects[seq])

    # -- changes -----------------------------------------------------------------------------

    def put(self, seq: int, entry: Entry, cause: str) -> None:
        s = self.state
        if seq >= s.fold.end:
            s.cost += entry.cost - s.entries[seq].cost
        s.entries[seq] = entry
        if seq < self.sent:
            self.causes[seq] = cause

    def admit(self, new: Sequence[Observation]) -> None:
        s = self.state
        self.admitted = len(s.items) + len(new)
        pairing = pair(new)
        for obs in new:
            assert obs.seq == len(s.items), "the ledger is append-only"
            s.items.append(obs)
            s.groups.append(pairing.group[obs.seq])
            s.subjects.append(subject(obs))
            if obs.kind == MESSAGE:
                calls = tuple(elide_arguments(c, self.cap) for c in pairing.calls[obs.seq])
                text = cap_entry(obs.text, self.cap) if obs.text else ""
                entry = Entry(obs.seq, obs.step, MESSAGE, Form.WHOLE, text, calls)
            else:
                text = cap_entry(obs.text, self.cap)
                answers = pairing.answers.get(obs.seq)
                entry = Entry(obs.seq, obs.step, obs.kind, Form.WHOLE, text, call_id=answers)
            s.entries.append(entry)
            s.cost += entry.cost
            if obs.kind != MESSAGE:
                self.offer(obs, self.subjects, "superseded")

    def offer(self, obs: Observation, subjects: Subjects, cause: str) -> None:
        """Rule 2 for ``obs``, carried whole: it stubs itself if identical to the latest
        carried result of its subject, else it replaces the carried ones."""
        s = self.state
        ref, victims = subjects.offer(obs, s.subjects[obs.seq], self.same)
        entry = s.entries[obs.seq]
        if ref is not None:
            reread = self.refresh_of(ref) if s.entries[ref].form is Form.REREAD else None
            stub = unchanged_stub(obs, s.items[ref], reread.step if reread else None)
            self.put(obs.seq, entry.restyled(Form.UNCHANGED, stub, ref), cause)
            return
        for victim in victims:
            old = s.entries[victim]
            if old.form in CARRIED:
                stub = superseded_stub(s.items[victim], obs)
                self.put(victim, old.restyled(Form.SUPERSEDED, stub), cause)

    def same(self, seq: int, obs: Observation) -> bool:
        """Whether ``obs`` shows exactly what the carried ``seq`` shows: the same result,
        or (a read) the same text as its re-read."""
        entry, earlier = self.state.entries[seq], self.state.items[seq]
        if not earlier.ok:
            return False
        if entry.form is Form.WHOLE:
            return earlier.text == obs.text
        held = self.held_hash(seq)
        shown = obs.read.shown_hash if obs.read is not None else None
        return held is not None and shown is not None and held == shown

    def held_hash(self, seq: int) -> str | None:
        """The hash of the text the model holds for the re-read ``seq`` (at the end: its
        own span's; in place: the refresh's)."""
        earlier = self.state.items[seq]
        if earlier.reread_of is not None and earlier.read is not None:
            return earlier.read.shown_hash
        reread = self.refresh_of(seq) if self.state.entries[seq].form is Form.REREAD else None
        return reread.shown_hash if reread is not None else None

    def refresh_of(self, seq: int) -> Refresh | None:
        """The re-read the model holds for ``seq``: this turn's, or the ledger's."""
        return self.refreshes.get(seq) or self.ledger.refresh_of(seq)

    def recheck_window(self) -> None:
        """Rule 3 for the carried reads whose file changed since the last turn (each was
        right as of then: re-read, confirmed or taken after its file's last change)."""
        s = self.state
        for seq in range(s.boundary, self.admitted):  # not the re-reads appended meanwhile
            about = s.subjects[seq]  # a read's is ("read", its normalised path)
            if about is None or about[0][0] != "read" or s.entries[seq].form not in CARRIED:
                continue
            if seq >= self.sent or about[0][1] in self.changed:
                check = self.check(seq)
                self.record(seq, check)
                if isinstance(check, Refresh) and self.to_end(seq):
                    self.reread_at_end(seq, check)
                    continue
                entry = self.checked(seq, s.entries[seq], check)
                if entry is not s.entries[seq]:
                    self.put(seq, entry, "stale")

    def to_end(self, seq: int) -> bool:
        """Whether the re-read of the stale ``seq`` goes at the end (else in place)."""
        if self.placement == "hybrid":
            return self.state.entries[seq].form is Form.REREAD  # changed before: it goes on
        return self.placement == "end"

    def reread_at_end(self, seq: int, refresh: Refresh) -> None:
        """The stale ``seq`` becomes a stub where it is; its re-read is a new item at the
        end, carried like a read (the ledger records it at commit, at this position)."""
        s = self.state
        stale = s.items[seq]
        assert stale.read is not None
        span = stale.read
        text = reread_text(stale, self.step, refresh.invalidated_by, refresh.text)
        read = ReadSpan(
            span.path, span.offset, span.limit, refresh.content_hash, refresh.shown_hash
        )
        new = Observation(
            len(s.items), self.step, stale.kind, stale.target, text, read=read, reread_of=seq
        )
        s.items.append(new)
        s.groups.append(new.seq)
        s.subjects.append(s.subjects[seq])
        entry = Entry(new.seq, new.step, new.kind, Form.REREAD, cap_entry(text, self.cap))
        s.entries.append(entry)
        s.cost += entry.cost
        self.put(
            seq, s.entries[seq].restyled(Form.SUPERSEDED, superseded_stub(stale, new)), "stale"
        )
        self.subjects.replace(seq, new.seq, s.subjects[seq])
        self.moved[seq] = new.seq

    def check(self, seq: int) -> Check | None:
        obs = self.state.items[seq]
        return recheck(obs, self.ledger, self.refresh, step=self.step, mark=self.mark)

    def record(self, seq: int, check: Check | None) -> None:
        obs = self.state.items[seq]
        if isinstance(check, Confirmation):
            self.confirmations[seq] = check
        elif isinstance(check, Refresh):
            self.refreshes[seq] = check
            self.events[seq] = reread_event(obs, check)
        elif isinstance(check, Refused):
            self.events[seq] = refused_event(obs, check, self.step)

    def checked(self, seq: int, entry: Entry, check: Check | None) -> Entry:
        """``entry`` (carried whole) as ``check`` leaves it: re-read, a stub, or as it is."""
        obs = self.state.items[seq]
        if isinstance(check, Refresh):
            text = reread_text(obs, self.step, check.invalidated_by, check.text)
            return entry.restyled(Form.REREAD, cap_entry(text, self.cap))
        if isinstance(check, Refused):
            text = refused_stub(obs, check.change, check.reason)
            return entry.restyled(Form.REFUSED, text)
        return entry

    # -- the window --------------------------------------------------------------------------

    def total(self) -> int:
        return self.state.fold.cost + self.state.cost

    def slide(self, budget: int, low_water: float) -> None:
        s = self.state
        start, n = s.fold.end, len(s.items)
        newest = next((q for q in range(n - 1, start - 1, -1) if s.items[q].kind == MESSAGE), n)
        self.elide_arguments(start, newest)
        restored = {
            q: self.restored(q) for q in range(start, n) if s.entries[q].form is Form.UNCHANGED
        }
        fill = math.floor(low_water * budget)
        boundary, folded = self.place(restored, budget, fill)
        if boundary == n and newest < n and self.elide_arguments(newest, newest + 1):
            boundary, folded = self.place(restored, budget, fill)
        kinds = []
        for q in range(start, boundary):
            entry = self.outside(q)
            if entry is not s.entries[q]:
                self.put(q, entry, "slide")
            kinds.append(entry.form if entry.counted else None)
        s.fold = s.fold.extended(kinds[: folded - start])
        s.boundary = boundary
        self.replay(boundary, restored)
        s.cost = sum(e.cost for e in s.entries[s.fold.end :])

    def elide_arguments(self, start: int, stop: int) -> bool:
        """Elide the long arguments of the turns in ``[start, stop)``; True if any was."""
        s = self.state
        changed = False
        for q in range(start, stop):
            entry = s.entries[q]
            if not entry.call_texts or max(map(len, entry.call_texts)) <= ARGUMENT_KEEP_CHARS:
                continue  # no argument is that long when the whole call is not
            calls = tuple(elide_arguments(c, ARGUMENT_KEEP_CHARS) for c in entry.calls)
            if any(a is not b for a, b in zip(calls, entry.calls, strict=True)):
                self.put(q, entry.with_calls(calls), "slide")
                changed = True
        return changed

    def place(
        self, restored: dict[int, tuple[Entry, Check | None]], budget: int, fill: int
    ) -> tuple[int, int]:
        """Where the window starts and where the fold ends, as seqs."""
        s = self.state
        start, n = s.fold.end, len(s.items)
        inside = [(restored[q][0] if q in restored else s.entries[q]).cost for q in range(start, n)]
        outside = [self.outside_cost(q) for q in range(start, n)]
        kinds = [self.outside_kind(q) for q in range(start, n)]
        groups = [s.groups[q] - start for q in range(start, n)]
        found = cut(
            inside,
            outside,
            groups,
            walk_from=max(0, s.boundary - start),
            budget=budget,
            fill=fill,
            line=s.fold.line_costs(kinds),
        )
        return start + found.boundary, start + found.folded

    def _goes_stub(self, entry: Entry) -> bool:
        return entry.form in CARRIED or entry.form is Form.UNCHANGED

    def outside(self, seq: int) -> Entry:
        """The entry as it is sent once older than the window."""
        entry = self.state.entries[seq]
        if not self._goes_stub(entry):
            return entry
        return entry.restyled(Form.WINDOW, self._window_text(seq))

    def outside_cost(self, seq: int) -> int:
        """What ``outside(seq)`` costs, without building it."""
        entry = self.state.entries[seq]
        if not self._goes_stub(entry):
            return entry.cost
        text = self._window_text(seq)
        calls = sum(len(t) for t in entry.call_texts or ())
        n = len(entry.call_texts or ()) + (1 if text else 0)
        return len(text) + calls + n * len(PART_SEPARATOR)

    def outside_kind(self, seq: int) -> Form | None:
        """The form ``outside(seq)`` has, for the fold's counts (None: not counted)."""
        entry = self.state.entries[seq]
        if not entry.counted:
            return None
        return Form.WINDOW if self._goes_stub(entry) else entry.form

    def _window_text(self, seq: int) -> str:
        entry, obs = self.state.entries[seq], self.state.items[seq]
        chars = len(entry.text) if entry.form is Form.REREAD else len(obs.text)
        return window_stub(obs, chars) if obs.text else ""

    def restored(self, seq: int) -> tuple[Entry, Check | None]:
        """An unchanged stub carried whole again (its original left the window), re-checked
        like any read: what the walk must count for it. Re-reads go at the end only when
        the rules run, so a stale one (at the end) is a stub for the newer copy instead."""
        entry, obs = self.state.entries[seq], self.state.items[seq]
        whole = entry.restyled(Form.WHOLE, cap_entry(obs.text, self.cap))
        check = self.check(seq) if obs.read is not None else None
        if isinstance(check, Refresh) and self.placement != "in_place":
            return self.stale_copy(seq, whole), None
        return self.checked(seq, whole, check), check

    def stale_copy(self, seq: int, entry: Entry) -> Entry:
        """``entry`` (stale) as a stub for the newest copy of its subject carried after it
        (its re-read), else as older than the window."""
        s, obs = self.state, self.state.items[seq]
        newer = next(
            (
                q
                for q in range(len(s.items) - 1, seq, -1)
                if s.subjects[q] == s.subjects[seq] and s.entries[q].form in CARRIED
            ),
            None,
        )
        if newer is not None:
            return entry.restyled(Form.SUPERSEDED, superseded_stub(obs, s.items[newer]))
        return entry.restyled(Form.WINDOW, window_stub(obs, len(obs.text)))

    def replay(self, boundary: int, restored: dict[int, tuple[Entry, Check | None]]) -> None:
        """Rule 2 again over the new window: an unchanged stub whose original left it is
        carried whole again (or stubs itself against a copy still in the window)."""
        s = self.state
        back = {q for q in restored if q >= boundary and _points_before(s.entries[q], boundary)}
        first = min(back, default=len(s.items))
        subjects = Subjects()
        for q in range(boundary, len(s.items)):
            if q in back:
                entry, check = restored[q]
                self.record(q, check)
                self.put(q, entry, "slide")
            form = s.entries[q].form
            if q >= first and form is Form.WHOLE:
                # From the first one carried again on, rule 2 decides anew.
                self.offer(s.items[q], subjects, "slide")
            elif form in CARRIED:
                subjects.add(q, s.subjects[q])
        self.subjects = subjects

    # -- what is kept ------------------------------------------------------------------------

    def kept(
        self,
    ) -> tuple[list[Refresh], list[Confirmation], list[TraceEvent], list[Observation]]:
        """The refreshes, confirmations and events of the entries as finally sent, and the
        re-reads made at the end (all of them: they hold their positions in the ledger)."""
        entries = self.state.entries

        def shown(q: int) -> Entry:
            return entries[self.moved.get(q, q)]

        refreshes = [r for q, r in self.refreshes.items() if shown(q).form is Form.REREAD]
        confirmations = [c for q, c in self.confirmations.items() if entries[q].form in CARRIED]
        # An event stands if its entry went out as the check left it.
        events = [
            e
            for q, e in sorted(self.events.items())
            if shown(q).form is (Form.REREAD if q in self.refreshes else Form.REFUSED)
        ]
        rereads = [self.state.items[q] for q in sorted(self.moved.values())]
        return refreshes, confirmations, events, rereads


def _points_before(entry: Entry, boundary: int) -> bool:
    """An unchanged stub whose original is older than the window."""
    return entry.form is Form.UNCHANGED and entry.ref is not None and entry.ref < boundary
