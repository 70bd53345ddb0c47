"""The settings read from the store commands' worker threads (issue 30's OFF_LOOP) while
new settings are pending: every reader gets them, none sees them taken but not yet applied
(seen in code-server: ``harness.memory.list failed unexpectedly: AssertionError`` right
after the server restarted with its settings)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from server.lsp.app import HarnessServer

READERS = 8


def test_readers_in_threads_all_get_the_pending_settings() -> None:
    for _ in range(20):
        server = HarnessServer()
        server.set_settings({"maxSteps": 7, "tokenBudget": 12345}, "test")
        start = threading.Barrier(READERS)

        def read(_: int, server: HarnessServer = server, start: threading.Barrier = start) -> int:
            start.wait()
            return server.settings.max_steps

        with ThreadPoolExecutor(READERS) as pool:
            assert list(pool.map(read, range(READERS))) == [7] * READERS
