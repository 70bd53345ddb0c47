"""Failures carry their facts as data (issue 31, "the protocol is data"): every JSON-RPC error
of a command has ``data`` ``{kind, command, …}`` — the argument's ``field``, the ``runId`` of
a conflict, the ``setting`` a harness error is about (its command-line flag said as that
setting) — and the server's ``window/showMessage`` carries ``data`` beside its sentence
(``invalidSetting``, ``runEnded``), so that a client words it without parsing the sentence.
Seen on the wire, through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.lsp import server_env
from tests.support.lsp_wire import JsonRpcError, WireServer

CLOSED = "http://127.0.0.1:9/v1"  # nothing listens: a run's first call fails


async def _error(server: WireServer, command: str, arguments: dict[str, object]) -> JsonRpcError:
    with pytest.raises(JsonRpcError) as raised:
        await server.command(command, arguments)
    return raised.value


async def test_command_errors_carry_kind_command_and_the_facts(tmp_path: Path) -> None:
    store = tmp_path / "harness.db"
    async with WireServer(server_env()) as server:
        await server.initialize([tmp_path], {"storePath": str(store)})
        missing = await _error(server, "harness.cancel", {})
        assert missing.code == -32602
        assert missing.data == {
            "kind": "invalidParams",
            "command": "harness.cancel",
            "field": "runId",
        }
        unknown = await _error(server, "harness.trace.run", {"runId": 99})
        assert unknown.data == {"kind": "notFound", "command": "harness.trace.run"}
        steer = await _error(server, "harness.run.steer", {"runId": 5, "text": "x"})
        assert steer.data == {"kind": "conflict", "command": "harness.run.steer", "runId": 5}

        # The hosted API needs a key, and the server's environment has none.
        no_key = await _error(server, "harness.run", {"goal": "x"})
        assert no_key.code == -32001
        assert no_key.data == {
            "kind": "harness",
            "command": "harness.run",
            "setting": "provider.baseUrl",
            "missing": "apiKey",
        }
        assert "--base-url" not in no_key.message
        assert "the setting provider.baseUrl" in no_key.message


async def test_a_bad_setting_and_a_run_ended_on_an_error_are_shown_with_data(
    tmp_path: Path,
) -> None:
    options = {
        "storePath": str(tmp_path / "harness.db"),
        "provider": {"name": "openai", "baseUrl": CLOSED, "model": "m"},
        "contextBudget": {"share": 7},
    }
    async with WireServer(server_env()) as server:
        await server.initialize([tmp_path], options)
        shown = await server.wait_for(lambda: server.notifications("window/showMessage"))
        assert shown[0]["data"] == {
            "kind": "invalidSetting",
            "setting": "contextBudget.share",
            "problem": "Input should be less than or equal to 1",
            "source": "initializationOptions",
            "refusesRuns": False,
        }
        run_id = (await server.command("harness.run", {"goal": "say done"}))["runId"]
        finished = await server.wait_finished(run_id, within_s=90)
        assert finished["outcome"] == "provider_error"
        assert finished["error"]
        ended = [p for p in server.notifications("window/showMessage") if p["type"] == 1]
        failure, _, detail = finished["error"].partition(": ")
        assert ended[0]["data"] == {
            "kind": "runEnded",
            "runId": run_id,
            "outcome": "provider_error",
            "error": finished["error"],
            "failure": "connection",
            "detail": detail,
            "setting": "provider.baseUrl",
        }
        assert failure == "connection"
