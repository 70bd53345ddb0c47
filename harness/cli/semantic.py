"""The command line's semantic back end (§14): the language servers of the user config,
started by ``langservers`` on the first semantic call about a file one of them handles
(pygls and lsprotocol are imported only then, so a run that never asks, or writes only
files no server reads — ``x.txt`` — pays nothing), shut down when the run ends."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.semantic import Answer, Diagnostic, Query, SemanticPort
from harness.semantic.config import SemanticConfig, load_semantic


class LazyHeadless:
    """A ``SemanticPort`` that starts the headless back end when first asked."""

    def __init__(
        self, root: Path, config: SemanticConfig, environ: Mapping[str, str] | None = None
    ) -> None:
        self.root = root
        self.config = config
        self.environ = environ
        self._port: SemanticPort | None = None

    def _backend(self) -> SemanticPort:
        if self._port is None:
            from langservers import HeadlessSemantics

            self._port = HeadlessSemantics(self.root, self.config, self.environ)
        return self._port

    async def answer(self, query: Query) -> Answer:
        self.config.server_of(query.path)  # no server for it: say so without starting any
        return await self._backend().answer(query)

    async def diagnostics(self, path: str, text: str, wait_ms: int) -> tuple[Diagnostic, ...]:
        if self.config.server_for(path) is None:
            return ()
        return await self._backend().diagnostics(path, text, wait_ms)

    def after_edit_wait_ms(self) -> int | None:
        return self.config.wait_ms if self.config.after_edit == "turn" else None

    def servers(self) -> tuple[str, ...]:
        return self._port.servers() if self._port is not None else ()

    async def close(self) -> None:
        if self._port is not None:
            await self._port.close()


def headless(
    root: Path, user_config: Path | None = None, environ: Mapping[str, str] | None = None
) -> LazyHeadless:
    """The run's port: the user's ``[languages.*]`` (jedi for Python by default)."""
    return LazyHeadless(root, load_semantic(user_config), environ)


__all__ = ["LazyHeadless", "headless"]
