"""Sweep: grep, find and list_dir against a racer (issue 9, Build: "Secrets layer … applied to
a symlink's target and by every tool"; SPEC §6.2: "the check cannot be raced").

``test_tools_containment`` races the file tools. Here a racer thread keeps swapping, as fast
as it can, a directory for a symlink to an outside directory and a file for a symlink to an
outside file and to the workspace's ``.env`` — while grep, find and list_dir run again and
again over them. ripgrep follows a symlink given to it by name, so a file swapped between
the check and ripgrep's open would be searched. No line of the outside files or the secret
may ever be shown, and nothing outside changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from pathlib import Path

import pytest

from tests.support.tool_env import ToolEnv, make_tool_env

SENTINEL = "OUTSIDE-SENTINEL-3e8d1f0a"
SECRET = "SECRET-SENTINEL-9a7c5b2e"
ROUNDS = 400


@pytest.fixture
def layout(tmp_path: Path) -> tuple[ToolEnv, Path]:
    outside = tmp_path / "outside"
    (outside / "d").mkdir(parents=True)
    for name in ("d/f.txt", "f.txt"):
        (outside / name).write_text(f"needle {SENTINEL}\n")
    env = make_tool_env(tmp_path / "ws")
    env.write("d/f.txt", "needle inside\n")
    env.write("notes.txt", "needle inside\n")
    env.write(".env", f"needle {SECRET}\n")
    return env, outside


def _swap(real: Path, link: Path, parked: Path) -> None:
    """``real`` becomes the symlink ``link`` points with, then the real entry again."""
    os.rename(real, parked)
    os.rename(link, real)
    os.rename(real, link)
    os.rename(parked, real)


def _racer(root: Path, outside: Path, stop: threading.Event, swaps: list[int]) -> None:
    links = {
        root / "d": (root / ".d-link", outside / "d"),
        root / "notes.txt": (root / ".n-link", outside / "f.txt"),
    }
    secret_link = root / ".s-link"
    for link, target in links.values():
        link.symlink_to(target)
    secret_link.symlink_to(".env")
    while not stop.is_set():
        for real, (link, _) in links.items():
            with contextlib.suppress(OSError):
                _swap(real, link, root / f".parked-{real.name}")
        with contextlib.suppress(OSError):
            _swap(root / "notes.txt", secret_link, root / ".parked-secret")
        swaps[0] += 1


def _snapshot(path: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


async def test_a_racing_swap_never_shows_an_outside_or_secret_line(
    layout: tuple[ToolEnv, Path],
) -> None:
    env, outside = layout
    before = _snapshot(outside)
    stop, swaps = threading.Event(), [0]
    racer = threading.Thread(target=_racer, args=(env.root, outside, stop, swaps), daemon=True)
    racer.start()
    shown: list[str] = []
    seen_inside = 0
    try:
        for _ in range(ROUNDS):
            results = await asyncio.gather(
                env.call("grep", pattern="needle"),
                env.call("grep", pattern="needle", path_glob="d"),
                env.call("grep", pattern="needle", path_glob="*.txt"),
                env.call("find", name_glob="*.txt"),
                env.call("list_dir", path="d"),
            )
            for result in results:
                shown.append(result.text)
                seen_inside += "needle inside" in result.text
    finally:
        stop.set()
        racer.join(10)
    assert not racer.is_alive() and swaps[0] > 100
    assert seen_inside > ROUNDS, "the searches really found the inside files meanwhile"
    leaked = [t for t in shown if SENTINEL in t or SECRET in t]
    assert leaked == [], f"{len(leaked)} results showed a line they may not: {leaked[0]!r}"
    assert _snapshot(outside) == before
