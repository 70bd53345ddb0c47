"""Which workspace folder a command means: an open one, by URI or absolute path."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.lsp.errors import CommandError, InvalidParams
from server.lsp.folders import pick_folder, uri_to_path


def test_the_first_folder_is_the_default(tmp_path: Path) -> None:
    roots = [tmp_path / "a", tmp_path / "b"]
    assert pick_folder(roots, None) == roots[0]


def test_a_folder_by_uri_or_path(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
    roots = [a.resolve(), b.resolve()]
    assert pick_folder(roots, b.as_uri()) == b.resolve()
    assert pick_folder(roots, str(b) + "/") == b.resolve()
    assert pick_folder(roots, str(b / ".." / "b")) == b.resolve()


@pytest.mark.parametrize("given", ["relative/dir", "/somewhere/else", "file:///etc", "http://x/y"])
def test_anything_else_is_refused(tmp_path: Path, given: str) -> None:
    with pytest.raises(InvalidParams, match="`workspaceFolder`"):
        pick_folder([tmp_path.resolve()], given)


def test_no_folder_open(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no workspace folder is open"):
        pick_folder([], None)


def test_uri_to_path() -> None:
    assert uri_to_path("file:///tmp/a%20b.py") == Path("/tmp/a b.py")
    assert uri_to_path("untitled:1") is None
