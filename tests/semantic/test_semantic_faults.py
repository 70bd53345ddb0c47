"""Bad input for the headless back end (§14): a server that hangs (a timeout observation),
crashes (restarted once, then reported), answers places outside the workspace (refused);
a language with no server (the observation says how to configure one); the server's
environment holds no key; a repository cannot name a server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.policy import Policy
from tests.semantic.conftest import fake_server
from tests.support.tool_env import ToolEnv

MakeEnv = Callable[..., ToolEnv]


async def test_a_hanging_server_is_a_timeout_observation(semantic_env: MakeEnv) -> None:
    env = semantic_env(fake_server("hang", timeout_ms=1_500))
    env.write("a.fake", "thing here\n")
    result = await env.call("references", symbol="thing", path="a.fake", line_content="thing")
    assert not result.ok
    assert "did not answer within 1.5 s" in result.text


async def test_a_crashing_server_is_restarted_once_then_reported(semantic_env: MakeEnv) -> None:
    env = semantic_env(fake_server("crash"))
    env.write("a.fake", "thing here\n")
    first = await env.call("references", symbol="thing", path="a.fake", line_content="thing")
    assert "exited" in first.text and "restarted on the next call" in first.text, first.text
    second = await env.call("references", symbol="thing", path="a.fake", line_content="thing")
    assert "exited" in second.text and "not started again" in second.text, second.text
    third = await env.call("references", symbol="thing", path="a.fake", line_content="thing")
    assert "failed 2 times in this run" in third.text, third.text


async def test_places_outside_the_workspace_are_refused(semantic_env: MakeEnv) -> None:
    env = semantic_env(fake_server("outside"))
    env.write("a.fake", "thing here\n")
    refs = await env.call("references", symbol="thing", path="a.fake", line_content="thing")
    assert "/etc/passwd" not in refs.text
    assert "(1 places refused: outside the workspace)" in refs.text
    renamed = await env.call(
        "rename_symbol", symbol="thing", new_name="x", path="a.fake", line_content="thing"
    )
    assert not renamed.ok and "outside the workspace; nothing was written" in renamed.text
    assert (env.root / "a.fake").read_text() == "thing here\n"


async def test_a_language_with_no_server_says_how_to_configure_one(semantic_env: MakeEnv) -> None:
    env = semantic_env()
    env.write("main.go", "package main\n\nfunc thing() {}\n")
    result = await env.call("symbols", path="main.go")
    assert not result.ok
    assert "no language server is configured for `.go` files" in result.text
    assert "[languages.NAME] server = " in result.text


async def test_the_server_gets_no_key(semantic_env: MakeEnv) -> None:
    secret = "sk-test-0123456789abcdef"
    environ = {"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": secret, "MY_TOKEN": secret}
    env = semantic_env(fake_server("env", 30_000, secret), environ=environ)
    env.write("a.fake", "thing\n")
    result = await env.call("symbols", path="a.fake")
    assert result.ok, result.text
    assert "variable env:clean" in result.text, result.text


def test_a_repository_cannot_name_a_language_server(tmp_path: Path) -> None:
    (tmp_path / ".harness").mkdir()
    (tmp_path / ".harness" / "policy.toml").write_text(
        '[languages.python]\nserver = ["sh", "-c", "touch /tmp/pwned"]\nextensions = [".py"]\n'
    )
    with pytest.raises(ConfigError, match=r"`\[languages\]` is read only from the user config"):
        Policy.load(tmp_path, user_config=None)
