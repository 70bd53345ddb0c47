"""The ACP agent (§13): ``initialize``, ``session/new``, ``session/load``,
``session/prompt``, ``session/cancel``; it sends ``session/update`` and
``session/request_permission`` and reads the editor's buffers with ``fs/read_text_file``.
A session is a conversation (``server.conversation``), a prompt one run of it.

``stopReason``: ``end_turn`` when the run ended for any reason but these three —
``cancelled`` (the user stopped it), ``max_tokens`` (the token budget ran out),
``max_turn_requests`` (the step cap); an outcome other than success or finished is also
said in words (an ``agent_message_chunk`` naming it and its error).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    StopReason,
)

from harness import __version__
from harness.errors import ConfigError, HarnessError
from harness.report import RunResult
from harness.run.backend import Backend
from harness.types import Outcome, TraceEvent
from server.acp.commands import (
    available,
    chosen_model,
    expand_command,
    mode_state,
    model_options,
    run_mode,
)
from server.acp.front import AcpFront
from server.acp.sessions import SessionBook, new_session_id
from server.acp.updates import translate
from server.conversation import Conversation, conversation_events

if TYPE_CHECKING:  # the conversation machinery loads with the first prompt
    from harness.run.conversation import Attachment

log = logging.getLogger(__name__)

STOP_REASONS: dict[Outcome, StopReason] = {
    Outcome.CANCELLED: "cancelled",
    Outcome.BUDGET_EXHAUSTED: "max_tokens",
    Outcome.STEP_CAP_REACHED: "max_turn_requests",
}


class HarnessAgent:
    """Implements ``acp.Agent``."""

    def __init__(
        self, backend: Callable[[], Backend], book: SessionBook, models: Sequence[str] = ("m",)
    ) -> None:
        self._backend = backend  # made once, when first needed: after `initialize` is answered
        self.book = book
        self.models = list(models)  # the first is the default
        self.client: Client | None = None
        self.client_capabilities = ClientCapabilities()
        self.sessions: dict[str, tuple[Conversation, AcpFront]] = {}
        self._warm: list[asyncio.Task[None]] = []

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    @property
    def backend(self) -> Backend:
        """The store, the model, telemetry (``main``: opened once); a store that cannot be
        opened is the request's error, saying why."""
        try:
            return self._backend()
        except HarnessError as exc:
            raise RequestError.internal_error({"why": str(exc)}) from None

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **_: Any,
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities or ClientCapabilities()
        loop = asyncio.get_running_loop()  # the store opens once the answer is on its way
        loop.call_soon(lambda: self._warm.append(loop.create_task(self._warm_up())))
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
            ),
            agent_info=Implementation(name="harness", title="Harness", version=__version__),
        )

    async def _warm_up(self) -> None:
        try:
            await asyncio.to_thread(self._backend)
        except HarnessError as exc:
            log.error("%s", exc)  # said again to the session/new it fails

    async def authenticate(self, method_id: str, **_: Any) -> None:
        return None

    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> NewSessionResponse:
        session_id = new_session_id()
        conversation, front = self._open(session_id, _workspace(cwd), conversation_id=None)
        conversation.mcp_servers = _mcp_servers(mcp_servers)
        await _offer_commands(front)
        options = model_options(self.models[0], self.models)
        return NewSessionResponse(
            session_id=session_id, modes=mode_state(front.mode), config_options=options
        )

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        """The session's model (the one option): its next prompts use it."""
        conversation = self._session(session_id)[0]
        conversation.model = chosen_model(config_id, value, self.models)
        options = model_options(conversation.model, self.models)
        return SetSessionConfigOptionResponse(config_options=list(options))

    async def set_session_mode(
        self, session_id: str, mode_id: str, **_: Any
    ) -> SetSessionModeResponse:
        """The mode of the session's next prompts (a run in progress keeps its own)."""
        front = self._session(session_id)[1]
        front.mode = run_mode(mode_id)
        return SetSessionModeResponse()

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> LoadSessionResponse:
        """Replay the session's turns; a session this agent holds open (maybe running) is
        attached to — the same conversation, so its run's updates and a Stop reach it."""
        root = _workspace(cwd)
        live = self.sessions.get(session_id)
        if live is not None and live[0].root == root:
            conversation, front = live
            conversation_id = conversation.conversation_id
        else:
            conversation_id = self.book.conversation(session_id, root)
            if conversation_id is None:
                raise RequestError.invalid_params(
                    {"sessionId": f"no session {session_id} in {root}"}
                )
            conversation, front = self._open(session_id, root, conversation_id=conversation_id)
        conversation.mcp_servers = _mcp_servers(mcp_servers)
        calls: dict[str, dict[str, Any]] = {}
        store = self.backend.opened_store()
        events = [] if conversation_id is None else conversation_events(store, conversation_id)
        for event in events:
            for update in translate(root, event, calls, front.edits, replay=True):
                front.outbox.put(update)
        await _offer_commands(front)
        options = model_options(conversation.model or self.models[0], self.models)
        return LoadSessionResponse(modes=mode_state(front.mode), config_options=list(options))

    def _open(
        self, session_id: str, root: Path, conversation_id: int | None
    ) -> tuple[Conversation, AcpFront]:
        if self.client is None:
            raise RequestError.internal_error({"why": "no client connection"})
        front = AcpFront(
            self.client, session_id, root, self.backend.opened_store(), self.client_capabilities
        )
        conversation = Conversation(root, self.backend, front)
        conversation.conversation_id = conversation_id
        self.sessions[session_id] = (conversation, front)
        return conversation, front

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        conversation, front = self._session(session_id)
        goal, context = prompt_of(prompt)
        if not goal:
            raise RequestError.invalid_params({"prompt": "the prompt has no text"})
        if conversation.running:  # one prompt at a time per session: a second is refused
            raise RequestError.invalid_request(
                {"why": "a prompt of this session is running: wait for its answer, or cancel it"}
            )
        command = expand_command(goal, conversation.root, front.earlier_cost)
        if command is not None and command.answer:  # a built-in answered here, no run
            front.outbox.put(update_agent_message_text(command.answer))
            await front.outbox.drain()
            return PromptResponse(stop_reason="end_turn")
        mode = (command.mode if command else None) or front.mode
        try:
            result = await conversation.prompt(command.goal if command else goal, context, mode)
        except ConfigError as exc:
            raise RequestError.invalid_params({"why": str(exc)}) from None
        finally:
            await front.outbox.drain()
        if conversation.conversation_id is not None:
            self.book.record(session_id, conversation.root, conversation.conversation_id)
        if command is not None and command.prompt is not None and conversation.runs:
            marked = TraceEvent("prompt", command.prompt)  # whose prompt the goal was
            self.backend.opened_store().add_events(conversation.runs[-1], 0, [marked])
        return await self._stopped(front, result)

    async def _stopped(self, front: AcpFront, result: RunResult) -> PromptResponse:
        outcome = result.end.outcome
        if not outcome.ok and outcome not in STOP_REASONS:
            why = f" ({result.end.error})" if result.end.error else ""
            front.outbox.put(update_agent_message_text(f"\n\nThe run ended: {outcome.value}{why}."))
            await front.outbox.drain()
        return PromptResponse(stop_reason=stop_reason(outcome))

    async def cancel(self, session_id: str, **_: Any) -> None:
        entry = self.sessions.get(session_id)
        if entry is not None:
            entry[0].cancel()

    def cancel_all(self) -> None:
        for conversation, _front in self.sessions.values():
            conversation.cancel()

    def _session(self, session_id: str) -> tuple[Conversation, AcpFront]:
        entry = self.sessions.get(session_id)
        if entry is None:
            raise RequestError.invalid_params({"sessionId": f"no session {session_id}"})
        return entry


