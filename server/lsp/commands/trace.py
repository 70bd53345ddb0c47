"""``harness.trace.runs|run|step``: what runs did, read back from the store (§5, §8.1).

The results are exactly what ``harness trace runs|show|step --json`` prints for the same
store. An unknown run or step is a NotFound error (the CLI's exit 1). ``harness.trace.runs``
lists the runs of the client's workspace folders (§11 "Scope"): ``workspaceFolder`` names
another folder, ``"*"`` lists every run in the store. ``harness.trace.run|step`` of a run
outside the client's folders is refused (Conflict) unless ``workspaceFolder`` names its
folder (issue 30: reads are scoped like writes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.lsp.commands.table import handles
from server.lsp.errors import NotFound
from server.lsp.folders import check_read_scope, listed_folders
from server.lsp.params import TraceRunParams, TraceRunsParams, TraceStepParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


@handles("harness.trace.runs")
def trace_runs(host: CommandHost, params: TraceRunsParams) -> list[dict[str, Any]]:
    folders = listed_folders(host.folder_roots(), params.workspace_folder)
    store = host.store()
    if folders is None:
        rows = store.list_runs(limit=params.limit)
    else:
        found = {
            row.run_id: row
            for folder in folders
            for row in store.list_runs(limit=params.limit, workspace=str(folder))
        }
        rows = [found[run_id] for run_id in sorted(found, reverse=True)[: params.limit]]
    return [row.to_json() for row in rows]


def _in_scope(host: CommandHost, params: TraceRunParams) -> None:
    """The run is one of the client's folders', or ``workspaceFolder`` names its folder."""
    store = host.store()
    row = store.get_run(params.run_id)
    if row is None:
        raise NotFound(f"no run {params.run_id} in the store {store.path}")
    check_read_scope([(row.run_id, row.workspace)], host.folder_roots(), params.workspace_folder)


@handles("harness.trace.run")
def trace_run(host: CommandHost, params: TraceRunParams) -> dict[str, Any]:
    _in_scope(host, params)
    store = host.store()
    trace = store.run_trace(params.run_id)
    if trace is None:
        raise NotFound(f"no run {params.run_id} in the store {store.path}")
    return trace.to_json()


@handles("harness.trace.step")
def trace_step(host: CommandHost, params: TraceStepParams) -> dict[str, Any]:
    _in_scope(host, params)
    store = host.store()
    detail = store.step_detail(params.run_id, params.step)
    if detail is None:
        raise NotFound(f"no step {params.step} in run {params.run_id} (store {store.path})")
    return detail.to_json()


__all__: list[str] = []
