"""The end of ``harness run`` as a person reads it: the model's last words, the files the
run changed, and a final line with the outcome, steps, tokens, the cached share and the
dollars (when the model's price is known), and what the run met on the way (calls refused,
denied or failed — the result's counts — and a verification that was refused).

``RunTally`` is what the progress observer counted while the run went; ``end_lines`` turns
it and the ``RunResult`` into the lines printed on stdout.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from rich.text import Text

from harness.escape import printable
from harness.marks import NO_APPROVAL, Mark
from harness.report import RunResult, StepSummary
from harness.revert.changes import RunChanges


@dataclass
class RunTally:
    """What a run met, counted as it went."""

    # (call label, mark) of the calls stopped: for the words of the final line (the counts
    # themselves are the result's, ``RunResult.calls``)
    refused: list[tuple[str, Mark]] = field(default_factory=list)
    prompt_tokens: int = 0  # provider-reported, summed over the steps that reported them
    cached_tokens: int | None = None  # None: the provider reported no cache figures
    last_verification: Mark | None = None
    attempts_failed: int = 0

    def called(self, what: str, mark: Mark) -> None:
        if mark.stopped:
            self.refused.append((what, mark))

    def verified(self, mark: Mark) -> None:
        self.last_verification = mark

    def stepped(self, summary: StepSummary) -> None:
        if summary.reported_prompt_tokens is not None:
            self.prompt_tokens += summary.reported_prompt_tokens
        if summary.cached_prompt_tokens is not None:
            self.cached_tokens = (self.cached_tokens or 0) + summary.cached_prompt_tokens

    def cache_words(self) -> str:
        """``62% cached`` (provider-reported cache reads over prompt tokens), or ``no cache
        figures`` when the provider reported none."""
        if self.cached_tokens is None or self.prompt_tokens <= 0:
            return "no cache figures"
        return f"{round(100 * self.cached_tokens / self.prompt_tokens)}% cached"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def end_lines(result: RunResult, tally: RunTally, changes: RunChanges | None = None) -> list[Text]:
    """The last words, the files changed (with ``changes``: a line per file, its lines
    added and removed), any error, then the final line."""
    lines: list[Text] = []
    if result.summary:
        lines.append(Text(printable(result.summary.strip(), keep_newlines=True)))
    if result.files_changed:
        lines.append(Text(printable("files changed: " + ", ".join(result.files_changed))))
    lines += change_lines(changes) if changes is not None else []
    if result.end.error:
        lines.append(Text(printable(f"error: {result.end.error}"), style="red"))
    lines.append(final_line(result, tally))
    return lines


def change_lines(changes: RunChanges) -> list[Text]:
    """``  modified src/a.py  +3 −1``: each file the run changed that differs now."""
    out = []
    for change in changes.files:
        added, removed = line_counts(change.before, change.after)
        line = Text(printable(f"  {change.status.value} {change.path}  "))
        line.append(f"+{added}", style="green")
        line.append(" ")
        line.append(f"−{removed}", style="red")
        out.append(line)
    return out


def line_counts(before: str | None, after: str | None) -> tuple[int, int]:
    """Lines added and removed from ``before`` to ``after`` (None: no file)."""
    old, new = (before or "").splitlines(), (after or "").splitlines()
    added = removed = 0
    for line in difflib.unified_diff(old, new, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def final_line(result: RunResult, tally: RunTally) -> Text:
    end = result.end
    line = Text(f"run {result.run_id} ")
    line.append(end.outcome.value, style="bold green" if end.outcome.ok else "bold red")
    files = len(result.files_changed)
    facts = [
        plural(end.steps, "step"),
        f"{end.spent_tokens:,} tokens, {tally.cache_words()}",
        *([dollars(result.cost_usd)] if result.cost_usd is not None else []),
        plural(files, "file") + " changed" if files else "no files changed",
    ]
    met = _met(result, tally)
    line.append(printable(" · " + " · ".join(facts)))
    if met:
        line.append(printable(" · " + " · ".join(met)), style="yellow")
    return line


def dollars(usd: float) -> str:
    """``$0.031``: three significant digits below a dollar (``$0.00042``), cents above."""
    if usd >= 1:
        return f"${usd:,.2f}"
    return f"${usd:.3g}" if usd > 0 else "$0"


def _met(result: RunResult, tally: RunTally) -> list[str]:
    """What the run met that the outcome alone does not say."""
    met: list[str] = []
    verification = tally.last_verification
    if verification is not None and verification.stopped:
        met.append(f"the verification was {verification.words}")
    elif verification is not None and verification.words.startswith("did not run"):
        met.append(f"the verification {verification.words}")
    calls = result.calls
    if calls.refused:
        waiting = sum(1 for _, m in tally.refused if m.words == NO_APPROVAL)
        words = plural(calls.refused, "call") + " refused"
        if waiting == calls.refused:
            words += f" ({NO_APPROVAL}: run with --yes)"
        elif waiting:
            words += f" ({waiting} of them needed approval, not available: run with --yes)"
        met.append(words)
    if calls.denied:
        met.append(plural(calls.denied, "call") + " denied by you")
    if calls.failed:
        met.append(plural(calls.failed, "call") + " failed")
    return met


__all__ = [
    "RunTally",
    "change_lines",
    "dollars",
    "end_lines",
    "final_line",
    "line_counts",
    "plural",
]
