"""The import contract, checked on the syntax tree (run by ``make lint``):

- ``harness`` never imports ``server``, ``pygls``, ``lsprotocol`` or ``acp`` (the Agent
  Client Protocol package), and in ``server`` only ``server/acp`` imports ``acp``;
- ``langservers`` (the headless semantic back end, §14: pygls's LSP client) never imports
  ``server`` or ``acp``, and in ``harness`` only the command line (``harness/cli``) imports
  it — the loop, the tools, the ledger and the policy see only ``harness.semantic``'s port;
- context, memory, store, policy, ledger and workspace never import the provider or httpx;
- ``server/lsp/wire`` (the transport hardening pygls lacks) imports nothing of ``server``
  outside itself, and besides the standard library only pygls, lsprotocol (with attrs and
  cattrs, theirs) and the one harness leaf it needs, ``harness.redact``;
- no import cycles among the modules of ``harness`` and ``server``, counting every import
  in a file: at the top, inside functions (lazy imports) and under ``TYPE_CHECKING``;
- no arrow back up in ``harness``: every module is in one of ``LAYERS`` (by its room, the
  longest prefix) and imports only its own layer or the ones below it, counting every
  import as the cycle check does. A module in no layer is reported too, so a new room is
  placed on purpose.

A cycle is reported as the modules in order, each importing the next, with the line of
each import.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("harness", "server", "langservers")
SEMANTIC_BACKEND = ("langservers",)
CLI_FRONT = ("harness", "cli")  # the one part of harness that may start language servers
FORBIDDEN_EVERYWHERE = ("server", "pygls", "lsprotocol", "acp")
ACP_FRONT = ("server", "acp")  # the one package that speaks ACP (§13)
PROVIDER_FREE = (
    "harness.context",
    "harness.memory",
    "harness.store",
    "harness.policy",
    "harness.ledger",
    "harness.workspace",
    "harness.run.reread",
)
PROVIDER_MODULES = ("harness.provider", "httpx", "httpx_sse")
WIRE = ("server", "lsp", "wire")  # the transport: the rest of the server stands on it
WIRE_MAY_IMPORT = ("server.lsp.wire", "pygls", "lsprotocol", "attrs", "cattrs", "harness.redact")

Edge = tuple[str, int]  # (imported module, line)

# The floors of harness, bottom first (docs/ARCHITECTURE.md draws them). A room is a module
# or a package; a module is in the layer of its longest listed prefix.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "leaf",  # values and rules with no room of their own
        (
            "harness",  # harness/__init__.py: the version
            "harness.types",
            "harness.errors",
            "harness.tokens",
            "harness.defaults",
            "harness.exports",
            "harness.escape",
            "harness.redact",
            "harness.camel",
            "harness.closing",
        ),
    ),
    (
        "ground",  # what every room stands on: the workspace, the contract, the ledger
        (
            "harness.workspace",
            "harness.contract",
            "harness.ledger",
            "harness.report",
            "harness.marks",
            "harness.pricing",
            "harness.prompts",
            "harness.prompt_files",
        ),
    ),
    (
        "rooms",  # each one concept; they may use each other (the cycle check still holds)
        (
            "harness.context",
            "harness.provider",
            "harness.tools",
            "harness.policy",
            "harness.sandbox",
            "harness.memory",
            "harness.store",
            "harness.semantic",
            "harness.mcp",
            "harness.telemetry",
            "harness.revert",
        ),
    ),
    ("run", ("harness.run",)),  # one run: the session, the loop, the assembly
    ("front", ("harness.cli", "harness.__main__")),  # the command line (the server is above)
)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(
    path: Path, package: str | None = None, is_module: Callable[[str], bool] = lambda _: False
) -> list[tuple[int, str]]:
    """Every module ``path`` imports, with its line: ``import a.b``, ``from a.b import c``
    (``a.b.c`` when ``is_module`` says it is a module, else ``a.b``), relative imports
    (resolved against ``package``) and ``importlib.import_module("a.b")``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if base is None:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if is_module(sub) else base))
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


