"""read_file, write_file and edit_file on real files, through ``dispatch`` as the loop calls
them: containment, policy, unsaved editor buffers, size refusals, atomic writes."""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.policy import Layer, Policy, Rule, UnavailableApprover
from harness.types import Act, Effect, content_hash

if TYPE_CHECKING:
    from tests.harness.tools.conftest import MakeToolEnv, ToolEnv


@dataclass
class UnsavedBuffers:
    """A real ``DocumentGuard``: these relative paths have unsaved changes in the editor."""

    paths: set[str] = field(default_factory=set)

    def has_unsaved_changes(self, rel_path: str) -> bool:
        return rel_path in self.paths


LINES = "".join(f"line {i}\n" for i in range(1, 121))


# -- read_file -------------------------------------------------------------------------------


async def test_read_whole_file(tool_env: ToolEnv):
    tool_env.write("src/a.py", "x = 1\ny = 2\n")
    result = await tool_env.call("read_file", path="./src/a.py")
    assert result.ok
    assert result.text == "[read src/a.py]\nx = 1\ny = 2\n"
    assert result.target == "src/a.py"
    assert result.read is not None
    assert result.read.whole and result.read.path == "src/a.py"
    assert result.read.content_hash == content_hash(b"x = 1\ny = 2\n")


async def test_read_range(tool_env: ToolEnv):
    tool_env.write("big.txt", LINES)
    result = await tool_env.call("read_file", path="big.txt", offset=10, limit=3)
    assert result.text == "[read big.txt:10-12]\nline 10\nline 11\nline 12"
    assert result.read is not None
    assert (result.read.offset, result.read.limit) == (10, 3)
    assert result.read.content_hash == content_hash(LINES.encode())
    assert result.read.shown_hash == content_hash(b"line 10\nline 11\nline 12")


async def test_read_range_clamped_at_the_end_and_past_it(tool_env: ToolEnv):
    tool_env.write("big.txt", LINES)
    tail = await tool_env.call("read_file", path="big.txt", offset=119, limit=50)
    assert tail.text == "[read big.txt:119-120]\nline 119\nline 120"
    assert tail.read is not None and (tail.read.offset, tail.read.limit) == (119, 2)
    past = await tool_env.call("read_file", path="big.txt", offset=500)
    assert not past.ok
    assert "offset 500 is past the end: `big.txt` has 120 lines" in past.text


async def test_read_empty_file(tool_env: ToolEnv):
    tool_env.write("empty.txt", "")
    result = await tool_env.call("read_file", path="empty.txt")
    assert result.ok and result.text == "[read empty.txt]\n(empty file)\n"


BIG = "".join(f"row {i:04d} {'x' * 30}\n" for i in range(1, 1205))  # 1,204 lines of 40 chars


async def test_a_file_over_the_cap_shows_the_lines_that_fit_and_says_so(
    make_tool_env: MakeToolEnv,
):
    env = make_tool_env(read_limit=2_000)
    env.write("src/big.py", BIG)
    result = await env.call("read_file", path="src/big.py")
    assert result.ok
    lines = result.text.split("\n")
    assert lines[0] == "[read src/big.py]"
    shown = lines[1:-1]
    n = len(shown)
    assert shown == [f"row {i:04d} {'x' * 30}" for i in range(1, n + 1)]
    assert lines[-1] == f"…[lines 1–{n} of 1,204 shown; read_file with offset={n + 1} for the rest]"
    assert len(result.text) <= 2_000
    assert n >= 40  # the cap is used, not a fraction of it
    assert result.read is not None
    assert (result.read.offset, result.read.limit) == (1, n)
    assert result.read.content_hash == content_hash(BIG.encode())
    assert result.read.shown_hash == content_hash("\n".join(shown).encode())


