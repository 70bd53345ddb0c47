"""``harness.run.events``: the §11 events of a run (or of every run of a conversation) read
back from the store — what a client that did not watch the run live draws (§7, §11). The
live ones go out as ``harness/runEvent`` (``server.lsp.run_manager``); these are the same, the
words of a step in one ``text`` (``harness.events``).

``after`` (a ``seq``) goes with ``runId``: seq counts per run. An unknown run is NotFound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.events import stored_events
from harness.store.records import RunRow
from server.lsp.commands import Command
from server.lsp.errors import InvalidParams, NotFound
from server.lsp.params import RunEventsParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


def run_events(host: CommandHost, params: RunEventsParams) -> list[dict[str, Any]]:
    if (params.run_id is None) == (params.conversation_id is None):
        raise InvalidParams("give either `runId` or `conversationId`")
    if params.after is not None and params.run_id is None:
        raise InvalidParams("`after` goes with `runId` (seq counts per run)")
    store = host.store()
    if params.run_id is not None:
        row = store.get_run(params.run_id)
        if row is None:
            raise NotFound(f"no run {params.run_id} in the store {store.path}")
        return _marked(stored_events(store, [params.run_id], params.after), {row.run_id: row})
    assert params.conversation_id is not None
    runs = store.conversation_runs(params.conversation_id)  # its turns, in order
    if not runs:
        raise NotFound(f"no conversation {params.conversation_id} in the store {store.path}")
    return _marked(stored_events(store, [run.run_id for run in runs]), {r.run_id: r for r in runs})


def _marked(events: list[dict[str, Any]], runs: dict[int, RunRow]) -> list[dict[str, Any]]:
    """Each event of a run a checkpoint restore rewound says ``rewound: true`` (issue 33)."""
    for event in events:
        row = runs.get(event["runId"])
        if row is not None and row.rewound:
            event["rewound"] = True
    return events


COMMANDS: list[Command[Any]] = [Command("harness.run.events", RunEventsParams, run_events)]

__all__ = ["COMMANDS"]
