"""A server's tools changing during a run (§15): the run keeps the tools listed at its
start — the request prefix stays stable (§3 rule 7) — and a ``tools/list_changed`` applies
from the next run. When the server said its tools changed since they were listed, the next
call to it lists them again, once however many notifications came, only to compare: the
user is told once what changed, and a call to a tool the server withdrew is a failed
observation saying so (it is neither asked about nor sent)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.escape import printable
from harness.mcp.client import Connection, State

if TYPE_CHECKING:
    from mcp.types import Tool

_KEEPS = "this run keeps the tools it started with"
NEXT_RUN = "the new list applies from the next run"


def prints(listed: Iterable[Tool | Any]) -> dict[str, str]:
    """Each tool's name and what the model would see of it (description, schema)."""
    return {
        str(t.name): json.dumps(
            [t.description or "", getattr(t, "input_schema", None)], sort_keys=True, default=str
        )
        for t in listed
    }


@dataclass
class Drift:
    """One server's tools as listed at the run's start, against what it lists since."""

    connection: Connection
    frozen: dict[str, str]
    checked: int = 0  # the connection's notifications compared so far
    now: dict[str, str] | None = None  # its tools when listed again (None: not since)
    error: str = ""  # why listing them again failed
    told: bool = False

    @classmethod
    def of(cls, connection: Connection, listed: Iterable[Tool | Any]) -> Drift:
        return cls(connection, prints(listed), connection.listed_at)

    async def check(self) -> None:
        """If the server said its tools changed since the last look, list them again."""
        notified = self.connection.notified
        if notified <= self.checked or self.connection.state is not State.RUNNING:
            return
        if not self.connection.alive():
            return  # the next call restarts it; that call's check compares
        self.checked = notified
        try:
            self.now, self.error = prints(await self.connection.list_tools()), ""
        except Exception as exc:  # the old tools stay; the user hears why once
            self.error = (str(exc).strip() or type(exc).__name__).splitlines()[0][:300]

    def withdrawn(self, tool: str) -> bool:
        """Whether the server listed ``tool`` at the start and withdrew it since."""
        return self.now is not None and tool in self.frozen and tool not in self.now

    def changes(self) -> list[str]:
        """What changed, in words: ``added X``, ``withdrew Y``, ``changed Z``."""
        now = self.frozen if self.now is None else self.now
        added = sorted(now.keys() - self.frozen.keys())
        gone = sorted(self.frozen.keys() - now.keys())
        changed = sorted(t for t in now.keys() & self.frozen.keys() if now[t] != self.frozen[t])
        said = [("added", added), ("withdrew", gone), ("changed", changed)]
        return [f"{verb} {', '.join(map(printable, names))}" for verb, names in said if names]

    def notice(self) -> str:
        """The user's line, once per run: empty when nothing changed or it was told."""
        changes = self.changes()
        if self.told or not (changes or self.error):
            return ""
        self.told = True
        name = printable(self.connection.config.name)
        if not changes:
            return (
                f"MCP server `{name}` said its tools changed, but listing them again failed "
                f"({printable(self.error)}); {_KEEPS}, any new list applies from the next run"
            )
        return (
            f"MCP server `{name}` changed its tools during this run ({'; '.join(changes)}); "
            f"{_KEEPS}, {NEXT_RUN}"
        )

    def withdrawn_text(self, tool: str) -> str:
        """What a call to a withdrawn tool observes."""
        shown = printable(tool)
        return (
            f"the server withdrew `{shown}` during this run (its tools changed); {_KEEPS} — "
            f"{NEXT_RUN}, so `{shown}` cannot be called in this run"
        )


__all__ = ["NEXT_RUN", "Drift", "prints"]
