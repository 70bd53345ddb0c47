"""The turns a scripted model (``harness.provider.scripted.ScriptedProvider``) replays, built
the way the tests write them: ``turn(call("read_file", path="a.py"), ...)``."""

from __future__ import annotations

from typing import Any


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """One tool call of a scripted turn."""
    return {"name": name, "arguments": arguments}


def turn(*calls: dict[str, Any]) -> dict[str, Any]:
    """A scripted turn that makes ``calls`` and says nothing."""
    return {"tool_calls": list(calls)}
