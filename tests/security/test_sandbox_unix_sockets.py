"""Issue 20, item 7 (the sandbox part): ``[exec] network = false`` still reached the host's
Unix sockets — a daemon listening in ``/var/tmp`` wrote outside the workspace for the
command, and D-Bus answered. ``--unshare-net`` closes the network, not the file system's
sockets, and a read-only bind mount does not stop ``connect()`` to a socket file.

A real daemon listens outside the workspace, on a stream socket and on a datagram socket;
whoever reaches it makes it write a sentinel file. The command tries every way there: a
stream ``connect()``, a datagram ``sendto()``, and ``sendto()`` from one end of an unnamed
datagram ``socketpair`` (which needs no ``socket()`` call). With the network on, the daemon
is reached: that is the documented behaviour (§6.6), the control.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.types import ExecConfig, SandboxMode
from tests.support.sandbox_check import outside_dir, require_sandbox, stream
from tests.support.tool_env import ToolEnv, make_tool_env


@dataclass
class Daemon:
    """A stream and a datagram Unix socket in a directory outside the workspace; every
    connection or datagram appends a line to ``sentinel`` (written by the daemon, outside)."""

    home: Path

    def __post_init__(self) -> None:
        self.stream_path = self.home / "daemon.sock"
        self.dgram_path = self.home / "daemon.dgram"
        self.sentinel = self.home / "reached.txt"
        self.marked = threading.Event()
        self._closing = threading.Event()
        self._stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._stream.bind(str(self.stream_path))
        self._stream.listen()
        self._dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._dgram.bind(str(self.dgram_path))
        self._threads = [
            threading.Thread(target=self._accept, daemon=True),
            threading.Thread(target=self._receive, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _mark(self, how: str) -> None:
        with self.sentinel.open("a") as f:
            f.write(how + "\n")
        self.marked.set()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._stream.accept()
            except OSError:
                return
            if self._closing.is_set():
                conn.close()
                return
            self._mark("stream")
            conn.sendall(b"hello from outside\n")
            conn.close()

    def _receive(self) -> None:
        while True:
            try:
                self._dgram.recv(1024)
            except OSError:
                return
            if self._closing.is_set():
                return
            self._mark("datagram")

    def close(self) -> None:
        """Wake both threads (closing a socket does not interrupt a blocked accept or recv),
        let them return without marking, then close: no thread outlives the directory."""
        self._closing.set()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as waker:
            waker.connect(str(self.stream_path))
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as waker:
            waker.sendto(b"stop", str(self.dgram_path))
        for thread in self._threads:
            thread.join()
        self._stream.close()
        self._dgram.close()

    def reached(self) -> list[str]:
        return self.sentinel.read_text().split() if self.sentinel.exists() else []


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with outside_dir("harness-daemon-") as home:
        found = Daemon(home)
        try:
            yield found
        finally:
            found.close()


PROBES = {
    "stream": "s = socket.socket(socket.AF_UNIX); s.connect(STREAM); print(s.recv(64))",
    "datagram": "socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'x', DGRAM)",
    "socketpair": (
        "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b'x', DGRAM)"
    ),
    # The raw system call with the family's upper 32 bits set: the kernel reads an int
    # (AF_UNIX), a 64-bit comparison would not.
    "high-bits": (
        "import ctypes, os, platform; libc = ctypes.CDLL(None, use_errno=True)\n"
        "    nr = {'x86_64': 41, 'aarch64': 198}[platform.machine()]\n"
        "    fd = libc.syscall(nr, ctypes.c_long((1 << 32) | socket.AF_UNIX), 1, 0)\n"
        "    if fd < 0: raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))\n"
        "    s = socket.socket(fileno=fd); s.connect(STREAM); print(s.recv(64))"
    ),
}


def probe_script(daemon: Daemon, how: str) -> str:
    return (
        f"import socket\nSTREAM, DGRAM = {str(daemon.stream_path)!r}, {str(daemon.dgram_path)!r}\n"
        f"try:\n    {PROBES[how]}\n    print('REACHED')\n"
        "except OSError as e:\n    print('REFUSED', e)\n"
    )


def boxed(tmp_path: Path, network: bool) -> ToolEnv:
    config = ExecConfig(sandbox=SandboxMode.REQUIRED, network=network)
    return make_tool_env(tmp_path / "ws", exec_config=config)


@pytest.mark.parametrize("how", list(PROBES))
async def test_network_off_reaches_no_host_unix_socket(
    tmp_path: Path, daemon: Daemon, how: str
) -> None:
    require_sandbox(network=False)
    env = boxed(tmp_path, network=False)
    result = await env.call("exec", argv=[sys.executable, "-c", probe_script(daemon, how)])
    out = stream(result.text)
    assert "REFUSED" in out and "REACHED" not in out, result.text
    assert "Operation not permitted" in out, result.text
    assert daemon.reached() == []


@pytest.mark.parametrize("how", ["stream", "datagram"])
async def test_network_on_reaches_them_as_documented(
    tmp_path: Path, daemon: Daemon, how: str
) -> None:
    require_sandbox(network=True)
    env = boxed(tmp_path, network=True)
    result = await env.call("exec", argv=[sys.executable, "-c", probe_script(daemon, how)])
    assert "REACHED" in stream(result.text), result.text
    if how == "stream":
        assert "hello from outside" in stream(result.text)
    assert await asyncio.to_thread(daemon.marked.wait, 10)
    assert daemon.reached() == [how]


async def test_network_off_keeps_what_reaches_only_itself(tmp_path: Path) -> None:
    """asyncio's self-pipe and multiprocessing's pipes are stream socketpairs: they still work."""
    require_sandbox(network=False)
    env = boxed(tmp_path, network=False)
    script = (
        "import asyncio, multiprocessing, socket\n"
        "asyncio.run(asyncio.sleep(0))\n"
        "a, b = multiprocessing.Pipe(); a.send('ping'); print(b.recv())\n"
        "s, t = socket.socketpair(); s.sendall(b'pong'); print(t.recv(4).decode())\n"
    )
    result = await env.call("exec", argv=[sys.executable, "-c", script])
    assert result.ok and result.exit_code == 0, result.text
    assert stream(result.text).split() == ["ping", "pong"]
