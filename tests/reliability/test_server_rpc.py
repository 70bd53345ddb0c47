"""The standing suite, server part 1 (issue 11): malformed JSON-RPC never stops the server.

A table of malformed messages — bad JSON, wrong types, unknown methods, huge ids, missing
params, batches, notifications with ids, requests without them — and a fuzzer (hypothesis,
fixed seed) are sent raw to one real server over its pipes. Every request that has a usable
id gets an answer with that id (an error where the input is wrong), the others at most an
error with ``"id": null``, and after every case a ``harness.status`` round trip proves the
server still serves. ``HARNESS_SOAK=1`` (``make soak``) runs ten times the fuzz examples.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.e2e.lsp import server_env
from tests.support import figures
from tests.support.lsp_wire import WireServer, frame

SOAK = os.environ.get("HARNESS_SOAK") == "1"
FUZZ_EXAMPLES = 3000 if SOAK else 300
ANSWER_S = 20.0

PARSE, INVALID_REQUEST, NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
AREA = "malformed JSON-RPC to one server"
STATUS = {"command": "harness.status", "arguments": []}
NO_ANSWER = None  # a notification, or a response from the client: nothing comes back


def request(msg_id: Any, method: str, params: Any = STATUS, **more: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, **more}
    if params is not None:
        message["params"] = params
    return message


def execute(msg_id: Any, params: Any) -> dict[str, Any]:
    return request(msg_id, "workspace/executeCommand", params)


HUGE_INT = 10**30
HUGE_STR = "i" * 100_000
NESTED = b"[" * 100_000 + b"]" * 100_000

# (id, bytes or message, what comes back: (id, code) — code None: a result — or NO_ANSWER)
TABLE: list[Any] = [
    pytest.param(b'{"jsonrpc": "2.0", "id": 1, ', (None, PARSE), id="truncated-json"),
    pytest.param(b"\xff\xfe{not utf-8}", (None, PARSE), id="not-utf8"),
    pytest.param(b"\xef\xbb\xbf" + json.dumps(execute(24, STATUS)).encode(), (24, None), id="bom"),
    pytest.param(NESTED, (None, PARSE), id="nested-100k"),
    pytest.param(b"42", (None, INVALID_REQUEST), id="a-number"),
    pytest.param(b'"text"', (None, INVALID_REQUEST), id="a-string"),
    pytest.param(b"null", (None, INVALID_REQUEST), id="null"),
    pytest.param({}, (None, INVALID_REQUEST), id="empty-object"),
    pytest.param({"id": 5, "method": "shutdown"}, (5, INVALID_REQUEST), id="no-jsonrpc"),
    pytest.param({**execute(6, STATUS), "jsonrpc": "1.0"}, (6, INVALID_REQUEST), id="v1"),
    pytest.param({"jsonrpc": "2.0", "id": 7, "method": 5}, (7, INVALID_REQUEST), id="method-int"),
    pytest.param(execute({"a": 1}, STATUS), (None, INVALID_REQUEST), id="id-object"),
    pytest.param(execute([1], STATUS), (None, INVALID_REQUEST), id="id-array"),
    pytest.param(execute(1.5, STATUS), (None, INVALID_REQUEST), id="id-float"),
    pytest.param(execute(True, STATUS), (None, INVALID_REQUEST), id="id-bool"),
    pytest.param(execute(None, STATUS), (None, INVALID_REQUEST), id="id-null"),
    pytest.param(execute(HUGE_INT, STATUS), (HUGE_INT, None), id="huge-int-id"),
    pytest.param(execute(-(2**63), STATUS), (-(2**63), None), id="negative-id"),
    pytest.param(execute(HUGE_STR, STATUS), (HUGE_STR, None), id="huge-string-id"),
    pytest.param(request(8, "harness/nope"), (8, NOT_FOUND), id="unknown-method"),
    pytest.param(request(9, "$/unknown"), (9, NOT_FOUND), id="dollar-method"),
    pytest.param(request(10, "m" * 1_000_000), (10, NOT_FOUND), id="huge-method"),
    pytest.param(execute(11, None), (11, INVALID_PARAMS), id="missing-params"),
    pytest.param(execute(12, 5), (12, INVALID_PARAMS), id="params-int"),
    pytest.param(execute(13, {"arguments": []}), (13, INVALID_PARAMS), id="no-command"),
    pytest.param(
        execute(14, {"command": "harness.status", "arguments": {"a": 1}}),
        (14, INVALID_PARAMS),
        id="arguments-object",
    ),
    pytest.param(
        execute(15, {"command": "harness.run", "arguments": [{"goal": 5}]}),
        (15, INVALID_PARAMS),
        id="command-args",
    ),
    pytest.param(
        execute(16, {"command": "harness.nope", "arguments": []}),
        (16, INVALID_PARAMS),
        id="unknown-command",
    ),
    pytest.param(request(17, "initialized", {}), (17, INVALID_REQUEST), id="notification-id"),
    pytest.param(request(18, "exit", None), (18, INVALID_REQUEST), id="exit-with-id"),
    pytest.param(
        request(19, "textDocument/didOpen", {"textDocument": {}}),
        (19, INVALID_REQUEST),
        id="didopen-with-id",
    ),
    pytest.param(
        request(20, "initialize", {"capabilities": {}}), (20, INVALID_REQUEST), id="init-2"
    ),
    pytest.param([execute(21, STATUS), execute(22, STATUS)], (21, INVALID_REQUEST), id="batch"),
    pytest.param([], (None, INVALID_REQUEST), id="empty-batch"),
    pytest.param([1, 2, 3], (None, INVALID_REQUEST), id="batch-of-numbers"),
    pytest.param({"jsonrpc": "2.0", "id": 23}, (23, INVALID_REQUEST), id="no-method"),
    pytest.param({"jsonrpc": "2.0", "method": "shutdown"}, NO_ANSWER, id="request-no-id"),
    pytest.param({"jsonrpc": "2.0", "id": "nope", "result": 1}, NO_ANSWER, id="stray-result"),
    pytest.param({"jsonrpc": "2.0", "id": "x", "error": "bad"}, NO_ANSWER, id="bad-error"),
    pytest.param(
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": {"x": 1}}},
        NO_ANSWER,
        id="bad-cancel",
    ),
    pytest.param(
        {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": 5}},
        NO_ANSWER,
        id="bad-didchange",
    ),
    pytest.param(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": "file:///never/opened.py", "version": 3},
                "contentChanges": [{"text": "x"}],
            },
        },
        NO_ANSWER,
        id="didchange-unopened",
    ),
    pytest.param(
        {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"x": 1}},
        NO_ANSWER,
        id="bad-configuration",
    ),
]


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[asyncio.AbstractEventLoop, WireServer]]:
    """One initialized server for the whole module, on a loop of its own: every case must
    leave it serving the next one."""
    loop = asyncio.new_event_loop()
    root = Path(tempfile.mkdtemp(prefix="harness-rpc-"))
    server = WireServer(server_env())
    options = {"storePath": str(root / "store.db"), "provider": {"name": "ollama"}}
    loop.run_until_complete(server.__aenter__())
    loop.run_until_complete(server.initialize([root], options))
    yield loop, server
    loop.run_until_complete(server.__aexit__(None, None, None))
    loop.close()
    assert server.proc is not None and server.proc.returncode == 0


async def still_serving(server: WireServer) -> None:
    answer = await server.call(execute(server.next_id() + 10**6, STATUS), within_s=ANSWER_S)
    assert answer["result"]["runs"] == [], "a harness.status round trip after the case"


async def send_case(server: WireServer, case: Any) -> list[dict[str, Any]]:
    """Send ``case``; the answers with ``"id": null`` it produced, in the order they came."""
    before = len(server.received)
    server.send_raw(frame(case))
    await still_serving(server)
    return [m for m in server.received[before:] if m.get("id") is None and "error" in m]


@pytest.mark.parametrize(("case", "expected"), TABLE)
def test_a_malformed_message_is_answered_and_the_server_keeps_serving(
    served: tuple[asyncio.AbstractEventLoop, WireServer], case: Any, expected: Any
) -> None:
    loop, server = served
    null_errors = loop.run_until_complete(send_case(server, case))
    figures.add(AREA, table_cases=1)
    if expected is NO_ANSWER:
        assert null_errors == []
        return
    msg_id, code = expected
    if msg_id is None:
        assert [e["error"]["code"] for e in null_errors] == [code]
        return
    answer = loop.run_until_complete(server.answer_to(msg_id, within_s=ANSWER_S))
    if code is None:
        assert "result" in answer, answer
    else:
        assert answer["error"]["code"] == code, answer
        assert len(json.dumps(answer)) < 2000, "the input is never echoed back"
    if isinstance(case, list):  # every request of a batch is answered
        for item in case[1:]:
            loop.run_until_complete(server.answer_to(item["id"], within_s=ANSWER_S))


def test_the_table_left_no_error_shown_to_the_user(
    served: tuple[asyncio.AbstractEventLoop, WireServer],
) -> None:
    _, server = served
    assert not [m for m in server.shown() if "internal error" in m or "Error" in m]


# -- the fuzzer ---------------------------------------------------------------------------

# Not fuzzed: shutdown and exit (they end the session), and the two that could point the
# server at random folders or stores (the table sends them malformed).
METHODS = [
    "workspace/executeCommand",
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didClose",
    "textDocument/didSave",
    "window/workDoneProgress/cancel",
    "$/cancelRequest",
    "$/setTrace",
    "initialized",
    "initialize",
    "textDocument/hover",
]
COMMANDS = ["harness.status", "harness.memory.list", "harness.memory.get", "harness.cancel"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.one_of(st.integers(min_value=-(2**63), max_value=2**80), st.text(max_size=20), values)
commands = st.fixed_dictionaries(
    {"command": st.sampled_from(COMMANDS) | st.text(max_size=20)},
    optional={"arguments": st.lists(values, max_size=3) | values},
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | values,
        "id": ids,
        "method": st.sampled_from(METHODS) | st.text(max_size=30) | values,
        "params": commands | values,
        "result": values,
        "error": values,
    },
)
requests = st.fixed_dictionaries(
    {
        "jsonrpc": st.just("2.0"),
        "id": st.integers(min_value=-(2**63), max_value=2**80) | st.text(max_size=20),
        "method": st.sampled_from(METHODS),
    },
    optional={"params": commands | values},
)
raw_bodies = st.binary(max_size=200) | messages.map(lambda m: json.dumps(m).encode())


def expects_answer(message: Any) -> Any:
    """The id a conforming server must answer, if the message is a request with one."""
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    msg_id = message["id"]
    if isinstance(msg_id, bool) or not isinstance(msg_id, int | str):
        return None
    return msg_id


def test_fuzzed_messages_are_answered_and_the_server_keeps_serving(
    served: tuple[asyncio.AbstractEventLoop, WireServer],
) -> None:
    loop, server = served
    sent = {"messages": 0, "answered": 0}

    @seed(20261201)
    @settings(
        max_examples=FUZZ_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.one_of(requests, messages, raw_bodies))
    def one(case: Any) -> None:
        if isinstance(case, dict) and case.get("method") in ("shutdown", "exit"):
            return  # they end the session: the lifecycle tests cover them
        if isinstance(case, dict) and isinstance(case.get("id"), int | str):
            case = {**case, "id": f"fuzz-{sent['messages']}-{case['id']!s:.20}"}
        loop.run_until_complete(send_case(server, case))
        sent["messages"] += 1
        msg_id = expects_answer(case)
        if msg_id is not None:
            loop.run_until_complete(server.answer_to(msg_id, within_s=ANSWER_S))
            sent["answered"] += 1

    one()
    print(f"fuzz: {sent['messages']} messages sent, {sent['answered']} requests answered")
    serving = server.proc is not None and server.proc.returncode is None
    figures.record(
        AREA,
        fuzzed_messages=sent["messages"],
        fuzzed_requests_answered=sent["answered"],
        server_still_serving="yes" if serving else "no",
    )
    assert sent["messages"] >= FUZZ_EXAMPLES // 2
    assert server.proc is not None and server.proc.returncode is None, "still running"
