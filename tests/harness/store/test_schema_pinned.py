"""The schema each shipped migration produces, pinned: a refactor of ``harness.store.schema``
must change nothing a store holds, and an edit of a shipped migration fails here.

Each digest is the SHA-256 of the normalised ``sqlite_master`` (type, name, table, SQL with
white space folded) of a fresh database after migrations 1..N, computed from the code as
it was when the migrations shipped. A new migration appends its digest; a pinned digest
never changes. ``stores/*.sqlite`` are store files that code wrote (never regenerated; the tests open
copies): they must still open, migrate and read back.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from harness.store import Store
from harness.store.schema import MIGRATIONS, migrate, schema_version
from harness.types import ContextCounts

PINNED = {
    1: "91802e9a7d153d55834c859a283302f2259e7909057205ef2741c6150f1f17f7",
    2: "36c76b3dd8ab727b23594efed73ca72ea5ce5813516b8a5274a76c32766732f9",
    3: "56a38a8f9c2239c7595ebd300504495c59b92d71c92de70016b73a46f62117ab",
    4: "e219bcd21ee3fc4dce1c9e1e9a2ac652ac328d946ed3acbcb5bf4034180fe1d1",
    5: "d008bc5b71741cd4fc0bdc3bc0b42f7abf20cdd1422bed954e26319ce1024b20",
    6: "3afc66020db99ca6d94e66041b32b55ae0a85267017c7fb68ff5d335e6e4d401",
    7: "f2dc9fd6c3fb99049ab5726fbbb318fdef77e7f19e1c90a15773067729c1683b",
    # portable identity and authorship (schema.IDENTITY, issue 25)
    8: "170f5bdcd6dc97f015d33c879503c253d27806de98748ce7a39ff9a2810701f7",
    # plan mode, checkpoints, hunk review (schema.HUNK_REVIEWS, issue 33)
    9: "949b36f53e51ba19528a8212e0e55819e0cf97224625c4578ee6273cc61048ff",
}
STORES = Path(__file__).parent / "stores"


def normalised(sql: str | None) -> str:
    """``sql`` with white space folded: none around ``(``, before ``)`` or before a comma."""
    if sql is None:
        return ""
    text = re.sub(r"\s+", " ", sql).strip()
    text = re.sub(r"\s*\(\s*", "(", text)
    text = re.sub(r"\s*\)", ")", text)
    return re.sub(r"\s*,\s*", ", ", text)


def schema_of(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
    return [f"{t} {n} {tbl}: {normalised(sql)}" for t, n, tbl, sql in rows]


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def apply(conn: sqlite3.Connection, number: int) -> None:
    """Migration ``number`` alone, as ``migrate`` applies it."""
    for statement in (s.strip() for s in MIGRATIONS[number - 1].split(";")):
        if statement:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {number}")


def test_every_migration_is_pinned() -> None:
    """A removed migration, or a new one without its digest, fails here."""
    assert sorted(PINNED) == list(range(1, len(MIGRATIONS) + 1))


@pytest.mark.parametrize("number", sorted(PINNED))
def test_a_shipped_migration_produces_the_pinned_schema(number: int) -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    for n in range(1, number + 1):
        apply(conn, n)
    lines = schema_of(conn)
    assert digest(lines) == PINNED[number], "\n".join(lines)


def test_migrate_produces_the_newest_pinned_schema() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    assert migrate(conn) == len(MIGRATIONS)
    assert digest(schema_of(conn)) == PINNED[len(MIGRATIONS)]


def load(tmp_path: Path, name: str) -> Path:
    """A copy of a checked-in store (opening it migrates it: the original stays as it was)."""
    path = tmp_path / name
    shutil.copyfile(STORES / name, path)
    return path


def test_a_first_version_store_migrates_to_the_schema_of_a_fresh_one(tmp_path: Path) -> None:
    path = load(tmp_path, "store_v1.sqlite")
    with Store(path) as store:
        assert store.version == len(MIGRATIONS)
        run = store.get_run(1)
        assert run is not None and (run.goal, run.outcome, run.spent_tokens) == (
            "old goal",
            "finished",
            140,
        )
        [step] = store.run_steps(1)
        assert (step.counts, step.prefix_chars) == (ContextCounts(1, 2, 3, 0), None)
        [edit] = store.run_edits(1)
        assert edit.committed and edit.after == b"\x00"
    fresh = sqlite3.connect(":memory:", isolation_level=None)
    migrate(fresh)
    old = sqlite3.connect(path, isolation_level=None)
    assert schema_of(old) == schema_of(fresh)


def test_a_newest_version_store_opens_and_reads_back(tmp_path: Path) -> None:
    path = load(tmp_path, "store_v4.sqlite")
    with Store(path) as store:
        assert store.version == len(MIGRATIONS)
        assert store.interrupted == ()
        trace = store.run_trace(1)
        assert trace is not None
        assert trace.run.to_json()["goal"] == "fix it" and trace.files_changed == ("a.py",)
        [step] = trace.steps
        assert step.to_json() == {
            "step": 1,
            "decision": "read_file a.py; write_file a.py",
            "toolCalls": [{"name": "read_file", "arguments": {"path": "a.py"}}],
            "estTokens": 120,
            "reportedPromptTokens": 131,
            "cachedPromptTokens": 64,
            "prefixChars": 77,
            "contextCeiling": 24_000,
            "carried": 1,
            "stubbed": 2,
            "reread": 3,
            "recalled": 1,
            "refused": 0,
            "failed": 0,
            "resultChars": 15,
            "said": "reading",
        }
        [call] = store.provider_calls(1)
        assert (call["prompt_tokens"], call["ttft_ms"], call["finish_reason"]) == (
            131,
            1.25,
            "tool_calls",
        )
        notes = {n.key: n for n in store.memory_list("/w")}
        assert notes["build"].recalls == 1 and notes["style"].pinned
        [recall] = store.memory_recalls(2)
        assert (recall.key, recall.step) == ("build", 1)
    fresh = sqlite3.connect(":memory:", isolation_level=None)
    migrate(fresh)
    old = sqlite3.connect(path, isolation_level=None)
    assert schema_of(old) == schema_of(fresh)
    assert schema_version(old) == len(MIGRATIONS)
