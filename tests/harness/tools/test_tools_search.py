"""grep, find and list_dir on real trees: output shape, caps, ignores, bad input, policy."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from harness.policy import Layer, Policy, Rule
from harness.tools.search import FIND_MAX_PATHS, GREP_MAX_LINES, LINE_CLIP_CHARS
from harness.types import Act, Effect

if TYPE_CHECKING:
    from tests.harness.tools.conftest import MakeToolEnv, ToolEnv


@pytest.fixture
def project(tool_env: ToolEnv) -> ToolEnv:
    files = {
        "src/app.py": "import os\n\ndef handle_request(req):\n    return req  # TODO\n",
        "src/util.py": "def helper():\n    pass  # TODO: remove\n",
        "src/deep/mod.py": "TODO = 1\n",
        "docs/guide.md": "Call handle_request() first.\n",
        "build/out.py": "def handle_request(): pass\n",
        "node_modules/lib/index.js": "// TODO\n",
        ".git/config": "TODO\n",
        ".gitignore": "build/\n",
        ".env": "TODO_SECRET=hunter2\n",
    }
    for rel, text in files.items():
        tool_env.write(rel, text)
    tool_env.write("img.png", b"\x89PNG\x00\x00TODO")
    return tool_env


# -- grep ------------------------------------------------------------------------------------


async def test_grep_lines_and_ignores(project: ToolEnv):
    result = await project.call("grep", pattern="TODO")
    assert result.ok
    assert result.text.splitlines() == [
        "[grep TODO]",
        "src/app.py:4:     return req  # TODO",
        "src/deep/mod.py:1: TODO = 1",
        "src/util.py:2:     pass  # TODO: remove",
        "skipped: 1 file read_file may not open (policy)",
    ]
    assert "hunter2" not in result.text


async def test_grep_with_glob_and_directory(project: ToolEnv):
    by_glob = await project.call("grep", pattern=r"handle_\w+", path_glob="*.md")
    assert by_glob.text.splitlines()[1:] == ["docs/guide.md:1: Call handle_request() first."]
    assert by_glob.target == r"handle_\w+ in *.md"
    by_dir = await project.call("grep", pattern="TODO", path_glob="src/deep")
    assert by_dir.text.splitlines()[1:] == ["src/deep/mod.py:1: TODO = 1"]
    by_star = await project.call("grep", pattern="TODO", path_glob="src/*.py")
    assert len(by_star.text.splitlines()) == 4


async def test_grep_anchors_are_per_line_and_matches_never_span_lines(tool_env: ToolEnv):
    tool_env.write("a.txt", "foo\nbar\nfoo bar\n")
    anchored = await tool_env.call("grep", pattern="^bar$")
    assert anchored.text.splitlines()[1:] == ["a.txt:2: bar"]
    spanning = await tool_env.call("grep", pattern=r"foo\s+bar")
    assert spanning.text.splitlines()[1:] == ["a.txt:3: foo bar"]


async def test_grep_non_ascii_uses_unicode_semantics(tool_env: ToolEnv):
    tool_env.write("a.txt", "café au lait\nplain\n")
    result = await tool_env.call("grep", pattern=r"caf\w\b")
    assert result.text.splitlines()[1:] == ["a.txt:1: café au lait"]


async def test_grep_caps_at_50_lines_and_counts_the_rest(tool_env: ToolEnv):
    tool_env.write("a.txt", "hit\n" * 40)
    tool_env.write("b.txt", "hit\n" * 30)
    tool_env.write("c.txt", "hit\n" * 5)
    result = await tool_env.call("grep", pattern="hit")
    lines = result.text.splitlines()
    assert len(lines) == 1 + GREP_MAX_LINES + 1
    assert lines[GREP_MAX_LINES] == "b.txt:10: hit"
    assert lines[-1].startswith("… 25 more matching lines in 2 files not shown")


async def test_grep_clips_long_lines_around_the_match(tool_env: ToolEnv):
    tool_env.write("min.js", "x" * 5_000 + "NEEDLE" + "y" * 5_000 + "\n")
    result = await tool_env.call("grep", pattern="NEEDLE")
    line = result.text.splitlines()[1]
    assert "NEEDLE" in line
    assert "[line clipped: 10,006 chars]" in line
    assert len(line) < LINE_CLIP_CHARS + 80


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        pytest.param("(", "unclosed group", id="paren"),
        pytest.param("[z-a]", "invalid character class range", id="class"),
        pytest.param("a{2,1}", "invalid repetition count range", id="repeat"),
        pytest.param("(?<=a)b", "look-around", id="lookbehind"),
        pytest.param(r"(a)\1", "backreferences are not supported", id="backreference"),
    ],
)
async def test_grep_bad_regex(tool_env: ToolEnv, pattern: str, fragment: str):
    result = await tool_env.call("grep", pattern=pattern)
    assert not result.ok
    assert "bad regular expression (ripgrep says: regex parse error:" in result.text
    assert fragment in result.text


async def test_grep_no_matches(project: ToolEnv):
    result = await project.call("grep", pattern="zzz_nothing")
    assert result.ok and "no matches in" in result.text


async def test_grep_path_glob_outside_is_refused(tool_env: ToolEnv):
    result = await tool_env.call("grep", pattern="x", path_glob="../other")
    assert not result.ok and "leaves the workspace" in result.text
    assert result.policy[0].layer == "containment"


async def test_grep_skips_files_the_policy_denies(make_tool_env: MakeToolEnv):
    policy = Policy([Layer("workspace", (Rule(Act.READ, Effect.DENY, "private/*"),))])
    env = make_tool_env(policy=policy)
    env.write("private/a.txt", "needle\n")
    env.write("public/a.txt", "needle\n")
    result = await env.call("grep", pattern="needle")
    assert "private" not in result.text.split("skipped")[0]
    assert "public/a.txt:1: needle" in result.text


# -- find ------------------------------------------------------------------------------------


async def test_find(project: ToolEnv):
    result = await project.call("find", name_glob="*.py")
    assert result.text.splitlines() == [
        "[find *.py]",
        "src/app.py",
        "src/deep/mod.py",
        "src/util.py",
    ]
    by_dir = await project.call("find", name_glob="src/deep")
    assert by_dir.text.splitlines()[1:] == ["src/deep/mod.py"]
    none = await project.call("find", name_glob="*.rs")
    assert none.ok and "no files match `*.rs`" in none.text


async def test_find_caps_and_counts(tool_env: ToolEnv):
    for i in range(FIND_MAX_PATHS + 7):
        tool_env.write(f"f/{i:04d}.txt", "")
    result = await tool_env.call("find", name_glob="*.txt")
    lines = result.text.splitlines()
    assert len(lines) == 1 + FIND_MAX_PATHS + 1
    assert lines[-1].startswith("… 7 more not shown")


# -- list_dir --------------------------------------------------------------------------------


async def test_list_dir(project: ToolEnv):
    result = await project.call("list_dir")
    lines = result.text.splitlines()
    assert lines[0] == "[list .]"
    assert lines[1:-1] == [".env", ".gitignore", "docs/", "img.png", "src/"]
    assert lines[-1] == "(3 ignored not shown: .git/, build/, node_modules/)"
    sub = await project.call("list_dir", path="src")
    assert sub.text.splitlines() == ["[list src]", "app.py", "deep/", "util.py"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param("src/app.py", "is a file", id="file"),
        pytest.param("nope", "does not exist", id="missing"),
        pytest.param("..", "leaves the workspace", id="dotdot"),
    ],
)
async def test_list_dir_errors(project: ToolEnv, path: str, message: str):
    result = await project.call("list_dir", path=path)
    assert not result.ok and message in result.text


async def test_list_empty_dir(tool_env: ToolEnv):
    (tool_env.root / "empty").mkdir()
    result = await tool_env.call("list_dir", path="empty")
    assert result.text == "[list empty]\n(empty directory)"


async def test_grep_in_an_ignored_directory_says_so(project: ToolEnv):
    result = await project.call("grep", pattern="handle", path_glob="build")
    assert result.ok and "`build` is ignored" in result.text
