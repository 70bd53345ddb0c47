"""The command table is complete, errors map to the right JSON-RPC codes, and importing the
server loads neither pydantic nor the harness loop (that keeps ``initialize`` fast)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from harness.errors import ConfigError, StoreError
from server.lsp.commands import COMMAND_MODULES, command
from server.lsp.errors import (
    CONFLICT,
    HARNESS_ERROR,
    INVALID_PARAMS,
    NOT_FOUND,
    Conflict,
    InvalidParams,
    NotFound,
    to_jsonrpc,
)

SPEC_COMMANDS = {
    "harness.run",
    "harness.cancel",
    "harness.status",
    "harness.memory.list",
    "harness.memory.get",
    "harness.memory.delete",
    "harness.memory.pin",
    "harness.memory.write",
    "harness.memory.clear",
    "harness.trace.runs",
    "harness.trace.run",
    "harness.trace.step",
    "harness.run.revert",
    "harness.run.changes",
    "harness.run.revertFile",
    "harness.run.revertHunk",
    "harness.run.keep",
    "harness.run.steer",
    "harness.conversation.restore",
    "harness.prompts",
    "harness.run.events",
    "harness.trust",
    "harness.conversations",
    "harness.codeAction",
}


def test_the_table_has_exactly_the_commands_of_the_spec() -> None:
    assert set(COMMAND_MODULES) == SPEC_COMMANDS
    for name in SPEC_COMMANDS:
        assert command(name).name == name


def test_every_feature_module_command_is_in_the_table() -> None:
    for module_name in set(COMMAND_MODULES.values()):
        module = importlib.import_module(module_name)
        for cmd in module.COMMANDS:
            assert COMMAND_MODULES[cmd.name] == module_name


@pytest.mark.parametrize(
    ("exc", "code", "message"),
    [
        pytest.param(
            InvalidParams("`x` is required"),
            INVALID_PARAMS,
            "harness.x: `x` is required",
            id="params",
        ),
        pytest.param(NotFound("no run 3"), NOT_FOUND, "harness.x: no run 3", id="not-found"),
        pytest.param(Conflict("busy"), CONFLICT, "harness.x: busy", id="conflict"),
        pytest.param(
            ConfigError("no API key"), HARNESS_ERROR, "harness.x: no API key", id="config"
        ),
        pytest.param(StoreError("disk full"), HARNESS_ERROR, "harness.x: disk full", id="store"),
    ],
)
def test_errors_become_json_rpc_errors(exc: Exception, code: int, message: str) -> None:
    error = to_jsonrpc("harness.x", exc)
    assert error.code == code and error.message == message


def test_an_unexpected_error_is_an_internal_error_naming_the_command() -> None:
    error = to_jsonrpc("harness.x", KeyError("boom"))
    assert isinstance(error, JsonRpcInternalError)
    assert "harness.x failed unexpectedly: KeyError" in error.message
    passthrough = JsonRpcException("as is", code=-32000)
    assert to_jsonrpc("harness.x", passthrough) is passthrough


def test_importing_the_server_is_light() -> None:
    code = (
        "import sys; from server import create_server; create_server(); "
        "heavy = [m for m in ('pydantic', 'harness.loop', 'harness.store', 'httpx', 'watchfiles')"
        " if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "[]"
