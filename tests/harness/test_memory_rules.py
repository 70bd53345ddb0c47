"""The rules of a memory write (``harness.memory.rules``) on plain values, without a store:
what a write may ask for and what it stores, the pinned refusal, the eviction plan and its
order — the same order the store's query reads (checked against real SQLite) — and the
restatement check."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.contract import MemoryLimits
from harness.errors import MemoryInputError
from harness.memory.index import ScopeIndex
from harness.memory.notes import MemoryNote
from harness.memory.recall import RecallIndex
from harness.memory.rules import (
    EVICTION_ORDER,
    PINNED,
    USERS,
    eviction_key,
    note_write,
    plan_evictions,
    refusal,
    restatements,
)
from harness.memory.text import TRUNCATION_MARK
from harness.store.notes import eviction_candidates
from harness.store.schema import migrate


def note(
    id: int,
    *,
    value: str = "v",
    pinned: bool = False,
    runs: int = 0,
    last: int = 0,
    seq: int | None = None,
    kind: str = "fact",
    key: str | None = None,
) -> MemoryNote:
    return MemoryNote(
        id=id,
        scope_key="/w",
        key=key or f"k{id}",
        value=value,
        kind=kind,
        pinned=pinned,
        run_id=None if kind == "decision" else 1,
        step=None,
        created_at="t",
        updated_at="t",
        recall_runs=runs,
        last_recall=last,
        seq=id if seq is None else seq,
    )


# -- what a write may ask for -------------------------------------------------------------


def test_a_write_is_checked_and_its_value_capped() -> None:
    limits = MemoryLimits(max_entry_chars=40)
    w = note_write("/w", "  build ", "y" * 100, 3, 2, "fact", pinned=None, limits=limits)
    assert (w.key, w.run_id, w.step, w.operator) == ("build", 3, 2, False)
    assert w.truncated and len(w.value) == 40 and w.value.endswith(TRUNCATION_MARK)
    assert w.original_chars == 100
    assert note_write("/w", "k", "v", None, None, "decision", pinned=True, limits=limits).operator


@pytest.mark.parametrize(
    ("key", "value", "run_id", "kind", "pinned", "message"),
    [
        pytest.param("", "v", None, "decision", None, "empty", id="empty-key"),
        pytest.param("k", " \n", None, "decision", None, "empty", id="blank-value"),
        pytest.param("k", "v", None, "rumour", None, "kind", id="unknown-kind"),
        pytest.param("k", "v", 7, "fact", True, "operator", id="a-run-pins"),
        pytest.param("k", "v", 7, "fact", False, "operator", id="a-run-unpins"),
    ],
)
def test_a_bad_write_is_a_memory_input_error(
    key: str, value: str, run_id: int | None, kind: str, pinned: bool | None, message: str
) -> None:
    with pytest.raises(MemoryInputError, match=message):
        note_write("/w", key, value, run_id, 1, kind, pinned=pinned, limits=MemoryLimits())


def test_a_pinned_note_refuses_a_run_but_not_the_operator() -> None:
    pinned, plain = note(1, pinned=True), note(2)
    assert refusal(pinned, operator=False) == PINNED
    assert refusal(pinned, operator=True) is None
    assert refusal(plain, operator=False) is None
    assert refusal(None, operator=False) is None


def test_a_note_the_user_wrote_refuses_a_run_pinned_or_not() -> None:
    written, both = note(1, kind="decision"), note(2, kind="decision", pinned=True)
    assert refusal(written, operator=False) == USERS
    assert refusal(both, operator=False) == PINNED
    assert refusal(written, operator=True) is None


# -- eviction -----------------------------------------------------------------------------


def test_within_the_caps_nothing_is_evicted_and_no_candidate_is_read() -> None:
    def untouchable():  # type: ignore[no-untyped-def]
        raise AssertionError("candidates read although within the caps")
        yield

    plan = plan_evictions(untouchable(), entries=3, chars=30, limits=MemoryLimits(), keep_id=1)
    assert plan.evicted == () and not plan.over_cap


def test_eviction_takes_candidates_in_order_and_stops_within_the_caps() -> None:
    limits = MemoryLimits(max_entries=3, max_chars=10_000)
    candidates = [note(1), note(2), note(3), note(4)]
    plan = plan_evictions(iter(candidates), entries=5, chars=10, limits=limits, keep_id=9)
    assert [n.id for n in plan.evicted] == [1, 2]
    assert plan.reasons == {1: "max_entries", 2: "max_entries"} and not plan.over_cap


def test_eviction_by_characters_says_so() -> None:
    limits = MemoryLimits(max_entries=10, max_chars=100, max_entry_chars=100)
    candidates = [note(1, value="a" * 60), note(2, value="b" * 60)]
    plan = plan_evictions(iter(candidates), entries=3, chars=160, limits=limits, keep_id=3)
    assert [n.id for n in plan.evicted] == [1] and plan.reasons == {1: "max_chars"}


def test_never_the_note_just_written_never_a_pinned_one() -> None:
    limits = MemoryLimits(max_entries=1)
    candidates = [note(1, pinned=True), note(2), note(3, pinned=True)]
    plan = plan_evictions(iter(candidates), entries=3, chars=3, limits=limits, keep_id=2)
    assert plan.evicted == () and plan.over_cap, "everything else is pinned: still over"


def test_never_a_note_the_user_wrote() -> None:
    limits = MemoryLimits(max_entries=1)
    candidates = [note(1, kind="decision"), note(2), note(3, kind="decision")]
    plan = plan_evictions(iter(candidates), entries=3, chars=3, limits=limits, keep_id=2)
    assert plan.evicted == () and plan.over_cap, "everything else is the user's: still over"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 5), st.booleans(), st.booleans()),
        min_size=1,
        max_size=30,
    )
)
def test_the_stores_query_reads_candidates_in_the_rules_order(
    rows: list[tuple[int, int, bool, bool]],
) -> None:
    """``eviction_key`` and the SQL ``ORDER BY`` are one order (fewest distinct runs, least
    recently recalled, oldest written), so the rule and the store cannot drift apart; the
    user's notes (pinned, or kind ``decision``) are never candidates."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.row_factory = sqlite3.Row
    migrate(conn)
    for i, (runs, last, pinned, users) in enumerate(rows, start=1):
        conn.execute(
            "INSERT INTO memory (scope, key, value, kind, pinned, seq, recall_runs, last_recall,"
            " created_at, updated_at) VALUES ('/w', ?, 'v', ?, ?, ?, ?, ?, 't', 't')",
            (f"k{i}", "decision" if users else "fact", int(pinned), len(rows) - i, runs, last),
        )
    from_sql = [n.id for n in eviction_candidates(conn, "/w", keep_id=1)]
    by_rule = sorted(
        (
            note(i, runs=r, last=last, seq=len(rows) - i)
            for i, (r, last, p, users) in enumerate(rows, 1)
            if not p and not users and i != 1
        ),
        key=eviction_key,
    )
    assert from_sql == [n.id for n in by_rule]
    assert EVICTION_ORDER == ("recall_runs", "last_recall", "seq")
    conn.close()


# -- restatements -------------------------------------------------------------------------


def test_restatements_leave_out_the_key_itself_and_what_the_write_evicted() -> None:
    recall = RecallIndex()
    notes = [
        note(1, key="build", value="run the whole suite with make test"),
        note(2, key="evicted", value="the whole suite runs with make test"),
        note(3, key="lint", value="ruff check then mypy strict"),
        note(4, key="tests", value="make test runs the whole suite"),
    ]
    index = ScopeIndex("/w", (recall.entry(n) for n in notes))
    words = recall.words("make test runs the whole suite")
    found = restatements(index, words, "tests", gone=["evicted"])
    assert [s.key for s in found] == ["build"] and found[0].jaccard >= 0.6
