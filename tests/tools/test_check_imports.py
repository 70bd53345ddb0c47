"""``tools/check_imports.py`` on synthetic trees: it finds cycles through top-level, lazy and
``TYPE_CHECKING`` imports, relative imports and ``import_module``; it names the lines; the
real tree has none."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check = load("check_imports")


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for package in ("harness", "server"):
        (root / package).mkdir(exist_ok=True)
        (root / package / "__init__.py").touch()
    return root


@pytest.mark.parametrize(
    "importer",
    [
        pytest.param("from harness.b import B\n", id="top-level"),
        pytest.param("def f():\n    from harness.b import B\n", id="lazy"),
        pytest.param(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.b import B\n",
            id="type-checking",
        ),
        pytest.param("from . import b\n", id="relative"),
        pytest.param("import importlib\nimportlib.import_module('harness.b')\n", id="dynamic"),
    ],
)
def test_a_cycle_is_found_however_it_imports(tmp_path: Path, importer: str) -> None:
    root = tree(tmp_path, {"harness/a.py": importer, "harness/b.py": "import harness.a\n"})
    graph = check.import_graph(root)
    assert check.cycles(graph) == [["harness.a", "harness.b", "harness.a"]]
    message = check.describe(graph, ["harness.a", "harness.b", "harness.a"])
    assert message.startswith("import cycle: harness.a (line ") and "harness.b (line 1)" in message


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "server/app.py": "from server import commands\n",
                "server/commands.py": "from harness.run import loop\n",
                "harness/run/loop.py": "from server.app import X\n",
                "harness/free.py": "from harness.run import loop\n",
            },
            [["harness.run.loop", "server.app", "server.commands", "harness.run.loop"]],
            id="a-longer-cycle-across-packages-is-one-closed-path",
        ),
        pytest.param(
            # harness/store/__init__ imports trace; trace importing store.base is no cycle.
            {
                "harness/store/__init__.py": "from harness.store.trace import T\n",
                "harness/store/trace.py": "from harness.store import base\n",
                "harness/store/base.py": "X = 1\n",
            },
            [],
            id="importing-a-submodule-is-not-an-edge-to-its-package",
        ),
    ],
)
def test_the_cycles_of_a_tree(tmp_path: Path, files: dict[str, str], expected: list[list[str]]):
    assert check.cycles(check.import_graph(tree(tmp_path, files))) == expected


def test_the_product_has_no_cycles_and_keeps_the_layering() -> None:
    graph = check.import_graph()
    assert check.cycles(graph) == []
    assert check.violations() == []
    assert "harness.run.loop" in graph and "server.lsp.app" in graph


def test_only_server_acp_speaks_the_agent_client_protocol(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "harness/cli.py": "import acp\n",
            "server/conversation.py": "from acp import schema\n",
            "server/acp/agent.py": "from acp import run_agent\n",
        },
    )
    assert check.violations(root) == [
        "harness/cli.py:1: harness must not import acp",
        "server/conversation.py:1: only server/acp may import acp",
    ]


@pytest.mark.parametrize(
    ("importer", "found"),
    [
        pytest.param(
            "from server.lsp.app import HarnessServer\n", "1: server.lsp.app", id="server"
        ),
        pytest.param("def f():\n    from server.lsp import params\n", "2: server.lsp", id="lazy"),
        pytest.param("from .. import settings\n", "1: server.lsp", id="relative"),
        pytest.param("from harness.store import Store\n", "1: harness.store", id="harness"),
        pytest.param("import pydantic\n", "1: pydantic", id="third-party"),
        pytest.param(
            "import importlib\nimportlib.import_module('server.conversation')\n",
            "2: server.conversation",
            id="dynamic",
        ),
    ],
)
def test_the_wire_imports_nothing_else_of_the_server(
    tmp_path: Path, importer: str, found: str
) -> None:
    root = tree(tmp_path, {"server/lsp/wire/throwaway.py": importer})
    line, _, module = found.partition(": ")
    assert check.violations(root) == [
        f"server/lsp/wire/throwaway.py:{line}: server/lsp/wire must not import {module}"
    ]


def test_the_wire_may_import_itself_pygls_and_the_redaction(tmp_path: Path) -> None:
    allowed = (
        "import asyncio\nimport attrs\nfrom lsprotocol import types\n"
        "from pygls.protocol import JsonRPCProtocol\nfrom harness.redact import redact\n"
        "from server.lsp.wire.rpc import notify\nfrom . import framing\n"
    )
    root = tree(tmp_path, {"server/lsp/wire/throwaway.py": allowed})
    assert check.violations(root) == []
