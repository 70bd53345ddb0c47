"""Where the Anthropic wire puts its ``cache_control`` breakpoints (§3 rule 7).

Anthropic's rules (docs.anthropic.com/en/docs/build-with-claude/prompt-caching, "How
automatic prefix checking works" and "When to use multiple breakpoints"): a breakpoint caches
the prompt — tools, system, messages, in that order — up to and including its block; at most
4 per request; a later request reads a cached prefix only if it is byte-identical, and each of
its breakpoints checks "all previous content block boundaries (up to approximately 20 blocks
before your explicit breakpoint)" for one; a cache entry exists only where an earlier request
put a breakpoint; prefixes under the model's minimum (1,024 tokens for Sonnet/Opus) are not
cached. So a request reads back what an earlier one stored only if one of its breakpoints sits
at most ~20 blocks after that earlier breakpoint.

The placement: the system block (it never changes within a run); the last block before the
trailer (what the next request shares, between slides, is everything up to it); and, when
the deepest prefix this request shares with one an earlier request marked (between slides:
the previous request's last breakpoint; after a slide or any change to text already sent:
the last step boundary before the change) is ``LOOKBACK`` or more blocks behind the last
block, breakpoints every ``LOOKBACK - 1`` blocks after it, so the first of them reads it and
the others store deeper prefixes for a later break to fall back on. ``LOOKBACK - 1``, not
``LOOKBACK``, so the reach holds whether "20 blocks" counts the breakpoint itself or not.

The provider remembers the prefixes it marked (``MarkedPrefixes``); the placement itself is a
pure function of the prefixes' keys. A real cache also forgets an entry five minutes after
its last use; a marked prefix the server has dropped costs a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Container, Sequence
from typing import Any

MAX_BREAKPOINTS = 4
LOOKBACK = 20
REMEMBERED = 4_096  # marked prefixes kept per provider (a run marks at most 4 a request)


def place_breakpoints(
    keys: Sequence[str], *, system_end: int, stable_end: int, marked: Container[str] = ()
) -> tuple[int, ...]:
    """The indexes (ascending, at most ``MAX_BREAKPOINTS``) of the blocks to mark.

    ``keys[i]`` identifies the prompt's prefix through block ``i`` (tools → system →
    messages); ``system_end`` is the last system block (-1: none); ``stable_end`` the last
    block before the trailer (-1: no trailer, so nothing after the system block is marked —
    a prefix written and never read again costs 1.25×); ``marked`` holds the keys of the
    prefixes earlier requests marked."""
    marks = [system_end] if system_end >= 0 else []
    if stable_end <= system_end or stable_end >= len(keys):
        return tuple(marks)
    anchor = next(
        (k for k in range(stable_end, system_end, -1) if keys[k] in marked), None
    )  # fmt: skip
    if anchor is not None:
        step = LOOKBACK - 1
        at = anchor + step
        while at < stable_end and len(marks) < MAX_BREAKPOINTS - 1:
            marks.append(at)
            at += step
    marks.append(stable_end)
    return tuple(marks)


def prefix_keys(blocks: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """A key per block for the prefix through it: a running digest of each block's place
    (``tool``, ``system`` or its message's role) and its JSON, ``cache_control`` left out
    (a marker is not content)."""
    running = hashlib.sha256()
    keys = []
    for place, block in blocks:
        content = {k: v for k, v in block.items() if k != "cache_control"}
        text = f"{place}:{json.dumps(content, sort_keys=True, ensure_ascii=False)}"
        running.update(f"{len(text)}\0{text}".encode())  # the length keeps "ab"+"c" ≠ "a"+"bc"
        keys.append(running.copy().hexdigest())
    return keys


class MarkedPrefixes:
    """The prefixes a provider marked, newest last, at most ``REMEMBERED`` of them."""

    def __init__(self) -> None:
        self._keys: OrderedDict[str, None] = OrderedDict()

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def add(self, keys: Sequence[str]) -> None:
        for key in keys:
            self._keys[key] = None
            self._keys.move_to_end(key)
        while len(self._keys) > REMEMBERED:
            self._keys.popitem(last=False)


__all__ = [
    "LOOKBACK",
    "MAX_BREAKPOINTS",
    "MarkedPrefixes",
    "place_breakpoints",
    "prefix_keys",
]
