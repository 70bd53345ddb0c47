"""The headless back end with basedpyright (PyPI, Node as a wheel; nobody here wrote it)
as the user's Python server: what a type-aware server needs of its client. Each of these
failed before the fix it names: the server exited within seconds of starting (it watched
the harness's pid, which names no process in the sandbox's PID namespace; or it asked
``workspace/diagnostic/refresh`` and was not answered); a rename right after start
covered the asked file only; a file's diagnostics beside another open file came pushed
first empty (measured: the answer was ``()``), so they are asked for instead."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from harness.semantic.config import parse_semantic
from harness.semantic.model import Position, Query
from langservers import HeadlessSemantics

SERVER = shutil.which("basedpyright-langserver", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(
    SERVER is None,
    reason="basedpyright is not installed (`make setup` installs the dev extras, which hold it)",
)
PRICES = "def total(items: list[int]) -> int:\n    return sum(items)\n"
CHECKOUT = (
    "from prices import total\n\n\ndef pay(items: list[int]) -> int:\n    return total(items)\n"
)
PID_CHECK_S = 3  # vscode-languageserver checks its client's pid every 3 s


@pytest.fixture
async def port(tmp_path: Path) -> AsyncIterator[HeadlessSemantics]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "prices.py").write_text(PRICES)
    (root / "checkout.py").write_text(CHECKOUT)
    spec = {"server": [SERVER, "--stdio"], "extensions": [".py"]}
    found = HeadlessSemantics(root, parse_semantic({"languages": {"python": spec}}, "test"))
    yield found
    await found.close()


async def test_a_rename_right_after_start_covers_both_files(port: HeadlessSemantics) -> None:
    query = Query("rename", "prices.py", PRICES, Position(0, 4), "sum_items")
    answer = await port.answer(query)
    assert sorted(e.path for e in answer.edits) == ["checkout.py", "prices.py"]
    assert answer.server == "basedpyright-langserver"


async def test_the_server_outlives_its_pid_check(port: HeadlessSemantics) -> None:
    await port.diagnostics("prices.py", PRICES, 20_000)
    (running,) = port._running.values()
    with pytest.raises(TimeoutError):  # exited within two checks: the failure
        await asyncio.wait_for(running.client.exited.wait(), 2 * PID_CHECK_S + 1)
    assert running.alive
    assert await port.diagnostics("prices.py", PRICES, 20_000) == ()


async def test_a_files_errors_beside_other_texts_of_its_imports(port: HeadlessSemantics) -> None:
    renamed = {"prices.py": PRICES.replace("total", "sum_items")}
    gone = await port.diagnostics_beside("checkout.py", CHECKOUT, renamed, 20_000)
    assert gone is not None
    assert [d.message for d in gone if d.severity.value == "error"] == [
        '"total" is unknown import symbol'
    ]
    whole = await port.diagnostics_beside("checkout.py", CHECKOUT, {"prices.py": PRICES}, 20_000)
    assert whole is not None and [d for d in whole if d.severity.value == "error"] == []


async def test_a_files_diagnostics_are_the_checked_ones(port: HeadlessSemantics) -> None:
    """Guard (passes before and after): one file's own errors, asked for
    (``textDocument/diagnostic``) now rather than waited for as pushed."""
    broken = CHECKOUT.replace("import total", "import sum_items")
    found = await port.diagnostics("checkout.py", broken, 20_000)
    assert '"sum_items" is unknown import symbol' in [d.message for d in found]
