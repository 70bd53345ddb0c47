"""Rule 1 (§3): the memory block comes first, at most a quarter of the ceiling. It is
chosen at the run's first turn and re-chosen only when the window slides, so it does not
churn the prefix."""

from __future__ import annotations

from collections.abc import Callable

from harness.context.ceiling import Ceiling

MemorySource = str | Callable[[], str]


def choose(memory: MemorySource, ceiling: Ceiling) -> str:
    """The memory block: a longer one than a quarter of the ceiling is not sent (the memory
    module sizes it to the effective budget; this is the guard)."""
    text = memory() if callable(memory) else memory
    return text if ceiling.memory_fits(text) else ""
