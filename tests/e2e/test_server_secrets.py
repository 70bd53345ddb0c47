"""Secrets never leave the server (§6.7): the API key the server resolved for a run is
redacted from every ``window/logMessage`` and ``window/showMessage``, even when the goal
quotes it and the provider echoes it back in an error."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from pytest_lsp import ClientServerConfig

from tests.e2e.lsp import (
    SERVER_COMMAND,
    HarnessClient,
    client_factory,
    close,
    initialize_params,
    server_env,
    settings,
)
from tests.support.fake_llm import FakeLLM, Fault

SECRET = "sk-test-e2e-never-shown-5be0a1f3"

KEYED = ClientServerConfig(
    server_command=SERVER_COMMAND,
    client_factory=client_factory,
    server_env=server_env(HARNESS_API_KEY=SECRET, HARNESS_LOG_LEVEL="INFO"),
)


@pytest_lsp.fixture(config=KEYED, name="keyed")
async def keyed_fixture(lsp_client: HarnessClient) -> AsyncIterator[None]:
    yield
    await close(lsp_client)


async def test_the_key_is_redacted_from_logs_and_messages(
    keyed: HarnessClient, ws: Path, fake: FakeLLM, store: Path
) -> None:
    fake.inject(Fault.unauthorized())
    await keyed.initialize_session(initialize_params([ws], settings(fake, store)))
    started = await keyed.command("harness.run", {"goal": f"deploy with the key {SECRET}"})
    finished = await keyed.wait_finished(started["runId"])
    assert finished["outcome"] == "provider_error"
    assert fake.headers[0].get("authorization") == f"Bearer {SECRET}", "the key was used"
    await keyed.wait_for(lambda: any("ended provider_error" in m.message for m in keyed.messages))
    logs = [m.message for m in keyed.log_messages]
    shown = [m.message for m in keyed.messages]
    assert any("deploy with the key [redacted]" in m for m in logs), logs
    assert not [m for m in logs + shown if SECRET in m or SECRET[:12] in m]
