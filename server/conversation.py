"""The conversation adapter both fronts open their runs through (§11, §13): the language
server (``server.lsp``) and the ACP agent (``server.acp``) each turn a request of their
protocol into a contract and a ``harness.run.backend.RunRequest`` — what only that front has:
who answers approvals, the editor's unsaved buffers, who hears progress and the §11
events — and ``harness.run.session.open_session`` opens the run on the front's shared
``harness.run.backend.Backend`` (store, model, memory, prices, telemetry, language servers).
The fronts only translate; neither holds agent logic.

``Conversation`` is one conversation for a front that runs one turn at a time on a thread
of its own (the ACP agent): start a run or a follow-up in a workspace, route its approvals
to the front, let the front's editor say which files it holds unsaved, and hand the front
the run's events (``harness.run.events``, the stream every front reads).

A run executes on a thread of its own (its own event loop): the editor's buffers are asked
for synchronously by the document guard (§6.5), and that question is answered on the
front's loop. Everything the front gets — events, approval questions, buffer reads — is
called on the front's loop, events in the order the run made them.

    conversation = Conversation(root, backend, front)
    result = await conversation.prompt("Fix add()")  # a run; the next prompt follows it up
    conversation.cancel()                              # from the front, while it runs
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from harness.provider import ProviderConfig
from harness.report import RunInfo, RunObserver, RunResult
from harness.run.backend import Backend, RunRequest
from harness.types import Approval, ApprovalRequest

if TYPE_CHECKING:  # a run's machinery loads with the first run, not to answer `initialize`
    from harness.contract import RunMode
    from harness.run.conversation import Attachment
    from harness.store import Store

log = logging.getLogger(__name__)

T = TypeVar("T")
BUFFER_WAIT_S = 10.0  # how long a run waits for the editor to say what a buffer holds
WRITE_WAIT_S = 30.0  # how long a run waits for the editor to make a write
MAX_COMPARED_BYTES = 4 * 1024 * 1024


class Front(Protocol):
    """What a front (the ACP agent, the language server) gives a conversation; every
    method runs on the front's own event loop."""

    def event(self, event: dict[str, Any]) -> None:
        """One §11 run event, in order (``user``, ``text``, ``toolCall``, ``approval``,
        ``toolResult``, ``budget``, ``end``)."""

    async def approve(self, request: ApprovalRequest) -> Approval:
        """The user's answer to what the last ``approval`` event asked (it, and every
        event before it, has been handed to ``event`` already)."""

    async def editor_text(self, path: Path) -> str | None:
        """The editor's text of ``path`` (absolute), or None when it cannot say."""

    @property
    def writes_files(self) -> bool:
        """Whether the editor makes the agent's writes (``write_text``)."""

    async def write_text(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` (absolute) through the editor; raises when it did not."""

    def warning(self, message: str) -> None:
        """What the user must be told at once: the policy's and the sandbox's notes at the
        start of a run (§6.3, §6.6), a command that changed a file held unsaved (§6.5)."""


def follow_up_root(store: Store, conversation_id: int, roots: Sequence[Path]) -> Path:
    """The folder a follow-up of ``conversation_id`` runs in: the conversation's own, which
    must be one of ``roots`` (the front's folders). Raises ``LookupError`` with a message
    the front passes on."""
    runs = store.conversation_runs(conversation_id)
    if not runs:
        raise LookupError(f"no conversation {conversation_id}")
    root = Path(runs[0].workspace)
    if root not in roots:
        raise LookupError(
            f"conversation {conversation_id} is of another workspace ({root}), not one of "
            "the open folders"
        )
    return root


class _Bridge:
    """Calls from a run's thread onto the front's loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def post(self, fn: Callable[..., None], *args: Any) -> None:
        self.loop.call_soon_threadsafe(fn, *args)

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """``coro`` run on the front's loop, awaited from the run's loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def call_blocking(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)


class EditorBuffers:
    """``DocumentGuard`` over the front's editor: a file whose editor text differs from the
    disk is held unsaved (§6.5). Asked on the run's thread; answered on the front's loop."""

    def __init__(self, root: Path, bridge: _Bridge, text: Callable[[Path], Awaitable[str | None]]):
        self.root = root
        self.bridge = bridge
        self.text = text
        self._unsaved: set[str] = set()

    def has_unsaved_changes(self, rel_path: str) -> bool:
        path = self.root / rel_path
        try:
            held = self.bridge.call_blocking(_awaited(self.text(path)), BUFFER_WAIT_S)
        except Exception as exc:  # the editor could not say: the disk is what there is
            log.info("the editor's text of %s: %s", rel_path, exc)
            held = None
        unsaved = held is not None and held != _disk_text(path)
        (self._unsaved.add if unsaved else self._unsaved.discard)(rel_path)
        return unsaved

    def unsaved_paths(self) -> tuple[str, ...]:
        """The files found unsaved so far (an ACP client cannot list its buffers)."""
        return tuple(sorted(self._unsaved))


class EditorWrites:
    """``EditorWriter`` over the front's editor: asked on a worker thread of the run, made
    on the front's loop; an editor that fails or does not answer in ``WRITE_WAIT_S`` is
    an ``OSError`` (the tool says the file could not be written)."""

    def __init__(self, root: Path, bridge: _Bridge, write: Callable[[Path, str], Awaitable[None]]):
        self.root = root
        self.bridge = bridge
        self.write = write

    def write_text(self, rel_path: str, text: str) -> None:
        try:
            self.bridge.call_blocking(
                _awaited(self.write(self.root / rel_path, text)), WRITE_WAIT_S
            )
        except Exception as exc:
            raise OSError(f"the editor did not write it ({type(exc).__name__}: {exc})") from None


async def _awaited(value: Awaitable[T]) -> T:
    return await value


def _disk_text(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_COMPARED_BYTES:
            return None
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


class Conversation:
    """The runs a user starts one after another in one workspace (§11)."""

    def __init__(self, root: Path, backend: Backend, front: Front) -> None:
        self.root = root
        self.backend = backend
        self.front = front
        self.conversation_id: int | None = None
        self.runs: list[int] = []
        self.mcp_servers: Sequence[Any] = ()  # harness.mcp ServerConfigs of the client's
        self.model: str | None = None  # the model the client chose (None: the backend's)
        self._cancel: Callable[[], object] | None = None
        self._cancel_requested = False
        self._busy = False  # a prompt is in progress: set before its first await

    @property
    def running(self) -> bool:
        """Whether a prompt is in progress — from the moment ``prompt`` is called, not from
        when its thread starts the run (two prompts sent together: the second is refused)."""
        return self._busy

    async def prompt(
        self, goal: str, context: Sequence[Attachment] = (), mode: RunMode = "code"
    ) -> RunResult:
        """One run (the next turn of the conversation, ``context`` what the user attached,
        in ``mode``: code, plan or ask), on a thread of its own; returns once every event of
        it has been handed over."""
        if self._busy:
            raise RuntimeError("a run of this conversation is in progress")
        self._busy, self._cancel_requested = True, False
        try:
            bridge = _Bridge(asyncio.get_running_loop())
            run = self._run(goal, context, mode, bridge)
            return await asyncio.to_thread(asyncio.run, run)
        finally:
            self._busy = False

    def cancel(self) -> bool:
        """Stop the run in progress at its next safe point; False when none is."""
        self._cancel_requested = True
        if self._cancel is None:
            return False
        self._cancel()
        return True

    async def _run(
        self, goal: str, context: Sequence[Attachment], mode: RunMode, bridge: _Bridge
    ) -> RunResult:
        from harness.contract import ContractOverrides
        from harness.run.session import build_contract, open_session
        from harness.workspace.watch import Watcher

        backend, front = self.backend, self.front
        if self.model is not None and isinstance(backend.provider, ProviderConfig):
            chosen = dataclasses.replace(backend.provider, model=self.model)
            backend = dataclasses.replace(backend, provider=chosen)
        contract = build_contract(goal, self.root, ContractOverrides(mode=mode))
        request = RunRequest(
            _Approver(bridge, front),
            on_event=partial(bridge.post, front.event),
            guard=EditorBuffers(self.root, bridge, front.editor_text),
            writer=EditorWrites(self.root, bridge, front.write_text)
            if front.writes_files
            else None,
            observer=_Warnings(bridge, front),
            conversation_id=self.conversation_id,
            context=context,
            mcp_servers=self.mcp_servers,
        )
        session = await open_session(contract, backend, request)
        run_loop = asyncio.get_running_loop()
        self._cancel = partial(run_loop.call_soon_threadsafe, session.run.cancel)
        if self.conversation_id is None:
            self.conversation_id = session.run_id
        self.runs.append(session.run_id)
        if self._cancel_requested:
            session.run.cancel()
        watcher = Watcher(
            session.root,
            session.run.notify_changed,
            ignore=[
                p
                for p in (backend.opened_store().location,)
                if isinstance(p, Path)  # a SQLite file
            ],
        )
        try:
            await watcher.start()
            return await session.execute()
        finally:
            self._cancel = None
            await watcher.stop()
            await session.aclose()


def conversation_events(store: Store, conversation_id: int) -> list[dict[str, Any]]:
    """A conversation's events from the store, turn by turn, for a client opened later
    (``harness.run.events``: one ``text`` per step with the whole words)."""
    from harness.run.events import stored_events

    runs = store.conversation_runs(conversation_id)
    return stored_events(store, [run.run_id for run in runs])


class _Warnings(RunObserver):
    def __init__(self, bridge: _Bridge, front: Front) -> None:
        self.bridge = bridge
        self.front = front

    def user_warning(self, run: RunInfo, message: str) -> None:
        self.bridge.post(self.front.warning, message)


class _Approver:
    """The run's approver: the front asks the user (the run's events have told it what is
    asked about which call; they tell the answer too)."""

    def __init__(self, bridge: _Bridge, front: Front) -> None:
        self.bridge = bridge
        self.front = front

    async def __call__(self, request: ApprovalRequest) -> Approval:
        return await self.bridge.call(self.front.approve(request))


__all__ = [
    "Conversation",
    "EditorBuffers",
    "Front",
    "conversation_events",
    "follow_up_root",
]
