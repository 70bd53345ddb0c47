"""Editor settings through the real server (§7, issue 9 seen 8): each bad value is reported
with ``window/showMessage`` naming the field, and only that field falls back to its default —
every other value, nested ones and the good entries of the policy included, still applies.
A ``postgresql://`` store URL works and its password is never shown (§12). A bad
destination (``provider.baseUrl``, ``provider.name``) refuses runs instead: the run
meant for a local server never goes to the provider's hosted API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from harness.contract import DEFAULT_TOKEN_BUDGET
from tests.e2e.lsp import (
    HarnessClient,
    call,
    initialize_params,
    settings,
    started_server,
    turn,
)
from tests.support.fake_llm import FakeLLM

INVALID_PARAMS = -32602
HOSTED_KEY = "sk-test-hosted-key-7d1c55aa90"  # the hosted API would take the run with it

# A server whose environment holds a key for the hosted OpenAI API.
keyed_fixture = started_server("keyed", OPENAI_API_KEY=HOSTED_KEY)


async def test_each_bad_setting_is_reported_and_only_it_replaced(
    bare: HarnessClient, fake: FakeLLM, ws: Path, store: Path, pg_store_url: str
) -> None:
    options = settings(
        fake,
        store,
        tokenBudget="lots",
        maxSteps=3,
        contextBudget={"maxTokens": 8000, "share": 7, "lowWater": 0},
        contextWire="xml",
        policy={
            "defaults": {"read": "sometimes"},
            "rules": [
                {"act": "exec", "effect": "perhaps", "glob": "*"},
                {"act": "read", "effect": "deny", "glob": "src/b.py"},
            ],
        },
        trusted="yes",
        serverPath="/ignored/by/the/server",
    )
    await bare.initialize_session(initialize_params([ws], {"harness": options}))
    await bare.wait_for(lambda: len(bare.warnings()) >= 7)
    warnings = "\n".join(bare.warnings())
    for field in (
        "tokenBudget",
        "contextBudget.share",
        "contextBudget.lowWater",
        "contextWire",
        "policy.defaults.read",
        "policy.rules.0",
        "trusted",
    ):
        assert f"invalid setting `{field}`" in warnings, field
    assert "using the default" in warnings and "refused" not in warnings
    assert "serverPath" not in warnings and "sometimes" not in warnings, "values never echoed"

    fake.add_turns(turn(call("read_file", path="src/b.py")), {"content": "done"})
    run_id = (await bare.command("harness.run", {"goal": "x"}))["runId"]
    assert (await bare.wait_finished(run_id))["outcome"] == "finished"
    budget = bare.budgets[0]
    assert budget["tokenBudget"] == DEFAULT_TOKEN_BUDGET, "the default replaced the bad value"
    assert budget["maxSteps"] == 3, "the good values still apply"
    assert budget["contextCeiling"] == 8000, "the good half of contextBudget still applies"
    step = await bare.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "src/b.py" in step["result"] and "deny" in step["result"], (
        "the good rule of the policy still applies"
    )
    status = await bare.command("harness.status")
    assert status["settings"]["contextBudget"]["maxTokens"] == 8000
    assert status["settings"]["policy"]["rules"] == [
        {"act": "read", "effect": "deny", "glob": "src/b.py"}
    ]

    bare.messages.clear()
    bare.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"harness": {"storePath": "relative.db"}})
    )
    await bare.wait_for(bare.warnings)
    assert "`storePath`" in bare.warnings()[0] and "absolute" in bare.warnings()[0]
    assert (await bare.command("harness.status"))["runs"] == []

    # A postgresql:// URL is a store too (§12); its password is never shown.
    secret = "pw-never-shown"
    url = pg_store_url.replace("postgresql://postgres@", f"postgresql://postgres:{secret}@")
    bare.messages.clear()
    bare.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"harness": {"storePath": url}})
    )
    wrote = await bare.command("harness.memory.write", {"key": "build", "value": "make test"})
    assert wrote["note"]["author"] and wrote["note"]["authorPath"] == str(ws.resolve())
    [listed] = await bare.command("harness.memory.list", {})
    assert listed["key"] == "build" and listed["author"] == wrote["note"]["author"]
    status = await bare.command("harness.status")
    assert status["storePath"].startswith("postgresql://postgres:***@")
    assert status["settings"]["storePath"] == status["storePath"]
    assert secret not in json.dumps(status) and not bare.warnings()


@pytest.mark.parametrize(
    "provider",
    [
        pytest.param({"baseUrl": "localhost:8000/v1"}, id="no-scheme"),
        pytest.param({"baseUrl": "htp://127.0.0.1:8000/v1"}, id="bad-scheme"),
        pytest.param({"baseUrl": "http://127.0.0.1:99999/v1"}, id="bad-port"),
        pytest.param({"name": "olama"}, id="bad-name"),
    ],
)
async def test_a_bad_destination_never_sends_the_run_to_the_hosted_api(
    keyed: HarnessClient, fake: FakeLLM, ws: Path, store: Path, provider: dict[str, str]
) -> None:
    # Seen: an invalid baseUrl reset the provider to the hosted default, and a run meant for
    # a local server went to a public API (the key for it was in the environment).
    options = {"provider": {"name": "openai", "model": "m", **provider}, "storePath": str(store)}
    await keyed.initialize_session(initialize_params([ws], options))
    field = "provider.baseUrl" if "baseUrl" in provider else "provider.name"
    await keyed.wait_for(keyed.warnings)
    (warning,) = keyed.warnings()
    assert f"invalid setting `{field}`" in warning and "runs are refused" in warning
    with pytest.raises(JsonRpcException) as raised:
        await keyed.command("harness.run", {"goal": "fix the bug"})
    assert raised.value.code == INVALID_PARAMS
    assert f"`{field}`" in raised.value.message and "harness.run" in raised.value.message
    assert next(iter(provider.values())) not in raised.value.message, "the value is not echoed"
    runs = await keyed.command("harness.trace.runs")
    assert runs == [], "no run was started, so none could reach the hosted API"

    # Fixed in the editor: the run goes where the user meant.
    keyed.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"harness": settings(fake, store)})
    )
    fake.add_turns({"content": "done"})
    run_id = (await keyed.command("harness.run", {"goal": "fix the bug"}))["runId"]
    assert (await keyed.wait_finished(run_id))["outcome"] == "finished"
    assert len(fake.requests) == 1
