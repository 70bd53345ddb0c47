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
from typing import TYPE_CHECKING, Any

from acp import update_agent_message_text
from acp.helpers import SessionUpdate
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    PermissionOption,
    ToolCallUpdate,
    UsageUpdate,
)
from pydantic import BaseModel

from harness.redact import redact
from harness.types import Approval, ApprovalRequest
from server.acp.plan import PlanTracker
from server.acp.updates import (
    KINDS,
    call_id,
    permission_content,
    title_of,
    translate,
    usage,
)

if TYPE_CHECKING:
    from harness.contract import RunMode
    from harness.store import Store

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
        self.queue: asyncio.Queue[SessionUpdate | UsageUpdate] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def put(self, update: SessionUpdate | UsageUpdate) -> None:
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
        self.asking: dict[str, Any] | None = None
        self.earlier_cost = 0.0  # the dollars of this session's finished runs
        self.mode: RunMode = "code"  # the session's mode (session/set_mode)
        self.plan = PlanTracker()

    def event(self, event: dict[str, Any]) -> None:
        if event["kind"] == "approval" and "decision" not in event:
            self.asking = event  # what ``approve`` is about to be asked
        elif event["kind"] == "budget":
            self.outbox.put(usage(event, self.earlier_cost))
        elif event["kind"] == "end" and event.get("costUsd") is not None:
            self.earlier_cost += event["costUsd"]
        for update in translate(self.root, event, self.calls, self.edits, replay=False):
            self.outbox.put(update)
        for planned in self.plan.updates(event):
            self.outbox.put(planned)

    def edits(self, run_id: int, path: str) -> tuple[str | None, str] | None:
        """The text before and after the run's last write of ``path``."""
        rows = [e for e in self.store.run_edits(run_id) if e.path == path]
        if not rows:
            return None
        last = rows[-1]
        before = last.before.decode("utf-8", "replace") if last.before is not None else None
        return before, last.after.decode("utf-8", "replace")

    async def approve(self, request: ApprovalRequest) -> Approval:
        await self.outbox.drain()  # the tool call is on the client before the question
        event = self.asking or {"runId": request.run_id, "callId": "", "seq": 0}
        self.asking = None
        started = self.calls.get(call_id(event))
        tool_call = ToolCallUpdate(
            tool_call_id=call_id(event) if started else f"{event['runId']}-ask-{event['seq']}",
            title=title_of(started) if started else f"{request.act.value} {request.target}",
            kind=KINDS.get(started["name"], "other") if started else None,
            status="pending",
            content=permission_content(self.root, started, event, request) or None,
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

    def warning(self, message: str) -> None:
        self.outbox.put(update_agent_message_text(f"⚠ {message}\n\n"))

    @property
    def writes_files(self) -> bool:
        fs = self.capabilities.fs
        return fs is not None and bool(fs.write_text_file)

    async def write_text(self, path: Path, text: str) -> None:
        await self.outbox.drain()  # the call's start is on the client before its write
        await self.client.write_text_file(session_id=self.session_id, path=str(path), content=text)

    async def editor_text(self, path: Path) -> str | None:
        fs = self.capabilities.fs
        if fs is None or not fs.read_text_file:
            return None
        with contextlib.suppress(Exception):
            answer = await self.client.read_text_file(self.session_id, str(path))
            return answer.content
        return None


__all__ = ["OPTIONS", "AcpFront", "Outbox", "redacted"]
