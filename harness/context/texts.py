"""The exact texts the assembler writes into a request (§3): the cap marker, the stubs, the
"replaces" header, the refresh headings, the collapse line and the elided tool-call argument.

Every stub names its subject the way the result's own header does, with the line range of
a ranged read (``[read src/a.py:81-160]``), so three stubs of three ranges of one file are
three different lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from harness.context.declared import header, label_of
from harness.ledger import MESSAGE, Change, Observation
from harness.types import ToolCall

ARGUMENT_KEEP_CHARS = 200  # at a slide, longer tool-call arguments are elided (§3 wire form)

# ``[read src/a.py:81-160]`` (the tools' header) or ``[read src/a.py] lines 81-160 of 900``.
_RANGED = re.compile(r"^\[read .+?:(\d+)-(\d+)\]")
_LINES = re.compile(r"^\[read [^\n]*?\] lines (\d+)-(\d+) of")


def truncation_marker(elided: int, total: int) -> str:
    return (
        f"…[truncated: elided {elided:,} of {total:,} chars — re-read or narrow the query "
        "if you need the rest]"
    )


def cap_entry(text: str, cap_chars: int) -> str:
    """Keep the head of ``text`` (``cap_chars`` of it) and end with a visible marker."""
    if len(text) <= cap_chars:
        return text
    return text[:cap_chars] + "\n" + truncation_marker(len(text) - cap_chars, len(text))


def label(obs: Observation) -> str:
    """The subject of ``obs`` as its header names it, with the range of a ranged read."""
    if obs.kind == MESSAGE:
        return "[message]"
    base = header(obs.kind, obs.target)
    span = obs.read
    if span is None or span.whole:
        return base
    first = obs.text.split("\n", 1)[0]
    found = _RANGED.match(first) or _LINES.match(first)
    if found:
        lines = f"{found[1]}-{found[2]}"
    else:
        start = span.offset or 1
        lines = f"{start}-{start + span.limit - 1}" if span.limit else f"{start}-"
    return base if base.endswith(f":{lines}]") else f"{base[:-1]}:{lines}]"


def verb(kind: str) -> str:
    """How a kind is named in a sentence: ``the read at step 3``."""
    return label_of(kind)


def named(obs: Observation) -> str:
    """``the read at step 3`` (``… at step 3 of turn 1`` for an earlier turn's, §11)."""
    return f"the {verb(obs.kind)} at {obs.at}"


def unchanged_stub(obs: Observation, earlier: Observation, refreshed_at: int | None = None) -> str:
    """Rule 2, one form for every kind: ``[grep TODO] (unchanged since the grep at step 3,
    shown above)``; for a read whose copy a refresh entry corrected, ``(unchanged since the
    read at step 3 as refreshed at step 9, shown above)``."""
    since = named(earlier)
    if refreshed_at is not None:
        since += f" as refreshed at step {refreshed_at}"
    return f"{label(obs)} (unchanged since {since}, shown above)"


def replaces_text(obs: Observation, victims: list[Observation]) -> str:
    """Rule 2: ``obs``'s text with its header naming what it replaces:
    ``[read src/a.py] (replaces the read at step 3)``."""
    steps = sorted({(v.turn or 1 << 30, v.step) for v in victims})
    if len(victims) == 1:
        what = named(victims[0])
    elif all(v.turn is None for v in victims):
        at = "step" if len(steps) == 1 else "steps"
        what = f"the {verb(obs.kind)}s at {at} {', '.join(str(s) for _, s in steps)}"
    else:
        places = dict.fromkeys(v.at for v in sorted(victims, key=lambda v: v.seq))
        what = f"the {verb(obs.kind)}s at {', '.join(places)}"
    head, sep, rest = obs.text.partition("\n")
    if not (head.startswith("[") and head.endswith("]")):
        return f"{label(obs)} (replaces {what})\n{obs.text}"
    return f"{head} (replaces {what}){sep}{rest}"


def superseded_stub(obs: Observation, by: Observation) -> str:
    return f"{label(obs)} (elided: superseded by {named(by)})"


def window_stub(obs: Observation, chars: int) -> str:
    why = f"{label(obs)} (elided: {chars:,} chars, older than the current context window"
    if obs.kind == MESSAGE:
        return why + ")"
    remedy = (
        "re-read it with offset and limit if you need it"
        if obs.read is not None
        else "run it again if you need it"
    )
    return f"{why} — {remedy})"


def refused_stub(obs: Observation, change: Change, reason: str) -> str:
    why = f"{named(obs)} was invalidated by {change.describe()}"
    return f"{label(obs)} (elided: {why}, and {reason})"


def changed_since(obs: Observation, change: Change) -> str:
    """``the write at step 5 changed it since the read at step 3`` (or ``it changed on disk
    since …`` for a change the harness did not make)."""
    who = (
        "it changed on disk" if change.cause.value == "disk" else f"{change.describe()} changed it"
    )
    return f"{who} since {named(obs)}"


def refresh_text(obs: Observation, step: int, change: Change, body: str) -> str:
    """Rule 3's refresh entry: ``[read src/a.py:40-52] (refreshed at step 9: the write at
    step 5 changed it since the read at step 3)`` and the hunks (or the whole current text)."""
    return f"{label(obs)} (refreshed at step {step}: {changed_since(obs, change)})\n{body}"


def same_lines(first: Observation) -> str:
    """Rule 3, a second read of one file whose changed lines are the very lines an earlier
    refresh entry of this request shows: ``(the same lines as the refresh of the read at
    step 1, above)``."""
    return f"(the same lines as the refresh of {named(first)}, above)"


def unrefreshed_text(obs: Observation, step: int, change: Change, reason: str) -> str:
    """Rule 3, the refresh failed: the entry says why."""
    return (
        f"{label(obs)} (not refreshed at step {step}: {changed_since(obs, change)}, and {reason})"
    )


def current_text(obs: Observation, step: int, body: str) -> str:
    """Rule 5: at a slide, a stale copy becomes the current text, as refreshed at ``step``."""
    return f"{label(obs)} (refreshed at step {step})\n{body}"


def collapse_line(superseded: int, window: int, stale: int) -> str:
    parts = [
        f"{n} {what}"
        for n, what in (
            (superseded, "superseded"),
            (window, "older than the current context window"),
            (stale, "stale and not re-read"),
        )
        if n
    ]
    count = superseded + window + stale
    return (
        f"[{count} earlier observations elided: {', '.join(parts) or 'none'} — run a tool "
        "again if you need one of them]"
    )


def elided_argument(chars: int) -> str:
    return f"…[elided: {chars:,} chars; the trace keeps it]"


def argument_chars(value: Any) -> int:
    """An argument's size as the model wrote it (a string's own length, else its JSON)."""
    if isinstance(value, str):
        return len(value)
    return len(json.dumps(value, ensure_ascii=False))


def elide_arguments(call: ToolCall, keep: int) -> ToolCall:
    """``call`` with every argument longer than ``keep`` chars replaced by the marker (the
    same object when nothing is that long, so unchanged calls stay identical)."""
    args: Mapping[str, Any] = call.arguments
    long = {k for k, v in args.items() if argument_chars(v) > keep}
    if not long:
        return call
    elided = {k: elided_argument(argument_chars(v)) if k in long else v for k, v in args.items()}
    return ToolCall(call.id, call.name, elided, call.arguments_error)
