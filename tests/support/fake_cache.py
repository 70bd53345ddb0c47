"""The fake model servers' prompt caches: what a real provider would report as cached, by the
providers' documented rules (../shared/notes/prompt-caching.md), so the harness's recorded
cache figures can be checked against what a real server would have said.

Tokens are the harness's own estimate: 4 characters per token (a prompt's tokens round up,
a cached prefix's round down — a partial token is never a hit). The prompt the caches see is
the request body *serialised by the fake* (documented per wire below), compared character
for character: what a real server compares after tokenising.

OpenAI (automatic): the prompt is ``json(tools)`` followed by ``json(message)`` for each
message in order, where ``json`` is ``json.dumps(value, ensure_ascii=False,
separators=(",", ":"))`` with keys in the order the client sent them. Cached tokens are the
longest prefix shared with any prompt processed before, in 128-token steps, and only for
prompts of at least 1,024 tokens.

Anthropic (explicit breakpoints), by docs.anthropic.com/en/docs/build-with-claude/
prompt-caching: "Prompt caching references the entire prompt - tools, system, and messages (in
that order) up to and including the block designated with cache_control"; "You can define up
to 4 cache breakpoints" (a fifth is a 400: "A maximum of 4 blocks with cache_control may be
provided. Found 5."); "When you add a cache_control breakpoint, the system automatically
checks for cache hits at all previous content block boundaries (up to approximately 20 blocks
before your explicit breakpoint)" and "uses the longest matching prefix"; "The minimum
cacheable prompt length is: 1024 tokens for Claude Opus … Sonnet" and shorter prompts "will
be processed without caching"; the usage reports ``cache_creation_input_tokens``,
``cache_read_input_tokens`` and ``input_tokens`` ("tokens after the last cache breakpoint").
Here: the prompt is a list of blocks in the order tools → system → messages: each tool as
``tool:`` + ``json(tool)``, each system text block as ``system:`` + ``json(block)``, each
content block of message ``i`` as ``{i}:{role}:`` + ``json(block)`` (a string ``content``
counts as one text block); ``cache_control`` keys are left out of the serialisation (a marker
is not content). A block with ``cache_control`` is a breakpoint: the prefix up to and
including it is written to the cache when it is at least 1,024 tokens — an entry exists only
where some request put a breakpoint. A request reads the longest cached prefix that ends at
one of its breakpoints or at one of the 20 block boundaries before each; a prefix that differs
in any byte is a different entry. ``cache_creation_input_tokens`` is the prefix up to the last
breakpoint minus what was read (0 when it was read whole or is under the minimum);
``input_tokens`` is the uncached rest.

Expiry: an entry lives ``ttl`` seconds after its last use (written or read), on the cache's
``clock``, as a real one does — Anthropic's default breakpoints 5 minutes ("The cache has a
5-minute lifetime, refreshed each time the cached content is used"), OpenAI's prefixes "5 to
10 minutes of inactivity" (10 here: the longest). A test moves the ``clock`` it passed in
rather than waiting.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

MIN_CACHED_TOKENS = 1024
OPENAI_STEP_TOKENS = 128
ANTHROPIC_LOOKBACK = 20
ANTHROPIC_MAX_BREAKPOINTS = 4
ANTHROPIC_TTL_SECONDS = 300.0
OPENAI_TTL_SECONDS = 600.0

Clock = Callable[[], float]


class _Entries:
    """Digests of cached prefixes, each with the time of its last use; expired ones drop."""

    def __init__(self, ttl: float, clock: Clock) -> None:
        self.ttl, self.clock = ttl, clock
        self._used: dict[bytes | str, float] = {}

    def expire(self) -> None:
        now = self.clock()
        self._used = {d: t for d, t in self._used.items() if now - t < self.ttl}

    def __contains__(self, digest: bytes | str) -> bool:
        return digest in self._used

    def use(self, digest: bytes | str) -> None:
        self._used[digest] = self.clock()


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def prompt_tokens(chars: int) -> int:
    return max(1, math.ceil(chars / 4))


def prefix_tokens(chars: int) -> int:
    return chars // 4


def openai_prompt(body: Mapping[str, Any]) -> str:
    """The OpenAI prompt as the fake serialises it: tools, then each message in order."""
    return dump(body.get("tools") or []) + "".join(dump(m) for m in body.get("messages") or [])


class OpenAIPrefixCache:
    """Automatic prefix caching: ≥ 1,024 tokens, 128-token steps, the longest shared prefix.
    Kept as a real cache keeps it: a digest of every prefix that ends on a 128-token block
    boundary; a request's cached tokens are its leading blocks whose prefix was seen."""

    def __init__(self, ttl: float = OPENAI_TTL_SECONDS, clock: Clock = time.monotonic) -> None:
        self._prefixes = _Entries(ttl, clock)  # sha256 of each processed prompt's block prefixes

    def process(self, body: Mapping[str, Any]) -> tuple[int, int]:
        """``(prompt_tokens, cached_tokens)`` for this request; remembers its prefixes."""
        prompt = openai_prompt(body)
        total = prompt_tokens(len(prompt))
        block = 4 * OPENAI_STEP_TOKENS  # characters in a 128-token step
        running = hashlib.sha256()
        digests = []
        for start in range(0, len(prompt) - block + 1, block):
            running.update(prompt[start : start + block].encode("utf-8"))
            digests.append(running.copy().digest())
        self._prefixes.expire()
        hits = 0
        while hits < len(digests) and digests[hits] in self._prefixes:
            hits += 1
        for digest in digests:
            self._prefixes.use(digest)
        if total < MIN_CACHED_TOKENS:
            return total, 0
        return total, min(total, hits * OPENAI_STEP_TOKENS)


