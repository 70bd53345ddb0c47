"""The four semantic tools of §14 — ``symbols``, ``references``, ``rename_symbol``,
``diagnostics`` — declared like every other tool and answered through the run's
``SemanticPort`` (``ToolContext.semantic``), whichever back end that is. A semantic answer
is a read of every file it lists: a file the policy refuses is left out and counted, a
place outside the workspace is refused and counted."""

from __future__ import annotations

import dataclasses
import time

from pydantic import Field

from harness.semantic.after import diagnostics_now
from harness.semantic.config import DEFAULT_WAIT_MS
from harness.semantic.format import (
    MAX_ROWS,
    diagnostic_rows,
    left_out,
    outline,
    reference_rows,
    rename_rows,
)
from harness.semantic.model import Answer, Method, Query, SemanticPort, SemanticUnavailable
from harness.semantic.text import listed_hash, locate, word
from harness.tools.access import display_path
from harness.tools.base import BaseTool, Tool, ToolArgs, ToolContext, failure
from harness.tools.renaming import Refused, write_rename
from harness.tools.semantic_reads import Readable, read_listed, read_target
from harness.types import ToolResult, TraceEvent

NO_PORT = "no semantic back end is available to this run; use grep and read_file instead"


class SymbolsArgs(ToolArgs):
    path: str = Field(description="File path relative to the workspace root")


class ReferencesArgs(ToolArgs):
    symbol: str = Field(min_length=1, description="The identifier, e.g. parse_config")
    path: str = Field(description="A file where the symbol occurs")
    line_content: str = Field(
        min_length=1, description="An exact piece of one line of `path` that contains `symbol`"
    )


class RenameArgs(ReferencesArgs):
    new_name: str = Field(min_length=1, description="The new identifier")


class DiagnosticsArgs(ToolArgs):
    path: str | None = Field(default=None, description="A file; omitted: every file this run wrote")


def _traced(result: ToolResult, answer: Answer, **more: object) -> ToolResult:
    """The back end and server that answered, for the trace (§14); ``more``: what the
    run's reference watch needs (``harness.semantic.stale``)."""
    data: dict[str, object] = {"backend": answer.backend, "server": answer.server}
    data.update(ms=answer.ms, **more)
    if answer.fallback:
        data["fallback"] = answer.fallback
    event = TraceEvent("semantic", data)
    return ToolResult(
        result.name,
        result.target,
        result.text,
        result.ok,
        result.read,
        result.writes,
        result.policy,
        (*result.events, event),
        result.exit_code,
        result.notices,
    )


async def _ask(kind: str, target: str, ctx: ToolContext, query: Query) -> Answer | ToolResult:
    port: SemanticPort | None = ctx.semantic
    if port is None:
        return failure(kind, target, NO_PORT)
    started = time.perf_counter()
    try:
        answer = await port.answer(query)
    except SemanticUnavailable as exc:
        return failure(kind, target, str(exc))
    return dataclasses.replace(answer, ms=round((time.perf_counter() - started) * 1000))


async def _positioned(
    kind: str, args: ReferencesArgs, target: str, ctx: ToolContext, new_name: str | None = None
) -> tuple[Answer, Readable] | ToolResult:
    """Read the file, find the symbol by its quoted line, ask the back end."""
    read = await read_target(kind, args.path, target, ctx)
    if isinstance(read, ToolResult):
        return read
    where = locate(read.text, args.symbol, args.line_content, "utf-32")
    if isinstance(where, str):
        return failure(kind, target, f"in `{read.rel}`: {where}")
    method: Method = "rename" if new_name is not None else "references"
    query = Query(method, read.rel, read.text, where, new_name)
    answer = await _ask(kind, target, ctx, query)
    if isinstance(answer, ToolResult):
        return answer
    return answer, read


class Symbols(
    BaseTool, name="symbols", args=SymbolsArgs, label="symbols", target="path", supersedes="path"
):
    """The outline of one file from its language server: every class, function, method,
    variable with its kind, name and line range, nested by indent. Cheaper than reading
    a long file to find where things are."""

    async def run(self, args: SymbolsArgs, ctx: ToolContext) -> ToolResult:
        target = display_path(args.path)
        read = await read_target(self.name, args.path, target, ctx)
        if isinstance(read, ToolResult):
            return read
        answer = await _ask(self.name, target, ctx, Query("symbols", read.rel, read.text))
        if isinstance(answer, ToolResult):
            return answer
        rows, total = outline(answer.symbols)
        body = rows if total else ["(no symbols)"]
        text = "\n".join([f"[symbols {target}]", *body])
        return _traced(ToolResult(self.name, target, text, policy=read.policy), answer)


class References(
    BaseTool,
    name="references",
    args=ReferencesArgs,
    label="references",
    target="symbol",
    supersedes="target",
    facts={"rows": MAX_ROWS},
):
    """Every reference to a symbol across the workspace, from the language server: the
    definition first, then each use as `path:line: text` (at most {rows}). Address the
    symbol by quoting `line_content`, an exact piece of one line of `path` containing
    it — never a column. Use it before changing a signature or deleting a function;
    unlike grep it skips same-named locals, comments and strings."""

    async def run(self, args: ReferencesArgs, ctx: ToolContext) -> ToolResult:
        target = f"{args.symbol} ({display_path(args.path)})"
        got = await _positioned(self.name, args, target, ctx)
        if isinstance(got, ToolResult):
            return got
        answer, read = got
        listed = await read_listed(ctx, [loc.path for loc in answer.locations], read)
        kept = [loc for loc in answer.locations if loc.path in listed.texts]
        definition = kept[0] if kept else None  # servers list the declaration first
        rows = reference_rows(kept, definition, listed.texts)
        extra = left_out(listed.refused) + _outside(answer.outside + listed.outside)
        head = f"[references {target}]"
        files = len({loc.path for loc in answer.locations})
        extra += _search_limit(answer, files)
        text = "\n".join([head, *(rows or ["(no references found)"]), *extra])
        watch = {"query": args.model_dump(), "listed": _hashes(listed.texts, read)}
        result = ToolResult(self.name, target, text, policy=listed.policy)
        return _traced(result, answer, **watch)


