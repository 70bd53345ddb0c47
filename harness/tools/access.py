"""The checks every path-taking tool makes before it touches a file: containment first, then
the policy for every name the file goes by; how a file's real name is re-checked at the
moment it is opened; and how file bytes are judged to be text."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from harness.errors import ContainmentError
from harness.tools.base import ToolContext, failure
from harness.types import Act, Effect, PolicyEvent, ToolResult, normalize_path
from harness.workspace import NotRegularFileError, Workspace

BINARY_SNIFF_BYTES = 8192

T = TypeVar("T")


@dataclass(frozen=True)
class Access:
    """A path the tool may use: the real path and its relative form (through symlinks), the
    policy events (an ask and its answer) to carry on the result."""

    path: Path
    rel: str
    policy: tuple[PolicyEvent, ...] = ()


def display_path(raw: str) -> str:
    """The subject of a result: the requested path, normalised (``./a.py`` is ``a.py``)."""
    return normalize_path(raw) if "\x00" not in raw else repr(raw)


def real_name(workspace: Workspace, raw: str, *, for_write: bool = False) -> str:
    """The real relative path ``raw`` leads to now (for a new file: where it would be)."""
    with workspace.locate(raw, for_write=for_write) as loc:
        return loc.rel


async def authorize(
    kind: str,
    raw: str,
    act: Act,
    ctx: ToolContext,
    *,
    for_write: bool = False,
    deferred: list[str] | None = None,
) -> Access | ToolResult:
    """Containment, then the policy for every name the file goes by (the requested path and,
    through a symlink, the real one): a deny of either refuses. Returns the refusal as a
    result so the caller can hand it straight back. With ``deferred``, a name that needs an
    approval is added to it instead of being asked about (a write asks once it has a diff)."""
    target = display_path(raw)
    try:
        # In a thread: a hard link is checked by walking the root, which can take a while.
        rel = await asyncio.to_thread(real_name, ctx.workspace, raw, for_write=for_write)
    except ContainmentError as exc:
        event = PolicyEvent(act, target, Effect.DENY, None, "containment", False, str(exc))
        return failure(kind, target, f"{exc}", policy=(event,))
    except NotADirectoryError:
        return failure(
            kind, target, f"`{target}` does not exist (a part of it is a file, not a directory)"
        )
    events: list[PolicyEvent] = []
    for subject in dict.fromkeys((target, rel)):
        settled = ctx.gate.settle(act, subject) if deferred is not None else None
        if deferred is not None and settled is None:
            deferred.append(subject)
            continue
        decision = settled or await ctx.gate.check(act, subject)
        if decision.event is not None:
            events.append(decision.event)
        if not decision.allowed:
            return failure(kind, target, decision.message, policy=tuple(events))
    return Access(ctx.workspace.root / rel, rel, tuple(events))


def same_name(access: Access, opened_rel: str, kind: str, target: str) -> ToolResult | None:
    """A file opened under another real name than the one the policy was asked about was
    swapped in between (a symlink changed): refuse rather than trust the earlier answer."""
    if opened_rel == access.rel:
        return None
    return failure(
        kind,
        target,
        f"`{target}` changed while it was being opened (it now leads to `{opened_rel}`); try again",
        policy=access.policy,
    )


def open_error(kind: str, target: str, exc: BaseException) -> str:
    """What the model is told when a file cannot be opened."""
    if isinstance(exc, IsADirectoryError):
        return f"`{target}` is a directory; use list_dir to see what is in it"
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        return f"`{target}` does not exist; use find or list_dir to locate it"
    if isinstance(exc, NotRegularFileError | ContainmentError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"`{target}` cannot be used: {exc.strerror or exc}"
    return str(exc)


async def owned(work: Callable[[], T], release: Callable[[T], None]) -> T:
    """Run ``work`` in a thread; if the caller is cancelled meanwhile, ``release`` its result
    once the thread finishes (so fds it opened are not leaked)."""
    future = asyncio.ensure_future(asyncio.to_thread(work))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        future.add_done_callback(
            lambda f: release(f.result()) if not f.cancelled() and f.exception() is None else None
        )
        raise


def split_lines(text: str) -> list[str]:
    """Lines as editors and grep number them: split on ``\\n`` only; no trailing empty line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


__all__ = [
    "Access",
    "authorize",
    "display_path",
    "open_error",
    "owned",
    "real_name",
    "same_name",
    "split_lines",
]
