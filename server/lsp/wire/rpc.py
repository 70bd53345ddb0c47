"""Talking to the client: notifications that never raise, and requests whose wait can be
cancelled without breaking pygls.

``ask_client`` waits on a request through ``asyncio.shield``: cancelling the waiter (a run
cancelled while the user looks at an approval dialog) leaves pygls' own future pending, so
a late answer is dropped (and logged at debug level) instead of being set on a cancelled
future. The client is told with ``$/cancelRequest`` that nobody waits any more.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import uuid
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)


def notify(protocol: JsonRPCProtocol, method: str, params: Any) -> None:
    """Send a notification; a client that went away is logged, never raised."""
    try:
        protocol.notify(method, params)
    except Exception as exc:  # BrokenPipeError, a closed transport: the client is gone
        log.debug("could not send %s: %s", method, exc)


async def ask_client(
    protocol: JsonRPCProtocol, method: str, params: Any, *, within_s: float | None = None
) -> Any:
    """Send a request and wait for the answer (``within_s`` seconds at most, if given)."""
    msg_id = str(uuid.uuid4())
    sent: Future[Any] = protocol.send_request(method, params, msg_id=msg_id)
    waiter = asyncio.wrap_future(sent)
    waiter.add_done_callback(_retrieve)
    try:
        if within_s is None:
            return await asyncio.shield(waiter)
        return await asyncio.wait_for(asyncio.shield(waiter), within_s)
    except (asyncio.CancelledError, TimeoutError):
        notify(protocol, types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        waiter.add_done_callback(functools.partial(_dropped, method))
        raise


async def wait_to_reask(sent: float, interval_s: float) -> None:
    """Sleep until ``interval_s`` seconds after ``sent`` (a ``time.monotonic()``): a question
    the client dismissed is asked again no sooner. Cancellable (a cancelled run)."""
    await asyncio.sleep(max(0.0, sent + interval_s - time.monotonic()))


def _dropped(method: str, fut: asyncio.Future[Any]) -> None:
    """The answer to a request nobody waits for any more."""
    if fut.cancelled():
        return
    error = fut.exception()
    what = f"an error ({type(error).__name__})" if error is not None else "a result"
    log.debug("%s: %s came after the wait was given up; dropped", method, what)


def _retrieve(fut: asyncio.Future[Any]) -> None:
    # An answer (or error) that arrives after the waiter gave up must not be logged as
    # "exception never retrieved".
    if not fut.cancelled():
        fut.exception()


__all__ = ["ask_client", "notify", "wait_to_reask"]
