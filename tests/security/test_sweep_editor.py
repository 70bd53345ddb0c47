"""Sweep: the editor's side of issue 9, seen 8, through the real server (pytest-lsp, every
byte the server wrote kept by ``tests/support/lsp_tee.py``):

- an ``exec`` changed a file the editor holds unsaved, and nobody was told: now the user is
  warned at once — before the run ends — naming the file;
- a key pasted into ``apiKeyEnv`` (where a variable *name* belongs) was echoed in the error
  and the logs: no piece of it may reach any message or stderr;
- an invalid ``baseUrl`` reset the provider to the hosted default, so a run meant for a
  local server went to a public API (with the user's key): the test is the HTTPS proxy of
  the server's environment, which any request to the hosted API must pass through and
  which records every connection it is asked for.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.lsp import (  # noqa: F401 -- pytest fixtures
    SCRATCH,
    SERVER_COMMAND,
    HarnessClient,
    call,
    close,
    fake_fixture,
    initialize_params,
    running,
    server_config,
    server_env,
    settings,
    store_fixture,
    turn,
    wait_watching,
    ws_fixture,
)
from tests.support import lsp_tee
from tests.support.fake_llm import FakeLLM
from tests.support.planted import Planted

RECORD = SCRATCH / "sweep-editor-record"
PASTED = Planted.new("pasted")
USERS_KEY = Planted.new("users")


class Proxy:
    """An HTTP proxy on 127.0.0.1 that answers nothing and records each request line."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.seen: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    self.seen.append(conn.recv(4096).split(b"\r\n", 1)[0].decode("latin-1"))
                    conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    made = Proxy()
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(autouse=True)
def _fresh_record() -> None:
    shutil.rmtree(RECORD, ignore_errors=True)


def _env(proxy: Proxy, **more: str) -> dict[str, str]:
    env = server_env(HARNESS_LOG_LEVEL="DEBUG", **more)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy"):
        env.pop(name, None)
    return env | {"HTTPS_PROXY": proxy.url, "https_proxy": proxy.url}


async def _start(proxy: Proxy, **env: str) -> AsyncIterator[HarnessClient]:
    config = server_config(command=lsp_tee.command(RECORD, SERVER_COMMAND), env=_env(proxy, **env))
    async with running(config) as client:
        yield client


@pytest_asyncio.fixture(name="recorded")
async def recorded_fixture(proxy: Proxy) -> AsyncIterator[HarnessClient]:
    async for client in _start(proxy):
        yield client


@pytest_asyncio.fixture(name="keyed")
async def keyed_fixture(proxy: Proxy) -> AsyncIterator[HarnessClient]:
    """The user's real key is in the environment: a run sent to the hosted API carries it."""
    async for client in _start(proxy, OPENAI_API_KEY=USERS_KEY.key):
        yield client


def written(record: Path = RECORD) -> tuple[list[dict[str, Any]], bytes]:
    return lsp_tee.lsp_messages((record / "stdout.bin").read_bytes()), (
        record / "stderr.bin"
    ).read_bytes()


def open_unsaved(client: HarnessClient, path: Path, text: str) -> None:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=path.read_text()
            )
        )
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def test_an_exec_that_changes_an_unsaved_file_is_reported_at_once(
    recorded: HarnessClient, ws: Path, fake: FakeLLM, store: Path
) -> None:
    await recorded.initialize_session(initialize_params([ws], settings(fake, store)))
    await wait_watching(recorded)
    a = ws / "src" / "a.py"
    open_unsaved(recorded, a, "# the user's unsaved work\n")
    script = "echo 'changed by a command' > src/a.py"
    fake.add_turns(turn(call("exec", argv=["sh", "-c", script])), {"content": "done"})
    run_id = (await recorded.command("harness.run", {"goal": "format"}))["runId"]
    await recorded.wait_finished(run_id)
    assert a.read_text() == "changed by a command\n", "the command ran and changed it"
    await close(recorded)
    messages, _ = written()
    order = [m.get("method") for m in messages]
    end = order.index("harness/runFinished")
    warned = [
        n
        for n, m in enumerate(messages)
        if m.get("method") == "window/showMessage"
        and m["params"]["type"] == types.MessageType.Warning.value
        and "src/a.py" in m["params"]["message"]
    ]
    assert warned and warned[0] < end, "warned, naming the file, before the run ended"


async def test_a_key_pasted_into_api_key_env_is_never_echoed(
    recorded: HarnessClient, ws: Path, fake: FakeLLM, store: Path
) -> None:
    options = settings(fake, store)
    options["provider"]["apiKeyEnv"] = PASTED.key
    await recorded.initialize_session(initialize_params([ws], options))
    await wait_watching(recorded)
    with contextlib.suppress(JsonRpcException):  # refusing the run is a good answer too
        run = await recorded.command("harness.run", {"goal": "x"})
        await recorded.wait_finished(run["runId"])
    await recorded.command("harness.status")
    shown = [m.message for m in recorded.messages]
    await close(recorded)
    messages, stderr = written()
    texts: dict[str, str | bytes | None] = {"stderr": stderr}
    for n, m in enumerate(messages):
        texts[f"message {n} ({m.get('method') or 'response'})"] = "\n".join(lsp_tee.strings_in(m))
    PASTED.assert_none_leak(texts)
    assert any("apiKeyEnv" in m for m in shown), "the bad setting was reported"


async def test_an_invalid_base_url_never_sends_the_run_to_the_hosted_default(
    keyed: HarnessClient, proxy: Proxy, ws: Path, fake: FakeLLM, store: Path
) -> None:
    options = settings(fake, store)
    options["provider"]["baseUrl"] = "htp:/127.0.0.1:8080/v1"  # a typo for a local server
    await keyed.initialize_session(initialize_params([ws], options))
    await wait_watching(keyed)
    before = len(proxy.seen)
    with contextlib.suppress(JsonRpcException):  # refusing the run is a good answer too
        run = await keyed.command("harness.run", {"goal": "x"})
        await keyed.wait_finished(run["runId"])
    shown = [m.message for m in keyed.messages]
    await close(keyed)
    went = [line for line in proxy.seen[before:] if "openai.com" in line]
    assert went == [], f"the run went to the hosted API: {went}"
    _, stderr = written()
    assert b"api.openai.com" not in stderr
    assert any("baseUrl" in m for m in shown), "the bad setting was reported"
