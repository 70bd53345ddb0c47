"""One run's MCP servers against real processes (§15): the reference servers nobody here
wrote and hostile ones — each failure a clear line or observation, nothing left running."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from harness.mcp.client import State
from harness.mcp.runtime import McpRun, Where, open_mcp
from harness.mcp.tools import McpTool
from tests.support.procs import alive_with

from .servers import hostile, npm_server, table, time_server, write_config

KEY = "sk-test-0123456789abcdef0123456789abcdef"
SOAK = os.environ.get("HARNESS_SOAK") == "1"


async def _open(tmp_path: Path, *tables: str, head: str = "") -> McpRun:
    config = write_config(tmp_path / "config" / "policy.toml", *tables, head=head)
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    env = {**os.environ, "OPENAI_API_KEY": KEY, "HARNESS_API_KEY": KEY}
    run = await open_mcp(Where(ws, True, config), env)
    assert run is not None
    return run


def _tool(run: McpRun, name: str) -> McpTool:
    tool = run.tools[name]
    assert isinstance(tool, McpTool)
    return tool


def _pids(marker: Path) -> list[int]:
    return [int(p) for p in marker.read_text().split()] if marker.exists() else []


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"


async def test_no_server_configured_starts_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path / "config" / "policy.toml", head="trusted = []\n")
    (tmp_path / "ws").mkdir()
    assert await open_mcp(Where(tmp_path / "ws", True, config), {}) is None


async def test_time_server_tools_are_prefixed_sorted_and_answer(tmp_path: Path) -> None:
    run = await _open(tmp_path, time_server())
    try:
        assert list(run.tools) == ["mcp__time__convert_time", "mcp__time__get_current_time"]
        answer = await _tool(run, "mcp__time__get_current_time").connection.call(
            "get_current_time", {"timezone": "Asia/Tokyo"}
        )
        assert "Asia/Tokyo" in answer.content[0].text  # type: ignore[union-attr]
        assert [s.as_json()["state"] for s in run.statuses] == ["running"]
    finally:
        await run.aclose()


async def test_everything_server_get_env_holds_no_key(tmp_path: Path) -> None:
    command = npm_server("mcp-server-everything")
    run = await _open(tmp_path, table("everything", command, "stdio"))
    try:
        names = [n for n in run.tools if n.startswith("mcp__everything__")]
        assert "mcp__everything__echo" in names
        env_tool = next(n for n in names if n.endswith("get-env"))
        answer = await _tool(run, env_tool).connection.call("get-env", {})
        text = answer.content[0].text  # type: ignore[union-attr]
        assert "PATH" in text
        assert KEY not in text and "OPENAI_API_KEY" not in text
    finally:
        await run.aclose()


async def test_server_everything_announces_a_change_that_changes_nothing(tmp_path: Path) -> None:
    """The reference server sends tools/list_changed once, right after it starts: it is
    heard, the run's tools stay as listed, and comparing finds nothing to tell."""
    command = npm_server("mcp-server-everything")
    run = await _open(tmp_path, table("everything", command, "stdio"))
    try:
        offered = dict(run.tools)
        drift = _tool(run, "mcp__everything__echo").drift
        await asyncio.wait_for(drift.connection.heard.wait(), 20)
        await drift.check()
        assert drift.connection.notified >= 1
        assert drift.changes() == [] and drift.error == "" and drift.notice() == ""
        assert run.tools == offered
    finally:
        await run.aclose()


async def test_schema_budget_leaves_tools_out_and_says_which(tmp_path: Path) -> None:
    run = await _open(tmp_path, hostile("many", "many"), head="[mcp]\nschema_chars = 2000\n")
    try:
        offered = [n for n in run.tools if n.startswith("mcp__many__")]
        assert 0 < len(offered) < 500
        assert run.frame and "tools not offered" in run.frame[0] and "tool_499" in run.frame[0]
        status = run.statuses[0]
        assert status.schema_chars <= 2000 and "over [mcp] schema_chars = 2,000" in status.note
    finally:
        await run.aclose()