async def test_a_range_over_the_cap_names_the_rest_of_the_range(make_tool_env: MakeToolEnv):
    env = make_tool_env(read_limit=2_000)
    env.write("big.py", BIG)
    result = await env.call("read_file", path="big.py", offset=1201 - 100, limit=100)
    lines = result.text.split("\n")
    n = len(lines) - 2
    last = 1100 + n
    assert lines[0] == f"[read big.py:1101-{last}]"
    assert lines[-1] == (
        f"…[lines 1,101–{last:,} of 1,204 shown; read_file with offset={last + 1}, "
        f"limit={1200 - last} for the rest]"
    )
    # The remedy is never a size that was just refused: following it shows lines again.
    follow = await env.call("read_file", path="big.py", offset=last + 1, limit=1200 - last)
    assert follow.ok and follow.text.split("\n")[1].startswith(f"row {last + 1:04d}")


async def test_a_single_line_over_the_cap_is_cut_with_a_marker(make_tool_env: MakeToolEnv):
    env = make_tool_env(read_limit=2_000)
    env.write("min.js", "first\n" + "y" * 10_000 + "\nlast\n")
    result = await env.call("read_file", path="min.js", offset=2, limit=1)
    head, cut, marker = result.text.split("\n")
    assert head == "[read min.js:2-2]"
    assert set(cut) == {"y"} and len(cut) < 2_000
    assert marker == (
        f"…[line 2 cut: {len(cut):,} of 10,000 chars shown (grep shows the text around a match)]"
    )
    whole = await env.call("read_file", path="min.js", offset=2)
    assert whole.text.split("\n")[-1].endswith("; read_file with offset=3 for the rest]")


@pytest.mark.parametrize("read_limit", [400, 1_000, 5_000])
async def test_partial_reads_never_exceed_the_cap_and_cover_the_file(
    make_tool_env: MakeToolEnv, read_limit: int
):
    env = make_tool_env(read_limit=read_limit)
    text = "".join(f"{i}: {'z' * (i % 97)}\n" for i in range(1, 400))
    env.write("f.txt", text)
    seen: list[str] = []
    offset = 1
    for _ in range(400):
        result = await env.call("read_file", path="f.txt", offset=offset)
        assert result.ok and len(result.text) <= read_limit
        body = result.text.split("\n")[1:]
        if body[-1].startswith("…[lines"):
            seen += body[:-1]
            offset = int(body[-1].split("offset=")[1].split(" ")[0])
        else:
            seen += body
            break
    assert seen == text.splitlines()


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", id="nul-byte"),
        pytest.param(b"caf\xe9 latin-1", id="not-utf8"),
    ],
)
async def test_binary_read_is_refused_with_size(tool_env: ToolEnv, content: bytes):
    tool_env.write("img.bin", content)
    result = await tool_env.call("read_file", path="img.bin")
    assert not result.ok
    assert f"({len(content):,} bytes)" in result.text and "binary" in result.text


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param("missing.py", "does not exist", id="missing"),
        pytest.param("src", "is a directory", id="directory"),
        pytest.param("../outside.txt", "leaves the workspace", id="dotdot"),
        pytest.param("/etc/passwd", "absolute path", id="absolute"),
        pytest.param("a.py/b", "does not exist", id="file-as-directory"),
    ],
)
async def test_read_errors(tool_env: ToolEnv, path: str, message: str):
    (tool_env.root / "src").mkdir()
    (tool_env.root / "a.py").write_text("x")
    result = await tool_env.call("read_file", path=path)
    assert not result.ok and message in result.text


async def test_containment_refusal_is_a_policy_event(tool_env: ToolEnv):
    result = await tool_env.call("read_file", path="../x")
    (event,) = result.policy
    assert (event.layer, event.effect, event.allowed) == ("containment", Effect.DENY, False)


@pytest.mark.parametrize("path", [".env", "x.pem", "id_rsa", "keys/deploy.key"])
async def test_secrets_are_not_read(tool_env: ToolEnv, path: str):
    tool_env.write(path, "TOKEN=hunter2\n")
    result = await tool_env.call("read_file", path=path)
    assert not result.ok
    assert "hunter2" not in result.text
    assert "refused by policy" in result.text and "layer builtin" in result.text
    assert result.policy[0].layer == "builtin"


