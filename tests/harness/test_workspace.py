"""Workspace containment, ignore rules, walking and atomic writes, on real files."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import ConfigError, ContainmentError
from harness.types import content_hash
from harness.workspace import FULL_HASH_MAX_BYTES, NotRegularFileError, PathGlob, Workspace
from tests.support import hostile_paths


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Workspace, Path]:
    """``tmp/root`` is the workspace; ``tmp/outside`` holds a sentinel; symlinks point out."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src" / "a.py").write_text("print('a')\n")
    outside.mkdir()
    (outside / "secret.txt").write_text("SENTINEL\n")
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "link_dir").symlink_to(outside, target_is_directory=True)
    (root / "link_in").symlink_to(root / "src" / "a.py")
    (root / "git_cfg").symlink_to(root / ".git" / "config")
    return Workspace(root), outside


REFUSED = [
    pytest.param("../x", "leaves the workspace", id="dotdot"),
    pytest.param("/etc/passwd", "absolute path", id="absolute"),
    pytest.param("a/../../x", "leaves the workspace", id="dotdot-nested"),
    pytest.param("~/x", "`~`", id="tilde"),
    pytest.param("~", "`~`", id="tilde-alone"),
    pytest.param("src/\x00a.py", "NUL", id="nul-byte"),
    pytest.param("C:\\Windows", "absolute path", id="windows-drive"),
    pytest.param("\\\\server\\share", "absolute path", id="unc"),
    pytest.param("link_file", "symlink", id="symlink-file-outside"),
    pytest.param("link_dir/secret.txt", "symlink", id="symlink-dir-outside"),
    pytest.param("link_dir/new.txt", "symlink", id="new-file-under-symlinked-dir"),
    pytest.param("link_dir/deep/new/file.txt", "symlink", id="new-deep-under-symlinked-dir"),
]


@pytest.mark.parametrize(("rel", "why"), REFUSED)
@pytest.mark.parametrize("for_write", [False, True], ids=["read", "write"])
def test_resolve_refuses(layout: tuple[Workspace, Path], rel: str, why: str, for_write: bool):
    ws, _ = layout
    with pytest.raises(ContainmentError, match=why):
        ws.resolve(rel, for_write=for_write)


@pytest.mark.parametrize(
    "rel",
    [
        pytest.param(".git/config", id="git-config"),
        pytest.param(".git/hooks/pre-commit", id="git-new-file"),
        pytest.param("vendor/lib/.git/HEAD", id="nested-git"),
        pytest.param("git_cfg", id="symlink-into-git"),
        pytest.param(".GIT/config", id="git-case"),
    ],
)
def test_git_is_never_written(layout: tuple[Workspace, Path], rel: str):
    ws, _ = layout
    with pytest.raises(ContainmentError, match=r"\.git/"):
        ws.resolve(rel, for_write=True)


def test_git_may_be_read(layout: tuple[Workspace, Path]):
    ws, _ = layout
    assert ws.resolve(".git/config") == ws.root / ".git" / "config"


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        pytest.param("src/a.py", "src/a.py", id="plain"),
        pytest.param("./src/a.py", "src/a.py", id="dot-prefix"),
        pytest.param("src/../src/a.py", "src/a.py", id="dotdot-inside"),
        pytest.param("src//a.py", "src/a.py", id="double-slash"),
        pytest.param("src\\a.py", "src/a.py", id="backslash"),
        pytest.param("new/dir/file.txt", "new/dir/file.txt", id="new-file"),
        pytest.param("link_in", "src/a.py", id="symlink-inside-resolved"),
        pytest.param(".", ".", id="root"),
    ],
)
def test_resolve_inside(layout: tuple[Workspace, Path], rel: str, expected: str):
    ws, _ = layout
    path = ws.resolve(rel)
    assert path.is_relative_to(ws.root)
    assert ws.relative(path) == expected


def test_root_must_exist_and_be_a_directory(tmp_path: Path):
    with pytest.raises(ConfigError, match="does not exist"):
        Workspace(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="not a directory"):
        Workspace(tmp_path / "file")


def test_relative_outside_is_a_value_error(layout: tuple[Workspace, Path]):
    ws, outside = layout
    with pytest.raises(ValueError):
        ws.relative(outside / "secret.txt")


# -- hostile paths never leave the root ------------------------------------------------------

