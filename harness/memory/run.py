"""A run's view of durable memory: ``remember`` and ``forget`` on the run's behalf (with the
words the model is told), and ``block`` — the notes recalled into each turn's request (§4.4).

Recall is kept cheap: the store keeps each scope's index current (words cached by content,
an inverted index, rendered lines); ``block`` caches the layout (which notes are visible,
the full block's size, the order by evidence) until the index changes, and per turn only
scores the turn's words against the inverted index.

``RunMemory`` needs only the part of the store that ``NoteStore`` names (``harness.store.Store``
is one), so memory never imports the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Protocol

from harness.contract import MemoryLimits
from harness.errors import MemoryInputError
from harness.memory.block import SECTIONS, Line, fill, full_chars, render, selection_reserve, split
from harness.memory.index import IndexedNote, ScopeIndex, WordCache
from harness.memory.notes import MemoryForgetResult, MemoryNote, MemoryWriteResult
from harness.memory.rules import UNTRUSTED
from harness.memory.text import (
    GLOBAL,
    MAX_KEY_CHARS,
    inline,
    quote,
    scope_for,
    scope_key,
    topic_words,
)
from harness.types import TraceEvent

TURN_WORD_CACHE_LIMIT = 16_384
SIMILAR_SHOWN = 3  # restatements quoted in a remember result; the rest are named


@dataclass(frozen=True)
class MemoryOutcome:
    """What ``remember``/``forget`` did, in words for the model, and its trace events."""

    ok: bool
    text: str
    events: tuple[TraceEvent, ...] = ()


@dataclass(frozen=True)
class MemoryBlock:
    """One turn's notes: the text (empty when there are none), the ``(scope_key, key)`` pairs
    it carries (one recall row each), how many notes were left out, and trace events."""

    text: str
    recalled: tuple[tuple[str, str], ...] = ()
    dropped: int = 0
    events: tuple[TraceEvent, ...] = ()


@dataclass(frozen=True)
class _Layout:
    """What the block looks like while neither scope's index changes."""

    ws: tuple[IndexedNote, ...]  # workspace notes in store order
    gl: tuple[IndexedNote, ...]  # global notes not shadowed by a workspace key
    sections: tuple[tuple[Line, ...], ...]  # every visible note, as the block prints them
    shadowed: int
    full_chars: int  # the block with every visible note
    min_line: int

    @property
    def count(self) -> int:
        return len(self.ws) + len(self.gl)


class NoteStore(Protocol):
    """What a run's memory needs of the store."""

    def memory_write(  # noqa: PLR0917 -- the §4 operator API is positional
        self, ws: Path | str, key: str, value: str, run_id: int | None, step: int | None,
        kind: str, *, limits: MemoryLimits | None = None,
    ) -> MemoryWriteResult: ...  # fmt: skip

    def memory_forget(
        self, ws: Path | str, key: str, run_id: int, step: int
    ) -> MemoryForgetResult: ...

    def memory_get(self, ws: Path | str, key: str) -> MemoryNote | None: ...

    def memory_index(self, ws: Path | str) -> ScopeIndex: ...


