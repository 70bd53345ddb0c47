"""One ``harness.watch.Watcher`` per workspace folder (§6.4), started on ``initialized``,
stopped on ``shutdown``; folders added or removed later start or stop theirs.

Changed paths go to ``on_change(root, paths)`` — the run manager, which feeds every active
run of that folder (``Run.notify_changed`` decides by content hash whether anything the
model saw became stale). The store's files are ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.watch import Watcher

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
        from harness.watch import Watcher

        ignored = list(ignore)
        for root in roots:
            if root in self._watchers:
                continue
            watcher = Watcher(root, self._callback(root), ignore=ignored)
            self._watchers[root] = watcher
            try:
                await watcher.start()
            except Exception:
                log.exception("cannot watch %s; changes on disk will not be noticed", root)
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