def _absolute(node: ast.ImportFrom, package: str | None) -> str | None:
    if node.level == 0:
        return node.module
    if package is None:
        return None
    parts = package.split(".")
    if node.level > 1:
        parts = parts[: -(node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def _matches(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _sources(root: Path) -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((root / package).rglob("*.py"))


def violations(root: Path = ROOT) -> list[str]:
    problems: list[str] = []
    for path in sorted((root / "harness").rglob("*.py")):
        rel = path.relative_to(root)
        name = module_name(path, root)
        provider_free = _matches(name, PROVIDER_FREE)
        for line, module in dict.fromkeys(imported_modules(path)):
            if _matches(module, FORBIDDEN_EVERYWHERE):
                problems.append(f"{rel}:{line}: harness must not import {module}")
            if _matches(module, SEMANTIC_BACKEND) and rel.parts[:2] != CLI_FRONT:
                problems.append(f"{rel}:{line}: only harness/cli may import {module}")
            if provider_free and _matches(module, PROVIDER_MODULES):
                problems.append(f"{rel}:{line}: {name} must not import {module}")
    for path in sorted((root / "langservers").rglob("*.py")):
        rel = path.relative_to(root)
        for line, module in dict.fromkeys(imported_modules(path)):
            if _matches(module, ("server", "acp")):
                problems.append(f"{rel}:{line}: langservers must not import {module}")
    for path in sorted((root / "server").rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[:2] == ACP_FRONT:
            continue
        for line, module in dict.fromkeys(imported_modules(path)):
            if _matches(module, ("acp",)):
                problems.append(f"{rel}:{line}: only server/acp may import {module}")
    return problems + _wire_violations(root)


def _wire_violations(root: Path) -> list[str]:
    problems: list[str] = []
    for path in sorted(root.joinpath(*WIRE).rglob("*.py")):
        rel = path.relative_to(root)
        package = module_name(path.parent, root)
        for line, module in dict.fromkeys(imported_modules(path, package)):
            stdlib = module.partition(".")[0] in sys.stdlib_module_names
            if not stdlib and not _matches(module, WIRE_MAY_IMPORT):
                problems.append(f"{rel}:{line}: server/lsp/wire must not import {module}")
    return problems


def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """module -> {module it imports -> first line}, for the modules of ``PACKAGES``."""
    files = {module_name(p, root): p for p in _sources(root)}
    graph: dict[str, dict[str, int]] = {name: {} for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for line, target in imported_modules(path, package, files.__contains__):
            if target in files and target != name:
                graph[name].setdefault(target, line)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (as a closed path of modules) for every strongly connected component of
    more than one module, found with Tarjan's algorithm (iteratively: no recursion limit)."""
    found: list[list[str]] = []
    for component in _components(graph):
        if len(component) > 1:
            found.append(_cycle_in(graph, component))
    return sorted(found)


def _components(graph: dict[str, dict[str, int]]) -> Iterable[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                yield component


def _cycle_in(graph: dict[str, dict[str, int]], component: set[str]) -> list[str]:
    """The shortest closed path through the component's first module (breadth first)."""
    start = min(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph[node]):
                if child not in component:
                    continue
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # a component always has one


def describe(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    steps = [f"{a} (line {graph[a][b]})" for a, b in pairwise(cycle)]
    return "import cycle: " + " → ".join([*steps, cycle[-1]])


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of ``module``'s layer (its longest listed prefix); None when
    it is in none. ``harness`` itself matches only ``harness/__init__.py``."""
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, rooms) in enumerate(LAYERS):
        for room in rooms:
            fits = module == room or (room != "harness" and module.startswith(room + "."))
            if fits and (best is None or len(room) > best[0]):
                best = (len(room), index)
    return None if best is None else best[1]


def layering(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import in ``harness`` of a module on a higher layer (an arrow back up), and
    every module of ``harness`` in no layer."""
    problems: list[str] = []
    for module in sorted(m for m in graph if m == "harness" or m.startswith("harness.")):
        own = layer_of(module)
        if own is None:
            problems.append(f"{module}: in no layer of LAYERS (tools/check_imports.py)")
            continue
        for target, line in sorted(graph[module].items()):
            up = layer_of(target) if target.split(".")[0] == "harness" else None
            if up is not None and up > own:
                problems.append(
                    f"{module} (line {line}, layer {LAYERS[own][0]}) imports {target}"
                    f" (layer {LAYERS[up][0]}): an arrow back up"
                )
    return problems


def main() -> int:
    problems = violations()
    graph = import_graph()
    problems += layering(graph)
    problems += [describe(graph, c) for c in cycles(graph)]
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"import contract: ok ({len(graph)} modules, no cycles, {len(LAYERS)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