async def test_allow_list_offers_only_those(tmp_path: Path) -> None:
    run = await _open(tmp_path, time_server().replace("args", 'tools = ["convert_time"]\nargs'))
    try:
        assert list(run.tools) == ["mcp__time__convert_time"]
    finally:
        await run.aclose()


async def test_server_that_never_answers_initialize_is_a_line_and_is_stopped(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "silent.pid"
    silent_table = hostile("silent", "silent", marker, startup_timeout_s=1)
    run = await _open(tmp_path, silent_table, time_server())
    try:
        silent = next(s for s in run.statuses if s.name == "silent")
        assert silent.state == State.FAILED
        assert "did not answer `initialize` within 1 s" in silent.note
        assert "[mcp.servers.silent] startup_timeout_s" in silent.note
        assert any("silent" in w and "initialize" in w for w in run.warnings)
        assert "mcp__time__get_current_time" in run.tools  # the others still serve
        assert all(_dead(pid) for pid in _pids(marker))
    finally:
        await run.aclose()


async def test_malformed_schema_and_colliding_names_are_refused_and_named(
    tmp_path: Path,
) -> None:
    run = await _open(tmp_path, hostile("bad", "badschema"), hostile("col", "collide"))
    try:
        # The SDK refuses a listing it cannot validate, whole: the server's line says so.
        bad = next(s for s in run.statuses if s.name == "bad")
        assert bad.tools == [] and "tools/list failed, no tool offered" in bad.note
        assert not any(n.startswith("mcp__bad__") for n in run.tools)
        # Two tools, one name once sanitised: the first (sorted) is offered, the other named.
        assert [n for n in run.tools if n.startswith("mcp__col__")] == ["mcp__col__a_b"]
        col = next(s for s in run.statuses if s.name == "col")
        assert "tool refused" in col.note and "mcp__col__a_b" in col.note
        assert any("mcp__col__a_b" in w for w in run.warnings)
    finally:
        await run.aclose()


async def test_hang_mid_call_is_an_observation_after_the_call_timeout(tmp_path: Path) -> None:
    run = await _open(tmp_path, hostile("hang", "hang"), head="[mcp]\ncall_timeout_s = 1\n")
    try:
        tool = _tool(run, "mcp__hang__echo")
        with pytest.raises(Exception, match="no answer within 1 s"):
            await tool.connection.call("echo", {"text": "hi"})
    finally:
        await run.aclose()


async def test_crash_is_restarted_once_then_gone_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "crash.pid"
    run = await _open(tmp_path, hostile("crash", "crash", marker))
    connection = _tool(run, "mcp__crash__echo").connection
    try:
        with pytest.raises(Exception, match="died"):
            await connection.call("echo", {})
        with pytest.raises(Exception, match="died again and is gone"):
            await connection.call("echo", {})  # the restart, which crashes too
        with pytest.raises(Exception, match="gone for this run"):
            await connection.call("echo", {})
        assert connection.state is State.GONE and len(_pids(marker)) == 2
    finally:
        await run.aclose()
    assert all(_dead(pid) for pid in _pids(marker))


# ``make test`` floods 2 MB of stderr (32 times the 64 KiB pipe a server not drained blocks
# on) and answers 6,000,000 chars (past MAX_RESULT_CHARS, 4,000,000); ``make soak``
# (HARNESS_SOAK=1) the 20 MB and 50 MB the SDK takes ~25 s (over a minute under load) to read.
FLOOD_BYTES, BIG_CHARS = (20_000_000, 50_000_000) if SOAK else (2_000_000, 6_000_000)


async def test_stderr_flood_does_not_block_and_50_mb_is_cut(tmp_path: Path) -> None:
    # The SDK reads the big line slowly (the 50 MB in ~25 s on this machine): the timeout is
    # not what this test is about, so it is long.
    slow = "[mcp]\ncall_timeout_s = 900\n"
    flood_env = {"MCP_HOSTILE_BYTES": str(FLOOD_BYTES)}
    big_env = {"MCP_HOSTILE_BYTES": str(BIG_CHARS)}
    flooding = hostile("flood", "flood", env=flood_env)
    run = await _open(tmp_path, flooding, hostile("big", "big", env=big_env), head=slow)
    try:
        flood = await _tool(run, "mcp__flood__echo").connection.call("echo", {"text": "ok"})
        assert flood.content[0].text == "ok"  # type: ignore[union-attr]
        from harness.mcp.tools import MAX_RESULT_CHARS, result_text

        assert BIG_CHARS > MAX_RESULT_CHARS
        big = await _tool(run, "mcp__big__echo").connection.call("echo", {})
        text, failed = result_text(big)
        assert not failed and len(text) < MAX_RESULT_CHARS + 200
        assert f"the server returned {BIG_CHARS:,} chars" in text
    finally:
        await run.aclose()


async def test_every_server_is_stopped_with_the_run(tmp_path: Path) -> None:
    marker = tmp_path / "ok.pid"
    run = await _open(tmp_path, hostile("ok", "ok", marker))
    (pid,) = _pids(marker)
    assert not _dead(pid)
    await run.aclose()
    assert _dead(pid)
    assert alive_with(str(marker)) == []


async def test_is_error_is_a_failed_observation(tmp_path: Path) -> None:
    from harness.mcp.tools import result_text

    run = await _open(tmp_path, hostile("err", "error"))
    try:
        answer = await _tool(run, "mcp__err__echo").connection.call("echo", {"text": "boom"})
        text, failed = result_text(answer)
        assert failed and text.startswith("error: the tool reported an error") and "boom" in text
    finally:
        await run.aclose()


async def test_git_server_on_a_local_repository(tmp_path: Path) -> None:
    import subprocess
    import sys

    repo = tmp_path / "ws"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("hello\n")
    git = str(Path(sys.executable).parent / "mcp-server-git")
    run = await _open(tmp_path, table("git", git, "--repository", str(repo)))
    try:
        assert "mcp__git__git_status" in run.tools
        answer = await _tool(run, "mcp__git__git_status").connection.call(
            "git_status", {"repo_path": str(repo)}
        )
        assert "new.txt" in answer.content[0].text  # type: ignore[union-attr]
    finally:
        await run.aclose()


async def test_filesystem_server_lists_its_root(tmp_path: Path) -> None:
    from harness.mcp.tools import result_text

    root = tmp_path / "shared"
    root.mkdir()
    (root / "notes.md").write_text("# notes\n")
    command = npm_server("mcp-server-filesystem")
    run = await _open(tmp_path, table("fs", command, str(root)))
    try:
        assert "mcp__fs__list_directory" in run.tools
        answer = await _tool(run, "mcp__fs__list_directory").connection.call(
            "list_directory", {"path": str(root)}
        )
        text, failed = result_text(answer)
        assert not failed and "notes.md" in text
        outside = await _tool(run, "mcp__fs__list_directory").connection.call(
            "list_directory", {"path": "/etc"}
        )
        assert result_text(outside)[1]  # the server's own refusal is a failed observation
    finally:
        await run.aclose()


def test_a_harness_killed_outright_leaves_no_server_running(tmp_path: Path) -> None:
    import select
    import signal
    import subprocess
    import sys

    marker = tmp_path / "orphan.pid"
    config = write_config(tmp_path / "config" / "policy.toml", hostile("ok", "stubborn", marker))
    (tmp_path / "ws").mkdir()
    code = (
        "import asyncio, os; from pathlib import Path; "
        "from harness.mcp.runtime import open_mcp, Where\n"
        "async def main():\n"
        f"    run = await open_mcp(Where(Path({str(tmp_path / 'ws')!r}), True, "
        f"Path({str(config)!r})), dict(os.environ))\n"
        "    print('up', flush=True); await asyncio.sleep(600)\n"
        "asyncio.run(main())"
    )
    harness = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert harness.stdout is not None and harness.stdout.readline().strip() == "up"
        (pid,) = _pids(marker)
        server = os.pidfd_open(pid)  # readable once the server has exited
        try:
            harness.send_signal(signal.SIGKILL)  # no cleanup of its own can run
            harness.wait(timeout=30)
            ready, _, _ = select.select([server], [], [], 10)
            assert ready == [server] and _dead(pid)
        finally:
            os.close(server)
    finally:
        harness.kill()
        harness.wait(timeout=30)
        harness.stdout.close()  # type: ignore[union-attr]
