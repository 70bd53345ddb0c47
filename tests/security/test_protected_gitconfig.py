"""The repository chooses the files the protection reads (``.git`` as a file, git's
``config``, ``commondir``): ``core.hooksPath`` is found however git would read it, hostile
contents (any text, a FIFO, a huge file) never raise nor block, and a worktree's shared git
directory is protected as well as its own (issue 20, item 7; SPEC §6.2)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import ContainmentError
from harness.workspace import Workspace
from harness.workspace.gitdir import git_places, hooks_path


@pytest.mark.parametrize(
    ("config", "found"),
    [
        pytest.param("[core]\n\thooksPath = tools/hooks\n", "tools/hooks", id="plain"),
        pytest.param('[CORE]\n  HOOKSPATH="my hooks" # why\n', "my hooks", id="case-quoted"),
        pytest.param("[core] hooksPath = a\n[core]\nhookspath = b\n", "b", id="last-wins"),
        pytest.param("[other]\nhooksPath = x\n", None, id="other-section"),
        pytest.param("[core]\n; hooksPath = x\n", None, id="comment"),
    ],
)
def test_hooks_path_is_read_as_git_reads_it(config: str, found: str | None) -> None:
    assert hooks_path(config) == found


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_config_text_is_read_without_error(text: str) -> None:
    hooks_path(text)


@pytest.mark.parametrize("kind", ["fifo", "huge", "dev-zero"])
def test_a_hostile_git_file_neither_blocks_nor_fills_memory(tmp_path: Path, kind: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    if kind == "fifo":
        os.mkfifo(ws / ".git")
    elif kind == "huge":
        (ws / ".git").write_text("gitdir: " + "x" * (8 * 1024 * 1024) + "\n")
    else:
        (ws / ".git").symlink_to("/dev/zero")
    list(git_places(ws))  # returns: never blocks on the FIFO, reads at most 64 KiB
    workspace = Workspace(ws)
    with workspace.locate("src/a.py", for_write=True):
        pass


def test_a_linked_worktree_protects_the_shared_git_directory(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    run = {"cwd": ws, "check": True, "capture_output": True, "timeout": 60}
    subprocess.run(["git", "init", "-q", "--bare", "shared.git"], **run)  # type: ignore[call-overload]
    (ws / "wt" / "gitdir").mkdir(parents=True)
    (ws / "wt" / "gitdir" / "commondir").write_text("../../shared.git\n")
    (ws / "wt" / "gitdir" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / ".git").write_text("gitdir: wt/gitdir\n")
    workspace = Workspace(ws)
    for path in ("shared.git/hooks/pre-commit", "shared.git/config", "wt/gitdir/HEAD"):
        with pytest.raises(ContainmentError, match="git really uses"):
            workspace.locate(path, for_write=True)
