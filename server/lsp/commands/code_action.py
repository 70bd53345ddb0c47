"""``harness.codeAction``: run a code action of ``server.lsp.code_actions`` — a run whose
goal says what to do and whose context (§11) is the file's lines the action is on.

    {kind: "fix"|"ask", uri, range, diagnostic?, goal?, workspaceFolder?}
        → {runId, conversationId}, or null when the user dismissed the question

The goal, first found of:
1. ``goal`` in the arguments (``:lsp-workspace-command`` in Helix can pass one);
2. a ``harness: …`` comment on the range's lines (``# harness: make it iterative``),
   — with a fix, the diagnostic follows it;
3. a fix: "Fix this diagnostic in src/a.py, line 2: [source code] message";
4. an ask: the user's choice of a few questions through ``window/showMessageRequest``
   (dismissed: no run); a client that cannot show it (Helix: MethodNotFound,
   ``server.lsp.dialogs``) gets the default, "Explain the code in src/a.py, lines 1–2 and
   point out any problems".
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types

from server.lsp.commands.table import handles
from server.lsp.dialogs import Unavailable
from server.lsp.errors import InvalidParams
from server.lsp.folders import uri_to_path
from server.lsp.params import CodeActionParams, DiagnosticParams, RunParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost

COMMENT = re.compile(r"\bharness:(?!//)\s*(?P<goal>\S.*?)\s*(?:\*/|-->)?\s*$")
MAX_SCANNED_LINES = 200  # a comment further down a long selection is not looked for
MAX_READ_BYTES = 4_000_000
SEVERITIES = {1: "error", 2: "warning", 3: "information", 4: "hint"}
QUESTIONS = {
    "Explain it": "Explain the code in {where}.",
    "Find bugs": "Find the bugs in the code in {where} and fix them.",
    "Write tests": "Write tests for the code in {where}.",
    "Simplify it": "Simplify the code in {where}, keeping what it does.",
}
DEFAULT_ASK = "Explain the code in {where} and point out any problems."
MAX_DIAGNOSTIC_CHARS = 4_000  # of a diagnostic's message, in the goal


@handles("harness.codeAction")
async def code_action(host: CommandHost, params: CodeActionParams) -> dict[str, Any] | None:
    path = uri_to_path(params.uri)
    if path is None:
        raise InvalidParams(f"`uri`: {params.uri!r} is not a file:// URI")
    if params.kind == "fix" and params.diagnostic is None:
        raise InvalidParams("`diagnostic` is required for a fix")
    root = _root(host, path, params.workspace_folder)
    where = _where(params, path, root)
    goal = params.goal or await _comment(host, params, path)
    if params.kind == "fix":
        assert params.diagnostic is not None
        goal = _fix_goal(goal, where, params.diagnostic)
    elif goal is None:
        goal = await _asked(host, where)
        if goal is None:
            return None  # the user dismissed the question: nothing to run
    context = {"uri": params.uri, "range": params.range.model_dump(by_alias=True)}
    run = RunParams.model_validate(
        {"goal": goal, "workspaceFolder": str(root), "context": [context]}
    )
    return await host.runs.start(run, announce=True)


def _root(host: CommandHost, path: Path, given: str | None) -> Path:
    """The workspace folder the file is in (the innermost), or the one named or first."""
    if given is None:
        inside = [r for r in host.folder_roots() if path.resolve().is_relative_to(r)]
        if inside:
            return max(inside, key=lambda r: len(r.parts))
    return host.folder(given)


def _where(params: CodeActionParams, path: Path, root: Path) -> str:
    """ "src/a.py, line 2" or "src/a.py, lines 1–2" (1-based, as the attachment reads)."""
    from server.lsp.params import ContextParams

    resolved = path.resolve()
    name = resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)
    offset, limit = ContextParams.model_validate(
        {"uri": params.uri, "range": params.range.model_dump(by_alias=True)}
    ).lines()
    first, last = offset or 1, (offset or 1) + (limit or 1) - 1
    return f"{name}, line {first}" if first == last else f"{name}, lines {first}–{last}"


def _fix_goal(comment: str | None, where: str, diagnostic: DiagnosticParams) -> str:
    said = " ".join(diagnostic.message.split())[:MAX_DIAGNOSTIC_CHARS]
    tags = [t for t in (diagnostic.source, diagnostic.code) if t is not None and t != ""]
    severity = SEVERITIES.get(diagnostic.severity or 0)
    label = f"[{' '.join(str(t) for t in tags)}] " if tags else ""
    text = f"{label}{said}" + (f" ({severity})" if severity else "")
    if comment is not None:
        return f"{comment}\n\nThe diagnostic in {where}: {text}"
    return f"Fix this diagnostic in {where}: {text}"


async def _asked(host: CommandHost, where: str) -> str | None:
    """The user's question, chosen in a dialog; the default when the client has none."""
    message = f"Harness: what should it do with {where}?"
    try:
        title = await host.dialogs.choose(message, list(QUESTIONS), types.MessageType.Info)
    except Unavailable:
        return DEFAULT_ASK.format(where=where)
    question = QUESTIONS.get(title or "")
    return None if question is None else question.format(where=where)


async def _comment(host: CommandHost, params: CodeActionParams, path: Path) -> str | None:
    """The text of the first ``harness:`` comment on the range's lines."""
    lines = await _lines(host, params.uri, path)
    start = params.range.start.line
    end = min(params.range.end.line, start + MAX_SCANNED_LINES)
    for line in lines[start : end + 1]:
        found = COMMENT.search(line)
        if found:
            return found["goal"]
    return None


async def _lines(host: CommandHost, uri: str, path: Path) -> list[str]:
    """The document's lines: the editor's buffer when it is open, else the file on disk
    (read in a worker thread: a big file never holds up the event loop)."""
    try:
        document = host.lsp.workspace.text_documents.get(unquote(uri))
    except RuntimeError:  # not initialized
        document = None
    if document is not None:
        text: str = document.source
        return text.splitlines()
    return await asyncio.to_thread(_read_lines, path)


def _read_lines(path: Path) -> list[str]:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_READ_BYTES)
    except OSError as exc:
        raise InvalidParams(f"`uri`: cannot read {path}: {exc.strerror or exc}") from None
    return data.decode("utf-8", errors="replace").splitlines()


__all__ = ["QUESTIONS", "code_action"]
