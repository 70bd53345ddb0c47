"""Open documents and their unsaved changes (§6.5): the user's buffers are the user's.

pygls keeps each open document's text; this module keeps what pygls does not: whether a
``didChange`` arrived since the last ``didOpen``/``didSave`` (versions tracked here). Such a
document is dirty only if its text also differs from the file on disk — an editor that
reloads a buffer after an agent write sends a ``didChange`` with exactly the disk content,
and that is not the user's unsaved work.

``EditorGuard`` is the ``DocumentGuard`` a run gets: the loop's write tools refuse dirty
files, reads say the editor holds unsaved changes, and the toolbox asks which files are
dirty before each command (``unsaved_paths``) to tell the user at once when the command
changed one on disk (§6.5).

Comparing with the disk runs on the event loop, so it never blocks: only a regular file
of at most ``MAX_COMPARED_BYTES`` is read (opened non-blocking — a FIFO the editor has open
is "dirty", not a frozen server); anything else counts as unsaved, the safe answer.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from server.lsp.folders import uri_to_path

TextOf = Callable[[str], str | None]
MAX_COMPARED_BYTES = 16 * 1024 * 1024


@dataclass
class _Open:
    uri: str
    version: int | None
    clean_version: int | None  # the version at the last open or save (or found equal to disk)


class DocumentTracker:
    """Which open documents have unsaved changes. ``text_of(uri)`` gives a buffer's text."""

    def __init__(self, text_of: TextOf) -> None:
        self._text_of = text_of
        self._docs: dict[Path, _Open] = {}

    def opened(self, uri: str, version: int | None) -> Path | None:
        path = _key(uri)
        if path is not None:
            self._docs[path] = _Open(uri, version, version)
        return path

    def changed(self, uri: str, version: int | None) -> Path | None:
        path = _key(uri)
        if path is None:
            return None
        doc = self._docs.get(path)
        if doc is None:  # a change without an open: treat the buffer as unknown, so unsaved
            self._docs[path] = _Open(uri, version, None)
        else:
            doc.version = version if version is not None else _bump(doc.version)
        return path

    def saved(self, uri: str) -> Path | None:
        path = _key(uri)
        if path is not None and (doc := self._docs.get(path)) is not None:
            doc.clean_version = doc.version
        return path

    def closed(self, uri: str) -> Path | None:
        path = _key(uri)
        if path is not None:
            self._docs.pop(path, None)
        return path

    def is_dirty(self, path: Path) -> bool:
        """True when the open buffer of ``path`` holds changes not on disk."""
        doc = self._docs.get(path)
        if doc is None or doc.version == doc.clean_version:
            return False
        text = self._text_of(doc.uri)
        on_disk = _regular_bytes(path)
        if text is None or on_disk is None:
            return True
        if text.encode("utf-8") == on_disk:
            doc.clean_version = doc.version  # the buffer was reloaded from disk
            return False
        return True

    def dirty_paths(self) -> list[Path]:
        """Every open document holding changes not on disk."""
        return [path for path in list(self._docs) if self.is_dirty(path)]


class EditorGuard:
    """``DocumentGuard`` for one workspace root."""

    def __init__(self, tracker: DocumentTracker, root: Path) -> None:
        self.tracker = tracker
        self.root = root

    def has_unsaved_changes(self, rel_path: str) -> bool:
        try:
            path = (self.root / rel_path).resolve()
        except (OSError, RuntimeError, ValueError):
            return False
        return self.tracker.is_dirty(path)

    def unsaved_paths(self) -> tuple[str, ...]:
        """The workspace-relative paths of the files the editor holds unsaved."""
        return tuple(
            path.relative_to(self.root).as_posix()
            for path in self.tracker.dirty_paths()
            if path.is_relative_to(self.root)
        )


def _regular_bytes(path: Path) -> bytes | None:
    """The content of ``path`` if it is a regular file small enough to compare, else None;
    never blocks (``O_NONBLOCK``: a FIFO opens at once, and is then refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_COMPARED_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_COMPARED_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _key(uri: str) -> Path | None:
    path = uri_to_path(uri)
    if path is None:
        return None
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _bump(version: int | None) -> int:
    return (version or 0) + 1


__all__ = ["DocumentTracker", "EditorGuard"]
