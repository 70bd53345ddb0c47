"""Bad input never takes the server down: every command with missing, ill-typed and hostile
arguments gets a JSON-RPC error whose message names the field, bad settings are reported
with showMessage and replaced by defaults, and harness errors come back as clear errors."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.lsp import (
    CONFIG,
    HarnessClient,
    close,
    held,
    initialize_params,
    settings,
)
from tests.support.fake_llm import FakeLLM

INVALID_PARAMS = -32602
HARNESS_ERROR = -32001
NOT_FOUND = -32004
RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}

NESTED: dict[str, Any] = {"maxTokens": 1}
for _ in range(40):
    NESTED = {"maxTokens": NESTED}

BAD_INPUT = [
    # harness.run
    pytest.param("harness.run", [], INVALID_PARAMS, "`goal` is required", id="run-no-args"),
    pytest.param("harness.run", [{"goal": 5}], INVALID_PARAMS, "`goal`", id="run-goal-int"),
    pytest.param("harness.run", [{"goal": "   "}], INVALID_PARAMS, "`goal` is empty", id="blank"),
    pytest.param(
        "harness.run", [{"goal": "x" * 100_001}], INVALID_PARAMS, "`goal`", id="run-huge-goal"
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "maxSteps": "3"}],
        INVALID_PARAMS,
        "`maxSteps`",
        id="steps-str",
    ),
    pytest.param(
        "harness.run", [{"goal": "x", "maxSteps": 0}], INVALID_PARAMS, "`maxSteps`", id="steps-0"
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "tokenBudget": 2**80}],
        INVALID_PARAMS,
        "`tokenBudget`",
        id="budget-huge",
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "verify": "make test"}],
        INVALID_PARAMS,
        "`verify`",
        id="v-str",
    ),
    pytest.param("harness.run", [{"goal": "x", "verify": []}], INVALID_PARAMS, "`verify`", id="v0"),
    pytest.param(
        "harness.run", [{"goal": "x", "verify": [""]}], INVALID_PARAMS, "`verify.0`", id="v-empty"
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "contextBudget": {"share": 2}}],
        INVALID_PARAMS,
        "`contextBudget.share`",
        id="share-2",
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "contextBudget": NESTED}],
        INVALID_PARAMS,
        "`contextBudget.maxTokens`",
        id="nested",
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "workspaceFolder": "/etc"}],
        INVALID_PARAMS,
        "not an open workspace folder",
        id="folder-elsewhere",
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "workspaceFolder": "../.."}],
        INVALID_PARAMS,
        "`workspaceFolder`",
        id="folder-relative",
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "workspaceFolder": "/tmp/\u0000x"}],
        INVALID_PARAMS,
        "`workspaceFolder`",
        id="folder-nul",
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x", "bogus": 1}],
        INVALID_PARAMS,
        "`bogus` is not a parameter (expected goal?, mode?, prompt?, arguments?, workspaceFolder?",
        id="run-unknown-field",
    ),
    pytest.param(
        "harness.run",
        [{"goal": "x"}, {"goal": "y"}],
        INVALID_PARAMS,
        "expected one object argument, got 2",
        id="two-args",
    ),
    pytest.param("harness.run", ["x"], INVALID_PARAMS, "must be a JSON object", id="run-str"),
    pytest.param("harness.run", [["x"]], INVALID_PARAMS, "not an array", id="run-list"),
    # harness.cancel
    pytest.param("harness.cancel", [{}], INVALID_PARAMS, "`runId` is required", id="cancel-none"),
    pytest.param("harness.cancel", [{"runId": "1"}], INVALID_PARAMS, "`runId`", id="cancel-str"),
    pytest.param("harness.cancel", [{"runId": True}], INVALID_PARAMS, "`runId`", id="cancel-bool"),
    pytest.param("harness.cancel", [{"runId": -1}], INVALID_PARAMS, "`runId`", id="cancel-neg"),
    pytest.param("harness.cancel", [{"runId": 1.5}], INVALID_PARAMS, "`runId`", id="cancel-float"),
    # harness.status
    pytest.param("harness.status", [{"x": 1}], INVALID_PARAMS, "`x` is not a parameter", id="st"),
    pytest.param("harness.status", [7], INVALID_PARAMS, "not a number", id="status-number"),
    # harness.memory.*
    pytest.param("harness.memory.list", [{"scope": "team"}], INVALID_PARAMS, "`scope`", id="ml"),
    pytest.param("harness.memory.get", [{}], INVALID_PARAMS, "`key` is required", id="mg-none"),
    pytest.param(
        "harness.memory.get", [{"key": ""}], INVALID_PARAMS, "must not be empty", id="mg-empty"
    ),
    pytest.param(
        "harness.memory.get", [{"key": "a\u0000b"}], INVALID_PARAMS, "`key`", id="mg-control"
    ),
    pytest.param("harness.memory.get", [{"key": "k" * 5000}], INVALID_PARAMS, "`key`", id="mg-big"),
    pytest.param("harness.memory.get", [{"key": 3}], INVALID_PARAMS, "`key`", id="mg-int"),
    pytest.param("harness.memory.get", [{"key": "nope"}], NOT_FOUND, "no note `nope`", id="mg-404"),
    pytest.param(
        "harness.memory.delete", [{"key": "nope"}], NOT_FOUND, "no note `nope`", id="md-404"
    ),
    pytest.param("harness.memory.pin", [{"key": "nope"}], NOT_FOUND, "no note", id="mp-404"),
    pytest.param(
        "harness.memory.pin", [{"key": "k", "pinned": "yes"}], INVALID_PARAMS, "`pinned`", id="mp"
    ),
    pytest.param(
        "harness.memory.write", [{"key": "k"}], INVALID_PARAMS, "`value` is required", id="mw"
    ),
    pytest.param(
        "harness.memory.write",
        [{"key": "k", "value": "  "}],
        INVALID_PARAMS,
        "`value`: a note's value must not be empty",
        id="mw-blank",
    ),
    pytest.param(
        "harness.memory.write",
        [{"key": " ", "value": "v"}],
        INVALID_PARAMS,
        "`key`: a note key must not be empty",
        id="mw-blank-key",
    ),
    pytest.param(
        "harness.memory.write",
        [{"key": "k", "value": "v", "kind": "opinion"}],
        INVALID_PARAMS,
        "`kind`",
        id="mw-kind",
    ),
    pytest.param("harness.memory.clear", [{"scope": 1}], INVALID_PARAMS, "`scope`", id="mc"),
    # harness.codeAction
    pytest.param(
        "harness.codeAction",
        [{"kind": "fix", "uri": "file:///ws/a.py", "range": RANGE}],
        INVALID_PARAMS,
        "`diagnostic` is required for a fix",
        id="ca-fix-nodiag",
    ),
    pytest.param(
        "harness.codeAction",
        [{"kind": "ask", "uri": "untitled:1", "range": RANGE}],
        INVALID_PARAMS,
        "is not a file:// URI",
        id="ca-uri",
    ),
    pytest.param(
        "harness.codeAction",
        [{"kind": "explain", "uri": "file:///ws/a.py", "range": RANGE}],
        INVALID_PARAMS,
        "`kind`",
        id="ca-kind",
    ),
    # harness.trace.*
    pytest.param("harness.trace.runs", [{"limit": 0}], INVALID_PARAMS, "`limit`", id="tr-0"),
    pytest.param("harness.trace.runs", [{"limit": 1.5}], INVALID_PARAMS, "`limit`", id="tr-float"),
    pytest.param("harness.trace.run", [{}], INVALID_PARAMS, "`runId` is required", id="trun"),
    pytest.param("harness.trace.run", [{"runId": 999}], NOT_FOUND, "no run 999", id="trun-404"),
    pytest.param(
        "harness.trace.step", [{"runId": 1}], INVALID_PARAMS, "`step` is required", id="ts"
    ),
    pytest.param("harness.trace.step", [{"runId": 9, "step": 1}], NOT_FOUND, "no run 9", id="404"),
    # harness.run.revert
    pytest.param("harness.run.revert", [{"runId": 999}], NOT_FOUND, "no run 999", id="rv-404"),
    pytest.param(
        "harness.run.revert",
        [{"runId": 1, "force": "yes"}],
        INVALID_PARAMS,
        "`force`",
        id="rv-force",
    ),
    # not a command at all
    pytest.param("harness.frobnicate", [{}], INVALID_PARAMS, "not defined", id="unknown-command"),
]


@pytest_lsp.fixture(config=CONFIG, scope="module", name="shared")
async def shared_fixture(
    lsp_client: HarnessClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[None]:
    """One server for the whole table: every case must leave it answering for the next."""
    root = tmp_path_factory.mktemp("ws")
    options = {
        "storePath": str(root.parent / "store.db"),
        "provider": {"name": "openai", "baseUrl": "http://127.0.0.1:9/v1"},
    }
    await lsp_client.initialize_session(initialize_params([root], options))
    yield
    await close(lsp_client)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("command", "arguments", "code", "message"), BAD_INPUT)
async def test_bad_input_is_a_clear_error_and_the_server_keeps_answering(
    shared: HarnessClient, command: str, arguments: list[Any], code: int, message: str
) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await shared.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=arguments)
        )
    assert raised.value.code == code
    assert message in raised.value.message
    assert command in raised.value.message or code == INVALID_PARAMS
    assert len(raised.value.message) < 600, "values are never echoed back"
    status = await shared.command("harness.status")
    assert status["runs"] == []


async def test_a_second_run_in_the_same_folder_is_refused(
    client: HarnessClient, fake: FakeLLM
) -> None:
    release = threading.Event()
    fake.add_turns(held(release, {"content": "done"}))
    first = (await client.command("harness.run", {"goal": "first"}))["runId"]
    with pytest.raises(JsonRpcException) as raised:
        await client.command("harness.run", {"goal": "second"})
    assert raised.value.code == -32009
    assert f"run {first} is already in progress" in raised.value.message
    release.set()
    assert (await client.wait_finished(first))["outcome"] == "finished"
    fake.add_turns({"content": "done"})
    second = (await client.command("harness.run", {"goal": "second"}))["runId"]
    assert (await client.wait_finished(second))["outcome"] == "finished"


async def test_a_harness_error_is_a_clear_error(client: HarnessClient, ws: Path) -> None:
    # The hosted OpenAI API needs a key, and the server's environment has none.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"harness": {"provider": {"name": "openai"}}})
    )
    with pytest.raises(JsonRpcException) as raised:
        await client.command("harness.run", {"goal": "x"})
    assert raised.value.code == HARNESS_ERROR
    assert "no API key for openai: set HARNESS_API_KEY or OPENAI_API_KEY" in raised.value.message
    assert (await client.command("harness.status"))["runs"] == []

    (ws / ".harness").mkdir()
    (ws / ".harness" / "policy.toml").write_text("[defaults]\nexec = 'sometimes'\n")
    with pytest.raises(JsonRpcException) as raised:
        await client.command("harness.run", {"goal": "x"})
    assert raised.value.code == HARNESS_ERROR
    assert "policy.toml" in raised.value.message and "defaults.exec" in raised.value.message


async def test_without_a_workspace_folder_commands_say_so(bare: HarnessClient, store: Path) -> None:
    await bare.initialize_session(initialize_params([], {"storePath": str(store)}))
    with pytest.raises(JsonRpcException) as raised:
        await bare.command("harness.memory.list")
    assert raised.value.code == HARNESS_ERROR
    assert "no workspace folder is open" in raised.value.message
    with pytest.raises(JsonRpcException, match="no workspace folder is open"):
        await bare.command("harness.run", {"goal": "x"})
    status = await bare.command("harness.status")
    assert status["memory"]["workspace"] is None and status["workspaceFolders"] == []


async def test_null_settings_are_pulled_from_the_client(
    client: HarnessClient, fake: FakeLLM, store: Path
) -> None:
    client.set_configuration({"harness": {**settings(fake, store), "maxSteps": 2}})
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(100):  # the pull is asynchronous
        status = await client.command("harness.status")
        if status["settings"]["maxSteps"] == 2:
            break
        await asyncio.sleep(0.02)
    assert status["settings"]["maxSteps"] == 2
    assert status["settings"]["provider"]["baseUrl"] == fake.url
    assert client.warnings() == []
