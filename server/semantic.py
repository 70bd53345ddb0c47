"""The headless semantic back end for the fronts that serve many runs (§14): one
``HeadlessSemantics`` per workspace folder, made on the first run there (its servers start
on the first semantic call; pygls's client is imported only then), kept while the front
lives, all shut down by ``close``. A front whose client answers semantic queries itself
(§14's editor back end) passes ``editor``: it wraps each folder's headless port, which
stays the fallback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from harness.semantic import SemanticPort

if TYPE_CHECKING:
    from langservers import HeadlessSemantics


class SemanticPorts:
    """The language servers of each workspace a front runs in."""

    def __init__(self, user_config: Path | None = None) -> None:
        self.user_config = user_config
        self._ports: dict[Path, HeadlessSemantics] = {}
        # The client's own back end in front of the headless one (None: headless only).
        self.editor: Callable[[Path, HeadlessSemantics], SemanticPort] | None = None

    def port(self, root: Path) -> SemanticPort:
        """The port of ``root`` (the user config read when it is first made)."""
        from langservers import HeadlessSemantics  # pygls's client: only once asked

        key = root.resolve()
        if key not in self._ports:
            from harness.semantic.config import load_semantic  # pydantic: on first use

            self._ports[key] = HeadlessSemantics(key, load_semantic(self.user_config))
        headless = self._ports[key]
        return headless if self.editor is None else self.editor(key, headless)

    def servers(self) -> tuple[str, ...]:
        return tuple(s for port in self._ports.values() for s in port.servers())

    async def close(self) -> None:
        ports, self._ports = list(self._ports.values()), {}
        for port in ports:
            await port.close()


__all__ = ["SemanticPorts"]
