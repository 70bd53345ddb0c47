"""MCP servers through the real ``harness`` CLI against the fake Chat Completions server
(§15): real reference servers listed with prefixed names and called, the approval asked by
default and honoured when denied, results capped with the marker, the key kept out, and a
repository's ``.mcp.json`` never started unless the folder is trusted and the user approved
exactly what it runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.cli import ROOT, Result, call, calls, harness, run_args
from tests.support.transcript import request_text

from .servers import hostile, npm_server, table, time_server, write_config

KEY = "sk-test-0123456789abcdef0123456789abcdef"


def _home(tmp_path: Path, *tables: str, trusted: tuple[Path, ...] = ()) -> dict[str, str]:
    head = f"trusted = {json.dumps([str(p) for p in trusted])}\n"
    write_config(tmp_path / "config" / "harness" / "policy.toml", *tables, head=head)
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "d")}


def _ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "a.py").write_text("x = 1\n")
    return ws


def _run(tmp_path: Path, fake_url: str, home: dict[str, str], *more: str) -> Result:
    args = run_args("use the tools", fake_url, _ws(tmp_path), tmp_path / "s.db", *more)
    return harness(*args, OPENAI_API_KEY=KEY, **home)


def _tool_names(body: dict[str, object]) -> list[str]:
    tools = body.get("tools") or []
    assert isinstance(tools, list)
    return [t["function"]["name"] for t in tools]


def test_time_server_listed_prefixed_called_with_yes(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm(
        [calls(call("mcp__time__get_current_time", timezone="Asia/Tokyo")), {"content": "ok"}]
    )
    done = _run(tmp_path, fake.url, _home(tmp_path, time_server()), "--yes")
    assert done.code == 0, done.stderr
    names = _tool_names(fake.requests[0])
    mcp = [n for n in names if n.startswith("mcp__")]
    assert mcp == ["mcp__time__convert_time", "mcp__time__get_current_time"]
    assert names[-2:] == mcp  # after the harness's own tools, sorted
    said = request_text(fake.requests[1])
    assert "[mcp time/get_current_time" in said and "Asia/Tokyo" in said


def test_the_approval_is_asked_by_default_and_a_denial_holds(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm([calls(call("mcp__time__get_current_time", timezone="UTC")), {"content": "ok"}])
    home = _home(tmp_path, time_server())
    args = run_args("t", fake.url, _ws(tmp_path), tmp_path / "s.db")
    done = harness(*args, OPENAI_API_KEY=KEY, stdin="d\n", **home)
    said = request_text(fake.requests[1])
    assert "refused: mcp `time/get_current_time` needs approval" in said
    assert '"datetime"' not in said  # the server was never called
    assert done.json()["refused"] + done.json()["denied"] == 1


def test_a_user_rule_allows_a_server(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([calls(call("mcp__time__get_current_time", timezone="UTC")), {"content": "ok"}])
    rule = '[[rules]]\nact = "mcp"\neffect = "allow"\nglob = "time/*"\n'
    done = _run(tmp_path, fake.url, _home(tmp_path, rule, time_server()))
    assert done.code == 0, done.stderr
    assert '"datetime"' in request_text(fake.requests[1])


def test_an_untrusted_folders_policy_cannot_allow_mcp(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    fake = fake_llm([calls(call("mcp__time__get_current_time", timezone="UTC")), {"content": "ok"}])
    ws = _ws(tmp_path)
    (ws / ".harness").mkdir()
    (ws / ".harness" / "policy.toml").write_text(
        '[[rules]]\nact = "mcp"\neffect = "allow"\nglob = "*"\n'
    )
    _run(tmp_path, fake.url, _home(tmp_path, time_server()))
    assert "needs approval" in request_text(fake.requests[1])


def test_large_results_are_capped_with_the_marker_and_the_trace_keeps_all(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """(And its tools/list_changed, sent once as it starts, changes nothing: every
    request offers the first one's tools and system message — the prefix stays cached.)"""
    command = npm_server("mcp-server-everything")
    big = calls(call("mcp__everything__echo", message="y" * 60_000))
    fake = fake_llm([big, calls(call("mcp__everything__echo", message="hi")), {"content": "ok"}])
    done = _run(tmp_path, fake.url, _home(tmp_path, table("everything", command, "stdio")), "--yes")
    assert done.code == 0, done.stderr
    said = request_text(fake.requests[1])
    assert "…[truncated: elided" in said
    assert "Echo: hi" in request_text(fake.requests[2])
    first = fake.requests[0]
    for later in fake.requests[1:]:
        assert (later["tools"], later["messages"][0]) == (first["tools"], first["messages"][0])
    assert "changed its tools" not in done.stderr and done.json()["failed"] == 0
    trace = harness("trace", "step", "1", "1", "--store", tmp_path / "s.db", "--json")
    assert "y" * 60_000 in trace.json()["result"]
    assert KEY not in json.dumps(trace.json())


def test_workspace_server_never_starts_in_an_untrusted_folder(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = _ws(tmp_path)
    marker = ws / "ran.pid"
    spec = {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_hostile", "ok", str(marker)],
        "cwd": str(ROOT),
    }
    (ws / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"repo": spec}, "enableAllProjectMcpServers": True})
    )
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"vs": spec}}))
    fake = fake_llm([{"content": "ok"}])
    done = _run(tmp_path, fake.url, _home(tmp_path), "--yes")
    assert done.code == 0, done.stderr
    assert not marker.exists()
    assert "not trusted" in done.stderr and "repo" in done.stderr and "vs" in done.stderr
    assert not [n for n in _tool_names(fake.requests[0]) if n.startswith("mcp__")]