SEGMENTS = st.sampled_from(
    [
        *hostile_paths.SEGMENTS,
        "link_dir",
        "link_file",
        "link_in",
        "secret.txt",
        " ",
        "..\\..",
        "%2e%2e",
        ".harness",
        "git_cfg",
        "*",
    ]
)
HOSTILE = st.builds(
    lambda parts, sep, lead: lead + sep.join(parts),
    st.lists(SEGMENTS, min_size=1, max_size=6),
    st.sampled_from(["/", "\\", "//"]),
    st.sampled_from(["", "/", "./", "../", "~/"]),
)


def _snapshot(path: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@settings(
    max_examples=500, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rel=HOSTILE, for_write=st.booleans())
def test_hostile_paths_never_resolve_outside(
    layout: tuple[Workspace, Path], rel: str, for_write: bool
):
    ws, outside = layout
    before = _snapshot(outside)
    try:
        path = ws.resolve(rel, for_write=for_write)
    except (ContainmentError, NotADirectoryError):
        return  # refused, or a file used as a directory: nothing was touched
    assert path == ws.root or path.is_relative_to(ws.root)
    assert path.resolve() == path  # no symlink left to follow out
    if for_write:
        parts = [p.casefold() for p in ws.relative(path).split("/")]
        assert ".git" not in parts and ".harness" not in parts
        with contextlib.suppress(IsADirectoryError, NotADirectoryError, ContainmentError):
            ws.write_atomic(rel, b"written")
    assert _snapshot(outside) == before


# -- ignore rules and walking ----------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Workspace:
    files = {
        "README.md": "r",
        "a.txt": "a",
        "a/b.txt": "b",
        "src/main.py": "m",
        "src/gen/out.py": "generated",
        "build/x.o": "o",
        "logs/app.log": "l",
        "logs/keep.log": "k",
        ".git/HEAD": "ref",
        "node_modules/pkg/index.js": "js",
        ".venv/lib/site.py": "py",
        "pkg/node_modules/x.js": "js",
        "pkg/.gitignore": "*.tmp\n!important.tmp\n",
        "pkg/t.tmp": "t",
        "pkg/important.tmp": "i",
        "pkg/sub/u.tmp": "u",
        ".gitignore": "build/\n*.log\n!keep.log\n/src/gen/\n",
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Workspace(tmp_path)


def test_walk_files_applies_ignores_in_sorted_order(tree: Workspace):
    files = list(tree.walk_files())
    assert files == sorted(files)
    assert files == [
        ".gitignore",
        "README.md",
        "a.txt",
        "a/b.txt",
        "logs/keep.log",
        "pkg/.gitignore",
        "pkg/important.tmp",
        "src/main.py",
    ]


def test_walk_under_a_subdirectory(tree: Workspace):
    assert list(tree.walk_files("pkg")) == ["pkg/.gitignore", "pkg/important.tmp"]
    assert list(tree.walk_files("build")) == []
    with pytest.raises(ContainmentError):
        list(tree.walk_files(".."))


@pytest.mark.parametrize(
    ("rel", "is_dir", "ignored"),
    [
        pytest.param(".git", True, True, id="git-dir"),
        pytest.param(".git/HEAD", False, True, id="git-file"),
        pytest.param("node_modules/pkg/index.js", False, True, id="node-modules"),
        pytest.param("pkg/node_modules", True, True, id="nested-node-modules"),
        pytest.param(".venv", True, True, id="venv"),
        pytest.param("build", True, True, id="gitignore-dir"),
        pytest.param("build/x.o", False, True, id="under-ignored-dir"),
        pytest.param("build", False, False, id="dir-pattern-not-a-file"),
        pytest.param("logs/app.log", False, True, id="glob"),
        pytest.param("logs/keep.log", False, False, id="negation"),
        pytest.param("src/gen/out.py", False, True, id="anchored"),
        pytest.param("pkg/t.tmp", False, True, id="nested-gitignore"),
        pytest.param("pkg/sub/u.tmp", False, True, id="nested-gitignore-deeper"),
        pytest.param("pkg/important.tmp", False, False, id="nested-negation"),
        pytest.param("t.tmp", False, False, id="nested-rule-not-at-root"),
        pytest.param("src/main.py", False, False, id="plain"),
        pytest.param(".", True, False, id="root"),
    ],
)
def test_is_ignored(tree: Workspace, rel: str, is_dir: bool, ignored: bool):
    assert tree.is_ignored(rel, is_dir) is ignored


def test_gitignore_changes_are_picked_up(tree: Workspace):
    assert not tree.is_ignored("a.txt", False)
    gi = tree.root / ".gitignore"
    gi.write_text(gi.read_text() + "a.txt\n")
    assert tree.is_ignored("a.txt", False)


def test_walk_does_not_follow_symlinks_out(layout: tuple[Workspace, Path]):
    ws, _ = layout
    files = list(ws.walk_files())
    assert "link_file" not in files  # resolves outside
    assert not any(f.startswith("link_dir") for f in files)  # directory symlinks not followed
    assert "link_in" in files  # a file symlink inside the root is a file of the workspace
    assert not any(f.startswith(".git/") for f in files)


# -- globs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "rel", "dirs", "matches"),
    [
        pytest.param("*.py", "src/a/b.py", False, True, id="basename"),
        pytest.param("src/*.py", "src/a/b.py", False, True, id="star-crosses-slash"),
        pytest.param("src/*.py", "lib/a.py", False, False, id="other-dir"),
        pytest.param("test_*", "tests/test_x.py", False, True, id="basename-prefix"),
        pytest.param("a.py", "src/a.py", False, True, id="exact-basename"),
        pytest.param("src", "src/a.py", False, False, id="dir-name-without-dirs"),
        pytest.param("src", "src/a.py", True, True, id="dir-name-with-dirs"),
        pytest.param("src/", "src/a/b.py", True, True, id="dir-slash-with-dirs"),
        pytest.param(".", "x/y.py", True, True, id="dot-is-everything"),
        pytest.param("*.PY", "a.py", False, False, id="case-sensitive"),
    ],
)
def test_path_glob(pattern: str, rel: str, dirs: bool, matches: bool):
    assert PathGlob(pattern, dirs=dirs).matches(rel) is matches


# -- atomic writes ---------------------------------------------------------------------------


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def _temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if "harness-tmp" in p.name]