async def test_symlink_to_a_secret_is_refused(tool_env: ToolEnv):
    tool_env.write(".env", "TOKEN=hunter2\n")
    (tool_env.root / "innocent.txt").symlink_to(tool_env.root / ".env")
    result = await tool_env.call("read_file", path="innocent.txt")
    assert not result.ok and "hunter2" not in result.text and "`.env`" in result.text


async def test_read_notes_unsaved_editor_changes(make_tool_env: MakeToolEnv):
    env = make_tool_env(guard=UnsavedBuffers({"src/a.py"}))
    env.write("src/a.py", "on disk\n")
    result = await env.call("read_file", path="src/a.py")
    assert result.ok
    lines = result.text.splitlines()
    assert lines[0] == "[read src/a.py]"
    assert "unsaved changes" in lines[1] and "content on disk" in lines[1]
    assert lines[2] == "on disk"


async def test_ask_for_read_goes_to_the_approver(make_tool_env: MakeToolEnv):
    policy = Policy([Layer("workspace", (Rule(Act.READ, Effect.ASK, "private/*"),))])
    env = make_tool_env(policy=policy, approver=UnavailableApprover())
    env.write("private/notes.md", "x")
    result = await env.call("read_file", path="private/notes.md")
    assert not result.ok and "approval was not available" in result.text
    assert result.policy[0].effect is Effect.ASK


# -- write_file ------------------------------------------------------------------------------


async def test_write_new_file(tool_env: ToolEnv):
    result = await tool_env.call("write_file", path="pkg/new.py", content="print('hi')\n")
    assert result.ok
    assert result.text == "[wrote pkg/new.py] (12 chars)"
    (write,) = result.writes
    assert (write.path, write.before, write.after) == ("pkg/new.py", None, b"print('hi')\n")
    assert (tool_env.root / "pkg/new.py").read_text() == "print('hi')\n"


async def test_write_keeps_mode_and_leaves_no_temp_files(tool_env: ToolEnv):
    script = tool_env.write("run.sh", "#!/bin/sh\necho old\n")
    script.chmod(0o755)
    result = await tool_env.call("write_file", path="run.sh", content="#!/bin/sh\necho new\n")
    assert result.ok
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert result.writes[0].before == b"#!/bin/sh\necho old\n"
    assert sorted(p.name for p in tool_env.root.iterdir()) == ["run.sh"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param(".git/config", ".git/", id="git"),
        pytest.param("../x.txt", "leaves the workspace", id="dotdot"),
        pytest.param(
            ".env", "refused by policy: deny write `.env` (rule `.env`, layer builtin)", id="env"
        ),
        pytest.param("certs/x.pem", "layer builtin", id="pem"),
        pytest.param("adir", "is a directory", id="directory"),
    ],
)
async def test_write_refusals(tool_env: ToolEnv, path: str, message: str):
    (tool_env.root / ".git").mkdir()
    (tool_env.root / "adir").mkdir()
    result = await tool_env.call("write_file", path=path, content="x")
    assert not result.ok and message in result.text
    assert result.writes == ()
    assert not (tool_env.root / ".git" / "config").exists()


async def test_write_refuses_unsaved_editor_changes(make_tool_env: MakeToolEnv):
    env = make_tool_env(guard=UnsavedBuffers({"src/a.py"}))
    env.write("src/a.py", "disk\n")
    result = await env.call("write_file", path="src/a.py", content="agent\n")
    assert not result.ok
    assert (
        "`src/a.py` has unsaved changes in the editor; the agent does not overwrite them — "
        "save or discard them, then ask again"
    ) in result.text
    (event,) = result.events
    assert (event.kind, dict(event.detail)) == ("unsaved_refused", {"path": "src/a.py"})
    assert (env.root / "src/a.py").read_text() == "disk\n"


async def test_write_policy_ask_allowed_is_recorded(make_tool_env: MakeToolEnv):
    policy = Policy(defaults={Act.WRITE: Effect.ASK})
    env = make_tool_env(policy=policy)  # YesApprover
    result = await env.call("write_file", path="a.txt", content="x")
    assert result.ok
    assert result.policy[0].effect is Effect.ASK and result.policy[0].allowed


