"""Keeping secrets in (§6.7): every API key the harness reads is registered here, and every
text that leaves the process — the store, logs, messages to the editor, the terminal — is
redacted *before* it is cut, so no prefix of a key survives a truncation.

The registry is process-wide on purpose: a log handler or a store write deep in the call
tree cannot be handed every key, and a key registered once must be redacted everywhere.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values are not treated as keys (they would redact words)

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
    found = registered() | {s for s in extra if s and len(s) >= MIN_SECRET_CHARS}
    for secret in sorted(found, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


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


__all__ = ["REDACTED", "RedactingFilter", "clip", "redact", "register", "registered"]
