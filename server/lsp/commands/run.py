"""``harness.run`` and ``harness.cancel``: start a run in the background, stop one (§7).
The run manager (``server.lsp.run_manager``) does the work."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.lsp.commands.table import handles
from server.lsp.errors import Conflict, InvalidParams
from server.lsp.params import RunIdParams, RunParams, SteerParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


@handles("harness.run")
async def run(host: CommandHost, params: RunParams) -> dict[str, Any]:
    """``{runId}`` as soon as the run exists; it continues in the background."""
    return await host.runs.start(params)


@handles("harness.cancel")
def cancel(host: CommandHost, params: RunIdParams) -> dict[str, Any]:
    """``{cancelled: false}`` when the run is not in progress (finished, or unknown)."""
    return {"cancelled": host.runs.cancel(params.run_id)}


@handles("harness.run.steer")
def steer(host: CommandHost, params: SteerParams) -> dict[str, Any]:
    """``{queued: true}``: the words go to the model after the current step's results."""
    text = params.text.strip()
    if not text:
        raise InvalidParams("`text` is empty", field="text")
    if not host.runs.steer(params.run_id, text):
        raise Conflict(
            f"run {params.run_id} is not in progress; follow it up instead "
            "(harness.run with its conversationId)",
            runId=params.run_id,
        )
    return {"runId": params.run_id, "queued": True}


__all__: list[str] = []
