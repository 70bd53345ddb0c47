"""The two wire forms of one emission (§3 "Wire form") and the shared-prefix measure.

Transcript (the default): the frame and the memory block open the first user message;
each model turn is an assistant message (its words, its tool calls with their ids); each
tool result that answers a call is that call's tool message; every other entry (a result
no call asked for, such as the verification, and the collapse line) is a user text. The
trailer is ``Request.trailer``. Flat: ``[system, user]`` with every text in the user
message. Both send the same texts in the same order, so ``Request.texts()`` is equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from harness.context.emission import Entry
from harness.types import Message, Request, Role, ToolSchema


class Wire(StrEnum):
    TRANSCRIPT = "transcript"
    FLAT = "flat"


MessageCache = dict[int, tuple[Entry, Message]]  # seq -> the entry and its message


def render(
    entries: Sequence[Entry],
    *,
    system: str,
    frame: str,
    memory: str,
    trailer: str,
    tools: tuple[ToolSchema, ...] = (),
    wire: Wire = Wire.TRANSCRIPT,
    cache: MessageCache | None = None,
) -> Request:
    """The request for ``entries``. ``cache`` (kept by the caller across turns) reuses the
    message of an entry that has not changed."""
    lead = [p for p in (frame, memory) if p]
    if wire is Wire.FLAT:
        texts = [t for e in entries for t in e.texts]
        return Request.flat(system, (*lead, *texts), trailer, tools)
    messages: list[Message] = []
    user: list[str] = lead
    for entry in entries:
        if not entry.texts:
            continue
        if entry.is_turn or entry.call_id is not None:
            if user:
                messages.append(Message(Role.USER, tuple(user)))
                user = []
            messages.append(_message(entry, cache))
        else:
            user.append(entry.text)
    if user:
        messages.append(Message(Role.USER, tuple(user)))
    return Request(system, tuple(messages), trailer, tools)


def request_texts(
    entries: Sequence[Entry], *, system: str, frame: str, memory: str, trailer: str
) -> list[str]:
    """``render(...).texts()`` without rendering (the same texts in the same order, for
    either wire): what the shared prefix is measured over."""
    head = [p for p in (system, frame, memory) if p]
    return [*head, *(t for e in entries for t in e.texts), *([trailer] if trailer else [])]


def _message(entry: Entry, cache: MessageCache | None) -> Message:
    if cache is not None:
        hit = cache.get(entry.seq)
        if hit is not None and hit[0] is entry:
            return hit[1]
    if entry.is_turn:
        message = Message(Role.ASSISTANT, (entry.text,) if entry.text else (), entry.calls)
    else:
        message = Message(Role.TOOL, (entry.text,), tool_call_id=entry.call_id)
    if cache is not None:
        cache[entry.seq] = (entry, message)
    return message


def shared_prefix_chars(previous: Sequence[str], current: Sequence[str]) -> int:
    """Chars of ``current``'s texts, in order, equal from the start to ``previous``'s."""
    shared = 0
    for a, b in zip(previous, current, strict=False):
        if a is b or a == b:
            shared += len(b)
            continue
        return shared + _common_prefix(a, b)
    return shared


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, by bisection over slice comparisons (done in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low
