"""``harness.run.events``: the §11 events of a run (or of every run of a conversation) read
back from the store — what a client that did not watch the run live draws (§7, §11). The
live ones go out as ``harness/runEvent`` (``server.lsp.run_manager``); these are the same, the
words of a step in one ``text`` (``harness.run.events``).

``after`` (a ``seq``) goes with ``runId``: seq counts per run. With ``runId`` the answer is
one page, ``{"events", "next"}``, of ``limit`` events (``PAGE`` by default): ``next`` is the
``after`` of the next page, null at the end (issue 30: a long run's events are not one answer
of tens of MB, and the read is one indexed range). ``conversationId`` answers the whole list
(what the editors draw a conversation from). An unknown
run is NotFound; a run outside the client's folders is refused (Conflict) unless
``workspaceFolder`` names its folder (issue 30).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.run.events import stored_events
from harness.store.records import RunRow
from server.lsp.commands.table import handles
from server.lsp.errors import InvalidParams, NotFound
from server.lsp.folders import check_read_scope
from server.lsp.params import RunEventsParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


PAGE = 1_000
"""The events of one ``harness.run.events`` page when the client does not say."""


@handles("harness.run.events")
def run_events(host: CommandHost, params: RunEventsParams) -> list[dict[str, Any]] | dict[str, Any]:
    if (params.run_id is None) == (params.conversation_id is None):
        raise InvalidParams("give either `runId` or `conversationId`")
    for value, name in ((params.after, "after"), (params.limit, "limit")):
        if value is not None and params.run_id is None:
            raise InvalidParams(f"`{name}` goes with `runId` (seq counts per run)")
    store = host.store()
    roots, given = host.folder_roots(), params.workspace_folder
    if params.run_id is not None:
        row = store.get_run(params.run_id)
        if row is None:
            raise NotFound(f"no run {params.run_id} in the store {store.path}")
        check_read_scope([(row.run_id, row.workspace)], roots, given)
        limit = PAGE if params.limit is None else params.limit
        page = _page(store.run_events([params.run_id], params.after, limit + 1), limit)
        _marked(page["events"], {row.run_id: row})
        return page
    assert params.conversation_id is not None
    runs = store.conversation_runs(params.conversation_id)  # its turns, in order
    if not runs:
        raise NotFound(f"no conversation {params.conversation_id} in the store {store.path}")
    check_read_scope([(run.run_id, run.workspace) for run in runs], roots, given)
    return _marked(stored_events(store, [run.run_id for run in runs]), {r.run_id: r for r in runs})


def _marked(events: list[dict[str, Any]], runs: dict[int, RunRow]) -> list[dict[str, Any]]:
    """Each event of a run a checkpoint restore rewound says ``rewound: true`` (issue 33)."""
    for event in events:
        row = runs.get(event.get("runId", -1))
        if row is not None and row.rewound:
            event["rewound"] = True
    return events


def _page(events: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """One page: at most ``limit`` events, and ``next`` — the ``after`` of the next page, or
    None when this is the last (one more than ``limit`` was asked to tell)."""
    shown = events[:limit]
    more = len(events) > limit
    return {"events": shown, "next": shown[-1]["seq"] if more and shown else None}


__all__: list[str] = []
