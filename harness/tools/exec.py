"""The ``exec`` tool (§6.1, §6.6): run a program in the workspace under the policy, with a
timeout, in the bubblewrap sandbox when there is one (``harness.sandbox``), with secrets
scrubbed from its environment (``harness.tools.environment``), and with nothing it started
left alive afterwards (``harness.tools.proctree``).

The output kept is the head and the tail of each stream (the middle is elided with a
visible marker), and at most a bounded number of bytes is ever held in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
import time
from typing import Any

from pydantic import Field, field_validator

from harness import sandbox
from harness.tools.base import BaseTool, ToolArgs, ToolContext, failure, header
from harness.tools.environment import exec_environment
from harness.tools.proctree import MARKER_VAR, KillReport, kill_all, members, new_marker
from harness.types import Act, SandboxMode, ToolResult

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
_BWRAP_EXEC = re.compile(r"^bwrap: execvp (.+?): (.+)$", re.MULTILINE)


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


_EXEC_FACTS = {
    "timeout": DEFAULT_TIMEOUT_S,
    "max_timeout": MAX_TIMEOUT_S,
    "head": HEAD_CHARS,
    "tail": TAIL_CHARS,
}


class Exec(BaseTool, name="exec", args=ExecArgs, target="argv", facts=_EXEC_FACTS):
    """Run a program in the workspace root: argv is the program and its arguments as a
    list (no shell: for pipes or redirection use ["sh", "-c", "..."]). Stdin is
    empty. timeout_s defaults to {timeout:.0f} (max {max_timeout:.0f}); on
    timeout the process and everything it started are killed, and so is anything it
    leaves running when it exits. Returns the exit code, stdout and stderr; long output
    keeps the first {head:,} and last {tail:,} chars of each stream.
    Where a sandbox is available, only the workspace is writable. Commands may need
    the user's approval."""

    def __init__(self) -> None:
        self._told: set[int] = set()  # runs already told that there is no sandbox

    async def run(self, args: ExecArgs, ctx: ToolContext) -> ToolResult:
        command = shlex.join(args.argv)
        decision = await ctx.gate.check(Act.EXEC, command)
        events = (decision.event,) if decision.event is not None else ()
        if not decision.allowed:
            return failure(self.name, command, decision.message, policy=events)
        config = ctx.exec_config
        found = (
            await asyncio.to_thread(sandbox.probe, network=config.network)
            if config.sandbox is not SandboxMode.OFF
            else None
        )
        boxed = found is not None and found.available
        if config.sandbox is SandboxMode.REQUIRED and not boxed:
            reason = found.reason if found is not None else "no sandbox"
            message = (
                f'commands must run in a sandbox ([exec] sandbox = "required") and none is '
                f"available: {reason}; nothing was run"
            )
            return failure(self.name, command, message, policy=events)
        marker = new_marker()
        env = {**exec_environment(ctx.env or None), MARKER_VAR: marker}
        started = sandbox.SandboxedCommand(list(args.argv))
        if boxed and found is not None:
            started = sandbox.sandboxed(
                started.argv,
                found,
                root=ctx.workspace.root,
                network=config.network,
                read_only=ctx.workspace.protected.read_only_in_sandbox(),
                search_path=env.get("PATH"),
            )
        try:
            proc = await _spawn(
                marker,
                started,
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
        run = await _supervise(proc, command, timeout, marker)
        if boxed and (missing := _bwrap_start_error(run)) is not None:
            return failure(self.name, command, missing, policy=events)
        text = run.text + self._sandbox_note(ctx, found, boxed)
        code = proc.returncode if run.ok else None
        return ToolResult(self.name, command, text, ok=run.ok, policy=events, exit_code=code)

    def _sandbox_note(
        self, ctx: ToolContext, found: sandbox.SandboxProbe | None, boxed: bool
    ) -> str:
        if boxed:
            if found is None or found.sockets_open is None or ctx.exec_config.network:
                return ""
            return f"\nnote: the host's Unix sockets stay reachable: {found.sockets_open}"
        notes = []
        if ctx.run_id not in self._told:
            self._told.add(ctx.run_id)
            why = found.reason if found is not None else 'sandbox = "off" in [exec]'
            notes.append(
                f"note: no sandbox ({why}): commands run with the user's full access to the "
                "file system (said once per run)"
            )
        if not ctx.exec_config.network:
            notes.append("note: the network could not be turned off: that needs the sandbox")
        return "".join("\n" + n for n in notes)


def _start_error(program: str, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return (
            f"program `{program}` not found on PATH; check the name, or for a script in the "
            "workspace give its path (e.g. ./run.sh)"
        )
    if isinstance(exc, PermissionError):
        return f"`{program}` is not executable (permission denied)"
    return f"`{program}` could not be started: {exc.strerror or exc}"


def _bwrap_start_error(run: _Run) -> str | None:
    """bwrap reports a program it cannot start on stderr with exit status 1."""
    if run.code != 1:
        return None
    found = _BWRAP_EXEC.search(run.stderr_head)
    if found is None:
        return None
    program, why = found.group(1), found.group(2)
    if "No such file" in why:
        return _start_error(program, FileNotFoundError(why))
    if "Permission denied" in why:
        return _start_error(program, PermissionError(why))
    return f"`{program}` could not be started: {why}"


class _Run:
    """What supervising one process produced."""

    def __init__(self, text: str, ok: bool, code: int | None, stderr_head: str) -> None:
        self.text, self.ok, self.code, self.stderr_head = text, ok, code, stderr_head


async def _supervise(
    proc: asyncio.subprocess.Process, command: str, limit_s: float, marker: str
) -> _Run:
    """Wait for the process under the timeout; on timeout, cancellation or leftovers, kill
    everything it started."""
    out, err = _Capture(), _Capture()
    pumps = asyncio.ensure_future(asyncio.gather(_pump(proc.stdout, out), _pump(proc.stderr, err)))
    started = time.monotonic()
    timed_out = False
    leftovers: KillReport | None = None
    try:
        # Shielded: on timeout the output read so far is kept and the rest drained below.
        leftovers = await asyncio.wait_for(asyncio.shield(_finish(proc, pumps, marker)), limit_s)
    except TimeoutError:
        timed_out = True
    except BaseException:
        _kill_now(proc, marker)  # cancelled: no awaiting, the caller is leaving
        pumps.cancel()
        pumps.add_done_callback(_consume)
        raise
    report = await asyncio.to_thread(kill_all, proc.pid, marker) if timed_out else None
    if not pumps.done():
        await _drain(pumps)
    if proc.returncode is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), _DRAIN_AFTER_KILL_S)
    elapsed = time.monotonic() - started
    status = _status_line(proc.returncode, timed_out, limit_s, elapsed, report)
    if leftovers is not None and (leftovers.killed or leftovers.survivors):
        status += f"\n(it left background processes running: {leftovers.describe()})"
    streams = [
        f"--- {name} ---\n{cap.render() if cap.total else '(empty)'}"
        for name, cap in (("stdout", out), ("stderr", err))
    ]
    text = "\n".join([header("exec", command), status, *streams])
    head = err.head.decode("utf-8", errors="replace")
    return _Run(text, not timed_out, proc.returncode, head)


