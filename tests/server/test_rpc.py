"""Talking to the client without pygls in the way: approvals mapped from the buttons, a
cancelled wait that tells the client (``$/cancelRequest``) and drops a late answer quietly,
and log records forwarded to ``window/logMessage`` from any thread."""

from __future__ import annotations

import asyncio
import gc
import io
import logging
import threading
from concurrent.futures import Future
from typing import Any

import pytest
from lsprotocol import types

import server.lsp.approvals
from harness.redact import register
from harness.types import Act, Approval, ApprovalRequest
from server.lsp.approvals import LspApprover, approval_message
from server.lsp.wire.logs import LspLogHandler, stderr_handler


class FakeProtocol:
    """The two calls the server makes on pygls' protocol, recorded."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, Any, str, Future[Any]]] = []
        self.notifications: list[tuple[str, Any]] = []

    def send_request(self, method: str, params: Any, msg_id: str) -> Future[Any]:
        future: Future[Any] = Future()
        self.requests.append((method, params, msg_id, future))
        return future

    def notify(self, method: str, params: Any) -> None:
        self.notifications.append((method, params))


REQUEST = ApprovalRequest(run_id=3, act=Act.EXEC, target="make test", reason="the default")


@pytest.mark.parametrize(
    ("answer", "approval"),
    [
        ("Allow", Approval.ALLOW_ONCE),
        ("Allow for this run", Approval.ALLOW_RUN),
        ("Deny", Approval.DENY),
    ],
)
async def test_the_buttons_map_to_approvals(answer: str | None, approval: Approval) -> None:
    protocol = FakeProtocol()
    waiting: list[bool] = []
    approver = LspApprover(protocol, waiting.append)  # type: ignore[arg-type]
    task = asyncio.create_task(approver(REQUEST))
    await asyncio.sleep(0)
    ((method, params, _, future),) = protocol.requests
    assert method == types.WINDOW_SHOW_MESSAGE_REQUEST
    assert [a.title for a in params.actions] == ["Allow", "Allow for this run", "Deny"]
    future.set_result(types.MessageActionItem(title=answer) if answer else None)
    assert await task is approval
    assert waiting == [True, False]


@pytest.mark.parametrize("dismissal", [None, "Something else"])
async def test_a_dismissed_dialog_is_asked_again_not_denied(
    dismissal: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server.lsp.approvals, "REASK_INTERVAL_S", 0.0)
    protocol = FakeProtocol()
    task = asyncio.create_task(LspApprover(protocol)(REQUEST))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    for asked in range(1, 4):
        future = protocol.requests[-1][3]
        future.set_result(types.MessageActionItem(title=dismissal) if dismissal else None)
        for _ in range(100):  # a few turns of the loop: the answer, then the re-ask
            if len(protocol.requests) > asked:
                break
            await asyncio.sleep(0)
        assert len(protocol.requests) == asked + 1, "asked again"
        assert not task.done()
    assert len({params.message for _, params, _, _ in protocol.requests}) == 1
    protocol.requests[-1][3].set_result(types.MessageActionItem(title="Allow"))
    assert await task is Approval.ALLOW_ONCE


@pytest.mark.parametrize("late", ["result", "error"])
async def test_a_cancelled_wait_tells_the_client_and_ignores_a_late_answer(
    late: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="server.lsp.wire.rpc")
    protocol = FakeProtocol()
    task = asyncio.create_task(LspApprover(protocol)(REQUEST))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    ((_, _, msg_id, future),) = protocol.requests
    assert protocol.notifications == [(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))]
    assert not future.cancelled(), "pygls' own future stays pending"
    # What the client answers later: the button the user pressed, or "cancelled".
    if late == "result":
        future.set_result(types.MessageActionItem(title="Allow"))
    else:
        future.set_exception(RuntimeError("RequestCancelled"))
    dropped = f"{types.WINDOW_SHOW_MESSAGE_REQUEST}: "
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not any(r.getMessage().startswith(dropped) for r in caplog.records):
        assert loop.time() < deadline, "the late answer never arrived"
        await asyncio.sleep(0.01)
    [record] = [r for r in caplog.records if r.getMessage().startswith(dropped)]
    assert record.getMessage().endswith("came after the wait was given up; dropped")
    assert ("a result" if late == "result" else "an error (RuntimeError)") in record.getMessage()
    gc.collect()  # an unretrieved exception would be logged now, as an error
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert len(protocol.notifications) == 1, "nothing else was sent"
    assert task.cancelled(), "the approval stayed cancelled: the late Allow granted nothing"


def test_long_targets_are_cut_with_a_count() -> None:
    message = approval_message(
        ApprovalRequest(run_id=1, act=Act.EXEC, target="x" * 1000, reason="r")
    )
    assert len(message) < 450 and "x" * 301 not in message
    assert '… (700 more characters hidden — choose "Show full command")' in message


async def test_logs_reach_the_client_from_any_thread() -> None:
    protocol = FakeProtocol()
    handler = LspLogHandler.install(protocol, asyncio.get_running_loop())  # type: ignore[arg-type]
    try:
        logging.getLogger("server.test").warning("on the loop")
        thread = threading.Thread(target=logging.getLogger("harness.test").error, args=("away",))
        thread.start()
        thread.join()
        logging.getLogger("pygls.test").error("not ours")
        await asyncio.sleep(0.01)
    finally:
        handler.uninstall()
    sent = [(p.type, p.message) for _, p in protocol.notifications]
    assert sent == [
        (types.MessageType.Warning, "server.test: on the loop"),
        (types.MessageType.Error, "harness.test: away"),
    ]


SECRET = "sk-test-server-logs-9c41d7e2"


async def test_log_records_reach_the_client_and_stderr_redacted() -> None:
    register(SECRET)
    protocol = FakeProtocol()
    handler = LspLogHandler.install(protocol, asyncio.get_running_loop())  # type: ignore[arg-type]
    stream = io.StringIO()
    stderr = stderr_handler(logging.INFO, stream)
    logger = logging.getLogger("server.test")
    logger.addHandler(stderr)
    try:
        logger.warning("the provider said: bad key %s (%s)", SECRET, "again " + SECRET)
    finally:
        logger.removeHandler(stderr)
        handler.uninstall()
    ((_, params),) = protocol.notifications
    assert params.message == "server.test: the provider said: bad key [redacted] (again [redacted])"
    assert SECRET not in stream.getvalue() and "bad key [redacted]" in stream.getvalue()
