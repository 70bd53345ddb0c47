"""The search tools of §6.1: ``grep``, ``find`` and ``list_dir``.

All three honour the ignore rules (``.git``, ``node_modules``, ``.venv``, ``.gitignore``)
and run their walks in a worker thread so the event loop stays responsive. ``grep`` shows
no line of a file the policy does not let the agent read.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, TypeVar

from pydantic import Field

from harness.errors import ContainmentError
from harness.tools.access import authorize, display_path
from harness.tools.base import ToolArgs, ToolContext, failure, header
from harness.tools.grep_engine import LineHit, SearchOutcome, compile_pattern, search
from harness.types import Act, Effect, PolicyEvent, ToolResult
from harness.workspace import PathGlob, Workspace

GREP_MAX_LINES = 50
LINE_CLIP_CHARS = 200
FIND_MAX_PATHS = 200
LIST_MAX_ENTRIES = 500
_GLOB_MAGIC = re.compile(r"[*?\[]")

T = TypeVar("T")


async def _in_thread(work: Callable[[threading.Event], T]) -> T:
    """Run ``work`` in a thread; if the caller is cancelled, tell the work to stop."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(work, stop)
    except asyncio.CancelledError:
        stop.set()
        raise


class GrepArgs(ToolArgs):
    pattern: str = Field(min_length=1, description="Python regular expression")
    path_glob: str | None = Field(
        default=None, description="Only files matching this glob or under this directory"
    )


class Grep:
    name: ClassVar[str] = "grep"
    description: ClassVar[str] = (
        "Search file contents in the workspace with a Python regular expression (re syntax, "
        "matched per line; ^ and $ are line start and end). Optional path_glob limits the "
        "files: a glob where * also crosses directories, matched against the relative path "
        "or the file name (e.g. `*.py`, `src/*.ts`), or a directory (`src`). Prints "
        f"`path:line: text`, at most {GREP_MAX_LINES} lines, then how many more there are. "
        "Binary and ignored files (.gitignore, .git, node_modules, .venv) are skipped."
    )

    Args: ClassVar[type[ToolArgs]] = GrepArgs

    async def run(self, args: GrepArgs, ctx: ToolContext) -> ToolResult:
        target = f"{args.pattern} in {args.path_glob}" if args.path_glob else args.pattern
        try:
            matcher = compile_pattern(args.pattern)
        except re.error as exc:
            return failure(
                self.name,
                target,
                f"bad regular expression: {exc}; fix the pattern (Python re "
                "syntax; escape literal characters such as ( [ . * with a backslash)",
            )
        scope = _scope(ctx.workspace, args.path_glob, Act.READ, self.name, target)
        if isinstance(scope, ToolResult):
            return scope
        under, glob = scope

        def permit(rel: str) -> bool:
            return ctx.gate.check_nowait(Act.READ, rel).allowed

        def work(stop: threading.Event) -> SearchOutcome:
            files = ctx.workspace.walk_files(under)
            chosen = (f for f in files if glob.matches(f)) if glob is not None else files
            root = ctx.workspace.root
            return search(root, chosen, matcher, keep=GREP_MAX_LINES, permit=permit, stop=stop)

        outcome = await _in_thread(work)
        return ToolResult(self.name, target, _grep_text(target, outcome))


def _scope(
    ws: Workspace, path_glob: str | None, act: Act, kind: str, target: str
) -> tuple[str, PathGlob | None] | ToolResult:
    """Where to walk and what to keep. A glob without wildcards that names a directory is
    walked directly (faster than filtering the whole tree)."""
    if path_glob is None or not path_glob.strip() or display_path(path_glob) == ".":
        return ".", None
    if not _GLOB_MAGIC.search(path_glob):
        try:
            path = ws.resolve(path_glob)
        except ContainmentError as exc:
            event = PolicyEvent(act, path_glob, Effect.DENY, None, "containment", False, str(exc))
            return failure(kind, target, str(exc), policy=(event,))
        if path.is_dir():
            rel = ws.relative(path)
            if ws.is_ignored(rel, True):
                return ToolResult(kind, target, f"{header(kind, target)}\n{_ignored_note(rel)}")
            return rel, None
    return ".", PathGlob(path_glob, dirs=True)


def _ignored_note(rel: str) -> str:
    return (
        f"`{rel}` is ignored (.gitignore, .git, node_modules or .venv), so it is not "
        "searched; read_file a file in it by path if you need one"
    )


def _grep_text(target: str, out: SearchOutcome) -> str:
    lines = [header("grep", target)]
    lines += [_hit_line(hit) for hit in out.hits]
    if not out.hits:
        lines.append(f"no matches in {out.files_searched:,} files")
    rest = out.total_lines - len(out.hits)
    if rest > 0:
        files = out.files_with_rest
        lines.append(
            f"… {rest:,} more matching lines in {files:,} file{'s' if files != 1 else ''} "
            "not shown (narrow the pattern or path_glob to see them)"
        )
    skipped = _skipped(out)
    if skipped:
        lines.append(f"skipped: {skipped}")
    return "\n".join(lines)


