"""The stores the server has open: one per path (or ``postgresql://`` URL), shared by runs
and commands.

The location is the ``storePath`` setting, else ``$HARNESS_STORE``, else the user data dir. A
store stays open while the server runs (a settings change can point to another one; the
old one stays open for any run still writing to it) and all are closed at shutdown.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.store import Store


class Stores:
    def __init__(self) -> None:
        self._open: dict[Path | str, Store] = {}

    def get(self, path: Path | str | None) -> Store:
        """The store at ``path`` (None: the default), opened on first use.

        Raises ``StoreError`` when it cannot be opened or migrated."""
        from harness.store import Store

        key = self.path_for(path)
        store = self._open.get(key)
        if store is None:
            store = Store(key)
            self._open[key] = store
        return store

    @staticmethod
    def path_for(path: Path | str | None) -> Path | str:
        """The store's file, absolute, or its ``postgresql://`` URL."""
        from harness.store import default_store_path

        found = path or default_store_path()
        return found.expanduser().absolute() if isinstance(found, Path) else found

    def close_all(self) -> None:
        for store in self._open.values():
            store.close()
        self._open.clear()


__all__ = ["Stores"]
