"""Driving the real language server (``python -m server``) over stdio with pytest-lsp.

``HarnessClient`` is pytest-lsp's test client plus what the harness sends: it records the
``harness/*`` notifications (``events``: each ``harness/runEvent``), showMessage, progress and approval requests, answers approvals
from ``answers`` in order and then with ``approval_answer`` (``None``: never answer), keeps
each file the server opens with showDocument (``opened``), and ``wait_for(predicate)``
blocks until a notification makes the predicate true (notes §2, gotcha 2: never rely on
``wait_for_notification`` for messages that may already have arrived)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pygls.protocol import default_converter
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.support.fake_llm import FakeLLM
from tests.support.waiting import wait_until

SERVER_COMMAND = [sys.executable, "-m", "server"]
WAIT_S = 30.0

# The default store and the user config of every server the tests start: this process's
# own (other test sessions on the machine, other checkouts, must not share them).
SCRATCH = Path(tempfile.mkdtemp(prefix="harness-lsp-tests-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def server_env(**extra: str) -> dict[str, str]:
    """The test process's environment (server_env *replaces* it), without provider keys, and
    with the user's policy file and default store out of reach."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and k not in ("HARNESS_PROVIDER", "HARNESS_MODEL")
    }
    env.pop("HARNESS_BASE_URL", None)
    env["HARNESS_STORE"] = str(SCRATCH / "default-store.db")
    env["XDG_CONFIG_HOME"] = str(SCRATCH / "config")
    env.update(extra)
    return env


