"""Today's per-turn assembly (issue 3), kept until the loop switches to
``harness.context.engine.BoundedContext`` (issue 12, phase 2).

``assemble`` is pure over the ledger, the budget and a ``refresh`` callback: it compacts
superseded observations to one-line stubs, re-reads stale reads (through the callback,
which applies the same policy and containment as ``read_file``), caps every entry where it
enters, fits entries newest first, collapses the stub lines when they grow past an eighth
of the budget, and emits everything in chronological order after the memory block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.context.refresh import Refresher
from harness.context.texts import cap_entry
from harness.ledger import Change, Ledger, Observation, Refresh
from harness.tools.base import header
from harness.types import TraceEvent

SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Assembly:
    section: str
    carried: int
    stubbed: int
    reread: int
    collapsed: int  # stub lines folded into the one collapse line (0: none)
    refreshes: tuple[Refresh, ...]
    events: tuple[TraceEvent, ...]
    kinds: tuple[tuple[int, str], ...] = ()  # (seq, carried|reread|superseded|window|stale)


def superseded_stub(obs: Observation, by: Observation) -> str:
    label = "read" if by.kind == "read_file" else by.kind
    return f"{header(obs.kind, obs.target)} (elided: superseded by the {label} at step {by.step})"


def window_stub(obs: Observation, stale: Change | None = None) -> str:
    remedy = (
        "re-read it with offset and limit if you need it"
        if obs.kind == "read_file"
        else "run it again if you need it"
    )
    why = f"; it was also invalidated by {stale.describe()}" if stale else ""
    return (
        f"{header(obs.kind, obs.target)} (elided: {len(obs.text):,} chars, older than the "
        f"current context window{why} — {remedy})"
    )


def refused_stub(obs: Observation, change: Change, reason: str) -> str:
    return (
        f"{header(obs.kind, obs.target)} (elided: the read at step {obs.step} was invalidated "
        f"by {change.describe()}, and {reason})"
    )


def reread_entry(obs: Observation, refresh: Refresh) -> str:
    note = (
        f"(re-read at step {refresh.step}; the read at step {obs.step} was invalidated by "
        f"{refresh.invalidated_by.describe()})"
    )
    return f"{header(obs.kind, obs.target)} {note}\n{refresh.text}"


def collapse_line(count: int, superseded: int, window: int, stale: int) -> str:
    parts = [
        f"{n} {what}"
        for n, what in (
            (superseded, "superseded"),
            (window, "older than the current context window"),
            (stale, "stale and not re-read"),
        )
        if n
    ]
    return (
        f"[{count} earlier observations elided: {', '.join(parts)} — run a tool again if you "
        "need one of them]"
    )


def _superseders(observations: Sequence[Observation]) -> dict[int, Observation]:
    """seq -> the later observation that replaces it (§3.2). Only a successful observation
    replaces; a ranged read is replaced only by the same range or a whole read."""
    result: dict[int, Observation] = {}
    latest: dict[tuple[object, ...], Observation] = {}
    for obs in reversed(observations):
        subject = obs.subject
        if subject is None:
            continue
        if obs.read is not None:
            whole = latest.get((*subject, None, None))
            same = latest.get((*subject, obs.read.offset, obs.read.limit))
            by = whole or same
            key: tuple[object, ...] = (*subject, obs.read.offset, obs.read.limit)
        else:
            by = latest.get(subject)
            key = subject
        if by is not None:
            result[obs.seq] = by
        if obs.ok and key not in latest:
            latest[key] = obs
    return result


@dataclass
class _Walk:
    """Mutable state of one assembly's newest-first walk."""

    budget: int
    used: int = 0
    open: bool = True


