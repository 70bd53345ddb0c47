"""The runs in progress: ``harness.run`` (``server.lsp.commands.run``) starts one here and answers
``{runId}`` at once; ``harness.cancel`` and the progress UI's cancel button stop it at the
next safe point.

One run at a time per workspace folder. ``harness.run.session`` builds each run (contract,
provider, policy gate) and closes its provider when it ends; the server adds what only an
editor has: an approver that asks the client, a guard that knows the unsaved buffers, and
an observer that reports progress, budgets and writes. The manager owns its state — the
active runs and the last budget — keeps a strong reference to every task (a done-callback
logs failures), feeds each active run the changes seen on disk (watcher) or saved in the
editor (didSave), and reports each run's end after freeing its folder.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.lsp.errors import Conflict, InvalidParams
from server.lsp.observer import LspObserver, RunStream, one_line, report_finished
from server.lsp.progress import RunProgress
from server.semantic import SemanticPorts

if TYPE_CHECKING:
    from harness.contract import TaskContract
    from harness.run.conversation import Attachment
    from harness.run.session import Session
    from harness.semantic import SemanticPort
    from harness.telemetry.export import Telemetry
    from server.lsp.host import RunHost
    from server.lsp.params import RunParams
    from server.lsp.settings import Settings

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0


@dataclass
class ActiveRun:
    session: Session
    progress: RunProgress
    changes_seen: int = 0  # changes on disk that could invalidate what the model saw
    awaiting_approval: bool = False
    announce: bool = False  # its end is shown with window/showMessage too

    def set_waiting(self, waiting: bool) -> None:
        self.awaiting_approval = waiting

    def to_json(self) -> dict[str, Any]:
        run = self.session.run
        summary = run.last_summary
        return {
            "runId": run.run_id,
            "goal": run.contract.goal,
            "workspace": str(self.session.root),
            "step": run.step,
            "maxSteps": run.contract.max_steps,
            "spentTokens": run.spent,
            "tokenBudget": run.contract.token_budget,
            "lastBudget": summary.to_json() if summary is not None else None,
            "awaitingApproval": self.awaiting_approval,
            "changesSeen": self.changes_seen,
            "progressToken": self.progress.token if self.progress.active else None,
        }


class RunManager:
    """Implements ``server.lsp.host.Runs``."""

    def __init__(self, host: RunHost) -> None:
        self.host = host
        self._active: dict[int, ActiveRun] = {}
        self._last_budget: dict[str, Any] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._telemetry: Telemetry | None = None
        self._telemetry_read = False  # the configuration is read once, at the first run
        self.semantic = SemanticPorts()  # the headless language servers per folder (§14)

    # -- starting and stopping ---------------------------------------------------------

    async def start(self, params: RunParams, *, announce: bool = False) -> dict[str, Any]:
        from server.lsp.goal import mark_prompt, resolve_goal

        params = resolve_goal(self.host, params)
        root = self._root(params)
        busy = next((a for a in self._active.values() if a.session.root == root), None)
        if busy is not None:
            raise Conflict(
                f"run {busy.session.run_id} is already in progress in {root}; wait for it to "
                "finish or cancel it (harness.cancel)",
                runId=busy.session.run_id,
            )
        active = await self._open(params, root)
        active.announce = announce
        run_id = active.session.run_id
        mark_prompt(self.host, params, run_id)
        self._active[run_id] = active
        task = asyncio.create_task(self._drive(active), name=f"harness run {run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        log.info("run %d started in %s: %s", run_id, root, one_line(params.goal or ""))
        return {"runId": run_id, "conversationId": active.session.run.info.conversation_id}

    def _root(self, params: RunParams) -> Path:
        """The folder the run works in: named, the conversation's (a follow-up), or the
        first; a follow-up of a conversation outside the client's folders is refused."""
        if params.conversation_id is None or params.workspace_folder is not None:
            return self.host.folder(params.workspace_folder)
        from server.conversation import follow_up_root

        try:
            roots = list(self.host.folder_roots())
            return follow_up_root(self.host.store(), params.conversation_id, roots)
        except LookupError as exc:
            raise InvalidParams(f"`conversationId`: {exc.args[0]}") from None

    async def _open(self, params: RunParams, root: Path) -> ActiveRun:
        """The run (its row exists once this returns) with what only the editor has."""
        from harness.run.backend import Backend, RunRequest
        from harness.run.session import open_session
        from server.lsp.approvals import LspApprover
        from server.lsp.documents import EditorGuard
        from server.lsp.inline_approval import declares_inline
        from server.lsp.semantic import editor_front

        host = self.host
        settings = host.settings
        self.semantic.editor = editor_front(host.lsp)  # the client's own back end (§14)
        progress = RunProgress(host.lsp)
        approver = LspApprover(
            host.lsp.protocol,
            view_dir=host.store_path().parent / "approvals",
            inline=declares_inline(host.lsp.client_capabilities),
            dialogs=host.dialogs,
            tell=host.show,
        )
        backend = Backend(
            store=host.store,
            provider=settings.provider_config(os.environ),
            environ=os.environ,
            telemetry=await self._exporting(),
            prices=settings.model_prices,
            semantic=self.semantic.port,
        )
        front = RunRequest(
            approver,
            on_event=RunStream(host, self._budget_sent),
            guard=EditorGuard(host.documents, root),
            observer=LspObserver(host, progress),
            conversation_id=params.conversation_id,
            context=attachments(params),
            editor_policy=settings.policy,
            client_trusted=settings.trusted,
        )
        session = await open_session(contract_for(params, settings, root), backend, front)
        active = ActiveRun(session, progress)
        approver.waiting = active.set_waiting
        return active

    async def _drive(self, active: ActiveRun) -> None:
        session = active.session
        try:
            try:
                goal = one_line(session.run.contract.goal)
                await active.progress.begin("Harness", f"run {active.session.run_id}: {goal}")
            except asyncio.CancelledError:
                session.run.cancel()  # execute() records the run as cancelled, then we stop
                await session.execute()
                raise
            await session.execute()
        finally:
            # The folder is free before runFinished goes out, so a client may start the
            # next run as soon as it hears about the last one.
            self._active.pop(active.session.run_id, None)
            result = session.run.result
            if result is not None:
                report_finished(self.host, active.progress, result, announce=active.announce)
            else:
                active.progress.end("stopped")

    def _budget_sent(self, budget: dict[str, Any]) -> None:
        self._last_budget = budget

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("%s failed", task.get_name(), exc_info=exc)

    def cancel(self, run_id: int) -> bool:
        active = self._active.get(run_id)
        if active is None:
            return False
        log.info("run %d: cancel requested", run_id)
        active.session.run.cancel()
        return True

    def steer(self, run_id: int, text: str) -> bool:
        """Queue the user's words for run ``run_id``; False when it is not in progress."""
        active = self._active.get(run_id)
        if active is None:
            return False
        active.session.run.steering.put(text)
        return True

    def cancel_progress(self, token: str) -> None:
        for active in list(self._active.values()):
            if active.progress.token == token:
                self.cancel(active.session.run_id)

    async def stop_all(self, grace_s: float = STOP_TIMEOUT_S) -> None:
        for active in list(self._active.values()):
            active.session.run.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=grace_s)
        await self.semantic.close()  # shut the language servers down cleanly (§14)
        if self._telemetry is not None:  # the runs' last spans, flushed within a bound
            await asyncio.to_thread(self._telemetry.shutdown)

    async def _exporting(self) -> Telemetry | None:
        """The process's OpenTelemetry export (§12), started at the first run when the
        environment or the user config names an endpoint (off the event loop: it imports
        the SDK)."""
        if not self._telemetry_read:
            from harness.telemetry import start_telemetry

            self._telemetry_read = True
            self._telemetry = await asyncio.to_thread(start_telemetry, dict(os.environ))
        return self._telemetry

    def telemetry_status(self) -> dict[str, Any] | None:
        """What the export did so far (None: off, or no run yet)."""
        return self._telemetry.stats().to_json() if self._telemetry is not None else None

    # -- what commands read --------------------------------------------------------------

    def is_active(self, run_id: int) -> bool:
        return run_id in self._active

    def semantic_port(self, root: Path) -> SemanticPort | None:
        return self.semantic.port(root)

    def language_servers(self) -> list[str]:
        return list(self.semantic.servers())

    def status(self) -> list[dict[str, Any]]:
        return [active.to_json() for active in self._active.values()]

    @property
    def last_budget(self) -> dict[str, Any] | None:
        return self._last_budget

    # -- changes from outside ----------------------------------------------------------

    def files_changed(self, root: Path, paths: list[Path]) -> None:
        """The watcher of ``root`` saw ``paths`` change."""
        for active in list(self._active.values()):
            if active.session.root == root:
                active.changes_seen += active.session.run.notify_changed(paths, cause="disk")

    def paths_changed(self, paths: list[Path]) -> None:
        """Files changed through the editor (didSave) or a revert: every run they are in."""
        for active in list(self._active.values()):
            inside = [p for p in paths if p.is_relative_to(active.session.root)]
            if inside:
                active.changes_seen += active.session.run.notify_changed(inside, cause="disk")


