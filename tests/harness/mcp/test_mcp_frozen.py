"""An MCP server that changes its tools mid-run (``notifications/tools/list_changed``),
through the real ``harness`` CLI against the fake Chat Completions server (§15): the run's
tools stay as listed at its start — every request offers the same schemas, the prefix stays
cached — a call to a tool the server withdrew is a failed observation that says so, the
user is told once, and the next run (a follow-up or a new one) lists the new set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import MakeFakeLLM
from tests.e2e.cli import call, calls, harness, run_args
from tests.support.transcript import request_text

from .servers import hostile
from .test_mcp_cli import KEY, _home, _run, _tool_names, _ws


def _mcp(request: dict[str, Any]) -> list[str]:
    return [n for n in _tool_names(request) if n.startswith("mcp__")]


def _prefix(request: dict[str, Any]) -> tuple[Any, Any]:
    """What the provider caches: the tools offered and the system message."""
    return request["tools"], request["messages"][0]


def test_a_run_keeps_its_tools_when_the_server_changes_them(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """``swap`` withdraws ``echo``, adds ``fresh`` and sends 50 notifications: the next
    requests offer exactly the first one's tools, ``echo`` called is a failed observation
    saying the new list applies from the next run, the run goes on, the user is told once."""
    marker = tmp_path / "marker"
    script = [
        calls(call("mcp__ch__swap", text="go")),
        calls(call("mcp__ch__echo", text="still there?")),
        calls(call("mcp__ch__swap", text="again")),
        {"content": "ok"},
    ]
    fake = fake_llm(script)
    done = _run(tmp_path, fake.url, _home(tmp_path, hostile("ch", "changing", marker)), "--yes")
    assert done.code == 0, done.stderr
    assert len(fake.requests) == 4
    assert _mcp(fake.requests[0]) == ["mcp__ch__echo", "mcp__ch__swap"]
    for later in fake.requests[1:]:
        assert _prefix(later) == _prefix(fake.requests[0])
    said = request_text(fake.requests[2]).split("still there?", 1)[1]
    assert "withdrew `echo` during this run" in said
    assert "the new list applies from the next run" in said
    assert done.json()["failed"] == 1
    assert done.stderr.count("MCP server `ch` changed its tools") == 1
    assert "added fresh; withdrew echo" in done.stderr and "from the next run" in done.stderr
    # the start's listing, then one to compare after each swap's 50 notifications
    assert marker.read_text().count("tools/list") == 3
    assert KEY not in done.stderr


def test_the_next_run_lists_the_new_tools(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    """The server keeps its swapped tools (a file): a follow-up in the same conversation
    and a new run each start a new server process and offer ``fresh``, not ``echo``."""
    marker = tmp_path / "marker"
    home = _home(tmp_path, hostile("ch", "changing", marker))
    fake = fake_llm([calls(call("mcp__ch__swap", text="go")), {"content": "ok"}])
    assert _run(tmp_path, fake.url, home, "--yes").code == 0
    assert _mcp(fake.requests[1]) == ["mcp__ch__echo", "mcp__ch__swap"]
    fake = fake_llm([calls(call("mcp__ch__fresh", text="new")), {"content": "ok"}])
    args = run_args("and now?", fake.url, _ws(tmp_path), tmp_path / "s.db", "--continue", "--yes")
    follow = harness(*args, OPENAI_API_KEY=KEY, **home)
    assert follow.code == 0, follow.stderr
    assert _mcp(fake.requests[0]) == ["mcp__ch__fresh", "mcp__ch__swap"]
    assert "fresh: new" in request_text(fake.requests[1])
    assert "changed its tools" not in follow.stderr
    fake = fake_llm([{"content": "ok"}])
    assert _run(tmp_path, fake.url, home, "--yes").code == 0
    assert _mcp(fake.requests[0]) == ["mcp__ch__fresh", "mcp__ch__swap"]


def test_a_failed_listing_keeps_the_tools_and_says_so(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    """After ``swap`` the server answers every tools/list with an error: the run's tools
    stay callable, and the user hears once that they could not be listed again."""
    script = [
        calls(call("mcp__ch__swap", text="go")),
        calls(call("mcp__ch__echo", text="still here")),
        {"content": "ok"},
    ]
    fake = fake_llm(script)
    done = _run(tmp_path, fake.url, _home(tmp_path, hostile("ch", "relistfails")), "--yes")
    assert done.code == 0, done.stderr
    assert _prefix(fake.requests[1]) == _prefix(fake.requests[0]) == _prefix(fake.requests[2])
    assert "echo: still here" in request_text(fake.requests[2])
    assert done.json()["failed"] == 0
    assert done.stderr.count("MCP server `ch` said its tools changed") == 1
    assert "listing them again failed" in done.stderr