# -- edit_file -------------------------------------------------------------------------------


async def test_edit_replaces_exactly_once(tool_env: ToolEnv):
    tool_env.write("src/a.py", "def f():\n    return 1\n\ndef g():\n    return 2\n")
    result = await tool_env.call("edit_file", path="src/a.py", old="return 2", new="return 3")
    assert result.ok
    assert result.text.startswith("[edit src/a.py] replaced 1 line with 1 line at line 5")
    assert (tool_env.root / "src/a.py").read_text().endswith("return 3\n")
    (write,) = result.writes
    assert write.before is not None and b"return 2" in write.before and b"return 3" in write.after


@pytest.mark.parametrize(
    ("old", "message"),
    [
        pytest.param("return 9", "was not found", id="zero"),
        pytest.param("return", "occurs 2 times", id="two"),
        pytest.param("", "`old` is empty", id="empty"),
    ],
)
async def test_edit_not_unique(tool_env: ToolEnv, old: str, message: str):
    original = "def f():\n    return 1\n\ndef g():\n    return 2\n"
    tool_env.write("src/a.py", original)
    result = await tool_env.call("edit_file", path="src/a.py", old=old, new="x")
    assert not result.ok and message in result.text
    assert (tool_env.root / "src/a.py").read_text() == original
    if "not found" in message:
        assert "read the file and copy the exact text" in result.text
    if "times" in message:
        assert "include more surrounding lines so it is unique" in result.text


async def test_edit_crlf_file_with_lf_old(tool_env: ToolEnv):
    tool_env.write("win.txt", b"a\r\nb\r\nc\r\n")
    result = await tool_env.call("edit_file", path="win.txt", old="a\nb", new="a\nB")
    assert result.ok
    assert (tool_env.root / "win.txt").read_bytes() == b"a\r\nB\r\nc\r\n"


async def test_edit_refuses_unsaved_binary_missing_and_secrets(make_tool_env: MakeToolEnv):
    env = make_tool_env(guard=UnsavedBuffers({"open.py"}))
    env.write("open.py", "x = 1\n")
    env.write("blob.bin", b"\x00\x01x = 1")
    env.write(".env", "x = 1\n")
    unsaved = await env.call("edit_file", path="open.py", old="x", new="y")
    assert not unsaved.ok and unsaved.events[0].kind == "unsaved_refused"
    binary = await env.call("edit_file", path="blob.bin", old="x", new="y")
    assert not binary.ok and "binary" in binary.text
    missing = await env.call("edit_file", path="nope.py", old="x", new="y")
    assert not missing.ok and "does not exist" in missing.text
    secret = await env.call("edit_file", path=".env", old="x", new="y")
    assert not secret.ok and "layer builtin" in secret.text
    assert (env.root / ".env").read_text() == "x = 1\n"


async def test_edit_identical_is_not_a_write(tool_env: ToolEnv):
    tool_env.write("a.txt", "same\n")
    result = await tool_env.call("edit_file", path="a.txt", old="same", new="same")
    assert result.ok and result.writes == () and "no change" in result.text


async def test_edit_preserves_mode(tool_env: ToolEnv):
    path = tool_env.write("tool.sh", "echo a\n")
    path.chmod(0o700)
    result = await tool_env.call("edit_file", path="tool.sh", old="echo a", new="echo b")
    assert result.ok and stat.S_IMODE(path.stat().st_mode) == 0o700


async def test_nothing_outside_is_touched(tool_env: ToolEnv, tmp_path: Path):
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("SENTINEL")
    (tool_env.root / "out").symlink_to(tmp_path, target_is_directory=True)
    for name, args in [
        ("read_file", {"path": "out/sentinel.txt"}),
        ("write_file", {"path": "out/sentinel.txt", "content": "pwned"}),
        ("write_file", {"path": "out/new.txt", "content": "pwned"}),
        ("edit_file", {"path": "out/sentinel.txt", "old": "SENTINEL", "new": "pwned"}),
        ("write_file", {"path": "../sentinel.txt", "content": "pwned"}),
    ]:
        result = await tool_env.call(name, **args)
        assert not result.ok, name
        assert "SENTINEL" not in result.text.split("\n", 1)[1]
    assert sentinel.read_text() == "SENTINEL"
    assert not (tmp_path / "new.txt").exists()


