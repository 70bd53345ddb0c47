"""Running ripgrep (§6.1): the ``rg`` resolved once at start (never one the agent could
have written: §6.2), the flags every search shares, and a subprocess that is killed the
moment its call is cancelled or runs out of time — so nothing keeps burning CPU after
Ctrl-C and the event loop is never blocked (the work happens in another process).

Shared flags: no user config (``--no-config``), hidden files searched, ``.gitignore``
honoured whether or not the root is a git repository, but not the ignore files above the
root or the user's global excludes (the workspace's own rules decide), and ``.git``,
``node_modules`` and ``.venv`` never descended. Symlinks are never followed.

rg's memory is capped (``MAX_RG_BYTES`` of address space, set on the process as soon as
it exists; no memory maps): a repository's ``.gitignore`` that is a symlink to
``/dev/zero`` — which rg follows and reads as one endless line — ends rg, not the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
from dataclasses import dataclass
from pathlib import Path

from harness.workspace.programs import resolved_rg

SKIP_GLOBS = ("!.git", "!node_modules", "!.venv")
BASE_FLAGS: tuple[str, ...] = (
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--no-ignore-parent",
    "--no-ignore-global",
    "--color=never",
    "--no-mmap",
    *(arg for glob in SKIP_GLOBS for arg in ("--glob", glob)),
)
# Callers put their own deadline on a whole call; this only guards against a forgotten one.
BACKSTOP_S = 600.0
MAX_OUTPUT_BYTES = 64 * 1024 * 1024  # beyond this rg is stopped and the output marked cut
# About ten times what rg needs to search all of /usr; an endless line cannot pass it.
MAX_RG_BYTES = 2 * 1024 * 1024 * 1024
_MAX_STDERR = 16 * 1024
_CHUNK = 256 * 1024


class RipgrepError(Exception):
    """rg could not give an answer; the message says why, for the model."""


class RipgrepMissing(RipgrepError):
    """No ``rg`` executable next to the interpreter or on PATH."""


class RipgrepFailed(RipgrepError):
    """rg died (a signal: e.g. out of its memory cap)."""


class RipgrepTimeout(Exception):
    """rg ran past its deadline and was killed."""


@dataclass(frozen=True)
class RgOutput:
    code: int
    stdout: bytes
    stderr: str
    cut: bool  # stdout passed MAX_OUTPUT_BYTES and rg was stopped


def rg_executable() -> str:
    """The ``rg`` found once per process (``harness.workspace.programs.resolved_rg``: the
    ``ripgrep`` wheel's, beside the interpreter, else one on an absolute ``PATH`` entry),
    as an absolute path — the workspace protects it, so the agent cannot have rewritten it."""
    found = resolved_rg()
    if found is None:
        raise RipgrepMissing(
            "ripgrep (`rg`) is not installed; it comes with the `ripgrep` package from PyPI "
            "(a dependency of harness-lsp: reinstall it, e.g. `pip install ripgrep`)"
        )
    return found


async def run_rg(args: list[str], cwd: Path, *, pass_fds: tuple[int, ...] = ()) -> RgOutput:
    """Run ``rg args`` in ``cwd`` with stdin empty; kill it on cancellation or timeout.
    ``pass_fds``: files the caller opened, which rg reads as ``/proc/self/fd/N``."""
    proc = await asyncio.create_subprocess_exec(
        rg_executable(),
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"},
        pass_fds=pass_fds,
    )
    with contextlib.suppress(OSError, ValueError):
        resource.prlimit(proc.pid, resource.RLIMIT_AS, (MAX_RG_BYTES, MAX_RG_BYTES))
    try:
        async with asyncio.timeout(BACKSTOP_S):
            (out, cut), err = await asyncio.gather(_read_capped(proc), _read_stderr(proc))
            code = await proc.wait()
    except TimeoutError:
        await _reap(proc)
        raise RipgrepTimeout from None
    except BaseException:
        await _reap(proc)
        raise
    said = err.decode("utf-8", errors="replace")
    if code < 0 and not cut:
        first = without_paths(said.strip().splitlines()[0]) if said.strip() else None
        raise RipgrepFailed(
            f"ripgrep failed ({first or f'killed by signal {-code}'}); a "
            "file in the workspace (a .gitignore that never ends?) may be the cause"
        )
    return RgOutput(code, out, said, cut)


# rg's words when the pattern is at fault (regex parse errors, size limits, unknown classes).
_PATTERN_ERRORS = ("regex parse error", "error parsing regex", "regex exceeds size limit")
_NOTHING_SEARCHED = "no files were searched"


def failure_text(stderr: str) -> str | None:
    """What went wrong, for the model, when rg exits 2 without an answer; None when nothing
    was wrong (rg found no file to search: an answer of its own, no matches). A bad pattern
    says so with rg's message; anything else is named as rg names it (an I/O or permission
    error, a missing directory, …) — never taken for a bad pattern."""
    said = said_text(stderr)
    lowered = said.lower()
    if any(words in lowered for words in _PATTERN_ERRORS):
        return (
            f"bad regular expression (ripgrep says: {said}); fix the pattern (Rust regex "
            "syntax: escape literal characters such as ( [ . * with a backslash; no "
            "look-around or backreferences)"
        )
    if _NOTHING_SEARCHED in lowered:
        return None
    if "os error 13" in lowered or "permission denied" in lowered:
        kind = "permission denied"
    elif "os error" in lowered:
        kind = "an I/O error"
    else:
        kind = "an error"
    return (
        f"ripgrep could not search ({kind}; ripgrep says: {without_paths(stderr)}); the "
        "pattern is not the problem"
    )


def incomplete_text(out: RgOutput) -> str | None:
    """What an answer rg gave despite errors (exit 2: a path too long, a directory it may
    not read) must say: that it is incomplete, and why; None when rg searched everything."""
    if out.code != 2:
        return None
    failed = failure_text(out.stderr)
    return None if failed is None else f"the answer is incomplete: {failed}"


def without_paths(stderr: str) -> str:
    """rg's messages with the paths it names left out: rg walks by path, so a name it
    reached through a directory swapped for a symlink is a name outside the root, and a
    file's text quoted in a message may be an outside file's (§6.2). Only what follows a
    line's last ``: `` is kept: ``./a: Permission denied (os error 13)`` becomes
    ``Permission denied (os error 13)``."""
    said: list[str] = []
    for raw in stderr.splitlines():
        line = raw.strip().removeprefix("rg: ")
        if not line:
            continue
        message = line.rpartition(": ")[2].strip() or line
        if message not in said:
            said.append(message)
    return " ".join(said) or "no message"


def said_text(stderr: str) -> str:
    """rg's stderr on one line, without its ``rg:`` prefixes."""
    lines = [line.strip().removeprefix("rg: ") for line in stderr.splitlines() if line.strip()]
    return " ".join(lines) or "no message"


