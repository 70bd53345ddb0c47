"""One ``harness.workspace.watch.Watcher`` per workspace folder (§6.4), started on ``initialized``,
stopped on ``shutdown``; folders added or removed later start or stop theirs.

Folders are watched concurrently (each takes a moment to become live). Changed paths go to
``on_change(root, paths)`` — the run manager, which feeds every active
run of that folder (``Run.notify_changed`` decides by content hash whether anything the
model saw became stale). The store's files are ignored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.workspace.watch import Watcher

log = logging.getLogger(__name__)

OnChange = Callable[[Path, list[Path]], None]


class FolderWatchers:
    def __init__(self, on_change: OnChange) -> None:
        self.on_change = on_change
        self._watchers: dict[Path, Watcher] = {}

    @property
    def roots(self) -> list[Path]:
        return list(self._watchers)

    def ready(self, root: Path) -> bool:
        watcher = self._watchers.get(root)
        return watcher is not None and watcher.ready

    async def start(self, roots: Iterable[Path], ignore: Iterable[Path] = ()) -> None:
        from harness.workspace.watch import Watcher

        ignored = list(ignore)
        new: dict[Path, Watcher] = {}
        for root in roots:
            if root in self._watchers or root in new:
                continue
            try:
                new[root] = Watcher(root, self._callback(root), ignore=ignored)
            except Exception:  # the folder is gone, or not a directory
                log.exception("cannot watch %s; changes on disk will not be noticed", root)
        self._watchers.update(new)
        started = await asyncio.gather(*(w.start() for w in new.values()), return_exceptions=True)
        for root, outcome in zip(new, started, strict=True):
            if isinstance(outcome, BaseException):
                log.error(
                    "cannot watch %s (%s); changes on disk will not be noticed", root, outcome
                )
                self._watchers.pop(root, None)

    async def stop(self, root: Path) -> None:
        watcher = self._watchers.pop(root, None)
        if watcher is not None:
            await watcher.stop()

    async def stop_all(self) -> None:
        for root in list(self._watchers):
            await self.stop(root)

    def _callback(self, root: Path) -> Callable[[list[Path]], None]:
        def changed(paths: list[Path]) -> None:
            self.on_change(root, paths)

        return changed


__all__ = ["FolderWatchers"]
