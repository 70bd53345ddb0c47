"""What a run reports to whoever drives it: per-step summaries, the result, and the
observer hooks a terminal or the language server implements."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.types import Outcome, ToolCall

if TYPE_CHECKING:
    from harness.loop import Run


@dataclass(frozen=True)
class StepSummary:
    """What a client shows after each step (the ``harness/budget`` notification)."""

    run_id: int
    step: int
    max_steps: int
    spent_tokens: int
    token_budget: int
    request_tokens: int
    context_ceiling: int
    reported_prompt_tokens: int | None
    carried: int
    stubbed: int
    reread: int

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "step": self.step,
            "maxSteps": self.max_steps,
            "spentTokens": self.spent_tokens,
            "tokenBudget": self.token_budget,
            "requestTokens": self.request_tokens,
            "contextCeiling": self.context_ceiling,
            "reportedPromptTokens": self.reported_prompt_tokens,
        }


@dataclass(frozen=True)
class RunResult:
    run_id: int
    outcome: Outcome
    steps: int
    spent_tokens: int
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "outcome": self.outcome.value,
            "steps": self.steps,
            "spentTokens": self.spent_tokens,
        }


class RunObserver:
    """Hooks for whoever drives a run (a terminal, the language server). All optional."""

    def step_started(self, run: Run, step: int) -> None: ...

    def tool_started(self, run: Run, step: int, call: ToolCall, label: str) -> None: ...

    def step_finished(self, run: Run, summary: StepSummary) -> None: ...

    def file_written(self, run: Run, path: Path) -> None: ...

    def user_warning(self, run: Run, message: str) -> None: ...

    def run_finished(self, run: Run, result: RunResult) -> None: ...