async def _read_capped(proc: asyncio.subprocess.Process) -> tuple[bytes, bool]:
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    while chunk := await proc.stdout.read(_CHUNK):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_OUTPUT_BYTES:
            _kill(proc)  # it would block writing to a pipe nobody reads
            return b"".join(chunks)[:MAX_OUTPUT_BYTES], True
    return b"".join(chunks), False


async def _read_stderr(proc: asyncio.subprocess.Process) -> bytes:
    assert proc.stderr is not None
    kept = bytearray()
    while chunk := await proc.stderr.read(_CHUNK):
        kept += chunk[: max(0, _MAX_STDERR - len(kept))]
    return bytes(kept)


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


async def _reap(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL and wait for the exit, even while being cancelled (SIGKILL is immediate)."""
    _kill(proc)
    waiter = asyncio.ensure_future(proc.wait())
    with contextlib.suppress(asyncio.CancelledError, ProcessLookupError):
        await asyncio.shield(waiter)


__all__ = [
    "BASE_FLAGS",
    "MAX_OUTPUT_BYTES",
    "RgOutput",
    "RipgrepError",
    "RipgrepFailed",
    "RipgrepMissing",
    "RipgrepTimeout",
    "failure_text",
    "incomplete_text",
    "rg_executable",
    "run_rg",
]
