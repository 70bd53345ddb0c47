"""Serving one client over stdin/stdout, from the first byte to the exit code.

Frames are cut by ``server.lsp.wire.framing`` and checked by ``server.lsp.wire.protocol``;
this module is the loop around them and the way out. The server leaves when the client
sends ``exit`` (code 0 after ``shutdown``, else 1) or closes stdin (code 0): it stops what is
running — runs are cancelled at their next safe point and recorded, watchers stopped, stores
closed — within ``STOP_DEADLINE_S``, and the process then ends with ``os._exit``
(``leave``). That is deliberate: a normal interpreter exit joins every worker thread, and a
thread blocked in a read (a pipe no one writes, a client that keeps stdin open) would keep
the process alive for good (issue 11, seen 3: "the server did not exit on `exit`").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO, NoReturn

from pygls.io_ import StdoutWriter

from server.lsp.wire.framing import BadFrame, FrameParser, StdinPump
from server.lsp.wire.protocol import HarnessProtocol

log = logging.getLogger(__name__)

STOP_DEADLINE_S = 10.0
EOF_CODE = 0  # the client went away without exit: not the server's failure


def run(
    protocol: HarnessProtocol,
    stop: Callable[[], Awaitable[None]],
    stdin: BinaryIO,
    stdout: BinaryIO,
) -> int:
    """Serve until ``exit`` or the end of stdin; the exit code. ``stop`` is awaited (within
    ``STOP_DEADLINE_S``) before it returns. Never waits for threads."""
    protocol.set_writer(StdoutWriter(stdout))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(_serve(protocol, stop, stdin))
    finally:
        with contextlib.suppress(Exception):
            loop.close()  # does not join the executor's threads


async def _serve(
    protocol: HarnessProtocol, stop: Callable[[], Awaitable[None]], stdin: BinaryIO
) -> int:
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[int] = loop.create_future()
    protocol.exited = exited
    pump = StdinPump(stdin, loop)
    pump.start()
    reading = asyncio.create_task(_read(pump, protocol), name="harness-lsp reader")
    waiting: set[asyncio.Future[Any]] = {reading, exited}
    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    code = exited.result() if exited.done() else EOF_CODE
    reading.cancel()
    try:
        await asyncio.wait_for(stop(), STOP_DEADLINE_S)
    except TimeoutError:
        log.warning("stopping took over %.0f s: leaving anyway", STOP_DEADLINE_S)
    except Exception:
        log.exception("stopping the server failed")
    return code


async def _read(pump: StdinPump, protocol: HarnessProtocol) -> None:
    parser = FrameParser()
    while (chunk := await pump.queue.get()) is not None:
        for item in parser.feed(chunk):
            try:
                if isinstance(item, BadFrame):
                    protocol.bad_frame(item.reason)
                else:
                    protocol.receive_body(item)
            except Exception:  # one message must never end the connection
                log.exception("a message from the client could not be handled")
        await asyncio.sleep(0)  # a flood of frames never starves the handlers it started
    log.info("the client closed the connection")


def leave(code: int) -> NoReturn:
    """End the process now: logs and stdout flushed, no thread joined."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


__all__ = ["STOP_DEADLINE_S", "leave", "run"]
