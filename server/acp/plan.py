"""A plan-mode run's answer as ACP ``plan`` entries (issue 38): the steps of the model's
last words (its numbered list, else its bulleted one), ``pending``; a code-mode run that
follows carries them out — its start marks the first ``in_progress``, its success all
``completed`` (a run that ends otherwise leaves them as they are, for the next)."""

from __future__ import annotations

import re
from typing import Any

from acp.helpers import update_plan
from acp.schema import AgentPlanUpdate, PlanEntry

from harness.types import Outcome

NUMBERED = re.compile(r"^\s{0,3}\d{1,3}[.)]\s+(.+)$")
BULLETED = re.compile(r"^\s{0,3}[-*+]\s+(.+)$")
MAX_ENTRIES = 50
MAX_ENTRY_CHARS = 500


def plan_steps(words: str) -> list[str]:
    """The steps of a plan written as a Markdown list (numbered first, else bulleted)."""
    lines = words.splitlines()
    for pattern in (NUMBERED, BULLETED):
        steps = [m[1].strip() for m in map(pattern.match, lines) if m is not None]
        if steps:
            return [s.replace("**", "")[:MAX_ENTRY_CHARS] for s in steps[:MAX_ENTRIES]]
    return []


class PlanTracker:
    """One session's plan: fed the run events, it says which ``plan`` updates to send."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.status: list[str] = []
        self.mode = "code"
        self.words: dict[int, list[str]] = {}

    def updates(self, event: dict[str, Any]) -> list[AgentPlanUpdate]:
        kind = event["kind"]
        if kind == "user" and not event.get("steer"):
            self.mode, self.words = str(event.get("mode") or "code"), {}
            if self.mode == "code" and self.steps and "pending" in self.status:
                first = self.status.index("pending")
                self.status[first] = "in_progress"
                return [self._update()]
        elif kind == "text":
            self.words.setdefault(int(event.get("step") or 0), []).append(event["delta"])
        elif kind == "end":
            return self._ended(event)
        return []

    def _ended(self, event: dict[str, Any]) -> list[AgentPlanUpdate]:
        if self.mode == "plan":
            last = max(self.words, default=None)
            steps = plan_steps("".join(self.words[last])) if last is not None else []
            if not steps:
                return []
            self.steps, self.status = steps, ["pending"] * len(steps)
            return [self._update()]
        if self.mode == "code" and self.steps and _succeeded(event):
            self.status = ["completed"] * len(self.steps)
            update = self._update()
            self.steps, self.status = [], []
            return [update]
        return []

    def _update(self) -> AgentPlanUpdate:
        return update_plan(
            PlanEntry(content=step, priority="medium", status=status)
            for step, status in zip(self.steps, self.status, strict=True)
        )


def _succeeded(event: dict[str, Any]) -> bool:
    try:
        return Outcome(str(event.get("outcome"))).ok
    except ValueError:
        return False


__all__ = ["PlanTracker", "plan_steps"]
