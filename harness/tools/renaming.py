"""A rename's edit made as one write act (§14): every file passes containment, the
``write`` policy (a runs-later file is refused: a rename has no business there) and the
unsaved-buffer rule, or the whole rename is refused naming the file and why and nothing is
written; then every file's new text is computed (edits applied last to first in the
answer's position encoding), asked about once with the whole diff where the policy says
ask, announced (intent rows first, §5), and written — a write that fails midway puts back
the files already written."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from harness.errors import ContainmentError
from harness.policy import runs_later
from harness.policy.approval import write_diff
from harness.semantic.model import Encoding, FileEdit
from harness.semantic.text import apply_edits
from harness.tools.access import Access, authorize
from harness.tools.base import ToolContext
from harness.tools.writing import commit_write
from harness.types import Act, FileWrite, PolicyEvent, ToolResult
from harness.workspace import PreparedWrite


class Refused(Exception):
    """The rename is not made: ``str()`` names the file and the reason."""

    def __init__(self, message: str, policy: tuple[PolicyEvent, ...] = ()) -> None:
        super().__init__(message)
        self.policy = policy


@dataclass
class Planned:
    access: Access
    prepared: PreparedWrite
    after: bytes


def _reason(result: ToolResult) -> str:
    return result.text.split("error: ", 1)[-1]


async def _authorize_all(
    kind: str, edits: Sequence[FileEdit], ctx: ToolContext
) -> tuple[list[Access], list[str], list[PolicyEvent]]:
    accesses: list[Access] = []
    asks: list[str] = []
    events: list[PolicyEvent] = []
    for change in edits:
        access = await authorize(kind, change.path, Act.WRITE, ctx, for_write=True, deferred=asks)
        if isinstance(access, ToolResult):
            events += access.policy
            raise Refused(f"`{change.path}`: {_reason(access)}", tuple(events))
        events += access.policy
        glob = runs_later(access.rel)
        if glob is not None:
            raise Refused(
                f"`{change.path}` is a file that runs later (matches `{glob}`, the runs-later "
                "layer): a rename does not write there; change it with edit_file if you must",
                tuple(events),
            )
        if ctx.guard is not None and ctx.guard.has_unsaved_changes(access.rel):
            raise Refused(
                f"`{change.path}` has unsaved changes in the editor; the agent does not "
                "overwrite them — ask the user to save or discard them, then rename again",
                tuple(events),
            )
        accesses.append(access)
    return accesses, asks, events


def _plan_one(access: Access, change: FileEdit, ctx: ToolContext, enc: Encoding) -> Planned:
    prepared = ctx.workspace.prepare_write(access.rel)
    try:
        if prepared.before is None:
            raise Refused(f"`{change.path}` does not exist")
        try:
            text = prepared.before.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(f"`{change.path}` is not UTF-8 text") from None
        try:
            after = apply_edits(text, change, enc).encode("utf-8")
        except ValueError as exc:
            raise Refused(
                f"the language server's edit of `{change.path}` is unusable: {exc}"
            ) from None
        return Planned(access, prepared, after)
    except BaseException:
        prepared.close()
        raise


def _plan_all(
    accesses: Sequence[Access], edits: Sequence[FileEdit], ctx: ToolContext, enc: Encoding
) -> list[Planned]:
    planned: list[Planned] = []
    try:
        for access, change in zip(accesses, edits, strict=True):
            try:
                planned.append(_plan_one(access, change, ctx, enc))
            except (ContainmentError, OSError) as exc:
                raise Refused(f"`{change.path}` cannot be written: {exc}") from None
    except BaseException:
        close_all(planned)
        raise
    return planned


def close_all(planned: Sequence[Planned]) -> None:
    for item in planned:
        item.prepared.close()


async def _ask(
    ctx: ToolContext, asks: Sequence[str], planned: Sequence[Planned]
) -> list[PolicyEvent]:
    """One approval per name that needs one, each showing the whole rename's diff."""
    diff = "\n".join(write_diff(p.prepared.rel, p.prepared.before, p.after) for p in planned)
    events: list[PolicyEvent] = []
    for subject in dict.fromkeys(asks):
        decision = await ctx.gate.check(Act.WRITE, subject, diff=diff)
        if decision.event is not None:
            events.append(decision.event)
        if not decision.allowed:
            raise Refused(f"`{subject}`: {decision.message}", tuple(events))
    return events


def _commit_all(planned: Sequence[Planned], ctx: ToolContext) -> list[FileWrite]:
    """Announce every write, then make them; on a failure put back what was written."""
    if ctx.before_write is not None:
        for p in planned:
            ctx.before_write(p.prepared.rel, p.prepared.before, p.after)
    done: list[FileWrite] = []
    try:
        for p in planned:
            done.append(commit_write(p.prepared, p.after, ctx.writer))
    except OSError:
        for written in reversed(done):
            back = ctx.workspace.prepare_write(written.path)
            commit_write(back, written.before or b"", ctx.writer)
        raise
    finally:
        close_all(planned)
    return done


async def write_rename(
    kind: str, edits: Sequence[FileEdit], ctx: ToolContext, enc: Encoding
) -> tuple[list[FileWrite], tuple[PolicyEvent, ...]]:
    """Make the rename, or raise ``Refused`` with nothing written."""
    accesses, asks, events = await _authorize_all(kind, edits, ctx)
    planned = await asyncio.to_thread(_plan_all, accesses, edits, ctx, enc)
    if asks:
        try:
            events += await _ask(ctx, asks, planned)
        finally:
            close_all(planned)
        before = {p.prepared.rel: p.prepared.before for p in planned}
        planned = await asyncio.to_thread(_plan_all, accesses, edits, ctx, enc)
        if any(before[p.prepared.rel] != p.prepared.before for p in planned):
            close_all(planned)
            raise Refused(
                "a file of the rename changed while the approval was asked; rename again",
                tuple(events),
            )
    try:
        written = await asyncio.to_thread(_commit_all, planned, ctx)
    except Exception as exc:
        raise Refused(
            f"the rename could not be written ({type(exc).__name__}: {exc}); no file was changed",
            tuple(events),
        ) from None
    for w in written:
        ctx.gate.record_write(w.path)
    return written, tuple(events)


__all__ = ["Refused", "write_rename"]
