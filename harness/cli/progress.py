"""Live progress of ``harness run`` on stderr: the workspace and budget at the start, one
line per call ending in how it went, the model's words, each step's budget, retries and
warnings; on a terminal a spinner saying what is happening (the model, a command, the
verification, a retry and its count).

Colour and the spinner only on a terminal (rich: never with ``NO_COLOR``). On a terminal a
line is cut to its width (``…``); piped, a line is never broken. Every text the model or a
command chose is escaped before it is printed (§6.7).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.status import Status
from rich.text import Text

from harness.cli.summary import RunTally
from harness.cli.table import cut
from harness.escape import printable
from harness.marks import Mark, call_mark, verify_mark
from harness.report import RunInfo, RunObserver, RunResult, StepSummary
from harness.toolbox import label
from harness.types import Attempt, Reply, ToolCall, ToolResult

Part = tuple[str, str]  # (text, style)


class TerminalObserver(RunObserver):
    """Progress lines on ``console`` (stderr); what the run met is kept in ``tally``."""

    def __init__(self, console: Console, *, workspace: str, model: str = "") -> None:
        self.console = console
        self.workspace = workspace  # "workspace /x (the git root of the current directory)"
        self.model = model  # "openai gpt-4.1"
        self.tally = RunTally()
        self._status: Status | None = None

    # -- lines -------------------------------------------------------------------------

    def _line(self, parts: Sequence[Part], *, cuttable: int | None = None) -> None:
        """One line from parts; on a terminal the part ``cuttable`` (else the last) is cut
        so the line fits. Every part is escaped."""
        texts = [(printable(t), s) for t, s in parts]
        if self.console.is_terminal:
            width = self.console.width - 1
            over = sum(len(t) for t, _ in texts) - width
            if over > 0:
                i = len(texts) - 1 if cuttable is None else cuttable
                t, s = texts[i]
                texts[i] = (cut(t, max(1, len(t) - over)), s)
        line = Text()
        for t, s in texts:
            line.append(t, style=s or None)
        self.console.print(line, soft_wrap=True)

    def _spin(self, text: str) -> None:
        """The spinner's label (a terminal only); started on first use."""
        if not self.console.is_terminal:
            return
        label = cut(printable(text), max(10, self.console.width - 4))
        if self._status is None:
            self._status = self.console.status(label)
            self._status.start()
        else:
            self._status.update(label)

    def pause(self) -> None:
        """Stop the spinner (before a question is asked on the terminal)."""
        if self._status is not None:
            self._status.stop()
            self._status = None

    @staticmethod
    def _where(run: RunInfo, step: int) -> str:
        return f"step {step}/{run.max_steps} · "

    # -- hooks -------------------------------------------------------------------------

    def run_started(self, run: RunInfo) -> None:
        self._line([(f"harness · {self.workspace}", "bold")])
        model = f" · {self.model}" if self.model else ""
        self._line(
            [(f"run {run.run_id} · budget {run.token_budget:,} tokens · {run.max_steps} "
              f"steps{model}", "dim")]
        )  # fmt: skip

    def step_started(self, run: RunInfo, step: int) -> None:
        self._spin(self._where(run, step) + "waiting for the model…")

    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        said = " ".join(reply.content.split())
        if not reply.tool_calls:  # its words, if any, are shown at the end
            self._line([(self._where(run, step), ""), ("stopped calling tools", "")])
        elif said:
            self._line([(self._where(run, step), ""), (f"said: {said}", "italic")])

    def attempt_made(self, run: RunInfo, step: int, attempt: Attempt) -> None:
        if attempt.failure is None:
            return
        self.tally.attempts_failed += 1
        where = self._where(run, step)
        error = " ".join((attempt.error or attempt.failure).split())
        if attempt.retry_in_s is not None:
            then = f" (retry {attempt.attempt + 1} of {attempt.max_attempts})"
        else:
            tries = f"{attempt.attempt} attempt{'s' if attempt.attempt != 1 else ''}"
            then = f" (giving up after {tries})"
        self._line(
            [(where, ""), ("model call failed: ", "yellow"), (error, ""), (then, "")], cuttable=2
        )
        if attempt.retry_in_s is not None:
            cause = f"HTTP {attempt.status}" if attempt.status else attempt.failure
            self._spin(
                f"{where}retry {attempt.attempt + 1} of {attempt.max_attempts} in "
                f"{attempt.retry_in_s:.1f} s after {cause}"
            )

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        self._spin(f"{self._where(run, step)}{label}…")

    def tool_finished(self, run: RunInfo, step: int, call: ToolCall, result: ToolResult) -> None:
        mark = call_mark(result)
        self.tally.called(label(call), mark)
        self._mark_line(run, step, label(call), mark)

    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        self._spin(f"{self._where(run, step)}verifying: {command}")

    def verification_finished(self, run: RunInfo, step: int, result: ToolResult) -> None:
        mark = verify_mark(result)
        self.tally.verified(mark)
        self._mark_line(run, step, f"verify {result.target}", mark)

    def _mark_line(self, run: RunInfo, step: int, what: str, mark: Mark) -> None:
        self._line(
            [(self._where(run, step), ""), (what, ""), (" ", ""), (mark.text, mark.style)],
            cuttable=1,
        )

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        self.tally.stepped(summary)
        parts = [
            f"spent {summary.spent_tokens:,} of {summary.token_budget:,}",
            f"request ~{summary.request_tokens:,} of {summary.context_ceiling:,}",
        ]
        if summary.reported_prompt_tokens is not None:
            parts.append(f"reported {summary.reported_prompt_tokens:,}")
        if summary.cached_prompt_tokens is not None:
            parts.append(f"cached {summary.cached_prompt_tokens:,}")
        counts = summary.counts
        parts.append(f"carried {counts.carried}, stubbed {counts.stubbed}, re-read {counts.reread}")
        self._line([("  " + self._fit(parts), "dim")])

    def _fit(self, parts: list[str]) -> str:
        """The parts joined with `` · ``; on a terminal, the trailing ones that do not fit
        are left out whole (a number is never cut)."""
        if not self.console.is_terminal:
            return " · ".join(parts)
        width = self.console.width - 3
        kept = [parts[0]]
        for part in parts[1:]:
            if len(" · ".join([*kept, part])) > width:
                break
            kept.append(part)
        return " · ".join(kept)

    def user_warning(self, run: RunInfo, message: str) -> None:
        self._line([("warning: ", "yellow"), (message, "")])

    def run_finished(self, run: RunInfo, result: RunResult) -> None:
        self.pause()


__all__ = ["TerminalObserver"]