def attachments(params: RunParams) -> list[Attachment]:
    """What the user attached (§11): ``file://`` URIs, each a file or a range of one."""
    from harness.run.conversation import Attachment
    from server.lsp.folders import uri_to_path

    found = []
    for item in params.context or ():
        path = uri_to_path(item.uri) if item.uri.startswith("file:") else None
        if path is None:
            raise InvalidParams(f"`context`: {item.uri!r} is not a file:// URI")
        found.append(Attachment(str(path), *item.lines()))
    return found


def contract_for(params: RunParams, settings: Settings, root: Path) -> TaskContract:
    """The run's contract: command arguments win over settings, settings over defaults."""
    from harness.errors import ConfigError
    from harness.run.session import build_contract

    goal = (params.goal or "").strip()
    if not goal:
        raise InvalidParams("`goal` is empty")
    if settings.refusals:
        problem = settings.refusals[0]
        raise InvalidParams(
            f"the setting {problem}; fix it in the editor's settings (harness.{problem.field}) "
            "— until then no run starts, so that none goes to the provider's hosted API instead",
            setting=problem.field,
            problem=problem.message,
            refusesRuns=True,
        )
    try:
        return build_contract(goal, root, settings.contract_overrides(), params.overrides())
    except ConfigError as exc:
        raise InvalidParams(str(exc)) from None


__all__ = ["ActiveRun", "RunManager", "attachments", "contract_for"]
