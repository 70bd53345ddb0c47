"""Keeping secrets in (§6.7): every API key the harness reads is registered here, and every
text that leaves the process — the store, logs, messages to the editor, the terminal — is
redacted *before* it is cut, so no prefix of a key survives a truncation.

The registry is process-wide on purpose: a log handler or a store write deep in the call
tree cannot be handed every key, and a key registered once must be redacted everywhere.

What is left of a key that something upstream cut before it reached here is redacted too:
a run of ``MIN_PIECE_CHARS`` or more characters that is the start of a key (a cut kept the
head) or its end (an elision kept the tail) — for a real key, ``MIN_PIECE_KEY_CHARS`` or
more characters long. A shorter key is a placeholder (``sk-no-key-required`` for a local
server): it is redacted whole, never in pieces, or every "required" in a note, an approval
or a path would be eaten.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values are not treated as keys (they would redact words)
MIN_PIECE_CHARS = 12  # a key's head or tail this long is a leak, not a coincidence
MIN_PIECE_KEY_CHARS = 32  # shorter keys are placeholders: redacted whole only (§6.7)

_lock = threading.Lock()
_secrets: set[str] = set()


def register(secret: str | None) -> None:
    """Treat ``secret`` as a key from now on (``None`` and short values are ignored)."""
    if secret and len(secret) >= MIN_SECRET_CHARS:
        with _lock:
            _secrets.add(secret)


def registered() -> frozenset[str]:
    with _lock:
        return frozenset(_secrets)


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` with every registered secret (and each of ``extra``) replaced, longest first
    so a key that contains another is replaced whole."""
    found = sorted(
        registered() | {s for s in extra if s and len(s) >= MIN_SECRET_CHARS},
        key=len,
        reverse=True,
    )
    for secret in found:
        if secret in text:
            text = text.replace(secret, REDACTED)
    for secret in found:  # then what a cut upstream left of a real (long) one
        if len(secret) >= MIN_PIECE_KEY_CHARS:
            text = _redact_pieces(text, secret)
    return text


def holds_secret(data: bytes) -> bool:
    """Whether ``data`` holds a registered key, or a piece of one ``redact`` would hide
    (bytes read as Latin-1: a key is ASCII, so it is found wherever it lies)."""
    if not registered():
        return False
    text = data.decode("latin-1")
    return redact(text) != text


def _redact_pieces(text: str, secret: str) -> str:
    """``text`` with every head or tail of ``secret`` of ``MIN_PIECE_CHARS`` or more
    characters replaced (overlapping pieces as one)."""
    merged: list[list[int]] = []
    for start, end in sorted(_pieces(text, secret)):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    if not merged:
        return text
    out: list[str] = []
    done = 0
    for start, end in merged:
        out += [text[done:start], REDACTED]
        done = end
    out.append(text[done:])
    return "".join(out)


def _pieces(text: str, secret: str) -> list[tuple[int, int]]:
    """Where heads and tails of ``secret`` are in ``text``: found with ``str.find`` (no
    piece, the common case, costs two scans), each extended as far as it matches."""
    n = MIN_PIECE_CHARS
    spans: list[tuple[int, int]] = []
    at = text.find(secret[:n])
    while at >= 0:
        end = at + n
        while end < len(text) and end - at < len(secret) and text[end] == secret[end - at]:
            end += 1
        spans.append((at, end))
        at = text.find(secret[:n], end)
    at = text.find(secret[-n:])
    while at >= 0:
        start, back = at, len(secret) - n
        while start > 0 and back > 0 and text[start - 1] == secret[back - 1]:
            start, back = start - 1, back - 1
        spans.append((start, at + n))
        at = text.find(secret[-n:], at + n)
    return spans


def clip(text: str, limit: int, extra: Iterable[str | None] = ()) -> str:
    """Redact, then keep at most ``limit`` characters (ending ``…`` when cut)."""
    text = redact(text, extra)
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


class RedactingFilter(logging.Filter):
    """A logging filter that redacts every registered secret from the formatted message and
    from the traceback and stack attached to the record (``exc_info``, ``stack_info``): an
    exception's message is text that leaves the process too."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[0] is not None:
            # Formatters reuse ``exc_text`` once set, so the redacted text is what they print.
            text = record.exc_text or _TRACEBACKS.formatException(record.exc_info)
            record.exc_text = redact(text)
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


_TRACEBACKS = logging.Formatter()


__all__ = [
    "MIN_PIECE_CHARS",
    "MIN_PIECE_KEY_CHARS",
    "REDACTED",
    "RedactingFilter",
    "clip",
    "holds_secret",
    "redact",
    "register",
    "registered",
]
