"""Reverting a run (harness.revert): real runs with a scripted model write files through the
real tools; reverting puts them back byte for byte, deletes what the run created, and
refuses files changed since (unless forced) or unsaved in the editor."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from harness.contract import TaskContract
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.revert import RevertAction, file_histories, revert_edits, revert_run
from harness.run.session import Backend, RunRequest, open_session
from harness.store import EditRow, Store
from harness.workspace import Workspace
from tests.support.scripted_turns import call, turn


@pytest.fixture
def store_at(store_location: Path | str) -> Path | str:
    """On SQLite and on PostgreSQL (§12)."""
    return store_location


ORIGINAL_A = b"line one\r\nline two\n\x00binary tail\xff"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.txt").write_bytes(ORIGINAL_A)
    (root / "b.txt").write_text("b original\n")
    os.chmod(root / "b.txt", 0o640)
    return root


def run_turns(ws: Path, store: Store, turns: list[dict[str, Any]]) -> int:
    async def run() -> int:
        session = await open_session(
            TaskContract.workspace("edit things", ws),
            Backend(
                store=store, provider=ScriptedProvider([*turns, {"content": "done"}]), memory=False
            ),
            RunRequest(approver=YesApprover(), policy=Policy.load(ws, user_config=None)),
        )
        await session.execute()
        return session.run_id

    return asyncio.run(run())


def edit_everything(ws: Path, store: Store) -> int:
    return run_turns(
        ws,
        store,
        [
            turn(call("write_file", path="src/a.txt", content="first rewrite\n")),
            turn(call("edit_file", path="src/a.txt", old="first", new="second")),
            turn(call("write_file", path="b.txt", content="b changed\n")),
            turn(call("write_file", path="new/dir/c.txt", content="created\n")),
        ],
    )


def test_revert_puts_every_file_back_byte_for_byte(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    assert (ws / "src" / "a.txt").read_text() == "second rewrite\n"
    assert (ws / "new" / "dir" / "c.txt").exists()

    result = revert_run(store, run_id)

    assert result is not None
    actions = {f.path: f.action for f in result.files}
    assert actions == {
        "src/a.txt": RevertAction.RESTORED,
        "b.txt": RevertAction.RESTORED,
        "new/dir/c.txt": RevertAction.DELETED,
    }
    assert (ws / "src" / "a.txt").read_bytes() == ORIGINAL_A
    assert (ws / "b.txt").read_text() == "b original\n"
    assert (ws / "b.txt").stat().st_mode & 0o777 == 0o640, "the mode is kept"
    assert not (ws / "new" / "dir" / "c.txt").exists()
    assert not (ws / "new").exists(), "the directories the run created (announced) are gone"
    assert result.to_json()["restored"] == 2 and result.to_json()["deleted"] == 1
    assert not list(ws.rglob("*.harness-tmp")), "atomic writes leave no temp files"


def test_reverting_twice_changes_nothing_the_second_time(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    revert_run(store, run_id)
    again = revert_run(store, run_id)
    assert again is not None
    assert {f.action for f in again.files} == {RevertAction.UNCHANGED}
    assert (ws / "src" / "a.txt").read_bytes() == ORIGINAL_A


def test_a_file_changed_since_is_refused_unless_forced(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    (ws / "b.txt").write_text("the user edited this afterwards\n")
    (ws / "new" / "dir" / "c.txt").unlink()  # deleted since: already as before the run

    result = revert_run(store, run_id)
    assert result is not None
    by_path = {f.path: f for f in result.files}
    assert by_path["b.txt"].action is RevertAction.REFUSED
    assert "changed since the run wrote it" in by_path["b.txt"].reason
    assert "force" in by_path["b.txt"].reason
    assert (ws / "b.txt").read_text() == "the user edited this afterwards\n"
    assert by_path["src/a.txt"].action is RevertAction.RESTORED, "the others still revert"
    assert by_path["new/dir/c.txt"].action is RevertAction.UNCHANGED

    forced = revert_run(store, run_id, force=True)
    assert forced is not None
    assert {f.path: f.action for f in forced.files}["b.txt"] is RevertAction.RESTORED
    assert (ws / "b.txt").read_text() == "b original\n"


def test_a_restored_file_deleted_since_is_refused_unless_forced(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    (ws / "b.txt").unlink()
    result = revert_run(store, run_id)
    assert result is not None
    b = next(f for f in result.files if f.path == "b.txt")
    assert b.action is RevertAction.REFUSED and "was deleted since" in b.reason
    assert not (ws / "b.txt").exists()
    revert_run(store, run_id, force=True)
    assert (ws / "b.txt").read_text() == "b original\n"


class DirtyGuard:
    def __init__(self, *dirty: str) -> None:
        self.dirty = set(dirty)

    def has_unsaved_changes(self, rel_path: str) -> bool:
        return rel_path in self.dirty


def test_a_file_with_unsaved_editor_changes_is_refused(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)
    result = revert_run(store, run_id, guard=DirtyGuard("b.txt"))
    assert result is not None
    b = next(f for f in result.files if f.path == "b.txt")
    assert b.action is RevertAction.REFUSED and "unsaved changes in the editor" in b.reason
    assert (ws / "b.txt").read_text() == "b changed\n"


def test_an_unknown_run_is_none(store: Store) -> None:
    assert revert_run(store, 12345) is None


def test_a_run_without_edits_reverts_nothing(ws: Path, store: Store) -> None:
    run_id = run_turns(ws, store, [turn(call("read_file", path="b.txt"))])
    result = revert_run(store, run_id)
    assert result is not None and result.files == ()


def test_paths_that_leave_the_workspace_are_refused(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n")
    (ws / "link").symlink_to(tmp_path)
    edits = [
        EditRow(step=1, path="../outside.txt", before=b"x", after=b"not yours\n"),
        EditRow(step=1, path="link/outside.txt", before=b"x", after=b"not yours\n"),
        EditRow(step=1, path=".git/config", before=None, after=b""),
    ]
    files = revert_edits(Workspace(ws), edits, force=True)
    assert [f.action for f in files] == [RevertAction.REFUSED] * 3
    assert outside.read_text() == "not yours\n"


def test_histories_take_the_first_before_and_the_last_after() -> None:
    edits = [
        EditRow(1, "a", None, b"1"),
        EditRow(2, "b", b"b0", b"b1"),
        EditRow(3, "a", b"1", b"2"),
    ]
    histories = file_histories(edits)
    assert [(h.path, h.original, h.final) for h in histories] == [
        ("a", None, b"2"),
        ("b", b"b0", b"b1"),
    ]


def test_a_directory_in_the_way_is_refused(ws: Path) -> None:
    (ws / "d").mkdir()
    files = revert_edits(Workspace(ws), [EditRow(1, "d", None, b"x")], force=True)
    assert files[0].action is RevertAction.REFUSED


# -- writes whose step never committed (§5) -----------------------------------------------


def announce_and_write(
    store: Store,
    run_id: int,
    step: int,
    workspace: Workspace,
    rel: str,
    data: bytes,
    *,
    write: bool,
) -> None:
    """What a tool does through ``ToolContext.before_write``: announce, then (maybe) write."""
    target = workspace.root / rel
    before = target.read_bytes() if target.exists() else None
    store.announce_write(run_id, step, rel, before, data)
    if write:
        workspace.write_atomic(rel, data)


def test_an_announced_write_whose_step_never_committed_is_reverted(ws: Path, store: Store) -> None:
    run_id = edit_everything(ws, store)  # four committed steps
    workspace = Workspace(ws)
    announce_and_write(store, run_id, 6, workspace, "b.txt", b"killed mid-step\n", write=True)
    announce_and_write(store, run_id, 6, workspace, "src/a.txt", b"never written", write=False)
    announce_and_write(store, run_id, 6, workspace, "x/y/z.txt", b"new", write=True)

    result = revert_run(store, run_id)

    assert result is not None
    actions = {f.path: f.action for f in result.files}
    assert actions["b.txt"] is RevertAction.RESTORED
    assert actions["src/a.txt"] is RevertAction.RESTORED  # the committed steps' writes
    assert actions["x/y/z.txt"] is RevertAction.DELETED
    assert (ws / "b.txt").read_text() == "b original\n"
    assert (ws / "src" / "a.txt").read_bytes() == ORIGINAL_A
    assert not (ws / "x").exists(), "the directories the run created are gone"
    # Both the committed run (new/dir/c.txt, announced by the loop) and the killed step.
    assert set(result.dirs_removed) == {"new", "new/dir", "x", "x/y"}


def test_an_announced_write_that_did_not_happen_leaves_the_file_alone(
    ws: Path, store: Store
) -> None:
    run_id = run_turns(ws, store, [turn(call("read_file", path="b.txt"))])
    announce_and_write(store, run_id, 2, Workspace(ws), "b.txt", b"never", write=False)
    result = revert_run(store, run_id)
    assert result is not None
    assert [(f.path, f.action) for f in result.files] == [("b.txt", RevertAction.UNCHANGED)]
    assert (ws / "b.txt").read_text() == "b original\n"


def test_a_file_changed_after_an_unconfirmed_write_is_refused_unless_forced(
    ws: Path, store: Store
) -> None:
    run_id = run_turns(ws, store, [turn(call("read_file", path="b.txt"))])
    announce_and_write(store, run_id, 2, Workspace(ws), "b.txt", b"the run's", write=True)
    (ws / "b.txt").write_text("the user's, after the crash\n")
    [refused] = revert_run(store, run_id).files  # type: ignore[union-attr]
    assert refused.action is RevertAction.REFUSED and "force" in refused.reason
    assert (ws / "b.txt").read_text() == "the user's, after the crash\n"
    [forced] = revert_run(store, run_id, force=True).files  # type: ignore[union-attr]
    assert forced.action is RevertAction.RESTORED
    assert (ws / "b.txt").read_text() == "b original\n"


def test_directories_are_removed_only_when_the_run_created_them_and_they_are_empty(
    ws: Path, store: Store
) -> None:
    run_id = run_turns(ws, store, [turn(call("read_file", path="b.txt"))])
    workspace = Workspace(ws)
    announce_and_write(store, run_id, 2, workspace, "made/one.txt", b"1", write=True)
    announce_and_write(store, run_id, 2, workspace, "kept/two.txt", b"2", write=True)
    announce_and_write(store, run_id, 2, workspace, "src/three.txt", b"3", write=True)
    (ws / "kept" / "users-file.txt").write_text("added by the user meanwhile\n")
    result = revert_run(store, run_id)
    assert result is not None and result.dirs_removed == ("made",)
    assert result.to_json()["dirsRemoved"] == ["made"]
    assert not (ws / "made").exists()
    assert (ws / "kept" / "users-file.txt").exists(), "a directory holding anything stays"
    assert (ws / "src").is_dir(), "a directory that existed before the run stays"


def test_temp_files_of_an_interrupted_write_are_removed(ws: Path, store: Store) -> None:
    run_id = run_turns(ws, store, [turn(call("read_file", path="b.txt"))])
    announce_and_write(store, run_id, 2, Workspace(ws), "b.txt", b"x", write=False)
    leftover = ws / ".b.txt.0123abcd.harness-tmp"  # what a kill inside write_atomic leaves
    leftover.write_bytes(b"half of x")
    unrelated = ws / ".b.txt.notours.harness-tmp"
    unrelated.write_text("not a name the workspace makes\n")
    revert_run(store, run_id)
    assert not leftover.exists()
    assert unrelated.exists()
