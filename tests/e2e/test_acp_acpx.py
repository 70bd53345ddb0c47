"""``harness acp`` driven by a real ACP client beyond the SDK (issue 38): ``acpx``, the
headless command-line client for ACP agents (npm; ``make acp-clients``), which offers the
file-system methods as an editor does. One prompt edits a file — the write arrives as
``fs/write_text_file`` and acpx writes it — and runs a command whose output is in the call's
``tool_call_update``; acpx's ``--format json`` prints every JSON-RPC message it exchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.lsp import server_env
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call, turn

pytestmark = pytest.mark.timeout(180)

ACPX = Path(__file__).resolve().parents[1] / "acp_clients" / "node_modules" / ".bin" / "acpx"


def test_acpx_edits_through_the_client_and_shows_a_commands_output(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    if not ACPX.exists():
        pytest.skip(f"{ACPX} is not installed: run `make acp-clients`")
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("def add(a, b):\n    return a - b\n")
    fake = fake_llm(
        [
            turn(call("edit_file", path="src/a.py", old="a - b", new="a + b")),
            turn(call("exec", argv=["echo", "hello-from-acpx"])),
            {"content": "Fixed add()."},
        ]
    )
    messages = _acpx(tmp_path, fake, "Fix add()")
    writes = [m["params"] for m in messages if m.get("method") == "fs/write_text_file"]
    assert writes == [
        {
            "sessionId": writes[0]["sessionId"],
            "path": str(ws / "src" / "a.py"),
            "content": "def add(a, b):\n    return a + b\n",
        }
    ]
    assert (ws / "src" / "a.py").read_text() == "def add(a, b):\n    return a + b\n"
    ended = [u for u in _updates(messages) if u["sessionUpdate"] == "tool_call_update"]
    ran = next(u for u in ended if "hello-from-acpx" in json.dumps(u.get("content")))
    assert ran["status"] == "completed"
    assert any(m.get("result", {}).get("stopReason") == "end_turn" for m in messages)


def test_acpx_passes_an_mcp_stdio_server_in_session_new_and_it_is_used(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    """The MCP reference server ``mcp-server-time`` (PyPI, the dev extra), given to acpx as
    its MCP configuration: acpx sends it in ``session/new.mcpServers``, the harness offers
    its tools, asks, calls it, and the result's text is in the ``tool_call_update``."""
    if not ACPX.exists():
        pytest.skip(f"{ACPX} is not installed: run `make acp-clients`")
    clock = Path(sys.executable).parent / "mcp-server-time"
    config = tmp_path / "mcp.json"
    server = {"name": "clock", "command": str(clock), "args": ["--local-timezone", "UTC"]}
    config.write_text(json.dumps({"mcpServers": [{**server, "env": []}]}))
    (tmp_path / "ws").mkdir()
    fake = fake_llm(
        [turn(call("mcp__clock__get_current_time", timezone="Europe/Paris")), {"content": "Late."}]
    )
    messages = _acpx(tmp_path, fake, "--mcp-config", str(config), "What time is it in Paris?")
    (new,) = [m["params"] for m in messages if m.get("method") == "session/new"]
    assert new["mcpServers"][0]["command"] == str(clock)
    names = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert "mcp__clock__get_current_time" in names
    (asked,) = [m["params"] for m in messages if m.get("method") == "session/request_permission"]
    assert "Europe/Paris" in json.dumps(asked["toolCall"])
    ended = [u for u in _updates(messages) if u["sessionUpdate"] == "tool_call_update"]
    assert ended[-1]["status"] == "completed"
    assert '\\"timezone\\": \\"Europe/Paris\\"' in json.dumps(ended[-1]["content"])


def _acpx(tmp_path: Path, fake: FakeLLM, *args: str) -> list[dict[str, Any]]:
    """acpx runs ``harness acp`` with ``args`` and a prompt; its JSON-RPC messages."""
    agent = (
        f"{sys.executable} -m harness acp --provider openai --base-url {fake.url} --model m "
        f"--store {tmp_path / 'store' / 'harness.db'}"
    )
    *flags, prompt = args
    argv = [str(ACPX), "--agent", agent, "--cwd", str(tmp_path / "ws"), "--approve-all"]
    out = subprocess.run(
        [*argv, *flags, "--format", "json", "exec", prompt],
        capture_output=True,
        text=True,
        env=server_env(HARNESS_API_KEY="sk-acpx-" + "k" * 24),
        cwd=Path(__file__).resolve().parents[2],
        timeout=150,
    )
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def _updates(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
