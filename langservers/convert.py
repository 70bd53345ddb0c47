"""LSP answers (lsprotocol types) turned into the harness's semantic values, every URI
checked: a ``file:`` URI inside the workspace becomes its relative path; anything else is
counted as outside and left out (a rename with any such place is refused by the tool)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from harness.semantic.model import (
    Diagnostic,
    FileEdit,
    Location,
    Position,
    SemanticUnavailable,
    Severity,
    Span,
    Symbol,
    TextEdit,
)
from harness.types import normalize_path

SEVERITIES = {
    lsp.DiagnosticSeverity.Error: Severity.ERROR,
    lsp.DiagnosticSeverity.Warning: Severity.WARNING,
    lsp.DiagnosticSeverity.Information: Severity.INFO,
    lsp.DiagnosticSeverity.Hint: Severity.HINT,
}


def relative(uri: str, root: Path) -> str | None:
    """The workspace-relative path of a ``file:`` URI, or None when it is not one inside
    ``root`` (lexically: the tools then check containment through symlinks too)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = Path(unquote(parsed.path))
    if not path.is_absolute() or ".." in path.parts:
        return None
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    text = normalize_path(rel.as_posix())
    return text if text not in ("", ".") else None


def span(r: lsp.Range) -> Span:
    return Span(Position(r.start.line, r.start.character), Position(r.end.line, r.end.character))


def locations(found: object, root: Path) -> tuple[tuple[Location, ...], int]:
    if found is None:
        return (), 0
    if not isinstance(found, list | tuple):
        raise SemanticUnavailable("the language server's references answer is not a list")
    kept, outside = [], 0
    for loc in found:
        rel = relative(loc.uri, root)
        if rel is None:
            outside += 1
        else:
            kept.append(Location(rel, span(loc.range)))
    return tuple(kept), outside


def _changes(edit: lsp.WorkspaceEdit) -> list[tuple[str, Sequence[lsp.TextEdit]]]:
    out: list[tuple[str, Sequence[lsp.TextEdit]]] = []
    for change in edit.document_changes or ():
        if not isinstance(change, lsp.TextDocumentEdit):
            raise SemanticUnavailable(
                "the language server's rename creates, renames or deletes files; only "
                "edits of existing files are applied — rename the file itself with exec"
            )
        out.append(
            (change.text_document.uri, [e for e in change.edits if isinstance(e, lsp.TextEdit)])
        )
    if not out:
        out = [(uri, edits) for uri, edits in (edit.changes or {}).items()]
    return out


def workspace_edit(edit: object, root: Path) -> tuple[tuple[FileEdit, ...], int]:
    if edit is None:
        return (), 0
    if not isinstance(edit, lsp.WorkspaceEdit):
        raise SemanticUnavailable("the language server's rename answer is not a WorkspaceEdit")
    files: dict[str, list[TextEdit]] = {}
    outside = 0
    for uri, edits in _changes(edit):
        rel = relative(uri, root)
        if rel is None:
            outside += len(edits) or 1
            continue
        files.setdefault(rel, []).extend(TextEdit(span(e.range), e.new_text) for e in edits)
    return tuple(FileEdit(p, tuple(e)) for p, e in files.items()), outside


def _kind(kind: lsp.SymbolKind) -> str:
    return kind.name.lower() if isinstance(kind, lsp.SymbolKind) else str(kind)


def _symbol(found: lsp.DocumentSymbol) -> Symbol:
    children = tuple(_symbol(c) for c in found.children or ())
    return Symbol(found.name, _kind(found.kind), span(found.range), children)


def symbols(found: object) -> tuple[Symbol, ...]:
    if found is None:
        return ()
    if not isinstance(found, list | tuple):
        raise SemanticUnavailable("the language server's symbols answer is not a list")
    out = []
    for item in found:
        if isinstance(item, lsp.DocumentSymbol):
            out.append(_symbol(item))
        else:  # SymbolInformation: flat, with a location
            out.append(Symbol(item.name, _kind(item.kind), span(item.location.range)))
    return tuple(out)


def diagnostics(path: str, found: Sequence[lsp.Diagnostic]) -> tuple[Diagnostic, ...]:
    return tuple(
        Diagnostic(
            path,
            span(d.range),
            SEVERITIES.get(d.severity or lsp.DiagnosticSeverity.Error, Severity.ERROR),
            d.message,
            d.source or "",
        )
        for d in found
    )


__all__ = ["diagnostics", "locations", "relative", "span", "symbols", "workspace_edit"]