async def _offer_commands(front: AcpFront) -> None:
    """The session's ``/`` commands, on the client before the answer that opened it."""
    front.outbox.put(available(front.root))
    await front.outbox.drain()


def stop_reason(outcome: Outcome) -> StopReason:
    """How a run's outcome ends an ACP turn (see the module's docstring)."""
    return STOP_REASONS.get(outcome, "end_turn")


def prompt_of(prompt: list[Any]) -> tuple[str, list[Attachment]]:
    """The prompt's words, and the files it attached (a ``file:`` link or resource, a
    selection's ``#L10:20`` or ``#L10-20`` read as those lines): each is read at step 0
    under the policy like any read (§11). Anything else attached is named in the words."""
    words: list[str] = []
    context: list[Attachment] = []
    for block in prompt:
        kind = getattr(block, "type", "")
        uri = block.uri if kind == "resource_link" else None
        if kind == "resource":
            uri = block.resource.uri
        if kind == "text":
            words.append(block.text)
        elif uri is not None:
            attached = attachment(uri)
            if attached is None:
                words.append(f"(attached: {uri})")
            else:
                context.append(attached)
    return "\n".join(w for w in words if w).strip(), context


def attachment(uri: str) -> Attachment | None:
    """The file a ``file:`` URI names, with its lines when its fragment names some."""
    from harness.run.conversation import Attachment

    parsed = urlsplit(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    lines = re.fullmatch(r"L(\d+)(?:[:-]L?(\d+))?", parsed.fragment)
    if lines is None:
        return Attachment(path)
    first = int(lines[1])
    last = int(lines[2]) if lines[2] else first
    return Attachment(path, offset=first, limit=max(1, last - first + 1))


def _workspace(cwd: str) -> Path:
    from harness.policy import default_user_config, root_refusal

    root = Path(cwd)
    if not root.is_absolute() or not root.is_dir():
        raise RequestError.invalid_params({"cwd": f"{cwd} is not an absolute path to a folder"})
    try:
        refusal = root_refusal(root, default_user_config())
    except ConfigError as exc:
        raise RequestError.invalid_params({"cwd": str(exc)}) from None
    if refusal is not None:
        raise RequestError.invalid_params({"cwd": refusal})
    return root.resolve()


def _mcp_servers(given: Any) -> tuple[Any, ...]:
    """The client's ``mcpServers`` (stdio, HTTP) as the run's MCP servers (§15); a server
    the harness cannot reach (ACP-tunnelled, SSE) is left out."""
    from harness.mcp.config import client_servers

    specs = []
    for server in given or ():
        spec = server.model_dump() if hasattr(server, "model_dump") else dict(server)
        if spec.get("command") or spec.get("type") == "http":
            specs.append(spec)
    try:
        return client_servers(specs)
    except ConfigError as exc:
        raise RequestError.invalid_params({"mcpServers": str(exc)}) from None


__all__ = ["STOP_REASONS", "HarnessAgent", "attachment", "prompt_of", "stop_reason"]
