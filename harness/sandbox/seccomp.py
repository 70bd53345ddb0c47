"""The seccomp filter of ``[exec] network = false`` (§6.6): a command reaches no host daemon
through a Unix socket.

``--unshare-net`` closes the network but not the file system's sockets: a read-only bind
mount does not stop ``connect()`` to a socket file (a daemon in ``/var/tmp``, D-Bus, the
Docker socket). A seccomp filter does. bwrap loads a compiled BPF program read from a file
descriptor (``--seccomp FD``); the program is built with libseccomp, through ``pyseccomp``
(ctypes over the installed ``libseccomp2``, the API of libseccomp's own Python binding).

Refused with ``EPERM`` (seccomp sees numbers, not the address a ``connect()`` points to, so
the rule is on what makes a socket, which is all a connection starts from):

- ``socket()`` of every family but ``AF_INET`` and ``AF_INET6`` (which reach only the
  sandbox's own network namespace: loopback) and ``AF_NETLINK`` with ``NETLINK_ROUTE``
  (the namespace's own addresses and routes: glibc's ``getaddrinfo`` asks them). So
  ``AF_UNIX`` (every connect to, or send to, a named Unix socket needs one), ``AF_VSOCK``
  (the hypervisor and other VMs: not namespaced), ``AF_PACKET``, ``AF_BLUETOOTH``,
  ``AF_CAN``, ``AF_XDP``, the other netlink protocols (audit, uevents: not all of them
  are namespaced) and every family a newer kernel adds are refused (issue 30, item 11);
- ``socketpair(AF_UNIX, SOCK_DGRAM, …)``: one end of an unnamed datagram pair can still
  ``sendto()`` a named socket. Stream and seqpacket pairs stay (asyncio's self-pipe,
  ``multiprocessing.Pipe``): they are connected to each other and reach nothing else;
- ``io_uring_setup``: io_uring makes sockets and connects without those system calls.

A system call of another ABI (32-bit ``int 0x80`` on x86-64, which multiplexes sockets
through ``socketcall``) kills the process: libseccomp's default for an architecture the
filter does not name, so no ABI goes around the rules.
"""

from __future__ import annotations

import errno
import functools
import os
import socket
import tempfile

_INT_MASK = 0xFFFF_FFFF  # an int argument: the low 32 bits of its register
# socket()'s families below this are refused one by one unless allowed; above it the kernel
# knows none (AF_MAX is 46 in Linux 6.x) — refused as a range, whatever the kernel adds.
_FAMILIES = 64
_ALLOWED = frozenset({socket.AF_INET, socket.AF_INET6})
_AF_NETLINK = 16
_NETLINK_ROUTE = 0
_SOCK_TYPE_MASK = 0xF  # the type bits of socket()'s second argument, without the flags


class SeccompUnavailable(Exception):
    """The filter cannot be built here (no libseccomp); the message says why."""


@functools.cache
def _compiled() -> bytes | str:
    """The BPF program, or why there is none (built once per process)."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]  # no py.typed; ctypes inside
    except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: no libseccomp
        return f"libseccomp cannot be loaded ({exc}); install libseccomp2"
    refuse = sc.ERRNO(errno.EPERM)
    try:
        program = sc.SyscallFilter(sc.ALLOW)
        # The kernel reads these arguments as ints: the upper 32 bits of the register are
        # ignored by the call, so they must be by the comparison too (a plain EQ on 64 bits
        # lets socket(0x1_00000001, …) through as AF_UNIX).
        _refuse_families(sc, program, refuse)
        unix = sc.Arg(0, sc.MASKED_EQ, _INT_MASK, socket.AF_UNIX)
        dgram = sc.Arg(1, sc.MASKED_EQ, _SOCK_TYPE_MASK, socket.SOCK_DGRAM)
        program.add_rule(refuse, "socketpair", unix, dgram)
        program.add_rule(refuse, "io_uring_setup")
        with tempfile.TemporaryFile() as out:
            program.export_bpf(out)
            out.seek(0)
            return out.read()
    except OSError as exc:
        return f"libseccomp could not build the filter ({exc})"


def _refuse_families(sc: object, program: object, refuse: object) -> None:
    """``socket()`` of any family but ``_ALLOWED`` (netlink: route only), and
    ``socketpair()`` of any family but ``AF_UNIX`` (no other makes pairs today)."""
    add, arg = program.add_rule, sc.Arg  # type: ignore[attr-defined]
    masked, ne = sc.MASKED_EQ, sc.NE  # type: ignore[attr-defined]
    for family in range(_FAMILIES):
        if family == _AF_NETLINK:
            add(refuse, "socket", arg(0, masked, _INT_MASK, family), arg(2, ne, _NETLINK_ROUTE))
        elif family not in _ALLOWED:
            add(refuse, "socket", arg(0, masked, _INT_MASK, family))
        if family != socket.AF_UNIX:
            add(refuse, "socketpair", arg(0, masked, _INT_MASK, family))
    # Past the known range: any of the int's bits from _FAMILIES up set (the upper 32 bits
    # of the register are not the kernel's: not compared)
    for bit in range(_FAMILIES.bit_length() - 1, 32):
        add(refuse, "socket", arg(0, masked, 1 << bit, 1 << bit))


def unix_socket_filter() -> bytes:
    """The compiled filter; raises ``SeccompUnavailable`` saying why there is none."""
    found = _compiled()
    if isinstance(found, str):
        raise SeccompUnavailable(found)
    return found


def filter_fd(program: bytes) -> int:
    """A file descriptor to read ``program`` from (for ``--seccomp FD``): the read end of a
    pipe already holding it, its write end closed. The caller closes it once bwrap started.
    (A filter is a few hundred bytes, far below a pipe's buffer: the write never blocks.)"""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return read_end


__all__ = ["SeccompUnavailable", "filter_fd", "unix_socket_filter"]
