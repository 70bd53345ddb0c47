"""The workspace watcher on a real directory: changes reported, ignored paths filtered."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from pathlib import Path

from harness.workspace.watch import Watcher


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Until ``predicate()``; the test fails if it does not come true within ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"the watcher did not report it within {timeout} s"
        await asyncio.sleep(0.01)


async def test_changes_are_reported_and_ignored_paths_are_not(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for d in ("src", ".git", "node_modules/pkg", ".venv/lib", "build", "__pycache__"):
        (root / d).mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.log\n")
    store = root / "harness.db"
    seen: list[Path] = []
    watcher = Watcher(root, seen.extend, ignore=[store])
    await watcher.start()
    assert watcher.ready
    for noise in (
        ".git/index",
        "node_modules/pkg/a.js",
        ".venv/lib/x.py",
        "build/out.o",
        "x.log",
        "__pycache__/m.pyc",
        "harness.db",
        "harness.db-wal",
    ):
        (root / noise).write_text("noise")
    (root / "src" / "a.py").write_text("print(1)\n")
    await wait_for(lambda: any(p.name == "a.py" for p in seen))
    # Events arrive in order: once a change made after a.py is reported, anything the noise
    # could have caused would have been reported too.
    (root / "src" / "b.py").write_text("print(2)\n")
    await wait_for(lambda: any(p.name == "b.py" for p in seen))
    await watcher.stop()
    names = {p.relative_to(root.resolve()).as_posix() for p in seen}
    assert names == {"src/a.py", "src/b.py"}


async def test_a_change_made_by_another_program_is_seen(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text("B = 1\n")
    seen: list[Path] = []
    watcher = Watcher(tmp_path, seen.extend)
    await watcher.start()
    subprocess.run(["sh", "-c", "echo 'B = 2' > b.py"], cwd=tmp_path, check=True)
    await wait_for(lambda: bool(seen))
    await watcher.stop()
    assert [p.name for p in seen] == ["b.py"]


async def test_a_failing_callback_does_not_stop_the_watch(tmp_path: Path) -> None:
    calls: list[list[Path]] = []

    def flaky(paths: list[Path]) -> None:
        calls.append(paths)
        if len(calls) == 1:
            raise RuntimeError("bug in a callback")

    watcher = Watcher(tmp_path, flaky)
    await watcher.start()
    (tmp_path / "one.txt").write_text("1")
    await wait_for(lambda: len(calls) >= 1)  # the first callback ran, and raised
    (tmp_path / "two.txt").write_text("2")
    await wait_for(lambda: any(p.name == "two.txt" for c in calls for p in c))
    await watcher.stop()
    assert any(p.name == "two.txt" for c in calls for p in c)
