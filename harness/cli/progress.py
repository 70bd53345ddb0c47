"""Live progress of ``harness run`` on stderr: the workspace and budget at the start, the
model's words as they arrive, one line per call ending in how it went (``✓``, ``✗`` and
why: refused, denied, failed), a line when a file the model read changed and was re-read,
each step's budget, retries and warnings; on a terminal a spinner saying what is happening
(the model, a command, the verification, a retry and its count).

The words and the call lines are drawn from the run's §11 events (``harness.run.events``, given
to ``event``) — the same ones the editors draw; the rest from the observer hooks. The words
stream on a line of their own after ``step n/N · ``; a line break in them continues
indented, so every line still starts with ``step``, two spaces, ``harness``, ``run`` or
``warning``.

Colour and the spinner only on a terminal (rich: never with ``NO_COLOR``). On a terminal a
line is cut to its width (``…``); piped, a line is never broken. Every text the model or a
command chose is escaped before it is printed (§6.7).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.text import Text

from harness.cli.summary import RunTally
from harness.cli.table import cut
from harness.escape import printable
from harness.marks import NO_APPROVAL, Mark, Went
from harness.report import RunInfo, RunObserver, RunResult, StepSummary
from harness.run.observers import VERIFY_CALL
from harness.run.toolbox import label
from harness.types import Attempt, Reply, ToolCall

Part = tuple[str, str]  # (text, style)


class TerminalObserver(RunObserver):
    """Progress lines on ``console`` (stderr); what the run met is kept in ``tally``."""

    def __init__(
        self, console: Console, *, workspace: str, model: str = "", fit: bool | None = None
    ) -> None:
        self.console = console
        self.fit = console.is_terminal if fit is None else fit  # cut lines to the width
        self.workspace = workspace  # "workspace /x (the git root of the current directory)"
        self.model = model  # "openai gpt-4.1"
        self.tally = RunTally()
        self._status: Status | None = None
        self._words_open = False  # a line of the model's words is being written
        self._column = 0  # where on that line the next piece goes
        self._space = ""  # spaces not yet written (a line may break there)
        self._calls: dict[str, str] = {}  # call id -> its label, from the toolCall events
        self._max_steps = 0

    # -- lines -------------------------------------------------------------------------

    def _line(self, parts: Sequence[Part], *, cuttable: int | None = None) -> None:
        """One line from parts; on a terminal the part ``cuttable`` (else the last) is cut
        so the line fits. Every part is escaped."""
        self._end_words()
        texts = [(printable(t), s) for t, s in parts]
        if self.fit:
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
        self._end_words()
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
        self._max_steps = run.max_steps
        self._line([(f"harness · {self.workspace}", "bold")])
        model = f" · {self.model}" if self.model else ""
        self._line(
            [(f"run {run.run_id} · budget {run.token_budget:,} tokens · {run.max_steps} "
              f"steps{model}", "dim")]
        )  # fmt: skip

    def step_started(self, run: RunInfo, step: int) -> None:
        self._spin(self._where(run, step) + "waiting for the model…")

    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        if not reply.tool_calls:  # its words are shown whole at the end too
            self._line([(self._where(run, step), ""), ("stopped calling tools", "")])

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

    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        self._spin(f"{self._where(run, step)}verifying: {command}")

    def file_refreshed(
        self, run: RunInfo, step: int, path: str, read_step: int, cause: str
    ) -> None:
        if cause.startswith("the write"):  # the agent's own edit: its row said so
            return
        what = f"↻ re-read {path} ({cause} since step {read_step})"
        self._line([(self._where(run, step), ""), (what, "cyan")], cuttable=1)

    # -- the run's events (harness.run.events) ---------------------------------------------

    def event(self, event: dict[str, Any]) -> None:
        """One §11 event: the words as they arrive, a line per call once it went."""
        kind, step = event["kind"], int(event["step"])
        if kind == "text":
            self._words(step, str(event["delta"]))
        elif kind == "toolCall":
            call = ToolCall(str(event["callId"]), str(event["name"]), event["arguments"])
            what = f"verify {event['target']}" if call.id == VERIFY_CALL else label(call)
            self._calls[call.id] = what
        elif kind == "toolResult":
            self._result(step, event)

    def _words(self, step: int, delta: str) -> None:
        if not self._words_open:
            self.pause()
            lead = f"step {step}/{self._max_steps} · "
            self.console.print(Text(lead), end="")
            self._words_open, self._column = True, len(lead)
        for piece in re.findall(r"\n|[^\S\n]+|\S+", printable(delta, keep_newlines=True)):
            self._piece(piece)

    def _piece(self, piece: str) -> None:
        """One word, space or line break of the words; past the width (``fit``) the line
        breaks before a word, and a break continues indented."""
        if piece != "\n" and not piece.strip():
            self._space += piece  # written before the next word, unless the line breaks
            return
        space, self._space = self._space, ""
        width = self.console.width
        if piece == "\n" or (self.fit and self._column + len(space + piece) >= width):
            self.console.print(Text("\n  "), end="", soft_wrap=True)
            self._column, space = 2, ""
            if piece == "\n":
                return
        style = "" if self.console.no_color else "italic"  # NO_COLOR: no styles at all
        self.console.print(Text(space + piece, style=style), end="", soft_wrap=True)
        self._column += len(space + piece)

    def _end_words(self) -> None:
        if self._words_open:
            self._words_open, self._space = False, ""
            self.console.print()

    def _result(self, step: int, event: dict[str, Any]) -> None:
        what = self._calls.pop(str(event["callId"]), str(event["callId"]))
        mark = mark_of(str(event["status"]), event.get("why"))
        if event["callId"] == VERIFY_CALL:
            mark = Mark(Went.OK, "passed") if mark.went is Went.OK else mark
            self.tally.verified(mark)
        else:
            self.tally.called(what, mark)
        where = f"step {step}/{self._max_steps} · "
        self._line([(where, ""), (what, ""), (" ", ""), (mark.text, mark.style)], cuttable=1)

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
        if not self.fit:
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
        self._end_words()
        self.pause()


def mark_of(status: str, why: str | None) -> Mark:
    """The terminal's mark for a ``toolResult``'s status and why."""
    if status == "ok":
        return Mark(Went.OK, why or "")
    if why is not None and why.startswith(NO_APPROVAL.split(" —")[0]):
        return Mark(Went.NEEDS_APPROVAL, why)
    return Mark(Went.FAILED if status == "failed" else Went.REFUSED, why or status)


__all__ = ["TerminalObserver", "mark_of"]
