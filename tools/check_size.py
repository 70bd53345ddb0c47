"""The size contract of the product code (run by ``make lint``): no file of ``harness`` or
``server`` over ``MAX_FILE_LINES`` lines, no function (or method) over ``MAX_FUNCTION_LINES``
lines, decorators and docstring included; the classes of ``MAX_CLASS_LINES`` (the loop's
``Run``, which issue 10 wants readable in one sitting) under their own limit.

``PENDING`` names what another work package is splitting right now; each entry is printed
on every run, and an entry that no longer applies is itself an error, so none lingers.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("harness", "server")
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES: Mapping[str, int] = {"harness/run/loop.py::Run": 200}

# path, or path::function -> who is splitting it (removed when their branch lands)
PENDING: Mapping[str, str] = {}


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def oversized(root: Path = ROOT) -> dict[str, str]:
    """``path`` or ``path::function`` -> what is too long, for every product file."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8")
            lines = len(text.splitlines())
            if lines > MAX_FILE_LINES:
                found[rel] = f"{lines} lines (at most {MAX_FILE_LINES})"
            tree = ast.parse(text, filename=rel)
            for node in ast.walk(tree):
                limit = MAX_CLASS_LINES.get(f"{rel}::{getattr(node, 'name', '')}")
                if isinstance(node, ast.ClassDef) and limit is not None:
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length >= limit:
                        found[f"{rel}::{node.name}"] = f"{length} lines (under {limit})"
            for fn in _functions(tree):
                start = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
                length = (fn.end_lineno or fn.lineno) - start + 1
                if length > MAX_FUNCTION_LINES:
                    found[f"{rel}::{fn.name}"] = (
                        f"line {fn.lineno}: {length} lines (at most {MAX_FUNCTION_LINES})"
                    )
    return found


def problems(
    root: Path = ROOT, pending: Mapping[str, str] = PENDING
) -> tuple[list[str], list[str]]:
    """(errors, notes): what is too long and not pending, and each pending entry's state."""
    found = oversized(root)
    errors = [f"{where}: {what}" for where, what in found.items() if where not in pending]
    notes: list[str] = []
    for where, who in pending.items():
        if where in found:
            notes.append(f"pending ({who}): {where}: {found[where]}")
        else:
            errors.append(f"{where}: no longer too long; remove it from PENDING")
    return errors, notes


def main() -> int:
    errors, notes = problems()
    for note in notes:
        print(note)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 1
    print(
        f"size contract: ok (files <= {MAX_FILE_LINES} lines, "
        f"functions <= {MAX_FUNCTION_LINES} lines)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
