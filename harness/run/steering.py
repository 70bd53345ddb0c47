"""The user's words sent while a run goes on (issue 33, "steering"): queued, then each added
as the user's turn after the current step's tool results — so the request before is the
prefix of the request after and the provider's cache holds — and told as a ``user`` event."""

from __future__ import annotations

import threading

from harness.ledger import Ledger
from harness.report import RunInfo, RunObserver


class Steering:
    """A run's queue of the user's words (safe to ``put`` from any thread)."""

    def __init__(self) -> None:
        self._queued: list[str] = []
        self._lock = threading.Lock()

    def put(self, text: str) -> None:
        with self._lock:
            self._queued.append(text)

    @property
    def pending(self) -> bool:
        with self._lock:
            return bool(self._queued)

    def deliver(self, step: int, ledger: Ledger, observer: RunObserver, info: RunInfo) -> None:
        """Each queued text, in order, a user's turn after step ``step``'s results."""
        with self._lock:
            texts, self._queued = self._queued, []
        for text in texts:
            ledger.add_user(step, f"# The user, while you work\n{text}")
            observer.user_steered(info, step, text)


__all__ = ["Steering"]
