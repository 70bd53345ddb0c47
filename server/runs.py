"""Runs in the background: ``harness.run`` (``server.control``) starts one and answers
``{runId}`` at once; ``harness.cancel`` and the progress UI's cancel button stop it at the
next safe point.

One run at a time per workspace folder. Each run gets its own provider (closed when the
run ends), an approver that asks the client, a guard that knows the editor's unsaved
buffers, and an observer that reports progress, budgets, writes and the outcome. The
manager keeps a strong reference to every task (a done-callback logs failures) and feeds
each active run the changes seen on disk (watcher) or saved in the editor (didSave).
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol.types import MessageType

from harness.types import Outcome, Provider
from server.approvals import LspApprover
from server.documents import EditorGuard
from server.errors import Conflict, InvalidParams
from server.observer import RUN_FINISHED, LspObserver, one_line
from server.progress import RunProgress

if TYPE_CHECKING:
    from harness.contract import TaskContract
    from harness.loop import Run
    from server.app import HarnessServer
    from server.params import RunParams
    from server.settings import Settings

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0


@dataclass
class ActiveRun:
    run: Run
    root: Path
    provider: Provider
    progress: RunProgress
    changes_seen: int = 0  # changes on disk that could invalidate what the model saw
    awaiting_approval: bool = False

    def set_waiting(self, waiting: bool) -> None:
        self.awaiting_approval = waiting

    def to_json(self) -> dict[str, Any]:
        run = self.run
        summary = run.last_summary
        return {
            "runId": run.run_id,
            "goal": run.contract.goal,
            "workspace": str(self.root),
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
    def __init__(self, ls: HarnessServer) -> None:
        self.ls = ls
        self.active: dict[int, ActiveRun] = {}
        self.last_budget: dict[str, Any] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- starting and stopping ---------------------------------------------------------

    async def start(self, params: RunParams) -> dict[str, Any]:
        root = self.ls.folder(params.workspace_folder)
        busy = self.in_folder(root)
        if busy is not None:
            raise Conflict(
                f"run {busy.run.run_id} is already in progress in {root}; wait for it to "
                "finish or cancel it (harness.cancel)"
            )
        active = await self._new_run(params, root)
        run = active.run
        self.active[run.run_id] = active
        task = asyncio.create_task(self._drive(active), name=f"harness run {run.run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        log.info("run %d started in %s: %s", run.run_id, root, one_line(run.contract.goal))
        return {"runId": run.run_id}

    async def _new_run(self, params: RunParams, root: Path) -> ActiveRun:
        """The run (its row exists once this returns) with everything it talks to."""
        from harness.loop import Run
        from harness.policy import Policy
        from harness.provider import make_provider, resolve_api_key
        from harness.redact import register

        ls = self.ls
        settings = ls.settings
        contract = build_contract(params, settings, root)
        policy = Policy.load(root, editor=settings.policy, client_trusted=settings.trusted)
        config = settings.provider_config(os.environ)
        api_key = resolve_api_key(config, os.environ)
        register(api_key)
        store = ls.store()
        provider = make_provider(config, api_key)
        approver = LspApprover(ls.protocol, view_dir=ls.store_path().parent / "approvals")
        try:
            run = Run(
                contract,
                store=store,
                provider=provider,
                approver=approver,
                policy=policy,
                guard=EditorGuard(ls.documents, root),
                observer=LspObserver(ls, self),
            )
        except BaseException:
            await provider.aclose()
            raise
        active = ActiveRun(run, run.workspace.root, provider, RunProgress(ls))
        approver.waiting = active.set_waiting
        return active

    async def _drive(self, active: ActiveRun) -> None:
        run = active.run
        try:
            try:
                goal = one_line(run.contract.goal)
                await active.progress.begin("Harness", f"run {run.run_id}: {goal}")
            except asyncio.CancelledError:
                run.cancel()  # execute() below records the run as cancelled, then we stop
                await run.execute()
                raise
            await run.execute()
        except Exception as exc:
            self._crashed(active, exc)
            raise
        finally:
            self.release(active)
            active.progress.end("stopped")
            try:
                await active.provider.aclose()
            except Exception:
                log.exception("closing the provider of run %d failed", run.run_id)

    def _crashed(self, active: ActiveRun, exc: Exception) -> None:
        """The loop raised (a store failure, a bug): record the run as stopped and tell."""
        run = active.run
        if run.result is not None:
            return
        error = f"internal error: {type(exc).__name__}: {exc}"
        try:
            run.store.finish_run(
                run.run_id,
                outcome=Outcome.CANCELLED.value,
                steps=run.step,
                spent_tokens=run.spent,
                error=error,
            )
        except Exception:
            log.exception("could not record the end of run %d", run.run_id)
        self.release(active)
        active.progress.end(f"stopped: {error}")
        self.ls.show(f"harness: run {run.run_id} stopped: {error}", MessageType.Error)
        self.ls.notify(
            RUN_FINISHED,
            {
                "runId": run.run_id,
                "outcome": Outcome.CANCELLED.value,
                "steps": run.step,
                "spentTokens": run.spent,
            },
        )

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("%s failed", task.get_name(), exc_info=exc)

    def release(self, active: ActiveRun) -> None:
        """The folder is free again (before runFinished goes out, so a client may start
        the next run as soon as it hears about the last one)."""
        self.active.pop(active.run.run_id, None)

    def cancel(self, run_id: int) -> bool:
        active = self.active.get(run_id)
        if active is None:
            return False
        log.info("run %d: cancel requested", run_id)
        active.run.cancel()
        return True

    def cancel_progress(self, token: str) -> None:
        for active in list(self.active.values()):
            if active.progress.token == token:
                self.cancel(active.run.run_id)

    async def stop_all(self, grace_s: float = STOP_TIMEOUT_S) -> None:
        for active in list(self.active.values()):
            active.run.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=grace_s)

    def in_folder(self, root: Path) -> ActiveRun | None:
        return next((a for a in self.active.values() if a.root == root), None)

    # -- changes from outside ----------------------------------------------------------

    def files_changed(self, root: Path, paths: list[Path]) -> None:
        """The watcher of ``root`` saw ``paths`` change."""
        for active in list(self.active.values()):
            if active.root == root:
                active.changes_seen += active.run.notify_changed(paths, cause="disk")

    def paths_changed(self, paths: list[Path]) -> None:
        """Files changed through the editor (didSave) or a revert: every run they are in."""
        for active in list(self.active.values()):
            inside = [p for p in paths if p.is_relative_to(active.root)]
            if inside:
                active.changes_seen += active.run.notify_changed(inside, cause="disk")


def build_contract(params: RunParams, settings: Settings, root: Path) -> TaskContract:
    """The run's contract: command arguments win over settings, settings over defaults."""
    from pydantic import ValidationError

    from harness.contract import ContextBudget, TaskContract, Verification
    from server.params import RunParams, describe

    goal = params.goal.strip()
    if not goal:
        raise InvalidParams("`goal` is empty")
    given = params.context_budget
    configured = settings.context_budget
    default = ContextBudget()
    try:
        contract = TaskContract.workspace(
            goal, root, Verification.command(params.verify) if params.verify else None
        )
        token_budget = params.token_budget or settings.token_budget
        if token_budget is not None:
            contract = contract.with_token_budget(token_budget)
        max_steps = params.max_steps or settings.max_steps
        if max_steps is not None:
            contract = contract.with_max_steps(max_steps)
        budget = ContextBudget(
            max_tokens=_first(given and given.max_tokens, configured.max_tokens)
            or default.max_tokens,
            share=_first(given and given.share, configured.share) or default.share,
        )
        return contract.with_context_budget(budget)
    except ValidationError as exc:
        raise InvalidParams(describe(exc, RunParams)) from None


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


__all__ = ["ActiveRun", "RunManager", "build_contract"]