def test_trusted_workspace_server_asked_once_remembered_and_asked_again_when_changed(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = _ws(tmp_path)
    marker = ws / "ran.pid"  # in the workspace: the sandbox's /tmp is its own
    # The repository's own server, in the repository (a clone under /tmp is hidden by the
    # sandbox's private /tmp; the workspace is not).
    shutil.copy(ROOT / "tests" / "support" / "mcp_hostile.py", ws / "mcp_hostile.py")
    args = [str(ws / "mcp_hostile.py"), "ok", str(marker)]
    spec = {"command": sys.executable, "args": args, "cwd": str(ws)}
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": spec}}))
    home = _home(tmp_path, trusted=(ws,))
    # --yes is no approval of a repository's server: it is not started.
    fake = fake_llm([{"content": "ok"}])
    done = _run(tmp_path, fake.url, home, "--yes")
    assert not marker.exists() and "harness mcp approve repo" in done.stderr
    listed = harness("mcp", "list", "-w", ws, "--json", **home).json()
    assert listed[0]["approval"] == "not approved" and listed[0]["state"] == "not started"
    approved = harness("mcp", "approve", "repo", "-w", ws, "--yes", **home)
    assert approved.code == 0 and sys.executable in approved.stdout
    listed = harness("mcp", "list", "-w", ws, "--json", **home).json()
    assert listed[0]["state"] == "running" and listed[0]["tools"] == ["echo", "get_env"]
    fake = fake_llm([{"content": "ok"}])
    _run(tmp_path, fake.url, home)
    assert "mcp__repo__echo" in _tool_names(fake.requests[0])
    # The same name, another command: asked again, not started meanwhile.
    spec["args"] = [*args, "changed"]
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": spec}}))
    runs = len(marker.read_text().split())
    fake = fake_llm([{"content": "ok"}])
    done = _run(tmp_path, fake.url, home)
    assert "changed since approved" in done.stderr
    assert len(marker.read_text().split()) == runs


def test_a_model_write_to_mcp_json_goes_through_the_runs_later_approval(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = _ws(tmp_path)
    fake = fake_llm([calls(call("write_file", path=".mcp.json", content="{}")), {"content": "ok"}])
    home = _home(tmp_path, trusted=(ws,))
    done = _run(tmp_path, fake.url, home)
    assert not (ws / ".mcp.json").exists()
    assert "runs-later" in request_text(fake.requests[1])
    assert done.json()["refused"] == 1


def test_mcp_list_names_a_failing_server(tmp_path: Path) -> None:
    home = _home(tmp_path, hostile("silent", "silent", startup_timeout_s=1), time_server())
    listed = harness("mcp", "list", "-w", _ws(tmp_path), **home)
    assert listed.code == 0
    assert "silent · user · yours · failed" in listed.stdout
    assert "did not answer `initialize` within 1 s" in listed.stdout
    assert "time · user · yours · running · 2 tools" in listed.stdout


def test_no_server_configured_never_imports_the_sdk(tmp_path: Path) -> None:
    home = _home(tmp_path)
    code = (
        "import sys, asyncio; from pathlib import Path; "
        "from harness.mcp.runtime import open_mcp, Where; "
        f"print(asyncio.run(open_mcp(Where(Path({str(tmp_path)!r}), True, "
        f"Path({home['XDG_CONFIG_HOME']!r}) / 'harness' / 'policy.toml'), {{}}))); "
        "print('mcp' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.split() == ["None", "False"]
