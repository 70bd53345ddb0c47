"""Attack: ``[exec] network = false`` let a command make, bind and listen on ``AF_VSOCK``
sockets (issue 30, item 11) — the hypervisor's and other VMs' channel, which no network
namespace closes. The seccomp filter now refuses every socket family but ``AF_INET`` and
``AF_INET6`` (the sandbox's own namespace: loopback only) and netlink's route protocol.

Real ``bwrap`` runs the probes (a raw ``socket()`` system call, so that Python's own checks
do not answer first); each must fail with ``EPERM`` — the filter's answer, not the kernel's
"family not supported". What a command needs still works.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.types import ExecConfig, SandboxMode
from tests.support.sandbox_check import require_sandbox, stream
from tests.support.tool_env import ToolEnv, make_tool_env

# family, type, protocol (AF_NETLINK 16 with NETLINK_KOBJECT_UEVENT 15: the host's uevents)
REFUSED = {
    "vsock": (40, 1, 0),
    "packet": (17, 3, 0),
    "bluetooth": (31, 1, 0),
    "can": (29, 3, 1),
    "xdp": (44, 3, 0),
    "netlink-uevent": (16, 2, 15),
    "netlink-audit": (16, 3, 9),
    "unknown-family-63": (63, 1, 0),
    "unknown-family-4096": (4096, 1, 0),
}

RAW = (
    "import ctypes, os, platform\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "nr = {'x86_64': 41, 'aarch64': 198}[platform.machine()]\n"
    "fd = libc.syscall(nr, %d, %d, %d)\n"
    "print('MADE' if fd >= 0 else 'REFUSED ' + os.strerror(ctypes.get_errno()))\n"
)


def boxed(tmp_path: Path) -> ToolEnv:
    config = ExecConfig(sandbox=SandboxMode.REQUIRED, network=False)
    return make_tool_env(tmp_path / "ws", exec_config=config)


@pytest.mark.parametrize("name", list(REFUSED))
async def test_network_off_refuses_the_other_socket_families(tmp_path: Path, name: str) -> None:
    require_sandbox(network=False)
    result = await boxed(tmp_path).call("exec", argv=[sys.executable, "-c", RAW % REFUSED[name]])
    out = stream(result.text)
    assert "REFUSED Operation not permitted" in out and "MADE" not in out, result.text


async def test_vsock_cannot_be_bound_or_listened_on(tmp_path: Path) -> None:
    require_sandbox(network=False)
    script = (
        "import socket\n"
        "try:\n"
        "    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)\n"
        "    s.bind((socket.VMADDR_CID_ANY, 5000)); s.listen(); print('LISTENING')\n"
        "except OSError as e:\n"
        "    print('REFUSED', e)\n"
    )
    result = await boxed(tmp_path).call("exec", argv=[sys.executable, "-c", script])
    out = stream(result.text)
    assert "REFUSED" in out and "LISTENING" not in out, result.text
    assert "Operation not permitted" in out, result.text


async def test_what_a_command_needs_still_works(tmp_path: Path) -> None:
    """Loopback TCP and UDP (IPv4 and IPv6 sockets), netlink route (getaddrinfo), stream pairs."""
    require_sandbox(network=False)
    script = (
        "import socket\n"
        "srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()\n"
        "c = socket.create_connection(srv.getsockname()); a, _ = srv.accept()\n"
        "c.sendall(b'tcp'); print(a.recv(3).decode())\n"
        "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print('udp', u.fileno() > 0)\n"
        "s6 = socket.socket(socket.AF_INET6); print('inet6', s6.fileno() > 0)\n"
        "n = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print('route', n.fileno() > 0)\n"
        "print('lookup', socket.getaddrinfo('127.0.0.1', 80)[0][4][0])\n"
        "p, q = socket.socketpair(); p.sendall(b'pair'); print(q.recv(4).decode())\n"
    )
    result = await boxed(tmp_path).call("exec", argv=[sys.executable, "-c", script])
    assert result.ok and result.exit_code == 0, result.text
    assert stream(result.text).split() == [
        "tcp", "udp", "True", "inet6", "True", "route", "True", "lookup", "127.0.0.1", "pair",
    ]  # fmt: skip
