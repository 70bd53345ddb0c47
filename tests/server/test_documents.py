"""Unsaved buffers: dirty means a change since the last open or save *and* text that differs
from the file on disk (an editor reloading a buffer after an agent write is not dirty)."""

from __future__ import annotations

import os
from pathlib import Path

from server.lsp.documents import DocumentTracker, EditorGuard


class Buffers:
    """What pygls would hold: the text of each open document."""

    def __init__(self) -> None:
        self.text: dict[str, str] = {}

    def __call__(self, uri: str) -> str | None:
        return self.text.get(uri)


def setup(tmp_path: Path) -> tuple[DocumentTracker, Buffers, Path, str]:
    buffers = Buffers()
    path = tmp_path / "a.py"
    path.write_text("on disk\n")
    uri = path.as_uri()
    tracker = DocumentTracker(buffers)
    buffers.text[uri] = "on disk\n"
    tracker.opened(uri, 1)
    return tracker, buffers, path.resolve(), uri


def test_an_open_unchanged_document_is_clean(tmp_path: Path) -> None:
    tracker, _, path, _ = setup(tmp_path)
    assert not tracker.is_dirty(path)


def test_a_change_makes_it_dirty_until_saved(tmp_path: Path) -> None:
    tracker, buffers, path, uri = setup(tmp_path)
    buffers.text[uri] = "typed\n"
    tracker.changed(uri, 2)
    assert tracker.is_dirty(path)
    path.write_text("typed\n")
    tracker.saved(uri)
    assert not tracker.is_dirty(path)


def test_a_change_back_to_the_disk_content_is_clean(tmp_path: Path) -> None:
    tracker, buffers, path, uri = setup(tmp_path)
    path.write_text("the agent wrote this\n")
    buffers.text[uri] = "the agent wrote this\n"  # the editor reloaded the buffer
    tracker.changed(uri, 2)
    assert not tracker.is_dirty(path)


def test_closing_discards_the_buffer(tmp_path: Path) -> None:
    tracker, buffers, path, uri = setup(tmp_path)
    buffers.text[uri] = "typed\n"
    tracker.changed(uri, 2)
    tracker.closed(uri)
    assert not tracker.is_dirty(path)


def test_a_change_without_an_open_is_dirty(tmp_path: Path) -> None:
    buffers = Buffers()
    path = tmp_path / "b.py"
    path.write_text("x\n")
    tracker = DocumentTracker(buffers)
    tracker.changed(path.as_uri(), 5)
    assert tracker.is_dirty(path.resolve()), "unknown buffer text: the safe answer"


def test_a_deleted_file_with_a_changed_buffer_is_dirty(tmp_path: Path) -> None:
    tracker, buffers, path, uri = setup(tmp_path)
    buffers.text[uri] = "typed\n"
    tracker.changed(uri, 2)
    path.unlink()
    assert tracker.is_dirty(path)


def test_other_schemes_are_ignored(tmp_path: Path) -> None:
    tracker = DocumentTracker(Buffers())
    assert tracker.opened("untitled:Untitled-1", 1) is None
    assert tracker.changed("untitled:Untitled-1", 2) is None


def test_the_guard_answers_for_workspace_relative_paths(tmp_path: Path) -> None:
    tracker, buffers, _, uri = setup(tmp_path)
    buffers.text[uri] = "typed\n"
    tracker.changed(uri, 2)
    guard = EditorGuard(tracker, tmp_path.resolve())
    assert guard.has_unsaved_changes("a.py")
    assert guard.has_unsaved_changes("./a.py")
    assert not guard.has_unsaved_changes("b.py")


def test_the_guard_lists_the_unsaved_files_of_its_root(tmp_path: Path) -> None:
    tracker, buffers, _, uri = setup(tmp_path)
    buffers.text[uri] = "typed\n"
    tracker.changed(uri, 2)
    outside = tmp_path.parent / f"{tmp_path.name}-other.py"
    outside.write_text("x\n")
    tracker.opened(outside.as_uri(), 1)
    tracker.changed(outside.as_uri(), 2)  # dirty, but not in this workspace
    assert EditorGuard(tracker, tmp_path.resolve()).unsaved_paths() == ("a.py",)
    tracker.saved(uri)
    path = tmp_path / "a.py"
    path.write_text("typed\n")
    assert EditorGuard(tracker, tmp_path.resolve()).unsaved_paths() == ()
    outside.unlink()


def test_a_fifo_in_a_dirty_buffer_is_unsaved_and_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    buffers = Buffers()
    tracker = DocumentTracker(buffers)
    tracker.opened(fifo.as_uri(), 1)
    buffers.text[fifo.as_uri()] = "typed\n"
    tracker.changed(fifo.as_uri(), 2)
    assert tracker.is_dirty(fifo.resolve()), "returns at once: nobody writes the pipe"