class RunMemory:
    """Durable memory as one run uses it. ``scope`` arguments are ``"workspace"`` (this
    run's workspace) or ``"global"``. ``trusted``: whether the user trusts the workspace
    (§6.3); a run in a folder the user has not trusted cannot write or forget global
    notes, which every workspace reads (§4)."""

    def __init__(
        self,
        store: NoteStore,
        workspace: Path | str,
        run_id: int,
        limits: MemoryLimits,
        *,
        trusted: bool = False,
    ) -> None:
        self.store = store
        self.workspace_key = scope_key(Path(workspace), trusted=trusted)
        self.run_id = run_id
        self.limits = limits
        self.trusted = trusted
        self._turn_words = WordCache(TURN_WORD_CACHE_LIMIT, topic_words)
        self._layout_key: tuple[int, ...] = ()
        self._layout: _Layout | None = None
        self._order_key: tuple[int, ...] = ()
        self._order: tuple[tuple[int, IndexedNote], ...] = ()
        self._order_ids: tuple[int, ...] = ()

    # -- the tools ------------------------------------------------------------------------

    def remember(self, key: str, value: str, scope: str, step: int) -> MemoryOutcome:
        if scope == "global" and not self.trusted:
            return _untrusted("remember", key)
        try:
            target = scope_for(self.workspace_key, scope)
            result = self.store.memory_write(
                target, key, value, self.run_id, step, "fact", limits=self.limits
            )
        except MemoryInputError as exc:
            return _invalid("remember", key, scope, str(exc))
        if result.refused is not None:
            existing = result.existing
            assert existing is not None
            text = _users_note(existing, "change it, so nothing was stored")
            return MemoryOutcome(ok=False, text=text, events=result.events)
        return MemoryOutcome(ok=True, text=self._stored_text(result), events=result.events)

    def forget(self, key: str, scope: str, step: int) -> MemoryOutcome:
        if scope == "global" and not self.trusted:
            return _untrusted("forget", key)
        try:
            target = scope_for(self.workspace_key, scope)
            result = self.store.memory_forget(target, key, self.run_id, step)
        except MemoryInputError as exc:
            return _invalid("forget", key, scope, str(exc))
        where = _where(scope)
        note = result.note
        if note is None:
            text = f"there is no note `{key.strip()}` in {where}; nothing was forgotten."
            other = "global" if scope == "workspace" else "workspace"
            if self.store.memory_get(scope_for(self.workspace_key, other), key) is not None:
                text += f' There is one in {_where(other)}: forget it with scope="{other}".'
            return MemoryOutcome(ok=False, text=text, events=result.events)
        if result.refused is not None:
            text = _users_note(note, "forget it")
            return MemoryOutcome(ok=False, text=text, events=result.events)
        text = f'forgot `{note.key}` from {where} (it said: "{quote(note.value)}").'
        return MemoryOutcome(ok=True, text=text, events=result.events)

    def _stored_text(self, result: MemoryWriteResult) -> str:
        note = result.note
        assert note is not None
        where = _where(note.scope)
        lines = [
            f"stored `{note.key}` in {where} ({len(note.value):,} chars)"
            + (", recalled in every workspace" if note.is_global else "")
            + ("; it replaces the previous value." if result.replaced else ".")
        ]
        if result.truncated:
            lines.append(
                f"The value had {result.original_chars:,} characters; a note holds at most"
                f" {self.limits.max_entry_chars:,}, so it was cut and ends in …[truncated]."
                " Keep notes short: the conclusion, not the evidence."
            )
        if result.evicted:
            names = ", ".join(f"`{n.key}`" for n in result.evicted)
            lines.append(
                f"To stay within {where}'s caps ({self.limits.max_entries:,} notes,"
                f" {self.limits.max_chars:,} characters) this evicted the note(s) recalled by"
                f" the fewest runs: {names}."
            )
        if result.over_cap:
            lines.append(
                f"{where.capitalize()} is still over its cap: every other note is the user's"
                " (pinned, or written by the user), and those are never evicted."
            )
        for other in result.similar[:SIMILAR_SHOWN]:
            lines.append(
                f"This overlaps `{other.key}` ({other.jaccard:.0%} of words shared), which"
                f' says: "{quote(other.value)}". If they say the same thing, forget one; if'
                " they disagree, correct the wrong one."
            )
        if len(result.similar) > SIMILAR_SHOWN:
            more = ", ".join(f"`{o.key}`" for o in result.similar[SIMILAR_SHOWN:])
            lines.append(f"It also overlaps {more}.")
        return "\n".join(lines)

    # -- recall ---------------------------------------------------------------------------

    def block(self, *, max_chars: int, goal: str, touched: Iterable[str], step: int) -> MemoryBlock:
        """The notes for this turn, at most ``max_chars`` characters (§4.4). Notes are
        printed in store order whatever was selected, so the text is the same from turn to
        turn while the store and the selection do not change."""
        ws_index = self.store.memory_index(self.workspace_key)
        gl_index = self.store.memory_index(GLOBAL)
        layout = self._layout_for(ws_index, gl_index)
        if layout.count == 0:
            return MemoryBlock(text="")
        if layout.full_chars <= max_chars:
            sections = layout.sections
        else:
            ranked = self._ranked(layout, ws_index, gl_index, self._words_of(goal, touched))
            budget = max_chars - selection_reserve()
            chosen = fill(ranked, budget, layout.min_line) if budget > 0 else [set(), set()]
            # Store order is id order: a note keeps its id when rewritten.
            sections = split(
                [ws_index.notes[i] for i in sorted(chosen[0])],
                [gl_index.notes[i] for i in sorted(chosen[1])],
            )
        shown = sum(len(notes) for notes in sections)
        text = render(sections, layout.count - shown)
        if len(text) > max_chars:  # not even the heading fits
            text, sections, shown = "", ((),) * SECTIONS, 0
        dropped = layout.count - shown
        scopes = (self.workspace_key,) * (SECTIONS // 2) + (GLOBAL,) * (SECTIONS // 2)
        recalled = tuple(
            (scope, n.key) for scope, notes in zip(scopes, sections, strict=True) for n in notes
        )
        detail = {
            "carried": len(recalled),
            "dropped": dropped,
            "shadowed": layout.shadowed,
            "chars": len(text),
            "maxChars": max_chars,
        }
        return MemoryBlock(
            text=text,
            recalled=recalled,
            dropped=dropped,
            events=(TraceEvent("memory_recall", detail),),
        )

    def _layout_for(self, ws: ScopeIndex, gl: ScopeIndex) -> _Layout:
        key = (ws.generation, ws.version, gl.generation, gl.version)
        if self._layout is None or key != self._layout_key:
            # Another author's notes need the user's trust in this folder (issue 30).
            ws_notes = tuple(n for n in ws.notes.values() if self.trusted or not n.other)
            gl_notes = tuple(
                n
                for n in gl.notes.values()
                if n.key not in ws.by_key and (self.trusted or not n.other)
            )
            lines = [len(n.line) for n in ws_notes] + [len(n.line) for n in gl_notes]
            sections = split(ws_notes, gl_notes)
            self._layout = _Layout(
                ws=ws_notes,
                gl=gl_notes,
                sections=sections,
                shadowed=sum(1 for n in gl.notes.values() if n.key in ws.by_key),
                full_chars=full_chars(sections),
                min_line=min(lines, default=0),
            )
            self._layout_key = key
        return self._layout

    def _words_of(self, goal: str, touched: Iterable[str]) -> set[str]:
        """The turn's words: the goal's and those of every path or pattern touched."""
        cache = self._turn_words
        found = set(cache(goal))
        for target in touched:
            found.update(cache(target))
        return found

    def _ranked(
        self, layout: _Layout, ws: ScopeIndex, gl: ScopeIndex, turn: set[str]
    ) -> Iterator[tuple[int, IndexedNote]]:
        """Visible notes best first: most words shared with the turn, then most distinct
        runs that recalled them, then workspace before global, then most recently written.

        The evidence order (everything after the score) is cached; a turn only scores notes
        through the inverted index and stable-sorts positions by score, in C.
        """
        order, ids = self._evidence_order(layout, ws, gl)
        scores = ws.scores(turn)
        scores.update(gl.scores(turn))  # note ids are unique across scopes
        if not scores:
            yield from order
            return
        by_position = list(map(scores.get, ids, repeat(0)))
        for i in sorted(range(len(ids)), key=by_position.__getitem__, reverse=True):
            yield order[i]

    def _evidence_order(
        self, layout: _Layout, ws: ScopeIndex, gl: ScopeIndex
    ) -> tuple[tuple[tuple[int, IndexedNote], ...], tuple[int, ...]]:
        key = (*self._layout_key, ws.evidence, gl.evidence)
        if key != self._order_key:
            pairs = [(0, n) for n in layout.ws] + [(1, n) for n in layout.gl]
            pairs.sort(key=lambda p: (-p[1].runs, p[0], -p[1].seq))
            self._order = tuple(pairs)
            self._order_ids = tuple(n.id for _, n in pairs)
            self._order_key = key
        return self._order, self._order_ids


def _where(scope: str) -> str:
    return "global memory" if scope == "global" else "this workspace's memory"


def _users_note(note: MemoryNote, cannot: str) -> str:
    """What the model is told when it reached for the user's note (§4)."""
    how = "pinned" if note.pinned else "written"
    return (
        f"`{inline(note.key)}` is the user's note ({how} by the user); a run cannot {cannot}."
        f' It stays: "{quote(note.value)}". If it is wrong, say so in your final answer so the'
        " user can update it."
    )


def _untrusted(action: str, key: str) -> MemoryOutcome:
    """A global ``remember``/``forget`` from a folder the user has not trusted (§4, §6.3):
    refused, recorded and told to the model."""
    shown = _shown(key)
    detail = {"action": action, "key": shown, "scope": "global", "reason": UNTRUSTED}
    done = "write" if action == "remember" else "forget"
    text = (
        f"refused: global notes are read by every workspace, and the user has not trusted"
        f" this folder, so a run here cannot {done} one; nothing changed in global memory."
    )
    if action == "remember":
        text += ' Keep the note in this workspace\'s memory (scope="workspace") instead.'
    return MemoryOutcome(ok=False, text=text, events=(TraceEvent("memory_refused", detail),))


def _shown(key: str) -> str:
    return inline(key)[:MAX_KEY_CHARS] if isinstance(key, str) else repr(key)


def _invalid(action: str, key: str, scope: str, message: str) -> MemoryOutcome:
    shown = _shown(key)
    detail = {
        "action": action,
        "key": shown,
        "scope": scope,
        "reason": "invalid",
        "message": message,
    }
    return MemoryOutcome(
        ok=False,
        text=f"error: {message}.",
        events=(TraceEvent("memory_refused", detail),),
    )
