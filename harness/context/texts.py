"""The exact texts the assembler writes into a request (§3): the cap marker, the stubs, the
re-read heading, the collapse line and the elided tool-call argument.

Every stub names its subject the way the result's own header does, with the line range of
a ranged read (``[read src/a.py:81-160]``), so three stubs of three ranges of one file are
three different lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from harness.ledger import MESSAGE, Change, Observation
from harness.tools.base import LABELS, header
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
    return LABELS.get(kind, kind)


def named(obs: Observation) -> str:
    """``the read at step 3``, or ``the re-read at step 9`` for a re-read the assembler made."""
    what = "re-read" if obs.reread_of is not None else verb(obs.kind)
    return f"the {what} at step {obs.step}"


def unchanged_stub(obs: Observation, earlier: Observation, reread_at: int | None = None) -> str:
    """``reread_at``: the earlier copy is carried as re-read (in place) at that step."""
    since = f"the re-read at step {reread_at}" if reread_at else named(earlier)
    return f"{label(obs)} (unchanged since {since}, shown above)"


def superseded_stub(obs: Observation, by: Observation) -> str:
    return f"{label(obs)} (elided: superseded by {named(by)})"


def window_stub(obs: Observation, chars: int) -> str:
    why = f"{label(obs)} (elided: {chars:,} chars, older than the current context window"
    if obs.kind == MESSAGE:
        return why + ")"
    remedy = (
        "re-read it with offset and limit if you need it"
        if obs.kind == "read_file"
        else "run it again if you need it"
    )
    return f"{why} — {remedy})"


def refused_stub(obs: Observation, change: Change, reason: str) -> str:
    why = f"{named(obs)} was invalidated by {change.describe()}"
    return f"{label(obs)} (elided: {why}, and {reason})"


def reread_text(obs: Observation, step: int, change: Change, body: str) -> str:
    return (
        f"{label(obs)} (re-read at step {step}; {named(obs)} was invalidated by "
        f"{change.describe()})\n{body}"
    )


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
