"""Watching a workspace for changes made outside the agent (§6.4): the editor's save, a
formatter, git, the user's shell. Changed paths go to a callback — ``Run.notify_changed``
— which decides by content hash whether anything the model saw became stale.

Low-latency watchfiles settings (debounce 200 ms, step 20 ms: ~30 ms from write to
callback, measured in docs/MEASUREMENTS.md). Nothing is global: the filter and the stop
event belong to one ``Watcher``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from watchfiles import Change, DefaultFilter, awatch

from harness.workspace import Workspace

log = logging.getLogger(__name__)

DEBOUNCE_MS = 200
STEP_MS = 20
READY_TIMEOUT_MS = 200


class WorkspaceFilter(DefaultFilter):
    """DefaultFilter (.git, node_modules, .venv, __pycache__, editor swap files) plus the
    workspace's ignore rules and the store's own files."""

    def __init__(self, workspace: Workspace, ignore: Iterable[Path] = ()) -> None:
        super().__init__()
        self.workspace = workspace
        self.ignore = tuple(str(p.resolve()) for p in ignore)

    def __call__(self, change: Change, path: str) -> bool:
        if not super().__call__(change, path):
            return False
        if self.ignore and path.startswith(self.ignore):  # the store, its -wal and -shm
            return False
        try:
            rel = self.workspace.relative(Path(path))
        except ValueError:
            return False
        # A deleted directory cannot be stat'ed: try both forms.
        return not (self.workspace.is_ignored(rel, False) or self.workspace.is_ignored(rel, True))


class Watcher:
    """Runs ``awatch`` in a task; ``start`` returns once the watch is live."""

    def __init__(
        self,
        root: Path,
        on_change: Callable[[list[Path]], Any],
        *,
        ignore: Iterable[Path] = (),
        debounce_ms: int = DEBOUNCE_MS,
        step_ms: int = STEP_MS,
    ) -> None:
        self.workspace = Workspace(root)
        self.on_change = on_change
        self.filter = WorkspaceFilter(self.workspace, ignore)
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self, timeout_s: float = 5.0) -> None:
        self._task = asyncio.create_task(self._watch(), name=f"watch {self.workspace.root}")
        self._task.add_done_callback(_log_failure)
        ready = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait(
            {ready, self._task}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
        )
        ready.cancel()

    async def _watch(self) -> None:
        async for changes in awatch(
            self.workspace.root,
            watch_filter=self.filter,
            debounce=self.debounce_ms,
            step=self.step_ms,
            rust_timeout=READY_TIMEOUT_MS,
            yield_on_timeout=True,
            stop_event=self._stop,
        ):
            self._ready.set()  # the first (empty) yield means the watch is established
            if changes:
                paths = sorted({Path(p) for _, p in changes})
                try:
                    self.on_change(paths)
                except Exception:  # a callback bug must not stop the watch
                    log.exception("watch callback failed for %s", paths)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=2.0)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
            except Exception:  # already said once, by _log_failure
                log.debug("watcher ended with an error", exc_info=True)
            self._task = None

    @property
    def ready(self) -> bool:
        return self._ready.is_set()


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("workspace watcher stopped: %s", task.exception())
