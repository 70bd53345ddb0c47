"""``harness.run`` and ``harness.cancel``: start a run in the background, stop one (§7).
The run manager (``server.lsp.run_manager``) does the work."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.lsp.commands import Command
from server.lsp.params import RunIdParams, RunParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


async def run(host: CommandHost, params: RunParams) -> dict[str, Any]:
    """``{runId}`` as soon as the run exists; it continues in the background."""
    return await host.runs.start(params)


def cancel(host: CommandHost, params: RunIdParams) -> dict[str, Any]:
    """``{cancelled: false}`` when the run is not in progress (finished, or unknown)."""
    return {"cancelled": host.runs.cancel(params.run_id)}


COMMANDS: list[Command[Any]] = [
    Command("harness.run", RunParams, run),
    Command("harness.cancel", RunIdParams, cancel),
]

__all__ = ["COMMANDS"]
