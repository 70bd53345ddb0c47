"""What a run tells the client while it works (§7): its §11 events (``RunStream``: each as
``harness/runEvent``, and each ``budget`` event's fields again as ``harness/budget``, the
one place that notification is made), progress reports per step and tool ("step 3/50 ·
12,345 tokens · read src/a.py"), ``harness/didWrite`` after every agent write, a warning
when the agent was kept from a file with unsaved changes — and, once the run manager has
released the folder, ``report_finished``: the progress end, an error message when the run
stopped on one, and ``harness/runFinished`` (the fields of the ``end`` event, §8.1).

``harness/budget`` and ``harness/runFinished`` repeat the stream for clients that do not
read it (both bundled clients do; a plain LSP client or a script may not): kept, and
documented in docs/server.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from harness.errors import FailureKind
from harness.report import RunInfo, RunObserver, RunResult, StepSummary
from harness.types import ToolCall
from server.protocol.messages import BUDGET, DID_WRITE, RUN_EVENT, RUN_FINISHED

if TYPE_CHECKING:
    from server.lsp.host import RunHost
    from server.lsp.progress import RunProgress

log = logging.getLogger(__name__)

MAX_LABEL_CHARS = 120
MAX_ANNOUNCED_CHARS = 2_000


class LspObserver(RunObserver):
    def __init__(
        self,
        host: RunHost,
        progress: RunProgress,
    ) -> None:
        self.host = host
        self.progress = progress
        self.spent = 0  # the run's tokens so far, as of the last step finished

    def _report(self, run: RunInfo, step: int, label: str | None = None) -> None:
        message = f"step {step}/{run.max_steps}"
        if self.spent:
            message += f" · {self.spent:,} tokens"
        if label:
            message += f" · {one_line(label)}"
        self.progress.report(message, min(100, (step - 1) * 100 // run.max_steps))

    def step_started(self, run: RunInfo, step: int) -> None:
        self._report(run, step)

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        self._report(run, step, label)

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        self.spent = summary.spent_tokens

    def file_written(self, run: RunInfo, path: Path) -> None:
        self.host.notify(DID_WRITE, {"uri": path.as_uri()})

    def user_warning(self, run: RunInfo, message: str) -> None:
        log.warning("run %d: %s", run.run_id, message)
        self.host.show(
            f"harness: {message}",
            types.MessageType.Warning,
            {"kind": "runWarning", "runId": run.run_id},
        )


ENVELOPE = ("conversationId", "seq", "kind")  # an event's own fields, beyond its body


class RunStream:
    """The run's §11 events out to the client, in order: each as ``harness/runEvent``; a
    ``budget`` event also as ``harness/budget`` (its fields, without the envelope), the last
    of them kept (``harness.status``'s ``lastBudget``) through ``on_budget``."""

    def __init__(self, host: RunHost, on_budget: Callable[[dict[str, Any]], None]) -> None:
        self.host = host
        self.on_budget = on_budget

    def __call__(self, event: dict[str, Any]) -> None:
        self.host.notify(RUN_EVENT, event)
        if event.get("kind") == "budget":
            fields = {k: v for k, v in event.items() if k not in ENVELOPE}
            self.on_budget(fields)
            self.host.notify(BUDGET, fields)


def report_finished(
    host: RunHost, progress: RunProgress, result: RunResult, *, announce: bool = False
) -> None:
    """The end of a run, as the client hears it; ``announce``: also in one
    ``window/showMessage`` (Info) with the model's last words, cut at
    ``MAX_ANNOUNCED_CHARS`` — a client without a conversation view sees the answer."""
    end = result.end
    outcome = end.outcome.value
    summary = f"{outcome} · {end.steps} steps · {end.spent_tokens:,} tokens"
    progress.end(summary)
    why = f" ({end.error})" if end.error else ""
    log.info("run %d %s%s", result.run_id, summary, why)
    if end.error:
        host.show(
            f"harness: run {result.run_id} ended {outcome}: {end.error}",
            types.MessageType.Error,
            run_ended_data(result.run_id, outcome, end.error),
        )
    if announce and not end.error:
        host.show(announcement(result), types.MessageType.Info)
    finished = result.to_json()  # the §11 `end` event's fields, and why it failed if it did
    host.notify(RUN_FINISHED, {**finished, "error": end.error} if end.error else finished)


# Provider failures a wrong base URL causes: their message says to check it.
BASE_URL_FAILURES = frozenset({FailureKind.CONNECTION, FailureKind.BAD_REQUEST})


def run_ended_data(run_id: int, outcome: str, error: str) -> dict[str, Any]:
    """The ``data`` of the "run N ended" message: the run, its outcome and error; for a
    provider failure (the error is ``"KIND: detail"``, ``harness.errors.ProviderError``)
    its ``failure`` kind and ``detail``, and the ``setting`` to check."""
    data: dict[str, Any] = {"kind": "runEnded", "runId": run_id, "outcome": outcome}
    data["error"] = error
    failure, sep, detail = error.partition(": ")
    if sep and failure in {kind.value for kind in FailureKind}:
        data |= {"failure": failure, "detail": detail}
        if FailureKind(failure) in BASE_URL_FAILURES:
            data["setting"] = "provider.baseUrl"
    return data


def announcement(result: RunResult) -> str:
    """``harness: run 3 finished · 2 steps: <the model's last words, on one line>``."""
    end = result.end
    steps = f"{end.steps} step" + ("" if end.steps == 1 else "s")
    said = " ".join((result.summary or "").split())
    if len(said) > MAX_ANNOUNCED_CHARS:
        said = said[: MAX_ANNOUNCED_CHARS - 1] + "…"
    words = f": {said}" if said else ""
    return f"harness: run {result.run_id} {end.outcome.value} · {steps}{words}"


def one_line(text: str) -> str:
    """A label for a progress bar: one line, at most ``MAX_LABEL_CHARS``."""
    line = " ".join(text.split())
    return line if len(line) <= MAX_LABEL_CHARS else line[: MAX_LABEL_CHARS - 1] + "…"


__all__ = [
    "BUDGET",
    "DID_WRITE",
    "RUN_EVENT",
    "RUN_FINISHED",
    "LspObserver",
    "RunStream",
    "announcement",
    "one_line",
    "report_finished",
    "run_ended_data",
]
