"""One ACP session's side of a conversation (``server.conversation.Front``): the run's
events go out as ``session/update`` notifications in order (``Outbox``), an ``approval``
becomes ``session/request_permission``, and the editor's text of a file is read with
``fs/read_text_file`` when the client offers it. Every message is redacted (§6.7) before it
is sent."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from acp.helpers import SessionUpdate
from acp.interfaces import Client
from acp.schema import AllowedOutcome, ClientCapabilities, PermissionOption, ToolCallUpdate
from pydantic import BaseModel

from harness.redact import redact
from harness.store import Store
from harness.types import Approval
from server.acp.updates import KINDS, call_id, permission_content, title_of, translate

log = logging.getLogger(__name__)

# allow_always is "allow for this run" (§6.3): the grant ends with the run
OPTIONS = (
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Allow for this run", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Deny", kind="reject_once"),
)
ANSWERS = {
    "allow_once": Approval.ALLOW_ONCE,
    "allow_always": Approval.ALLOW_RUN,
    "reject_once": Approval.DENY,
}


def redacted(model: Any) -> Any:
    """``model`` with every registered key redacted from its text."""
    if not isinstance(model, BaseModel):
        return model
    return type(model).model_validate_json(redact(model.model_dump_json(by_alias=True)))


class Outbox:
    """``session/update`` notifications of one session, sent one after another in order."""

    def __init__(self, client: Client, session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self.queue: asyncio.Queue[SessionUpdate] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def put(self, update: SessionUpdate) -> None:
        self.queue.put_nowait(update)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._pump())

    async def drain(self) -> None:
        await self.queue.join()

    async def _pump(self) -> None:
        while True:
            update = await self.queue.get()
            try:
                await self.client.session_update(self.session_id, redacted(update))
            except Exception:
                log.exception("session/update could not be sent")
            finally:
                self.queue.task_done()


class AcpFront:
    """Implements ``server.conversation.Front`` for one ACP session."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        root: Path,
        store: Store,
        capabilities: ClientCapabilities,
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.root = root
        self.store = store
        self.capabilities = capabilities
        self.outbox = Outbox(client, session_id)
        self.calls: dict[str, dict[str, Any]] = {}

    def event(self, event: dict[str, Any]) -> None:
        for update in translate(self.root, event, self.calls, self.edits, replay=False):
            self.outbox.put(update)

    def edits(self, run_id: int, path: str) -> tuple[str | None, str] | None:
        """The text before and after the run's last write of ``path``."""
        rows = [e for e in self.store.run_edits(run_id) if e.path == path]
        if not rows:
            return None
        last = rows[-1]
        before = last.before.decode("utf-8", "replace") if last.before is not None else None
        return before, last.after.decode("utf-8", "replace")

    async def approve(self, event: dict[str, Any]) -> Approval:
        await self.outbox.drain()  # the tool call is on the client before the question
        started = self.calls.get(call_id(event)) if event.get("callId") else None
        tool_call = ToolCallUpdate(
            tool_call_id=call_id(event) if started else f"{event['runId']}-ask-{event['seq']}",
            title=title_of(started) if started else f"{event['act']} {event['target']}",
            kind=KINDS.get(started["name"], "other") if started else None,
            status="pending",
            content=permission_content(self.root, started, event) or None,
        )
        try:
            answer = await self.client.request_permission(
                self.session_id, redacted(tool_call), list(OPTIONS)
            )
        except Exception as exc:
            log.warning("session/request_permission failed: %s", exc)
            return Approval.UNAVAILABLE
        outcome = answer.outcome
        if isinstance(outcome, AllowedOutcome):
            return ANSWERS.get(outcome.option_id, Approval.DENY)
        return Approval.DENY  # cancelled

    async def editor_text(self, path: Path) -> str | None:
        fs = self.capabilities.fs
        if fs is None or not fs.read_text_file:
            return None
        with contextlib.suppress(Exception):
            answer = await self.client.read_text_file(self.session_id, str(path))
            return answer.content
        return None


__all__ = ["OPTIONS", "AcpFront", "Outbox", "redacted"]
