"""The import contract, checked on the syntax tree (run by ``make lint``):

- ``harness`` never imports ``server``, ``pygls`` or ``lsprotocol``;
- context, memory, store, policy, ledger and workspace never import the provider or httpx.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_EVERYWHERE = ("server", "pygls", "lsprotocol")
PROVIDER_FREE = ("context", "memory", "store", "policy", "ledger", "workspace", "reread")
PROVIDER_MODULES = ("harness.provider", "httpx", "httpx_sse")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def _matches(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def violations(root: Path = ROOT) -> list[str]:
    problems: list[str] = []
    for path in sorted((root / "harness").rglob("*.py")):
        rel = path.relative_to(root)
        parts = rel.with_suffix("").parts  # ("harness", "store", "trace")
        provider_free = len(parts) > 1 and parts[1] in PROVIDER_FREE
        for line, module in imported_modules(path):
            if _matches(module, FORBIDDEN_EVERYWHERE):
                problems.append(f"{rel}:{line}: harness must not import {module}")
            if provider_free and _matches(module, PROVIDER_MODULES):
                problems.append(f"{rel}:{line}: {parts[1]} must not import {module}")
    return problems


def main() -> int:
    problems = violations()
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print("import contract: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
