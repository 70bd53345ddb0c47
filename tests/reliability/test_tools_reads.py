"""Bounded reads (issue 11, seen 3; §6.1): only regular files are opened for reading, the
size is known before a byte is read, ranged reads stream lines, and nothing a tool does can
block the event loop or leak a thread.
"""

from __future__ import annotations

import asyncio
import os
import resource
import threading
from pathlib import Path

import pytest

from tests.support import figures
from tests.support.tool_env import ToolEnv, make_tool_env

GIB = 1024**3


def _bytes_read() -> int:
    """``rchar`` of this process: every byte any thread got from read(2)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.fixture
def env(tmp_path: Path) -> ToolEnv:
    return make_tool_env(tmp_path / "ws", read_limit=4_000)


async def test_a_fifo_is_refused_at_once_and_leaks_no_thread(env: ToolEnv) -> None:
    os.mkfifo(env.root / "pipe")
    for _ in range(8):
        result = await asyncio.wait_for(env.call("read_file", path="pipe"), 10)
        figures.add("reads of hostile files", fifo_reads_refused=not result.ok)
        assert not result.ok
        assert "not a regular file" in result.text and "FIFO" in result.text
    for tool, args in [
        ("edit_file", {"path": "pipe", "old": "a", "new": "b"}),
        ("write_file", {"path": "pipe", "content": "x"}),
    ]:
        result = await asyncio.wait_for(env.call(tool, **args), 10)
        assert not result.ok and "not a regular file" in result.text
    # No worker thread is left blocked in open(): the default executor (at most
    # min(32, cores + 4) threads, fewer than the 10 reads above) still runs work at once.
    done = await asyncio.wait_for(
        asyncio.gather(*(asyncio.to_thread(threading.get_ident) for _ in range(8))), 10
    )
    assert len(done) == 8


async def test_a_device_is_refused(env: ToolEnv) -> None:
    (env.root / "zero").symlink_to("/dev/zero")  # outside anyway; and a device node:
    result = await env.call("read_file", path="zero")
    assert not result.ok and "outside the workspace" in result.text


def _sparse(path: Path, head: bytes, size: int) -> None:
    with path.open("wb") as f:
        f.write(head)
        f.truncate(size)


async def test_a_ranged_read_of_a_2_gb_file_reads_only_what_it_shows(env: ToolEnv) -> None:
    head = b"".join(b"line %d of a big text file\n" % i for i in range(1, 2001))
    _sparse(env.root / "big.log", head, 2 * GIB)
    before_io = _bytes_read()
    before_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = await env.call("read_file", path="big.log", offset=81, limit=20)
    assert result.ok, result.text
    assert result.text.splitlines()[0] == "[read big.log:81-100]"
    assert result.text.splitlines()[1] == "line 81 of a big text file"
    read_mib = (_bytes_read() - before_io) / 2**20
    figures.record("reads of hostile files", ranged_read_of_2_gib_file_read_mib=round(read_mib, 2))
    assert _bytes_read() - before_io < 8 * 1024 * 1024
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_rss
    assert grown_kib < 64 * 1024


async def test_a_whole_read_of_a_2_gb_file_is_partial_by_size_before_reading(
    env: ToolEnv,
) -> None:
    head = b"".join(b"row %d\n" % i for i in range(1, 5001))
    _sparse(env.root / "big.log", head, 2 * GIB)
    before_io = _bytes_read()
    result = await env.call("read_file", path="big.log")
    assert result.ok
    last = result.text.splitlines()[-1]
    assert (
        last.startswith("…[lines 1–") and "of a 2.0 GiB file shown; read_file with offset=" in last
    )
    assert _bytes_read() - before_io < 8 * 1024 * 1024
    assert result.read is not None and result.read.offset == 1


async def test_the_event_loop_keeps_ticking_while_tools_hit_hostile_inputs(
    env: ToolEnv,
) -> None:
    """A heartbeat on the same loop records the largest gap between its ticks while grep
    runs a pathological pattern over a big file and read_file meets a FIFO. (The old engine
    ran Python's ``re`` in a worker thread; it holds the GIL, so the loop stalled for as
    long as the backtracking took.) The bound is structural, not a number of milliseconds
    chosen for this machine: at least 20 ticks happened, and no gap is longer than half of
    the whole elapsed time (or 0.5 s, whichever is larger)."""
    env.write("evil.txt", ("a" * 40 + "b\n") * 20_000)
    os.mkfifo(env.root / "pipe")
    loop = asyncio.get_running_loop()
    gaps: list[float] = []
    stop = asyncio.Event()

    async def heartbeat() -> None:
        last = loop.time()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = loop.time()
            gaps.append(now - last)
            last = now

    beat = asyncio.create_task(heartbeat())
    started = loop.time()
    grep, read = await asyncio.wait_for(
        asyncio.gather(env.call("grep", pattern="(a+)+$"), env.call("read_file", path="pipe")),
        60,
    )
    for _ in range(20):
        await asyncio.sleep(0.005)
    stop.set()
    await beat
    elapsed = loop.time() - started
    assert grep.ok and "no matches" in grep.text
    assert not read.ok
    assert len(gaps) >= 20
    assert max(gaps) < max(0.5, elapsed / 2)
