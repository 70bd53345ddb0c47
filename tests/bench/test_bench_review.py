"""Review and checkpoints on both stores (issue 33): the time of undoing one hunk of a
200-line file, and of restoring a conversation whose second turn rewrote 20 files, through
the real loop, tools and store with a scripted model (SQLite file; PostgreSQL fresh
database from ``store_location``). Each measured ``REPEAT`` times on fresh runs; p50."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.contract import TaskContract
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.revert.restore import restore
from harness.revert.review import review, undo
from harness.run.session import Backend, RunRequest, open_session
from harness.store import Store
from tests.support.scripted_turns import call, turn

from .conftest import record

REPEAT = 5
FILES = 20
ORIGINAL = "".join(f"line {n}\n" for n in range(200))
AGENTS = ORIGINAL.replace("line 10\n", "TEN\n").replace("line 150\n", "ONE FIFTY\n")


@pytest.fixture
def store(store_location: Path | str) -> Iterator[Store]:
    opened = Store(store_location)
    yield opened
    opened.close()


def run(ws: Path, store: Store, turns: list[dict[str, Any]], conv: int | None = None) -> int:
    async def go() -> int:
        session = await open_session(
            TaskContract.workspace("edit", ws),
            Backend(
                store=store, provider=ScriptedProvider([*turns, {"content": "done"}]), memory=False
            ),
            RunRequest(
                approver=YesApprover(),
                policy=Policy.load(ws, user_config=None),
                conversation_id=conv,
            ),
        )
        await session.execute()
        return session.run_id

    return asyncio.run(go())


def test_undo_one_hunk_and_restore_twenty_files(
    tmp_path: Path, store: Store, store_location: Path | str
) -> None:
    backend = "sqlite" if isinstance(store_location, Path) else "postgresql"
    undo_ms, restore_ms = [], []
    for i in range(REPEAT):
        ws = tmp_path / f"ws{i}"
        ws.mkdir()
        for n in range(FILES):
            (ws / f"f{n:02}.py").write_text(ORIGINAL)
        first = run(ws, store, [turn(call("write_file", path="one.py", content="1\n"))])
        writes = [call("write_file", path=f"f{n:02}.py", content=AGENTS) for n in range(FILES)]
        run(ws, store, [turn(*writes)], conv=first)
        found = review(store, [first + 1])
        assert found is not None
        (hunk, _), _ = found.files["f00.py"].hunks
        t0 = time.perf_counter()
        undo(store, found, "f00.py", hunk.id)
        undo_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        done = restore(store, store.conversation_runs(first), 2, force=True)
        restore_ms.append((time.perf_counter() - t0) * 1000)
        assert not done.refused and (ws / "f19.py").read_text() == ORIGINAL
    record(
        "review",
        f"{backend}: undo one hunk p50 {statistics.median(undo_ms):.1f} ms; restore of "
        f"{FILES} files p50 {statistics.median(restore_ms):.1f} ms (n={REPEAT})",
    )
