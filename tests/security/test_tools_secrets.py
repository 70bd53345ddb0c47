"""Attack: reach a secret through another tool or another name (issue 9, seen 2; SPEC §6.3).

A symlink ``config.txt -> .env`` is refused by read_file; grep must not print its lines and
find must not list it; files read may not open are skipped and counted, never shown. A hard
link whose other name lies outside the root is refused by every tool (§6.2).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.tool_env import ToolEnv, make_tool_env

KEY = "sk-planted-7f3a9c2e1b0d4e5f"


@pytest.fixture
def env(tmp_path: Path) -> ToolEnv:
    ws = make_tool_env(tmp_path / "ws")
    ws.write(".env", f"OPENAI_API_KEY={KEY}\n")
    ws.write("src/app.py", "print('OPENAI_API_KEY is read from the environment')\n")
    (ws.root / "config.txt").symlink_to(".env")
    (ws.root / "cfg").mkdir()
    (ws.root / "cfg" / "settings").symlink_to("../.env")
    return ws


async def test_read_file_refuses_the_symlink_to_a_secret(env: ToolEnv) -> None:
    for path in ("config.txt", "cfg/settings"):
        result = await env.call("read_file", path=path)
        assert not result.ok, path
        assert KEY not in result.text
        assert "`.env`" in result.text and "layer builtin" in result.text


@pytest.mark.parametrize("path_glob", [None, "config.txt", "*.txt", "cfg", "*"])
async def test_grep_never_prints_a_secret_through_a_symlink(
    env: ToolEnv, path_glob: str | None
) -> None:
    args = {"pattern": "OPENAI_API_KEY"} | ({"path_glob": path_glob} if path_glob else {})
    result = await env.call("grep", **args)
    assert KEY not in result.text
    assert "config.txt:" not in result.text and ".env:" not in result.text


async def test_grep_says_how_many_files_it_skipped_for_the_policy(env: ToolEnv) -> None:
    result = await env.call("grep", pattern="OPENAI_API_KEY")
    assert result.ok
    assert "src/app.py:1:" in result.text
    assert "skipped: 1 file read_file may not open (policy)" in result.text
    # The count does not depend on whether the secret matches: no oracle for its content.
    other = await env.call("grep", pattern="zzz-no-such-text")
    assert "skipped: 1 file read_file may not open (policy)" in other.text


async def test_find_does_not_list_secrets_under_any_name(env: ToolEnv) -> None:
    result = await env.call("find", name_glob="*")
    listed = result.text.splitlines()[1:]
    assert ".env" not in listed and "config.txt" not in listed and "cfg/settings" not in listed
    assert "src/app.py" in listed
    assert "1 file not listed: read_file may not open it (policy)" in result.text


@pytest.mark.parametrize(
    "name", [".ENV", "ID_RSA", "cert.PEM", ".netrc", ".npmrc", ".pgpass", "id_ecdsa"]
)
async def test_grep_and_find_skip_every_secret_name(tmp_path: Path, name: str) -> None:
    # Every one of these is a secret in the built-in layer (issue 9, seen 2): read_file
    # refuses it, and grep and find skip it and say so.
    ws = make_tool_env(tmp_path / "ws")
    ws.write(name, f"password={KEY}\n")
    read = await ws.call("read_file", path=name)
    grep = await ws.call("grep", pattern="password")
    find = await ws.call("find", name_glob="*")
    assert not read.ok and "layer builtin" in read.text and KEY not in read.text
    assert KEY not in grep.text and "skipped: 1 file read_file may not open (policy)" in grep.text
    assert name not in find.text.splitlines()[1:] and "1 file not listed" in find.text


def test_a_hard_link_to_an_outside_file_is_refused_by_every_tool(tmp_path: Path) -> None:
    import asyncio

    outside = tmp_path / "outside.txt"
    outside.write_text(f"token={KEY}\n")
    ws = make_tool_env(tmp_path / "ws")
    os.link(outside, ws.root / "notes.txt")

    async def attack() -> None:
        read = await ws.call("read_file", path="notes.txt")
        assert not read.ok and KEY not in read.text
        assert "hard link" in read.text
        grep = await ws.call("grep", pattern="token")
        assert KEY not in grep.text
        edit = await ws.call("edit_file", path="notes.txt", old="token", new="x")
        assert not edit.ok and KEY not in edit.text

    asyncio.run(attack())
    assert outside.read_text() == f"token={KEY}\n"


async def test_a_hard_link_with_both_names_inside_is_read(tmp_path: Path) -> None:
    ws = make_tool_env(tmp_path / "ws")
    ws.write("a.txt", "shared\n")
    os.link(ws.root / "a.txt", ws.root / "b.txt")
    result = await ws.call("read_file", path="b.txt")
    assert result.ok and result.text == "[read b.txt]\nshared\n"
    grep = await ws.call("grep", pattern="shared")
    assert "a.txt:1: shared" in grep.text and "b.txt:1: shared" in grep.text
