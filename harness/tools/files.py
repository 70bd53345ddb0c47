"""The file tools of §6.1: ``read_file``, ``write_file`` and ``edit_file``.

Reads are whole, a line range, or refused with the size and the remedy, never silently cut.
Writes are atomic, keep the file's mode, and never overwrite a buffer the user has not
saved (§6.5).
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from harness.tools.access import (
    Access,
    authorize,
    binary_refusal,
    decode_text,
    display_path,
    split_lines,
)
from harness.tools.base import ToolArgs, ToolContext, failure, header
from harness.types import (
    Act,
    FileWrite,
    Notice,
    NoticeKind,
    PolicyEvent,
    ReadSpan,
    ToolResult,
    TraceEvent,
    content_hash,
)


class ReadFileArgs(ToolArgs):
    path: str = Field(description="File path relative to the workspace root, e.g. src/a.py")
    offset: int | None = Field(default=None, ge=1, description="First line to read (1-based)")
    limit: int | None = Field(default=None, ge=1, description="How many lines to read")


class ReadFile:
    name: ClassVar[str] = "read_file"
    description: ClassVar[str] = (
        "Read a text file in the workspace. Paths are relative to the workspace root. "
        "Without offset/limit the whole file is returned; with them, `limit` lines starting "
        "at line `offset` (1-based). A file or range over the per-read size limit is refused "
        "with its size: then read it in ranges. Binary files are refused."
    )

    Args: ClassVar[type[ToolArgs]] = ReadFileArgs

    async def run(self, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
        access = await authorize(self.name, args.path, Act.READ, ctx)
        if isinstance(access, ToolResult):
            return access
        target = display_path(args.path)
        loaded = await _load_text(self.name, target, access.path, "read_file")
        if isinstance(loaded, ToolResult):
            return _with_policy(loaded, access.policy)
        data, text = loaded
        lines = split_lines(text)
        whole = args.offset is None and args.limit is None
        if whole:
            body, where = text, ""
        else:
            ranged = _line_range(target, lines, args.offset or 1, args.limit)
            if isinstance(ranged, str):
                return failure(self.name, target, ranged, policy=access.policy)
            body, where = ranged
        refusal = _over_limit(
            target, text, lines, body=body, where=where, limit=ctx.read_limit_chars
        )
        if refusal is not None:
            return failure(self.name, target, refusal, policy=access.policy)
        head = header(self.name, target) + (f" {where}" if where else "")
        notes = _read_notes(ctx, access.rel, body, whole)
        return ToolResult(
            name=self.name,
            target=target,
            text="\n".join([head, *notes, body]) if notes else f"{head}\n{body}",
            read=ReadSpan(access.rel, args.offset, args.limit, content_hash(data)),
            policy=access.policy,
        )


async def _load_text(
    kind: str, target: str, path: Path, what: str
) -> tuple[bytes, str] | ToolResult:
    try:
        data = await asyncio.to_thread(path.read_bytes)
    except IsADirectoryError:
        return failure(
            kind, target, f"`{target}` is a directory; use list_dir to see what is in it"
        )
    except FileNotFoundError:
        return failure(
            kind, target, f"`{target}` does not exist; use find or list_dir to locate it"
        )
    except OSError as exc:
        return failure(kind, target, f"`{target}` cannot be read: {exc.strerror or exc}")
    text = decode_text(data)
    if text is None:
        return binary_refusal(kind, target, len(data), what)
    return data, text


def _line_range(
    target: str, lines: list[str], offset: int, limit: int | None
) -> tuple[str, str] | str:
    """The body and the ``lines A-B of N`` note for a range, or why there is none."""
    total = len(lines)
    if offset > total:
        return f"offset {offset} is past the end: `{target}` has {total:,} lines"
    end = total if limit is None else min(total, offset + limit - 1)
    body = "\n".join(lines[offset - 1 : end])
    return body, f"lines {offset}-{end} of {total:,}"


def _over_limit(
    target: str, text: str, lines: list[str], *, body: str, where: str, limit: int
) -> str | None:
    if len(body) <= limit:
        return None
    avg = max(1.0, len(text) / max(1, len(lines)))
    fit = max(1, int(limit * 0.8 / avg))
    if fit >= 20:
        fit -= fit % 10
    if not where:
        return (
            f"{target} is {len(text):,} chars ({len(lines):,} lines), over the {limit:,}-char "
            f"limit for one read; read it in ranges with offset and limit "
            f"(e.g. offset=1, limit={fit})"
        )
    return (
        f"{where} of {target} are {len(body):,} chars, over the {limit:,}-char limit for one "
        f"read; read a smaller range (about {fit} lines fit)"
    )


def _read_notes(ctx: ToolContext, rel: str, body: str, whole: bool) -> list[str]:
    notes = []
    if ctx.guard is not None and ctx.guard.has_unsaved_changes(rel):
        notes.append(
            "note: the editor holds unsaved changes to this file; this is the content on disk"
        )
    if whole and not body:
        notes.append("(empty file)")
    return notes


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
        f"The agent wanted to change {rel}, which has unsaved changes in the editor; it was "
        "not written. Save or discard your changes to let it.",
    )
    return dataclasses.replace(
        refused,
        events=(TraceEvent("unsaved_refused", {"path": rel}),),
        notices=(notice,),
    )


async def _authorize_write(kind: str, raw: str, ctx: ToolContext) -> Access | ToolResult:
    """Containment (``.git/`` included), the ``write`` policy, then the user's unsaved buffer."""
    access = await authorize(kind, raw, Act.WRITE, ctx, for_write=True)
    if isinstance(access, ToolResult):
        return access
    target = display_path(raw)
    if access.path.is_dir():
        return failure(kind, target, f"`{target}` is a directory, not a file", policy=access.policy)
    if ctx.guard is not None and ctx.guard.has_unsaved_changes(access.rel):
        return _unsaved_refusal(kind, target, access.rel, access.policy)
    return access


