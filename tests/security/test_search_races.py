"""Searches against a directory swapped for a symlink to outside (§6.2). Seen in CI: the
fuzzed containment race (tests/reliability) found one escape in 3,003 calls — ripgrep walks
by path, so while ``d`` was a symlink it listed ``d/OUTSIDE-SENTINEL….txt`` from the outside
directory; ``find`` admitted the name with a path ``lstat`` (which follows ``d``) and showed
it, and ``grep`` quoted rg's error naming it."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

from harness.tools.ripgrep import failure_text
from harness.workspace.dirfds import DirFds
from tests.support.tool_env import make_tool_env

SENTINEL = "OUTSIDE-SENTINEL-5be1"
ROUNDS = 250


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / "d"
    outside.mkdir(parents=True)
    (outside / f"{SENTINEL}.txt").write_text(f"needle {SENTINEL}\n")
    return outside


def test_a_name_under_a_symlinked_directory_is_not_there(tmp_path: Path) -> None:
    """The deterministic half: the lstat a search admits names with never follows a
    directory symlink, where ``os.lstat`` on the joined path does."""
    outside = _outside(tmp_path)
    root = tmp_path / "ws"
    (root / "real").mkdir(parents=True)
    (root / "real" / "f.txt").write_text("inside\n")
    (root / "d").symlink_to(outside, target_is_directory=True)
    name = f"d/{SENTINEL}.txt"
    assert os.lstat(root / name).st_size > 0  # what the path-based lstat did
    with DirFds(root) as dirs:
        assert dirs.lstat(name) is None
        assert dirs.lstat("d") is not None  # the symlink itself is an entry of the root
        st = dirs.lstat("real/f.txt")
        assert st is not None and st.st_size == len("inside\n")
        assert dirs.lstat("real/../d/x") is None and dirs.lstat("missing/f.txt") is None


def test_rgs_errors_never_name_a_path(tmp_path: Path) -> None:
    text = failure_text(f"rg: d/{SENTINEL}.txt: No such file or directory (os error 2)\n")
    assert text is not None and SENTINEL not in text
    assert "No such file or directory (os error 2)" in text


async def test_searches_racing_a_swapped_directory_never_name_outside(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    env = make_tool_env(tmp_path / "ws")
    for i in range(20):
        env.write(f"d/f{i}.txt", "needle inside\n")
    real, link, parked = (env.root / n for n in ("d", ".d-link", ".d-parked"))
    link.symlink_to(outside, target_is_directory=True)
    stop, swaps = threading.Event(), [0]

    def race() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                os.rename(real, parked)
                os.rename(link, real)
                os.rename(real, link)
                os.rename(parked, real)
            swaps[0] += 1

    racer = threading.Thread(target=race, daemon=True)
    racer.start()
    seen: list[str] = []
    answered = 0
    try:
        for _ in range(ROUNDS):
            for tool, args in (("find", {"name_glob": "*"}), ("grep", {"pattern": "needle"})):
                result = await env.call(tool, **args)
                answered += "d/f" in result.text
                if SENTINEL in result.text:
                    seen.append(result.text)
    finally:
        stop.set()
        racer.join(10)
    assert swaps[0] > ROUNDS and answered > ROUNDS // 4, "the racer raced and files were found"
    assert seen == [], seen[:2]