def _hashes(texts: dict[str, str], read: Readable) -> dict[str, str]:
    """The listed files' hashes as answered (the queried file among them: its quoted line
    may move too)."""
    return {path: listed_hash(text) for path, text in {read.rel: read.text, **texts}.items()}


JEDI_FILE_LIMIT = 30  # jedi stops searching after parsing this many files (docs/semantic.md)


def _search_limit(answer: Answer, files: int) -> list[str]:
    """A warning when jedi may have stopped searching: it parses at most 30 files that
    mention the name, so an answer reaching that many files may be incomplete."""
    if "jedi" not in answer.server or files < JEDI_FILE_LIMIT:
        return []
    return [
        f"note: {answer.server} searches at most {JEDI_FILE_LIMIT} files that mention the "
        "name, so places in other files may be missing; check with grep"
    ]


def _outside(count: int) -> list[str]:
    if count <= 0:
        return []
    return [f"({count:,} places refused: outside the workspace)"]


class RenameSymbol(
    BaseTool, name="rename_symbol", args=RenameArgs, label="renamed", target="symbol"
):
    """Rename a symbol everywhere it is referenced, in one step, through the language
    server: only real references change — not same-named locals, comments or strings.
    Address it by quoting `line_content`, an exact piece of one line of `path` containing
    `symbol`. All files are written together or none is. Use this instead of editing
    each occurrence with edit_file."""

    async def run(self, args: RenameArgs, ctx: ToolContext) -> ToolResult:
        target = f"{args.symbol} → {args.new_name}"
        got = await _positioned(self.name, args, target, ctx, args.new_name)
        if isinstance(got, ToolResult):
            return got
        answer, _ = got
        if answer.outside:
            message = (
                f"the language server's rename touches {answer.outside} places outside "
                "the workspace; nothing was written"
            )
            return _traced(failure(self.name, target, message), answer)
        edits = [e for e in answer.edits if e.edits]
        if not edits:
            return _traced(
                failure(
                    self.name,
                    target,
                    f"the language server found nothing to rename at `{args.symbol}`",
                ),
                answer,
            )
        try:
            written, policy = await write_rename(self.name, edits, ctx, answer.encoding)
        except Refused as exc:
            message = f"the rename was refused and nothing was written: {exc}"
            return _traced(failure(self.name, target, message, policy=exc.policy), answer)
        counts = {w.path: _places(w.before, w.after, args.new_name) for w in written}
        places = sum(counts.values())
        files = f"{len(written):,} file{'' if len(written) == 1 else 's'}"
        head = f"[renamed {target}] {places:,} place{'' if places == 1 else 's'} in {files}"
        text = "\n".join([head, *rename_rows(counts), *_search_limit(answer, len(written))])
        renamed = {"symbol": args.symbol, "new_name": args.new_name}
        result = ToolResult(self.name, target, text, writes=tuple(written), policy=policy)
        return _traced(result, answer, renamed=renamed)


def _places(before: bytes | None, after: bytes, new_name: str) -> int:
    """Places renamed in one file: how many more times ``new_name`` stands there as a
    word (a server may send one place as several character-level edits, as jedi does)."""
    pattern = word(new_name)
    old = (before or b"").decode("utf-8", errors="replace")
    new = after.decode("utf-8", errors="replace")
    return max(len(pattern.findall(new)) - len(pattern.findall(old)), 1)


class Diagnostics(
    BaseTool,
    name="diagnostics",
    args=DiagnosticsArgs,
    label="diagnostics",
    target="path",
    supersedes="path",
):
    """Errors and warnings the language server reports for a file (`path`), or for every
    file this run wrote (no `path`): `path:line:col severity source: message`. Call it
    after a change you are unsure of, before running the tests."""

    async def run(self, args: DiagnosticsArgs, ctx: ToolContext) -> ToolResult:
        port = ctx.semantic
        target = display_path(args.path) if args.path else ""
        if port is None:
            return failure(self.name, target, NO_PORT)
        paths = tuple(ctx.gate.written) if args.path is None else ()
        if args.path is not None:
            read = await read_target(self.name, args.path, target, ctx)
            if isinstance(read, ToolResult):
                return read
            paths = (read.rel,)
        if not paths:
            return failure(self.name, target, "this run wrote no file yet; name a `path`")
        wait = port.after_edit_wait_ms()  # a pushing server needs a moment after the open
        wait = DEFAULT_WAIT_MS if wait is None else wait
        found = await diagnostics_now(port, ctx.workspace, ctx.gate, paths, wait)
        rows = diagnostic_rows(found)
        head = f"[diagnostics {target}]" if target else "[diagnostics]"
        text = "\n".join([head, *(rows or ["(no errors or warnings)"])])
        return ToolResult(self.name, target, text)


SEMANTIC_TOOLS: tuple[type[Tool], ...] = (Symbols, References, RenameSymbol, Diagnostics)

__all__ = ["SEMANTIC_TOOLS", "Diagnostics", "References", "RenameSymbol", "Symbols"]