async def _write(
    kind: str, target: str, ctx: ToolContext, access: Access, data: bytes
) -> FileWrite | ToolResult:
    try:
        return await asyncio.to_thread(ctx.workspace.write_atomic, access.rel, data)
    except OSError as exc:
        message = f"`{target}` could not be written: {exc.strerror or exc}"
        return failure(kind, target, message, policy=access.policy)


class WriteFileArgs(ToolArgs):
    path: str = Field(description="File path relative to the workspace root")
    content: str = Field(description="The complete new content of the file")


class WriteFile:
    name: ClassVar[str] = "write_file"
    description: ClassVar[str] = (
        "Create or overwrite a text file with the given content (the whole file). Parent "
        "directories are created. Paths are relative to the workspace root. To change part "
        "of an existing file, prefer edit_file. Files with unsaved changes in the editor, "
        "secrets and .git/ are refused."
    )

    Args: ClassVar[type[ToolArgs]] = WriteFileArgs

    async def run(self, args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
        access = await _authorize_write(self.name, args.path, ctx)
        if isinstance(access, ToolResult):
            return access
        target = display_path(args.path)
        written = await _write(self.name, target, ctx, access, args.content.encode("utf-8"))
        if isinstance(written, ToolResult):
            return written
        return ToolResult(
            name=self.name,
            target=target,
            text=f"[wrote {target}] ({len(args.content):,} chars)",
            writes=(written,),
            policy=access.policy,
        )


class EditFileArgs(ToolArgs):
    path: str = Field(description="File path relative to the workspace root")
    old: str = Field(description="The exact text to replace; must occur exactly once")
    new: str = Field(description="The replacement text")


class EditFile:
    name: ClassVar[str] = "edit_file"
    description: ClassVar[str] = (
        "Replace one exact piece of text in a file: `old` must occur exactly once in the file "
        "(copy it from read_file output, including indentation); it is replaced by `new`. "
        "If `old` occurs 0 or several times nothing is changed and you are told how many "
        "times it occurs."
    )

    Args: ClassVar[type[ToolArgs]] = EditFileArgs

    async def run(self, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
        target = display_path(args.path)
        if not args.old:
            return failure(
                self.name,
                target,
                "`old` is empty; copy the exact text to replace from the "
                "file (use write_file to create or overwrite a whole file)",
            )
        access = await _authorize_write(self.name, args.path, ctx)
        if isinstance(access, ToolResult):
            return access
        loaded = await _load_text(self.name, target, access.path, "edit_file")
        if isinstance(loaded, ToolResult):
            return _with_policy(loaded, access.policy)
        text = loaded[1]
        replaced = _replace_once(target, text, args.old, args.new)
        if isinstance(replaced, str):
            return failure(self.name, target, replaced, policy=access.policy)
        new_text, old, new = replaced
        line = text[: text.index(old)].count("\n") + 1
        head = header(self.name, target)
        if new_text == text:
            text_out = f"{head} (no change: old and new are identical, at line {line})"
            return ToolResult(self.name, target, text_out, policy=access.policy)
        written = await _write(self.name, target, ctx, access, new_text.encode("utf-8"))
        if isinstance(written, ToolResult):
            return written
        return ToolResult(
            name=self.name,
            target=target,
            text=f"{head} {_describe_edit(old, new, line)}",
            writes=(written,),
            policy=access.policy,
        )


def _replace_once(target: str, text: str, old: str, new: str) -> tuple[str, str, str] | str:
    """The new text, or why not. A file with CRLF endings matches an ``old`` written with
    plain ``\\n`` (models rarely reproduce ``\\r``), and keeps its CRLF endings."""
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
    if count == 0:
        return (
            f"`old` was not found in `{target}`; read the file and copy the exact text "
            "(including indentation and line breaks)"
        )
    if count > 1:
        return (
            f"`old` occurs {count} times in `{target}`; include more surrounding lines so it "
            "is unique"
        )
    return text.replace(old, new, 1), old, new


def _describe_edit(old: str, new: str, line: int) -> str:
    old_lines, new_lines = old.count("\n") + 1, new.count("\n") + 1
    return (
        f"replaced {old_lines} line{'s' if old_lines != 1 else ''} with {new_lines} "
        f"line{'s' if new_lines != 1 else ''} at line {line} ({len(old):,} → {len(new):,} chars)"
    )


def _with_policy(result: ToolResult, policy: tuple[PolicyEvent, ...]) -> ToolResult:
    return dataclasses.replace(result, policy=policy) if policy else result


__all__ = ["EditFile", "ReadFile", "WriteFile"]
