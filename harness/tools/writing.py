"""How every agent write is made (§6.2, §6.3, §6.5): containment and the ``write`` policy,
the user's unsaved buffer, the old bytes read, the change computed, an approval asked with
its diff where the policy says ask (the file checked again after it: the user approved
what the diff showed), the write announced (``ctx.before_write``), then made atomically;
the gate records it, so that later exec approvals name it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from harness.errors import ContainmentError
from harness.policy.approval import write_diff
from harness.redact import holds_secret
from harness.tools.access import Access, authorize, display_path, open_error, owned, same_name
from harness.tools.base import EditorWriter, ToolContext, failure
from harness.types import (
    Act,
    FileWrite,
    Notice,
    NoticeKind,
    PolicyEvent,
    ToolResult,
    TraceEvent,
)
from harness.workspace import PreparedWrite


def _unsaved_refusal(
    kind: str, target: str, rel: str, policy: tuple[PolicyEvent, ...]
) -> ToolResult:
    message = (
        f"`{target}` has unsaved changes in the editor; the agent does not overwrite them — "
        "save or discard them, then ask again"
    )
    refused = failure(kind, target, message, policy=policy)
    notice = Notice(
        NoticeKind.UNSAVED_REFUSED,
        rel,
        f"not written: {rel} has unsaved changes in the editor. Save or discard your "
        "changes to let the agent change it.",
    )
    return dataclasses.replace(
        refused,
        events=(TraceEvent("unsaved_refused", {"path": rel}),),
        notices=(notice,),
    )


async def _authorize_write(
    kind: str, raw: str, ctx: ToolContext, deferred: list[str]
) -> Access | ToolResult:
    """Containment (``.git/``, ``.harness/``, the harness's own programs included), the
    ``write`` policy — a name that needs approval goes to ``deferred``, to be asked with
    the diff — then the user's unsaved buffer."""
    access = await authorize(kind, raw, Act.WRITE, ctx, for_write=True, deferred=deferred)
    if isinstance(access, ToolResult):
        return access
    target = display_path(raw)
    if ctx.guard is not None and ctx.guard.has_unsaved_changes(access.rel):
        return _unsaved_refusal(kind, target, access.rel, access.policy)
    return access


async def _approve_write(
    kind: str, raw: str, ctx: ToolContext, access: Access, *, asks: list[str], diff: str
) -> Access | ToolResult:
    """Ask about each name in ``asks``, showing ``diff``; the events join ``access``."""
    events = list(access.policy)
    for subject in asks:
        decision = await ctx.gate.check(Act.WRITE, subject, diff=diff)
        if decision.event is not None:
            events.append(decision.event)
        if not decision.allowed:
            return failure(kind, display_path(raw), decision.message, policy=tuple(events))
    return dataclasses.replace(access, policy=tuple(events))


async def _still_same(
    kind: str, raw: str, ctx: ToolContext, access: Access, before: bytes | None
) -> PreparedWrite | ToolResult:
    """After an approval (which may take minutes): the file again, refused if it changed
    meanwhile — the user approved a change of what the diff showed, nothing else."""
    target = display_path(raw)
    if ctx.guard is not None and ctx.guard.has_unsaved_changes(access.rel):
        return _unsaved_refusal(kind, target, access.rel, access.policy)
    prepared = await _prepare(kind, raw, ctx, access)
    if isinstance(prepared, ToolResult) or prepared.before == before:
        return prepared
    prepared.close()
    message = f"`{target}` changed while the approval was asked; read it again, then retry"
    return failure(kind, target, message, policy=access.policy)


async def _prepare(
    kind: str, raw: str, ctx: ToolContext, access: Access
) -> PreparedWrite | ToolResult:
    """Locate the target again and read its old bytes, in a thread; the real name must be
    the one the policy allowed."""
    target = display_path(raw)
    try:
        prepared = await owned(lambda: ctx.workspace.prepare_write(raw), lambda p: p.close())
    except IsADirectoryError:
        return failure(kind, target, f"`{target}` is a directory, not a file", policy=access.policy)
    except (ContainmentError, OSError) as exc:
        return failure(kind, target, open_error(kind, target, exc), policy=access.policy)
    changed = same_name(access, prepared.rel, kind, target)
    if changed is not None:
        prepared.close()
        return changed
    return prepared


async def _commit(
    kind: str,
    target: str,
    ctx: ToolContext,
    access: Access,
    *,
    prepared: PreparedWrite,
    data: bytes,
) -> FileWrite | ToolResult:
    """Announce the write (the store's intent row), then make it. ``prepared`` is closed."""
    try:
        if ctx.before_write is not None:
            ctx.before_write(prepared.rel, prepared.before, data)
    except Exception as exc:
        prepared.close()
        message = (
            f"the write was not made: it could not be recorded first ({type(exc).__name__}: "
            f"{exc}); `{target}` is unchanged"
        )
        return failure(kind, target, message, policy=access.policy)
    try:
        return await owned(lambda: commit_write(prepared, data, ctx.writer), lambda _: None)
    except OSError as exc:
        message = f"`{target}` could not be written: {exc.strerror or exc}"
        return failure(kind, target, message, policy=access.policy)


def commit_write(prepared: PreparedWrite, data: bytes, writer: EditorWriter | None) -> FileWrite:
    """The last act of a write, checked and announced already: the bytes onto the file — by
    the editor when it makes the agent's writes (text only), else onto the disk here.
    ``prepared`` is closed. Raises ``OSError``."""
    with prepared:
        text = _text(data) if writer is not None else None
        if writer is None or text is None:
            return prepared.commit(data)
        writer.write_text(prepared.rel, text)
        return FileWrite(path=prepared.rel, before=prepared.before, after=data)


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def _asked(
    kind: str,
    raw: str,
    ctx: ToolContext,
    access: Access,
    *,
    prepared: PreparedWrite,
    data: bytes,
    asks: list[str],
) -> tuple[Access, PreparedWrite] | ToolResult:
    """Ask about the write with its diff; once approved, the target prepared again (refused
    if it changed while the user was asked). ``prepared`` is closed."""
    prepared.close()
    diff = write_diff(prepared.rel, prepared.before, data)
    approved = await _approve_write(kind, raw, ctx, access, asks=asks, diff=diff)
    if isinstance(approved, ToolResult):
        return approved
    again = await _still_same(kind, raw, ctx, approved, prepared.before)
    if isinstance(again, ToolResult):
        return again
    return approved, again


# §6.7: a key the harness holds never reaches the disk (nor the store's edits, nor a diff).
_KEY_REFUSED = (
    "`{target}` was not written: its new content holds an API key the harness uses (or a "
    "piece of one), which never leaves the harness; write it without the key (read it from "
    "the environment instead)"
)

# The new bytes and what the result says, or a result that ends the write with nothing written.
Change = Callable[[PreparedWrite, Access], tuple[bytes, str] | ToolResult]


async def write(kind: str, raw: str, ctx: ToolContext, change: Change) -> ToolResult:
    """The one way a tool writes a file: authorize, locate it and read its old bytes,
    ``change`` them, ask (with the diff) where the policy says ask, announce the write,
    make it."""
    asks: list[str] = []
    access = await _authorize_write(kind, raw, ctx, asks)
    if isinstance(access, ToolResult):
        return access
    prepared = await _prepare(kind, raw, ctx, access)
    if isinstance(prepared, ToolResult):
        return prepared
    target = display_path(raw)
    try:
        planned = change(prepared, access)
    except BaseException:
        prepared.close()
        raise
    if isinstance(planned, ToolResult):
        prepared.close()
        return planned
    data, said = planned
    if holds_secret(data):
        prepared.close()
        return failure(kind, target, _KEY_REFUSED.format(target=target), policy=access.policy)
    if asks:
        asked = await _asked(kind, raw, ctx, access, prepared=prepared, data=data, asks=asks)
        if isinstance(asked, ToolResult):
            return asked
        access, prepared = asked
    written = await _commit(kind, target, ctx, access, prepared=prepared, data=data)
    if isinstance(written, ToolResult):
        return written
    ctx.gate.record_write(written.path)
    return ToolResult(kind, target, said, writes=(written,), policy=access.policy)


__all__ = ["Change", "commit_write", "write"]