def assemble(
    ledger: Ledger,
    *,
    step: int,
    effective_tokens: int,
    entry_cap_chars: int,
    memory_block: str,
    refresh: Refresher,
    heading: str = "",
) -> Assembly:
    observations = ledger.observations()
    replaced = _superseders(observations)
    walk = _Walk(budget=max(0, effective_tokens * 4 - len(memory_block) - len(heading)))
    entries: dict[int, tuple[str, str]] = {}  # seq -> (what, text)
    refreshes: list[Refresh] = []
    events: list[TraceEvent] = []
    mark = ledger.mark()
    for obs in reversed(observations):
        by = replaced.get(obs.seq)
        if by is not None:
            entries[obs.seq] = ("superseded", superseded_stub(obs, by))
            continue
        stale = ledger.stale_reason(obs)
        if stale is not None and walk.open:
            assert obs.read is not None
            outcome = refresh(obs.read)
            if not outcome.ok or outcome.content_hash is None:
                events.append(_refused_event(obs, stale, outcome.reason, step))
                entries[obs.seq] = ("stale", refused_stub(obs, stale, outcome.reason))
                continue
            new = Refresh(obs.seq, step, mark, outcome.text, outcome.content_hash, stale)
            refreshes.append(new)
            events.append(_reread_event(obs, new))
            text, what = reread_entry(obs, new), "reread"
        elif stale is not None:
            entries[obs.seq] = ("window", window_stub(obs, stale))
            continue
        else:
            prior = ledger.refresh_of(obs.seq)
            text, what = (reread_entry(obs, prior), "carried") if prior else (obs.text, "carried")
        capped = cap_entry(text, entry_cap_chars)
        cost = len(capped) + len(SEPARATOR)
        if walk.open and walk.used + cost <= walk.budget:
            walk.used += cost
            entries[obs.seq] = (what, capped)
        else:
            walk.open = False
            entries[obs.seq] = ("window", window_stub(obs))
    lead = [p for p in (memory_block, heading) if p]
    return _emit(entries, lead, walk.budget, tuple(refreshes), tuple(events))


def _emit(
    entries: dict[int, tuple[str, str]],
    lead: list[str],
    budget: int,
    refreshes: tuple[Refresh, ...],
    events: tuple[TraceEvent, ...],
) -> Assembly:
    stubs = {s: e for s, e in entries.items() if e[0] in ("superseded", "window", "stale")}
    stub_chars = sum(len(t) + len(SEPARATOR) for _, t in stubs.values())
    collapsed = 0
    ordered: list[str] = []
    if stubs and stub_chars > budget // 8:
        collapsed = len(stubs)
        kinds = [w for w, _ in stubs.values()]
        line = collapse_line(
            collapsed, kinds.count("superseded"), kinds.count("window"), kinds.count("stale")
        )
        ordered.append(line)
        ordered += [t for s, (_, t) in sorted(entries.items()) if s not in stubs]
    else:
        ordered += [t for _, (_, t) in sorted(entries.items())]
    section = SEPARATOR.join(lead + ordered)
    whats = [w for w, _ in entries.values()]
    return Assembly(
        section=section,
        carried=whats.count("carried") + whats.count("reread"),
        stubbed=len(stubs),
        reread=whats.count("reread"),
        collapsed=collapsed,
        refreshes=refreshes,
        events=events,
        kinds=tuple((seq, what) for seq, (what, _) in sorted(entries.items())),
    )


def assemble_naive(ledger: Ledger, memory_block: str = "", heading: str = "") -> str:
    """The baseline the demo and benchmarks compare against: everything, verbatim."""
    lead = [p for p in (memory_block, heading) if p]
    return SEPARATOR.join(lead + [o.text for o in ledger.observations()])


def _reread_event(obs: Observation, refresh: Refresh) -> TraceEvent:
    return TraceEvent(
        "reread",
        {
            "path": obs.target,
            "readStep": obs.step,
            "invalidatedBy": refresh.invalidated_by.describe(),
            "chars": len(refresh.text),
            "hash": refresh.content_hash,
        },
    )


def _refused_event(obs: Observation, change: Change, reason: str, step: int) -> TraceEvent:
    return TraceEvent(
        "reread_refused",
        {
            "path": obs.target,
            "readStep": obs.step,
            "invalidatedBy": change.describe(),
            "reason": reason,
            "step": step,
        },
    )