def test_write_atomic_keeps_mode_and_reports_before_after(layout: tuple[Workspace, Path]):
    ws, _ = layout
    script = ws.root / "run.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    written = ws.write_atomic("run.sh", b"new\n")
    assert written.path == "run.sh"
    assert (written.before, written.after) == (b"old\n", b"new\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert script.read_bytes() == b"new\n"
    assert _temp_files(ws.root) == []


def test_write_atomic_new_file_uses_umask_and_creates_parents(
    layout: tuple[Workspace, Path], umask_022: None
):
    ws, _ = layout
    written = ws.write_atomic("deep/new/dir/file.txt", b"hello")
    path = ws.root / "deep/new/dir/file.txt"
    assert written.before is None
    assert path.read_bytes() == b"hello"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert _temp_files(ws.root) == []


def test_write_atomic_through_inside_symlink_writes_the_target(layout: tuple[Workspace, Path]):
    ws, _ = layout
    written = ws.write_atomic("link_in", b"print('b')\n")
    assert written.path == "src/a.py"
    assert (ws.root / "link_in").is_symlink()
    assert (ws.root / "src/a.py").read_bytes() == b"print('b')\n"


def test_write_atomic_failure_leaves_no_temp_file(layout: tuple[Workspace, Path]):
    ws, _ = layout
    (ws.root / "adir").mkdir()
    with pytest.raises(IsADirectoryError):
        ws.write_atomic("adir", b"x")
    with pytest.raises(ContainmentError):
        ws.write_atomic(".git/config", b"x")
    assert _temp_files(ws.root) == []
    assert (ws.root / ".git" / "config").read_text() == "[core]\n"


def test_hash_of(layout: tuple[Workspace, Path]):
    ws, _ = layout
    assert ws.hash_of("src/a.py") == content_hash(b"print('a')\n")
    assert ws.hash_of("missing.py") is None
    assert ws.hash_of("src") is None
    assert ws.hash_of("../outside/secret.txt") is None
    assert ws.read_bytes("src/a.py") == b"print('a')\n"


# -- the race-free resolver, regular files only, hard links, intents ---------------------------


def test_a_symlink_inside_is_walked_hop_by_hop(layout: tuple[Workspace, Path]):
    ws, _ = layout
    (ws.root / "hop1").symlink_to("hop2")
    (ws.root / "hop2").symlink_to("src")
    (ws.root / "abs_in").symlink_to(ws.root / "src" / "a.py")
    assert ws.resolve("hop1/a.py") == ws.root / "src" / "a.py"
    assert ws.read_bytes("abs_in") == b"print('a')\n"
    with ws.open_file("hop1/a.py") as f:
        assert f.rel == "src/a.py"


@pytest.mark.parametrize(
    ("target", "why"),
    [
        pytest.param("..", "outside the workspace", id="dotdot"),
        pytest.param("../outside/secret.txt", "outside the workspace", id="dotdot-file"),
        pytest.param("src/../../outside", "outside the workspace", id="through-inside"),
        pytest.param("self", "too many levels", id="loop"),
    ],
)
def test_symlink_targets_that_escape_or_loop_are_refused(
    layout: tuple[Workspace, Path], target: str, why: str
):
    ws, _ = layout
    if target == "self":
        (ws.root / "self").symlink_to("self")
    (ws.root / "bad").symlink_to(target)
    for rel in ("bad", "bad/x"):
        with pytest.raises(ContainmentError, match=why):
            ws.open_file(rel)


def test_only_regular_files_are_opened(layout: tuple[Workspace, Path]):
    ws, _ = layout
    os.mkfifo(ws.root / "fifo")
    with pytest.raises(NotRegularFileError, match="FIFO"):
        ws.open_file("fifo")
    with pytest.raises(IsADirectoryError):
        ws.open_file("src")
    with pytest.raises(NotRegularFileError):
        ws.write_atomic("fifo", b"x")
    assert ws.hash_of("fifo") is None


def test_a_hard_link_is_judged_by_all_its_names(layout: tuple[Workspace, Path]):
    ws, outside = layout
    os.link(outside / "secret.txt", ws.root / "linked.txt")
    with pytest.raises(ContainmentError, match="hard link"):
        ws.open_file("linked.txt")
    with pytest.raises(ContainmentError, match="hard link"):
        ws.write_atomic("linked.txt", b"x")
    assert (outside / "secret.txt").read_text() == "SENTINEL\n"
    os.link(ws.root / "src" / "a.py", ws.root / "twin.py")
    assert ws.read_bytes("twin.py") == b"print('a')\n"
    # The outside name goes away: the verdict follows (the link count and ctime changed).
    (outside / "secret.txt").unlink()
    assert ws.read_bytes("linked.txt") == b"SENTINEL\n"


def test_write_atomic_announces_before_touching_the_disk(layout: tuple[Workspace, Path]):
    ws, _ = layout
    seen: list[tuple[str, bytes | None, bool]] = []

    def before_write(rel: str, before: bytes | None, after: bytes) -> None:
        seen.append((rel, before, (ws.root / "new").exists()))

    ws.write_atomic("new/deep/f.txt", b"1", before_write=before_write)
    ws.write_atomic("link_in", b"2", before_write=before_write)
    assert seen == [("new/deep/f.txt", None, False), ("src/a.py", b"print('a')\n", True)]

    def refuse(rel: str, before: bytes | None, after: bytes) -> None:
        raise RuntimeError("no store")

    with pytest.raises(RuntimeError):
        ws.write_atomic("other/g.txt", b"x", before_write=refuse)
    assert not (ws.root / "other").exists()


@pytest.mark.parametrize("rel", [".harness/policy.toml", "a/.Harness/x", "h/policy.toml"])
def test_harness_dir_is_never_written(layout: tuple[Workspace, Path], rel: str):
    ws, _ = layout
    (ws.root / ".harness").mkdir()
    (ws.root / "h").symlink_to(".harness")
    with pytest.raises(ContainmentError, match=r"\.harness/"):
        ws.write_atomic(rel, b"x")


def test_hash_of_a_huge_file_is_a_fingerprint_read_without_reading(
    layout: tuple[Workspace, Path],
):
    ws, _ = layout
    big = ws.root / "big.bin"
    with big.open("wb") as f:
        f.truncate(FULL_HASH_MAX_BYTES + 1)
    st = big.stat()
    assert ws.hash_of("big.bin") == (
        f"stat:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"
    )
