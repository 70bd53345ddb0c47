"""The ``exec`` tool (§6.1): run a program in the workspace under the policy, with a
timeout, in its own process group, and with secrets scrubbed from its environment.

The output kept is the head and the tail of each stream (the middle is elided with a
visible marker), and at most a bounded number of bytes is ever held in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field, field_validator

from harness.tools.base import ToolArgs, ToolContext, failure, header
from harness.types import Act, ToolResult

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
HEAD_CHARS = 4_000
TAIL_CHARS = 4_000
# Bytes kept per stream end: enough for HEAD/TAIL_CHARS of 4-byte characters.
_KEEP_BYTES = 4 * max(HEAD_CHARS, TAIL_CHARS)
_READ_CHUNK = 64 * 1024
_DRAIN_AFTER_KILL_S = 2.0
_GRACE_AFTER_EXIT_S = 1.0
_EXIT_POLL_S = 0.05

_SECRET_NAMES = frozenset({"HARNESS_API_KEY"})
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_SECRET_ACCESS_KEY")


def exec_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) without API keys, tokens, secrets and passwords."""
    source = os.environ if base is None else base
    return {k: v for k, v in source.items() if not _is_secret(k)}


def _is_secret(name: str) -> bool:
    upper = name.upper()
    return upper in _SECRET_NAMES or upper.endswith(_SECRET_SUFFIXES)


