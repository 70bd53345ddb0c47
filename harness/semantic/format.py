"""How semantic answers read to the model (§14): a symbol outline, reference rows with the
definition first and marked, a rename's per-file counts, diagnostic rows — each capped,
with the count of the rest said."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from harness.semantic.model import Diagnostic, Location, Severity, Symbol
from harness.semantic.text import lines_of

MAX_ROWS = 50
MAX_SYMBOLS = 200
MAX_ROW_CHARS = 200


def _rest(count: int, what: str) -> list[str]:
    return [f"… and {count:,} more {what} not shown"] if count > 0 else []


def left_out(count: int) -> list[str]:
    """The line that says how many files the policy kept out of an answer."""
    if count <= 0:
        return []
    files = "file" if count == 1 else "files"
    return [f"({count:,} {files} left out: the policy does not allow reading them)"]


def outline(symbols: Sequence[Symbol]) -> tuple[list[str], int]:
    """One line per symbol, nested by indent: ``class Foo  lines 3–20``; and how many did
    not fit."""
    rows: list[str] = []
    total = 0

    def walk(items: Sequence[Symbol], depth: int) -> None:
        nonlocal total
        for sym in sorted(items, key=lambda s: (s.span.start.line, s.span.start.character)):
            total += 1
            if len(rows) < MAX_SYMBOLS:
                a, b = sym.span.start.line + 1, sym.span.end.line + 1
                where = f"line {a}" if a == b else f"lines {a}–{b}"
                rows.append(f"{'  ' * depth}{sym.kind} {sym.name}  {where}")
            walk(sym.children, depth + 1)

    walk(symbols, 0)
    return rows + _rest(total - len(rows), "symbols"), total


def _row(path: str, line: int, texts: Mapping[str, str]) -> str:
    lines = lines_of(texts.get(path, ""))
    text = lines[line].strip() if 0 <= line < len(lines) else ""
    return f"{path}:{line + 1}: {text[:MAX_ROW_CHARS]}"


def reference_rows(
    locations: Sequence[Location], definition: Location | None, texts: Mapping[str, str]
) -> list[str]:
    """``path:line: text`` per place (one per line), the definition first and marked."""
    seen: dict[tuple[str, int], None] = {}
    for loc in sorted(locations, key=lambda x: (x.path, x.span.start.line)):
        seen.setdefault((loc.path, loc.span.start.line), None)
    first: tuple[str, int] | None = None
    if definition is not None:
        first = (definition.path, definition.span.start.line)
        seen.pop(first, None)
    rows = [f"{_row(first[0], first[1], texts)}  (definition)"] if first else []
    keys = list(seen)
    rows += [_row(path, line, texts) for path, line in keys[: MAX_ROWS - len(rows)]]
    return rows + _rest(len(keys) + (1 if first else 0) - len(rows), "places")


def rename_rows(counts: Mapping[str, int]) -> list[str]:
    return [f"{path}: {n:,} place{'' if n == 1 else 's'}" for path, n in sorted(counts.items())]


SHOWN_SEVERITIES = (Severity.ERROR, Severity.WARNING)


def diagnostic_row(d: Diagnostic) -> str:
    source = f" {d.source}" if d.source else ""
    message = " ".join(d.message.split())[:MAX_ROW_CHARS]
    where = f"{d.path}:{d.span.start.line + 1}:{d.span.start.character + 1}"
    return f"{where} {d.severity.value}{source}: {message}"


def diagnostic_rows(
    found: Sequence[Diagnostic], keep: Callable[[Diagnostic], bool] = lambda _: True
) -> list[str]:
    """Errors and warnings, errors first, capped."""
    shown = [d for d in found if d.severity in SHOWN_SEVERITIES and keep(d)]
    shown.sort(key=lambda d: (d.severity != Severity.ERROR, d.path, d.span.start.line))
    rows = [diagnostic_row(d) for d in shown[:MAX_ROWS]]
    return rows + _rest(len(shown) - len(rows), "diagnostics")


__all__ = [
    "MAX_ROWS",
    "diagnostic_row",
    "diagnostic_rows",
    "left_out",
    "outline",
    "reference_rows",
    "rename_rows",
]