def _skipped(out: SearchOutcome) -> str:
    parts = []
    if out.binary_skipped:
        parts.append(f"{out.binary_skipped:,} binary files")
    if out.unreadable:
        parts.append(f"{out.unreadable:,} unreadable files")
    if out.refused:
        parts.append(
            f"{out.refused:,} matching files the policy does not let you read (or that need "
            "approval: read_file them to be asked)"
        )
    return ", ".join(parts)


def _hit_line(hit: LineHit) -> str:
    text = hit.text
    if len(text) > LINE_CLIP_CHARS:
        start = max(0, min(hit.column - LINE_CLIP_CHARS // 4, len(text) - LINE_CLIP_CHARS))
        end = start + LINE_CLIP_CHARS
        text = (
            ("…" if start else "")
            + text[start:end]
            + ("…" if end < len(hit.text) else "")
            + f" [line clipped: {len(hit.text):,} chars]"
        )
    return f"{hit.path}:{hit.line_no}: {text}"


class FindArgs(ToolArgs):
    name_glob: str = Field(min_length=1, description="Glob for the path or file name")


class Find:
    name: ClassVar[str] = "find"
    description: ClassVar[str] = (
        "Find files in the workspace by name: a glob where * also crosses directories, "
        "matched against the relative path or the file name (e.g. `*.py`, `test_*`, "
        f"`src/*/config.*`), or a directory name (`src`). Prints up to {FIND_MAX_PATHS} "
        "sorted relative paths, then how many more. Ignored files are not listed."
    )

    Args: ClassVar[type[ToolArgs]] = FindArgs

    async def run(self, args: FindArgs, ctx: ToolContext) -> ToolResult:
        glob = PathGlob(args.name_glob, dirs=True)

        def work(stop: threading.Event) -> tuple[list[str], int]:
            shown: list[str] = []
            more = 0
            for rel in ctx.workspace.walk_files():
                if stop.is_set():
                    break
                if glob.matches(rel):
                    if len(shown) < FIND_MAX_PATHS:
                        shown.append(rel)
                    else:
                        more += 1
            return shown, more

        shown, more = await _in_thread(work)
        lines = [header(self.name, args.name_glob), *shown]
        if not shown:
            lines.append(f"no files match `{args.name_glob}`")
        if more:
            lines.append(f"… {more:,} more not shown (narrow the glob to see them)")
        return ToolResult(self.name, args.name_glob, "\n".join(lines))


class ListDirArgs(ToolArgs):
    path: str = Field(default=".", description="Directory relative to the workspace root")


class ListDir:
    name: ClassVar[str] = "list_dir"
    description: ClassVar[str] = (
        "List a directory of the workspace (default: the root). Entries are sorted; "
        "directories end with `/`. Ignored entries (.git, node_modules, .venv, .gitignore) "
        f"are counted but not listed. At most {LIST_MAX_ENTRIES} entries."
    )

    Args: ClassVar[type[ToolArgs]] = ListDirArgs

    async def run(self, args: ListDirArgs, ctx: ToolContext) -> ToolResult:
        access = await authorize(self.name, args.path, Act.READ, ctx)
        if isinstance(access, ToolResult):
            return access
        target = display_path(args.path)

        def work(stop: threading.Event) -> tuple[list[str], list[str]] | str:
            return _list(ctx.workspace, access.path, access.rel)

        listed = await _in_thread(work)
        if isinstance(listed, str):
            return failure(self.name, target, listed, policy=access.policy)
        shown, ignored = listed
        return ToolResult(
            self.name, target, _list_text(target, shown, ignored), policy=access.policy
        )


def _list(ws: Workspace, path: Path, rel: str) -> tuple[list[str], list[str]] | str:
    """Entries shown and entries ignored, or why the directory cannot be listed."""
    try:
        with os.scandir(path) as it:
            entries = sorted(it, key=lambda e: e.name)
    except NotADirectoryError:
        return f"`{rel}` is a file, not a directory; use read_file to read it"
    except FileNotFoundError:
        return f"`{rel}` does not exist; use find to locate it"
    except OSError as exc:
        return f"`{rel}` cannot be listed: {exc.strerror or exc}"
    shown: list[str] = []
    ignored: list[str] = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        name = entry.name + ("/" if is_dir else "")
        child = entry.name if rel == "." else f"{rel}/{entry.name}"
        (ignored if ws.is_ignored(child, is_dir) else shown).append(name)
    return shown, ignored


def _list_text(target: str, shown: list[str], ignored: list[str]) -> str:
    lines = [header("list_dir", target), *shown[:LIST_MAX_ENTRIES]]
    if not shown:
        lines.append("(empty directory)" if not ignored else "(no entries that are not ignored)")
    if len(shown) > LIST_MAX_ENTRIES:
        lines.append(f"… {len(shown) - LIST_MAX_ENTRIES:,} more entries not shown")
    if ignored:
        names = ", ".join(ignored[:5]) + (", …" if len(ignored) > 5 else "")
        lines.append(f"({len(ignored):,} ignored not shown: {names})")
    return "\n".join(lines)


__all__ = ["Find", "Grep", "ListDir"]
