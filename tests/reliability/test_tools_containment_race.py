"""The standing suite, containment (issue 11, seen 4; SPEC §6.2): fuzzed tool calls against
racers, zero escapes.

Three racer threads run as fast as they can while ``CALLS`` calls — tool, path and detour
picked from a fixed seed — go through every path-taking tool (and ``Workspace.read_bytes``):

- ``d`` (a directory) and ``deep/e`` (one a level down) are swapped for symlinks to outside
  directories and back;
- ``notes.txt`` is swapped for a symlink to an outside file and back;
- ``h/link.txt`` comes and goes as a hard link to an outside file.

An escape is an outside byte or name in any answer (every outside file holds ``SENTINEL``
and so does one outside file name), or any change beside the root. There must be none; and
the racers must really have raced (swaps counted) and enough calls must have reached a file
inside, so the test is neither vacuous nor blind. ``HARNESS_SOAK=1`` runs ten times as many.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ContainmentError
from tests.support import figures
from tests.support.beside import everything_beside
from tests.support.tool_env import ToolEnv, make_tool_env

SOAK = os.environ.get("HARNESS_SOAK") == "1"
CALLS = 30_000 if SOAK else 3_000
BATCH = 6  # calls in flight at once: the tools' worker threads race each other too
SEED = 20_261_201
SENTINEL = "OUTSIDE-SENTINEL-7c41e9a2"


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    for rel in ("d/f.txt", "e/f.txt", "f.txt", "hard.txt", f"d/{SENTINEL}.txt"):
        (outside / rel).parent.mkdir(parents=True, exist_ok=True)
        (outside / rel).write_text(f"needle {SENTINEL}\n")
    return outside


def _swapper(real: Path, target: Path) -> Callable[[], None]:
    """One swap of ``real`` for a symlink to ``target`` and back (a write may have made
    ``real`` anew meanwhile, inside the root: it is dropped)."""
    link, parked = real.with_name(f".{real.name}-link"), real.with_name(f".{real.name}-parked")
    link.symlink_to(target, target_is_directory=target.is_dir())

    def swap() -> None:
        with contextlib.suppress(OSError):
            os.rename(real, parked)
            os.rename(link, real)  # real -> outside, for a moment
            os.rename(real, link)
            os.rename(parked, real)

    return swap


def _hard_linker(name: Path, outside_file: Path) -> Callable[[], None]:
    def flip() -> None:
        with contextlib.suppress(OSError):
            os.link(outside_file, name)
            os.unlink(name)

    return flip


def _race(moves: list[Callable[[], None]], stop: threading.Event, counts: list[int]) -> None:
    while not stop.is_set():
        for move in moves:
            move()
        counts[0] += 1


PATHS = [
    "d/f.txt", "d/./f.txt", "d/../d/f.txt", "d", "d/new.txt", "d/named.txt",
    "deep/e/f.txt", "deep/./e/f.txt", "deep/e", "deep/e/new.txt", "deep/e/../e/f.txt",
    "notes.txt", "./notes.txt", "h/link.txt", "h", ".", "deep",
]  # fmt: skip


def _call(rng: random.Random) -> tuple[str, dict[str, Any]]:
    path = rng.choice(PATHS)
    tool = rng.choice(["read_file"] * 4 + ["write_file"] * 2 + ["edit_file"] * 2 + ["list_dir"])
    if rng.random() < 0.12:
        tool = rng.choice(["grep", "find"])  # a subprocess each: fewer of them
    return tool, {
        "read_file": {"path": path},
        "write_file": {"path": path, "content": "inside, written\n"},
        "edit_file": {"path": path, "old": "needle", "new": "needle"},
        "list_dir": {"path": path},
        "grep": {"pattern": "needle", "path_glob": path if rng.random() < 0.5 else "**"},
        "find": {"name_glob": "*"},
    }[tool]


def _layout(tmp_path: Path) -> tuple[ToolEnv, Path]:
    outside = _outside(tmp_path)
    env = make_tool_env(tmp_path / "ws")
    for rel in ("d/f.txt", "deep/e/f.txt", "notes.txt", "h/keep.txt"):
        env.write(rel, "needle inside\n")
    return env, outside


@pytest.mark.timeout(1800 if SOAK else 600)
async def test_fuzzed_calls_against_racers_never_escape(tmp_path: Path) -> None:
    env, outside = _layout(tmp_path)
    root = env.root
    before = everything_beside(root)
    moves = [
        _swapper(root / "d", outside / "d"),
        _swapper(root / "deep" / "e", outside / "e"),
        _swapper(root / "notes.txt", outside / "f.txt"),
        _hard_linker(root / "h" / "link.txt", outside / "hard.txt"),
    ]
    stop, swaps = threading.Event(), [0]
    racers = [
        threading.Thread(target=_race, args=(moves[i::3], stop, swaps), daemon=True)
        for i in range(3)
    ]
    for racer in racers:
        racer.start()
    rng = random.Random(SEED)
    calls = reached = refused = 0
    escaped: list[tuple[tuple[str, dict[str, Any]], str]] = []  # each call that escaped
    try:
        while calls < CALLS:
            batch = [_call(rng) for _ in range(BATCH)]
            results = await asyncio.wait_for(
                asyncio.gather(*(env.call(tool, **args) for tool, args in batch)), 60
            )
            calls += len(results)
            escaped += [
                (c, r.text[:400]) for c, r in zip(batch, results, strict=True) if SENTINEL in r.text
            ]
            reached += sum(r.ok for r in results)
            refused += sum(any(e.layer == "containment" for e in r.policy) for r in results)
            path = rng.choice(PATHS)
            with contextlib.suppress(ContainmentError, OSError):
                if SENTINEL.encode() in env.workspace.read_bytes(path):
                    escaped.append((("read_bytes", {"path": path}), ""))
            calls += 1
    finally:
        stop.set()
        for racer in racers:
            racer.join(10)
    after = everything_beside(root)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    escapes = len(escaped) + len(changed)
    figures.record(
        "containment race (fuzzed tool calls, 3 racer threads)",
        calls=calls,
        racer_rounds=swaps[0],
        answered_inside=reached,
        refused_by_containment=refused,
        escapes=escapes,
    )
    print(f"containment: {calls} calls, {swaps[0]} racer rounds, {reached} ok, {refused} refused")
    assert not any(r.is_alive() for r in racers)
    assert calls >= CALLS and swaps[0] > 100, "the racers raced"
    assert changed == set(), f"changed beside the root: {sorted(changed)}"
    assert escaped == [], escaped[:3]
    assert reached > CALLS // 10 and refused > 0, "neither vacuous nor blind"
