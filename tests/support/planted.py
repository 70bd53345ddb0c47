"""A planted secret for attack tests: a unique key, and every place it must never be found.

A leak is the key or any piece of it of ``PIECE_CHARS`` characters or more (a key cut
before it was redacted leaves such a piece: issue 9, seen 6). The key is random hex after
``sk-``, so no piece of it occurs in any text by chance.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

PIECE_CHARS = 12  # §6.7: a piece of 12+ characters of a key (of 32+) is a leak


@dataclass(frozen=True)
class Planted:
    """``Planted.new()``: a fresh 55-character key (the length of a real OpenAI key)."""

    key: str
    _pieces: frozenset[str] = field(default=frozenset(), repr=False)

    @classmethod
    def new(cls, label: str = "planted") -> Planted:
        key = f"sk-{label[:8]}-" + secrets.token_hex(32)
        key = key[:55]
        return cls(
            key, frozenset(key[i : i + PIECE_CHARS] for i in range(len(key) - PIECE_CHARS + 1))
        )

    def pieces_in(self, text: str | bytes) -> list[str]:
        """The pieces of the key found in ``text`` (bytes are read as UTF-8)."""
        haystack = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        return sorted(p for p in self._pieces if p in haystack)

    def leak(self, label: str, text: str | bytes | None) -> str | None:
        """What a leak in ``text`` looks like, for a failure message; None when clean."""
        if text is None:
            return None
        found = self.pieces_in(text)
        if not found:
            return None
        haystack = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        at = haystack.find(found[0])
        context = haystack[max(0, at - 100) : at + 60]
        return f"{label} holds {len(found)} pieces of the planted key, e.g. in …{context!r}…"

    def assert_absent(self, label: str, text: str | bytes | None) -> None:
        leak = self.leak(label, text)
        assert leak is None, leak

    def assert_none_leak(self, texts: dict[str, str | bytes | None]) -> None:
        """Every leak among ``texts`` (label → text) in one failure."""
        leaks = [leak for label, text in texts.items() if (leak := self.leak(label, text))]
        assert not leaks, f"{len(leaks)} leaks:\n" + "\n".join(leaks)


def store_files(path: Path) -> list[Path]:
    """The store and its ``-wal`` and ``-shm``, those that exist."""
    return [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]


def assert_store_clean(planted: Planted, path: Path) -> None:
    """No byte of the store's files holds a piece of the key."""
    files = store_files(path)
    assert files, f"no store at {path}"
    for file in files:
        planted.assert_absent(f"store file {file.name}", file.read_bytes())
