"""Writes made by the editor (issue 38, ``ToolContext.writer``, ACP's ``fs/write_text_file``):
every check and the intent row come first and only the last act is the editor's — an edit,
a whole-file write and a rename's every file reach it; a refused write, a secrets file, a
key in the content never do; an editor that fails is a failed call with the file as it was;
binary bytes go to the disk."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness import redact
from harness.semantic.model import FileEdit, Position, Span, TextEdit
from harness.tools.renaming import Refused, write_rename
from harness.tools.writing import commit_write
from tests.harness.tools.conftest import MakeToolEnv, ToolEnv
from tests.support.tool_env import WriteIntents


@dataclass
class Editor:
    """A real ``EditorWriter``: writes the file as an editor saving its buffer would, and
    remembers what it was asked; ``fail`` makes it refuse."""

    root: Path
    asked: list[tuple[str, str]] = field(default_factory=list)
    fail: bool = False

    def write_text(self, rel_path: str, text: str) -> None:
        self.asked.append((rel_path, text))
        if self.fail:
            raise OSError("the editor did not write it (the buffer is read-only)")
        (self.root / rel_path).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel_path).write_text(text)


def with_editor(env: ToolEnv, **options: object) -> Editor:
    editor = Editor(env.root, **options)  # type: ignore[arg-type]
    env.ctx = dataclasses.replace(env.ctx, writer=editor)
    return editor


async def test_the_editor_makes_the_writes_after_every_check(make_tool_env: MakeToolEnv) -> None:
    intents = WriteIntents()
    env = make_tool_env(before_write=intents)
    env.write("a.py", "x = 1\n")
    editor = with_editor(env)
    edited = await env.call("edit_file", path="a.py", old="x = 1", new="x = 2")
    assert edited.ok and edited.writes[0].before == b"x = 1\n"
    assert edited.writes[0].after == b"x = 2\n"
    made = await env.call("write_file", path="pkg/new.py", content="NEW = 1\n")
    assert made.ok
    assert editor.asked == [("a.py", "x = 2\n"), ("pkg/new.py", "NEW = 1\n")]
    assert intents.calls == [("a.py", b"x = 1\n"), ("pkg/new.py", None)]  # announced first
    for refused in (
        await env.call("write_file", path=".git/config", content="[core]\n"),
        await env.call("write_file", path=".env", content="TOKEN=1\n"),
        await env.call("write_file", path="../outside.py", content="x\n"),
    ):
        assert not refused.ok, refused.text
    key = "sk-editor-writer-" + "k3y" * 10
    redact.register(key)  # a key the harness holds (§6.7)
    keyed = await env.call("write_file", path="conf.py", content=f"KEY = {key!r}\n")
    assert not keyed.ok and "API key" in keyed.text
    assert len(editor.asked) == 2, "a refused write never reaches the editor"


async def test_an_editor_that_fails_leaves_the_file_and_says_so(tool_env: ToolEnv) -> None:
    tool_env.write("a.py", "x = 1\n")
    with_editor(tool_env, fail=True)
    result = await tool_env.call("edit_file", path="a.py", old="x = 1", new="x = 2")
    assert not result.ok and "could not be written" in result.text
    assert "the editor did not write it" in result.text
    assert (tool_env.root / "a.py").read_text() == "x = 1\n"


def test_bytes_that_are_not_text_go_to_the_disk(tool_env: ToolEnv) -> None:
    editor = with_editor(tool_env)
    prepared = tool_env.workspace.prepare_write("blob.bin")
    written = commit_write(prepared, b"\xff\xfe\x00", editor)
    assert written.after == b"\xff\xfe\x00" and editor.asked == []
    assert (tool_env.root / "blob.bin").read_bytes() == b"\xff\xfe\x00"


def _rename(path: str, line: int, start: int, end: int, new: str) -> FileEdit:
    span = Span(Position(line, start), Position(line, end))
    return FileEdit(path, (TextEdit(span, new),))


async def test_a_renames_every_file_goes_through_the_editor(tool_env: ToolEnv) -> None:
    tool_env.write("a.py", "def add(a, b):\n    return a + b\n")
    tool_env.write("b.py", "from a import add\n")
    editor = with_editor(tool_env)
    edits = [_rename("a.py", 0, 4, 7, "plus"), _rename("b.py", 0, 14, 17, "plus")]
    written, _ = await write_rename("rename_symbol", edits, tool_env.ctx, "utf-16")
    assert [w.path for w in written] == ["a.py", "b.py"]
    assert editor.asked == [
        ("a.py", "def plus(a, b):\n    return a + b\n"),
        ("b.py", "from a import plus\n"),
    ]
    with pytest.raises(Refused, match=r"\.git"):
        await write_rename(
            "rename_symbol", [_rename(".git/HEAD", 0, 0, 1, "x")], tool_env.ctx, "utf-16"
        )
    assert len(editor.asked) == 2