def _without_marker(block: Any) -> Any:
    if isinstance(block, Mapping):
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _marked(block: Any) -> bool:
    return isinstance(block, Mapping) and bool(block.get("cache_control"))


def anthropic_blocks(body: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """The prompt's blocks in cache order (tools → system → messages): (text, is_breakpoint)."""
    blocks = [(f"tool:{dump(_without_marker(t))}", _marked(t)) for t in body.get("tools") or []]
    system = body.get("system")
    if isinstance(system, str) and system:
        blocks.append((f"system:{dump({'type': 'text', 'text': system})}", False))
    elif isinstance(system, list):
        blocks += [(f"system:{dump(_without_marker(b))}", _marked(b)) for b in system]
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        role = message.get("role")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            blocks.append((f"{i}:{role}:{dump(_without_marker(block))}", _marked(block)))
    return blocks


def breakpoint_error(body: Mapping[str, Any]) -> str | None:
    """The 400 message a real server answers a request with too many breakpoints, or None."""
    found = sum(marked for _, marked in anthropic_blocks(body))
    if found <= ANTHROPIC_MAX_BREAKPOINTS:
        return None
    return (
        f"A maximum of {ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. "
        f"Found {found}."
    )


class AnthropicBreakpointCache:
    """``cache_control`` breakpoints with the lookback over earlier block boundaries."""

    def __init__(self, ttl: float = ANTHROPIC_TTL_SECONDS, clock: Clock = time.monotonic) -> None:
        self._entries = _Entries(ttl, clock)  # sha256 of each cached prefix

    def process(self, body: Mapping[str, Any]) -> tuple[int, int, int]:
        """``(input_tokens, cache_read_input_tokens, cache_creation_input_tokens)``."""
        blocks = anthropic_blocks(body)
        ends, digests = _prefixes(text for text, _ in blocks)
        breakpoints = [k for k, (_, marked) in enumerate(blocks) if marked]
        self._entries.expire()
        read = 0
        for b in breakpoints:
            for k in range(b, max(-1, b - ANTHROPIC_LOOKBACK - 1), -1):
                if digests[k] in self._entries:
                    read = max(read, prefix_tokens(ends[k]))
                    self._entries.use(digests[k])
                    break
        written = 0
        for b in breakpoints:
            if prefix_tokens(ends[b]) >= MIN_CACHED_TOKENS:
                self._entries.use(digests[b])
                written = max(written, prefix_tokens(ends[b]))
        creation = max(0, written - read)
        total = prompt_tokens(ends[-1] if ends else 0)
        return max(0, total - read - creation), read, creation


def _prefixes(texts: Iterable[str]) -> tuple[list[int], list[str]]:
    """For each block: the prefix's length in characters and its digest."""
    ends: list[int] = []
    digests: list[str] = []
    running = hashlib.sha256()
    length = 0
    for text in texts:
        # A separator no block text can forge keeps "ab"+"c" apart from "a"+"bc".
        running.update(f"{len(text)}\0".encode())
        running.update(text.encode())
        length += len(text)
        ends.append(length)
        digests.append(running.copy().hexdigest())
    return ends, digests


__all__ = [
    "ANTHROPIC_LOOKBACK",
    "ANTHROPIC_MAX_BREAKPOINTS",
    "ANTHROPIC_TTL_SECONDS",
    "MIN_CACHED_TOKENS",
    "OPENAI_STEP_TOKENS",
    "OPENAI_TTL_SECONDS",
    "AnthropicBreakpointCache",
    "OpenAIPrefixCache",
    "anthropic_blocks",
    "breakpoint_error",
    "openai_prompt",
]
