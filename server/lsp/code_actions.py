"""``textDocument/codeAction``: the harness as code actions, for any LSP editor (Helix, Kate,
Sublime LSP, Emacs, Neovim without the plugin):

    Harness: fix this diagnostic          one per diagnostic in the request's context
                                          (kind ``quickfix``)
    Harness: ask about the selection…     on a non-empty range (kind ``""``, so a request
                                          for ``source.*`` actions, e.g. on save, never gets it)

Each carries the command ``harness.codeAction {kind: "fix"|"ask", uri, range, diagnostic?}``
(``server.lsp.commands.code_action`` runs it: the goal, then a run with the file's lines attached).
Offering is cheap and loads nothing beyond lsprotocol: it is answered on the event loop
while the harness may still be loading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

COMMAND = "harness.codeAction"
FIX = "Harness: fix this diagnostic"
ASK = "Harness: ask about the selection…"
ASK_KIND = types.CodeActionKind.Empty
MAX_FIXES = 8  # actions for the first diagnostics under the cursor; the rest are not offered
MAX_TITLE_MESSAGE = 60
OPTIONS = types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, ASK_KIND], resolve_provider=False
)


def offered(params: types.CodeActionParams) -> list[types.CodeAction]:
    """The harness's actions for this request (none for a non-file document)."""
    uri = params.text_document.uri
    if not uri.startswith("file:"):
        return []
    only = params.context.only
    found: list[types.CodeAction] = []
    if _wanted(only, types.CodeActionKind.QuickFix):
        diagnostics = params.context.diagnostics[:MAX_FIXES]
        found += [_fix(uri, d, several=len(diagnostics) > 1) for d in diagnostics]
    if _wanted(only, ASK_KIND) and params.range.start != params.range.end:
        arguments = {"kind": "ask", "uri": uri, "range": _range(params.range)}
        command = types.Command(title=ASK, command=COMMAND, arguments=[arguments])
        found.append(types.CodeAction(title=ASK, kind=ASK_KIND, command=command))
    return found


def _wanted(only: Sequence[str] | None, kind: str) -> bool:
    """Whether ``kind`` is among the kinds the client asked for (LSP: a kind matches its
    own name and every ``name.*`` below it; the empty kind matches only when nothing is
    asked for, or ``""`` is)."""
    if not only:
        return True
    return any(kind == o or (o != "" and kind.startswith(f"{o}.")) for o in only)


def _fix(uri: str, diagnostic: types.Diagnostic, *, several: bool) -> types.CodeAction:
    title = FIX
    if several:  # which one: the start of its message, on one line
        words = " ".join(diagnostic.message.split())
        cut = words if len(words) <= MAX_TITLE_MESSAGE else words[: MAX_TITLE_MESSAGE - 1] + "…"
        title = f"{FIX}: {cut}"
    arguments = {
        "kind": "fix",
        "uri": uri,
        "range": _range(diagnostic.range),
        "diagnostic": _diagnostic(diagnostic),
    }
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        command=types.Command(title=title, command=COMMAND, arguments=[arguments]),
    )


def _range(where: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": where.start.line, "character": where.start.character},
        "end": {"line": where.end.line, "character": where.end.character},
    }


def _diagnostic(diagnostic: types.Diagnostic) -> dict[str, Any]:
    """What ``harness.codeAction`` takes of a diagnostic (``server.lsp.params``)."""
    out: dict[str, Any] = {"message": diagnostic.message}
    if diagnostic.source:
        out["source"] = diagnostic.source
    if isinstance(diagnostic.code, int | str):
        out["code"] = diagnostic.code
    if diagnostic.severity is not None:
        out["severity"] = int(diagnostic.severity)
    return out


__all__ = ["ASK", "COMMAND", "FIX", "OPTIONS", "offered"]
