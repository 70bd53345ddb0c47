"""The file tools of §6.1: ``read_file``, ``write_file`` and ``edit_file``.

Reads are whole or a line range; over the cap they show the whole lines that fit and say
which (``harness.tools.span``), never silently cut and never refused for size. Only
regular files are opened, through the workspace's race-free resolver; the file's real name
is checked again when it is opened. Writes go through ``harness.tools.writing``: asked
with their diff where the policy says ask, announced (``ctx.before_write``) before the disk
is touched, atomic, keeping the file's mode, never over a buffer the user has not saved.
"""

from __future__ import annotations

import asyncio
import functools

from pydantic import Field

from harness.errors import ContainmentError
from harness.tools.access import (
    Access,
    authorize,
    display_path,
    open_error,
    same_name,
)
from harness.tools.base import BaseTool, ToolArgs, ToolContext, failure, header
from harness.tools.edits import describe_edit, replace_once
from harness.tools.span import EMPTY_FILE, SpanError, SpanText, read_body_cap, read_span
from harness.tools.writing import write
from harness.types import (
    Act,
    ReadSpan,
    ToolResult,
)
from harness.workspace import PreparedWrite, Workspace


class ReadFileArgs(ToolArgs):
    path: str = Field(description="File path relative to the workspace root, e.g. src/a.py")
    offset: int | None = Field(default=None, ge=1, description="First line to read (1-based)")
    limit: int | None = Field(default=None, ge=1, description="How many lines to read")


class ReadFile(
    BaseTool, name="read_file", args=ReadFileArgs, label="read", target="path", supersedes="path"
):
    """Read a text file in the workspace. Paths are relative to the workspace root.
    Without offset/limit the whole file is returned; with them, `limit` lines starting
    at line `offset` (1-based). A file or range longer than the per-read size limit
    returns the whole lines that fit and ends with a marker naming them and the offset
    to read the rest from. Binary files and non-regular files are refused."""

    async def run(self, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
        access = await authorize(self.name, args.path, Act.READ, ctx)
        if isinstance(access, ToolResult):
            return access
        target = display_path(args.path)
        notes = _read_notes(ctx, access.rel)
        whole = args.offset is None and args.limit is None
        # The one cap the assembly-time re-read uses too, so both show the same lines.
        cap = read_body_cap(ctx.read_limit_chars, target, tuple(notes))
        read = await asyncio.to_thread(
            functools.partial(
                span_of,
                ctx.workspace,
                args.path,
                access,
                offset=args.offset,
                limit=args.limit,
                cap=cap,
            )
        )
        if isinstance(read, str):
            return failure(self.name, target, read, policy=access.policy)
        if isinstance(read, ToolResult):
            return read
        return _read_result(target, access, read, notes, whole)


def span_of(
    workspace: Workspace,
    raw: str,
    access: Access,
    *,
    offset: int | None,
    limit: int | None,
    cap: int,
) -> SpanText | ToolResult | str:
    """Open ``raw`` (checking it still leads to the name the policy allowed) and read the
    span; an error is the text for the model. Runs in a worker thread."""
    target = display_path(raw)
    try:
        with workspace.open_file(raw) as f:
            changed = same_name(access, f.rel, "read_file", target)
            if changed is not None:
                return changed
            return read_span(f, offset, limit, cap, f"`{target}`")
    except SpanError as exc:
        return str(exc)
    except (ContainmentError, OSError) as exc:
        return open_error("read_file", target, exc)


def _read_result(
    target: str, access: Access, read: SpanText, notes: list[str], whole: bool
) -> ToolResult:
    ranged = not whole or read.partial
    head = header("read_file", f"{target}:{read.first}-{read.last}" if not whole else target)
    lines = [head, *notes]
    if whole and not read.body:
        lines.append(EMPTY_FILE)
    span = ReadSpan(
        access.rel,
        read.first if ranged else None,
        read.count if ranged else None,
        read.content_hash,
        read.shown_hash,
    )
    return ToolResult(
        name="read_file",
        target=target,
        text="\n".join([*lines, read.body]),
        read=span,
        policy=access.policy,
    )


def _read_notes(ctx: ToolContext, rel: str) -> list[str]:
    if ctx.guard is not None and ctx.guard.has_unsaved_changes(rel):
        return ["note: the editor holds unsaved changes to this file; this is the content on disk"]
    return []


class _WriteArgs(ToolArgs):
    path: str = Field(description="File path relative to the workspace root")


class WriteFileArgs(_WriteArgs):
    content: str = Field(description="The complete new content of the file")


class WriteFile(BaseTool, name="write_file", args=WriteFileArgs, label="write", target="path"):
    """Create or overwrite a text file with the given content (the whole file). Parent
    directories are created. Paths are relative to the workspace root. To change part
    of an existing file, prefer edit_file. Files with unsaved changes in the editor,
    secrets, .git/ and .harness/ (under any name) and the harness's own programs are
    refused; files that an editor, git, a shell or CI runs by themselves (.vscode/,
    .envrc, CI workflows, ...) are written only if the user approves."""

    async def run(self, args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
        said = f"[wrote {display_path(args.path)}] ({len(args.content):,} chars)"
        return await write(
            self.name, args.path, ctx, lambda _p, _a: (args.content.encode("utf-8"), said)
        )


class EditFileArgs(_WriteArgs):
    old: str = Field(description="The exact text to replace; must occur exactly once")
    new: str = Field(description="The replacement text")


class EditFile(BaseTool, name="edit_file", args=EditFileArgs, label="edit", target="path"):
    """Replace one exact piece of text in a file: `old` must occur exactly once in the file
    (copy it from read_file output, including indentation); it is replaced by `new`.
    If `old` occurs 0 or several times nothing is changed and you are told how many
    times it occurs."""

    async def run(self, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
        if not args.old:
            return failure(
                self.name,
                display_path(args.path),
                "`old` is empty; copy the exact text to replace from the "
                "file (use write_file to create or overwrite a whole file)",
            )
        edit = functools.partial(_edited, display_path(args.path), args.old, args.new)
        return await write(self.name, args.path, ctx, edit)


def _edited(
    target: str, old: str, new: str, prepared: PreparedWrite, access: Access
) -> tuple[bytes, str] | ToolResult:
    """The file's bytes with ``old`` replaced, or why not (an identical ``new`` writes
    nothing and says so)."""
    text = _existing_text(prepared)
    if text is None:
        return _edit_unreadable(target, prepared, access)
    replaced = replace_once(target, text, old, new)
    if isinstance(replaced, str):
        return failure("edit_file", target, replaced, policy=access.policy)
    new_text, old, new = replaced
    line = text[: text.index(old)].count("\n") + 1
    head = header("edit_file", target)
    if new_text == text:
        said = f"{head} (no change: old and new are identical, at line {line})"
        return ToolResult("edit_file", target, said, policy=access.policy)
    return new_text.encode("utf-8"), f"{head} {describe_edit(old, new, line)}"


def _existing_text(prepared: PreparedWrite) -> str | None:
    if prepared.before is None or b"\x00" in prepared.before[:8192]:
        return None
    try:
        return prepared.before.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _edit_unreadable(target: str, prepared: PreparedWrite, access: Access) -> ToolResult:
    if prepared.before is None:
        message = f"`{target}` does not exist; use find or list_dir to locate it"
    else:
        message = (
            f"`{target}` is a binary or non-UTF-8 file ({len(prepared.before):,} bytes); "
            "edit_file works on text files only"
        )
    return failure("edit_file", target, message, policy=access.policy)


__all__ = ["EditFile", "ReadFile", "WriteFile"]
