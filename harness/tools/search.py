"""The search tools of §6.1: ``grep`` (``harness.tools.grep``), ``find`` and ``list_dir``.

grep and find run on ripgrep (``harness.tools.ripgrep``): the ignore rules (``.git``,
``node_modules``, ``.venv``, ``.gitignore``) are rg's, and only files ``read_file`` could
open are searched or listed (``harness.tools.scope``). list_dir opens its directory
through the workspace's race-free resolver and applies the same ignore rules.
"""

from __future__ import annotations

import asyncio
import os

from pydantic import Field

from harness.errors import ContainmentError
from harness.tools.access import authorize, display_path
from harness.tools.base import BaseTool, ToolArgs, ToolContext, failure, header
from harness.tools.grep import GREP_MAX_LINES, LINE_CLIP_CHARS, Grep, GrepArgs
from harness.tools.ripgrep import RipgrepError, RipgrepTimeout
from harness.tools.scope import Scope, admit, listing
from harness.types import Act, ToolResult
from harness.workspace import PathGlob, Workspace
from harness.workspace.files import shown_name

FIND_MAX_PATHS = 200
FIND_TIMEOUT_S = 60.0
LIST_MAX_ENTRIES = 500


class FindArgs(ToolArgs):
    name_glob: str = Field(min_length=1, description="Glob for the path or file name")


class Find(
    BaseTool,
    name="find",
    args=FindArgs,
    target="name_glob",
    supersedes="target",
    facts={"most": FIND_MAX_PATHS},
):
    """Find files in the workspace by name: a glob where * also crosses directories,
    matched against the relative path or the file name (e.g. `*.py`, `test_*`,
    `src/*/config.*`), or a directory name (`src`). Prints up to {most}
    sorted relative paths, then how many more. Ignored files, symlinks and files you
    may not read are not listed."""

    async def run(self, args: FindArgs, ctx: ToolContext) -> ToolResult:
        glob = PathGlob(args.name_glob, dirs=True)
        try:
            async with asyncio.timeout(FIND_TIMEOUT_S):
                rels, incomplete = await listing(ctx.workspace, None)
                named = [rel for rel in rels if glob.matches(rel)]
                scope = await asyncio.to_thread(admit, ctx.workspace, ctx.gate, named, None, rels)
        except RipgrepError as exc:
            return failure(self.name, args.name_glob, str(exc))
        except (RipgrepTimeout, TimeoutError):
            message = f"the listing was stopped after {FIND_TIMEOUT_S:.0f} s; narrow the glob"
            return failure(self.name, args.name_glob, message)
        shown = scope.files[:FIND_MAX_PATHS]
        more = len(scope.files) - len(shown)
        lines = [header(self.name, args.name_glob), *map(shown_name, shown)]
        if not shown:
            lines.append(f"no files match `{args.name_glob}`")
        if more:
            lines.append(f"… {more:,} more not shown (narrow the glob to see them)")
        skipped = _not_listed(scope)
        if skipped:
            lines.append(skipped)
        if incomplete:
            lines.append(incomplete)
        return ToolResult(self.name, args.name_glob, "\n".join(lines))


def _not_listed(scope: Scope) -> str:
    """``1 file not listed: read_file may not open it (policy)``."""
    n = scope.denied + scope.needs_approval + scope.linked_out
    if not n:
        return ""
    reasons = []
    if scope.denied:
        reasons.append(f"read_file may not open {'it' if n == 1 else f'{scope.denied:,}'} (policy)")
    if scope.needs_approval:
        reasons.append(f"{scope.needs_approval:,} need approval to read")
    if scope.linked_out:
        reasons.append(f"{scope.linked_out:,} hard-linked to a file outside the workspace")
    return f"{n:,} file{'' if n == 1 else 's'} not listed: " + "; ".join(reasons)


class ListDirArgs(ToolArgs):
    path: str = Field(default=".", description="Directory relative to the workspace root")


class ListDir(
    BaseTool,
    name="list_dir",
    args=ListDirArgs,
    label="list",
    target="path",
    supersedes="path",
    facts={"most": LIST_MAX_ENTRIES},
):
    """List a directory of the workspace (default: the root). Entries are sorted;
    directories end with `/`. Ignored entries (.git, node_modules, .venv, .gitignore)
    are counted but not listed. At most {most} entries."""

    async def run(self, args: ListDirArgs, ctx: ToolContext) -> ToolResult:
        access = await authorize(self.name, args.path, Act.READ, ctx)
        if isinstance(access, ToolResult):
            return access
        target = display_path(args.path)

        listed = await asyncio.to_thread(_list, ctx.workspace, args.path, access.rel)
        if isinstance(listed, str):
            return failure(self.name, target, listed, policy=access.policy)
        shown, ignored = listed
        return ToolResult(
            self.name, target, _list_text(target, shown, ignored), policy=access.policy
        )


def _list(ws: Workspace, raw: str, rel: str) -> tuple[list[str], list[str]] | str:
    """Entries shown and entries ignored, or why the directory cannot be listed. The
    directory is opened through the resolver (no symlink followed behind its back) and read
    through its fd; entries are not followed either (a symlink is listed by its name)."""
    try:
        with ws.locate(raw) as loc:
            if loc.st is None or loc.fd is None:
                return f"`{rel}` does not exist; use find to locate it"
            if loc.rel != rel:
                return f"`{rel}` changed while it was being opened; try again"
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
            dfd = os.open(".", flags, dir_fd=loc.fd)
        try:
            with os.scandir(dfd) as it:
                entries = sorted(it, key=lambda e: e.name)
        finally:
            os.close(dfd)
    except NotADirectoryError:
        return f"`{rel}` is a file, not a directory; use read_file to read it"
    except FileNotFoundError:
        return f"`{rel}` does not exist; use find to locate it"
    except (OSError, ContainmentError) as exc:
        return f"`{rel}` cannot be listed: {getattr(exc, 'strerror', None) or exc}"
    shown: list[str] = []
    ignored: list[str] = []
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        name = shown_name(entry.name) + ("/" if is_dir else "")
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


__all__ = [
    "FIND_MAX_PATHS",
    "GREP_MAX_LINES",
    "LINE_CLIP_CHARS",
    "LIST_MAX_ENTRIES",
    "Find",
    "Grep",
    "GrepArgs",
    "ListDir",
]
