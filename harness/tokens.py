"""The token estimate: four characters per token, in-process, no tokenizer."""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(chars: int) -> int:
    """``ceil(chars / 4)``; negative counts are treated as zero."""
    if chars <= 0:
        return 0
    return -(-chars // CHARS_PER_TOKEN)


def estimate_text(text: str) -> int:
    """The estimate for one string."""
    return estimate_tokens(len(text))
