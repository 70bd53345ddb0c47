"""What keeps recall and the restatement check cheap as a store grows: word sets cached by
content, and a per-scope index (notes in store order, an inverted index from word to notes,
each note's rendered line) that the store updates in place on every change it makes.

Nothing here touches SQLite: ``harness.memory.recall.RecallIndex`` builds a ``ScopeIndex``
from the rows the store hands it, and the store tells it of every change it makes.
``version`` changes whenever a note's text, kind or pin changes (the block must be
re-rendered); ``evidence`` changes when recall evidence (distinct runs) changes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain
from typing import NamedTuple

from harness.memory.block import render_line, render_other
from harness.memory.notes import is_operator_note
from harness.memory.text import RESTATEMENT_THRESHOLD, jaccard, words

WORD_CACHE_LIMIT = 65_536


class NoteRow(NamedTuple):
    """What the index needs of a stored note (the columns of ``INDEX_COLUMNS``, in order)."""

    id: int
    key: str
    value: str
    kind: str
    pinned: bool
    seq: int
    recall_runs: int
    origin: str | None = None  # a global note: the workspace whose run wrote it
    author: str | None = None  # who wrote it (user@host); None before it was recorded


INDEX_COLUMNS = "id, key, value, kind, pinned, seq, recall_runs, origin, author"


class WordCache:
    """Normalised word sets keyed by the text itself, so an unchanged note (or path) is
    normalised once. Bounded: past ``limit`` entries it starts again."""

    def __init__(
        self,
        limit: int = WORD_CACHE_LIMIT,
        normalise: Callable[[str], frozenset[str]] = words,
    ) -> None:
        self._limit = limit
        self._normalise = normalise
        self._sets: dict[str, frozenset[str]] = {}

    def __call__(self, text: str) -> frozenset[str]:
        found = self._sets.get(text)
        if found is None:
            if len(self._sets) >= self._limit:
                self._sets.clear()
            found = self._sets[text] = self._normalise(text)
        return found

    def __len__(self) -> int:
        return len(self._sets)


@dataclass(slots=True)
class IndexedNote:
    """A note as recall sees it. ``runs`` (distinct runs that recalled it) is the only field
    that changes in place; every other change replaces the entry."""

    id: int
    key: str
    value: str
    seq: int  # write order across the store: larger is more recent
    runs: int
    value_words: frozenset[str]
    words: frozenset[str]  # key and value: what relevance to a turn is scored on
    line: str
    operator: bool  # the user's note (a decision or pinned), printed apart from the agent's
    other: bool = False  # written by another author (user@host) than this process's

    @classmethod
    def build(cls, cache: WordCache, row: NoteRow, me: str | None = None) -> IndexedNote:
        """The entry for a stored note (``row``), its word sets from ``cache``. A note whose
        recorded author is not ``me`` (this process's ``user@host``) is another person's:
        printed as theirs, never as the user's decision or the agent's own (issue 30)."""
        pinned = bool(row.pinned)
        value_words = cache(row.value)
        other = row.author is not None and me is not None and row.author != me
        line = (
            render_other(row.key, row.value, row.author or "", row.origin)
            if other
            else render_line(row.key, row.value, kind=row.kind, pinned=pinned, origin=row.origin)
        )
        return cls(
            value_words=value_words,
            words=value_words | cache(row.key),
            line=line,
            operator=not other and is_operator_note(row.kind, pinned),
            other=other,
            # and what is stored as it is
            id=row.id,
            key=row.key,
            value=row.value,
            seq=row.seq,
            runs=row.recall_runs,
        )


class ScopeIndex:
    """One scope's notes in store order with an inverted index over their words."""

    def __init__(
        self, scope_key: str, notes: Iterable[IndexedNote] = (), generation: int = 0
    ) -> None:
        self.scope_key = scope_key
        self.generation = generation  # which build this is: a rebuilt index is a new one
        self.notes: dict[int, IndexedNote] = {}
        self.by_key: dict[str, int] = {}
        self.postings: dict[str, set[int]] = {}
        self.line_chars = 0  # sum of len(line) + 1 over all notes
        self.version = 0
        self.evidence = 0
        for note in notes:
            self._add(note)

    def __len__(self) -> int:
        return len(self.notes)

    def get(self, key: str) -> IndexedNote | None:
        nid = self.by_key.get(key)
        return None if nid is None else self.notes[nid]

    # -- changes (made by the store after its own writes) -----------------------------------

    def put(self, note: IndexedNote) -> None:
        """Add a note, or replace the one with the same id (it keeps its place)."""
        old = self.notes.get(note.id)
        if old is not None:
            self._unpost(old)
            self.line_chars -= len(old.line) + 1
            if old.key != note.key:
                self.by_key.pop(old.key, None)
        self._add(note)
        self.version += 1

    def remove(self, key: str) -> None:
        nid = self.by_key.pop(key, None)
        if nid is None:
            return
        note = self.notes.pop(nid)
        self._unpost(note)
        self.line_chars -= len(note.line) + 1
        self.version += 1

    def add_run(self, key: str) -> None:
        """One more distinct run recalled ``key``."""
        nid = self.by_key.get(key)
        if nid is not None:
            self.notes[nid].runs += 1
            self.evidence += 1

    def _add(self, note: IndexedNote) -> None:
        self.notes[note.id] = note
        self.by_key[note.key] = note.id
        self.line_chars += len(note.line) + 1
        for w in note.words:
            self.postings.setdefault(w, set()).add(note.id)

    def _unpost(self, note: IndexedNote) -> None:
        for w in note.words:
            ids = self.postings.get(w)
            if ids is not None:
                ids.discard(note.id)
                if not ids:
                    del self.postings[w]

    # -- queries ----------------------------------------------------------------------------

    def scores(self, turn_words: Iterable[str]) -> Counter[int]:
        """How many of ``turn_words`` each note shares (notes sharing none are absent)."""
        postings = self.postings
        return Counter(chain.from_iterable(postings[w] for w in turn_words if w in postings))

    def similar(
        self,
        value_words: frozenset[str],
        exclude_key: str,
        threshold: float = RESTATEMENT_THRESHOLD,
    ) -> list[tuple[IndexedNote, float]]:
        """Notes (other than ``exclude_key``) whose value words overlap ``value_words`` with
        Jaccard >= ``threshold``, most similar first.

        Prefix filtering: a note reaching the threshold shares at least ``threshold * |A|``
        words with A, so it must contain one of any ``|A| - floor(threshold * |A|) + 1`` words
        of A; taking the rarest such words keeps the candidate set small.
        """
        if not value_words:
            return []
        postings = self.postings
        size = len(value_words)
        prefix = size - math.floor(threshold * size) + 1
        rare = sorted(value_words, key=lambda w: len(postings.get(w, ())))[:prefix]
        candidates: set[int] = set()
        for w in rare:
            candidates.update(postings.get(w, ()))
        found: list[tuple[IndexedNote, float]] = []
        for nid in candidates:
            note = self.notes[nid]
            if note.key == exclude_key:
                continue
            score = jaccard(value_words, note.value_words)
            if score >= threshold:
                found.append((note, score))
        found.sort(key=lambda pair: (-pair[1], pair[0].id))
        return found