class _Capture:
    """One output stream: its first and last bytes and how many there were in all."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = _KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[:-_KEEP_BYTES]

    def render(self) -> str:
        """Head and tail of the text, with the middle elided visibly when it is long."""
        dropped = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if dropped == 0:
            return _elide_chars(head + tail)
        kept_head, kept_tail = head[:HEAD_CHARS], tail[-TAIL_CHARS:]
        elided = self.total - len(kept_head.encode()) - len(kept_tail.encode())
        return f"{kept_head}\n…[elided {elided:,} bytes of output]…\n{kept_tail}"


def _elide_chars(text: str) -> str:
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    elided = len(text) - HEAD_CHARS - TAIL_CHARS
    return f"{text[:HEAD_CHARS]}\n…[elided {elided:,} chars of output]…\n{text[-TAIL_CHARS:]}"


async def _pump(stream: asyncio.StreamReader | None, capture: _Capture) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_READ_CHUNK):
        capture.feed(chunk)


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    # The child leads its own session, so its pid is the group id: this takes its children.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class ExecArgs(ToolArgs):
    argv: list[str] = Field(min_length=1, description="Program and arguments")
    timeout_s: float | None = Field(
        default=None, gt=0, le=MAX_TIMEOUT_S, description="Seconds before it is killed"
    )

    @field_validator("argv")
    @classmethod
    def _program_named(cls, argv: list[str]) -> list[str]:
        if not argv[0].strip():
            raise ValueError("the program (argv[0]) must not be empty")
        if any("\x00" in a for a in argv):
            raise ValueError("arguments must not contain NUL bytes")
        return argv


class Exec:
    name: ClassVar[str] = "exec"
    description: ClassVar[str] = (
        "Run a program in the workspace root: argv is the program and its arguments as a "
        'list (no shell: for pipes or redirection use ["sh", "-c", "..."]). Stdin is '
        f"empty. timeout_s defaults to {DEFAULT_TIMEOUT_S:.0f} (max {MAX_TIMEOUT_S:.0f}); on "
        "timeout the process and its children are killed. Returns the exit code, stdout and "
        f"stderr; long output keeps the first {HEAD_CHARS:,} and last {TAIL_CHARS:,} chars "
        "of each stream. Commands may need the user's approval."
    )

    Args: ClassVar[type[ToolArgs]] = ExecArgs

    async def run(self, args: ExecArgs, ctx: ToolContext) -> ToolResult:
        command = shlex.join(args.argv)
        decision = await ctx.gate.check(Act.EXEC, command)
        events = (decision.event,) if decision.event is not None else ()
        if not decision.allowed:
            return failure(self.name, command, decision.message, policy=events)
        env = dict(ctx.env) if ctx.env else exec_environment()
        try:
            proc = await asyncio.create_subprocess_exec(
                *args.argv,
                cwd=ctx.workspace.root,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return failure(self.name, command, _start_error(args.argv[0], exc), policy=events)
        timeout = args.timeout_s if args.timeout_s is not None else DEFAULT_TIMEOUT_S
        text, ok = await _supervise(proc, command, timeout)
        code = proc.returncode if ok else None
        return ToolResult(self.name, command, text, ok=ok, policy=events, exit_code=code)


def _start_error(program: str, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return (
            f"program `{program}` not found on PATH; check the name, or for a script in the "
            "workspace give its path (e.g. ./run.sh)"
        )
    if isinstance(exc, PermissionError):
        return f"`{program}` is not executable (permission denied)"
    return f"`{program}` could not be started: {exc.strerror or exc}"


async def _supervise(
    proc: asyncio.subprocess.Process, command: str, limit_s: float
) -> tuple[str, bool]:
    """Wait for the process under the timeout; kill its group on timeout or cancellation."""
    out, err = _Capture(), _Capture()
    pumps = asyncio.ensure_future(asyncio.gather(_pump(proc.stdout, out), _pump(proc.stderr, err)))
    started = time.monotonic()
    timed_out, leftovers = False, False
    try:
        # Shielded: on timeout the output read so far is kept and the rest drained below.
        leftovers = await asyncio.wait_for(asyncio.shield(_finish(proc, pumps)), limit_s)
    except TimeoutError:
        timed_out = True
    finally:
        if proc.returncode is None or not pumps.done():
            _kill_group(proc)
    if not pumps.done():
        await _drain(pumps)
    elapsed = time.monotonic() - started
    status = _status_line(proc.returncode, timed_out, limit_s, elapsed)
    if leftovers:
        status += "\n(it left background processes holding its output open; they were killed)"
    streams = [
        f"--- {name} ---\n{cap.render() if cap.total else '(empty)'}"
        for name, cap in (("stdout", out), ("stderr", err))
    ]
    return "\n".join([header("exec", command), status, *streams]), not timed_out


async def _finish(proc: asyncio.subprocess.Process, pumps: asyncio.Future[Any]) -> bool:
    """Wait until the program has exited and its output has ended. A background process it
    started may keep the pipes open after it exits: after a grace period that group is
    killed (returns True) rather than waited for until the timeout."""
    exited = asyncio.ensure_future(_exit_of(proc))
    try:
        await asyncio.wait({pumps, exited}, return_when=asyncio.FIRST_COMPLETED)
        if not pumps.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(pumps), _GRACE_AFTER_EXIT_S)
        if pumps.done():
            await proc.wait()  # the exit status may arrive just after the pipes close
            return False
        # It has exited (returncode is set); what holds the pipes is not waited for.
        _kill_group(proc)
        await _drain(pumps)
        return True
    finally:
        exited.cancel()


async def _exit_of(proc: asyncio.subprocess.Process) -> None:
    # Process.wait() also waits for the pipes to close, and asyncio offers no event for the
    # exit alone; returncode is set at the exit itself, so it is polled.
    while proc.returncode is None:  # noqa: ASYNC110
        await asyncio.sleep(_EXIT_POLL_S)


async def _drain(pumps: asyncio.Future[Any]) -> None:
    """After a kill: read what is left, but stop if an escaped process still holds the pipes
    open."""
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(pumps), _DRAIN_AFTER_KILL_S)
    if not pumps.done():
        pumps.cancel()


def _status_line(code: int | None, timed_out: bool, timeout: float, elapsed: float) -> str:
    if timed_out:
        return (
            f"timed out after {timeout:g} s; the process and its children were killed "
            "(raise timeout_s, up to 600, or run something shorter)"
        )
    line = f"exit code: {code}"
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            line += f"\n(killed by signal {signal.Signals(-code).name})"
    return f"{line}\n(ran {elapsed:.1f} s)"


__all__ = ["DEFAULT_TIMEOUT_S", "MAX_TIMEOUT_S", "Exec", "exec_environment"]
