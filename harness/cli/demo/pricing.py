"""Cache-priced cost (§8 demo): what a request costs a user whose provider caches prompts
by prefix, at Anthropic's published ratios to the plain input price — cache reads 0.1×,
cache writes 1.25× (OpenAI-compatible servers bill no write premium and discount reads by
a model-dependent amount; these ratios are the dearer case for a changing prefix).

A request's shared prefix (the characters it shares from the start with the request
before it) is read from the cache; the rest is written to it. The first request of a run
shares nothing.
"""

from __future__ import annotations

INPUT = 1.0
CACHE_WRITE = 1.25
CACHE_READ = 0.1


def cache_priced(chars: int, shared: int) -> float:
    """The cost of a request of ``chars`` characters sharing ``shared`` of them with the
    request before, in characters at the plain input price."""
    if not 0 <= shared <= chars:
        raise ValueError(f"shared ({shared}) must be within the request ({chars})")
    return shared * CACHE_READ + (chars - shared) * CACHE_WRITE


__all__ = ["CACHE_READ", "CACHE_WRITE", "INPUT", "cache_priced"]
