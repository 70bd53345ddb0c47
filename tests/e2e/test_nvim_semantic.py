"""The editor back end of the semantic tools (§14) in real headless Neovim: with
``jedi-language-server`` attached to the Python buffers as a second LSP client (configured
as a user does, ``vim.lsp.config`` + ``vim.lsp.enable``), the server's ``harness/semantic``
requests for ``references`` and ``rename_symbol`` are answered through ``vim.lsp`` and the
trace names that client; the harness writes the rename itself. Without such a client the
plugin answers ``unavailable`` and the headless back end answers instead, the trace saying
why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.session import INIT, cli, make_workspace, needs_nvim, session, settings

pytestmark = needs_nvim

JEDI_INIT = INIT.with_name("jedi_init.lua")
A = "def total(items):\n    return sum(items)\n"
B = "from a import total\n\nx = total([3])  # total\n"
WHERE = {"symbol": "total", "path": "a.py", "line_content": "def total("}
REFS = {"tool_calls": [{"name": "references", "arguments": WHERE}]}
RENAME = {
    "tool_calls": [{"name": "rename_symbol", "arguments": {**WHERE, "new_name": "sum_items"}}]
}


def _workspace(tmp: Path) -> Path:
    ws = make_workspace(tmp)
    (ws / "a.py").write_text(A)
    (ws / "b.py").write_text(B)
    return ws


def _step(store: Path, step: int) -> dict[str, Any]:
    found: dict[str, Any] = cli("trace", "step", "1", str(step), "--store", str(store))
    return found


def _ms(step: dict[str, Any]) -> int:
    return int(next(e["detail"]["ms"] for e in step["events"] if e["kind"] == "semantic"))


def _semantic(step: dict[str, Any]) -> list[Any]:
    """Who answered each semantic query of ``step`` (the trace's ``semantic`` events)."""
    keys = ("backend", "server", "fallback")
    found = [e["detail"] for e in step["events"] if e["kind"] == "semantic"]
    return [{k: d[k] for k in keys if k in d} for d in found]


def test_references_and_rename_answered_through_vim_lsp(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = _workspace(tmp_path)
    store = tmp_path / "store.db"
    fake = fake_llm([REFS, RENAME, {"content": "Renamed."}])
    with session(tmp_path, ws, {"settings": settings(fake, store)}, init=JEDI_INIT) as nvim:
        buf = nvim.edit(ws / "a.py")
        nvim.wait_attached(buf)
        nvim.wait(
            "#vim.lsp.get_clients({ bufnr = ..., name = 'jedi' }) > 0", buf, what="jedi attached"
        )
        nvim.type(":HarnessRun rename total<CR>")
        nvim.wait_message("run 1 finished", within_s=90)

        refs = _step(store, 1)
        answered = {"backend": "editor", "server": "jedi"}
        assert _semantic(refs) == [answered], refs["events"]
        assert "a.py:1: def total(items):  (definition)" in refs["result"]
        assert "b.py:3: x = total([3])  # total" in refs["result"]
        renamed = _step(store, 2)
        assert _semantic(renamed) == [answered], renamed["events"]
        assert renamed["result"].startswith("[renamed total → sum_items] 3 places in 2 files")
        assert (ws / "a.py").read_text() == A.replace("total", "sum_items")
        assert (
            ws / "b.py"
        ).read_text() == "from a import sum_items\n\nx = sum_items([3])  # total\n"
        # the open buffer shows the renamed text, unmodified
        nvim.wait("vim.api.nvim_buf_get_lines(..., 0, 1, false)[1] == 'def sum_items(items):'", buf)
        assert nvim.lua("return vim.bo[...].modified", buf) is False
        print(f"through vim.lsp: references {_ms(refs)} ms, rename {_ms(renamed)} ms")


def test_without_an_attached_server_the_headless_back_end_answers(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = _workspace(tmp_path)
    store = tmp_path / "store.db"
    fake = fake_llm([REFS, RENAME, {"content": "Renamed."}])
    with session(tmp_path, ws, {"settings": settings(fake, store)}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "a.py"))
        nvim.type(":HarnessRun list the uses of total<CR>")
        nvim.wait_message("run 1 finished", within_s=90)

        refs = _step(store, 1)
        (event,) = _semantic(refs)
        assert (event["backend"], event["server"]) == ("server", "jedi-language-server")
        assert "no attached language server answers textDocument/references" in event["fallback"]
        assert "b.py:3: x = total([3])  # total" in refs["result"]
        renamed = _step(store, 2)
        assert renamed["result"].startswith("[renamed total → sum_items] 3 places in 2 files")
        print(f"headless: references {_ms(refs)} ms (cold), rename {_ms(renamed)} ms")
