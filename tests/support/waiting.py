"""Waiting for a condition an event loop's messages make true: re-checked each time the
reader ticks (or every 0.25 s), failing loudly at the deadline — never a silent return."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any


async def wait_until(predicate: Callable[[], Any], tick: asyncio.Event, within_s: float) -> Any:
    """``predicate()``'s first truthy value; ``TimeoutError`` after ``within_s`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not (value := predicate()):
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise TimeoutError("the server did not send what the test waited for")
        tick.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tick.wait(), min(remaining, 0.25))
    return value
