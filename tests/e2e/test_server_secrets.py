"""Secrets never leave the server (§6.7): the API key the server resolved for a run is
redacted from every ``window/logMessage`` and ``window/showMessage``, even when the goal
quotes it and the provider echoes it back in an error."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.lsp import HarnessClient, initialize_params, settings, started_server
from tests.support.fake_llm import FakeLLM, Fault

SECRET = "sk-test-e2e-never-shown-5be0a1f3"

keyed_fixture = started_server("keyed", HARNESS_API_KEY=SECRET, HARNESS_LOG_LEVEL="INFO")


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