# -- edit_file counts lines as an editor does (issue 12, item 5) ------------------------------


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        pytest.param(
            "a = 1\nb = 2\nc = 3\n", "", "removed 3 lines at line 2 (18 → 0 chars)", id="delete"
        ),
        pytest.param(
            "a = 1\nb = 2\nc = 3",
            "abc = 6",
            "replaced 3 lines with 1 line at line 2 (17 → 7 chars)",
            id="three-to-one",
        ),
        pytest.param(
            "a = 1\n",
            "a = 1\nz = 0\n",
            "replaced 1 line with 2 lines at line 2 (6 → 12 chars)",
            id="trailing-newline-is-not-a-line",
        ),
        pytest.param(
            "= 1", "= 10", "replaced 1 line with 1 line at line 2 (3 → 4 chars)", id="in-line"
        ),
    ],
)
async def test_edit_counts_lines_exactly(tool_env: ToolEnv, old: str, new: str, said: str):
    tool_env.write("m.py", "# head\na = 1\nb = 2\nc = 3\n# tail\n")
    result = await tool_env.call("edit_file", path="m.py", old=old, new=new)
    assert result.ok
    assert result.text == f"[edit m.py] {said}"


# -- intent before write (§5) -------------------------------------------------------------------


async def test_every_write_is_announced_before_the_disk_is_touched(tmp_path: Path):
    from tests.support.tool_env import WriteIntents, make_tool_env

    intents = WriteIntents()
    env = make_tool_env(tmp_path / "ws", before_write=intents)
    env.write("a.txt", "old\n")

    def on_disk_when_announced(rel: str, before: bytes | None, after: bytes) -> None:
        intents(rel, before, after)
        # Nothing written yet when the intent is recorded: not the file, not its directory.
        path = env.root / rel
        assert (path.read_bytes() if path.exists() else None) == before
        assert rel != "new/dir/b.txt" or not (env.root / "new").exists()

    env.ctx.before_write = on_disk_when_announced
    wrote = await env.call("write_file", path="new/dir/b.txt", content="b")
    edited = await env.call("edit_file", path="a.txt", old="old", new="new")
    assert wrote.ok and edited.ok
    assert intents.calls == [("new/dir/b.txt", None), ("a.txt", b"old\n")]


async def test_a_write_whose_intent_cannot_be_recorded_is_not_made(tmp_path: Path):
    from tests.support.tool_env import WriteIntents, make_tool_env

    intents = WriteIntents(fail=True)
    env = make_tool_env(tmp_path / "ws", before_write=intents)
    env.write("a.txt", "old\n")
    for name, args in [
        ("write_file", {"path": "a.txt", "content": "new"}),
        ("write_file", {"path": "fresh/c.txt", "content": "new"}),
        ("edit_file", {"path": "a.txt", "old": "old", "new": "new"}),
    ]:
        result = await env.call(name, **args)
        assert not result.ok and result.writes == ()
        assert (
            "the write was not made" in result.text
            and "OSError: the store is read-only" in result.text
        )
    assert (env.root / "a.txt").read_text() == "old\n"
    assert not (env.root / "fresh").exists()
    assert sorted(p.name for p in env.root.iterdir()) == ["a.txt"]  # no temp file left
    assert len(intents.calls) == 3


@pytest.mark.parametrize(
    "path", [".harness/policy.toml", ".HARNESS/policy.toml", "sub/.harness/x", "h/policy.toml"]
)
async def test_harness_dir_is_never_written(tool_env: ToolEnv, path: str):
    (tool_env.root / ".harness").mkdir()
    (tool_env.root / "h").symlink_to(".harness")
    result = await tool_env.call("write_file", path=path, content='[defaults]\nexec = "allow"\n')
    assert not result.ok and ".harness/" in result.text
    assert not (tool_env.root / ".harness" / "policy.toml").exists()
    assert not (tool_env.root / "sub").exists()