def plain(value: Any) -> Any:
    """Custom notification params arrive as namedtuples: back to dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Opened:
    """A file the server opened with ``window/showDocument``, read while it existed."""

    path: Path
    text: str
    mode: int
    dir_mode: int
    take_focus: bool | None


class HarnessClient(LanguageClient):
    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.budgets: list[dict[str, Any]] = []
        self.finished: list[dict[str, Any]] = []
        self.did_write: list[str] = []
        self.events: list[dict[str, Any]] = []  # harness/runEvent, in the order received
        self.event_times: list[float] = []  # time.perf_counter() as each one arrived
        self.approvals: list[types.ShowMessageRequestParams] = []
        self.approvals_withdrawn = 0
        self.answers: list[str | None] = []  # the next approvals' answers (None: dismissed) ...
        self.approval_answer: str | None = "Allow"  # ... then this one
        self.opened: list[Opened] = []
        self.refuses_dialogs = False  # answers showMessageRequest with MethodNotFound
        self._tick = asyncio.Event()

    def report_server_error(self, error: Exception, source: Any) -> None:
        if self.refuses_dialogs and isinstance(error, JsonRpcMethodNotFound):
            return  # this client's own answer (as Helix's), not a fault of the server
        super().report_server_error(error, source)

    def tick(self) -> None:
        self._tick.set()

    async def wait_for(self, predicate: Callable[[], Any], within_s: float = WAIT_S) -> Any:
        return await wait_until(predicate, self._tick, within_s)

    async def wait_finished(self, run_id: int, within_s: float = WAIT_S) -> dict[str, Any]:
        found: dict[str, Any] = await self.wait_for(
            lambda: next((f for f in self.finished if f["runId"] == run_id), None), within_s
        )
        return found

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )

    def warnings(self) -> list[str]:
        return [m.message for m in self.messages if m.type == types.MessageType.Warning]


def client_factory(*, dialogs: bool = True) -> HarnessClient:
    """The test client; ``dialogs=False`` answers ``window/showMessageRequest`` with
    MethodNotFound (each one still recorded in ``approvals``), as Helix does (helix#4699)."""
    client = HarnessClient()
    mine = (types.WINDOW_SHOW_MESSAGE, types.WINDOW_SHOW_DOCUMENT, types.PROGRESS)
    register_lsp_features(
        client, {k: v for k, v in DEFAULT_CLIENT_FEATURES.items() if k not in mine}
    )

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def on_message(ls: HarnessClient, params: types.ShowMessageParams) -> None:
        ls.messages.append(params)
        ls.tick()

    @client.feature(types.PROGRESS)
    def on_progress(ls: HarnessClient, params: types.ProgressParams) -> None:
        DEFAULT_CLIENT_FEATURES[types.PROGRESS](ls, params)
        ls.tick()

    @client.feature("harness/budget")
    def on_budget(ls: HarnessClient, params: Any) -> None:
        ls.budgets.append(plain(params))
        ls.tick()

    @client.feature("harness/runFinished")
    def on_finished(ls: HarnessClient, params: Any) -> None:
        ls.finished.append(plain(params))
        ls.tick()

    @client.feature("harness/runEvent")
    def on_run_event(ls: HarnessClient, params: Any) -> None:
        ls.event_times.append(time.perf_counter())
        ls.events.append(plain(params))
        ls.tick()

    @client.feature("harness/didWrite")
    def on_did_write(ls: HarnessClient, params: Any) -> None:
        ls.did_write.append(plain(params)["uri"])
        ls.tick()

    if dialogs:
        _answer_dialogs(client)
    else:
        _refuse_dialogs(client)

    @client.feature(types.WINDOW_SHOW_DOCUMENT)
    def on_show(ls: HarnessClient, params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        ls.shown_documents.append(params)
        path = Path(to_fs_path(params.uri) or "")
        mode, dir_mode = (stat.S_IMODE(p.stat().st_mode) for p in (path, path.parent))
        ls.opened.append(Opened(path, path.read_text("utf-8"), mode, dir_mode, params.take_focus))
        ls.tick()
        return types.ShowDocumentResult(success=True)

    return client


def _answer_dialogs(client: HarnessClient) -> None:
    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    async def on_approval(
        ls: HarnessClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        ls.approvals.append(params)
        ls.tick()
        if ls.answers:
            answer = ls.answers.pop(0)  # None: the user dismissed the dialog
            return None if answer is None else types.MessageActionItem(title=answer)
        if ls.approval_answer is None:  # the user never answers
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                ls.approvals_withdrawn += 1
                ls.tick()
                raise
        return types.MessageActionItem(title=ls.approval_answer or "")


def _refuse_dialogs(client: HarnessClient) -> None:
    client.refuses_dialogs = True

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def on_dialog(ls: HarnessClient, params: types.ShowMessageRequestParams) -> None:
        ls.approvals.append(params)
        ls.tick()
        raise JsonRpcMethodNotFound(f"Method not found: {types.WINDOW_SHOW_MESSAGE_REQUEST}")


def server_config(
    *, command: list[str] = SERVER_COMMAND, env: dict[str, str] | None = None
) -> ClientServerConfig:
    """The real server started with ``command``, ``env`` (default: ``server_env()``) its
    environment, driven by a ``HarnessClient``."""
    return ClientServerConfig(
        server_command=command,
        client_factory=client_factory,
        server_env=server_env() if env is None else env,
    )


CONFIG = server_config()


@contextlib.asynccontextmanager
async def running(config: ClientServerConfig) -> AsyncIterator[HarnessClient]:
    """A client on a server started from ``config``; closed and stopped however it ends."""
    client = await config.start()
    assert isinstance(client, HarnessClient)
    try:
        yield client
    finally:
        await close(client)
        with contextlib.suppress(Exception):
            await client.stop()


def settings(fake: FakeLLM, store: Path, **more: Any) -> dict[str, Any]:
    return {
        "provider": {"name": "openai", "baseUrl": fake.url, "model": "m"},
        "storePath": str(store),
        **more,
    }


def initialize_params(
    folders: list[Path], options: Any, *, capabilities: str = "visual-studio-code"
) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=client_capabilities(capabilities),
        root_uri=folders[0].as_uri() if folders else None,
        workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders]
        or None,
        initialization_options=options,
    )


class Commanding(Protocol):
    """A client of the real server: ``HarnessClient``, or ``WireServer`` on raw pipes."""

    async def command(self, name: str, *arguments: Any) -> Any: ...


async def status_until(
    client: Commanding,
    predicate: Callable[[dict[str, Any]], bool],
    failure: str,
    within_s: float = WAIT_S,
) -> dict[str, Any]:
    """Ask ``harness.status`` until its answer makes ``predicate`` true (the server has no
    notification for these); ``TimeoutError(failure)`` after ``within_s``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while True:
        status: dict[str, Any] = await client.command("harness.status")
        if predicate(status):
            return status
        if loop.time() > deadline:
            raise TimeoutError(failure)
        await asyncio.sleep(0.02)


async def wait_watching(client: Commanding) -> None:
    """Until every workspace folder's watcher is live (changes before that are not seen)."""
    await status_until(
        client,
        lambda status: all(f["watching"] for f in status["workspaceFolders"]),
        "the watchers did not start",
    )


async def changes_seen(client: Commanding, run_id: int, within_s: float = WAIT_S) -> None:
    """Until the run ``run_id`` has been told of a change that could invalidate what its
    model saw (``changesSeen`` in ``harness.status``)."""

    def seen(status: dict[str, Any]) -> bool:
        run = next((r for r in status["runs"] if r["runId"] == run_id), None)
        return run is not None and run["changesSeen"] >= 1

    await status_until(client, seen, f"run {run_id} was never told of the change", within_s)


async def close(client: LanguageClient) -> None:
    """shutdown + exit; a server that does not go kills it, so teardown never hangs."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.shutdown_session(), 15)
    server = client._server
    if server is not None and server.returncode is None:
        try:
            await asyncio.wait_for(server.wait(), 5)
        except TimeoutError:
            server.kill()
            await server.wait()


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def turn(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(calls)}


def busy_turns(n: int, tag: str = "") -> list[dict[str, Any]]:
    """``n`` model turns that each read, grep and write (one of seven files under ``out/``)."""
    return [
        turn(
            call("read_file", path="src/a.py"),
            call("grep", pattern="return"),
            call("write_file", path=f"out/{tag}{i % 7}.txt", content=f"step {i}\n" * 40),
        )
        for i in range(n)
    ]


def held(release: threading.Event, answer: dict[str, Any]) -> Callable[[Any], dict[str, Any]]:
    """A model turn that answers ``answer`` once the test sets ``release``."""

    def respond(body: Any) -> dict[str, Any]:
        assert release.wait(WAIT_S), "the test never released the model"
        return answer

    return respond


# -- fixtures (tests/e2e/conftest.py registers them): client, bare, ws, fake, store


@pytest.fixture(name="ws")
def ws_fixture(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def add(a, b):\n    return a - b  # BUG\n")
    (root / "src" / "b.py").write_text("B_VERSION = 1\n")
    return root


@pytest.fixture(name="fake")
def fake_fixture(fake_llm: Callable[..., FakeLLM]) -> FakeLLM:
    return fake_llm([])


@pytest.fixture(name="store")
def store_fixture(tmp_path: Path) -> Path:
    return tmp_path / "store" / "harness.db"


@pytest_asyncio.fixture(name="client")
async def client_fixture(
    request: pytest.FixtureRequest, ws: Path, fake: FakeLLM, store: Path
) -> AsyncIterator[HarnessClient]:
    """A server initialized on ``ws`` with ``fake`` as the model and ``store``; watchers live."""
    async with running(server_config(env=env_for(request))) as client:
        await client.initialize_session(initialize_params([ws], settings(fake, store)))
        await wait_watching(client)
        yield client


def env_for(request: pytest.FixtureRequest, **env: str) -> dict[str, str]:
    """``server_env(**env)``, and for a test with ``no_after_edit_diagnostics`` (conftest.py)
    and no ``XDG_CONFIG_HOME`` of its own that fixture's user config, written by then."""
    if "no_after_edit_diagnostics" in request.fixturenames and "XDG_CONFIG_HOME" not in env:
        env["XDG_CONFIG_HOME"] = str(request.getfixturevalue("no_after_edit_diagnostics"))
    return server_env(**env)


def started_server(name: str, **env: str) -> Any:
    """A fixture ``name``: a started server the test initializes; ``env_for(..., **env)``."""

    @pytest_asyncio.fixture(name=name)
    async def started(request: pytest.FixtureRequest) -> AsyncIterator[HarnessClient]:
        async with running(server_config(env=env_for(request, **env))) as client:
            yield client

    return started


bare_fixture = started_server("bare")
