"""Hunk review (harness.revert.review, harness.revert.hunks; issue 33) on both store backends:
a real run with a scripted model writes through the real tools; its hunks are stable, an
undo puts one back and is recorded, a keep marks, the count to review goes down, a file
revert afterwards knows what the undo left as the agent's."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.revert import RevertAction
from harness.revert.changes import revert_one
from harness.revert.hunks import split_hunks
from harness.revert.review import HunkRefused, NoSuchHunk, keep, review, undo
from harness.store import Store
from tests.harness.test_revert import run_turns
from tests.support.scripted_turns import call, turn

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 11))
AGENTS = ORIGINAL.replace("line 1\n", "ONE\n").replace("line 10\n", "TEN\nELEVEN\n")


@pytest.fixture
def store_at(store_location: Path | str) -> Path | str:
    """On SQLite and on PostgreSQL (§12)."""
    return store_location


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_text(ORIGINAL)
    return root


def test_hunk_ids_are_stable_and_ranges_exact() -> None:
    first, last = split_hunks("f.txt", ORIGINAL, AGENTS)
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (0, 1, 0, 1)
    assert (last.before, last.after) == (("line 10\n",), ("TEN\n", "ELEVEN\n"))
    assert [h.id for h in split_hunks("f.txt", ORIGINAL, AGENTS)] == [first.id, last.id]
    assert split_hunks("g.txt", ORIGINAL, AGENTS)[0].id != first.id


def test_undo_keep_and_the_count_on_the_store(ws: Path, store: Store) -> None:
    run_id = run_turns(ws, store, [turn(call("write_file", path="f.txt", content=AGENTS))])
    found = review(store, [run_id])
    assert found is not None and found.to_review == 2
    _, (last, _) = found.files["f.txt"].hunks
    undo(store, found, "f.txt", last.id)
    assert (ws / "f.txt").read_text() == ORIGINAL.replace("line 1\n", "ONE\n")
    again = review(store, [run_id])
    assert again is not None and again.to_review == 1
    with pytest.raises(HunkRefused, match="undone already"):
        undo(store, again, "f.txt", last.id)
    with pytest.raises(NoSuchHunk):
        keep(store, again, "f.txt", ["nope"])
    assert keep(store, again, "f.txt", None) == 1
    kept = review(store, [run_id])
    assert kept is not None and kept.to_review == 0
    assert [s for _, s in kept.files["f.txt"].hunks] == ["kept", "undone"]
    # What the undo left is the agent's side: the file reverts without force.
    left = [m.left for m in store.hunk_marks(run_id) if m.left is not None]
    done = revert_one(store, run_id, "f.txt", left=left)
    assert done is not None and done.action is RevertAction.RESTORED
    assert (ws / "f.txt").read_text() == ORIGINAL
    back = review(store, [run_id])
    assert back is not None and back.files == {}
