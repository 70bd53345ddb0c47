"""One turn's emission: the ordered entries a request carries after the frame and the
memory block, and what the assembly did (§3). Both wire forms are rendered from it.

An ``Entry`` is one ledger item in the form it is sent: a tool result (whole, capped, a
stub, or a refresh entry the assembler appended), a model turn (its words and its tool
calls, arguments possibly elided), or the one line standing for the collapsed stubs. Its
``texts`` are exactly the message texts the transcript sends for it, and the flat form's
entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from harness.context.ceiling import Ceiling
from harness.ledger import MESSAGE, Confirmation, Observation, Refresh
from harness.types import (
    PART_SEPARATOR,
    ContextCounts,
    Request,
    ToolCall,
    TraceEvent,
    arguments_text,
)

COLLAPSED_KIND = "collapsed"


class Form(StrEnum):
    WHOLE = "whole"  # as observed, capped where it entered (rule 4)
    CURRENT = "current"  # at a slide, a stale copy replaced by the current text (rules 3, 5)
    REFRESH = "refresh"  # appended: a stale read's changed lines, or why not (rule 3)
    UNCHANGED = "unchanged"  # stub: byte-identical to an earlier result still carried
    SUPERSEDED = "superseded"  # stub, at a slide: a later, different result replaced it
    WINDOW = "window"  # stub: older than the current context window (rule 5)
    REFUSED = "refused"  # stub, at a slide: stale, and the refresh failed (rule 3)
    MERGED = "merged"  # a refresh entry whose read was cleaned up at a slide: sends nothing
    COLLAPSED = "collapsed"  # the one line standing for the stubs older than the window


CARRIED = frozenset({Form.WHOLE, Form.CURRENT})
STUBS = frozenset({Form.UNCHANGED, Form.SUPERSEDED, Form.WINDOW, Form.REFUSED})


@dataclass(frozen=True)
class Refreshed:
    """One refresh entry of a turn, for the ``assembled`` event: the read it corrects and
    the size of what it sends (the hunks, the whole current text, or why not)."""

    path: str
    read_step: int
    chars: int
    ok: bool = True


@dataclass(frozen=True)
class Entry:
    """One ledger item as sent. ``call_id`` is set on a tool result that answers a call of
    the turn it follows (the transcript sends it as that call's tool message); ``ref`` is
    the earlier item an ``UNCHANGED`` stub points at."""

    seq: int
    step: int
    kind: str
    form: Form
    text: str
    calls: tuple[ToolCall, ...] = ()
    call_id: str | None = None
    ref: int | None = None
    covers: int = 0  # COLLAPSED: how many ledger items the line stands for
    # The calls' arguments as sent (computed from ``calls`` when not given).
    call_texts: tuple[str, ...] | None = field(default=None, compare=False, repr=False)
    texts: tuple[str, ...] = field(init=False, compare=False, repr=False)
    cost: int = field(init=False, compare=False)  # chars, one separator per text included

    def __post_init__(self) -> None:
        calls = self.call_texts
        if calls is None:
            calls = tuple(arguments_text(c) for c in self.calls)
            object.__setattr__(self, "call_texts", calls)
        texts = (self.text, *calls) if self.text else calls
        object.__setattr__(self, "texts", texts)
        object.__setattr__(self, "cost", sum(map(len, texts)) + len(PART_SEPARATOR) * len(texts))

    def restyled(self, form: Form, text: str, ref: int | None = None) -> Entry:
        """The same item sent in another form (its calls unchanged)."""
        return Entry(
            self.seq,
            self.step,
            self.kind,
            form,
            text,
            self.calls,
            self.call_id,
            ref,
            self.covers,
            self.call_texts,
        )

    def with_calls(self, calls: tuple[ToolCall, ...]) -> Entry:
        return Entry(
            self.seq, self.step, self.kind, self.form, self.text, calls, self.call_id, self.ref
        )

    @property
    def is_turn(self) -> bool:
        return self.kind == MESSAGE

    @property
    def counted(self) -> bool:
        """Whether it is an observation for the counts: a turn counts when it said something."""
        if self.form is Form.MERGED or self.kind == COLLAPSED_KIND:
            return False
        return self.kind != MESSAGE or bool(self.text)


@dataclass(frozen=True)
class Emission:
    """What one assembly produced. ``request`` is rendered in the assembler's wire form;
    ``refreshes`` and ``confirmations`` are what the ledger must record once the request
    is sent (``commit`` does it, with ``rereads``, the refresh entries appended); ``events``
    are the re-read and refused re-read events."""

    step: int
    effective: int
    memory: str
    memory_chosen: bool  # the memory block was (re)chosen this turn: record its recalls
    entries: tuple[Entry, ...]
    trailer: str
    request: Request
    refreshes: tuple[Refresh, ...]
    confirmations: tuple[Confirmation, ...]
    events: tuple[TraceEvent, ...]
    texts: tuple[str, ...]  # ``request.texts()``: the system prompt, the frame, … the trailer
    prefix_chars: int  # chars of ``texts`` shared from the start with the last request's
    breaks: tuple[str, ...]  # what changed already-sent text: slide, memory
    est_tokens: int
    naive: bool = False
    free: bool = False  # a slide made because the provider's cache had expired (§3 rule 5)
    # The refresh entries appended this turn, each an observation of its own at the end (§3
    # rules 3 and 6): ``commit`` records them in the ledger at the positions they were given.
    rereads: tuple[Observation, ...] = ()
    refreshed: tuple[Refreshed, ...] = ()

    @property
    def ceiling_chars(self) -> int:
        return Ceiling(self.effective).chars

    @property
    def section_chars(self) -> int:
        """Chars under the ceiling: the memory block, the entries and the trailer, joined."""
        texts = [t for e in self.entries for t in e.texts]
        parts = [p for p in (self.memory, *texts, self.trailer) if p]
        return len(PART_SEPARATOR.join(parts))

    @property
    def carried(self) -> int:
        return sum(1 for e in self.entries if e.form in CARRIED and e.counted)

    @property
    def stubbed(self) -> int:
        stubs = sum(1 for e in self.entries if e.form in STUBS and e.counted)
        return stubs + self.collapsed

    @property
    def reread(self) -> int:
        return len(self.refreshes)

    @property
    def collapsed(self) -> int:
        return sum(e.covers for e in self.entries if e.form is Form.COLLAPSED)

    def counts(self, recalled: int = 0) -> ContextCounts:
        """What the request carries; ``recalled``: notes in the memory block."""
        return ContextCounts(self.carried, self.stubbed, self.reread, recalled)

    def assembled_event(self, recalled: int = 0) -> TraceEvent:
        """The ``assembled`` event (§3); ``recalled``: notes in the memory block."""
        detail: dict[str, Any] = {
            "carried": self.carried,
            "stubbed": self.stubbed,
            "reread": self.reread,
            "collapsed": self.collapsed,
            "recalled": recalled,
            "estTokens": self.est_tokens,
            "effective": self.effective,
            "prefixChars": self.prefix_chars,
            "breaks": list(self.breaks),
            "refreshed": [
                {"path": r.path, "readStep": r.read_step, "chars": r.chars, "ok": r.ok}
                for r in self.refreshed
            ],
            "naive": self.naive,
            "freeSlide": self.free,
        }
        return TraceEvent("assembled", detail)
