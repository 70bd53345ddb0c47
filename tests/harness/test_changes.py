"""What a run changed (harness.revert.changes): real runs with a scripted model write through the
real tools; ``run_changes`` lists each file's text before the run and now, and
``revert_one`` puts one file back, refusing a file changed since or unsaved in the editor."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.revert import RevertAction
from harness.revert.changes import ChangeStatus, NotWrittenByRun, revert_one, run_changes
from harness.store import Store
from tests.harness.test_revert import ORIGINAL_A, edit_everything, run_turns
from tests.support.scripted_turns import call, turn


@pytest.fixture(name="ws")
def ws_fixture(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.txt").write_bytes(ORIGINAL_A)
    (root / "b.txt").write_text("b original\n")
    return root


class Dirty:
    """An editor holding unsaved changes to ``paths``."""

    def __init__(self, *paths: str) -> None:
        self.paths = paths

    def has_unsaved_changes(self, rel_path: str) -> bool:
        return rel_path in self.paths

    def unsaved_paths(self) -> tuple[str, ...]:
        return self.paths


def test_changes_give_each_file_before_the_run_and_now(ws: Path, store: Store) -> None:
    (ws / "gone.txt").write_text("to delete\n")
    run_id = edit_everything(ws, store)
    (ws / "gone.txt").unlink()  # deleted since by someone: not the run's, not listed

    changes = run_changes(store, run_id)

    assert changes is not None and changes.workspace == ws.resolve()
    by_path = {f.path: f for f in changes.files}
    assert list(by_path) == ["src/a.txt", "b.txt", "new/dir/c.txt"]
    a = by_path["src/a.txt"]
    assert a.status is ChangeStatus.MODIFIED and a.run_ids == (run_id,)
    assert a.before == ORIGINAL_A.decode("utf-8", errors="replace")
    assert a.after == "second rewrite\n"
    c = by_path["new/dir/c.txt"]
    assert (c.status, c.before, c.after) == (ChangeStatus.ADDED, None, "created\n")
    (ws / "b.txt").unlink()
    (b,) = [f for f in run_changes(store, run_id).files if f.path == "b.txt"]  # type: ignore[union-attr]
    assert (b.status, b.before, b.after) == (ChangeStatus.DELETED, "b original\n", None)
    json = changes.to_json()[0]
    assert json["uri"] == (ws.resolve() / "src" / "a.txt").as_uri()
    assert set(json) == {"path", "uri", "status", "before", "after", "runIds"}


def test_a_file_back_as_it_was_is_not_a_change(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    (ws / "b.txt").write_text("b original\n")
    changes = run_changes(store, run_id)
    assert changes is not None
    assert "b.txt" not in [f.path for f in changes.files]
    assert run_changes(store, 999) is None


def test_revert_one_puts_back_that_file_only(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)

    done = revert_one(store, run_id, "./src/a.txt")

    assert done is not None and done.action is RevertAction.RESTORED
    assert (ws / "src" / "a.txt").read_bytes() == ORIGINAL_A
    assert (ws / "b.txt").read_text() == "b changed\n", "the other files stay"
    created = revert_one(store, run_id, "new/dir/c.txt")
    assert created is not None and created.action is RevertAction.DELETED
    assert not (ws / "new").exists(), "the directories the run created go too"


def test_revert_one_refuses_a_file_changed_since_unless_forced(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    (ws / "b.txt").write_text("the user's edit\n")

    refused = revert_one(store, run_id, "b.txt")

    assert refused is not None and refused.action is RevertAction.REFUSED
    assert "changed since the run wrote it" in refused.reason
    assert (ws / "b.txt").read_text() == "the user's edit\n"
    forced = revert_one(store, run_id, "b.txt", force=True)
    assert forced is not None and forced.action is RevertAction.RESTORED
    assert (ws / "b.txt").read_text() == "b original\n"


def test_revert_one_never_overwrites_an_unsaved_buffer_even_forced(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    for force in (False, True):
        done = revert_one(store, run_id, "b.txt", force=force, guard=Dirty("b.txt"))
        assert done is not None and done.action is RevertAction.REFUSED
        assert "unsaved changes in the editor" in done.reason
    assert (ws / "b.txt").read_text() == "b changed\n"


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "src/b.txt", ""])
def test_revert_one_refuses_a_path_the_run_did_not_write(ws: Path, store: Store, path: str) -> None:
    run_id = run_turns(ws, store, [turn(call("write_file", path="b.txt", content="x\n"))])
    with pytest.raises(NotWrittenByRun, match="did not write"):
        revert_one(store, run_id, path)
    assert (ws / "b.txt").read_text() == "x\n"
    assert revert_one(store, 999, "b.txt") is None
