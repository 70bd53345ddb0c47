"""``harness.run.events``: the §11 events of a run (or of every run of a conversation) read
back from the store — what a client that did not watch the run live draws (§7, §11). The
live ones go out as ``harness/runEvent`` (``server.run_manager``); these are the same, the
words of a step in one ``text`` (``harness.events``).

``after`` (a ``seq``) goes with ``runId``: seq counts per run. An unknown run is NotFound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.events import stored_events
from server.commands import Command
from server.errors import InvalidParams, NotFound
from server.params import RunEventsParams

if TYPE_CHECKING:
    from server.host import CommandHost


def run_events(host: CommandHost, params: RunEventsParams) -> list[dict[str, Any]]:
    if (params.run_id is None) == (params.conversation_id is None):
        raise InvalidParams("give either `runId` or `conversationId`")
    if params.after is not None and params.run_id is None:
        raise InvalidParams("`after` goes with `runId` (seq counts per run)")
    store = host.store()
    first = params.run_id if params.run_id is not None else params.conversation_id
    assert first is not None
    if store.get_run(first) is None:
        what = "run" if params.run_id is not None else "conversation"
        raise NotFound(f"no {what} {first} in the store {store.path}")
    # A conversation is named by its first run (§11); its runs, in order.
    run_ids = [first]
    return stored_events(store, run_ids, params.after)


COMMANDS: list[Command[Any]] = [Command("harness.run.events", RunEventsParams, run_events)]

__all__ = ["COMMANDS"]
