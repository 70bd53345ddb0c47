"""Durable memory in the store, on real SQLite files and PostgreSQL databases (§12): the schema, caps and truncation,
eviction by evidence, pinned notes, operator actions, recall rows inside the step
transaction, and the recall index staying current across connections."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.contract import MEMORY_MAX_ENTRY_CHARS, MemoryLimits
from harness.errors import MemoryInputError
from harness.memory import GLOBAL, TRUNCATION_MARK
from harness.memory.rules import EVICTION_ORDER
from harness.store import Store
from harness.store.schema import MIGRATIONS, migrate
from tests.support.memory_note import NOTE_FIELDS
from tests.support.steps import commit_bare_step
from tests.support.stores import INTEGRITY_ERRORS
from tests.support.stores import raw_rows as other_connection_rows


def new_run(store: Store, ws: Path, goal: str = "g") -> int:
    return store.create_run(goal=goal, workspace=str(ws), provider="p", model="m", contract="{}")


def commit_recalls(store: Store, run_id: int, step: int, pairs: Sequence[tuple[str, str]]) -> None:
    """Commit a step that carried ``pairs``, the way the loop does."""
    commit_bare_step(store, run_id, step, recalls=pairs)


def raw_rows(store: Store, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
    """Read the store through a connection of its own, as another process would."""
    return other_connection_rows(store.location, sql, params)


def operator_events(store: Store) -> list[tuple[str, dict[str, object]]]:
    rows = raw_rows(
        store,
        "SELECT kind, detail FROM context_events WHERE run_id IS NULL AND step IS NULL ORDER BY id",
    )
    return [(r["kind"], json.loads(r["detail"])) for r in rows]


# -- schema --------------------------------------------------------------------------------


def test_the_memory_migration_applies_to_an_empty_database_and_twice(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    assert migrate(conn) == len(MIGRATIONS) >= 2
    assert migrate(conn) == len(MIGRATIONS)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"memory", "memory_recalls"} <= tables
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"memory_evict", "memory_recalls_note", "memory_recalls_run"} <= indexes
    conn.close()
    # A store opened twice on the same file migrates once and keeps its notes.
    with Store(tmp_path / "s.db") as first:
        first.memory_write(tmp_path, "k", "v", None, None, "decision")
    with Store(tmp_path / "s.db") as second:
        assert second.version == len(MIGRATIONS)
        assert [n.key for n in second.memory_list(tmp_path)] == ["k"]


def test_eviction_reads_the_index_not_a_sort(tmp_path: Path, ws: Path) -> None:
    with Store(tmp_path / "s.db") as store:  # SQLite's plan; PostgreSQL plans by statistics
        plan = raw_rows(
            store,
            "EXPLAIN QUERY PLAN SELECT id FROM memory WHERE scope = ? AND pinned = 0 AND id != ?"
            f" ORDER BY {', '.join(EVICTION_ORDER)}",
            (str(ws), 0),
        )
    text = " ".join(str(r["detail"]) for r in plan)
    assert "memory_evict" in text and "TEMP B-TREE" not in text


# -- writing, replacing, truncating ----------------------------------------------------------


def test_a_note_records_its_run_step_and_kind_and_has_the_8_1_shape(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    result = store.memory_write(ws, "build-command", "make test", run, 3, "fact")
    assert result.stored and not result.replaced and not result.truncated
    note = store.memory_get(ws, "build-command")
    assert note is not None
    shape = note.to_json()
    assert list(shape) == NOTE_FIELDS
    assert shape["value"] == "make test" and shape["kind"] == "fact"
    assert (shape["runId"], shape["step"], shape["scope"], shape["recalls"]) == (
        run,
        3,
        "workspace",
        0,
    )
    assert note.scope_key == str(ws.resolve())


def test_writing_a_key_again_replaces_it_in_place(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.memory_write(ws, "a", "first", run, 1, "fact")
    store.memory_write(ws, "b", "other", run, 1, "fact")
    result = store.memory_write(ws, "a", "second", run, 4, "fact")
    assert result.replaced
    notes = store.memory_list(ws)
    assert [(n.key, n.value, n.step) for n in notes] == [("a", "second", 4), ("b", "other", 1)]


def test_a_5000_char_value_is_stored_as_exactly_2000_ending_in_the_marker(
    store: Store, ws: Path
) -> None:
    run = new_run(store, ws)
    result = store.memory_write(ws, "long", "x" * 5_000, run, 1, "fact")
    note = store.memory_get(ws, "long")
    assert note is not None and result.truncated and result.original_chars == 5_000
    assert len(note.value) == MEMORY_MAX_ENTRY_CHARS == 2_000
    assert note.value.endswith(TRUNCATION_MARK)
    assert note.value == "x" * (2_000 - len(TRUNCATION_MARK)) + TRUNCATION_MARK


def test_a_value_of_exactly_the_cap_is_not_marked(store: Store, ws: Path) -> None:
    result = store.memory_write(ws, "k", "y" * 2_000, None, None, "decision")
    assert not result.truncated and result.note is not None and result.note.value == "y" * 2_000


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("", id="empty"),
        pytest.param("   ", id="blank"),
        pytest.param("a\nb", id="newline"),
        pytest.param("bell\x07", id="control"),
        pytest.param("rtl\u202eevil", id="bidi-override"),
        pytest.param("k" * 101, id="too-long"),
    ],
)
def test_bad_keys_are_refused(store: Store, ws: Path, key: str) -> None:
    with pytest.raises(MemoryInputError):
        store.memory_write(ws, key, "v", None, None, "decision")
    assert store.memory_list(ws) == []


def test_an_empty_value_or_an_unknown_kind_is_refused(store: Store, ws: Path) -> None:
    with pytest.raises(MemoryInputError, match="empty"):
        store.memory_write(ws, "k", "  ", None, None, "decision")
    with pytest.raises(MemoryInputError, match="kind"):
        store.memory_write(ws, "k", "v", None, None, "rumour")


def test_a_run_cannot_pin(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    with pytest.raises(MemoryInputError, match="operator"):
        store.memory_write(ws, "k", "v", run, 1, "fact", pinned=True)


# -- caps and eviction -------------------------------------------------------------------------


def test_the_65th_note_evicts_one(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    for i in range(64):
        assert not store.memory_write(ws, f"k{i}", f"value {i}", run, 1, "fact").evicted
    result = store.memory_write(ws, "k64", "value 64", run, 2, "fact")
    assert [n.key for n in result.evicted] == ["k0"]  # nothing recalled: oldest written goes
    keys = [n.key for n in store.memory_list(ws)]
    assert len(keys) == 64 and "k64" in keys and "k0" not in keys


def test_max_chars_is_enforced(store: Store, ws: Path) -> None:
    limits = MemoryLimits(max_entries=64, max_chars=1_000, max_entry_chars=400)
    run = new_run(store, ws)
    for i in range(5):
        store.memory_write(ws, f"k{i}", str(i) * 300, run, 1, "fact", limits=limits)
        assert store.memory_usage(ws).chars <= 1_000
    assert [n.key for n in store.memory_list(ws)] == ["k2", "k3", "k4"]


def test_the_entry_just_written_is_never_evicted(store: Store, ws: Path) -> None:
    limits = MemoryLimits(max_entries=3, max_chars=100, max_entry_chars=100)
    run = new_run(store, ws)
    for i in range(3):
        store.memory_write(ws, f"old{i}", "z" * 10, run, 1, "fact", limits=limits)
    commit_recalls(store, run, 1, [(str(ws.resolve()), f"old{i}") for i in range(3)])
    # The newest note is the least recalled, and on its own fills the char cap: everything
    # else goes, it stays.
    result = store.memory_write(ws, "new", "n" * 100, run, 2, "fact", limits=limits)
    assert {n.key for n in result.evicted} == {"old0", "old1", "old2"}
    assert [n.key for n in store.memory_list(ws)] == ["new"]


def test_eviction_counts_distinct_runs_not_recall_rows(store: Store, ws: Path) -> None:
    """One long run that recalled a note fifty times does not outvote three short runs."""
    limits = MemoryLimits(max_entries=2)
    scope = str(ws.resolve())
    writer = new_run(store, ws)
    store.memory_write(ws, "long-run-favourite", "recalled by one run", writer, 1, "fact")
    store.memory_write(ws, "widely-recalled", "recalled by three runs", writer, 1, "fact")
    long_run = new_run(store, ws)
    for step in range(1, 51):
        commit_recalls(store, long_run, step, [(scope, "long-run-favourite")])
    for _ in range(3):
        short = new_run(store, ws)
        commit_recalls(store, short, 1, [(scope, "widely-recalled")])
    fav = store.memory_get(ws, "long-run-favourite")
    wide = store.memory_get(ws, "widely-recalled")
    assert fav is not None and wide is not None
    assert (fav.recalls, fav.recall_runs, wide.recalls, wide.recall_runs) == (50, 1, 3, 3)
    result = store.memory_write(ws, "third", "a new note", writer, 2, "fact", limits=limits)
    assert [n.key for n in result.evicted] == ["long-run-favourite"]


def test_eviction_ties_go_to_the_least_recently_recalled_then_the_oldest_written(
    store: Store, ws: Path
) -> None:
    limits = MemoryLimits(max_entries=3)
    scope = str(ws.resolve())
    run = new_run(store, ws)
    for key in ("a", "b", "c"):
        store.memory_write(ws, key, f"note {key}", run, 1, "fact", limits=limits)
    # One run each; "a" recalled last, "b" before it; "c" never: "c" goes first.
    r1, r2 = new_run(store, ws), new_run(store, ws)
    commit_recalls(store, r1, 1, [(scope, "b")])
    commit_recalls(store, r2, 1, [(scope, "a")])
    commit_recalls(store, r1, 2, [(scope, "c")])  # now c: 1 run, recalled most recently
    first = store.memory_write(ws, "d", "note d", run, 2, "fact", limits=limits)
    assert [n.key for n in first.evicted] == ["b"]  # one run each; b recalled longest ago
    # Now a and c have one run each and d none: d goes, not e, the note being written.
    second = store.memory_write(ws, "e", "note e", run, 3, "fact", limits=limits)
    assert [n.key for n in second.evicted] == ["d"]


def test_among_notes_never_recalled_the_oldest_written_goes(store: Store, ws: Path) -> None:
    limits = MemoryLimits(max_entries=3)
    run = new_run(store, ws)
    for key in ("a", "b", "c"):
        store.memory_write(ws, key, f"note {key}", run, 1, "fact", limits=limits)
    store.memory_write(ws, "a", "note a, rewritten", run, 2, "fact", limits=limits)
    result = store.memory_write(ws, "d", "note d", run, 3, "fact", limits=limits)
    assert [n.key for n in result.evicted] == ["b"]  # a was written again after b


def test_pinned_notes_are_never_evicted(store: Store, ws: Path) -> None:
    limits = MemoryLimits(max_entries=2)
    run = new_run(store, ws)
    store.memory_write(ws, "pinned", "keep me", None, None, "decision", pinned=True)
    store.memory_write(ws, "a", "note a", run, 1, "fact", limits=limits)
    result = store.memory_write(ws, "b", "note b", run, 2, "fact", limits=limits)
    assert [n.key for n in result.evicted] == ["a"]
    assert [n.key for n in store.memory_list(ws)] == ["pinned", "b"]


def test_a_write_over_a_cap_made_of_pinned_notes_lands_and_says_so(store: Store, ws: Path) -> None:
    limits = MemoryLimits(max_entries=2)
    run = new_run(store, ws)
    for key in ("p1", "p2"):
        store.memory_write(ws, key, key, None, None, "decision", pinned=True)
    result = store.memory_write(ws, "new", "lands anyway", run, 1, "fact", limits=limits)
    assert result.stored and result.over_cap and not result.evicted
    assert len(store.memory_list(ws)) == 3


def test_caps_are_per_scope(store: Store, ws: Path, tmp_path: Path) -> None:
    limits = MemoryLimits(max_entries=2)
    other = tmp_path / "other"
    other.mkdir()
    run = new_run(store, ws)
    for scope in (ws, other, GLOBAL):
        for i in range(2):
            store.memory_write(scope, f"k{i}", "v", run, 1, "fact", limits=limits)
    assert all(len(store.memory_list(s)) == 2 for s in (ws, other, GLOBAL))


# -- pinned notes and the operator ------------------------------------------------------------


def test_a_run_cannot_overwrite_or_forget_a_pinned_note(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.memory_write(ws, "retries", "3", None, None, "decision", pinned=True)
    write = store.memory_write(ws, "retries", "5", run, 2, "fact")
    assert not write.stored and write.refused == "pinned"
    assert [e.kind for e in write.events] == ["memory_refused"]
    forget = store.memory_forget(ws, "retries", run, 2)
    assert not forget.removed and forget.refused == "pinned"
    note = store.memory_get(ws, "retries")
    assert note is not None and note.value == "3" and note.pinned


def test_the_operator_can_replace_a_pinned_note_and_keeps_its_pin(store: Store, ws: Path) -> None:
    store.memory_write(ws, "retries", "3", None, None, "decision", pinned=True)
    store.memory_write(ws, "retries", "4", None, None, "decision")
    note = store.memory_get(ws, "retries")
    assert note is not None and note.value == "4" and note.pinned


def test_operator_delete_and_clear_remove_pinned_notes_too(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.memory_write(ws, "pinned", "p", None, None, "decision", pinned=True)
    store.memory_write(ws, "fact", "f", run, 1, "fact")
    store.memory_write(ws, "pinned2", "p2", None, None, "decision", pinned=True)
    deleted = store.memory_delete(ws, "pinned")
    assert deleted is not None and deleted.pinned
    assert store.memory_delete(ws, "pinned") is None
    assert store.memory_clear(ws) == 2
    assert store.memory_list(ws) == []
    kinds = [kind for kind, _ in operator_events(store)]
    assert kinds == ["memory_write", "memory_write", "memory_delete", "memory_clear"]


def test_pin_and_unpin(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.memory_write(ws, "k", "v", run, 1, "fact")
    pinned = store.memory_pin(ws, "k", True)
    assert pinned is not None and pinned.pinned
    unpinned = store.memory_pin(ws, "k", False)
    assert unpinned is not None and not unpinned.pinned
    assert store.memory_pin(ws, "missing", True) is None
    assert [k for k, _ in operator_events(store)] == ["memory_pin", "memory_pin"]


def test_operator_actions_are_trace_events_outside_any_run(store: Store, ws: Path) -> None:
    store.memory_write(ws, "k", "v", None, None, "decision")
    [(kind, detail)] = operator_events(store)
    assert kind == "memory_write"
    assert detail["by"] == "operator" and detail["key"] == "k" and detail["value"] == "v"


def test_a_runs_write_returns_its_events_for_the_step(store: Store, ws: Path) -> None:
    limits = MemoryLimits(max_entries=1)
    run = new_run(store, ws)
    store.memory_write(ws, "a", "first", run, 1, "fact", limits=limits)
    result = store.memory_write(ws, "b", "second", run, 2, "fact", limits=limits)
    assert [e.kind for e in result.events] == ["memory_write", "memory_evict"]
    evict = result.events[1].detail
    assert evict["key"] == "a" and evict["value"] == "first" and evict["reason"] == "max_entries"
    assert operator_events(store) == []  # the loop commits a run's events with its step


def test_forget_removes_and_a_missing_key_says_so(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.memory_write(ws, "k", "v", run, 1, "fact")
    gone = store.memory_forget(ws, "k", run, 2)
    assert gone.removed and gone.events[0].detail["found"] is True
    missing = store.memory_forget(ws, "k", run, 3)
    assert missing.note is None and missing.events[0].detail["found"] is False


# -- scopes -------------------------------------------------------------------------------------


def test_a_workspace_is_keyed_by_its_canonical_path(store: Store, ws: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(ws, target_is_directory=True)
    store.memory_write(ws, "k", "v", None, None, "decision")
    assert store.memory_get(link, "k") is not None
    assert store.memory_get(str(ws) + "/./", "k") is not None
    cwd = os.getcwd()
    try:
        os.chdir(ws)
        assert store.memory_get(".", "k") is not None
    finally:
        os.chdir(cwd)
    assert store.memory_get(GLOBAL, "k") is None


# -- recalls --------------------------------------------------------------------------------------


def test_recall_rows_are_committed_with_the_step(store: Store, ws: Path) -> None:
    scope = str(ws.resolve())
    run = new_run(store, ws)
    store.memory_write(ws, "k", "v", run, 1, "fact")
    store.memory_write(GLOBAL, "g", "v", run, 1, "fact")
    commit_recalls(store, run, 2, [(scope, "k"), (GLOBAL, "g")])
    commit_recalls(store, run, 3, [(scope, "k")])
    rows = store.memory_recalls(run)
    assert [(r.step, r.scope_key, r.key) for r in rows] == [
        (2, scope, "k"),
        (2, GLOBAL, "g"),
        (3, scope, "k"),
    ]
    assert rows[1].to_json()["scope"] == "global"
    note = store.memory_get(ws, "k")
    assert note is not None and (note.recalls, note.recall_runs) == (2, 1)


def test_a_step_that_fails_to_commit_leaves_no_recall_rows(store: Store, ws: Path) -> None:
    scope = str(ws.resolve())
    run = new_run(store, ws)
    store.memory_write(ws, "k", "v", run, 1, "fact")
    commit_recalls(store, run, 1, [(scope, "k")])
    with pytest.raises(INTEGRITY_ERRORS):  # the second pair has no scope
        commit_recalls(store, run, 2, [(scope, "k"), (None, "x")])  # type: ignore[list-item]
    assert len(store.memory_recalls(run)) == 1
    assert [s.step for s in store.run_steps(run)] == [1]
    note = store.memory_get(ws, "k")
    assert note is not None and note.recalls == 1


def test_recall_rows_outlive_their_note(store: Store, ws: Path) -> None:
    scope = str(ws.resolve())
    run = new_run(store, ws)
    store.memory_write(ws, "k", "v", run, 1, "fact")
    commit_recalls(store, run, 1, [(scope, "k")])
    store.memory_delete(ws, "k")
    store.memory_write(ws, "k", "v again", run, 2, "fact")
    assert len(store.memory_recalls(run)) == 1
    note = store.memory_get(ws, "k")
    assert note is not None and note.recalls == 0  # a new note starts without evidence


# -- similarity and the index ----------------------------------------------------------------------


def test_memory_similar_finds_restatements_in_the_same_scope(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.memory_write(ws, "build", "run the tests with make test", run, 1, "fact")
    store.memory_write(ws, "lint", "ruff check then mypy strict", run, 1, "fact")
    store.memory_write(GLOBAL, "elsewhere", "run the tests with make test", run, 1, "fact")
    similar = store.memory_similar(ws, "tests", "the tests run with make test")
    assert [s.key for s in similar] == ["build"] and similar[0].jaccard >= 0.6
    assert store.memory_similar(ws, "build", "run the tests with make test") == []


def test_the_index_follows_writes_made_through_another_connection(
    store_at: Path | str, ws: Path
) -> None:
    with Store(store_at) as mine, Store(store_at) as theirs:
        mine.memory_write(ws, "a", "alpha note", None, None, "decision")
        index = mine.memory_index(ws)
        assert set(index.by_key) == {"a"}
        theirs.memory_write(ws, "b", "beta note", None, None, "decision")
        theirs.memory_delete(ws, "a")
        fresh = mine.memory_index(ws)
        assert set(fresh.by_key) == {"b"} and fresh.generation != index.generation


def test_the_index_follows_this_stores_own_changes(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    index = store.memory_index(ws)
    store.memory_write(ws, "a", "alpha parser", run, 1, "fact")
    store.memory_write(ws, "b", "beta lexer", run, 1, "fact")
    store.memory_write(ws, "a", "alpha grammar", run, 2, "fact")
    store.memory_pin(ws, "b", True)
    assert store.memory_index(ws) is index
    assert [n.key for n in index.notes.values()] == ["a", "b"]
    assert "parser" not in index.postings and index.postings["grammar"] == {index.by_key["a"]}
    assert index.notes[index.by_key["b"]].line == "- [pinned] b: beta lexer"
    store.memory_forget(ws, "a", run, 3)
    assert list(index.by_key) == ["b"]
