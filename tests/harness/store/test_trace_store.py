"""The store on a real SQLite file and a real PostgreSQL database: migrations, one
transaction per step, the trace."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from harness.store import ObservationRecord, StepRecord, Store
from harness.store.schema import MIGRATIONS, migrate, schema_version
from harness.types import (
    Act,
    Attempt,
    ContextCounts,
    Effect,
    FileWrite,
    Outcome,
    PolicyEvent,
    RunEnd,
    TraceEvent,
    Usage,
)
from tests.support.stores import INTEGRITY_ERRORS, raw_rows


def raw_one(store: Store, sql: str) -> Any:
    """One row read through a connection of its own, as another process would."""
    [row] = raw_rows(store.location, sql)
    return row


def step_record(run_id: int, step: int, **overrides: object) -> StepRecord:
    base: dict[str, object] = dict(
        run_id=run_id,
        step=step,
        decision="read_file a.py",
        content="",
        prompt=[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        tool_calls=[{"name": "read_file", "arguments": {"path": "a.py"}}],
        result="[read a.py]\nprint(1)",
        effective_tokens=24_000,
        est_tokens=120,
        started_at="2026-01-01T00:00:00Z",
        spent_tokens=140 * step,
        usage=Usage(131, 9, 140),
        counts=ContextCounts(carried=1),
        observations=[
            ObservationRecord(step - 1, "read_file", "a.py", True, "[read a.py]\nx", "h")
        ],
        events=[TraceEvent("assembled", {"carried": 1})],
        policy=[PolicyEvent(Act.WRITE, ".env", Effect.DENY, ".env", "builtin", False, "no")],
        edits=[FileWrite("a.py", b"old", b"new")],
    )
    base.update(overrides)
    return StepRecord(**base)  # type: ignore[arg-type]


def test_every_migration_applies_to_an_empty_database_and_twice(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    assert migrate(conn) == len(MIGRATIONS)
    assert migrate(conn) == len(MIGRATIONS)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "runs",
        "steps",
        "observations",
        "provider_calls",
        "context_events",
        "policy_events",
        "edits",
    } <= tables
    assert schema_version(conn) == len(MIGRATIONS)


def test_store_opens_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    from harness.store.base import Database

    db = Database(tmp_path / "s.db")
    try:
        mode = db.row("PRAGMA journal_mode")
        timeout = db.row("PRAGMA busy_timeout")
    finally:
        db.close()
    assert mode is not None and mode[0] == "wal"
    assert timeout is not None and timeout[0] == 5_000


def test_a_newer_schema_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.close()
    from harness.errors import StoreError

    with pytest.raises(StoreError, match="newer than this harness"):
        Store(path)


def test_a_step_lands_whole_and_reads_back(store: Store) -> None:
    run = store.create_run(goal="g", workspace="/w", provider="scripted", model="m", contract="{}")
    store.record_attempt(run, 1, Attempt("scripted", "m", 1, 3.5, usage=Usage(131, 9, 140)))
    store.commit_step(step_record(run, 1))
    store.finish_run(run, RunEnd(Outcome.FINISHED, 1, 140))
    row = store.get_run(run)
    assert row is not None and row.to_json()["outcome"] == "finished"
    [s] = store.run_steps(run)
    assert s.to_json() | {} == {
        "step": 1,
        "decision": "read_file a.py",
        "toolCalls": [{"name": "read_file", "arguments": {"path": "a.py"}}],
        "estTokens": 120,
        "reportedPromptTokens": 131,
        "cachedPromptTokens": None,
        "prefixChars": None,
        "contextCeiling": 24_000,
        "carried": 1,
        "stubbed": 0,
        "reread": 0,
        "recalled": 0,
        "refused": 0,  # a denied .env write, but no call of this step failed by it
        "failed": 0,
        "resultChars": len("[read a.py]\nprint(1)"),
        "said": None,
    }
    detail = store.step_detail(run, 1)
    assert detail is not None
    assert detail.prompt[1] == {"role": "user", "content": "u"}
    assert detail.result == "[read a.py]\nprint(1)"
    assert [e["kind"] for e in detail.events] == ["assembled", "policy"]
    [edit] = store.run_edits(run)
    assert (edit.path, edit.before, edit.after) == ("a.py", b"old", b"new")
    [call] = store.provider_calls(run)
    assert call["total_tokens"] == 140


def test_a_failing_step_commit_leaves_nothing_behind(store: Store) -> None:
    run = store.create_run(goal="g", workspace="/w", provider="p", model="m", contract="{}")
    store.commit_step(step_record(run, 1))
    bad = step_record(run, 1)  # the same (run, step) again: the steps insert fails first
    with pytest.raises(INTEGRITY_ERRORS):
        store.commit_step(bad)
    counts = [
        raw_one(store, f"SELECT count(*) FROM {t}")[0]
        for t in ("steps", "observations", "edits", "policy_events", "context_events")
    ]
    assert counts == [1, 1, 1, 1, 1]
    bad_late = step_record(run, 2, edits=[FileWrite("a.py", None, None)])  # type: ignore[arg-type]
    with pytest.raises(INTEGRITY_ERRORS):
        store.commit_step(bad_late)  # fails on the edits insert, after steps/observations
    assert raw_one(store, "SELECT count(*) FROM steps")[0] == 1
    assert raw_one(store, "SELECT count(*) FROM observations")[0] == 1
    assert store.get_run(run).steps == 1  # type: ignore[union-attr]


# -- the §8.1 trace fields -------------------------------------------------------------------

STEP_KEYS = [
    "step",
    "decision",
    "toolCalls",
    "estTokens",
    "reportedPromptTokens",
    "cachedPromptTokens",
    "prefixChars",
    "contextCeiling",
    "carried",
    "stubbed",
    "reread",
    "recalled",
    "refused",
    "failed",
    "resultChars",
    "said",
]
RUN_KEYS = ["runId", "goal", "workspace", "outcome", "steps", "spentTokens", "startedAt"]


def obs(seq: int, target: str, ok: bool) -> ObservationRecord:
    return ObservationRecord(seq, "tool", target, ok, f"[tool {target}]")


def deny(act: Act, target: str, layer: str, effect: Effect = Effect.DENY) -> PolicyEvent:
    return PolicyEvent(act, target, effect, None, layer, False, "refused")


def test_trace_show_has_every_8_1_field(store: Store) -> None:
    run = store.create_run(goal="g", workspace="/w", provider="p", model="m", contract="{}")
    store.record_attempt(
        run,
        1,
        Attempt("p", "m", 1, 5.0, usage=Usage(9, 0, 9, cache_read_tokens=999), failure="timeout"),
    )
    store.record_attempt(
        run, 1, Attempt("p", "m", 2, 5.0, usage=Usage(900, 9, 909, cache_read_tokens=512))
    )
    steps = [
        step_record(
            run,
            1,
            content="Reading the code first.",
            prefix_chars=1_234,
            observations=[
                obs(0, "a.py", True),
                obs(1, ".env", False),  # the secrets layer
                obs(2, "../x", False),  # containment
                obs(3, "b.py", False),  # an edit whose old text was not found: failed
                obs(4, "rm -rf build", False),  # an approval not available
                obs(5, "c.py", False),  # unsaved in the editor
                obs(6, "link.txt", False),  # a symlink whose real name is refused
            ],
            policy=[
                PolicyEvent(Act.READ, "a.py", Effect.ASK, None, "user", True, "granted"),
                deny(Act.READ, ".env", "builtin"),
                deny(Act.READ, "../x", "containment"),
                deny(Act.EXEC, "rm -rf build", "default", Effect.ASK),
                deny(Act.READ, "secrets/key.pem", "builtin"),
            ],
            events=[TraceEvent("unsaved_refused", {"path": "c.py"})],
            edits=[],
        ),
        step_record(
            run,
            2,
            content=" \n",  # only whitespace: it said nothing
            observations=[],
            policy=[],
            edits=[FileWrite("src/b.py", b"1", b"2"), FileWrite("a.py", None, b"a")],
        ),
        step_record(
            run,
            3,
            content="Renamed calc_total; tests pass.",
            observations=[],
            policy=[],
            edits=[FileWrite("src/b.py", b"2", b"3"), FileWrite("c/d.py", None, b"d")],
        ),
    ]
    for rec in steps:
        store.commit_step(rec)
    trace = store.run_trace(run)
    assert trace is not None
    shape = trace.to_json()
    assert list(shape) == ["run", "steps"]
    assert list(shape["run"]) == [
        *RUN_KEYS,
        "finishedAt",
        "conversationId",
        "turn",
        "mode",
        "rewound",
        "summary",
        "filesChanged",
    ]
    assert shape["run"]["summary"] == "Renamed calc_total; tests pass."
    assert shape["run"]["filesChanged"] == ["src/b.py", "a.py", "c/d.py"]
    first, second, third = shape["steps"]
    assert [list(s) for s in shape["steps"]] == [STEP_KEYS] * 3
    assert (first["cachedPromptTokens"], first["prefixChars"]) == (512, 1_234)
    assert (first["refused"], first["failed"]) == (5, 1)
    assert first["said"] == "Reading the code first."
    assert (second["said"], second["cachedPromptTokens"], second["prefixChars"]) == (
        None,
        None,
        None,
    )
    assert (second["refused"], second["failed"]) == (0, 0)
    assert third["said"] == "Renamed calc_total; tests pass."
    # `trace runs` keeps exactly its fields.
    [row] = store.list_runs()
    assert list(row.to_json()) == [
        *RUN_KEYS,
        "finishedAt",
        "conversationId",
        "turn",
        "mode",
        "rewound",
    ]
    assert store.run_steps(run) == list(trace.steps)
    assert store.run_trace(run + 1) is None
    store.close()


def test_a_run_without_steps_has_no_summary(store_at: Path | str) -> None:
    with Store(store_at) as store:
        run = store.create_run(goal="g", workspace="/w", provider="p", model="m", contract="{}")
        trace = store.run_trace(run)
        assert trace is not None and trace.to_json()["run"]["summary"] is None
        assert trace.to_json()["run"]["filesChanged"] == []
        assert trace.to_json()["steps"] == []


@pytest.mark.parametrize(
    ("failed", "refusals", "expected"),
    [
        pytest.param([], [], (0, 0), id="nothing"),
        pytest.param(["a"], [], (0, 1), id="a-failure"),
        pytest.param(["a"], ["a"], (1, 0), id="a-refusal"),
        pytest.param(["a", "a"], ["a"], (1, 1), id="same-target-twice"),
        pytest.param(["link"], ["real/name"], (1, 0), id="refused-by-its-other-name"),
        pytest.param(["a", "b"], ["a", "other"], (2, 0), id="one-named-one-by-other-name"),
        pytest.param([], ["stray"], (0, 0), id="a-refusal-of-no-failed-call"),
    ],
)
def test_call_counts(failed: list[str], refusals: list[str], expected: tuple[int, int]) -> None:
    from harness.store.steps import call_counts

    assert call_counts(failed, refusals) == expected
