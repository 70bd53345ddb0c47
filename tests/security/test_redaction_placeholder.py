"""Attack: a placeholder key eats words (issue 20, item 8: "With the placeholder key
`sk-no-key-required` every "required" became "[redacted]" — in notes, approvals and
`didWrite` URIs").

A local OpenAI-compatible server takes any key, so users set a placeholder; the harness
registers it like any key (§6.7). A key shorter than 32 characters is a placeholder: it is
redacted whole, never in pieces — so its tail ``required`` is an ordinary word again, and
the placeholder itself still never leaves. Both hosts, for real: ``harness run`` on a
terminal (the approval prompt answered by typing) and the language server over stdio (the
approval dialog, ``harness/didWrite``), the model a real HTTP server on 127.0.0.1, its key
``HARNESS_API_KEY=sk-no-key-required``; notes are read back with ``harness memory get``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import ClientServerConfig

from harness.redact import REDACTED, redact, register
from tests.e2e.cli import harness, harness_pty
from tests.e2e.lsp import (
    HarnessClient,
    initialize_params,
    running,
    server_config,
    server_env,
    settings,
    wait_watching,
)
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call

PLACEHOLDER = "sk-no-key-required"
NOTE = "a review is required before merging; tests are required too"
COMMAND = "echo required checks passed"
WRITTEN = "docs/required-reading.md"


def model_turns() -> list[dict[str, Any]]:
    """A model that writes notes, a file and a command with the word, and quotes the key."""
    return [
        {
            "tool_calls": [
                call("remember", key="required-review", value=NOTE),
                call("remember", key="local-key", value=f"the local server takes {PLACEHOLDER}"),
                call("write_file", path=WRITTEN, content="What is required.\n"),
                call("exec", argv=["sh", "-c", COMMAND]),
            ]
        },
        {"content": "done"},
    ]


def note(store: Path, ws: Path, key: str) -> str:
    out = harness("memory", "get", key, "-w", ws, "--store", store, "--json")
    assert out.code == 0, out.stderr
    value: str = out.json()["value"]
    return value


def assert_notes_keep_the_word(store: Path, ws: Path) -> None:
    assert note(store, ws, "required-review") == NOTE
    assert note(store, ws, "local-key") == f"the local server takes {REDACTED}"


def test_the_placeholder_is_redacted_whole_and_never_in_pieces() -> None:
    register(PLACEHOLDER)
    assert redact(f"key={PLACEHOLDER}; a review is required") == (
        f"key={REDACTED}; a review is required"
    )
    assert redact("sk-no-key-req… was cut") == "sk-no-key-req… was cut"


def test_on_the_command_line_notes_and_the_approval_keep_the_word(
    tmp_path: Path, fake_llm: Any
) -> None:
    ws, store = tmp_path / "ws", tmp_path / "store" / "harness.db"
    ws.mkdir()
    fake: FakeLLM = fake_llm(model_turns())
    screen = harness_pty(
        "run", "do what is required", "-w", ws, "--provider", "openai", "--base-url", fake.url,
        "--model", "m", "--store", store,
        answers=[("(default: deny)?", "a\n")],
        timeout=120,
        HARNESS_API_KEY=PLACEHOLDER,
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )  # fmt: skip
    assert screen.code == 0, screen.text
    question = screen.stream[: screen.stream.index("(default: deny)?")]
    assert COMMAND in question, question
    assert REDACTED not in question
    assert f"write {WRITTEN}" in screen.stream, "the progress line keeps the word too"
    assert PLACEHOLDER not in screen.raw
    assert_notes_keep_the_word(store, ws)
    [run] = json.loads(harness("trace", "runs", "--store", store, "--json").stdout)
    assert run["goal"] == "do what is required"


@pytest.fixture
def placeholder_server(tmp_path: Path) -> ClientServerConfig:
    env = server_env(HARNESS_API_KEY=PLACEHOLDER, XDG_CONFIG_HOME=str(tmp_path / "config"))
    return server_config(env=env)


async def test_in_the_editor_notes_the_approval_and_did_write_keep_the_word(
    tmp_path: Path, fake_llm: Any, placeholder_server: ClientServerConfig
) -> None:
    ws, store = tmp_path / "ws", tmp_path / "store" / "harness.db"
    ws.mkdir()
    fake: FakeLLM = fake_llm(model_turns())
    async with running(placeholder_server) as client:
        assert isinstance(client, HarnessClient)
        await client.initialize_session(initialize_params([ws], settings(fake, store)))
        await wait_watching(client)
        run_id = (await client.command("harness.run", {"goal": "do what is required"}))["runId"]
        assert (await client.wait_finished(run_id))["outcome"] == "finished"
        [approval] = client.approvals
        did_write = list(client.did_write)
    assert COMMAND in approval.message and REDACTED not in approval.message
    assert did_write == [(ws.resolve() / WRITTEN).as_uri()]
    assert_notes_keep_the_word(store, ws)
