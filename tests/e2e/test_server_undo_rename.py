"""Issue 33, "what an undo broke", with a type-aware language server nobody here wrote:
basedpyright (PyPI; Node ships as a wheel), chosen as the user's ``[languages.python]``
server in a user config of the test's own (a repository can never choose it). A scripted
run renames ``total`` across two files through ``rename_symbol``; undoing the file that
holds the definition leaves the other importing a name that no longer exists, and
``harness.run.revertFile``'s answer says so; undoing the other file too brings back code
that works, and the answer reports nothing."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from tests.e2e.lsp import (
    HarnessClient,
    call,
    initialize_params,
    settings,
    started_server,
    turn,
    wait_watching,
)
from tests.support.fake_llm import FakeLLM

SERVER = shutil.which("basedpyright-langserver", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(
    SERVER is None,
    reason="basedpyright is not installed (`make setup` installs the dev extras, which hold it)",
)

CONFIG_HOME = Path(tempfile.mkdtemp(prefix="harness-undo-rename-config-"))
(CONFIG_HOME / "harness").mkdir()
(CONFIG_HOME / "harness" / "policy.toml").write_text(
    "[semantic]\ndiagnosticsWaitMs = 20000\n\n"
    f'[languages.python]\nserver = ["{SERVER}", "--stdio"]\nextensions = [".py", ".pyi"]\n'
)
pyright = started_server("pyright", XDG_CONFIG_HOME=str(CONFIG_HOME))

PRICES = "def total(items: list[int]) -> int:\n    return sum(items)\n"
CHECKOUT = (
    "from prices import total\n\n\ndef pay(items: list[int]) -> int:\n    return total(items)\n"
)
RENAME = call("rename_symbol", symbol="total", new_name="sum_items", path="prices.py",
              line_content="def total(items: list[int]) -> int:")  # fmt: skip


async def renamed(client: HarnessClient, fake: FakeLLM, ws: Path, store: Path) -> int:
    (ws / "prices.py").write_text(PRICES)
    (ws / "checkout.py").write_text(CHECKOUT)
    await client.initialize_session(initialize_params([ws], settings(fake, store)))
    await wait_watching(client)
    fake.add_turns(turn(RENAME), {"content": "renamed"})
    run_id = (await client.command("harness.run", {"goal": "rename total"}))["runId"]
    assert (await client.wait_finished(run_id, 120))["outcome"] == "finished"
    assert (ws / "checkout.py").read_text() == CHECKOUT.replace("total", "sum_items")
    return int(run_id)


async def test_undoing_one_file_of_a_rename_reports_the_name_it_left_undefined(
    pyright: HarnessClient, fake: FakeLLM, ws: Path, store: Path
) -> None:
    run_id = await renamed(pyright, fake, ws, store)
    undo = {"runId": run_id, "path": "prices.py"}
    done = await pyright.command("harness.run.revertFile", undo)
    assert (ws / "prices.py").read_text() == PRICES
    assert done["diagnosticsReason"] == "", done
    errors = [d for d in done["diagnostics"] if d["severity"] == "error"]
    assert errors, done
    assert {d["path"] for d in errors} == {"checkout.py"}, done
    assert all(d["source"] == "basedpyright" for d in errors), done
    assert any("sum_items" in d["message"] for d in errors), done
    # Undoing the rest brings back code that works: the answer reports nothing.
    rest = await pyright.command("harness.run.revertFile", {"runId": run_id, "path": "checkout.py"})
    assert (ws / "checkout.py").read_text() == CHECKOUT
    assert (rest["diagnostics"], rest["diagnosticsReason"]) == ([], ""), rest
