"""The ``grep`` tool (§6.1) on ripgrep: linear-time regexes, ``.gitignore`` natively, and
no line of a file ``read_file`` may not open.

Two rg runs, each killed if the call is cancelled or the deadline passes: the number of
matching lines in every file rg searches (``rg --count --include-zero``: all cores, one
short line per file, always from the root so its ``.gitignore`` applies everywhere); the
files in that list are then admitted one by one (``harness.tools.scope``); and the text of
the first ``GREP_MAX_LINES`` lines from the first admitted files in path order comes from
``rg --json`` on at most that many files. Those are opened through the workspace's
race-free resolver first, as ``read_file`` opens them, and rg reads them through the open
files (``/proc/self/fd/N``), never by name: rg follows a symlink it is given, so a file
swapped for one after it was admitted would otherwise be searched. Whatever rg says about
a file that was not admitted is dropped: its lines are never shown, and the count of
skipped files does not depend on the pattern (the list holds every file searched, matching
or not).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from harness.errors import ContainmentError
from harness.tools.access import owned
from harness.tools.base import BaseTool, ToolArgs, ToolContext, failure, header
from harness.tools.ripgrep import (
    BASE_FLAGS,
    RipgrepError,
    RipgrepTimeout,
    failure_text,
    incomplete_text,
    run_rg,
)
from harness.tools.scope import Scope, admit, search_target
from harness.types import ToolResult
from harness.workspace import OpenFile, PathGlob, Workspace
from harness.workspace.files import shown_name

GREP_MAX_LINES = 50
LINE_CLIP_CHARS = 200
GREP_TIMEOUT_S = 60.0  # the whole call


@dataclass(frozen=True)
class LineHit:
    path: str
    line_no: int
    text: str
    column: int  # where the first match starts in ``text``


class GrepArgs(ToolArgs):
    pattern: str = Field(
        min_length=1, description="Regular expression (ripgrep / Rust regex syntax)"
    )
    path_glob: str | None = Field(
        default=None, description="Only files matching this glob or under this directory"
    )


class Grep(
    BaseTool,
    name="grep",
    args=GrepArgs,
    target="pattern",
    supersedes="target",
    facts={"most": GREP_MAX_LINES},
):
    """Search file contents in the workspace with ripgrep. The pattern is a regular
    expression in ripgrep's (Rust regex) syntax: like Python's re but without
    look-around or backreferences; matched per line (^ and $ are line start and end;
    (?i) for case-insensitive). Optional path_glob limits the files: a glob where *
    also crosses directories, matched against the relative path or the file name
    (e.g. `*.py`, `src/*.ts`), or a directory (`src`). Prints `path:line: text`, at
    most {most} lines, then how many more there are. Binary and ignored
    files (.gitignore, .git, node_modules, .venv) and files you may not read are
    skipped."""

    async def run(self, args: GrepArgs, ctx: ToolContext) -> ToolResult:
        target = f"{args.pattern} in {args.path_glob}" if args.path_glob else args.pattern
        if "\0" in args.pattern:
            # A NUL cannot be passed to a program as an argument (nor is it in a text line).
            message = (
                "the pattern holds a NUL character, which ripgrep cannot be given; write it "
                "as \\x00 in the regex, or leave it out"
            )
            return failure(self.name, target, message)
        where = search_target(ctx.workspace, args.path_glob, self.name, target)
        if isinstance(where, ToolResult):
            return where
        under, glob = where
        try:
            async with asyncio.timeout(GREP_TIMEOUT_S):
                return await self._search(args.pattern, under, glob, ctx, target)
        except RipgrepError as exc:
            return failure(self.name, target, str(exc))
        except (RipgrepTimeout, TimeoutError):
            return failure(
                self.name,
                target,
                f"the search was stopped after {GREP_TIMEOUT_S:.0f} s (ripgrep was killed); "
                "narrow it with path_glob",
            )

    async def _search(
        self, pattern: str, under: str | None, glob: PathGlob | None, ctx: ToolContext, target: str
    ) -> ToolResult:
        ws = ctx.workspace
        out = await run_rg(
            [*BASE_FLAGS, "--count", "--include-zero", "--null", "-e", pattern], ws.root
        )
        if out.code == 2 and not out.stdout:
            failed = failure_text(out.stderr)
            if failed is not None:
                return failure(self.name, target, failed)
        searched = parse_counts(out.stdout)
        rels = sorted(searched)
        if under is not None:
            prefix = under.rstrip("/") + "/"
            rels = [rel for rel in rels if rel.startswith(prefix)]
        scope = await asyncio.to_thread(admit, ws, ctx.gate, rels, glob, list(searched))
        counts = {rel: searched[rel] for rel in scope.files if searched[rel]}
        hits = await first_lines(ws, pattern, scope, counts)
        text = grep_text(target, scope, counts, hits)
        incomplete = incomplete_text(out)
        return ToolResult(self.name, target, f"{text}\n{incomplete}" if incomplete else text)


def parse_counts(stdout: bytes) -> dict[str, int]:
    """``path NUL count`` lines: matching lines per file rg searched (``--include-zero``:
    every text file its ignore rules keep, so the list does not depend on the pattern)."""
    counts: dict[str, int] = {}
    # One decode for all (surrogateescape: the same str os.fsdecode would give per path).
    for line in stdout.decode("utf-8", errors="surrogateescape").split("\n"):
        rel, sep, number = line.rpartition("\0")
        if sep and number.isdigit():
            counts[rel[2:] if rel.startswith("./") else rel] = int(number)
    return counts


async def first_lines(
    ws: Workspace, pattern: str, scope: Scope, counts: dict[str, int]
) -> list[LineHit]:
    """The first ``GREP_MAX_LINES`` matching lines in path order."""
    opened = await owned(lambda: _open_admitted(ws, scope, counts), _close_all)
    if not opened:
        return []
    try:
        by_name = {f"/proc/self/fd/{f.fd}": f.rel for f in opened}
        args = [*BASE_FLAGS, "--json", "--max-count", str(GREP_MAX_LINES), "-e", pattern, "--"]
        out = await run_rg([*args, *by_name], ws.root, pass_fds=tuple(f.fd for f in opened))
    finally:
        _close_all(opened)
    chosen = list(by_name.values())
    by_file: dict[str, list[LineHit]] = {}
    for line in out.stdout.splitlines():
        hit = _parse_match(line)
        rel = by_name.get(hit.path) if hit is not None else None
        if hit is not None and rel is not None:
            by_file.setdefault(rel, []).append(dataclasses.replace(hit, path=rel))
    hits: list[LineHit] = []
    for rel in chosen:
        found = sorted(by_file.get(rel, []), key=lambda h: h.line_no)[: counts[rel]]
        hits += found[: GREP_MAX_LINES - len(hits)]
    return hits


def _open_admitted(ws: Workspace, scope: Scope, counts: dict[str, int]) -> list[OpenFile]:
    """The admitted files with matches, in path order, until they hold enough lines: each
    opened as ``read_file`` would open it, and only if it is still the file admitted."""
    opened: list[OpenFile] = []
    need = GREP_MAX_LINES
    for rel in scope.files:
        if need <= 0:
            break
        if not counts.get(rel):
            continue
        try:
            f = ws.open_file(rel)
        except (ContainmentError, OSError):
            continue  # swapped, moved or gone since it was admitted
        if f.rel != rel or (f.st.st_dev, f.st.st_ino) != scope.ident.get(rel):
            f.close()
            continue
        opened.append(f)
        need -= counts[rel]
    return opened


def _close_all(files: list[OpenFile]) -> None:
    for f in files:
        f.close()


def _parse_match(line: bytes) -> LineHit | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if message.get("type") != "match":
        return None
    data: dict[str, Any] = message["data"]
    path = _field(data["path"]).decode("utf-8", errors="surrogateescape")
    raw = _field(data["lines"]).rstrip(b"\n").rstrip(b"\r")
    subs = data.get("submatches") or []
    start = int(subs[0]["start"]) if subs else 0
    text = raw.decode("utf-8", errors="replace")
    column = len(raw[:start].decode("utf-8", errors="replace"))
    return LineHit(
        path[2:] if path.startswith("./") else path, int(data["line_number"]), text, column
    )


def _field(value: dict[str, str]) -> bytes:
    """rg's JSON gives text as ``{"text": ...}`` or, when not UTF-8, ``{"bytes": base64}``."""
    if "text" in value:
        return value["text"].encode("utf-8", errors="surrogateescape")
    return base64.b64decode(value.get("bytes", ""))


def grep_text(target: str, scope: Scope, counts: dict[str, int], hits: list[LineHit]) -> str:
    lines = [header("grep", target)]
    lines += [_hit_line(hit) for hit in hits]
    if not hits:
        lines.append(f"no matches in {len(scope.files):,} files")
    total = sum(counts.values())
    rest = total - len(hits)
    if rest > 0:
        shown: dict[str, int] = {}
        for hit in hits:
            shown[hit.path] = shown.get(hit.path, 0) + 1
        files = sum(1 for rel, n in counts.items() if n > shown.get(rel, 0))
        lines.append(
            f"… {rest:,} more matching lines in {files:,} file{'s' if files != 1 else ''} "
            "not shown (narrow the pattern or path_glob to see them)"
        )
    skipped = scope.skipped("skipped")
    if skipped:
        lines.append(skipped)
    return "\n".join(lines)


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
    return f"{shown_name(hit.path)}:{hit.line_no}: {text}"


__all__ = ["GREP_MAX_LINES", "GREP_TIMEOUT_S", "LINE_CLIP_CHARS", "Grep", "GrepArgs", "LineHit"]
