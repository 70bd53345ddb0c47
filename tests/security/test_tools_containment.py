"""Attack: leave the workspace root through a path (issue 11, seen 4; issue 9; SPEC §6.2).

1. A racer thread swaps a directory for a symlink to an outside directory and back while
   thousands of read and write calls run: no outside byte is read, none is written.
2. Generated hostile paths — 500 per path-taking tool, from a fixed seed: half random
   segments, half real targets (inside, outside, protected) in disguise — are refused or
   stay inside; nothing beside the root (not only ``outside/``), nor ``.git/`` and
   ``.harness/``, changes; and enough of them reach a file inside, or are refused by
   containment, that the test is neither vacuous nor blind. (The workspace's own
   hypothesis test is ``tests/harness/test_workspace.py::test_hostile_paths_never_resolve_outside``.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import threading
from pathlib import Path

import pytest

from harness.errors import ContainmentError
from tests.support.beside import everything_beside
from tests.support.tool_env import ToolEnv, make_tool_env

SENTINEL = "OUTSIDE-SENTINEL-5d1c0b9e"
SEED = 20_260_601
PATHS_PER_TOOL = 500


def _snapshot(path: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture
def layout(tmp_path: Path) -> tuple[ToolEnv, Path]:
    outside = tmp_path / "outside"
    (outside / "d").mkdir(parents=True)
    (outside / "f.txt").write_text(f"{SENTINEL}\n")
    (outside / "d" / "f.txt").write_text(f"{SENTINEL}\n")
    (outside / "hard.txt").write_text(f"{SENTINEL}\n")
    env = make_tool_env(tmp_path / "ws")
    root = env.root
    env.write("src/a.py", "inside = 1\n")
    env.write("d/f.txt", "inside\n")
    env.write(".git/config", "[core]\n")
    env.write(".harness/policy.toml", "[defaults]\n")
    (root / "link_dir").symlink_to(outside, target_is_directory=True)
    (root / "link_file").symlink_to(outside / "f.txt")
    (root / "link_in").symlink_to("src/a.py")
    (root / "up").symlink_to("..")
    (root / "loop").symlink_to("loop")
    (root / "chain").symlink_to("link_dir")
    (root / "rel_out").symlink_to("../outside/f.txt")
    os.link(outside / "hard.txt", root / "hard.txt")
    return env, outside


# -- 1. the race ------------------------------------------------------------------------------


def _move(src: Path, dst: Path) -> None:
    """rename, dropping a ``dst`` that a write made anew (inside the root) meanwhile."""
    while True:
        try:
            os.rename(src, dst)
            return
        except OSError:
            shutil.rmtree(dst, ignore_errors=True)


def _racer(root: Path, outside: Path, stop: threading.Event, swaps: list[int]) -> None:
    """Swap ``root/d`` (a real directory) for a symlink to ``outside/d`` and back, forever."""
    real, parked, link = root / "d", root / ".d-parked", root / ".d-link"
    with contextlib.suppress(FileExistsError):
        link.symlink_to(outside / "d", target_is_directory=True)
    while not stop.is_set():
        _move(real, parked)
        _move(link, real)  # now root/d -> outside/d
        os.rename(real, link)
        _move(parked, real)  # back to the real directory
        swaps[0] += 1


async def test_a_racing_symlink_swap_never_escapes(layout: tuple[ToolEnv, Path]) -> None:
    env, outside = layout
    before = _snapshot(outside)
    stop, swaps = threading.Event(), [0]
    racer = threading.Thread(target=_racer, args=(env.root, outside, stop, swaps), daemon=True)
    racer.start()
    calls = escapes = 0
    try:
        for i in range(1_000):
            results = await asyncio.gather(
                env.call("read_file", path="d/f.txt"),
                env.call("write_file", path="d/f.txt", content=f"inside {i}\n"),
                env.call("write_file", path="d/new.txt", content="new\n"),
                env.call("edit_file", path="d/f.txt", old="inside", new="inside"),
            )
            calls += len(results)
            escapes += sum(SENTINEL in r.text for r in results)
            with contextlib.suppress(ContainmentError, OSError):
                data = env.workspace.read_bytes("d/f.txt")
                escapes += SENTINEL.encode() in data
            calls += 1
    finally:
        stop.set()
        racer.join(10)
    assert not racer.is_alive()
    assert calls >= 3_000 and swaps[0] > 100
    assert escapes == 0
    assert _snapshot(outside) == before
    assert not (outside / "d" / "new.txt").exists()


# -- 2. generated hostile paths -----------------------------------------------------------------

SEGMENTS = [
    "..", ".", "", "src", "a.py", "d", "f.txt", "link_dir", "link_file", "link_in", "up",
    "loop", "chain", "rel_out", "hard.txt", ".git", ".GIT", ".harness", "config",
    "policy.toml", "~", "new", "C:", "\x00", " ", "..\\..", "%2e%2e", "*", "**", "?", "[",
    "outside", "f.txt/..", "\n", "..."
]  # fmt: skip
LEADS = ["", "", "", "/", "./", "../", "~/", "\\", "//", "up/", "link_dir/"]
SEPARATORS = ["/", "/", "/", "\\", "//", "/./"]


# Disguised paths: a real target (inside, outside, or protected), spelt the way an attacker
# would, so that as many reach a file as are refused — a generator that only produces
# nonsense proves nothing about the paths that nearly work.
TARGETS = [
    "src/a.py", "d/f.txt", "link_in", "d", "src", ".",  # inside
    "link_file", "rel_out", "link_dir/f.txt", "link_dir/d/f.txt", "up/outside/f.txt",
    "chain/f.txt", "up/ws/../outside/d/f.txt", "hard.txt", "loop",  # outside
    ".git/config", ".harness/policy.toml", ".git/new", ".harness/new.toml",  # protected
]  # fmt: skip
DETOURS = ["./", ".//", "src/../", "d/../", "d/./../", "link_in/../", "up/ws/", "new/../"]


def _disguised(rng: random.Random) -> str:
    parts = rng.choice(TARGETS).split("/")
    out = []
    for part in parts:
        if rng.random() < 0.4:
            out.append(rng.choice(DETOURS).rstrip("/"))
        out.append(part.upper() if rng.random() < 0.05 else part)
    path = rng.choice(["/", "//", "/./"]).join(p for p in out if p)
    return path + rng.choice(["", "", "", "/", "/.", "//"])


def hostile_paths(tool: str, n: int = PATHS_PER_TOOL) -> list[str]:
    """``n`` paths from a fixed seed: half random segments, half disguised real targets."""
    rng = random.Random(f"{SEED}-{tool}")
    paths = []
    for i in range(n):
        if i % 2:
            paths.append(_disguised(rng))
            continue
        parts = [rng.choice(SEGMENTS) for _ in range(rng.randint(1, 6))]
        paths.append(rng.choice(LEADS) + rng.choice(SEPARATORS).join(parts))
    return paths


def _arguments(tool: str, path: str) -> dict[str, str]:
    return {
        "read_file": {"path": path},
        "write_file": {"path": path, "content": "written by a hostile path\n"},
        "edit_file": {"path": path, "old": SENTINEL, "new": "edited"},
        "list_dir": {"path": path},
        "grep": {"pattern": "SENTINEL|inside", "path_glob": path},
        "find": {"name_glob": path},
    }[tool]


@pytest.mark.parametrize(
    "tool", ["read_file", "write_file", "edit_file", "list_dir", "grep", "find"]
)
async def test_hostile_paths_are_refused_or_stay_inside(
    layout: tuple[ToolEnv, Path], tool: str
) -> None:
    env, outside = layout
    before = everything_beside(env.root)
    assert str(outside / "f.txt") in before
    protected = {p: _snapshot(env.root / p) for p in (".git", ".harness")}
    paths = hostile_paths(tool)
    assert len(paths) == PATHS_PER_TOOL and len(set(paths)) > 0.8 * PATHS_PER_TOOL
    answered, contained = 0, 0
    for path in paths:
        result = await env.call(tool, **_arguments(tool, path))
        assert SENTINEL not in result.text, (tool, path)
        answered += result.ok or "was not found in" in result.text
        contained += any(e.layer == "containment" for e in result.policy)
        for write in result.writes:
            real = env.root / write.path
            assert real.resolve().is_relative_to(env.root), (tool, path, write.path)
            assert not write.path.startswith((".git", ".harness")), (tool, path)
        if result.read is not None:
            assert (env.root / result.read.path).resolve().is_relative_to(env.root)
    assert everything_beside(env.root) == before
    assert {p: _snapshot(env.root / p) for p in (".git", ".harness")} == protected
    # Neither vacuous nor blind: some paths reached a file inside, some were refused.
    assert answered >= 10, (tool, answered)
    if tool != "find":  # a name glob is matched, never resolved
        assert contained >= 50, (tool, contained)