async def _spawn(
    marker: str, command: sandbox.SandboxedCommand, **options: Any
) -> asyncio.subprocess.Process:
    """``create_subprocess_exec``, shielded. Cancelled while the process starts, asyncio
    itself waits for the process's pipes to close — for ever when what it started holds
    them (a command in the sandbox): the run hung "cancelling" and its folder stayed busy
    (issue 11, seen 3). So the start completes, and then everything it started is killed.
    The descriptors the command inherits are closed here once the start is over, however."""
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(*command.argv, pass_fds=command.pass_fds, **options)
    )
    starting.add_done_callback(lambda _: command.close())
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        starting.add_done_callback(lambda done: _kill_started(done, marker))
        raise


def _kill_started(starting: asyncio.Future[asyncio.subprocess.Process], marker: str) -> None:
    if not starting.cancelled() and starting.exception() is None:
        _kill_now(starting.result(), marker)


def _consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _kill_now(proc: asyncio.subprocess.Process, marker: str) -> None:
    """One immediate round (the caller is being cancelled), then the rest in a thread."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in members(proc.pid, marker):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    loop = asyncio.get_running_loop()
    loop.run_in_executor(None, kill_all, proc.pid, marker)


async def _finish(
    proc: asyncio.subprocess.Process, pumps: asyncio.Future[Any], marker: str
) -> KillReport | None:
    """Wait until the program has exited and its output has ended. Whatever it left running
    is killed (after a grace period for output still arriving) and reported."""
    exited = asyncio.ensure_future(_exit_of(proc))
    try:
        await asyncio.wait({pumps, exited}, return_when=asyncio.FIRST_COMPLETED)
        if not pumps.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(pumps), _GRACE_AFTER_EXIT_S)
        await proc.wait()  # the exit status may arrive just after the pipes close
        report = await asyncio.to_thread(kill_all, proc.pid, marker)
        if not pumps.done():
            await _drain(pumps)
        return report
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
        pumps.add_done_callback(_consume)


def _status_line(
    code: int | None, timed_out: bool, timeout: float, elapsed: float, report: KillReport | None
) -> str:
    if timed_out:
        what = report.describe() if report is not None else ""
        return (
            f"timed out after {timeout:g} s; the command was killed"
            + (f", and {what}" if what else "")
            + " (raise timeout_s, up to 600, or run something shorter)"
        )
    line = f"exit code: {code}"
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            line += f"\n(killed by signal {signal.Signals(-code).name})"
    return f"{line}\n(ran {elapsed:.1f} s)"


__all__ = ["DEFAULT_TIMEOUT_S", "MAX_TIMEOUT_S", "Exec", "exec_environment"]
