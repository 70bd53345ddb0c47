"""Attack: hard links and ripgrep's failures (issue 20, item 8; SPEC §6.1, §6.2).

- 300 hard links out of a 40,000-file tree made every grep time out at 60 s: each linked
  inode cost a Python walk of the whole tree (two, when the other name was outside). A
  search now counts the names of each linked inode in the listing it already holds: no
  timeout, the outside-linked files refused, a link with both names inside still searched.
- Every rg failure was reported as "bad regular expression". A bad pattern still says so,
  with rg's own message; any other failure says what it is.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.tools.ripgrep import failure_text
from tests.support.tool_env import make_tool_env

FILES = 40_000
LINKS_OUT = 300


def build_tree(root: Path, outside: Path) -> None:
    """``FILES`` small files in 200 directories, ``LINKS_OUT`` of them second names of files
    outside the root, and one pair of names both inside."""
    outside.mkdir()
    for d in range(200):
        folder = root / f"d{d:03}"
        folder.mkdir(parents=True)
        for f in range(FILES // 200):
            (folder / f"f{f:03}.txt").write_text("nothing to see\n")
    for n in range(LINKS_OUT):
        secret = outside / f"secret{n}.txt"
        secret.write_text(f"needle secret {n}\n")
        os.link(secret, root / f"d{n % 200:03}" / f"linked{n}.txt")
    (root / "pair_a.txt").write_text("needle shared inside\n")
    os.link(root / "pair_a.txt", root / "pair_b.txt")


async def test_grep_through_many_hard_links_answers_and_refuses_the_outside_ones(
    tmp_path: Path,
) -> None:
    env = make_tool_env(tmp_path / "ws")
    build_tree(env.root, tmp_path / "outside")
    result = await env.call("grep", pattern="needle")
    assert result.ok, result.text  # not "the search was stopped after 60 s"
    assert "secret" not in result.text
    assert f"{LINKS_OUT} files hard-linked to a file outside the workspace" in result.text
    assert "pair_a.txt:1: needle shared inside" in result.text
    assert "pair_b.txt:1: needle shared inside" in result.text
    found = await env.call("find", name_glob="linked*")
    assert found.ok and "no files match `linked*`" in found.text, found.text
    assert f"{LINKS_OUT} hard-linked to a file outside the workspace" in found.text
    # A read of one of them is refused too; the pair inside is read.
    read = await env.call("read_file", path="d000/linked0.txt")
    assert not read.ok and "secret" not in read.text
    pair = await env.call("read_file", path="pair_b.txt")
    assert pair.ok and "needle shared inside" in pair.text


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        pytest.param("(unclosed", "bad regular expression", id="bad-regex"),
        pytest.param("a{99999999}", "bad regular expression", id="regex-too-big"),
    ],
)
async def test_a_bad_pattern_says_so_with_rgs_message(
    tmp_path: Path, pattern: str, said: str
) -> None:
    env = make_tool_env(tmp_path / "ws")
    env.write("a.txt", "hello\n")
    result = await env.call("grep", pattern=pattern)
    assert not result.ok
    assert said in result.text and "ripgrep says" in result.text, result.text


async def test_nothing_to_search_is_not_called_a_bad_regex(tmp_path: Path) -> None:
    """rg exits 2 ("No files were searched") in a workspace whose files are all ignored; on
    main that was reported as a bad regular expression."""
    env = make_tool_env(tmp_path / "ws")
    env.write("node_modules/lib.js", "needle\n")
    result = await env.call("grep", pattern="needle")
    assert "bad regular expression" not in result.text, result.text
    assert result.ok and "no matches in 0 files" in result.text, result.text


@pytest.mark.parametrize(
    ("stderr", "said"),
    [
        pytest.param(
            "rg: ./a: Permission denied (os error 13)\n", "permission denied", id="permission"
        ),
        pytest.param("rg: x: Input/output error (os error 5)\n", "an I/O error", id="io"),
        pytest.param(
            "rg: /gone: IO error for operation on /gone: No such file or directory (os error 2)",
            "an I/O error",
            id="missing",
        ),
        pytest.param("rg: something new\n", "an error", id="other"),
    ],
)
def test_rg_failures_are_named_as_they_are(stderr: str, said: str) -> None:
    """rg's own messages (as it prints them) for failures that are not the pattern's."""
    text = failure_text(stderr)
    assert text is not None and said in text and "bad regular expression" not in text
    message = stderr.strip().removeprefix("rg: ").rpartition(": ")[2]
    assert f"ripgrep says: {message})" in text, text
    named = stderr.strip().removeprefix("rg: ").rpartition(": ")[0]
    assert not named or named not in text, "rg names a path it may have reached outside"
