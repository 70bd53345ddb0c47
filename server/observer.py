"""What a run tells the client while it works (§7): progress reports per step and tool,
``harness/budget`` after every step, ``harness/didWrite`` after every agent write, a
warning when the agent was kept from a file with unsaved changes, and at the end the
progress end plus ``harness/runFinished``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from harness.report import RunObserver, RunResult, StepSummary
from harness.types import ToolCall

if TYPE_CHECKING:
    from harness.loop import Run
    from server.app import HarnessServer
    from server.runs import RunManager

log = logging.getLogger(__name__)

BUDGET = "harness/budget"
RUN_FINISHED = "harness/runFinished"
DID_WRITE = "harness/didWrite"
MAX_LABEL_CHARS = 120


class LspObserver(RunObserver):
    def __init__(self, ls: HarnessServer, manager: RunManager) -> None:
        self.ls = ls
        self.manager = manager

    def _report(self, run: Run, step: int, label: str | None = None) -> None:
        active = self.manager.active.get(run.run_id)
        if active is None:
            return
        max_steps = run.contract.max_steps
        message = f"step {step}/{max_steps}"
        if label:
            message += f" · {one_line(label)}"
        active.progress.report(message, min(100, (step - 1) * 100 // max_steps))

    def step_started(self, run: Run, step: int) -> None:
        self._report(run, step)

    def tool_started(self, run: Run, step: int, call: ToolCall, label: str) -> None:
        self._report(run, step, label)

    def step_finished(self, run: Run, summary: StepSummary) -> None:
        budget = summary.to_json()
        self.manager.last_budget = budget
        self.ls.notify(BUDGET, budget)

    def file_written(self, run: Run, path: Path) -> None:
        self.ls.notify(DID_WRITE, {"uri": path.as_uri()})

    def user_warning(self, run: Run, message: str) -> None:
        log.warning("run %d: %s", run.run_id, message)
        self.ls.show(f"harness: {message}", types.MessageType.Warning)

    def run_finished(self, run: Run, result: RunResult) -> None:
        active = self.manager.active.get(run.run_id)
        outcome = result.outcome.value
        summary = f"{outcome} · {result.steps} steps · {result.spent_tokens:,} tokens"
        if active is not None:
            self.manager.release(active)
            active.progress.end(summary)
        log.info("run %d %s%s", run.run_id, summary, f" ({result.error})" if result.error else "")
        if result.error:
            self.ls.show(
                f"harness: run {run.run_id} ended {outcome}: {result.error}",
                types.MessageType.Error,
            )
        self.ls.notify(RUN_FINISHED, result.to_json())


def one_line(text: str) -> str:
    """A label for a progress bar: one line, at most ``MAX_LABEL_CHARS``."""
    line = " ".join(text.split())
    return line if len(line) <= MAX_LABEL_CHARS else line[: MAX_LABEL_CHARS - 1] + "…"


__all__ = ["BUDGET", "DID_WRITE", "RUN_FINISHED", "LspObserver", "one_line"]
