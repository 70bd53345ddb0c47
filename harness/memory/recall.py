"""The recall index: every scope's ``ScopeIndex``, built on first use from the rows the store
hands it and kept current by the store, which reports each change it makes. A change made
through another connection (another process) is noticed by the store's data version moving:
then every scope is rebuilt on next use — cheaply, because word sets are cached by content.

Not thread-safe by itself: the store calls it under its own lock.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

from harness.memory.index import INDEX_COLUMNS, IndexedNote, NoteRow, ScopeIndex, WordCache
from harness.memory.notes import MemoryNote


class RecallIndex:
    """Scope key → ``ScopeIndex``, with one word cache shared by every scope."""

    def __init__(self, me: str | None = None) -> None:
        self.me = me  # this process's author (user@host): another's notes print as theirs
        self.words = WordCache()
        self._scopes: dict[str, ScopeIndex] = {}
        self._generations = itertools.count(1)
        self._data_version: int | None = None

    def sync(self, data_version: int) -> None:
        """Forget every scope when the database changed through another connection since
        we last looked (``data_version`` is SQLite's ``PRAGMA data_version``)."""
        if data_version != self._data_version:
            self._data_version = data_version
            self._scopes.clear()

    def scope(self, scope_key: str, rows: Callable[[], Iterable[NoteRow]]) -> ScopeIndex:
        """The scope's index, built from ``rows()`` (store order) when not yet held."""
        index = self._scopes.get(scope_key)
        if index is None:
            entries = (self._entry(r) for r in rows())
            index = ScopeIndex(scope_key, entries, generation=next(self._generations))
            self._scopes[scope_key] = index
        return index

    def held(self, scope_key: str) -> ScopeIndex | None:
        return self._scopes.get(scope_key)

    # -- changes the store made ----------------------------------------------------------

    def written(self, note: MemoryNote, evicted: Sequence[MemoryNote] = ()) -> None:
        """``note`` was written (or pinned) and ``evicted`` went with it."""
        index = self._scopes.get(note.scope_key)
        if index is None:
            return
        for gone in evicted:
            index.remove(gone.key)
        index.put(self.entry(note))

    def removed(self, scope_key: str, key: str) -> None:
        index = self._scopes.get(scope_key)
        if index is not None:
            index.remove(key)

    def cleared(self, scope_key: str) -> None:
        self._scopes.pop(scope_key, None)

    def recalled_by_new_runs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Each ``(scope_key, key)`` was recalled by a run that had not recalled it before."""
        for scope_key, key in pairs:
            index = self._scopes.get(scope_key)
            if index is not None:
                index.add_run(key)

    # -- entries ---------------------------------------------------------------------------

    def entry(self, note: MemoryNote) -> IndexedNote:
        return self._entry(
            NoteRow(
                note.id,
                note.key,
                note.value,
                note.kind,
                note.pinned,
                note.seq,
                note.recall_runs,
                note.origin,
                note.author,
            )
        )

    def _entry(self, row: NoteRow) -> IndexedNote:
        return IndexedNote.build(self.words, row, self.me)


__all__ = ["INDEX_COLUMNS", "NoteRow", "RecallIndex"]
