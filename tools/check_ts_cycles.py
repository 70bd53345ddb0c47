"""No import cycles among the VS Code extension's modules (editors/vscode/src, tests
aside; run by ``make lint``): the Python import check does not read TypeScript. Every
relative import counts, ``import type`` too (a type-only circle is still two modules that
cannot be read apart). A cycle is reported as the modules in order, each importing the next.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "editors" / "vscode" / "src"
# `import … from "./x"`, `export … from "./x"`, `import "./x"` (one statement may span lines)
IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?["'](\.{1,2}/[^"']+)["']""", re.M
)


def imports(path: Path, root: Path) -> list[str]:
    """The modules of ``root`` that ``path`` imports, as paths relative to ``root``."""
    found = []
    for target in IMPORT.findall(path.read_text()):
        resolved = (path.parent / target).resolve()
        for candidate in (resolved.with_suffix(".ts"), resolved / "index.ts"):
            if candidate.is_file():
                found.append(candidate.relative_to(root).as_posix())
                break
    return found


def graph(root: Path) -> dict[str, list[str]]:
    files = sorted(p for p in root.rglob("*.ts") if "test" not in p.relative_to(root).parts)
    return {p.relative_to(root).as_posix(): imports(p, root) for p in files}


def cycles(edges: dict[str, list[str]]) -> Iterator[list[str]]:
    """Each import cycle once, as found by a depth-first walk."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def walk(node: str) -> Iterator[list[str]]:
        state[node] = 1
        path.append(node)
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1:
                yield [*path[path.index(nxt) :], nxt]
            elif nxt not in state:
                yield from walk(nxt)
        path.pop()
        state[node] = 2

    for node in edges:
        if node not in state:
            yield from walk(node)


def main(root: Path = SOURCES) -> int:
    found = list(cycles(graph(root)))
    for cycle in found:
        print("import cycle: " + " -> ".join(cycle), file=sys.stderr)
    if not found:
        print(f"TypeScript import cycles: none ({len(graph(root))} modules)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCES))
