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
from server.lsp.commands.table import COMMAND_MODULES, command, handles, params_model
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
from server.lsp.params import RunParams, StatusParams
from server.protocol.commands import COMMANDS as DECLARED_COMMANDS


def test_the_table_has_exactly_the_declared_commands() -> None:
    """The manifest (generated from the ``@handles`` functions) names every declared
    command, in the declaration's order, and each resolves to its function."""
    assert list(COMMAND_MODULES) == [c.name for c in DECLARED_COMMANDS]
    for declared in DECLARED_COMMANDS:
        found = command(declared.name)
        assert found.name == declared.name
        assert found.params is params_model(declared.params)


def test_every_handler_is_in_the_table() -> None:
    for module_name in set(COMMAND_MODULES.values()):
        importlib.import_module(module_name)
    for name, module in COMMAND_MODULES.items():
        assert command(name).run.__module__ == module


def test_a_handler_of_an_undeclared_command_is_refused() -> None:
    with pytest.raises(LookupError, match=r"harness\.nope is not declared"):
        handles("harness.nope")


def test_a_handler_taking_other_params_than_declared_is_refused() -> None:
    def status(host: object, params: RunParams) -> None:
        pass

    with pytest.raises(TypeError, match=r"must take `params: StatusParams`"):
        handles("harness.status")(status)


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
        "heavy = [m for m in ('pydantic', 'harness.run.loop', 'harness.store', 'httpx', 'watchfiles')"
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


def test_a_handler_annotated_with_the_class_itself_passes_the_params_check() -> None:
    """A module without ``from __future__ import annotations`` gives the class, not its
    name: the params check passes (and the second handler is then refused)."""

    def status(host: object, params: object) -> None:
        pass

    status.__annotations__ = {"host": object, "params": StatusParams, "return": None}
    with pytest.raises(LookupError, match="has two handlers"):
        handles("harness.status")(status)
